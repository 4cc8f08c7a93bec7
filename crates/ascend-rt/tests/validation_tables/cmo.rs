//! The CMO calls (docs/validation/cmo.md): `aclrtCmoAsync` (t5_1), `aclrtCmoAsyncWithBarrier` (t5_2),
//! `aclrtCmoWaitBarrier` (t5_3), `aclrtCmoGetDescSize` (t5_4), `aclrtCmoSetDesc` (t5_5) and
//! `aclrtCmoAsyncWithDesc` (t5_6).

use super::*;

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
