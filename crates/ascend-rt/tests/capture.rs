//! Capturing a stream into a model running instance: the rows of each call in the vendor's
//! order, tasks recorded instead of run, the refusals during a capture, and the external event
//! record and wait linking the model to other streams.

mod common;

use ascend_rt::raw_types::{event_flag, memcpy_kind, RawEvent, RawModel, RawStream};
use ascend_rt::{
    raw_types::capture_mode, raw_types::capture_status, MemDst, MemSrc, MsgCode, Runtime,
};
use common::*;

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

fn sync_event(r: &Runtime) -> RawEvent {
    let mut e = RawEvent::default();
    ok(r.create_event_ex_with_flag(Some(&mut e), event_flag::SYNC));
    e
}

#[test]
fn captured_tasks_run_only_when_the_model_runs_and_as_often_as_it_runs() {
    let r = rt0(A2);
    let (s, exec) = (stream(&r), stream(&r));
    let a = malloc(&r, 8);
    ok(r.memset(a, 8, 0, 8));
    ok(r.mdl_ri_capture_begin(s, capture_mode::RELAXED));
    let (mut st, mut m) = (9, RawModel::default());
    ok(r.mdl_ri_capture_get_info(s, Some(&mut st), Some(&mut m)));
    assert_eq!(st, capture_status::ACTIVE);
    ok(r.value_write(a, 5, 0, s));
    assert_eq!(read(&r, a), 0, "captured, not run");
    let mut model = RawModel::default();
    ok(r.mdl_ri_capture_end(s, Some(&mut model)));
    assert_eq!(model, m);
    ok(r.mdl_ri_capture_get_info(s, Some(&mut st), None));
    assert_eq!(st, capture_status::NONE);
    ok(r.mdl_ri_execute_async(model, exec));
    ok(r.synchronize_stream(exec));
    assert_eq!(read(&r, a), 5);
    ok(r.memset(a, 8, 0, 8));
    ok(r.mdl_ri_execute_async(model, exec));
    ok(r.synchronize_stream(exec));
    assert_eq!(read(&r, a), 5, "again");
    // The stream runs its own tasks again.
    ok(r.value_write(a, 6, 0, s));
    ok(r.synchronize_stream(s));
    assert_eq!(read(&r, a), 6);
    ok(r.mdl_ri_destroy(model));
}

#[test]
fn external_events_link_a_captured_model_to_other_streams() {
    let r = rt0(A2);
    let (s, other, exec) = (stream(&r), stream(&r), stream(&r));
    let (src, dst) = (malloc(&r, 8), malloc(&r, 8));
    ok(r.memset(dst, 8, 0, 8));
    ok(r.memset(src, 8, 0, 8));
    let ev = sync_event(&r);
    ok(r.mdl_ri_capture_begin(s, capture_mode::RELAXED));
    ok(r.stream_wait_event_with_flag(s, ev, 0, 1));
    ok(r.memcpy_async(
        MemDst::Addr(dst),
        8,
        MemSrc::Addr(src),
        8,
        memcpy_kind::DEVICE_TO_DEVICE,
        s,
    ));
    let mut model = RawModel::default();
    ok(r.mdl_ri_capture_end(s, Some(&mut model)));
    ok(r.value_write(src, 77, 0, other));
    ok(r.record_event(ev, other));
    ok(r.mdl_ri_execute_async(model, exec));
    ok(r.synchronize_stream(exec));
    assert_eq!(
        read(&r, dst),
        77,
        "the model waited for the record made outside it"
    );
}

#[test]
fn capture_rows_and_refusals_during_a_capture() {
    let r = rt0(A2);
    let s = stream(&r);
    let mut m = RawModel::default();
    assert_err(
        r.mdl_ri_capture_begin(RawStream(0), 0),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.mdl_ri_capture_begin(GARBAGE, 0),
        107017,
        Some(MsgCode::EE1017),
    );
    assert_err(r.mdl_ri_capture_begin(s, 3), 107000, Some(MsgCode::EE1003));
    let mut dflt = RawStream::default();
    ok(r.ctx_get_current_default_stream(Some(&mut dflt)));
    assert_err(
        r.mdl_ri_capture_begin(dflt, 0),
        207000,
        Some(MsgCode::EE1017),
    );
    let (_bm, bound_s) = bound(&r);
    assert_err(
        r.mdl_ri_capture_begin(bound_s, 0),
        107005,
        Some(MsgCode::EE1017),
    );
    assert_err(
        r.mdl_ri_capture_end(s, Some(&mut m)),
        107029,
        Some(MsgCode::EE1018),
    );
    // modelRI is checked only while the stream captures.
    assert_err(r.mdl_ri_capture_end(s, None), 107029, Some(MsgCode::EE1018));
    assert_err(
        r.mdl_ri_capture_get_info(s, None, None),
        100000,
        Some(MsgCode::EH0009),
    );
    let ev = sync_event(&r);
    assert_err(
        r.record_event_with_flag(ev, s, 1),
        107029,
        Some(MsgCode::EE1016),
    );
    assert_err(
        r.record_event_with_flag(ev, s, 2),
        100000,
        Some(MsgCode::EH0007),
    );
    assert_err(
        r.stream_wait_event_with_flag(s, ev, 5, 1),
        100000,
        Some(MsgCode::EH0007),
    );
    ok(r.mdl_ri_capture_begin(s, capture_mode::GLOBAL));
    assert_err(r.mdl_ri_capture_begin(s, 0), 107027, Some(MsgCode::EE1016));
    assert_err(r.synchronize_stream(s), 107027, Some(MsgCode::EE1016));
    let mut status = 0;
    assert_err(
        r.stream_query(s, Some(&mut status)),
        107027,
        Some(MsgCode::EE1016),
    );
    assert_err(r.destroy_stream(s), 107027, Some(MsgCode::EE1016));
    assert_err(r.synchronize_device(), 107027, Some(MsgCode::EE1016));
    let a = malloc(&r, 8);
    assert_err(r.memset(a, 8, 0, 8), 107030, Some(MsgCode::EE1016));
    let mut e = RawEvent::default();
    ok(r.create_event(Some(&mut e)));
    assert_err(r.record_event_with_flag(e, s, 1), 207000, None);
    assert_err(r.mdl_ri_capture_end(s, None), 107000, Some(MsgCode::EE1004));
    ok(r.mdl_ri_capture_end(s, Some(&mut m)));
    ok(r.memset(a, 8, 0, 8));
    ok(r.mdl_ri_destroy(m));
    for soc in [MINI_V3, CLOUD] {
        let r = rt0(soc);
        assert_code(r.mdl_ri_capture_begin(stream(&r), 0), 207000);
    }
}

/// A synchronous device-to-device copy: what a GLOBAL capture refuses (107030).
fn sync_copy(r: &Runtime) -> i32 {
    let (a, b) = (malloc(r, 8), malloc(r, 8));
    code(r.memcpy(
        MemDst::Addr(b),
        8,
        MemSrc::Addr(a),
        8,
        memcpy_kind::DEVICE_TO_DEVICE,
    ))
}

#[test]
fn a_capture_ends_with_its_context_or_device() {
    // A device reset.
    let r = rt0(A2);
    let s = stream(&r);
    ok(r.mdl_ri_capture_begin(s, capture_mode::GLOBAL));
    assert_eq!(sync_copy(&r), 107030);
    ok(r.reset_device(0));
    ok(r.set_device(0));
    assert_eq!(sync_copy(&r), 0, "the reset ended the capture");
    // A context destroyed.
    let r = rt0(A2);
    let mut c = ascend_rt::raw_types::RawContext::default();
    ok(r.create_context(Some(&mut c), 0));
    let s = stream(&r);
    ok(r.mdl_ri_capture_begin(s, capture_mode::GLOBAL));
    ok(r.destroy_context(c));
    ok(r.set_device(0));
    assert_eq!(
        sync_copy(&r),
        0,
        "the context's destruction ended the capture"
    );
}

#[test]
fn a_stream_that_begins_capturing_while_it_is_destroyed_is_not_destroyed() {
    let r = std::sync::Arc::new(rt0(A2));
    let w = std::sync::Arc::downgrade(&r);
    // The destroy's state callback begins a capture of the stream being destroyed.
    let cb: ascend_rt::StreamStateCallback =
        std::sync::Arc::new(move |s: RawStream, state: u32| {
            if state == 2 {
                if let Some(r) = w.upgrade() {
                    let _ = r.mdl_ri_capture_begin(s, capture_mode::GLOBAL);
                }
            }
        });
    ok(r.reg_stream_state_callback(Some("begins a capture"), Some(cb)));
    let s = stream(&r);
    assert_code(r.destroy_stream(s), 107027);
    ok(r.reg_stream_state_callback(Some("begins a capture"), None));
    let mut m = RawModel::default();
    ok(r.mdl_ri_capture_end(s, Some(&mut m)));
    ok(r.destroy_stream(s));
    assert_eq!(sync_copy(&r), 0);
}

#[test]
fn of_many_threads_beginning_a_capture_of_one_stream_exactly_one_succeeds() {
    let r = rt0(A2);
    let mut ctx = ascend_rt::raw_types::RawContext::default();
    ok(r.get_current_context(Some(&mut ctx)));
    for _ in 0..20 {
        let s = stream(&r);
        let go = std::sync::Barrier::new(8);
        let codes: Vec<i32> = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..8)
                .map(|_| {
                    sc.spawn(|| {
                        ok(r.set_current_context(ctx));
                        go.wait();
                        code(r.mdl_ri_capture_begin(s, capture_mode::RELAXED))
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(codes.iter().filter(|&&c| c == 0).count(), 1, "{codes:?}");
        assert!(codes.iter().all(|&c| c == 0 || c == 107027), "{codes:?}");
        let mut m = RawModel::default();
        ok(r.mdl_ri_capture_end(s, Some(&mut m)));
        ok(r.mdl_ri_destroy(m));
        ok(r.destroy_stream(s));
    }
}

#[test]
fn the_model_a_capture_records_into_is_not_destroyed_before_the_capture_ends() {
    let r = rt0(A2);
    let s = stream(&r);
    let a = malloc(&r, 8);
    ok(r.mdl_ri_capture_begin(s, capture_mode::GLOBAL));
    let (mut status, mut m) = (0u32, RawModel::default());
    ok(r.mdl_ri_capture_get_info(s, Some(&mut status), Some(&mut m)));
    assert_code(r.mdl_ri_destroy(m), 107027);
    // The capture goes on as before.
    ok(r.value_write(a, 5, 0, s));
    let mut ended = RawModel::default();
    ok(r.mdl_ri_capture_end(s, Some(&mut ended)));
    assert_eq!(ended, m);
    ok(r.mdl_ri_destroy(m));
}

#[test]
fn a_refused_capture_end_leaves_the_callers_model_handle_alone() {
    let r = rt0(A2);
    let (s, exec) = (stream(&r), stream(&r));
    let a = malloc(&r, 8);
    ok(r.memset(a, 8, 0, 8));
    ok(r.mdl_ri_capture_begin(s, capture_mode::RELAXED));
    ok(r.value_write(a, 3, 0, s));
    let mut model = RawModel::default();
    ok(r.mdl_ri_capture_end(s, Some(&mut model)));
    let first = model;
    assert_ne!(first, RawModel(0));
    assert_err(
        r.mdl_ri_capture_end(s, Some(&mut model)),
        107029,
        Some(MsgCode::EE1018),
    );
    assert_eq!(model, first, "the second end kept the first one's model");
    ok(r.mdl_ri_execute_async(model, exec));
    ok(r.synchronize_stream(exec));
    assert_eq!(read(&r, a), 3);
    ok(r.mdl_ri_destroy(model));
}

#[test]
fn a_capture_ended_on_the_wrong_thread_gives_out_no_model() {
    let r = std::sync::Arc::new(rt0(A2));
    let s = stream(&r);
    ok(r.mdl_ri_capture_begin(s, capture_mode::THREAD_LOCAL));
    let r2 = r.clone();
    let (code, model) = std::thread::spawn(move || {
        r2.set_device(0).unwrap();
        let mut m = RawModel(0x1234);
        (code(r2.mdl_ri_capture_end(s, Some(&mut m))), m)
    })
    .join()
    .unwrap();
    assert_eq!(code, 107038);
    assert_eq!(
        model,
        RawModel(0),
        "the discarded capture's model is not given out"
    );
}
