//! An event of one device used on another device's stream, as the vendor's runtime has it
//! (docs/validation/streams-events.md, "Events across devices"): the only ownership check of
//! a record, a wait or a reset is that the stream belongs to the current context (107003,
//! EE1010); the event's own device is not compared, and a wait on a record made on another
//! device waits for it.

mod common;

use ascend_rt::raw_types::RawStream;
use ascend_rt::MsgCode;
use common::*;

#[test]
fn an_event_of_one_device_is_recorded_and_waited_for_on_another_devices_streams() {
    let r = rt0(A2);
    let ev = event(&r);
    let s0 = stream(&r);
    let flag0 = malloc(&r, 8);
    ok(r.memset(flag0, 8, 0, 8));
    ok(r.set_device(1));
    let s1 = stream(&r);
    let gate = malloc(&r, 8);
    ok(r.memset(gate, 8, 0, 8));
    // Device 1's stream records device 0's event behind a wait for the gate.
    ok(r.value_wait(gate, 1, 0, s1));
    ok(r.record_event(ev, s1));
    ok(r.reset_event(ev, s1));
    ok(r.record_event(ev, s1));
    // Device 0's stream waits for that record, then raises its flag.
    ok(r.set_device(0));
    ok(r.stream_wait_event(s0, ev));
    ok(r.value_write(flag0, 5, 0, s0));
    assert_eq!(
        read_u64(&r, flag0),
        0,
        "device 0 waits for device 1's record"
    );
    ok(r.set_device(1));
    ok(r.value_write(gate, 1, 0, RawStream::NULL));
    ok(r.synchronize_stream(s1));
    ok(r.set_device(0));
    ok(r.synchronize_stream(s0));
    assert_eq!(read_u64(&r, flag0), 5);
}

#[test]
fn a_record_wait_or_reset_on_a_stream_outside_the_current_context_is_107003() {
    let r = rt0(A2);
    let ev = event(&r);
    ok(r.set_device(1));
    let s1 = stream(&r);
    ok(r.set_device(0));
    assert_err(r.record_event(ev, s1), 107003, Some(MsgCode::EE1010));
    assert_err(r.stream_wait_event(s1, ev), 107003, Some(MsgCode::EE1010));
    assert_err(r.reset_event(ev, s1), 107003, Some(MsgCode::EE1010));
}
