//! Stream failure modes, abort, stop and state callbacks: the rows of each call in the vendor's
//! order and what happens to the tasks and the context.

mod common;

use std::sync::{Arc, Mutex};

use ascend_rt::raw_types::{memcpy_kind, stream_failure_mode, RawStream};
use ascend_rt::{raw_types::stream_state, Kernel, KernelOps, MemDst, MemSrc, MsgCode, Runtime};
use common::*;

/// A vector kernel that traps: its synchronize returns 507035, the vector-core exception.
fn trap() -> Kernel {
    Kernel::new("trap", |ctx: &mut dyn KernelOps| ctx.trap("on purpose"))
}

fn read(r: &Runtime, a: ascend_rt::raw_types::Addr) -> u64 {
    let mut h = [0u8; 8];
    ok(r.memcpy(
        MemDst::Host(&mut h),
        8,
        MemSrc::Addr(a),
        8,
        memcpy_kind::DEVICE_TO_HOST,
    ));
    u64::from_le_bytes(h)
}

#[test]
fn stop_on_failure_discards_the_rest_and_the_context_then_returns_the_failure() {
    let r = rt0(A2);
    let (s, other) = (stream(&r), stream(&r));
    let a = malloc(&r, 8);
    ok(r.memset(a, 8, 0, 8));
    ok(r.set_stream_failure_mode(s, stream_failure_mode::STOP_ON_FAILURE));
    ok(r.launch_kernel(trap(), 1, s));
    ok(r.value_write(a, 7, 0, s));
    assert_code(r.synchronize_stream(s), 507035);
    assert_eq!(
        read(&r, a),
        0,
        "the write after the failed task was discarded"
    );
    // From now on the context refuses work, on every stream, with the failure's code.
    assert_code(r.value_write(a, 1, 0, other), 507035);
    assert_code(r.synchronize_stream(other), 507035);
    assert_code(r.synchronize_device(), 507035);
    let late = stream(&r);
    assert_code(r.synchronize_stream(late), 507035);
    // Stop again after the failure, or back to continue: refused.
    assert_err(
        r.set_stream_failure_mode(s, 1),
        207000,
        Some(MsgCode::EE1016),
    );
    // A device reset clears it.
    ok(r.reset_device_force(0));
    ok(r.set_device(0));
    let s2 = stream(&r);
    ok(r.value_write(a_fresh(&r), 1, 0, s2));
    ok(r.synchronize_stream(s2));
}

fn a_fresh(r: &Runtime) -> ascend_rt::raw_types::Addr {
    let a = malloc(r, 8);
    ok(r.memset(a, 8, 0, 8));
    a
}

#[test]
fn continue_on_failure_runs_the_rest() {
    let r = rt0(A2);
    let s = stream(&r);
    let a = a_fresh(&r);
    ok(r.launch_kernel(trap(), 1, s));
    ok(r.value_write(a, 7, 0, s));
    assert_code(r.synchronize_stream(s), 507035);
    assert_eq!(read(&r, a), 7);
    ok(r.synchronize_stream(s));
}

#[test]
fn failure_mode_rows_follow_the_vendor_order() {
    let r = rt0(A2);
    let s = stream(&r);
    ok(r.set_stream_failure_mode(s, 3));
    ok(r.set_stream_failure_mode(s, 1));
    assert_err(
        r.set_stream_failure_mode(s, 0),
        207000,
        Some(MsgCode::EE1016),
    );
    assert_err(
        r.set_stream_failure_mode(other_ctx_stream(&r), 1),
        107003,
        Some(MsgCode::EE1010),
    );
    // NULL is the default stream only where the chip has a control queue (A2/A3, 950).
    let r = rt0(MINI_V3);
    assert_err(
        r.set_stream_failure_mode(RawStream(0), 1),
        107000,
        Some(MsgCode::EE1004),
    );
}

#[test]
fn abort_and_stop_rows_and_what_they_do_to_the_tasks() {
    let r = rt0(A2);
    let s = stream(&r);
    let a = a_fresh(&r);
    ok(r.value_wait(a, 1, 1, s));
    ok(r.value_write(a, 9, 0, s));
    ok(r.stream_abort(s));
    ok(r.synchronize_stream(s));
    assert_eq!(read(&r, a), 0, "the aborted write never ran");
    ok(r.value_write(a, 5, 0, s));
    ok(r.synchronize_stream(s));
    assert_eq!(read(&r, a), 5, "the stream is usable again");
    assert_err(r.stream_abort(GARBAGE), 107017, Some(MsgCode::EE1017));
    let (_m, bound_s) = bound(&r);
    assert_err(r.stream_abort(bound_s), 507000, Some(MsgCode::EE1016));
    assert_err(r.stream_stop(RawStream(0)), 107000, Some(MsgCode::EE1004));
    assert_err(r.stream_stop(bound_s), 507000, Some(MsgCode::EE1016));
    ok(r.memset(a, 8, 0, 8));
    ok(r.value_wait(a, 1, 1, s));
    ok(r.value_write(a, 3, 0, s));
    assert_code(r.synchronize_stream_with_timeout(s, 1), 507046);
    ok(r.stream_stop(s));
    assert_code(r.synchronize_stream(s), 507000);
    assert_eq!(
        read(&r, a),
        3,
        "the stopped wait failed and the write after it ran"
    );
    for (soc, abort, stop) in [
        (MINI_V3, 207000, 207000),
        (DC, 207000, 207000),
        (CLOUD, 207000, 207000),
    ] {
        let r = rt0(soc);
        let s = stream(&r);
        assert_code(r.stream_abort(s), abort);
        assert_code(r.stream_stop(s), stop);
    }
}

#[test]
fn state_callbacks_run_in_name_order_on_create_and_destroy() {
    let r = rt(A2);
    let seen = Arc::new(Mutex::new(Vec::new()));
    for name in ["b", "a"] {
        let seen = seen.clone();
        let n = name.to_string();
        ok(r.reg_stream_state_callback(
            Some(name),
            Some(Arc::new(move |s: RawStream, state: u32| {
                seen.lock().unwrap().push((n.clone(), s, state));
            })),
        ));
    }
    assert_err(
        r.reg_stream_state_callback(None, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.reg_stream_state_callback(Some("a"), Some(Arc::new(|_, _| {}))),
        107000,
        Some(MsgCode::EE1011),
    );
    ok(r.set_device(0));
    let s = stream(&r);
    ok(r.destroy_stream(s));
    ok(r.reg_stream_state_callback(Some("a"), None));
    ok(r.reg_stream_state_callback(Some("never registered"), None));
    let _ = stream(&r);
    let seen = seen.lock().unwrap().clone();
    let states: Vec<(&str, u32)> = seen.iter().map(|(n, _, st)| (n.as_str(), *st)).collect();
    use stream_state::*;
    assert_eq!(
        states,
        vec![
            ("a", CREATE_POST), // the default stream of device 0
            ("b", CREATE_POST),
            ("a", CREATE_POST),
            ("b", CREATE_POST),
            ("a", DESTROY_PRE),
            ("b", DESTROY_PRE),
            ("b", CREATE_POST),
        ]
    );
    assert_eq!(seen[2].1, s);
}
