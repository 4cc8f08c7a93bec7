//! Cases of notifies: a record on one stream releasing a wait on another, a wait that times
//! out, and the per-device limit.

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};

use crate::helpers::*;
use crate::CaseResult;

/// The per-device notify limit of the docs (`aclrtCreateNotify` constraints).
fn notify_limit(chip: &ascend_chips::ChipProfile) -> usize {
    use ascend_chips::ChipType;
    match chip.chip_type {
        ChipType::David | ChipType::Ascend350 => 65535,
        ChipType::Cloud910B93 => 8192,
        ChipType::MiniV3 => 2048,
        _ => 1024,
    }
}

pub(crate) fn notify_record_and_wait(rt: &Runtime) -> CaseResult {
    let mut n = RawNotify::default();
    expect(
        "CreateNotify without a device",
        rt.create_notify(Some(&mut n), notify_flag::DEFAULT),
        NO_CONTEXT,
    );
    let _d = Dev::open(rt);
    expect(
        "CreateNotify NULL",
        rt.create_notify(None, notify_flag::DEFAULT),
        INVALID_PARAM,
    );
    expect(
        "CreateNotify flag 2",
        rt.create_notify(Some(&mut n), 2),
        RT_PARAM,
    );
    expect(
        "CreateNotify DEVICE_USE_ONLY",
        rt.create_notify(Some(&mut n), notify_flag::DEVICE_USE_ONLY),
        0,
    );
    rt.destroy_notify(n).expect("aclrtDestroyNotify");
    let n = notify(rt);
    let (a, b) = (stream(rt), stream(rt));
    let (src, dst) = (malloc(rt, 4096), malloc(rt, 4096));
    // a waits for b's record before its copy.
    expect(
        "WaitAndResetNotify forever",
        rt.wait_and_reset_notify(n, a, 0),
        0,
    );
    rt.memcpy_async(
        MemDst::Addr(dst),
        4096,
        MemSrc::Addr(src),
        4096,
        memcpy_kind::DEVICE_TO_DEVICE,
        a,
    )
    .expect("aclrtMemcpyAsync on the waiting stream");
    assert_eq!(
        query(rt, a),
        stream_status::NOT_READY,
        "a waits for the record"
    );
    rt.memset_async(src, 4096, 0x3C, 4096, b)
        .expect("aclrtMemsetAsync");
    expect("RecordNotify", rt.record_notify(n, b), 0);
    rt.synchronize_stream(a)
        .expect("the record releases the wait");
    assert!(
        read_bytes(rt, dst, 4096).iter().all(|&x| x == 0x3C),
        "the copy after the wait saw the fill before the record"
    );
    // The wait consumed the record: a wait nobody records times out, reported at synchronize.
    expect(
        "WaitAndResetNotify 1 s (enqueue)",
        rt.wait_and_reset_notify(n, a, 1),
        0,
    );
    expect(
        "SynchronizeStream after a notify wait timed out",
        rt.synchronize_stream(a),
        TASK_TIMEOUT,
    );
    rt.synchronize_stream(b).expect("sync b");
    // A record before the wait is kept until a wait consumes it (UINT32_MAX: plain wait).
    rt.record_notify(n, b).expect("aclrtRecordNotify");
    rt.synchronize_stream(b).expect("sync b");
    expect(
        "WaitAndResetNotify UINT32_MAX after the record",
        rt.wait_and_reset_notify(n, b, notify_timeout::PLAIN_WAIT),
        0,
    );
    rt.synchronize_stream(b)
        .expect("a recorded notify releases a later wait");
    rt.destroy_stream(a).expect("aclrtDestroyStream");
    rt.destroy_stream(b).expect("aclrtDestroyStream");
    expect("DestroyNotify", rt.destroy_notify(n), 0);
    expect("DestroyNotify twice", rt.destroy_notify(n), BAD_HANDLE);
    expect(
        "RecordNotify destroyed",
        rt.record_notify(n, RawStream::NULL),
        BAD_HANDLE,
    );
    // The per-device limit, where it is small enough to reach quickly.
    let limit = notify_limit(rt.chip());
    if limit <= 8192 {
        let mut made = Vec::with_capacity(limit);
        let mut last = 0;
        for _ in 0..=limit {
            let mut m = RawNotify::default();
            last = code(rt.create_notify(Some(&mut m), notify_flag::DEFAULT));
            if last != 0 {
                break;
            }
            made.push(m);
        }
        let count = made.len();
        for m in made {
            rt.destroy_notify(m).expect("aclrtDestroyNotify");
        }
        assert_eq!(count, limit, "notifies created before the limit");
        assert_eq!(last, NO_NOTIFY, "CreateNotify past the limit");
    }
    Ok(())
}
