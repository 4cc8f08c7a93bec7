//! The generic rules (docs/validation/common-rules.md): handles, contexts, recent error messages.

use super::*;

// =============================================================================================
// Generic rules (docs/validation/common-rules.md): handles, contexts, recent error messages
// =============================================================================================

#[test]
fn rule_stream_handles_destroyed_garbage_and_wrong_type_are_107017() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    for s in bad_streams(&r) {
        assert_err(r.value_write(p, 0, 0, s), 107017, Some(MsgCode::EE1017));
        assert_err(r.synchronize_stream(s), 107017, Some(MsgCode::EE1017));
        assert_err(r.destroy_stream(s), 107017, Some(MsgCode::EE1017));
        let mut st = 0;
        assert_err(
            r.stream_query(s, Some(&mut st)),
            107017,
            Some(MsgCode::EE1017),
        );
        let e = event(&r);
        assert_err(r.record_event(e, s), 107017, Some(MsgCode::EE1017));
        assert_err(
            r.memset_async(p, 64, 0, 64, s),
            107017,
            Some(MsgCode::EE1017),
        );
    }
    // A stream handle passed as an event, a stream handle passed as a model.
    let s = stream(&r);
    assert_err(
        r.record_event(RawEvent(s.0), RawStream::NULL),
        107017,
        Some(MsgCode::EE1017),
    );
    assert_err(
        r.mdl_ri_execute(RawModel(s.0), -1),
        107017,
        Some(MsgCode::EE1017),
    );
}

#[test]
fn rule_stream_of_another_context_is_107003_for_task_apis() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    let d = malloc(&r, 64);
    let other = other_ctx_stream(&r);
    let want = |res: ascend_rt::AclResult<()>| assert_err(res, 107003, Some(MsgCode::EE1010));
    want(r.value_write(p, 0, 0, other));
    want(r.value_wait(p, 0, 0, other));
    want(r.cmo_async(p, 64, 0, other));
    want(r.cmo_async_with_desc(d, 0, other, Addr::NULL));
    want(r.memset_async(p, 64, 0, 64, other));
    let src = [0u8; 8];
    want(r.memcpy_async(MemDst::Addr(p), 8, MemSrc::Host(&src), 8, 1, other));
    let e = event(&r);
    want(r.record_event(e, other));
    want(r.stream_wait_event(other, e));
}

#[test]
fn rule_recent_error_message_eh0008_then_none_after_reading() {
    let r = rt0(A2);
    assert_eq!(r.get_recent_err_msg(), None);
    assert_code(r.value_write(Addr::NULL, 0, 0, RawStream::NULL), 100000);
    let text = r.get_recent_err_msg().expect("a NULL failure is reported");
    assert!(text.contains("EH0008"), "{text}");
    assert!(text.contains("aclrtValueWrite"), "{text}");
    assert_eq!(r.get_recent_err_msg(), None, "reading clears");
}

#[test]
fn rule_recent_error_messages_are_newest_first() {
    let r = rt0(A2);
    assert_code(r.value_write(Addr::NULL, 0, 0, RawStream::NULL), 100000);
    assert_code(r.value_write(UNREGISTERED, 0, 1, RawStream::NULL), 107000);
    let text = r.get_recent_err_msg().unwrap();
    let (newer, older) = (text.find("EE1003").unwrap(), text.find("EH0008").unwrap());
    assert!(newer < older, "{text}");
}

#[test]
fn rule_recent_error_messages_are_per_thread() {
    let r = rt0(A2);
    assert_code(r.value_write(Addr::NULL, 0, 0, RawStream::NULL), 100000);
    on_fresh_thread(|| assert_eq!(r.get_recent_err_msg(), None));
    assert!(r.get_recent_err_msg().is_some());
}

#[test]
fn rule_rt_parameter_failure_reports_its_code_then_ee1001() {
    let r = rt0(A2);
    assert_code(r.value_write(UNREGISTERED, 0, 1, RawStream::NULL), 107000);
    let text = r.get_recent_err_msg().unwrap();
    assert!(text.contains("EE1003") && text.contains("EE1001"), "{text}");
}

#[test]
fn rule_feature_gate_failures_leave_no_recent_message() {
    for soc in NON_CMO_CHIPS {
        let r = rt0(soc);
        let p = malloc(&r, 64);
        let results = [
            r.value_write(p, 0, 0, RawStream::NULL),
            r.value_wait(p, 0, 0, RawStream::NULL),
            r.cmo_async(p, 64, 0, RawStream::NULL),
            r.cmo_get_desc_size(None),
            r.cmo_set_desc(p, p, 64),
            r.cmo_async_with_desc(p, 0, RawStream::NULL, Addr::NULL),
        ];
        for res in results {
            assert_err(res, 207000, None);
        }
        assert_no_recent(&r);
    }
    let r = rt0(A2);
    assert_err(
        r.cmo_async_with_barrier(Addr(0x1), 64, 2, 1, RawStream::NULL),
        207000,
        None,
    );
    assert_err(r.cmo_async(Addr(0x1), 64, 9, RawStream::NULL), 207000, None);
    assert_no_recent(&r);
}
