//! One test per row of the validation tables of the eight target APIs
//! (docs/validation/cmo.md, docs/validation/value-write-wait.md), one per row of the edge matrix
//! (docs/validation/edge-matrix.md), and the rules of the supporting APIs
//! (docs/validation/devices-contexts.md, memory.md, streams-events.md, models.md), each
//! checking CANN's code and, where the docs name one, the message code.
//!
//! Test names carry a table key: `t5_1` … `t5_6` are `aclrtCmoAsync`,
//! `aclrtCmoAsyncWithBarrier`, `aclrtCmoWaitBarrier`, `aclrtCmoGetDescSize`, `aclrtCmoSetDesc`
//! and `aclrtCmoAsyncWithDesc`; `t5_7` / `t5_8` are `aclrtValueWrite` / `aclrtValueWait`;
//! `t5_9` is the edge matrix; `t7_1` … `t7_6` are init / finalize, devices, memory, streams,
//! events and model running instances; `rowN` is the row number in the call's table.
//!
//! Rows that cannot be reached through the public (ACL) API are listed in a comment where
//! their table's tests are, with why. "Supported chip" is one whose feature gate passes for
//! the API (docs/products.md): Ascend910B1 / Ascend910_9391 / Ascend950PR_9599 for CmoAsync,
//! the descriptor pair and the value pair; Ascend310B1 for the barrier pair.

mod common;

use std::sync::Arc;
use std::time::Duration;

use ascend_rt::raw_types::{
    cmo_type, event_flag, malloc_policy, memcpy_kind, model_stream_flag, stream_flag, wait_flag,
    Addr, RawBarrierCmoInfo, RawBarrierTaskInfo, RawContext, RawEvent, RawModel, RawStream,
};
use ascend_rt::{MemDst, MemSrc, MsgCode, Runtime};
use ascend_sim::{OnStall, SimConfig};
use common::*;

/// Chips where CmoAsync, GetDescSize, SetDesc, AsyncWithDesc, ValueWrite, ValueWait pass
/// their gate.
const CMO_CHIPS: [&str; 5] = [
    "Ascend910B1",
    "Ascend910B4",
    "Ascend910_9391",
    "Ascend950PR_9599",
    "Ascend950DT_9591",
];
/// Chips where they do not.
const NON_CMO_CHIPS: [&str; 3] = ["Ascend310B1", "Ascend310P3", "Ascend910A"];
/// Chips without the barrier pair.
const NON_BARRIER_CHIPS: [&str; 7] = [
    "Ascend910B1",
    "Ascend910B4",
    "Ascend910_9391",
    "Ascend950PR_9599",
    "Ascend950DT_9591",
    "Ascend310P3",
    "Ascend910A",
];

fn info(entries: &[(u32, u32)]) -> RawBarrierTaskInfo {
    let mut i = RawBarrierTaskInfo {
        barrier_num: entries.len(),
        ..Default::default()
    };
    for (k, &(t, id)) in entries.iter().enumerate() {
        i.cmo_info[k] = RawBarrierCmoInfo {
            cmo_type: t,
            barrier_id: id,
        };
    }
    i
}

/// Every kind of bad stream handle: destroyed, garbage, an event handle, a model handle.
fn bad_streams(r: &Runtime) -> Vec<RawStream> {
    let e = event(r);
    let m = model(r);
    vec![destroyed_stream(r), GARBAGE, RawStream(e.0), RawStream(m.0)]
}

/// Asserts the calling thread's recent messages carry no CANN message code: the failures were
/// ones CANN only logs, explained by the simulator (docs/error-messages.md).
#[track_caller]
fn assert_no_recent(r: &Runtime) {
    let text = r
        .get_recent_err_msg()
        .expect("the simulator explains every failure");
    for line in text.lines() {
        assert!(line.starts_with("ascend-sim: "), "{text}");
    }
}

/// A runtime over the simulator of `soc` (no device set) whose stalls fail after a short
/// grace instead of hanging the test.
fn rt_failing_stalls(soc: &str) -> Arc<Runtime> {
    let cfg = SimConfig {
        on_stall: OnStall::Error,
        watchdog_grace: Duration::from_secs(2),
        ..SimConfig::default()
    };
    Arc::new(Runtime::sim_with(soc, cfg).unwrap())
}

// =============================================================================================
// docs/validation/cmo.md, aclrtCmoAsync
// Not reachable through ACL: row 5 (RT src NULL) and row 6 (RT size 0) — the ACL rows 1–2 catch
// them; row 7 (no TASK_CMO and no TASK_ASYNC_CMO) — every chip failing it already failed row
// 3; row 9 (decorator opcode range) — row 4 rejects the same opcodes first; row 12 (task
// allocation / driver send failure) — internal.
// =============================================================================================

#[test]
fn t5_1_row1_src_null_is_100000_eh0008_on_every_chip() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        assert_err(
            r.cmo_async(Addr::NULL, 64, 99, GARBAGE),
            100000,
            Some(MsgCode::EH0008),
        );
    }
}

#[test]
fn t5_1_row2_size_zero_is_100000_eh0007_on_every_chip() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        assert_err(
            r.cmo_async(Addr(0x1), 0, 99, GARBAGE),
            100000,
            Some(MsgCode::EH0007),
        );
    }
}

#[test]
fn t5_1_row3_feature_gate_is_207000_without_message() {
    for soc in NON_CMO_CHIPS {
        let r = rt0(soc);
        let p = malloc(&r, 64);
        assert_err(r.cmo_async(p, 64, 99, GARBAGE), 207000, None);
        assert_no_recent(&r);
    }
}

#[test]
fn t5_1_row4_cmo_type_out_of_range_is_207000_before_the_stream_check() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let p = malloc(&r, 64);
        for t in [4, 5, 0xFFFF_FFFA, 0xFFFF_FFFF, u32::MAX / 2] {
            assert_err(r.cmo_async(p, 64, t, GARBAGE), 207000, None);
        }
    }
}

#[test]
fn cmo_async_feature_rejections_are_not_stored_as_the_last_error() {
    let r = rt_failing_stalls("Ascend310B1");
    r.set_device(0).unwrap();
    assert_eq!(
        r.cmo_async(Addr(0x1000), 64, cmo_type::PREFETCH, RawStream::NULL)
            .unwrap_err()
            .code(),
        207000
    );
    assert_eq!(
        r.get_last_error(0).unwrap(),
        0,
        "docs/validation/cmo.md, aclrtCmoAsync row 3: warning only"
    );
    let a2 = rt_failing_stalls("Ascend910B1");
    a2.set_device(0).unwrap();
    assert_eq!(
        a2.cmo_async(Addr(0x1000), 64, 7, RawStream::NULL)
            .unwrap_err()
            .code(),
        207000
    );
    assert_eq!(
        a2.get_last_error(0).unwrap(),
        0,
        "docs/validation/cmo.md, aclrtCmoAsync row 4: warning only"
    );
}

#[test]
fn t5_1_row8_invalid_stream_handle_is_107017_ee1017() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let p = malloc(&r, 64);
        for s in bad_streams(&r) {
            assert_err(
                r.cmo_async(p, 64, cmo_type::PREFETCH, s),
                107017,
                Some(MsgCode::EE1017),
            );
        }
        // Handle validation precedes the context check.
        on_fresh_thread(|| {
            assert_err(
                r.cmo_async(p, 64, cmo_type::PREFETCH, GARBAGE),
                107017,
                Some(MsgCode::EE1017),
            )
        });
    }
}

#[test]
fn t5_1_row10_no_context_is_107002_ee1018() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let p = malloc(&r, 64);
        let s = stream(&r);
        on_fresh_thread(|| {
            for st in [RawStream::NULL, s] {
                assert_err(
                    r.cmo_async(p, 64, cmo_type::PREFETCH, st),
                    107002,
                    Some(MsgCode::EE1018),
                );
            }
            // The earlier rows still answer first without a context.
            assert_code(r.cmo_async(p, 0, cmo_type::PREFETCH, s), 100000);
            assert_code(r.cmo_async(p, 64, 7, s), 207000);
        });
    }
}

#[test]
fn t5_1_row10b_stream_of_another_context_is_107003_ee1010() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let p = malloc(&r, 64);
        let other = other_ctx_stream(&r);
        assert_err(
            r.cmo_async(p, 64, cmo_type::PREFETCH, other),
            107003,
            Some(MsgCode::EE1010),
        );
    }
}

#[test]
fn t5_1_row11_model_bound_stream_is_207000() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let p = malloc(&r, 64);
        let (_m, b) = bound(&r);
        // The docs call this a silent return on these chips (TASK_CMO_DOT_NO_LOG) but the RT
        // entry's EE1001 trailer also covers FEATURE_NOT_SUPPORT (docs/error-codes.md, The
        // EE1001 trailer), so only the code is checked.
        assert_code(r.cmo_async(p, 64, cmo_type::PREFETCH, b), 207000);
    }
}

#[test]
fn t5_1_success_all_four_types_null_plain_and_persistent_streams_and_wrapping_sizes() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let p = malloc(&r, 4096);
        let s = stream(&r);
        let ps = persistent(&r);
        for t in 0..4 {
            for st in [RawStream::NULL, s, ps] {
                ok(r.cmo_async(p, 4096, t, st));
            }
        }
        ok(r.synchronize_stream(s));
        // No upper bound on size: ≥ 4 GiB wraps to 32 bits silently; no device-memory check.
        // Only the submission is checked: what the task does when it runs past its
        // allocation is the simulator's business (it reports a task fault at synchronize).
        let s2 = stream(&r);
        ok(r.cmo_async(p, 1 << 32, cmo_type::PREFETCH, s2));
        ok(r.cmo_async(p, usize::MAX, cmo_type::PREFETCH, s2));
        ok(r.cmo_async(UNREGISTERED, 64, cmo_type::PREFETCH, s2));
    }
}

#[test]
fn a_cmo_of_4_gib_or_more_passes_validation_and_wraps_in_the_simulator() {
    let rt = rt_failing_stalls("Ascend910B1");
    rt.set_device(0).unwrap();
    let mut buf = Addr::NULL;
    rt.malloc(Some(&mut buf), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    // Exactly 4 GiB narrows to a length of 0 (docs/validation/cmo.md, aclrtCmoAsync, size
    // narrowing).
    rt.cmo_async(buf, 1 << 32, cmo_type::PREFETCH, RawStream::NULL)
        .unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
}

// =============================================================================================
// docs/validation/cmo.md, aclrtCmoAsyncWithBarrier
// Not reachable: row 3 (RT src NULL, ACL row 1 first); row 8 (second gate, passes on 310B and
// every other chip failed row 2); row 12 (driver cmo-id allocation failure).
// Row 10's "wrong context" half cannot be built on 310B: it has one device, and a stream of
// another context needs a second device.
// =============================================================================================

#[test]
fn t5_2_row1_src_null_is_100000_eh0008() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        assert_err(
            r.cmo_async_with_barrier(Addr::NULL, 0, 99, 5, GARBAGE),
            100000,
            Some(MsgCode::EH0008),
        );
    }
}

#[test]
fn t5_2_no_acl_size_check_row2_gate_is_207000() {
    for soc in NON_BARRIER_CHIPS {
        let r = rt0(soc);
        // size 0 reaches the gate: there is no ACL size check.
        assert_err(
            r.cmo_async_with_barrier(Addr(0x1), 0, cmo_type::INVALID, 0, GARBAGE),
            207000,
            None,
        );
        assert_no_recent(&r);
    }
}

#[test]
fn t5_2_row4_size_zero_is_107000_ee1003() {
    let r = rt0(MINI_V3);
    assert_err(
        r.cmo_async_with_barrier(Addr(0x1), 0, cmo_type::INVALID, 0, GARBAGE),
        107000,
        Some(MsgCode::EE1003),
    );
}

#[test]
fn t5_2_row5_invalid_with_id_zero_is_107000_ee1011() {
    let r = rt0(MINI_V3);
    assert_err(
        r.cmo_async_with_barrier(Addr(0x1), 64, cmo_type::INVALID, 0, GARBAGE),
        107000,
        Some(MsgCode::EE1011),
    );
}

#[test]
fn t5_2_row6_other_type_with_nonzero_id_is_107000_ee1011() {
    let r = rt0(MINI_V3);
    for t in [cmo_type::PREFETCH, cmo_type::WRITEBACK, cmo_type::FLUSH] {
        for id in [1, 6, u32::MAX] {
            assert_err(
                r.cmo_async_with_barrier(Addr(0x1), 64, t, id, GARBAGE),
                107000,
                Some(MsgCode::EE1011),
            );
        }
    }
}

#[test]
fn t5_2_row7_type_out_of_range_is_207000() {
    let r = rt0(MINI_V3);
    for t in [4, 0xFFFF_FFFF, 1000] {
        for id in [0, 1] {
            assert_err(
                r.cmo_async_with_barrier(Addr(0x1), 64, t, id, GARBAGE),
                207000,
                None,
            );
        }
    }
}

#[test]
fn t5_2_row9_invalid_stream_handle_is_107017_ee1017() {
    let r = rt0(MINI_V3);
    for s in bad_streams(&r) {
        assert_err(
            r.cmo_async_with_barrier(Addr(0x1), 64, cmo_type::INVALID, 1, s),
            107017,
            Some(MsgCode::EE1017),
        );
    }
}

#[test]
fn t5_2_row10_no_context_is_107002_ee1018() {
    let r = rt0(MINI_V3);
    let (_m, b) = bound(&r);
    on_fresh_thread(|| {
        for s in [RawStream::NULL, b] {
            assert_err(
                r.cmo_async_with_barrier(Addr(0x1), 64, cmo_type::INVALID, 1, s),
                107002,
                Some(MsgCode::EE1018),
            );
        }
    });
}

#[test]
fn t5_2_row11_stream_not_in_model_is_507000() {
    let r = rt0(MINI_V3);
    let p = malloc(&r, 64);
    let s = stream(&r);
    let ps = persistent(&r);
    for st in [RawStream::NULL, s, ps] {
        assert_err(
            r.cmo_async_with_barrier(p, 64, cmo_type::INVALID, 1, st),
            507000,
            Some(MsgCode::EE9999),
        );
        assert_err(
            r.cmo_async_with_barrier(p, 64, cmo_type::PREFETCH, 0, st),
            507000,
            Some(MsgCode::EE9999),
        );
    }
}

#[test]
fn t5_2_success_on_model_bound_stream() {
    let r = rt0(MINI_V3);
    let p = malloc(&r, 4096);
    let (_m, b) = bound(&r);
    ok(r.cmo_async_with_barrier(p, 4096, cmo_type::INVALID, 1, b));
    for t in [cmo_type::PREFETCH, cmo_type::WRITEBACK, cmo_type::FLUSH] {
        ok(r.cmo_async_with_barrier(p, 4096, t, 0, b));
    }
    // No upper bound on size.
    ok(r.cmo_async_with_barrier(p, 1 << 32, cmo_type::INVALID, 2, b));
}

// =============================================================================================
// docs/validation/cmo.md, aclrtCmoWaitBarrier
// Not reachable: rows 3–4 (RT NULL / count, ACL rows 1–2 first); row 9 (decorator count,
// redundant). Row 10's "wrong context" half: 310B has one device (see the
// aclrtCmoAsyncWithBarrier tests).
// =============================================================================================

#[test]
fn t5_3_row1_task_info_null_is_100000_eh0008() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        assert_err(
            r.cmo_wait_barrier(None, GARBAGE, 0),
            100000,
            Some(MsgCode::EH0008),
        );
    }
}

#[test]
fn t5_3_row2_count_zero_or_above_six_is_100000_eh0007() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        for n in [0, 7, 100, usize::MAX] {
            let mut i = info(&[(cmo_type::INVALID, 1)]);
            i.barrier_num = n;
            assert_err(
                r.cmo_wait_barrier(Some(&i), GARBAGE, 0),
                100000,
                Some(MsgCode::EH0007),
            );
        }
    }
}

#[test]
fn t5_3_row5_entry_type_not_invalid_is_107000_ee1003_before_the_gate() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        for t in [
            cmo_type::PREFETCH,
            cmo_type::WRITEBACK,
            cmo_type::FLUSH,
            4,
            u32::MAX,
        ] {
            // The bad entry may be any of the first n.
            for pos in 0..3 {
                let mut entries = vec![(cmo_type::INVALID, 1); 3];
                entries[pos] = (t, 1);
                assert_err(
                    r.cmo_wait_barrier(Some(&info(&entries)), GARBAGE, 0),
                    107000,
                    Some(MsgCode::EE1003),
                );
            }
        }
    }
}

#[test]
fn t5_3_row6_entry_id_zero_is_107000_ee1003_before_the_gate() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let i = info(&[(cmo_type::INVALID, 1), (cmo_type::INVALID, 0)]);
        assert_err(
            r.cmo_wait_barrier(Some(&i), GARBAGE, 0),
            107000,
            Some(MsgCode::EE1003),
        );
    }
}

#[test]
fn t5_3_entries_past_barrier_num_are_not_read() {
    let r = rt0(A2);
    let mut i = info(&[(cmo_type::INVALID, 1)]);
    i.cmo_info[1] = RawBarrierCmoInfo {
        cmo_type: 77,
        barrier_id: 0,
    };
    // Only the first entry is read, so the answer is the gate's.
    assert_err(
        r.cmo_wait_barrier(Some(&i), GARBAGE, 0),
        207000,
        Some(MsgCode::EE1005),
    );
}

#[test]
fn t5_3_row7_gate_is_207000_with_ee1005() {
    for soc in NON_BARRIER_CHIPS {
        let r = rt0(soc);
        assert_err(
            r.cmo_wait_barrier(Some(&info(&[(cmo_type::INVALID, 1)])), GARBAGE, 0),
            207000,
            Some(MsgCode::EE1005),
        );
        // Unlike the other gates, this one is reported.
        let text = r.get_recent_err_msg().expect("EE1005 is reported");
        assert!(text.contains("EE1005"), "{text}");
    }
}

#[test]
fn t5_3_row8_invalid_stream_handle_is_107017_ee1017() {
    let r = rt0(MINI_V3);
    for s in bad_streams(&r) {
        assert_err(
            r.cmo_wait_barrier(Some(&info(&[(cmo_type::INVALID, 1)])), s, 0),
            107017,
            Some(MsgCode::EE1017),
        );
    }
}

#[test]
fn t5_3_row10_no_context_is_107002_ee1018() {
    let r = rt0(MINI_V3);
    let (_m, b) = bound(&r);
    on_fresh_thread(|| {
        for s in [RawStream::NULL, b] {
            assert_err(
                r.cmo_wait_barrier(Some(&info(&[(cmo_type::INVALID, 1)])), s, 0),
                107002,
                Some(MsgCode::EE1018),
            );
        }
    });
}

#[test]
fn t5_3_row11_stream_not_in_model_is_507000() {
    let r = rt0(MINI_V3);
    let s = stream(&r);
    let ps = persistent(&r);
    for st in [RawStream::NULL, s, ps] {
        assert_err(
            r.cmo_wait_barrier(Some(&info(&[(cmo_type::INVALID, 1)])), st, 0),
            507000,
            Some(MsgCode::EE9999),
        );
    }
}

#[test]
fn a_wait_barrier_after_its_models_context_is_destroyed_is_an_error_not_a_panic() {
    let rt = rt_failing_stalls("Ascend310B1");
    rt.set_device(0).unwrap();
    let mut buf = Addr::NULL;
    rt.malloc(Some(&mut buf), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    let mut s = RawStream::NULL;
    rt.create_stream_with_config(Some(&mut s), 0, stream_flag::PERSISTENT)
        .unwrap();
    let mut ctx = RawContext::default();
    rt.create_context(Some(&mut ctx), 0).unwrap();
    let mut model = RawModel::default();
    rt.mdl_ri_build_begin(Some(&mut model), 0).unwrap();
    rt.mdl_ri_bind_stream(model, s, model_stream_flag::HEAD)
        .unwrap();
    rt.destroy_context(ctx).unwrap();
    // Back in the default context, where the stream lives: its model is gone.
    let mut default_ctx = RawContext::default();
    rt.set_device(0).unwrap();
    rt.get_current_context(Some(&mut default_ctx)).unwrap();
    let mut info = RawBarrierTaskInfo {
        barrier_num: 1,
        ..Default::default()
    };
    info.cmo_info[0] = RawBarrierCmoInfo {
        cmo_type: cmo_type::INVALID,
        barrier_id: 1,
    };
    let err = rt.cmo_wait_barrier(Some(&info), s, 0).unwrap_err();
    assert_eq!(err.code(), 507000, "the stream is no longer bound: {err}");
}

#[test]
fn t5_3_row12_barrier_id_unknown_to_the_model_is_107005() {
    let r = rt0(MINI_V3);
    let p = malloc(&r, 64);
    let (_m, b) = bound(&r);
    assert_code(
        r.cmo_wait_barrier(Some(&info(&[(cmo_type::INVALID, 1)])), b, 0),
        107005,
    );
    ok(r.cmo_async_with_barrier(p, 64, cmo_type::INVALID, 1, b));
    ok(r.cmo_wait_barrier(Some(&info(&[(cmo_type::INVALID, 1)])), b, 0));
    // One unknown id among known ones.
    assert_code(
        r.cmo_wait_barrier(
            Some(&info(&[(cmo_type::INVALID, 1), (cmo_type::INVALID, 2)])),
            b,
            0,
        ),
        107005,
    );
    // Ids are per model: another model's stream does not know id 1.
    let (_m2, b2) = bound(&r);
    assert_code(
        r.cmo_wait_barrier(Some(&info(&[(cmo_type::INVALID, 1)])), b2, 0),
        107005,
    );
}

#[test]
fn t5_3_flag_is_never_checked() {
    let r = rt0(MINI_V3);
    let p = malloc(&r, 64);
    let (_m, b) = bound(&r);
    ok(r.cmo_async_with_barrier(p, 64, cmo_type::INVALID, 3, b));
    for flag in [1, 7, u32::MAX] {
        ok(r.cmo_wait_barrier(Some(&info(&[(cmo_type::INVALID, 3)])), b, flag));
    }
    let six = info(&[(cmo_type::INVALID, 3); 6]);
    ok(r.cmo_wait_barrier(Some(&six), b, 0));
}

// =============================================================================================
// docs/validation/cmo.md, aclrtCmoGetDescSize (no ACL checks, no context needed)
// =============================================================================================

#[test]
fn t5_4_row1_gate_is_207000_even_with_null() {
    for soc in NON_CMO_CHIPS {
        let r = rt(soc);
        assert_err(r.cmo_get_desc_size(None), 207000, None);
        assert_err(r.cmo_get_desc_size(Some(&mut 0)), 207000, None);
    }
}

#[test]
fn t5_4_row2_null_is_107000_ee1004() {
    for soc in CMO_CHIPS {
        let r = rt(soc);
        assert_err(r.cmo_get_desc_size(None), 107000, Some(MsgCode::EE1004));
    }
}

#[test]
fn t5_4_success_32_on_a2_a3_64_on_950_without_a_context() {
    for (soc, size) in [
        ("Ascend910B1", 32),
        ("Ascend910B4", 32),
        ("Ascend910_9391", 32),
        ("Ascend950PR_9599", 64),
        ("Ascend950DT_9591", 64),
    ] {
        let r = rt(soc);
        let mut s = 0usize;
        ok(r.cmo_get_desc_size(Some(&mut s)));
        assert_eq!(s, size, "{soc}");
    }
}

// =============================================================================================
// docs/validation/cmo.md, aclrtCmoSetDesc (no ACL checks)
// Row 5 (the synchronous copy into cmoDesc fails): the docs give no code ("mapped copy
// error"); a descriptor outside device memory is checked to fail, whatever the code. The code
// without a context is an open point (docs/discrepancies.md) and not tested.
// =============================================================================================

#[test]
fn t5_5_row1_gate_is_207000() {
    for soc in NON_CMO_CHIPS {
        let r = rt0(soc);
        assert_err(r.cmo_set_desc(Addr::NULL, Addr::NULL, 0), 207000, None);
    }
}

#[test]
fn t5_5_row2_desc_null_is_107000_ee1004() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        assert_err(
            r.cmo_set_desc(Addr::NULL, Addr::NULL, 0),
            107000,
            Some(MsgCode::EE1004),
        );
    }
}

#[test]
fn t5_5_row3_src_null_is_107000_ee1004() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let d = malloc(&r, 64);
        assert_err(
            r.cmo_set_desc(d, Addr::NULL, 0),
            107000,
            Some(MsgCode::EE1004),
        );
    }
}

#[test]
fn t5_5_row4_size_zero_is_107000_ee1003() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let d = malloc(&r, 64);
        assert_err(r.cmo_set_desc(d, d, 0), 107000, Some(MsgCode::EE1003));
    }
}

#[test]
fn t5_5_row5_descriptor_outside_device_memory_fails() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let src = malloc(&r, 64);
        let host = malloc_host(&r, 64);
        for d in [UNREGISTERED, host] {
            assert!(r.cmo_set_desc(d, src, 64).is_err(), "{soc}: {d:?}");
        }
    }
}

#[test]
fn t5_5_success_writes_src_and_32_bit_length_at_the_chip_layout() {
    // docs/validation/cmo.md, Descriptor layouts: A2/A3 rtCmoAddrInfo: len_inner u32 at 12,
    // src u64 at 16 (32 bytes); 950 rtDavidCmoAddrInfo: src u64 at 32, len_inner u32 at 48
    // (64 bytes). Everything else 0.
    for (soc, size, src_at, len_at) in [
        ("Ascend910B1", 32usize, 16usize, 12usize),
        ("Ascend910_9391", 32, 16, 12),
        ("Ascend950PR_9599", 64, 32, 48),
    ] {
        let r = rt0(soc);
        let d = malloc(&r, 64);
        ok(r.memset(d, 64, 0xff, 64));
        let src = malloc(&r, 64);
        // Sizes ≥ 4 GiB wrap to 32 bits; src is not checked to be device memory.
        for (s, n) in [(src, 4096usize), (UNREGISTERED, (1usize << 32) + 5)] {
            ok(r.cmo_set_desc(d, s, n));
            let mut out = vec![0u8; size];
            ok(r.memcpy(
                MemDst::Host(&mut out),
                size,
                MemSrc::Addr(d),
                size,
                memcpy_kind::DEVICE_TO_HOST,
            ));
            let src_v = u64::from_le_bytes(out[src_at..src_at + 8].try_into().unwrap());
            let len_v = u32::from_le_bytes(out[len_at..len_at + 4].try_into().unwrap());
            assert_eq!(src_v, s.0, "{soc}");
            assert_eq!(len_v, n as u32, "{soc}");
            for (k, b) in out.iter().enumerate() {
                if !(src_at..src_at + 8).contains(&k) && !(len_at..len_at + 4).contains(&k) {
                    assert_eq!(*b, 0, "{soc}: byte {k}");
                }
            }
        }
    }
}

// =============================================================================================
// docs/validation/cmo.md, aclrtCmoAsyncWithDesc (no ACL checks)
// Not reachable: row 6 (internal destMax); row 9 (descriptor head write / task failures; a
// descriptor outside device memory is checked to fail, whatever the code).
// =============================================================================================

#[test]
fn t5_6_row1_reserve_not_null_is_107000_ee1003_on_every_chip() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        assert_err(
            r.cmo_async_with_desc(Addr::NULL, 99, GARBAGE, Addr(0x1)),
            107000,
            Some(MsgCode::EE1003),
        );
    }
}

#[test]
fn t5_6_row2_no_descriptor_support_is_207000() {
    for soc in NON_CMO_CHIPS {
        let r = rt0(soc);
        assert_err(
            r.cmo_async_with_desc(Addr::NULL, 99, GARBAGE, Addr::NULL),
            207000,
            None,
        );
    }
}

#[test]
fn t5_6_row3_invalid_stream_handle_is_107017_before_the_desc_null_check() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        for s in bad_streams(&r) {
            assert_err(
                r.cmo_async_with_desc(Addr::NULL, 99, s, Addr::NULL),
                107017,
                Some(MsgCode::EE1017),
            );
        }
    }
}

#[test]
fn t5_6_row4_desc_null_is_107000_ee1004() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        assert_err(
            r.cmo_async_with_desc(Addr::NULL, 99, RawStream::NULL, Addr::NULL),
            107000,
            Some(MsgCode::EE1004),
        );
    }
}

#[test]
fn t5_6_row5_type_out_of_range_is_107000_ee1003() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let d = malloc(&r, 64);
        for t in [4, 0xFFFF_FFFA, u32::MAX] {
            assert_err(
                r.cmo_async_with_desc(d, t, RawStream::NULL, Addr::NULL),
                107000,
                Some(MsgCode::EE1003),
            );
        }
    }
}

#[test]
fn t5_6_row7_no_context_107002_and_other_context_107003() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let d = malloc(&r, 64);
        let (_m, b) = bound(&r);
        on_fresh_thread(|| {
            for s in [RawStream::NULL, b] {
                assert_err(
                    r.cmo_async_with_desc(d, cmo_type::PREFETCH, s, Addr::NULL),
                    107002,
                    Some(MsgCode::EE1018),
                );
            }
        });
        let other = other_ctx_stream(&r);
        assert_err(
            r.cmo_async_with_desc(d, cmo_type::PREFETCH, other, Addr::NULL),
            107003,
            Some(MsgCode::EE1010),
        );
    }
}

#[test]
fn t5_6_row8_stream_not_in_model_is_507000() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let d = malloc(&r, 64);
        let s = stream(&r);
        let ps = persistent(&r);
        for st in [RawStream::NULL, s, ps] {
            assert_err(
                r.cmo_async_with_desc(d, cmo_type::PREFETCH, st, Addr::NULL),
                507000,
                Some(MsgCode::EE9999),
            );
        }
    }
}

#[test]
fn t5_6_row9_descriptor_outside_device_memory_fails() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let host = malloc_host(&r, 64);
        let (_m, b) = bound(&r);
        for d in [UNREGISTERED, host] {
            assert!(r
                .cmo_async_with_desc(d, cmo_type::PREFETCH, b, Addr::NULL)
                .is_err());
        }
    }
}

#[test]
fn t5_6_success_all_four_types_on_a_model_bound_stream() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let d = malloc(&r, 64);
        let src = malloc(&r, 4096);
        ok(r.cmo_set_desc(d, src, 4096));
        let (_m, b) = bound(&r);
        for t in 0..4 {
            ok(r.cmo_async_with_desc(d, t, b, Addr::NULL));
        }
    }
}

// =============================================================================================
// docs/validation/value-write-wait.md, aclrtValueWrite / aclrtValueWait
// Not reachable: row 4 (RT devAddr NULL, ACL row 1 first); row 6 (pointer-attribute query
// failure, a driver failure); row 9 (task allocation / send failure).
// =============================================================================================

type ValueApi = fn(&Runtime, Addr, u64, u32, RawStream) -> ascend_rt::AclResult<()>;

fn write(r: &Runtime, a: Addr, v: u64, f: u32, s: RawStream) -> ascend_rt::AclResult<()> {
    r.value_write(a, v, f, s)
}
fn wait(r: &Runtime, a: Addr, v: u64, f: u32, s: RawStream) -> ascend_rt::AclResult<()> {
    r.value_wait(a, v, f, s)
}
const VALUE_APIS: [(&str, ValueApi); 2] = [("ValueWrite", write), ("ValueWait", wait)];

#[test]
fn t5_7_5_8_row1_dev_addr_null_is_100000_eh0008_on_every_chip() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        for (name, api) in VALUE_APIS {
            assert_err(
                api(&r, Addr::NULL, 0, 99, GARBAGE),
                100000,
                Some(MsgCode::EH0008),
            );
            let _ = name;
        }
    }
}

#[test]
fn t5_7_5_8_row2_gate_is_207000_without_message() {
    for soc in NON_CMO_CHIPS {
        let r = rt0(soc);
        for (_, api) in VALUE_APIS {
            assert_err(api(&r, UNREGISTERED, 0, 99, GARBAGE), 207000, None);
            assert_no_recent(&r);
        }
    }
}

#[test]
fn t5_7_5_8_row3_invalid_stream_handle_is_107017_before_the_flag_check() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        for s in bad_streams(&r) {
            for (_, api) in VALUE_APIS {
                assert_err(
                    api(&r, UNREGISTERED, 0, 99, s),
                    107017,
                    Some(MsgCode::EE1017),
                );
            }
        }
    }
}

#[test]
fn t5_7_row5_write_flag_not_zero_is_107000_ee1003() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        for flag in [1, 2, 3, 4, u32::MAX] {
            // Before the memory-location check.
            assert_err(
                r.value_write(UNREGISTERED, 0, flag, RawStream::NULL),
                107000,
                Some(MsgCode::EE1003),
            );
        }
    }
}

#[test]
fn t5_8_row5_wait_flag_four_or_more_is_107000_ee1003() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        for flag in [4, 5, 0x8000_0000, u32::MAX] {
            assert_err(
                r.value_wait(UNREGISTERED, 0, flag, RawStream::NULL),
                107000,
                Some(MsgCode::EE1003),
            );
        }
    }
}

#[test]
fn t5_7_5_8_row7_not_device_memory_is_107000_ee1003() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let host = malloc_host(&r, 64);
        let freed = malloc(&r, 64);
        ok(r.free(freed));
        let mut stack = [0u64; 1];
        let stack_addr = Addr(stack.as_mut_ptr() as u64);
        for a in [UNREGISTERED, host, freed, stack_addr] {
            for (name, api) in VALUE_APIS {
                assert_err(
                    api(&r, a, 0, 0, RawStream::NULL),
                    107000,
                    Some(MsgCode::EE1003),
                );
                let _ = name;
            }
        }
    }
}

#[test]
fn t5_7_5_8_row8_no_context_107002_and_other_context_107003() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let p = malloc(&r, 64);
        let s = stream(&r);
        on_fresh_thread(|| {
            for st in [RawStream::NULL, s] {
                for (_, api) in VALUE_APIS {
                    assert_err(api(&r, p, 0, 0, st), 107002, Some(MsgCode::EE1018));
                }
            }
            // Earlier rows answer first without a context.
            assert_code(r.value_write(p, 0, 1, s), 107000);
            assert_code(r.value_wait(UNREGISTERED, 0, 0, s), 107000);
            assert_code(r.value_wait(Addr::NULL, 0, 0, s), 100000);
        });
        let other = other_ctx_stream(&r);
        for (_, api) in VALUE_APIS {
            assert_err(api(&r, p, 0, 0, other), 107003, Some(MsgCode::EE1010));
        }
    }
}

#[test]
fn t5_7_5_8_success_unchecked_alignment_other_device_memory_and_model_streams() {
    for soc in CMO_CHIPS {
        let r = rt0(soc);
        let p = malloc(&r, 64);
        let s = stream(&r);
        ok(r.value_write(p, 5, 0, s));
        for flag in 0..4 {
            // GEQ 5≥5, EQ, AND 5&5, NOR (5|0)≠~0: all release at once.
            let v = if flag == wait_flag::NOR { 0 } else { 5 };
            ok(r.value_wait(p, v, flag, s));
        }
        // Misaligned addresses are not checked (docs/validation/value-write-wait.md).
        ok(r.value_write(p.offset(3), 1, 0, s));
        ok(r.synchronize_stream(s));
        // Device memory of another device is accepted (no ownership check).
        let other_mem = std::thread::scope(|sc| {
            sc.spawn(|| {
                ok(r.set_device(1));
                malloc(&r, 64)
            })
            .join()
            .unwrap()
        });
        ok(r.value_write(other_mem, 1, 0, s));
        // Model-bound streams are accepted.
        let (_m, b) = bound(&r);
        ok(r.value_write(p, 1, 0, b));
        ok(r.value_wait(p, 1, wait_flag::EQ, b));
    }
}

// =============================================================================================
// docs/validation/edge-matrix.md (a valid context, valid handles and a plain stream unless the
// row says otherwise). Columns: supported chip / other chip.
// =============================================================================================

#[test]
fn t5_9_cmo_async_src_null_and_size_zero() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        assert_code(r.cmo_async(Addr::NULL, 64, 0, s), 100000);
        assert_code(r.cmo_async(Addr(0x1), 0, 0, s), 100000);
    }
}

#[test]
fn t5_9_cmo_async_type_out_of_range() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        assert_code(r.cmo_async(Addr(0x1), 64, 4, s), 207000);
    }
}

#[test]
fn t5_9_cmo_async_on_model_bound_stream() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let (_m, b) = bound(&r);
        assert_code(r.cmo_async(Addr(0x1), 64, 0, b), 207000);
    }
}

#[test]
fn t5_9_barrier_src_null() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        assert_code(r.cmo_async_with_barrier(Addr::NULL, 64, 2, 1, s), 100000);
    }
}

#[test]
fn t5_9_barrier_size_zero() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        let want = if soc == MINI_V3 { 107000 } else { 207000 };
        assert_code(r.cmo_async_with_barrier(Addr(0x1), 0, 2, 1, s), want);
    }
}

#[test]
fn t5_9_barrier_type_out_of_range() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        assert_code(r.cmo_async_with_barrier(Addr(0x1), 64, 4, 0, s), 207000);
    }
}

#[test]
fn t5_9_barrier_id_rule() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        let want = if soc == MINI_V3 { 107000 } else { 207000 };
        assert_code(r.cmo_async_with_barrier(Addr(0x1), 64, 2, 0, s), want);
        assert_code(r.cmo_async_with_barrier(Addr(0x1), 64, 0, 1, s), want);
    }
}

#[test]
fn t5_9_barrier_valid_args_plain_or_null_stream() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        let want = if soc == MINI_V3 { 507000 } else { 207000 };
        for st in [s, RawStream::NULL] {
            assert_code(r.cmo_async_with_barrier(Addr(0x1), 64, 2, 1, st), want);
        }
    }
}

#[test]
fn t5_9_wait_barrier_null_count_zero_count_above_six() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        assert_code(r.cmo_wait_barrier(None, s, 0), 100000);
        for n in [0, 7] {
            let mut i = info(&[(2, 1)]);
            i.barrier_num = n;
            assert_code(r.cmo_wait_barrier(Some(&i), s, 0), 100000);
        }
    }
}

#[test]
fn t5_9_wait_barrier_entry_type_or_id_zero() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        assert_code(r.cmo_wait_barrier(Some(&info(&[(0, 1)])), s, 0), 107000);
        assert_code(r.cmo_wait_barrier(Some(&info(&[(2, 0)])), s, 0), 107000);
    }
}

#[test]
fn t5_9_wait_barrier_valid_args_plain_or_null_stream() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        for st in [s, RawStream::NULL] {
            let res = r.cmo_wait_barrier(Some(&info(&[(2, 1)])), st, 0);
            if soc == MINI_V3 {
                assert_err(res, 507000, Some(MsgCode::EE9999));
            } else {
                assert_err(res, 207000, Some(MsgCode::EE1005));
            }
        }
    }
}

#[test]
fn t5_9_wait_barrier_id_unknown_to_the_model() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let (_m, b) = bound(&r);
        let want = if soc == MINI_V3 { 107005 } else { 207000 };
        assert_code(r.cmo_wait_barrier(Some(&info(&[(2, 9)])), b, 0), want);
    }
}

#[test]
fn t5_9_wait_barrier_flag_ignored() {
    // Supported chip: the flag does not change the outcome (0 here); other chips: the gate.
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let (_m, b) = bound(&r);
        if soc == MINI_V3 {
            ok(r.cmo_async_with_barrier(Addr(0x1), 64, 2, 1, b));
        }
        for flag in [0, 1, u32::MAX] {
            let want = if soc == MINI_V3 { 0 } else { 207000 };
            assert_eq!(
                code(r.cmo_wait_barrier(Some(&info(&[(2, 1)])), b, flag)),
                want
            );
        }
    }
}

#[test]
fn t5_9_get_desc_size_null() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let cmo = CMO_CHIPS.contains(&soc);
        let res = r.cmo_get_desc_size(None);
        if cmo {
            assert_err(res, 107000, Some(MsgCode::EE1004));
        } else {
            assert_err(res, 207000, None);
        }
    }
}

#[test]
fn t5_9_set_desc_null_desc_null_src_size_zero() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let d = malloc(&r, 64);
        let cmo = CMO_CHIPS.contains(&soc);
        for (desc, src, size, msg) in [
            (Addr::NULL, d, 64, MsgCode::EE1004),
            (d, Addr::NULL, 64, MsgCode::EE1004),
            (d, d, 0, MsgCode::EE1003),
        ] {
            let res = r.cmo_set_desc(desc, src, size);
            if cmo {
                assert_err(res, 107000, Some(msg));
            } else {
                assert_err(res, 207000, None);
            }
        }
    }
}

#[test]
fn t5_9_desc_async_reserve_not_null() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        assert_code(r.cmo_async_with_desc(Addr(0x1), 0, s, Addr(0x1)), 107000);
    }
}

#[test]
fn t5_9_desc_async_desc_null_and_type_out_of_range() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        let d = malloc(&r, 64);
        let cmo = CMO_CHIPS.contains(&soc);
        let null = r.cmo_async_with_desc(Addr::NULL, 0, s, Addr::NULL);
        let bad_type = r.cmo_async_with_desc(d, 4, s, Addr::NULL);
        if cmo {
            assert_err(null, 107000, Some(MsgCode::EE1004));
            assert_err(bad_type, 107000, Some(MsgCode::EE1003));
        } else {
            assert_err(null, 207000, None);
            assert_err(bad_type, 207000, None);
        }
    }
}

#[test]
fn t5_9_desc_async_valid_args_plain_or_null_stream() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        let d = malloc(&r, 64);
        let want = if CMO_CHIPS.contains(&soc) {
            507000
        } else {
            207000
        };
        for st in [s, RawStream::NULL] {
            assert_code(r.cmo_async_with_desc(d, 0, st, Addr::NULL), want);
        }
    }
}

#[test]
fn t5_9_value_null_flag_and_host_memory() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        let p = malloc(&r, 64);
        let host = malloc_host(&r, 64);
        let cmo = CMO_CHIPS.contains(&soc);
        let gated = |c: i32| if cmo { c } else { 207000 };
        assert_code(r.value_write(Addr::NULL, 0, 0, s), 100000);
        assert_code(r.value_wait(Addr::NULL, 0, 0, s), 100000);
        assert_eq!(code(r.value_write(p, 0, 1, s)), gated(107000));
        assert_eq!(code(r.value_wait(p, 0, 4, s)), gated(107000));
        for a in [host, UNREGISTERED] {
            assert_eq!(code(r.value_write(a, 0, 0, s)), gated(107000));
            assert_eq!(code(r.value_wait(a, 0, 0, s)), gated(107000));
        }
    }
}

#[test]
fn t5_9_any_task_api_with_no_current_context() {
    // Supported chip: 107002 (EE1018) after the earlier rows; other chip: the gate first.
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let p = malloc(&r, 64);
        let (_m, b) = bound(&r);
        let cmo = CMO_CHIPS.contains(&soc);
        let barrier = soc == MINI_V3;
        on_fresh_thread(|| {
            let want = |ok_chip: bool| if ok_chip { 107002 } else { 207000 };
            assert_eq!(code(r.value_write(p, 0, 0, RawStream::NULL)), want(cmo));
            assert_eq!(code(r.value_wait(p, 0, 0, RawStream::NULL)), want(cmo));
            assert_eq!(code(r.cmo_async(p, 64, 0, RawStream::NULL)), want(cmo));
            assert_eq!(code(r.cmo_async_with_desc(p, 0, b, Addr::NULL)), want(cmo));
            assert_eq!(
                code(r.cmo_async_with_barrier(p, 64, 2, 1, b)),
                want(barrier)
            );
            let res = r.cmo_wait_barrier(Some(&info(&[(2, 1)])), b, 0);
            assert_eq!(code(res), want(barrier));
        });
    }
}

#[test]
fn t5_9_any_task_api_with_a_destroyed_stream() {
    // Supported chip: 107017 (EE1017); other chip: the gate (it precedes handle validation).
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let p = malloc(&r, 64);
        let gone = destroyed_stream(&r);
        let cmo = CMO_CHIPS.contains(&soc);
        let barrier = soc == MINI_V3;
        let want = |ok_chip: bool| if ok_chip { 107017 } else { 207000 };
        assert_eq!(code(r.value_write(p, 0, 0, gone)), want(cmo));
        assert_eq!(code(r.value_wait(p, 0, 0, gone)), want(cmo));
        assert_eq!(code(r.cmo_async(p, 64, 0, gone)), want(cmo));
        assert_eq!(
            code(r.cmo_async_with_desc(p, 0, gone, Addr::NULL)),
            want(cmo)
        );
        assert_eq!(
            code(r.cmo_async_with_barrier(p, 64, 2, 1, gone)),
            want(barrier)
        );
        assert_eq!(
            code(r.cmo_wait_barrier(Some(&info(&[(2, 1)])), gone, 0)),
            want(barrier)
        );
    }
}

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

// =============================================================================================
// docs/validation/devices-contexts.md: init / finalize
// =============================================================================================

#[test]
fn t7_1_init_twice_is_100002_finalize_twice_is_100037() {
    let r = rt(A2);
    ok(r.init(None));
    assert_code(r.init(None), 100002);
    assert_code(r.init(Some("")), 100002);
    ok(r.finalize());
    assert_code(r.finalize(), 100037);
    // After a finalize a new init succeeds.
    ok(r.init(None));
    ok(r.finalize());
}

#[test]
fn t7_1_init_with_a_different_config_than_the_first_is_100000_eh0004() {
    let dir = std::env::temp_dir().join(format!("ascend-rt-vt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.json");
    let b = dir.join("b.json");
    std::fs::write(&a, r#"{"err_msg_mode": "0"}"#).unwrap();
    std::fs::write(&b, r#"{"err_msg_mode": "1"}"#).unwrap();
    let r = rt(A2);
    ok(r.init(Some(a.to_str().unwrap())));
    ok(r.finalize());
    let res = r.init(Some(b.to_str().unwrap()));
    let _ = std::fs::remove_dir_all(&dir);
    assert_err(res, 100000, Some(MsgCode::EH0004));
}

#[test]
fn t7_1_finalize_without_init_runs_the_teardown() {
    let r = rt(A2);
    ok(r.finalize());
    assert_code(r.finalize(), 100037);
}

// =============================================================================================
// docs/validation/devices-contexts.md: devices
// =============================================================================================

#[test]
fn t7_2_set_device_out_of_range_is_107001() {
    for soc in ALL_SOCS {
        let r = rt(soc);
        for d in [99, -1, i32::MAX, i32::MIN] {
            assert_err(r.set_device(d), 107001, Some(MsgCode::EE1003));
        }
    }
    let r = rt(MINI_V3);
    assert_code(r.set_device(1), 107001);
}

#[test]
fn t7_2_reset_device_not_set_is_507007_ee1018() {
    let r = rt(A2);
    assert_err(r.reset_device(0), 507007, Some(MsgCode::EE1018));
    ok(r.set_device(0));
    ok(r.set_device(0));
    ok(r.reset_device(0));
    ok(r.reset_device(0));
    assert_err(r.reset_device(0), 507007, Some(MsgCode::EE1018));
    assert_code(r.reset_device(99), 107001);
    assert_code(r.reset_device_force(99), 107001);
}

#[test]
fn t7_2_get_device_without_set_is_107002_without_message() {
    let r = rt(A2);
    let mut d = -1;
    assert_err(r.get_device(Some(&mut d)), 107002, None);
    assert_no_recent(&r);
    assert_err(r.get_device(None), 100000, Some(MsgCode::EH0008));
    ok(r.set_device(2));
    ok(r.get_device(Some(&mut d)));
    assert_eq!(d, 2);
    on_fresh_thread(|| assert_code(r.get_device(Some(&mut 0)), 107002));
}

#[test]
fn t7_2_get_soc_name_without_a_device() {
    for soc in ALL_SOCS {
        assert_eq!(rt(soc).get_soc_name().as_deref(), Some(soc));
    }
}

#[test]
fn t7_2_reset_releases_the_default_context_and_its_streams() {
    let r = rt0(A2);
    let s = stream(&r);
    ok(r.reset_device(0));
    let mut d = 0;
    assert_code(r.get_device(Some(&mut d)), 107002);
    ok(r.set_device(0));
    // The stream of the released context is gone.
    assert_err(r.synchronize_stream(s), 107017, Some(MsgCode::EE1017));
}

// =============================================================================================
// docs/validation/memory.md
// =============================================================================================

/// Whether `len` bytes from `a` can be filled (the extent the allocation really has).
fn fillable(r: &Runtime, a: Addr, len: usize) -> bool {
    r.memset(a, len, 0, len).is_ok()
}

#[test]
fn t7_3_malloc_rounds_up_to_32_plus_padding() {
    // A2 / 310B / 310P / 910 pad 32, 950 pads 0; HUGE1G policies never pad.
    for (soc, pad) in [
        ("Ascend910B1", 32usize),
        ("Ascend310B1", 32),
        ("Ascend310P3", 32),
        ("Ascend910A", 32),
        ("Ascend950PR_9599", 0),
    ] {
        let r = rt0(soc);
        for (size, policy, len) in [
            (1usize, malloc_policy::HUGE_FIRST, 32 + pad),
            (32, malloc_policy::NORMAL_ONLY, 32 + pad),
            (33, malloc_policy::HUGE_FIRST, 64 + pad),
            (1, malloc_policy::HUGE1G_ONLY, 32),
            (33, malloc_policy::HUGE1G_ONLY_P2P, 64),
        ] {
            let mut a = Addr::NULL;
            ok(r.malloc(Some(&mut a), size, policy));
            assert!(fillable(&r, a, len), "{soc}: size {size} policy {policy}");
            // The front end tracks the extent; beyond it the fill is refused.
            assert!(
                !fillable(&r, a, len + 1),
                "{soc}: size {size} policy {policy}"
            );
            ok(r.free(a));
        }
    }
}

#[test]
fn t7_3_malloc_base_is_64_byte_aligned() {
    let r = rt0(A2);
    for size in [1, 7, 100, 4096] {
        let a = malloc(&r, size);
        assert_eq!(a.0 % 64, 0);
    }
}

#[test]
fn t7_3_malloc_null_zero_and_overflow_are_100000() {
    let r = rt0(A2);
    let mut a = Addr::NULL;
    assert_err(r.malloc(None, 64, 0), 100000, Some(MsgCode::EH0008));
    assert_err(r.malloc(Some(&mut a), 0, 0), 100000, Some(MsgCode::EH0007));
    // Overflow of the padded length: 100000 (the docs name no message code for it).
    assert_code(r.malloc(Some(&mut a), usize::MAX, 0), 100000);
    assert_code(r.malloc(Some(&mut a), usize::MAX - 31, 0), 100000);
    // Out-of-range or OR-ed policies fall back to the default.
    for policy in [8, 0x0100 | 1, 0xFFFF_FFFF] {
        ok(r.malloc(Some(&mut a), 64, policy));
    }
}

#[test]
fn t7_3_free_null_is_100000_and_host_malloc_rules() {
    let r = rt0(A2);
    assert_err(r.free(Addr::NULL), 100000, Some(MsgCode::EH0008));
    let mut h = Addr::NULL;
    assert_err(r.malloc_host(None, 8), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.malloc_host(Some(&mut h), 0),
        100000,
        Some(MsgCode::EH0007),
    );
    assert_err(r.free_host(Addr::NULL), 100000, Some(MsgCode::EH0008));
}

#[test]
fn a_huge_host_allocation_is_207001_not_an_abort() {
    let rt = rt_failing_stalls("Ascend910B1");
    rt.set_device(0).unwrap();
    let mut host = Addr::NULL;
    let err = rt.malloc_host(Some(&mut host), usize::MAX / 2).unwrap_err();
    assert_eq!(err.code(), 207001, "{err}");
}

#[test]
fn t7_3_memcpy_count_zero_succeeds_before_any_check() {
    let r = rt(A2); // no device, no context
    let n = Addr::NULL;
    for kind in [0, 6, 7, u32::MAX] {
        ok(r.memcpy(MemDst::Addr(n), 0, MemSrc::Addr(n), 0, kind));
        ok(r.memcpy_async(MemDst::Addr(n), 0, MemSrc::Addr(n), 0, kind, GARBAGE));
    }
}

#[test]
fn t7_3_memcpy_null_pointers_are_100000_eh0008() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    assert_err(
        r.memcpy(MemDst::Addr(Addr::NULL), 8, MemSrc::Addr(p), 8, 3),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.memcpy(MemDst::Addr(p), 8, MemSrc::Addr(Addr::NULL), 8, 3),
        100000,
        Some(MsgCode::EH0008),
    );
}

#[test]
fn t7_3_memcpy_kind_above_5_is_100000_eh0007() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    let q = malloc(&r, 64);
    for kind in [
        memcpy_kind::INNER_DEVICE_TO_DEVICE,
        memcpy_kind::INTER_DEVICE_TO_DEVICE,
        8,
        0x7FFF_FFFF,
    ] {
        assert_err(
            r.memcpy(MemDst::Addr(p), 8, MemSrc::Addr(q), 8, kind),
            100000,
            Some(MsgCode::EH0007),
        );
        assert_err(
            r.memcpy_async(
                MemDst::Addr(p),
                8,
                MemSrc::Addr(q),
                8,
                kind,
                RawStream::NULL,
            ),
            100000,
            Some(MsgCode::EH0007),
        );
    }
}

#[test]
fn t7_3_memcpy_dest_max_zero_and_count_above_dest_max_are_107000() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    let q = malloc(&r, 64);
    assert_code(r.memcpy(MemDst::Addr(p), 0, MemSrc::Addr(q), 8, 3), 107000);
    assert_err(
        r.memcpy(MemDst::Addr(p), 4, MemSrc::Addr(q), 8, 3),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.memcpy_async(MemDst::Addr(p), 4, MemSrc::Addr(q), 8, 3, RawStream::NULL),
        107000,
        Some(MsgCode::EE1003),
    );
    // The runtime's entry checks the stream handle before the count against destMax.
    assert_err(
        r.memcpy_async(
            MemDst::Addr(p),
            4,
            MemSrc::Addr(q),
            8,
            3,
            destroyed_stream(&r),
        ),
        107017,
        Some(MsgCode::EE1017),
    );
}

#[test]
fn t7_3_memcpy_dst_equal_src_succeeds_and_kind_is_advisory() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    ok(r.memcpy(MemDst::Addr(p), 64, MemSrc::Addr(p), 64, 3));
    // A device → host copy with kind HOST_TO_DEVICE: the direction comes from the addresses.
    ok(r.memset(p, 64, 0x11, 64));
    let mut out = [0u8; 8];
    ok(r.memcpy(
        MemDst::Host(&mut out),
        8,
        MemSrc::Addr(p),
        8,
        memcpy_kind::HOST_TO_DEVICE,
    ));
    assert_eq!(out, [0x11; 8]);
}

#[test]
fn t7_3_memset_rules() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    ok(r.memset(Addr::NULL, 0, 0, 0));
    ok(r.memset_async(Addr::NULL, 0, 0, 0, GARBAGE));
    assert_err(r.memset(Addr::NULL, 8, 0, 8), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.memset_async(Addr::NULL, 8, 0, 8, RawStream::NULL),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.memset_async(p, 4, 0, 8, RawStream::NULL),
        107000,
        Some(MsgCode::EE1003),
    );
    // The runtime's entry checks the stream handle before the count against maxCount.
    assert_err(
        r.memset_async(p, 4, 0, 8, destroyed_stream(&r)),
        107017,
        Some(MsgCode::EE1017),
    );
    // The value is passed on as a 32-bit unsigned; its low byte fills.
    ok(r.memset(p, 64, 0x1234_56ab, 64));
    let mut out = [0u8; 4];
    ok(r.memcpy(MemDst::Host(&mut out), 4, MemSrc::Addr(p), 4, 2));
    assert_eq!(out, [0xab; 4]);
}

#[test]
fn t7_3_mem_flush_and_invalidate() {
    let r = rt0(A2);
    for f in [Runtime::mem_flush, Runtime::mem_invalidate] {
        assert_err(f(&r, Addr::NULL, 1), 100000, Some(MsgCode::EH0008));
        assert_err(f(&r, Addr(0x11), 0), 100000, Some(MsgCode::EH0007));
        ok(f(&r, Addr(0x11), 1));
        on_fresh_thread(|| assert_err(f(&r, Addr(0x11), 1), 107002, Some(MsgCode::EE1018)));
    }
}

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

// =============================================================================================
// docs/validation/streams-events.md: events
// =============================================================================================

#[test]
fn t7_5_event_null_arguments_are_100000() {
    let r = rt0(A2);
    let s = stream(&r);
    let null = RawEvent::default();
    assert_err(r.create_event(None), 100000, Some(MsgCode::EH0008));
    assert_err(r.record_event(null, s), 100000, Some(MsgCode::EH0008));
    assert_err(r.stream_wait_event(s, null), 100000, Some(MsgCode::EH0008));
    assert_err(r.synchronize_event(null), 100000, Some(MsgCode::EH0008));
    assert_err(r.destroy_event(null), 100000, Some(MsgCode::EH0008));
    let e = event(&r);
    assert_err(
        r.query_event_status(null, Some(&mut 0)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(r.query_event_status(e, None), 100000, Some(MsgCode::EH0008));
}

#[test]
fn t7_5_default_event_on_a_model_bound_stream_is_207000() {
    let r = rt0(A2);
    let e = event(&r);
    let (_m, b) = bound(&r);
    assert_code(r.record_event(e, b), 207000);
    assert_code(r.stream_wait_event(b, e), 207000);
}

#[test]
fn t7_5_a_stream_wait_for_an_event_never_recorded_is_107000_ee1018() {
    let r = rt0(A2);
    let s = stream(&r);
    let e = event(&r);
    assert_err(r.stream_wait_event(s, e), 107000, Some(MsgCode::EE1018));
    // A wait is not a record: the second wait is refused too; after a record both wait.
    assert_err(r.stream_wait_event(s, e), 107000, Some(MsgCode::EE1018));
    ok(r.record_event(e, s));
    ok(r.stream_wait_event(s, e));
    // Events of the sync flag need no record.
    let mut sync = RawEvent::default();
    ok(r.create_event_with_flag(Some(&mut sync), ascend_rt::raw_types::event_flag::SYNC));
    ok(r.stream_wait_event(s, sync));
    ok(r.synchronize_stream(s));
}

#[test]
fn t7_5_record_wait_and_status() {
    let r = rt0(A2);
    let s1 = stream(&r);
    let s2 = stream(&r);
    let e = event(&r);
    ok(r.record_event(e, s1));
    ok(r.stream_wait_event(s2, e));
    ok(r.stream_wait_event(RawStream::NULL, e));
    ok(r.synchronize_stream(s2));
    let mut st = 0;
    ok(r.query_event_status(e, Some(&mut st)));
    assert_eq!(st, 1);
    ok(r.destroy_event(e));
    assert_err(r.synchronize_event(e), 107017, Some(MsgCode::EE1017));
}

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

// =============================================================================================
// docs/validation/streams-events.md: the decorator's event-flag rows of record, wait,
// synchronize, query and elapsed time
// =============================================================================================

fn event_with(r: &Runtime, flag: u32) -> RawEvent {
    let mut e = RawEvent::default();
    ok(r.create_event_with_flag(Some(&mut e), flag));
    e
}

#[test]
fn a_device_only_event_cannot_be_recorded_or_waited_for_on_the_host() {
    for soc in [A2, DAVID] {
        let r = rt0(soc);
        let s = stream(&r);
        let e = event_with(&r, event_flag::DEVICE_USE_ONLY);
        assert_err(r.record_event(e, s), 107000, Some(MsgCode::EE1006));
        assert_err(r.stream_wait_event(s, e), 107000, Some(MsgCode::EE1006));
        // The handles come first.
        assert_err(r.record_event(e, GARBAGE), 107017, Some(MsgCode::EE1017));
    }
}

#[test]
fn a_wait_on_an_event_without_a_wait_task_is_207000_without_message_code() {
    for soc in [A2, DAVID] {
        let r = rt0(soc);
        let s = stream(&r);
        for flag in [event_flag::TIME_LINE, event_flag::CAPTURE_STREAM_PROGRESS] {
            let e = event_with(&r, flag);
            ok(r.record_event(e, s));
            assert_err(r.stream_wait_event(s, e), 207000, None);
        }
        // Any of SYNC, DDSYNC (the default flags), external or IPC gives a wait task.
        let e = event_with(&r, event_flag::SYNC | event_flag::TIME_LINE);
        ok(r.record_event(e, s));
        ok(r.stream_wait_event(s, e));
        let d = event(&r);
        ok(r.record_event(d, s));
        ok(r.stream_wait_event(s, d));
        ok(r.synchronize_stream(s));
    }
}

#[test]
fn an_external_event_cannot_be_synchronized_queried_or_timed() {
    let r = rt0(A2);
    let ext = event_with(&r, event_flag::EXTERNAL);
    let mut status = 9;
    assert_err(r.query_event_status(ext, Some(&mut status)), 207000, None);
    assert_eq!(status, 9, "untouched");
    assert_err(r.synchronize_event_with_timeout(ext, 10), 207000, None);
    assert_err(r.synchronize_event(ext), 207000, None);
    let e = event(&r);
    let mut ms = 0f32;
    assert_err(r.event_elapsed_time(Some(&mut ms), ext, e), 207000, None);
    assert_err(r.event_elapsed_time(Some(&mut ms), e, ext), 207000, None);
    // A feature warning is not stored as the last error.
    assert_eq!(ok(r.get_last_error(0)), 0);
    // The timeout's own rows come first.
    assert_err(
        r.synchronize_event_with_timeout(ext, 0),
        107000,
        Some(MsgCode::EE1003),
    );
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

// =============================================================================================
// docs/validation/memory.md: aclrtMemsetAsync on host memory
// =============================================================================================

#[test]
fn memset_async_fills_host_memory_never_registered_before_it_returns() {
    for soc in [A2, MINI_V3, DAVID] {
        let r = rt0(soc);
        let mut host = vec![0u8; 96];
        ok(r.memset_async(&mut host[..], 96, 0x1a7, 64, RawStream::NULL));
        assert_eq!(&host[..64], &[0xa7; 64][..], "{soc}: the low byte, at once");
        assert_eq!(&host[64..], &[0; 32][..], "{soc}: only count bytes");
        // Any stream of the context will do; the host fill never reaches it.
        ok(r.memset_async(&mut host[..], 96, 3, 96, persistent(&r)));
        assert_eq!(host, vec![3; 96], "{soc}");
        // The rows before the fill still apply.
        assert_code(
            r.memset_async(&mut host[..], 8, 0, 9, RawStream::NULL),
            107000,
        );
        if soc != MINI_V3 {
            // (Ascend310B1 has one device.)
            let theirs = other_ctx_stream(&r);
            assert_code(r.memset_async(&mut host[..], 8, 0, 8, theirs), 107003);
        }
        on_fresh_thread(|| {
            let mut h = [0u8; 8];
            assert_code(r.memset_async(&mut h[..], 8, 1, 8, RawStream::NULL), 107002);
            assert_eq!(h, [0; 8]);
        });
    }
}

#[test]
fn memset_async_fills_page_locked_memory_at_the_call_not_in_stream_order() {
    let r = rt0(A2);
    let s = stream(&r);
    let word = malloc(&r, 8);
    ok(r.memset(word, 8, 0, 8));
    let pinned = malloc_host(&r, 64);
    // The stream is held by a wait nothing has satisfied yet.
    ok(r.value_wait(word, 1, wait_flag::GEQ, s));
    ok(r.memset_async(pinned, 64, 0x5c, 64, s));
    let buf = r.host_buffer(pinned).unwrap();
    assert_eq!(
        buf.to_vec(),
        vec![0x5c; 64],
        "filled while the stream waits"
    );
    ok(r.value_write(word, 1, 0, RawStream::NULL));
    ok(r.synchronize_stream(s));
    assert_eq!(buf.to_vec(), vec![0x5c; 64]);
}

#[test]
fn memset_async_on_host_memory_with_max_count_over_2_pow_31_is_507000_and_fills_nothing() {
    let r = rt0(A2);
    let big = 0x8000_0000usize;
    let mut host = vec![0u8; 16];
    assert_err(
        r.memset_async(&mut host[..], big, 1, 16, RawStream::NULL),
        507000,
        Some(MsgCode::EE9999),
    );
    assert_eq!(host, vec![0; 16]);
    ok(r.memset_async(&mut host[..], big - 1, 1, 16, RawStream::NULL));
    assert_eq!(host, vec![1; 16]);
    let pinned = malloc_host(&r, 16);
    assert_code(r.memset_async(pinned, big, 2, 16, RawStream::NULL), 507000);
    assert_eq!(r.host_buffer(pinned).unwrap().to_vec(), vec![0; 16]);
    // Device memory has no such bound: its fill is a task.
    let dev = malloc(&r, 16);
    ok(r.memset_async(dev, big, 4, 16, RawStream::NULL));
    ok(r.synchronize_stream(RawStream::NULL));
    assert_eq!(read_bytes(&r, dev, 16), vec![4; 16]);
}
