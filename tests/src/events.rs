//! Cases of events: ordering between streams through records and waits, and event
//! timestamps.

use std::time::Duration;

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};

use crate::helpers::*;
use crate::CaseResult;

pub(crate) fn event_ordering(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let (a, b) = (stream(rt), stream(rt));
    let mut e = RawEvent::default();
    let mut start = RawEvent::default();
    rt.create_event(Some(&mut e)).expect("aclrtCreateEvent");
    rt.create_event(Some(&mut start)).expect("aclrtCreateEvent");
    // Plain ordering (every chip): a fill on a, an event, a copy on b after the event.
    let src = malloc(rt, 256);
    let dst = malloc(rt, 256);
    rt.record_event(start, a).expect("aclrtRecordEvent");
    rt.memset_async(src, 256, 0x5A, 256, a)
        .expect("aclrtMemsetAsync");
    rt.record_event(e, a).expect("aclrtRecordEvent");
    rt.stream_wait_event(b, e).expect("aclrtStreamWaitEvent");
    rt.memcpy_async(
        MemDst::Addr(dst),
        256,
        MemSrc::Addr(src),
        256,
        memcpy_kind::DEVICE_TO_DEVICE,
        b,
    )
    .expect("aclrtMemcpyAsync");
    rt.synchronize_stream(b).expect("sync b");
    let mut out = [0u8; 256];
    rt.memcpy(
        MemDst::Host(&mut out),
        256,
        MemSrc::Addr(dst),
        256,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .expect("D2H");
    assert!(
        out.iter().all(|&x| x == 0x5A),
        "b's copy ran after a's fill"
    );
    rt.synchronize_event(e).expect("aclrtSynchronizeEvent");
    let mut status = 9;
    rt.query_event_status(e, Some(&mut status)).expect("query");
    assert_eq!(status, event_recorded_status::COMPLETE);
    let mut ms = -1.0f32;
    rt.event_elapsed_time(Some(&mut ms), start, e)
        .expect("aclrtEventElapsedTime");
    assert!(ms >= 0.0, "elapsed time {ms} ms");
    // Held back (chips with value wait): the event waits behind a blocked stream.
    if rt.chip().features.task_value_wait {
        let word = malloc(rt, 8);
        let marker = malloc(rt, 8);
        rt.value_wait(word, 1, wait_flag::EQ, a)
            .expect("aclrtValueWait");
        rt.record_event(e, a).expect("aclrtRecordEvent");
        rt.stream_wait_event(b, e).expect("aclrtStreamWaitEvent");
        rt.value_write(marker, 2, 0, b).expect("aclrtValueWrite");
        std::thread::sleep(Duration::from_millis(5));
        rt.query_event_status(e, Some(&mut status)).expect("query");
        assert_eq!(
            status,
            event_recorded_status::NOT_READY,
            "the record waits behind the value wait"
        );
        assert_eq!(
            query(rt, b),
            stream_status::NOT_READY,
            "b waits for the event"
        );
        assert_eq!(read_u64(rt, marker), 0, "b's write waits for the event");
        rt.value_write(word, 1, 0, RawStream::NULL)
            .expect("release");
        rt.synchronize_stream(b).expect("sync b");
        assert_eq!(read_u64(rt, marker), 2, "b ran after the event");
        rt.query_event_status(e, Some(&mut status)).expect("query");
        assert_eq!(status, event_recorded_status::COMPLETE);
    }
    rt.destroy_event(e).expect("destroy event");
    rt.destroy_event(start).expect("destroy event");
    rt.destroy_stream(a).expect("destroy");
    rt.destroy_stream(b).expect("destroy");
    Ok(())
}

fn timestamp(rt: &Runtime, e: RawEvent) -> u64 {
    let mut t = 0u64;
    rt.event_get_timestamp(e, Some(&mut t))
        .expect("aclrtEventGetTimestamp");
    t
}

pub(crate) fn event_timestamps(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let mut e0 = RawEvent::default();
    rt.create_event(Some(&mut e0)).expect("aclrtCreateEvent");
    let mut e1 = RawEvent::default();
    rt.create_event_with_flag(Some(&mut e1), event_flag::TIME_LINE)
        .expect("aclrtCreateEventWithFlag(TIME_LINE)");
    let mut e2 = RawEvent::default();
    rt.create_event(Some(&mut e2)).expect("aclrtCreateEvent");
    let mut t = 0u64;
    expect(
        "EventGetTimestamp timestamp NULL",
        rt.event_get_timestamp(e0, None),
        INVALID_PARAM,
    );
    expect(
        "EventGetTimestamp never recorded",
        rt.event_get_timestamp(e0, Some(&mut t)),
        RT_INTERNAL,
    );
    let (s, other) = (stream(rt), stream(rt));
    let len = 16 << 20;
    let buf = malloc(rt, len);
    // A record held back by a notify wait has not executed.
    let n = notify(rt);
    rt.wait_and_reset_notify(n, s, 0)
        .expect("aclrtWaitAndResetNotify");
    rt.record_event(e0, s).expect("aclrtRecordEvent");
    expect(
        "EventGetTimestamp before the record executes",
        rt.event_get_timestamp(e0, Some(&mut t)),
        TIMESTAMP_NOT_READY,
    );
    rt.memset_async(buf, len, 1, len, s)
        .expect("aclrtMemsetAsync");
    rt.record_event(e1, s).expect("aclrtRecordEvent");
    rt.memset_async(buf, len, 2, len, s)
        .expect("aclrtMemsetAsync");
    rt.record_event(e2, s).expect("aclrtRecordEvent");
    rt.record_notify(n, other).expect("aclrtRecordNotify");
    rt.synchronize_event(e2).expect("aclrtSynchronizeEvent");
    let (t0, t1, t2) = (timestamp(rt, e0), timestamp(rt, e1), timestamp(rt, e2));
    assert!(
        t0 <= t1 && t1 <= t2 && t0 < t2,
        "timestamps increase along the stream: {t0}, {t1}, {t2}"
    );
    let mut ms = 0f32;
    rt.event_elapsed_time(Some(&mut ms), e0, e2)
        .expect("aclrtEventElapsedTime");
    let us = (t2 - t0) as f64;
    let elapsed_us = ms as f64 * 1000.0;
    assert!(
        (elapsed_us - us).abs() <= 2.0 + us * 0.01,
        "elapsed time {elapsed_us} µs agrees with the timestamps' {us} µs"
    );
    // Re-recording moves the timestamp on.
    rt.record_event(e0, s).expect("aclrtRecordEvent");
    rt.synchronize_stream(s).expect("sync");
    assert!(timestamp(rt, e0) >= t2, "a later record, a later timestamp");
    // External and IPC events have no timestamp; IPC events exist on some chips only.
    let mut x = RawEvent::default();
    rt.create_event_with_flag(Some(&mut x), event_flag::EXTERNAL)
        .expect("aclrtCreateEventWithFlag(EXTERNAL)");
    expect(
        "EventGetTimestamp of an external event",
        rt.event_get_timestamp(x, Some(&mut t)),
        NOT_SUPPORTED,
    );
    rt.destroy_event(x).expect("aclrtDestroyEvent");
    use ascend_chips::ChipType;
    let ipc = matches!(
        rt.chip().chip_type,
        ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350
    );
    let mut x = RawEvent::default();
    expect(
        "CreateEventExWithFlag(IPC)",
        rt.create_event_ex_with_flag(Some(&mut x), event_flag::IPC),
        pick(ipc, 0, NOT_SUPPORTED),
    );
    if ipc {
        expect(
            "EventGetTimestamp of an IPC event",
            rt.event_get_timestamp(x, Some(&mut t)),
            NOT_SUPPORTED,
        );
        rt.destroy_event(x).expect("aclrtDestroyEvent");
    }
    rt.destroy_notify(n).expect("aclrtDestroyNotify");
    for e in [e0, e1, e2] {
        rt.destroy_event(e).expect("aclrtDestroyEvent");
    }
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    rt.destroy_stream(other).expect("aclrtDestroyStream");
    Ok(())
}
