//! The edge matrix (t5_9, docs/validation/edge-matrix.md).

use super::*;

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
