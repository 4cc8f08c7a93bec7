//! Streams (t7_4, docs/validation/streams-events.md).

use super::*;

// =============================================================================================
// docs/validation/streams-events.md: streams
// =============================================================================================

#[test]
fn t7_4_create_stream_null_is_100000() {
    let r = rt0(A2);
    assert_err(r.create_stream(None), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.create_stream_with_config(None, 0, 0),
        100000,
        Some(MsgCode::EH0008),
    );
}

#[test]
fn t7_4_huge_on_a_chip_without_huge_streams_is_207000_ee1006() {
    let r = rt0(DC);
    let mut s = RawStream::NULL;
    assert_err(
        r.create_stream_with_config(Some(&mut s), 0, stream_flag::HUGE),
        207000,
        Some(MsgCode::EE1006),
    );
    // The 910B, 310B and 910 runtimes register huge streams.
    for soc in [A2, MINI_V3, CLOUD] {
        let r = rt0(soc);
        ok(r.create_stream_with_config(Some(&mut RawStream(0)), 0, stream_flag::HUGE));
    }
}

#[test]
fn t7_4_device_use_only_combined_is_107000_ee1006() {
    let r = rt0(A2);
    for other in [
        stream_flag::FAST_LAUNCH,
        stream_flag::FAST_SYNC,
        stream_flag::PERSISTENT,
        stream_flag::HUGE,
        stream_flag::CPU_SCHEDULE,
    ] {
        let mut s = RawStream::NULL;
        assert_err(
            r.create_stream_with_config(Some(&mut s), 0, stream_flag::DEVICE_USE_ONLY | other),
            107000,
            Some(MsgCode::EE1006),
        );
    }
    ok(r.create_stream_with_config(Some(&mut RawStream(0)), 0, stream_flag::DEVICE_USE_ONLY));
    // Bits beyond the six ACL flags are dropped (so DEVICE_USE_ONLY | 0x40 is alone).
    ok(r.create_stream_with_config(
        Some(&mut RawStream(0)),
        0,
        stream_flag::DEVICE_USE_ONLY | 0x40 | 0x8000_0000,
    ));
    ok(r.create_stream_with_config(Some(&mut RawStream(0)), 0, 0xFFFF_FFC0));
}

#[test]
fn t7_4_priority_is_clamped_not_refused() {
    let r = rt0(A2);
    for p in [0, 7, 8, u32::MAX] {
        ok(r.create_stream_with_config(Some(&mut RawStream(0)), p, 0));
    }
}

#[test]
fn t7_4_destroy_stream_rules() {
    let r = rt0(A2);
    assert_err(
        r.destroy_stream(RawStream::NULL),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.destroy_stream_force(RawStream::NULL),
        100000,
        Some(MsgCode::EH0008),
    );
    let s = stream(&r);
    on_fresh_thread(|| assert_err(r.destroy_stream(s), 107002, Some(MsgCode::EE1018)));
    let other = other_ctx_stream(&r);
    assert_err(r.destroy_stream(other), 107003, Some(MsgCode::EE1010));
    ok(r.destroy_stream(s));
    assert_err(r.destroy_stream(s), 107017, Some(MsgCode::EE1017));
}

#[test]
fn t7_4_row6_destroying_a_stream_a_model_holds_is_107005_and_leaves_it_bound() {
    let r = rt0(A2);
    let (m, s) = bound(&r);
    assert_code(r.destroy_stream(s), 107005);
    assert_code(r.destroy_stream_force(s), 107005);
    // Still live and still the model's: it can be unbound, then destroyed.
    ok(r.mdl_ri_unbind_stream(m, s));
    ok(r.destroy_stream(s));
}

#[test]
fn t7_4_synchronize_with_timeout_below_minus_one_is_107000() {
    let r = rt0(A2);
    let s = stream(&r);
    for t in [-2, -100, i32::MIN] {
        assert_err(
            r.synchronize_stream_with_timeout(s, t),
            107000,
            Some(MsgCode::EH0007),
        );
    }
    // Checked by ACL before the stream handle.
    assert_code(r.synchronize_stream_with_timeout(GARBAGE, -2), 107000);
    ok(r.synchronize_stream_with_timeout(s, -1));
}

#[test]
fn t7_4_synchronize_with_timeout_zero_is_107000_after_the_handle_check() {
    let r = rt0(A2);
    let s = stream(&r);
    // The parameter-check decorator rejects 0, after the handle check and before the
    // context check.
    assert_code(r.synchronize_stream_with_timeout(s, 0), 107000);
    assert_code(
        r.synchronize_stream_with_timeout(RawStream::NULL, 0),
        107000,
    );
    assert_code(r.synchronize_stream_with_timeout(GARBAGE, 0), 107017);
    let on_other_thread = {
        let r = std::sync::Arc::new(r);
        let r2 = r.clone();
        std::thread::spawn(move || code(r2.synchronize_stream_with_timeout(RawStream::NULL, 0)))
            .join()
            .unwrap()
    };
    assert_eq!(
        on_other_thread, 107000,
        "0 is rejected before the context check"
    );
}

#[test]
fn t7_4_synchronize_with_timeout_zero_checks_once_under_the_documented_rules() {
    let r = rt(A2).with_options(ascend_rt::RuntimeOptions {
        documented_rules: true,
        ..ascend_rt::RuntimeOptions::default()
    });
    r.set_device(0).unwrap();
    let s = stream(&r);
    ok(r.synchronize_stream_with_timeout(s, 0));
    let p = malloc(&r, 8);
    ok(r.memset(p, 8, 0, 8));
    ok(r.value_wait(p, 1, wait_flag::EQ, s));
    assert_code(r.synchronize_stream_with_timeout(s, 0), 507046);
    ok(r.value_write(p, 1, 0, RawStream::NULL));
    ok(r.synchronize_stream(s));
    ok(r.synchronize_stream_with_timeout(s, 0));
}

#[test]
fn t7_4_synchronize_with_timeout_of_a_persistent_stream_needs_no_context() {
    let r = std::sync::Arc::new(rt0(A2));
    let (_m, b) = bound(&r);
    let r2 = r.clone();
    let got = std::thread::spawn(move || code(r2.synchronize_stream_with_timeout(b, 10)))
        .join()
        .unwrap();
    assert_eq!(
        got, 0,
        "a persistent stream returns before the context check"
    );
}

#[test]
fn t7_4_synchronize_of_a_persistent_stream_returns_at_once() {
    let r = rt0(A2);
    let p = malloc(&r, 8);
    ok(r.memset(p, 8, 0, 8));
    let (_m, b) = bound(&r);
    // A wait that nothing releases is only recorded into the model.
    ok(r.value_wait(p, 1, wait_flag::EQ, b));
    ok(r.synchronize_stream(b));
    ok(r.synchronize_stream_with_timeout(b, 10));
    // Before the context check: a thread without a context gets the same success.
    let unbound = persistent(&r);
    on_fresh_thread(|| {
        ok(r.synchronize_stream(b));
        ok(r.synchronize_stream(unbound));
    });
}

#[test]
fn t7_3_a_synchronous_fill_needs_a_current_context() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    on_fresh_thread(|| {
        assert_err(r.memset(p, 64, 0, 64), 107002, Some(MsgCode::EE1018));
        // The fill's bound is the driver's, after the context.
        assert_err(r.memset(p, 32, 0, 64), 107002, Some(MsgCode::EE1018));
    });
}

#[test]
fn t7_6_build_end_end_task_bind_unbind_and_execute_need_a_current_context() {
    let r = rt0(A2);
    let (m, b) = bound(&r);
    let spare = persistent(&r);
    on_fresh_thread(|| {
        assert_err(
            r.mdl_ri_bind_stream(m, spare, 0),
            107002,
            Some(MsgCode::EE1018),
        );
        assert_err(r.mdl_ri_end_task(m, b), 107002, Some(MsgCode::EE1018));
        assert_err(r.mdl_ri_unbind_stream(m, b), 107002, Some(MsgCode::EE1018));
        assert_err(r.mdl_ri_build_end(m, None), 107002, Some(MsgCode::EE1018));
        assert_err(r.mdl_ri_execute(m, -1), 107002, Some(MsgCode::EE1018));
    });
    ok(r.mdl_ri_end_task(m, b));
    ok(r.mdl_ri_build_end(m, None));
    ok(r.mdl_ri_execute(m, -1));
}

#[test]
fn t7_4_stream_query_null_status_is_100000() {
    let r = rt0(A2);
    let s = stream(&r);
    assert_err(r.stream_query(s, None), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.stream_query(RawStream::NULL, None),
        100000,
        Some(MsgCode::EH0008),
    );
    let mut st = 9;
    ok(r.stream_query(RawStream::NULL, Some(&mut st)));
    assert_eq!(st, 0);
}
