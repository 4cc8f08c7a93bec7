//! Cases of models (`aclmdlRI*`): a built model executes repeatedly.

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};

use crate::helpers::*;
use crate::CaseResult;

pub(crate) fn model_execution_repeatable(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let value = rt.chip().features.task_value_wait;
    let src = malloc(rt, 256);
    let dst = malloc(rt, 256);
    let flag = malloc(rt, 8);
    let (m, s) = model_with_stream(rt);
    rt.memset_async(src, 256, 0xAB, 256, s)
        .expect("aclrtMemsetAsync");
    rt.memcpy_async(
        MemDst::Addr(dst),
        256,
        MemSrc::Addr(src),
        256,
        memcpy_kind::DEVICE_TO_DEVICE,
        s,
    )
    .expect("aclrtMemcpyAsync");
    if value {
        rt.value_write(flag, 42, 0, s).expect("aclrtValueWrite");
    }
    finish_model(rt, m, s);
    let mut out = [0u8; 256];
    let read = |out: &mut [u8; 256]| {
        rt.memcpy(
            MemDst::Host(out),
            256,
            MemSrc::Addr(dst),
            256,
            memcpy_kind::DEVICE_TO_HOST,
        )
        .expect("D2H")
    };
    read(&mut out);
    assert!(
        out.iter().all(|&x| x == 0),
        "recorded tasks did not run yet"
    );
    for run in 0..3 {
        rt.memset(src, 256, 0, 256).expect("clear");
        rt.memset(dst, 256, 0, 256).expect("clear");
        write_u64(rt, flag, 0);
        rt.mdl_ri_execute(m, -1).expect("aclmdlRIExecute");
        read(&mut out);
        assert!(out.iter().all(|&x| x == 0xAB), "run {run}: the copy ran");
        if value {
            assert_eq!(read_u64(rt, flag), 42, "run {run}: the value write ran");
        }
    }
    if rt.chip().features.model_execute_async {
        rt.memset(dst, 256, 0, 256).expect("clear");
        let q = stream(rt);
        rt.mdl_ri_execute_async(m, q).expect("aclmdlRIExecuteAsync");
        rt.synchronize_stream(q).expect("sync");
        read(&mut out);
        assert!(out.iter().all(|&x| x == 0xAB), "async run: the copy ran");
        rt.destroy_stream(q).expect("destroy");
    }
    drop_model(rt, m, s);
    Ok(())
}
