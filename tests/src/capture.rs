//! Cases of stream capture and of kernels launched from binaries: captured tasks run when the
//! model runs, as often as it runs; a function from a binary runs the simulator kernel
//! registered under its name, and fails naming the kernel when there is none.

use std::sync::Arc;

use ascend_chips::ChipType;
use ascend_rt::raw_types::*;
use ascend_rt::{
    raw_types::capture_mode, raw_types::capture_status, Kernel, KernelOps, Runtime,
    SimKernelFactory,
};

use crate::helpers::*;
use crate::CaseResult;

/// A capture already under way on the stream (107027).
const CAPTURING: i32 = 107_027;
/// No capture to end on the stream (107029).
const NOT_CAPTURING: i32 = 107_029;

pub(crate) fn stream_capture(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let (s, exec) = (stream(rt), stream(rt));
    let supported = matches!(
        rt.chip().chip_type,
        ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350 | ChipType::Dc
    );
    expect(
        "CaptureBegin NULL",
        rt.mdl_ri_capture_begin(RawStream(0), capture_mode::RELAXED),
        INVALID_PARAM,
    );
    if !supported {
        expect(
            "CaptureBegin",
            rt.mdl_ri_capture_begin(s, capture_mode::RELAXED),
            NOT_SUPPORTED,
        );
        return Ok(());
    }
    expect(
        "CaptureBegin garbage stream",
        rt.mdl_ri_capture_begin(RawStream(0xdead), capture_mode::RELAXED),
        BAD_HANDLE,
    );
    expect(
        "CaptureBegin mode 3",
        rt.mdl_ri_capture_begin(s, 3),
        RT_PARAM,
    );
    let mut m = RawModel::default();
    expect(
        "CaptureEnd without a capture",
        rt.mdl_ri_capture_end(s, Some(&mut m)),
        NOT_CAPTURING,
    );
    let a = malloc(rt, 64);
    expect(
        "CaptureBegin",
        rt.mdl_ri_capture_begin(s, capture_mode::RELAXED),
        0,
    );
    expect(
        "CaptureBegin twice",
        rt.mdl_ri_capture_begin(s, capture_mode::RELAXED),
        CAPTURING,
    );
    let mut status = 9;
    expect(
        "CaptureGetInfo",
        rt.mdl_ri_capture_get_info(s, Some(&mut status), None),
        0,
    );
    assert_eq!(status, capture_status::ACTIVE);
    rt.memset_async(a, 64, 5, 64, s)
        .expect("aclrtMemsetAsync, captured");
    assert!(
        read_bytes(rt, a, 64).iter().all(|&b| b == 0),
        "captured, not run"
    );
    expect("CaptureEnd", rt.mdl_ri_capture_end(s, Some(&mut m)), 0);
    expect(
        "CaptureGetInfo",
        rt.mdl_ri_capture_get_info(s, Some(&mut status), None),
        0,
    );
    assert_eq!(status, capture_status::NONE);
    for run in 0..2 {
        rt.memset(a, 64, 0, 64).expect("aclrtMemset");
        expect("ExecuteAsync", rt.mdl_ri_execute_async(m, exec), 0);
        rt.synchronize_stream(exec).expect("aclrtSynchronizeStream");
        assert!(
            read_bytes(rt, a, 64).iter().all(|&b| b == 5),
            "run {run} of the captured fill"
        );
    }
    // The stream runs its own tasks again.
    rt.memset_async(a, 64, 6, 64, s).expect("aclrtMemsetAsync");
    rt.synchronize_stream(s).expect("aclrtSynchronizeStream");
    assert!(read_bytes(rt, a, 64).iter().all(|&b| b == 6));
    expect("aclmdlRIDestroy", rt.mdl_ri_destroy(m), 0);
    Ok(())
}

/// A kernel `add_one(dst)`: *dst += 1, written back to global memory.
fn add_one() -> SimKernelFactory {
    Arc::new(|args: &[u8]| {
        let dst = u64::from_le_bytes(args[..8].try_into().unwrap());
        Kernel::new("add_one", move |ctx: &mut dyn KernelOps| {
            let v = ctx.load(dst, 8);
            ctx.store(dst, 8, v + 1);
            ctx.dcci(dst, false, 2);
        })
    })
}

pub(crate) fn kernel_binaries(rt: &Runtime) -> CaseResult {
    let path = std::env::temp_dir().join(format!(
        "ascend-conformance-binary-{}.o",
        std::process::id()
    ));
    std::fs::write(&path, b"not an Ascend C binary").map_err(|e| e.to_string())?;
    let path = path.to_string_lossy().into_owned();
    let _d = Dev::open(rt);
    expect(
        "BinaryLoadFromFile NULL",
        with_out(|o| rt.binary_load_from_file(None, Some(o))),
        INVALID_PARAM,
    );
    expect(
        "BinaryLoadFromFile missing file",
        with_out(|o| rt.binary_load_from_file(Some("/nonexistent/kernel.o"), Some(o))),
        RT_PARAM,
    );
    let bin = with_out(|o| rt.binary_load_from_file(Some(&path), Some(o)))
        .expect("aclrtBinaryLoadFromFile");
    let f = with_out(|o| rt.binary_get_function(bin, Some("add_one"), Some(o)))
        .expect("aclrtBinaryGetFunction");
    let a = malloc(rt, 8);
    let args = with_out(|o| rt.kernel_args_init(f, Some(o))).expect("aclrtKernelArgsInit");
    with_out(|o| rt.kernel_args_append(args, Some(&a.0.to_le_bytes()), Some(o)))
        .expect("aclrtKernelArgsAppend");
    rt.kernel_args_finalize(args)
        .expect("aclrtKernelArgsFinalize");
    expect(
        "LaunchKernelWithConfig blocks 0",
        rt.launch_kernel_with_config(f, 0, RawStream(0), args, true),
        INVALID_PARAM,
    );
    // Without a simulator kernel of the function's name, the launch names it.
    let missing = rt
        .launch_kernel_with_config(f, 1, RawStream(0), args, true)
        .expect_err("no kernel registered");
    assert_eq!(missing.code(), NOT_SUPPORTED);
    assert!(missing.message.contains("add_one"), "{missing}");
    rt.register_sim_function("add_one", add_one());
    let launched = rt.launch_kernel_with_config(f, 1, RawStream(0), args, true);
    if rt.runs_sim_kernels() {
        expect("LaunchKernelWithConfig", launched, 0);
        rt.synchronize_stream(RawStream(0))
            .expect("aclrtSynchronizeStream");
        assert_eq!(read_u64(rt, a), 1, "the registered kernel ran");
    } else {
        // A real device runs compiled kernels, not the simulator's.
        expect("LaunchKernelWithConfig", launched, NOT_SUPPORTED);
    }
    expect("BinaryUnLoad", rt.binary_unload(bin), 0);
    expect("BinaryUnLoad twice", rt.binary_unload(bin), BAD_HANDLE);
    let _ = std::fs::remove_file(&path);
    Ok(())
}
