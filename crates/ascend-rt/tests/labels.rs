//! Labels in a model's streams: the rows of each call in the vendor's order, and a switch that
//! jumps forward on its stream when the model runs, skipping what lies between.

mod common;

use ascend_rt::raw_types::with_out;
use ascend_rt::raw_types::{memcpy_kind, Addr, RawLabel, RawLabelList, RawModel, RawStream};
use ascend_rt::{MemDst, MemSrc, MsgCode, Runtime};
use common::*;

fn read(r: &Runtime, a: Addr) -> u64 {
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

fn put(r: &Runtime, a: Addr, v: u64) {
    let b = v.to_le_bytes();
    ok(r.memcpy(
        MemDst::Addr(a),
        8,
        MemSrc::Host(&b),
        8,
        memcpy_kind::HOST_TO_DEVICE,
    ));
}

/// A model: switch on `idx`; write a=1; label 0; write a=2; label 1; write b=3.
fn program(r: &Runtime) -> (RawModel, Addr, Addr, Addr) {
    let (m, s) = bound(r);
    let (idx, a, b) = (malloc(r, 8), malloc(r, 8), malloc(r, 8));
    let l0 = ok(with_out(|o| r.create_label(Some(o))));
    let l1 = ok(with_out(|o| r.create_label(Some(o))));
    let list = ok(with_out(|o| r.create_label_list(Some(&[l0, l1]), Some(o))));
    ok(r.switch_label_by_index(idx, 2, list, s));
    ok(r.value_write(a, 1, 0, s));
    ok(r.set_label(l0, s));
    ok(r.value_write(a, 2, 0, s));
    ok(r.set_label(l1, s));
    ok(r.value_write(b, 3, 0, s));
    ok(r.mdl_ri_end_task(m, s));
    ok(r.mdl_ri_build_end(m, None));
    (m, idx, a, b)
}

#[test]
fn a_switch_jumps_forward_to_the_label_its_index_picks_each_time_the_model_runs() {
    let r = rt0(A2);
    let exec = stream(&r);
    let (m, idx, a, b) = program(&r);
    for (i, want_a) in [(1u64, 0u64), (0, 2), (7, 0)] {
        put(&r, idx, i);
        put(&r, a, 0);
        put(&r, b, 0);
        ok(r.mdl_ri_execute_async(m, exec));
        ok(r.synchronize_stream(exec));
        assert_eq!(
            (read(&r, a), read(&r, b)),
            (want_a, 3),
            "index {i} (7 clamps to 1)"
        );
    }
}

#[test]
fn label_rows_follow_the_vendor_order() {
    let r = rt0(A2);
    let s = stream(&r);
    let (m, bs) = bound(&r);
    assert_err(r.create_label(None), 100000, Some(MsgCode::EH0008));
    let l = ok(with_out(|o| r.create_label(Some(o))));
    assert_err(
        with_out(|o| r.create_label_list(None, Some(o))),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        with_out(|o| r.create_label_list(Some(&[]), Some(o))),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        with_out(|o| r.create_label_list(Some(&[RawLabel(0xdead)]), Some(o))),
        107017,
        Some(MsgCode::EE1017),
    );
    assert_err(r.set_label(l, s), 107005, Some(MsgCode::EE9999));
    assert_err(r.set_label(l, bs), 507000, Some(MsgCode::EE1018));
    let list = ok(with_out(|o| r.create_label_list(Some(&[l]), Some(o))));
    assert_err(
        with_out(|o| r.create_label_list(Some(&[l]), Some(o))),
        507000,
        Some(MsgCode::EE9999),
    );
    ok(r.set_label(l, bs));
    assert_err(r.set_label(l, bs), 507000, Some(MsgCode::EE1018));
    let idx = malloc(&r, 8);
    assert_err(
        r.switch_label_by_index(Addr(0), 1, list, bs),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.switch_label_by_index(idx, 1, RawLabelList(0), bs),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.switch_label_by_index(idx, 1, list, RawStream(0)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.switch_label_by_index(idx, 1, list, s),
        107005,
        Some(MsgCode::EE1011),
    );
    ok(r.destroy_label_list(list));
    assert_err(r.destroy_label_list(list), 107017, Some(MsgCode::EE1017));
    ok(r.destroy_label(l));
    assert_err(r.destroy_label(l), 107017, Some(MsgCode::EE1017));
    let _ = m;
}

#[test]
fn a_backward_jump_faults_the_run_and_says_so() {
    let r = rt0(A2);
    let exec = stream(&r);
    let (m, s) = bound(&r);
    let idx = malloc(&r, 8);
    put(&r, idx, 0);
    let l = ok(with_out(|o| r.create_label(Some(o))));
    let list = ok(with_out(|o| r.create_label_list(Some(&[l]), Some(o))));
    ok(r.set_label(l, s));
    ok(r.switch_label_by_index(idx, 1, list, s));
    ok(r.mdl_ri_end_task(m, s));
    ok(r.mdl_ri_build_end(m, None));
    ok(r.mdl_ri_execute_async(m, exec));
    let e = r.synchronize_stream(exec).unwrap_err();
    assert!(e.message.contains("backwards"), "{e}");
}

#[test]
fn labels_and_their_lists_go_with_their_context() {
    let r = rt0(A2);
    let a = ok(with_out(|o| r.create_label(Some(o))));
    let b = ok(with_out(|o| r.create_label(Some(o))));
    let list = ok(with_out(|o| r.create_label_list(Some(&[a, b]), Some(o))));
    ok(r.reset_device(0));
    ok(r.set_device(0));
    // Gone with the device's context: unknown handles now, and no longer counted.
    assert_code(r.destroy_label(a), 107017);
    assert_code(r.destroy_label_list(list), 107017);
    let c = ok(with_out(|o| r.create_label(Some(o))));
    ok(r.destroy_label(c));
}

#[test]
fn a_label_named_twice_in_one_list_is_already_listed() {
    let r = rt0(A2);
    let l = ok(with_out(|o| r.create_label(Some(o))));
    assert_code(
        with_out(|o| r.create_label_list(Some(&[l, l]), Some(o))),
        507000,
    );
    // Nothing was listed by the refused call.
    let list = ok(with_out(|o| r.create_label_list(Some(&[l]), Some(o))));
    ok(r.destroy_label_list(list));
}
