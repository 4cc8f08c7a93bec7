//! Cases of the built-in memory tasks and of labels: a reduce-copy adds in stream order,
//! random numbers land in their range (A2/A3), and a label switch in a model skips forward.
//! Random-number tasks and labels are not yet passed to a real device: through the `hw`
//! backend their launch is "not supported" (207000).

use ascend_chips::ChipType;
use ascend_rt::data_types::data_type;
use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, RawRandomParam, RawRandomTaskInfo, Runtime};

use crate::helpers::*;
use crate::CaseResult;

/// `ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM`.
const SUM: u32 = 10;

fn put(rt: &Runtime, a: Addr, bytes: &[u8]) {
    rt.memcpy(
        MemDst::Addr(a),
        bytes.len(),
        MemSrc::Host(bytes),
        bytes.len(),
        memcpy_kind::HOST_TO_DEVICE,
    )
    .expect("aclrtMemcpy H2D");
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn inline(v: u64, size: u8) -> RawRandomParam {
    RawRandomParam {
        is_addr: 0,
        value_or_addr: v.to_le_bytes(),
        size,
    }
}

pub(crate) fn built_in_tasks_and_labels(rt: &Runtime) -> CaseResult {
    let on_sim = rt.backend_name() == "sim";
    let _d = Dev::open(rt);
    let s = stream(rt);

    // Reduce-copies: dst = dst + src, in stream order, twice.
    let (d, src) = (malloc(rt, 16), malloc(rt, 16));
    put(rt, d, &f32s(&[1.0, 2.0, 3.0, 4.0]));
    put(rt, src, &f32s(&[1.0, 2.0, 3.0, 4.0]));
    expect(
        "ReduceAsync dst NULL",
        rt.reduce_async(Addr::NULL, src, 16, SUM, data_type::FLOAT, s, true),
        INVALID_PARAM,
    );
    expect(
        "ReduceAsync reserve not NULL",
        rt.reduce_async(d, src, 16, SUM, data_type::FLOAT, s, false),
        INVALID_PARAM,
    );
    expect(
        "ReduceAsync garbage stream",
        rt.reduce_async(d, src, 16, SUM, data_type::FLOAT, RawStream(0xdead), true),
        BAD_HANDLE,
    );
    expect(
        "ReduceAsync count 0",
        rt.reduce_async(d, src, 0, SUM, data_type::FLOAT, s, true),
        RT_PARAM,
    );
    expect(
        "ReduceAsync kind 9",
        rt.reduce_async(d, src, 16, 9, data_type::FLOAT, s, true),
        RT_PARAM,
    );
    for _ in 0..2 {
        expect(
            "ReduceAsync SUM float",
            rt.reduce_async(d, src, 16, SUM, data_type::FLOAT, s, true),
            0,
        );
    }
    rt.synchronize_stream(s).expect("aclrtSynchronizeStream");
    assert_eq!(
        read_bytes(rt, d, 16),
        f32s(&[3.0, 6.0, 9.0, 12.0]),
        "two sums in stream order"
    );

    // Random numbers: uniform int32 in [10, 20).
    let (out, counter) = (malloc(rt, 256), malloc(rt, 16));
    let info = RawRandomTaskInfo {
        data_type: data_type::INT32,
        func_type: 1,
        params: [inline(10, 4), inline(20, 4)],
        para_addr: 0,
        result_addr: out.0,
        counter_addr: counter.0,
        seed: inline(7, 8),
        num: inline(64, 8),
    };
    expect(
        "RandomNumAsync NULL",
        rt.random_num_async(None, s, true),
        INVALID_PARAM,
    );
    let random = rt.random_num_async(Some(&info), s, true);
    if rt.chip().chip_type != ChipType::Cloud910B93 || !on_sim {
        expect("RandomNumAsync", random, NOT_SUPPORTED);
    } else {
        expect("RandomNumAsync", random, 0);
        rt.synchronize_stream(s).expect("aclrtSynchronizeStream");
        let got = read_bytes(rt, out, 256);
        assert!(
            got.chunks(4)
                .map(|x| i32::from_le_bytes(x.try_into().unwrap()))
                .all(|x| (10..20).contains(&x)),
            "uniform numbers in [10, 20)"
        );
    }

    // Labels: a switch on index 1 jumps over the first write to label 1.
    let (m, ms) = model_with_stream(rt);
    let (idx, a) = (malloc(rt, 8), malloc(rt, 8));
    write_u64(rt, idx, 1);
    let mut labels = [RawLabel::NULL; 2];
    for l in &mut labels {
        *l = with_out(|o| rt.create_label(Some(o))).expect("aclrtCreateLabel");
    }
    let list =
        with_out(|o| rt.create_label_list(Some(&labels), Some(o))).expect("aclrtCreateLabelList");
    expect(
        "SwitchLabelByIndex on a stream of no model",
        rt.switch_label_by_index(idx, 2, list, s),
        STREAM_MODEL,
    );
    let switched = rt.switch_label_by_index(idx, 2, list, ms);
    if !on_sim {
        expect("SwitchLabelByIndex", switched, NOT_SUPPORTED);
        expect("SetLabel", rt.set_label(labels[0], ms), NOT_SUPPORTED);
    } else {
        expect("SwitchLabelByIndex", switched, 0);
        rt.memset_async(a, 8, 1, 8, ms).expect("aclrtMemsetAsync");
        expect("SetLabel 0", rt.set_label(labels[0], ms), 0);
        rt.memset_async(a, 8, 2, 8, ms).expect("aclrtMemsetAsync");
        expect("SetLabel 1", rt.set_label(labels[1], ms), 0);
        expect("SetLabel twice", rt.set_label(labels[1], ms), RT_INTERNAL);
        finish_model(rt, m, ms);
        rt.mdl_ri_execute(m, -1).expect("aclmdlRIExecute");
        assert_eq!(
            read_u64(rt, a),
            0,
            "both writes skipped: index 1 is the end"
        );
        write_u64(rt, idx, 0);
        rt.mdl_ri_execute(m, -1).expect("aclmdlRIExecute");
        assert_eq!(
            read_u64(rt, a),
            u64::from_le_bytes([2; 8]),
            "index 0 skips only the first write"
        );
    }
    expect("DestroyLabelList", rt.destroy_label_list(list), 0);
    for l in labels {
        expect("DestroyLabel", rt.destroy_label(l), 0);
    }
    Ok(())
}
