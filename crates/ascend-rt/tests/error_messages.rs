//! Every failure leaves a message for `aclGetRecentErrMsg`: the vendor's message code (and our
//! wording of its text) where the vendor's runtime reports one, the simulator's own
//! explanation, marked as such, where it reports none (docs/error-messages.md).

mod common;

use ascend_rt::raw_types::with_out;
use ascend_rt::raw_types::{memcpy_kind, Addr, RawStream};
use ascend_rt::{MemDst, MemSrc, MsgCode, Runtime, SharedBytes};
use common::*;

/// Asserts `r` failed with `code` and `msg`, and that the thread's recent message says the
/// call's name (with the message code, or marked as the simulator's own without one).
#[track_caller]
fn assert_explained<T: std::fmt::Debug>(
    rt: &Runtime,
    r: ascend_rt::AclResult<T>,
    code: i32,
    msg: Option<MsgCode>,
    api: &str,
) {
    assert_err(r, code, msg);
    let text = rt
        .get_recent_err_msg()
        .unwrap_or_else(|| panic!("{api} ({code}) left no message"));
    assert!(text.contains(api), "{text}");
    let first = text.lines().next().unwrap_or_default();
    match msg {
        Some(m) => assert!(first.starts_with(&m.to_string()), "{text}"),
        None => assert!(first.starts_with("ascend-sim:"), "{text}"),
    }
    assert!(first.contains(&code.to_string()), "{text}");
}

#[test]
fn model_and_label_refusals_carry_the_runtimes_message_codes() {
    for (soc, set_label_msg) in [(A2, MsgCode::EE9999), (DAVID, MsgCode::EE1017)] {
        let r = rt0(soc);
        let s = stream(&r);
        let m = model(&r);
        let label = ok(with_out(|o| r.create_label(Some(o))));
        assert_explained(
            &r,
            r.set_label(label, s),
            107005,
            Some(set_label_msg),
            "aclrtSetLabel",
        );
        let ps = persistent(&r);
        assert_explained(
            &r,
            r.mdl_ri_unbind_stream(m, ps),
            107005,
            Some(MsgCode::EE4002),
            "aclmdlRIUnbindStream",
        );
        assert_explained(
            &r,
            r.mdl_ri_end_task(m, ps),
            507000,
            Some(MsgCode::EE1017),
            "aclmdlRIEndTask",
        );
        let other = ok(with_out(|o| r.create_label(Some(o))));
        ok(with_out(|o| r.create_label_list(Some(&[label]), Some(o))));
        assert_explained(
            &r,
            with_out(|o| r.create_label_list(Some(&[other, label]), Some(o))),
            507000,
            Some(MsgCode::EE9999),
            "aclrtCreateLabelList",
        );
    }
}

#[test]
fn cmo_refusals_are_explained() {
    let r = rt0(A2);
    let s = stream(&r);
    let p = malloc(&r, 64);
    assert_explained(
        &r,
        r.cmo_async_with_desc(p, 0, s, Addr::NULL),
        507000,
        Some(MsgCode::EE9999),
        "aclrtCmoAsyncWithDesc",
    );
    // The runtime only logs this one: the message is the simulator's.
    assert_explained(
        &r,
        r.cmo_async_with_barrier(p, 64, 2, 1, RawStream::NULL),
        207000,
        None,
        "aclrtCmoAsyncWithBarrier",
    );
}

#[test]
fn event_peer_and_registration_failures_are_explained() {
    let r = rt0(A2);
    let (a, b) = (event(&r), event(&r));
    let mut ms = 0f32;
    assert_explained(
        &r,
        r.event_elapsed_time(Some(&mut ms), a, b),
        507000,
        Some(MsgCode::EE9999),
        "aclrtEventElapsedTime",
    );
    let src = malloc(&r, 64);
    ok(r.set_device(1));
    let dst = malloc(&r, 64);
    assert_explained(
        &r,
        r.memcpy(
            MemDst::Addr(dst),
            64,
            MemSrc::Addr(src),
            64,
            memcpy_kind::DEVICE_TO_DEVICE,
        ),
        507899,
        Some(MsgCode::EE9999),
        "aclrtMemcpy",
    );
    let prog = SharedBytes::new(128);
    assert_explained(
        &r,
        with_out(|o| r.host_register(prog.addr(), 128, 0x80, Some(o), Some(prog.clone()))),
        207000,
        Some(MsgCode::EE1001),
        "aclrtHostRegister",
    );
    let huge = with_out(|o| r.host_register(prog.addr(), 1 << 45, 0, Some(o), Some(prog.clone())));
    let code = huge.as_ref().map_err(|e| e.code()).expect_err("refused");
    let text = r.get_recent_err_msg().expect("a message");
    assert!(text.contains("aclrtHostRegister"), "{code}: {text}");
}
