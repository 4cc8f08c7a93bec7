//! Events (t7_5, docs/validation/streams-events.md), with the decorator's event-flag rows.

use super::*;

// =============================================================================================
// docs/validation/streams-events.md: events
// =============================================================================================

#[test]
fn t7_5_event_null_arguments_are_100000() {
    let r = rt0(A2);
    let s = stream(&r);
    let null = RawEvent::default();
    assert_err(r.create_event(None), 100000, Some(MsgCode::EH0008));
    assert_err(r.record_event(null, s), 100000, Some(MsgCode::EH0008));
    assert_err(r.stream_wait_event(s, null), 100000, Some(MsgCode::EH0008));
    assert_err(r.synchronize_event(null), 100000, Some(MsgCode::EH0008));
    assert_err(r.destroy_event(null), 100000, Some(MsgCode::EH0008));
    let e = event(&r);
    assert_err(
        r.query_event_status(null, Some(&mut 0)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(r.query_event_status(e, None), 100000, Some(MsgCode::EH0008));
}

#[test]
fn t7_5_default_event_on_a_model_bound_stream_is_207000() {
    let r = rt0(A2);
    let e = event(&r);
    let (_m, b) = bound(&r);
    assert_code(r.record_event(e, b), 207000);
    assert_code(r.stream_wait_event(b, e), 207000);
}

#[test]
fn t7_5_a_stream_wait_for_an_event_never_recorded_is_107000_ee1018() {
    let r = rt0(A2);
    let s = stream(&r);
    let e = event(&r);
    assert_err(r.stream_wait_event(s, e), 107000, Some(MsgCode::EE1018));
    // A wait is not a record: the second wait is refused too; after a record both wait.
    assert_err(r.stream_wait_event(s, e), 107000, Some(MsgCode::EE1018));
    ok(r.record_event(e, s));
    ok(r.stream_wait_event(s, e));
    // Events of the sync flag need no record.
    let mut sync = RawEvent::default();
    ok(r.create_event_with_flag(Some(&mut sync), ascend_rt::raw_types::event_flag::SYNC));
    ok(r.stream_wait_event(s, sync));
    ok(r.synchronize_stream(s));
}

#[test]
fn t7_5_record_wait_and_status() {
    let r = rt0(A2);
    let s1 = stream(&r);
    let s2 = stream(&r);
    let e = event(&r);
    ok(r.record_event(e, s1));
    ok(r.stream_wait_event(s2, e));
    ok(r.stream_wait_event(RawStream::NULL, e));
    ok(r.synchronize_stream(s2));
    let mut st = 0;
    ok(r.query_event_status(e, Some(&mut st)));
    assert_eq!(st, 1);
    ok(r.destroy_event(e));
    assert_err(r.synchronize_event(e), 107017, Some(MsgCode::EE1017));
}

// =============================================================================================
// docs/validation/streams-events.md: the decorator's event-flag rows of record, wait,
// synchronize, query and elapsed time
// =============================================================================================

#[test]
fn a_device_only_event_cannot_be_recorded_or_waited_for_on_the_host() {
    for soc in [A2, DAVID] {
        let r = rt0(soc);
        let s = stream(&r);
        let e = event_with(&r, event_flag::DEVICE_USE_ONLY);
        assert_err(r.record_event(e, s), 107000, Some(MsgCode::EE1006));
        assert_err(r.stream_wait_event(s, e), 107000, Some(MsgCode::EE1006));
        // The handles come first.
        assert_err(r.record_event(e, GARBAGE), 107017, Some(MsgCode::EE1017));
    }
}

#[test]
fn a_wait_on_an_event_without_a_wait_task_is_207000_without_message_code() {
    for soc in [A2, DAVID] {
        let r = rt0(soc);
        let s = stream(&r);
        for flag in [event_flag::TIME_LINE, event_flag::CAPTURE_STREAM_PROGRESS] {
            let e = event_with(&r, flag);
            ok(r.record_event(e, s));
            assert_err(r.stream_wait_event(s, e), 207000, None);
        }
        // Any of SYNC, DDSYNC (the default flags), external or IPC gives a wait task.
        let e = event_with(&r, event_flag::SYNC | event_flag::TIME_LINE);
        ok(r.record_event(e, s));
        ok(r.stream_wait_event(s, e));
        let d = event(&r);
        ok(r.record_event(d, s));
        ok(r.stream_wait_event(s, d));
        ok(r.synchronize_stream(s));
    }
}

#[test]
fn an_external_event_cannot_be_synchronized_queried_or_timed() {
    let r = rt0(A2);
    let ext = event_with(&r, event_flag::EXTERNAL);
    let mut status = 9;
    assert_err(r.query_event_status(ext, Some(&mut status)), 207000, None);
    assert_eq!(status, 9, "untouched");
    assert_err(r.synchronize_event_with_timeout(ext, 10), 207000, None);
    assert_err(r.synchronize_event(ext), 207000, None);
    let e = event(&r);
    let mut ms = 0f32;
    assert_err(r.event_elapsed_time(Some(&mut ms), ext, e), 207000, None);
    assert_err(r.event_elapsed_time(Some(&mut ms), e, ext), 207000, None);
    // A feature warning is not stored as the last error.
    assert_eq!(ok(r.get_last_error(0)), 0);
    // The timeout's own rows come first.
    assert_err(
        r.synchronize_event_with_timeout(ext, 0),
        107000,
        Some(MsgCode::EE1003),
    );
}
