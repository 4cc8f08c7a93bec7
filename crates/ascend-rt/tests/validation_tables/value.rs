//! `aclrtValueWrite` (t5_7) and `aclrtValueWait` (t5_8) (docs/validation/value-write-wait.md).

use super::*;

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
