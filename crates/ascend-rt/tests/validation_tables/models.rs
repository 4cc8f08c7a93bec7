//! Model running instances (t7_6, docs/validation/models.md), with the stream argument of
//! `aclmdlRIEndTask` and `aclmdlRIUnbindStream`.

use super::*;

// =============================================================================================
// docs/validation/models.md: model running instances
// =============================================================================================

#[test]
fn t7_6_build_begin_rules() {
    let r = rt0(A2);
    let mut m = RawModel::default();
    assert_err(r.mdl_ri_build_begin(None, 0), 100000, Some(MsgCode::EH0008));
    for flag in [1, 0x7FFF_FFFF, u32::MAX] {
        assert_err(
            r.mdl_ri_build_begin(Some(&mut m), flag),
            107000,
            Some(MsgCode::EE1003),
        );
    }
    ok(r.mdl_ri_build_begin(Some(&mut m), 0));
    assert_ne!(m, RawModel::default());
}

#[test]
fn t7_6_bind_model_null_is_100000() {
    let r = rt0(A2);
    let s = persistent(&r);
    assert_err(
        r.mdl_ri_bind_stream(RawModel::default(), s, 0),
        100000,
        Some(MsgCode::EH0008),
    );
}

#[test]
fn t7_6_bind_flag_not_head_or_default_is_107000_ee1003() {
    let r = rt0(A2);
    let m = model(&r);
    let s = persistent(&r);
    for flag in [1, 5, 0x7FFF_FFFE, 0x8000_0000, u32::MAX] {
        assert_err(
            r.mdl_ri_bind_stream(m, s, flag),
            107000,
            Some(MsgCode::EE1003),
        );
    }
    // Checked before the handles.
    assert_code(r.mdl_ri_bind_stream(RawModel(0xdead), GARBAGE, 5), 107000);
    ok(r.mdl_ri_bind_stream(m, s, 0x7FFF_FFFF));
}

#[test]
fn t7_6_bind_invalid_model_or_stream_handle_is_107017() {
    let r = rt0(A2);
    let m = model(&r);
    let s = persistent(&r);
    assert_err(
        r.mdl_ri_bind_stream(RawModel(0xdead), s, 0),
        107017,
        Some(MsgCode::EE1017),
    );
    for bad in bad_streams(&r) {
        assert_err(
            r.mdl_ri_bind_stream(m, bad, 0),
            107017,
            Some(MsgCode::EE1017),
        );
    }
}

#[test]
fn t7_6_bind_non_persistent_stream_is_107000_ee1017() {
    let r = rt0(A2);
    let m = model(&r);
    for flag in [
        0,
        stream_flag::FAST_SYNC,
        stream_flag::HUGE,
        stream_flag::CPU_SCHEDULE,
        stream_flag::DEVICE_USE_ONLY,
    ] {
        let s = stream_with(&r, flag);
        assert_err(r.mdl_ri_bind_stream(m, s, 0), 107000, Some(MsgCode::EE1017));
    }
}

#[test]
fn t7_6_bind_null_stream_is_the_default_stream_which_stops_on_failure_207000() {
    let r = rt0(A2);
    let m = model(&r);
    assert_err(
        r.mdl_ri_bind_stream(m, RawStream::NULL, 0),
        207000,
        Some(MsgCode::EE1016),
    );
    // Without a context there is no default stream: NULL stays NULL.
    on_fresh_thread(|| assert_code(r.mdl_ri_bind_stream(m, RawStream::NULL, 0), 107000));
}

#[test]
fn t7_6_second_bind_is_107005_ee1007() {
    let r = rt0(A2);
    let (m, s) = bound(&r);
    assert_err(r.mdl_ri_bind_stream(m, s, 0), 107005, Some(MsgCode::EE1007));
    let m2 = model(&r);
    assert_err(
        r.mdl_ri_bind_stream(m2, s, 0),
        107005,
        Some(MsgCode::EE1007),
    );
    // Unbound, it can be bound again.
    ok(r.mdl_ri_unbind_stream(m, s));
    ok(r.mdl_ri_bind_stream(m2, s, 0));
}

#[test]
fn t7_6_bind_fast_launch_persistent_stream_is_207000_ee1011() {
    let r = rt0(A2);
    let m = model(&r);
    let s = stream_with(&r, stream_flag::PERSISTENT | stream_flag::FAST_LAUNCH);
    assert_err(r.mdl_ri_bind_stream(m, s, 0), 207000, Some(MsgCode::EE1011));
}

#[test]
fn t7_6_build_end_reserve_not_null_is_100000_eh0012_then_it_needs_a_stream_and_its_end_mark() {
    let r = rt0(A2);
    let m = model(&r);
    assert_err(
        r.mdl_ri_build_end(m, Some(0x1)),
        100000,
        Some(MsgCode::EH0012),
    );
    assert_err(
        r.mdl_ri_build_end(RawModel::default(), None),
        100000,
        Some(MsgCode::EH0008),
    );
    // A model with no stream, then one whose stream has no end mark, is not loaded.
    assert_err(
        r.mdl_ri_build_end(m, Some(0)),
        107005,
        Some(MsgCode::EE1018),
    );
    let s = persistent(&r);
    ok(r.mdl_ri_bind_stream(m, s, 0));
    assert_err(r.mdl_ri_build_end(m, None), 507011, Some(MsgCode::EE1018));
    ok(r.mdl_ri_end_task(m, s));
    ok(r.mdl_ri_build_end(m, Some(0)));
}

#[test]
fn t7_6_model_null_arguments_are_100000() {
    let r = rt0(A2);
    let s = persistent(&r);
    let null = RawModel::default();
    assert_code(r.mdl_ri_end_task(null, s), 100000);
    assert_code(r.mdl_ri_unbind_stream(null, s), 100000);
    assert_code(r.mdl_ri_execute(null, -1), 100000);
    assert_code(r.mdl_ri_execute_async(null, RawStream::NULL), 100000);
    assert_code(r.mdl_ri_destroy(null), 100000);
}

#[test]
fn t7_6_execute_async_unsupported_on_910() {
    // The docs mark 200I/500 A2 unsupported too, but the vendor's code accepts it there
    // (docs/discrepancies.md); 910 refuses it.
    let r = rt0(CLOUD);
    let (m, s) = bound(&r);
    ok(r.mdl_ri_end_task(m, s));
    ok(r.mdl_ri_build_end(m, None));
    assert!(r.mdl_ri_execute_async(m, RawStream::NULL).is_err());
    // The stream handle is validated before the chip's gate.
    assert_err(
        r.mdl_ri_execute_async(m, destroyed_stream(&r)),
        107017,
        Some(MsgCode::EE1017),
    );
}

#[test]
fn t7_4_stream_limit_counts_the_default_stream() {
    // 512 streams per device on 200I/500 A2, default stream included
    // (docs/validation/streams-events.md). The code for one too many is not given by the docs.
    let r = rt0(MINI_V3);
    for _ in 0..511 {
        stream(&r);
    }
    let mut s = RawStream::NULL;
    assert!(r.create_stream(Some(&mut s)).is_err());
}

#[test]
fn t7_5_event_limit_on_310p_is_1023() {
    // Max events per device: 1023 on 310P (docs/validation/streams-events.md); the code
    // for one too many is not given.
    let r = rt0(DC);
    for _ in 0..1023 {
        event(&r);
    }
    let mut e = RawEvent::default();
    assert!(r.create_event(Some(&mut e)).is_err());
}

#[test]
fn t7_6_tasks_on_a_bound_stream_run_when_the_model_executes() {
    let r = rt0(A2);
    let p = malloc(&r, 8);
    ok(r.memset(p, 8, 0, 8));
    let (m, b) = bound(&r);
    ok(r.value_write(p, 42, 0, b));
    ok(r.mdl_ri_end_task(m, b));
    ok(r.mdl_ri_build_end(m, None));
    let mut out = [0u8; 8];
    ok(r.memcpy(MemDst::Host(&mut out), 8, MemSrc::Addr(p), 8, 2));
    assert_eq!(u64::from_le_bytes(out), 0, "recorded, not run");
    ok(r.mdl_ri_execute(m, -1));
    ok(r.memcpy(MemDst::Host(&mut out), 8, MemSrc::Addr(p), 8, 2));
    assert_eq!(u64::from_le_bytes(out), 42);
}

// =============================================================================================
// docs/validation/models.md: the stream argument of aclmdlRIEndTask and aclmdlRIUnbindStream
// =============================================================================================

#[test]
fn end_task_on_a_stream_not_bound_to_the_model_is_507000_on_the_a2_and_950_families() {
    for soc in [A2, A3, DAVID] {
        let r = rt0(soc);
        let m = model(&r);
        let ps = persistent(&r);
        assert_err(r.mdl_ri_end_task(m, ps), 507000, Some(MsgCode::EE1017));
        // NULL is the default stream, never bound.
        assert_err(
            r.mdl_ri_end_task(m, RawStream::NULL),
            507000,
            Some(MsgCode::EE1017),
        );
        let (other, bs) = bound(&r);
        assert_err(r.mdl_ri_end_task(m, bs), 507000, Some(MsgCode::EE1017));
        ok(r.mdl_ri_end_task(other, bs));
        // Without a context, NULL names no stream.
        on_fresh_thread(|| assert_code(r.mdl_ri_end_task(m, RawStream::NULL), 107000));
    }
    let r = rt0(MINI_V3);
    let m = model(&r);
    assert_code(r.mdl_ri_end_task(m, RawStream::NULL), 107000);
    assert_code(r.mdl_ri_end_task(m, persistent(&r)), 107005);
}

#[test]
fn unbinding_null_is_107005_on_the_a2_and_950_families_and_107000_on_310b() {
    for soc in [A2, A3, DAVID] {
        let r = rt0(soc);
        let m = model(&r);
        assert_err(
            r.mdl_ri_unbind_stream(m, RawStream::NULL),
            107005,
            Some(MsgCode::EE4002),
        );
        on_fresh_thread(|| assert_code(r.mdl_ri_unbind_stream(m, RawStream::NULL), 107000));
    }
    let r = rt0(MINI_V3);
    let m = model(&r);
    assert_code(r.mdl_ri_unbind_stream(m, RawStream::NULL), 107000);
}

#[test]
fn device_only_streams_and_events_need_the_mc2_feature() {
    for soc in [MINI_V3, CLOUD] {
        let r = rt0(soc);
        let mut s = RawStream::default();
        assert_err(
            r.create_stream_with_config(Some(&mut s), 0, stream_flag::DEVICE_USE_ONLY),
            207000,
            None,
        );
        assert_eq!(ok(r.get_last_error(0)), 0, "{soc}: a warning only");
        let mut e = RawEvent::default();
        assert_err(
            r.create_event_with_flag(Some(&mut e), event_flag::DEVICE_USE_ONLY),
            207000,
            Some(MsgCode::EE1001),
        );
        assert_eq!(ok(r.get_last_error(0)), 207000, "{soc}");
        // The context comes first.
        on_fresh_thread(|| {
            assert_code(
                r.create_event_with_flag(Some(&mut e), event_flag::DEVICE_USE_ONLY),
                107002,
            )
        });
    }
    for soc in [A2, DAVID, DC] {
        let r = rt0(soc);
        let mut s = RawStream::default();
        ok(r.create_stream_with_config(Some(&mut s), 0, stream_flag::DEVICE_USE_ONLY));
        let mut e = RawEvent::default();
        ok(r.create_event_with_flag(Some(&mut e), event_flag::DEVICE_USE_ONLY));
    }
}
