//! The supporting calls of ordinary ACL host programs: one test per call, its success and
//! each row of its validation order, with CANN's codes and message codes.

mod common;

use ascend_rt::raw_types::*;
use ascend_rt::{CannPackageVersion, MsgCode, ACL_VERSION, SIM_PACKAGE_VERSION};
use common::*;

// ----- contexts -----

#[test]
fn create_context_rows() {
    let r = rt(A2);
    assert_err(r.create_context(None, 0), 100000, Some(MsgCode::EH0008));
    let mut c = RawContext::default();
    assert_err(
        r.create_context(Some(&mut c), 99),
        107001,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.create_context(Some(&mut c), -1),
        107001,
        Some(MsgCode::EE1003),
    );
    // Needs no aclrtSetDevice; the new context becomes current with its own default stream.
    ok(r.create_context(Some(&mut c), 0));
    let mut cur = RawContext::default();
    ok(r.get_current_context(Some(&mut cur)));
    assert_eq!(cur, c);
    let s = stream(&r);
    ok(r.synchronize_stream(s));
}

#[test]
fn destroy_context_rows() {
    let r = rt0(A2);
    let mut primary = RawContext::default();
    ok(r.get_current_context(Some(&mut primary)));
    assert_err(
        r.destroy_context(RawContext(0)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.destroy_context(RawContext(0xdead)),
        107002,
        Some(MsgCode::EE1017),
    );
    assert_err(r.destroy_context(primary), 107002, Some(MsgCode::EE1017));
    let mut c = RawContext::default();
    ok(r.create_context(Some(&mut c), 0));
    let s = stream(&r);
    ok(r.destroy_context(c));
    // Its streams went with it, and the thread has no context any more.
    assert_err(r.synchronize_stream(s), 107017, Some(MsgCode::EE1017));
    assert_err(r.destroy_context(c), 107002, Some(MsgCode::EE1017));
    let mut cur = RawContext::default();
    assert_code(r.get_current_context(Some(&mut cur)), 107002);
    ok(r.set_current_context(primary));
}

#[test]
fn ctx_get_current_default_stream_rows() {
    let r = rt(A2);
    assert_err(
        r.ctx_get_current_default_stream(None),
        100000,
        Some(MsgCode::EH0008),
    );
    let mut s = RawStream::NULL;
    assert_err(
        r.ctx_get_current_default_stream(Some(&mut s)),
        107002,
        Some(MsgCode::EE1018),
    );
    ok(r.set_device(0));
    ok(r.ctx_get_current_default_stream(Some(&mut s)));
    assert_ne!(s, RawStream::NULL);
    ok(r.synchronize_stream(s));
    // An explicit context has a default stream of its own.
    let mut c = RawContext::default();
    ok(r.create_context(Some(&mut c), 0));
    let mut s2 = RawStream::NULL;
    ok(r.ctx_get_current_default_stream(Some(&mut s2)));
    assert_ne!(s, s2);
}

#[test]
fn get_res_in_current_thread_rows() {
    let r = rt(A2);
    let mut v = 0;
    assert_err(
        r.get_res_in_current_thread(0, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.get_res_in_current_thread(2, Some(&mut v)),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.get_res_in_current_thread(0, Some(&mut v)),
        107002,
        Some(MsgCode::EE1018),
    );
    ok(r.set_device(0));
    ok(r.get_res_in_current_thread(dev_res_limit_type::CUBE_CORE, Some(&mut v)));
    assert_eq!(v, r.chip().cache.aic_cores);
    ok(r.get_res_in_current_thread(dev_res_limit_type::VECTOR_CORE, Some(&mut v)));
    assert_eq!(v, r.chip().cache.aiv_cores);
}

#[test]
fn get_run_mode_rows() {
    let r = rt(A2);
    assert_err(r.get_run_mode(None), 100000, Some(MsgCode::EH0008));
    let mut m = run_mode::DEVICE;
    ok(r.get_run_mode(Some(&mut m)));
    assert_eq!(m, run_mode::HOST);
}

#[test]
fn get_device_count_succeeds() {
    let r = rt(A2);
    let mut n = 0;
    ok(r.get_device_count(Some(&mut n)));
    assert_eq!(n, r.chip().limits.device_count);
}

// ----- stream config handle, V2, queries -----

#[test]
fn stream_config_handle_rows() {
    let r = rt0(A2);
    let mut h = r.create_stream_config_handle();
    assert_eq!(h, RawStreamConfig::default());
    let prio = 5u32.to_ne_bytes();
    let flag = (stream_flag::FAST_SYNC as u64).to_ne_bytes();
    assert_err(
        r.set_stream_config_opt(None, stream_config_attr::PRIORITY, Some(&prio)),
        100000,
        None,
    );
    assert_err(
        r.set_stream_config_opt(Some(&mut h), stream_config_attr::PRIORITY, None),
        100000,
        None,
    );
    assert_err(
        r.set_stream_config_opt(Some(&mut h), 4, Some(&prio)),
        100000,
        None,
    );
    assert_err(
        r.set_stream_config_opt(Some(&mut h), stream_config_attr::PRIORITY, Some(&flag)),
        100000,
        None,
    );
    assert_err(
        r.set_stream_config_opt(Some(&mut h), stream_config_attr::FLAG, Some(&prio)),
        100000,
        None,
    );
    assert_err(
        r.set_stream_config_opt(
            Some(&mut h),
            stream_config_attr::PRIORITY,
            Some(&8u32.to_ne_bytes()),
        ),
        100000,
        None,
    );
    ok(r.set_stream_config_opt(Some(&mut h), stream_config_attr::PRIORITY, Some(&prio)));
    ok(r.set_stream_config_opt(Some(&mut h), stream_config_attr::FLAG, Some(&flag)));
    ok(r.set_stream_config_opt(
        Some(&mut h),
        stream_config_attr::WORK_SIZE,
        Some(&64u64.to_ne_bytes()),
    ));
    ok(r.set_stream_config_opt(
        Some(&mut h),
        stream_config_attr::WORK_ADDR_PTR,
        Some(&0x1000u64.to_ne_bytes()),
    ));
    assert_eq!(
        (h.priority, h.flag, h.work_size, h.work_ptr),
        (5, 2, 64, 0x1000)
    );
    assert_err(r.destroy_stream_config_handle(None), 100000, None);
    ok(r.destroy_stream_config_handle(Some(h)));
}

#[test]
fn create_stream_v2_rows() {
    let r = rt(A2);
    let cfg = RawStreamConfig {
        priority: 3,
        flag: stream_flag::PERSISTENT as u64,
        ..Default::default()
    };
    assert_err(r.create_stream_v2(None, Some(&cfg)), 100000, None);
    let mut s = RawStream::NULL;
    assert_err(
        r.create_stream_v2(Some(&mut s), Some(&cfg)),
        107002,
        Some(MsgCode::EE1018),
    );
    ok(r.set_device(0));
    let bad = RawStreamConfig {
        flag: (stream_flag::DEVICE_USE_ONLY | stream_flag::FAST_SYNC) as u64,
        ..Default::default()
    };
    assert_err(
        r.create_stream_v2(Some(&mut s), Some(&bad)),
        107000,
        Some(MsgCode::EE1006),
    );
    let huge = RawStreamConfig {
        flag: stream_flag::HUGE as u64,
        ..Default::default()
    };
    let r_dc = rt0(DC);
    assert_err(
        r_dc.create_stream_v2(Some(&mut s), Some(&huge)),
        207000,
        Some(MsgCode::EE1006),
    );
    ok(r.create_stream_v2(Some(&mut s), Some(&cfg)));
    let (mut p, mut f) = (0, 0);
    ok(r.stream_get_priority(s, Some(&mut p)));
    ok(r.stream_get_flags(s, Some(&mut f)));
    assert_eq!((p, f), (3, stream_flag::PERSISTENT));
    // A NULL handle is a zeroed one.
    ok(r.create_stream_v2(Some(&mut s), None));
    ok(r.stream_get_flags(s, Some(&mut f)));
    assert_eq!(f, 0);
}

#[test]
fn stream_get_priority_and_flags_rows() {
    let r = rt0(A2);
    let s = stream_with(&r, stream_flag::FAST_LAUNCH);
    let mut v = 9;
    assert_err(
        r.stream_get_priority(s, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(r.stream_get_flags(s, None), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.stream_get_priority(GARBAGE, Some(&mut v)),
        107017,
        Some(MsgCode::EE1017),
    );
    assert_err(
        r.stream_get_flags(GARBAGE, Some(&mut v)),
        107017,
        Some(MsgCode::EE1017),
    );
    ok(r.stream_get_flags(s, Some(&mut v)));
    assert_eq!(v, stream_flag::FAST_LAUNCH);
    ok(r.stream_get_priority(RawStream::NULL, Some(&mut v)));
    assert_eq!(v, 0);
    // Priority is clamped at creation.
    let mut hi = RawStream::NULL;
    ok(r.create_stream_with_config(Some(&mut hi), 100, 0));
    ok(r.stream_get_priority(hi, Some(&mut v)));
    assert_eq!(v, r.chip().limits.priority_max);
    on_fresh_thread(|| {
        let mut v = 0;
        assert_err(
            r.stream_get_flags(s, Some(&mut v)),
            107002,
            Some(MsgCode::EE1018),
        );
        assert_err(
            r.stream_get_priority(RawStream::NULL, Some(&mut v)),
            107002,
            Some(MsgCode::EE1018),
        );
    });
}

#[test]
fn stream_get_id_rows() {
    let r = rt0(A2);
    let (a, b) = (stream(&r), stream(&r));
    let (mut ia, mut ib, mut id) = (-1, -1, -1);
    assert_err(r.stream_get_id(a, None), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.stream_get_id(GARBAGE, Some(&mut ia)),
        107017,
        Some(MsgCode::EE1017),
    );
    ok(r.stream_get_id(a, Some(&mut ia)));
    ok(r.stream_get_id(b, Some(&mut ib)));
    ok(r.stream_get_id(RawStream::NULL, Some(&mut id)));
    assert!(ia >= 0 && ib >= 0 && id >= 0);
    assert!(ia != ib && ia != id && ib != id);
    on_fresh_thread(|| {
        let mut v = 0;
        ok(r.stream_get_id(a, Some(&mut v)));
        assert_eq!(v, ia);
        assert_err(
            r.stream_get_id(RawStream::NULL, Some(&mut v)),
            107002,
            Some(MsgCode::EE1018),
        );
    });
}

#[test]
fn set_stream_failure_mode_rows() {
    let r = rt0(A2);
    let s = stream(&r);
    assert_err(
        r.set_stream_failure_mode(GARBAGE, 1),
        107017,
        Some(MsgCode::EE1017),
    );
    let dev_only = stream_with(&r, stream_flag::DEVICE_USE_ONLY);
    assert_err(r.set_stream_failure_mode(dev_only, 1), 207000, None);
    let (_m, bound_s) = bound(&r);
    assert_err(
        r.set_stream_failure_mode(bound_s, 1),
        207000,
        Some(MsgCode::EE1017),
    );
    ok(r.set_stream_failure_mode(s, stream_failure_mode::STOP_ON_FAILURE));
    ok(r.set_stream_failure_mode(RawStream::NULL, stream_failure_mode::CONTINUE_ON_FAILURE));
    on_fresh_thread(|| {
        assert_err(
            r.set_stream_failure_mode(RawStream::NULL, 1),
            107000,
            Some(MsgCode::EE1004),
        );
        assert_err(
            r.set_stream_failure_mode(s, 1),
            107002,
            Some(MsgCode::EE1018),
        );
    });
}

// ----- events -----

#[test]
fn create_event_with_flag_rows() {
    let r = rt(A2);
    let mut e = RawEvent::default();
    assert_err(
        r.create_event_with_flag(None, event_flag::SYNC),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.create_event_with_flag(Some(&mut e), 0),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.create_event_with_flag(Some(&mut e), 0x40),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.create_event_with_flag(Some(&mut e), event_flag::EXTERNAL | event_flag::SYNC),
        107000,
        Some(MsgCode::EE1006),
    );
    assert_err(
        r.create_event_with_flag(Some(&mut e), event_flag::DEVICE_USE_ONLY | 0x8),
        107000,
        Some(MsgCode::EE1006),
    );
    assert_err(
        r.create_event_with_flag(Some(&mut e), event_flag::SYNC),
        107002,
        Some(MsgCode::EE1018),
    );
    ok(r.set_device(0));
    for f in [
        event_flag::SYNC,
        event_flag::TIME_LINE | event_flag::CAPTURE_STREAM_PROGRESS,
        event_flag::EXTERNAL,
        event_flag::DEVICE_USE_ONLY,
    ] {
        ok(r.create_event_with_flag(Some(&mut e), f));
    }
}

#[test]
fn create_event_ex_with_flag_rows() {
    let r = rt(A2);
    let mut e = RawEvent::default();
    assert_err(
        r.create_event_ex_with_flag(None, 1),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.create_event_ex_with_flag(Some(&mut e), event_flag::IPC | 1),
        107000,
        Some(MsgCode::EE1006),
    );
    assert_err(
        r.create_event_ex_with_flag(Some(&mut e), 0),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.create_event_ex_with_flag(Some(&mut e), event_flag::EXTERNAL),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.create_event_ex_with_flag(Some(&mut e), 1),
        107002,
        Some(MsgCode::EE1018),
    );
    // IPC events: not on 310P (warning only, not the last error).
    let dc = rt0(DC);
    assert_err(
        dc.create_event_ex_with_flag(Some(&mut e), event_flag::IPC),
        207000,
        None,
    );
    assert_eq!(ok(dc.peek_at_last_error(0)), 0);
    ok(r.set_device(0));
    ok(r.create_event_ex_with_flag(Some(&mut e), event_flag::SYNC));
    ok(r.create_event_ex_with_flag(Some(&mut e), event_flag::IPC));
}

#[test]
fn event_flags_decide_model_stream_use() {
    let r = rt0(A2);
    let (_m, s) = bound(&r);
    let plain = event(&r);
    let mut sync = RawEvent::default();
    ok(r.create_event_with_flag(Some(&mut sync), event_flag::SYNC));
    let mut dflt = RawEvent::default();
    ok(r.create_event_with_flag(Some(&mut dflt), event_flag::RT_DEFAULT));
    let mut ex = RawEvent::default();
    ok(r.create_event_ex_with_flag(Some(&mut ex), event_flag::SYNC));
    assert_err(r.record_event(plain, s), 207000, None);
    assert_err(r.record_event(dflt, s), 207000, None);
    assert_err(r.record_event(ex, s), 207000, None);
    assert_err(r.stream_wait_event(s, ex), 207000, None);
    ok(r.record_event(sync, s));
    ok(r.stream_wait_event(s, sync));
}

#[test]
fn reset_event_and_synchronize_with_timeout() {
    let r = rt0(A2);
    let mut e = RawEvent::default();
    ok(r.create_event_with_flag(Some(&mut e), event_flag::SYNC));
    ok(r.record_event(e, RawStream::NULL));
    ok(r.synchronize_event_with_timeout(e, -1));
    ok(r.reset_event(e, RawStream::NULL));
    ok(r.synchronize_stream(RawStream::NULL));
    assert_err(
        r.synchronize_event_with_timeout(e, -2),
        107000,
        Some(MsgCode::EE1003),
    );
}

#[test]
fn synchronize_event_with_timeout_checks_the_timeout_first_and_rejects_zero() {
    let r = rt0(A2);
    let e = event(&r);
    // Below -1 is rejected before the event, even a NULL or garbage one.
    assert_code(r.synchronize_event_with_timeout(RawEvent(0), -2), 107000);
    assert_code(
        r.synchronize_event_with_timeout(RawEvent(0xBAD), -5),
        107000,
    );
    assert_code(r.synchronize_event_with_timeout(RawEvent(0), -1), 100000);
    assert_code(r.synchronize_event_with_timeout(RawEvent(0xBAD), 0), 107017);
    // 0 is rejected even for an event never recorded; -1 and > 0 return at once for it.
    assert_code(r.synchronize_event_with_timeout(e, 0), 107000);
    ok(r.synchronize_event_with_timeout(e, -1));
    ok(r.synchronize_event_with_timeout(e, 10));
    // No context is needed.
    let r = std::sync::Arc::new(r);
    let r2 = r.clone();
    let got = std::thread::spawn(move || code(r2.synchronize_event_with_timeout(e, 10)))
        .join()
        .unwrap();
    assert_eq!(got, 0);
}

#[test]
fn synchronize_event_with_timeout_zero_checks_once_under_the_documented_rules() {
    let r = rt(A2).with_options(ascend_rt::RuntimeOptions {
        documented_rules: true,
        ..ascend_rt::RuntimeOptions::default()
    });
    r.set_device(0).unwrap();
    let e = event(&r);
    ok(r.synchronize_event_with_timeout(e, 0));
    let p = malloc(&r, 8);
    ok(r.memset(p, 8, 0, 8));
    let mut s = RawStream::NULL;
    ok(r.create_stream(Some(&mut s)));
    ok(r.value_wait(p, 1, wait_flag::EQ, s));
    ok(r.record_event(e, s));
    assert_code(r.synchronize_event_with_timeout(e, 0), 507047);
    ok(r.value_write(p, 1, 0, RawStream::NULL));
    ok(r.synchronize_stream(s));
    ok(r.synchronize_event_with_timeout(e, 0));
}

#[test]
fn event_elapsed_time_of_unrecorded_or_unfinished_events() {
    let r = rt0(A2);
    let (a, b) = (event(&r), event(&r));
    let mut ms = 0f32;
    assert_code(r.event_elapsed_time(None, a, b), 100000);
    assert_code(r.event_elapsed_time(Some(&mut ms), RawEvent(0), b), 100000);
    assert_code(r.event_elapsed_time(Some(&mut ms), a, RawEvent(0)), 100000);
    assert_code(
        r.event_elapsed_time(Some(&mut ms), a, RawEvent(0xBAD)),
        107017,
    );
    // Never recorded: the runtime's missing-recorder error, reported as 507000.
    assert_code(r.event_elapsed_time(Some(&mut ms), a, b), 507000);
    ok(r.record_event(a, RawStream::NULL));
    assert_code(r.event_elapsed_time(Some(&mut ms), a, b), 507000);
    // Recorded but not yet executed: the timestamp is not valid (107006).
    let p = malloc(&r, 8);
    ok(r.memset(p, 8, 0, 8));
    let mut s = RawStream::NULL;
    ok(r.create_stream(Some(&mut s)));
    ok(r.value_wait(p, 1, wait_flag::EQ, s));
    ok(r.record_event(b, s));
    ok(r.synchronize_stream(RawStream::NULL));
    assert_code(r.event_elapsed_time(Some(&mut ms), a, b), 107006);
    ok(r.value_write(p, 1, 0, RawStream::NULL));
    ok(r.synchronize_stream(s));
    ok(r.event_elapsed_time(Some(&mut ms), a, b));
    assert!(ms >= 0.0);
}

#[test]
fn event_get_timestamp_rows() {
    let r = rt0(A2);
    let e = event(&r);
    let mut t = 0;
    assert_err(
        r.event_get_timestamp(e, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.event_get_timestamp(RawEvent(0), Some(&mut t)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.event_get_timestamp(RawEvent(0xdead), Some(&mut t)),
        107017,
        Some(MsgCode::EE1017),
    );
    let mut ext = RawEvent::default();
    ok(r.create_event_with_flag(Some(&mut ext), event_flag::EXTERNAL));
    assert_err(r.event_get_timestamp(ext, Some(&mut t)), 207000, None);
    assert_err(
        r.event_get_timestamp(e, Some(&mut t)),
        507000,
        Some(MsgCode::EE9999),
    );
    // A record behind a blocked stream has no timestamp yet.
    let flag = malloc(&r, 8);
    ok(r.memset(flag, 8, 0, 8));
    let s = stream(&r);
    ok(r.value_wait(flag, 1, wait_flag::EQ, s));
    ok(r.record_event(e, s));
    assert_err(r.event_get_timestamp(e, Some(&mut t)), 107006, None);
    ok(r.value_write(flag, 1, 0, RawStream::NULL));
    ok(r.synchronize_stream(s));
    ok(r.event_get_timestamp(e, Some(&mut t)));
    // Two records later in simulated time have a later (µs) timestamp.
    let e2 = event(&r);
    ok(r.memset(malloc(&r, 1 << 20), 1 << 20, 0, 1 << 20));
    ok(r.record_event(e2, s));
    ok(r.synchronize_stream(s));
    let mut t2 = 0;
    ok(r.event_get_timestamp(e2, Some(&mut t2)));
    assert!(t2 >= t, "{t2} < {t}");
}

#[test]
fn query_event_rows() {
    let r = rt0(A2);
    let e = event(&r);
    let mut st = 9;
    assert_err(
        r.query_event(RawEvent(0), Some(&mut st)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(r.query_event(e, None), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.query_event(RawEvent(0xdead), Some(&mut st)),
        107017,
        Some(MsgCode::EE1017),
    );
    ok(r.query_event(e, Some(&mut st)));
    assert_eq!(st, event_status::COMPLETE, "never recorded");
    let flag = malloc(&r, 8);
    ok(r.memset(flag, 8, 0, 8));
    let s = stream(&r);
    ok(r.value_wait(flag, 1, wait_flag::EQ, s));
    ok(r.record_event(e, s));
    ok(r.query_event(e, Some(&mut st)));
    assert_eq!(st, event_status::NOT_READY);
    ok(r.value_write(flag, 1, 0, RawStream::NULL));
    ok(r.synchronize_stream(s));
    ok(r.query_event(e, Some(&mut st)));
    assert_eq!(st, event_status::COMPLETE);
}

// ----- notifies -----

fn notify(r: &ascend_rt::Runtime) -> RawNotify {
    let mut n = RawNotify::default();
    ok(r.create_notify(Some(&mut n), notify_flag::DEFAULT));
    n
}

#[test]
fn create_notify_rows() {
    let r = rt(A2);
    let mut n = RawNotify::default();
    assert_err(r.create_notify(None, 0), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.create_notify(Some(&mut n), 2),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_eq!(ok(r.get_last_error(0)), 107000);
    // No device: 107002 without a message, not stored as the last error.
    assert_err(r.create_notify(Some(&mut n), 0), 107002, None);
    assert_eq!(ok(r.get_last_error(0)), 0);
    ok(r.set_device(0));
    ok(r.create_notify(Some(&mut n), notify_flag::DEFAULT));
    ok(r.create_notify(Some(&mut n), notify_flag::DEVICE_USE_ONLY));
}

#[test]
fn notify_limit_per_device() {
    let r = rt0(DC);
    let mut n = RawNotify::default();
    for _ in 0..1024 {
        ok(r.create_notify(Some(&mut n), 0));
    }
    assert_err(r.create_notify(Some(&mut n), 0), 207009, None);
}

#[test]
fn destroy_notify_rows() {
    let r = rt0(A2);
    let n = notify(&r);
    assert_err(
        r.destroy_notify(RawNotify(0)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.destroy_notify(RawNotify(0xdead)),
        107017,
        Some(MsgCode::EE1017),
    );
    on_fresh_thread(|| assert_err(r.destroy_notify(n), 107002, Some(MsgCode::EE1018)));
    ok(r.destroy_notify(n));
    assert_err(r.destroy_notify(n), 107017, Some(MsgCode::EE1017));
}

#[test]
fn record_and_wait_notify_rows() {
    let r = rt0(A2);
    let n = notify(&r);
    for (api, f) in [
        (
            "record",
            Box::new(|n, s| r.record_notify(n, s)) as Box<dyn Fn(RawNotify, RawStream) -> _ + Sync>,
        ),
        ("wait", Box::new(|n, s| r.wait_and_reset_notify(n, s, 0))),
    ] {
        assert_err(
            f(RawNotify(0), RawStream::NULL),
            100000,
            Some(MsgCode::EH0008),
        );
        assert_err(
            f(RawNotify(0xdead), RawStream::NULL),
            107017,
            Some(MsgCode::EE1017),
        );
        assert_err(f(n, GARBAGE), 107017, Some(MsgCode::EE1017));
        let other = other_ctx_stream(&r);
        assert_err(f(n, other), 107003, Some(MsgCode::EE1010));
        on_fresh_thread(|| assert_err(f(n, RawStream::NULL), 107002, Some(MsgCode::EE1018)));
        let _ = api;
    }
}

#[test]
fn wait_and_reset_blocks_until_recorded_and_consumes() {
    let r = rt0(A2);
    let n = notify(&r);
    let (a, b) = (stream(&r), stream(&r));
    let flag = malloc(&r, 8);
    ok(r.memset(flag, 8, 0, 8));
    ok(r.wait_and_reset_notify(n, a, 0));
    ok(r.value_write(flag, 7, 0, a));
    let mut st = 0;
    ok(r.stream_query(a, Some(&mut st)));
    assert_eq!(st, stream_status::NOT_READY);
    ok(r.record_notify(n, b));
    ok(r.synchronize_stream(a));
    let mut host = [0u8; 8];
    ok(r.memcpy(
        ascend_rt::MemDst::Host(&mut host),
        8,
        ascend_rt::MemSrc::Addr(flag),
        8,
        memcpy_kind::DEVICE_TO_HOST,
    ));
    assert_eq!(u64::from_le_bytes(host), 7);
    // The wait consumed the record: a second wait blocks again (and times out after 1 s).
    ok(r.wait_and_reset_notify(n, a, 1));
    // The runtime explains what happened on the device (an inner-error message).
    assert_err(r.synchronize_stream(a), 107020, Some(MsgCode::EE9999));
    // A record before the wait is kept until a wait consumes it.
    ok(r.record_notify(n, b));
    ok(r.synchronize_stream(b));
    ok(r.wait_and_reset_notify(n, a, 1));
    ok(r.synchronize_stream(a));
}

// ----- errors -----

#[test]
fn last_error_get_peek_and_levels() {
    let r = rt0(A2);
    assert_err(r.get_last_error(1), 100000, Some(MsgCode::EH0007));
    assert_err(r.peek_at_last_error(1), 100000, Some(MsgCode::EH0007));
    assert_eq!(ok(r.get_last_error(last_err_level::THREAD)), 0);
    // An ACL-layer failure is not stored.
    assert_code(r.malloc(None, 8, 0), 100000);
    assert_eq!(ok(r.peek_at_last_error(0)), 0);
    // An RT failure is; peek keeps it, get clears it.
    assert_code(r.synchronize_stream(GARBAGE), 107017);
    assert_eq!(ok(r.peek_at_last_error(0)), 107017);
    assert_eq!(ok(r.peek_at_last_error(0)), 107017);
    assert_eq!(ok(r.get_last_error(0)), 107017);
    assert_eq!(ok(r.get_last_error(0)), 0);
    // A feature-gate warning sets it (docs/validation/value-write-wait.md, aclrtValueWrite row 2).
    let rd = rt0(DC);
    let a = malloc(&rd, 8);
    assert_err(rd.value_write(a, 1, 0, RawStream::NULL), 207000, None);
    assert_eq!(ok(rd.get_last_error(0)), 207000);
    // aclrtGetDevice without a device bypasses it; the last error is per thread.
    on_fresh_thread(|| {
        let mut d = 0;
        assert_code(r.get_device(Some(&mut d)), 107002);
        assert_eq!(ok(r.get_last_error(0)), 0);
    });
    // A later failure replaces an earlier one.
    assert_code(r.synchronize_stream(GARBAGE), 107017);
    let mut n = RawNotify::default();
    assert_code(r.create_notify(Some(&mut n), 5), 107000);
    assert_eq!(ok(r.get_last_error(0)), 107000);
}

#[test]
fn get_error_verbose_rows() {
    let r = rt0(A2);
    let mut info = RawErrorInfo {
        try_repair: 9,
        has_detail: 9,
        error_type: 9,
        aicore_err_type: 9,
    };
    assert_err(r.get_error_verbose(0, None), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.get_error_verbose(99, Some(&mut info)),
        107001,
        Some(MsgCode::EE1003),
    );
    ok(r.get_error_verbose(0, Some(&mut info)));
    assert_eq!(info, RawErrorInfo::default());
    let rd = rt0(MINI_V3);
    assert_err(rd.get_error_verbose(0, Some(&mut info)), 207000, None);
    assert_eq!(ok(rd.get_last_error(0)), 207000);
    ok(rt0(DAVID).get_error_verbose(0, Some(&mut info)));
}

#[test]
fn recent_err_msg_still_reports_messages() {
    let r = rt0(A2);
    assert_code(r.create_event_with_flag(None, 1), 100000);
    let text = r.get_recent_err_msg().expect("a message");
    assert!(text.contains("EH0008"), "{text}");
}

// ----- versions -----

#[test]
fn get_version_rows() {
    let r = rt(A2);
    let (mut a, mut b, mut c) = (0, 0, 0);
    assert_err(
        r.get_version(None, Some(&mut b), Some(&mut c)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.get_version(Some(&mut a), None, Some(&mut c)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.get_version(Some(&mut a), Some(&mut b), None),
        100000,
        Some(MsgCode::EH0008),
    );
    ok(r.get_version(Some(&mut a), Some(&mut b), Some(&mut c)));
    assert_eq!((a, b, c), ACL_VERSION);
    assert_eq!(ACL_VERSION, (1, 17, 0));
}

#[test]
fn sys_get_version_str_rows() {
    let r = rt(A2);
    let mut v = String::new();
    assert_err(
        r.sys_get_version_str(Some("runtime"), None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.sys_get_version_str(None, Some(&mut v)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.sys_get_version_str(Some("nope"), Some(&mut v)),
        100003,
        None,
    );
    ok(r.sys_get_version_str(Some("ops_legacy"), Some(&mut v)));
    assert_eq!(v, SIM_PACKAGE_VERSION);
    assert!(v.contains("simulator"));
}

#[test]
fn sys_get_version_num_checks_the_number_then_the_name_then_the_package() {
    let r = rt(A2);
    let mut n = 0;
    assert_err(
        r.sys_get_version_num(None, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.sys_get_version_num(None, Some(&mut n)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.sys_get_version_num(Some("nope"), Some(&mut n)),
        100003,
        None,
    );
    ok(r.sys_get_version_num(Some("bisheng_compiler"), Some(&mut n)));
    assert_eq!(n, 80_500_000);
}

#[test]
fn data_type_sizes_and_half_precision_follow_the_vendor_table() {
    use ascend_rt::data_types::*;
    let sizes = [
        (data_type::STRING, 0),
        (data_type::UNDEFINED, 0),
        (data_type::INT4, 1),
        (data_type::BOOL, 1),
        (data_type::FLOAT8_E8M0, 1),
        (data_type::BF16, 2),
        (data_type::COMPLEX32, 4),
        (data_type::COMPLEX64, 8),
        (data_type::COMPLEX128, 16),
        (38, 8),
        (-7, 8),
    ];
    for (dt, size) in sizes {
        assert_eq!(data_type_size(dt), size, "data type {dt}");
    }
    assert_eq!(float_to_float16(1.625), 0x3e80);
    assert_eq!(float_to_float16(-0.0), 0x8000);
    assert_eq!(
        float_to_float16(65520.0),
        0x7bff,
        "saturates instead of infinity"
    );
    assert_eq!(float_to_float16(f32::NAN), 0x7bff);
    assert_eq!(float_to_float16(f32::NEG_INFINITY), 0xfbff);
    assert_eq!(
        float_to_float16(1.0 + 1.0 / 2048.0),
        0x3c00,
        "a tie goes to even"
    );
    assert_eq!(
        float_to_float16(1.0 + 3.0 / 2048.0),
        0x3c02,
        "a tie goes to even, up"
    );
    assert_eq!(float_to_float16(2f32.powi(-24)), 0x0001);
    assert_eq!(
        float_to_float16(2f32.powi(-25)),
        0x0000,
        "half the least subnormal ties to 0"
    );
    assert_eq!(float_to_float16(1.5 * 2f32.powi(-25)), 0x0001);
    assert_eq!(float_to_float16(3.0 * 2f32.powi(-24)), 0x0003);
    assert_eq!(float_to_float16(2f32.powi(-14)), 0x0400, "the least normal");
    assert_eq!(float16_to_float(0x0001), 2f32.powi(-24));
    assert_eq!(
        float16_to_float(0x7c00),
        65536.0,
        "exponent 31 is read as a number"
    );
    assert_eq!(float16_to_float(0x7e00), 98304.0);
    assert!(float16_to_float(0x8000).is_sign_negative());
    for h in 0..0x7c00u16 {
        assert_eq!(
            float_to_float16(float16_to_float(h)),
            h,
            "round trip of {h:#x}"
        );
    }
}

#[test]
fn sys_get_cann_version_rows() {
    let r = rt(A2);
    let mut v = CannPackageVersion::default();
    assert_err(
        r.sys_get_cann_version(0, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(r.sys_get_cann_version(8, Some(&mut v)), 100000, None);
    ok(r.sys_get_cann_version(7, Some(&mut v)));
    assert_eq!(v.version, SIM_PACKAGE_VERSION);
    assert_eq!(
        (v.major.as_str(), v.minor.as_str(), v.release.as_str()),
        ("8", "5", "0")
    );
}
