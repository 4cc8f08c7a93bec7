//! Rules found by running the vendor's own runtime built from source
//! (docs/validation/vendor-oracle.md).

use super::*;

// =============================================================================================
// Rules found by running the vendor's own runtime built from source
// (docs/validation/vendor-oracle.md, front-end changes 10–15)
// =============================================================================================

#[test]
fn t7_3_a_synchronous_copy_needs_a_current_context_after_the_same_address_shortcut() {
    let r = rt0(A2);
    let src = [1u8; 8];
    on_fresh_thread(|| {
        let mut dst = [0u8; 8];
        assert_err(
            r.memcpy(
                MemDst::Host(&mut dst),
                8,
                MemSrc::Host(&src),
                8,
                memcpy_kind::HOST_TO_HOST,
            ),
            107002,
            Some(MsgCode::EE1018),
        );
        assert_eq!(dst, [0u8; 8], "nothing copied");
        // The same address on both sides returns before the context is looked for.
        ok(r.memcpy(
            MemDst::Addr(UNREGISTERED),
            8,
            MemSrc::Addr(UNREGISTERED),
            8,
            memcpy_kind::DEVICE_TO_DEVICE,
        ));
        let mut buf = *b"abcdef";
        assert_code(
            r.memcpy_within(&mut buf, 2, 4, 0, 4, memcpy_kind::HOST_TO_HOST),
            107002,
        );
        ok(r.memcpy_within(&mut buf, 2, 4, 2, 4, memcpy_kind::HOST_TO_HOST));
        assert_eq!(&buf, b"abcdef");
    });
    // The context row answers before the ends are resolved: a freed device end is not looked
    // at without a current context.
    let mut freed = Addr(0);
    ok(r.malloc(Some(&mut freed), 64, malloc_policy::NORMAL_ONLY));
    ok(r.free(freed));
    let from_freed = || {
        let mut dst = [0u8; 8];
        r.memcpy(
            MemDst::Host(&mut dst),
            8,
            MemSrc::Addr(freed),
            8,
            memcpy_kind::DEVICE_TO_HOST,
        )
    };
    on_fresh_thread(|| assert_code(from_freed(), 107002));
    assert_code(from_freed(), 107000);
}

#[test]
fn t7_6_execute_with_timeout_zero_is_107000_and_without_an_end_mark_is_507011() {
    let r = rt0(A2);
    let (m, s) = bound(&r);
    assert_code(r.mdl_ri_execute(m, 0), 107000);
    assert_code(r.mdl_ri_execute(m, -2), 107000);
    // A model with a stream but no end mark cannot run.
    assert_err(r.mdl_ri_execute(m, -1), 507011, Some(MsgCode::EE1018));
    ok(r.mdl_ri_end_task(m, s));
    ok(r.mdl_ri_build_end(m, None));
    ok(r.mdl_ri_execute(m, -1));
    ok(r.mdl_ri_execute(m, 1000));
}

#[test]
fn t7_6_execute_async_refuses_a_model_stream_before_the_context_then_needs_the_end_mark() {
    for soc in [A2, A3, DAVID, MINI_V3] {
        let r = rt0(soc);
        let (m, s) = bound(&r);
        // A stream bound to a model is refused first, even without a context.
        on_fresh_thread(|| assert_err(r.mdl_ri_execute_async(m, s), 107000, Some(MsgCode::EE1017)));
        let run_on = stream(&r);
        assert_err(
            r.mdl_ri_execute_async(m, run_on),
            507011,
            Some(MsgCode::EE1018),
        );
        ok(r.mdl_ri_end_task(m, s));
        if soc != MINI_V3 {
            // A2/A3 and 950 also need the build's end before an asynchronous run.
            assert_err(
                r.mdl_ri_execute_async(m, run_on),
                507011,
                Some(MsgCode::EE1018),
            );
            ok(r.mdl_ri_build_end(m, None));
        }
        ok(r.mdl_ri_execute_async(m, run_on));
        ok(r.synchronize_stream(run_on));
    }
}

#[test]
fn t7_6_execute_async_on_an_unbound_persistent_stream_is_refused_on_950_only() {
    for (soc, refused) in [(DAVID, true), (A2, false)] {
        let r = rt0(soc);
        let (m, s) = bound(&r);
        ok(r.mdl_ri_end_task(m, s));
        ok(r.mdl_ri_build_end(m, None));
        let p = persistent(&r);
        let got = r.mdl_ri_execute_async(m, p);
        if refused {
            assert_err(got, 107000, Some(MsgCode::EE1006));
        } else {
            ok(got);
        }
    }
}

#[test]
fn t7_6_bind_null_stream_without_a_default_model_stream_is_107000() {
    // Only the A2/A3 and 950 runtimes read NULL as the default stream here.
    for soc in [MINI_V3, DC, CLOUD] {
        let r = rt0(soc);
        let m = model(&r);
        assert_code(r.mdl_ri_bind_stream(m, RawStream::NULL, 0), 107000);
    }
    for soc in [A2, DAVID] {
        let r = rt0(soc);
        let m = model(&r);
        assert_code(r.mdl_ri_bind_stream(m, RawStream::NULL, 0), 207000);
    }
}

#[test]
fn t7_6_on_950_a_built_models_streams_take_no_tasks_until_unbound() {
    let r = rt0(DAVID);
    let p = malloc(&r, 8);
    let (m, s) = bound(&r);
    ok(r.value_write(p, 1, 0, s));
    ok(r.mdl_ri_end_task(m, s));
    ok(r.mdl_ri_build_end(m, None));
    assert_err(r.value_write(p, 2, 0, s), 107000, Some(MsgCode::EE1016));
    // A refused end mark drops the model's end mark: it cannot run until one succeeds.
    assert_err(r.mdl_ri_end_task(m, s), 107000, Some(MsgCode::EE1016));
    assert_err(r.mdl_ri_execute(m, -1), 507011, Some(MsgCode::EE1018));
    ok(r.mdl_ri_unbind_stream(m, s));
    ok(r.value_write(p, 3, 0, s));
    // On 910B the same stream takes more tasks after the build's end.
    let r = rt0(A2);
    let p = malloc(&r, 8);
    let (m, s) = bound(&r);
    ok(r.mdl_ri_end_task(m, s));
    ok(r.mdl_ri_build_end(m, None));
    ok(r.value_write(p, 2, 0, s));
}

#[test]
fn t7_5_on_950_a_synchronize_of_an_event_recorded_on_an_unbound_persistent_stream_is_507000() {
    for (soc, want) in [(DAVID, 507000), (A2, 0)] {
        let r = rt0(soc);
        let e = event(&r);
        let p = persistent(&r);
        ok(r.record_event(e, p));
        assert_eq!(code(r.synchronize_event(e)), want, "{soc}");
        assert_eq!(
            code(r.synchronize_event_with_timeout(e, 100)),
            want,
            "{soc}"
        );
    }
}

#[test]
fn a_synchronize_of_an_event_whose_latest_record_is_on_a_model_bound_stream_is_107000_ee1016() {
    for soc in [A2, A3, DAVID, MINI_V3] {
        let r = rt0(soc);
        let e = event_with(&r, event_flag::SYNC);
        let (m, b) = bound(&r);
        ok(r.record_event(e, b));
        assert_err(r.synchronize_event(e), 107000, Some(MsgCode::EE1016));
        assert_err(
            r.synchronize_event_with_timeout(e, 10),
            107000,
            Some(MsgCode::EE1016),
        );
        // The earlier rows come first: a timeout of 0 is refused before the record is seen.
        assert_err(
            r.synchronize_event_with_timeout(e, 0),
            107000,
            Some(MsgCode::EE1003),
        );
        // Once the stream is unbound, the record's stream is a plain persistent stream again.
        ok(r.mdl_ri_unbind_stream(m, b));
        let after = if soc == DAVID { 507000 } else { 0 };
        assert_eq!(code(r.synchronize_event(e)), after, "{soc}");
        // A later record elsewhere is the one that counts.
        let s = stream(&r);
        ok(r.mdl_ri_bind_stream(m, b, 0));
        ok(r.record_event(e, s));
        ok(r.synchronize_event(e));
        // A stream destroyed after the record: the destroy waited for it.
        ok(r.record_event(e, s));
        ok(r.destroy_stream(s));
        ok(r.synchronize_event(e));
    }
}
