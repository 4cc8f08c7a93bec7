//! Kernels on the simulated AI cores: blocks, waves, the data cache, `dcci`/`dci`, faults,
//! and the memory-semantic synchronisation of the developer guide between stream tasks and
//! kernels.

mod common;

use std::time::Duration;

use ascend_chips::ChipProfile;
use ascend_sim::*;
use common::*;

/// `dcci` operands as the developer guide writes them.
const SINGLE_LINE: bool = false;
const CACHELINE_OUT: u64 = 2;

fn sim_on(soc: &str) -> Sim {
    Sim::new(ChipProfile::builtin(soc).unwrap(), SimConfig::default())
}

/// The guide's signalling kernel: store 1 into the flag, then `dcci` its line.
fn signal(flag: u64, with_dcci: bool) -> Kernel {
    Kernel::new("myKernel1", move |ctx: &mut dyn KernelOps| {
        ctx.store(flag, 8, 1);
        if with_dcci {
            ctx.dcci(flag, SINGLE_LINE, CACHELINE_OUT);
        }
    })
}

/// The guide's waiting kernel: spin until the flag reads 2, refreshing its line with `dcci`
/// before each read.
fn wait_for_two(flag: u64, with_dcci: bool) -> Kernel {
    Kernel::new("myKernel2", move |ctx: &mut dyn KernelOps| loop {
        if with_dcci {
            ctx.dcci(flag, SINGLE_LINE, CACHELINE_OUT);
        }
        if ctx.load(flag, 8) == 2 {
            break;
        }
        ctx.spin(100);
    })
}

/// A zeroed flag of `bytes` bytes, a stream whose head waits for the flag to be 1, and a
/// second stream.
fn flag_waited_for_one(sim: &Sim, bytes: u64) -> (u64, StreamId, StreamId) {
    let flag = sim.malloc(0, bytes).unwrap();
    sim.fill(flag, 0, bytes).unwrap();
    let s1 = sim.create_stream(0, 0, false).unwrap();
    let s2 = sim.create_stream(0, 0, false).unwrap();
    let wait = Task::ValueWait {
        addr: flag,
        value: 1,
        mode: WaitMode::Eq,
    };
    sim.submit(s1, wait).unwrap();
    (flag, s1, s2)
}

/// A kernel that only spends time: it holds its stream back for `cycles`.
fn delay(cycles: u64) -> Kernel {
    Kernel::new("delay", move |ctx: &mut dyn KernelOps| ctx.spin(cycles))
}

/// The guide's host sequence on two streams, with the value write held back long enough that
/// the waiting kernel polls before it; returns the streams and the flag.
fn guide_example(sim: &Sim, writer_dcci: bool, poller_dcci: bool) -> (StreamId, StreamId, u64) {
    let flag = sim.malloc(0, 8).unwrap();
    sim.fill(flag, 0, 8).unwrap();
    let s1 = sim.create_stream(0, 0, false).unwrap();
    let s2 = sim.create_stream(0, 0, false).unwrap();
    sim.submit(
        s1,
        Task::ValueWait {
            addr: flag,
            value: 1,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    sim.submit(s2, kernel(signal(flag, writer_dcci), 1))
        .unwrap();
    sim.submit(s1, kernel(wait_for_two(flag, poller_dcci), 1))
        .unwrap();
    sim.submit(s2, kernel(delay(50_000), 1)).unwrap();
    sim.submit(
        s2,
        Task::ValueWrite {
            addr: flag,
            value: 2,
        },
    )
    .unwrap();
    (s1, s2, flag)
}

#[test]
fn the_developer_guide_example_completes_with_each_side_released_by_the_other() {
    let sim = sim();
    let (s1, s2, flag) = guide_example(&sim, true, true);
    sim.synchronize_stream(s2, None).unwrap();
    sim.synchronize_stream(s1, None).unwrap();
    assert_eq!(read_u64(&sim, flag), 2);
    let r = sim.report();
    assert!(r.hazards.is_empty(), "{:#?}", r.hazards);
    let wait = &r.value_waits[0];
    let k1 = r
        .kernel_blocks
        .iter()
        .find(|k| k.kernel == "myKernel1")
        .unwrap();
    let k2 = r
        .kernel_blocks
        .iter()
        .find(|k| k.kernel == "myKernel2")
        .unwrap();
    let write = r.timeline.iter().find(|t| t.kind == "ValueWrite").unwrap();
    assert!(
        wait.end_ns >= k1.start_ns && wait.end_ns <= k1.end_ns + 1_000,
        "the wait is released by the kernel's store and dcci: {wait:?} {k1:?}"
    );
    assert!(k2.start_ns >= wait.end_ns, "kernel 2 runs after the wait");
    assert!(
        k2.end_ns >= write.end_ns,
        "kernel 2 spins until the value write: {k2:?} {write:?}"
    );
    assert!(k2.ops > 2, "kernel 2 polled: {k2:?}");
    let released_by = wait
        .released_by
        .as_ref()
        .map(|w| w.to_string())
        .unwrap_or_default();
    assert!(released_by.contains("kernel myKernel1"), "{released_by}");
    let polled = k2.last_polled_writer.as_deref().unwrap_or_default();
    assert!(polled.contains(&format!("task {}", write.task)), "{polled}");
}

#[test]
fn a_kernel_runs_the_same_timeline_every_time() {
    let run = || {
        let sim = sim();
        let (s1, s2, _) = guide_example(&sim, true, true);
        sim.synchronize_stream(s2, None).unwrap();
        sim.synchronize_stream(s1, None).unwrap();
        let r = sim.report();
        (r.timeline, r.kernel_blocks, r.value_waits)
    };
    let first = run();
    for _ in 0..3 {
        assert_eq!(run(), first);
    }
}

#[test]
fn more_blocks_than_cores_run_in_waves_and_each_sees_its_index() {
    let sim = sim();
    let cores = sim.chip().cache.aic_cores;
    let blocks = cores * 2 + 1;
    // One 64-byte line per block.
    let out = sim.malloc(0, u64::from(blocks) * 64).unwrap();
    let st = sim.create_stream(0, 0, false).unwrap();
    let k = Kernel::new("index", move |ctx: &mut dyn KernelOps| {
        let at = out + u64::from(ctx.block_idx()) * 64;
        ctx.store(at, 4, u64::from(ctx.block_idx()) + 1);
        ctx.store(at + 4, 4, u64::from(ctx.block_num()));
        ctx.spin(1000);
        ctx.dcci(at, false, 2);
    });
    sim.submit(st, kernel(k, blocks)).unwrap();
    sim.synchronize_stream(st, None).unwrap();
    for b in 0..u64::from(blocks) {
        let v = read_u64(&sim, out + b * 64);
        assert_eq!(v, (b + 1) | (u64::from(blocks) << 32), "block {b}");
    }
    let r = sim.report();
    assert_eq!(r.kernel_blocks.len(), blocks as usize);
    let cores_used: std::collections::BTreeSet<u32> =
        r.kernel_blocks.iter().map(|k| k.core).collect();
    assert_eq!(cores_used.len(), cores as usize);
    let first_start = r.kernel_blocks.iter().map(|k| k.start_ns).min().unwrap();
    let last_start = r.kernel_blocks.iter().map(|k| k.start_ns).max().unwrap();
    let first_end = r.kernel_blocks.iter().map(|k| k.end_ns).min().unwrap();
    assert!(
        last_start >= first_end,
        "the last wave starts when a core frees"
    );
    assert!(last_start > first_start);
    assert!(r.hazards.is_empty(), "{:#?}", r.hazards);
}

#[test]
fn a_kernel_fault_fails_its_task_and_names_the_block_and_address() {
    let sim = sim();
    let st = sim.create_stream(0, 0, false).unwrap();
    let bad = sim.device_window().start + (1 << 30);
    let k = Kernel::new("wild", move |ctx: &mut dyn KernelOps| {
        ctx.load(bad, 8);
        unreachable!("a faulting load does not return");
    });
    sim.submit(st, kernel(k, 2)).unwrap();
    let err = sim.synchronize_stream(st, None).unwrap_err().to_string();
    assert!(
        err.contains("wild") && err.contains(&format!("{bad:#x}")),
        "{err}"
    );

    let a = sim.malloc(0, 64).unwrap();
    let k = Kernel::new("misaligned", move |ctx: &mut dyn KernelOps| {
        ctx.store(a + 4, 8, 1);
    });
    sim.submit(st, kernel(k, 1)).unwrap();
    let err = sim.synchronize_stream(st, None).unwrap_err().to_string();
    assert!(err.contains("not aligned"), "{err}");

    let k = Kernel::new("panics", |_ctx: &mut dyn KernelOps| panic!("kernel bug"));
    sim.submit(st, kernel(k, 1)).unwrap();
    let err = sim.synchronize_stream(st, None).unwrap_err().to_string();
    assert!(err.contains("kernel bug"), "{err}");

    // The stream goes on afterwards.
    sim.submit(st, Task::ValueWrite { addr: a, value: 5 })
        .unwrap();
    sim.synchronize_stream(st, None).unwrap();
    assert_eq!(read_u64(&sim, a), 5);
}

#[test]
fn copies_between_global_memory_and_a_local_buffer_go_around_the_data_cache() {
    let sim = sim();
    let a = sim.malloc(0, 256).unwrap();
    let data: Vec<u8> = (0..128u8).collect();
    sim.write(a, &data).unwrap();
    let st = sim.create_stream(0, 0, false).unwrap();
    let k = Kernel::new("mte", move |ctx: &mut dyn KernelOps| {
        let mut local = vec![0u8; 128];
        ctx.copy_gm_to_local(&mut local, a);
        for b in &mut local {
            *b = b.wrapping_mul(2);
        }
        ctx.copy_local_to_gm(a + 128, &local);
    });
    sim.submit(st, kernel(k, 1)).unwrap();
    sim.synchronize_stream(st, None).unwrap();
    let mut out = vec![0u8; 128];
    sim.read(a + 128, &mut out).unwrap();
    assert_eq!(out, data.iter().map(|b| b * 2).collect::<Vec<_>>());
}

#[test]
fn a_value_wait_that_reads_a_flag_still_in_a_data_cache_is_an_invisible_write() {
    for dcci in [false, true] {
        let sim = sim();
        let (flag, s1, s2) = flag_waited_for_one(&sim, 8);
        let k = Kernel::new("late", move |ctx: &mut dyn KernelOps| {
            ctx.store(flag, 8, 1);
            if dcci {
                ctx.dcci(flag, false, 2);
            }
            ctx.spin(100_000);
        });
        sim.submit(s2, kernel(k, 1)).unwrap();
        sim.synchronize_stream(s1, None).unwrap();
        sim.synchronize_stream(s2, None).unwrap();
        let k = hazard_kinds(&sim);
        if dcci {
            assert!(k.is_empty(), "{:#?}", sim.report().hazards);
        } else {
            assert_eq!(k, ["invisible_write"]);
            let h = &sim.report().hazards[0];
            assert!(
                h.detail.contains("dcci") && h.detail.contains("kernel late"),
                "{}",
                h.detail
            );
            assert!(
                h.detail.contains("value wait") || h.detail.contains("scheduler"),
                "{}",
                h.detail
            );
        }
    }
}

#[test]
fn a_poll_that_reads_its_data_cache_after_memory_changed_is_a_stale_read() {
    for dcci in [false, true] {
        let sim = sim();
        let flag = sim.malloc(0, 8).unwrap();
        sim.fill(flag, 0, 8).unwrap();
        let (s1, s2) = (
            sim.create_stream(0, 0, false).unwrap(),
            sim.create_stream(0, 0, false).unwrap(),
        );
        // Reads the flag, waits long enough for the value write, reads again.
        let k = Kernel::new("poll twice", move |ctx: &mut dyn KernelOps| {
            ctx.load(flag, 8);
            ctx.spin(1_000_000);
            if dcci {
                ctx.dcci(flag, false, 2);
            }
            let v = ctx.load(flag, 8);
            ctx.store(flag, 8, v + 100);
            ctx.dcci(flag, false, 2);
        });
        sim.submit(s1, kernel(k, 1)).unwrap();
        sim.submit(s2, kernel(delay(50_000), 1)).unwrap();
        sim.submit(
            s2,
            Task::ValueWrite {
                addr: flag,
                value: 7,
            },
        )
        .unwrap();
        sim.synchronize_stream(s1, None).unwrap();
        sim.synchronize_stream(s2, None).unwrap();
        if dcci {
            assert!(hazard_kinds(&sim).is_empty(), "{:#?}", sim.report().hazards);
            assert_eq!(read_u64(&sim, flag), 107);
        } else {
            assert_eq!(hazard_kinds(&sim), ["dcache_stale_read"]);
            assert_eq!(read_u64(&sim, flag), 100, "the stale 0 was read");
        }
    }
}

#[test]
fn two_cores_writing_words_of_one_line_clobber_each_other_on_write_back() {
    for stride in [8u64, 64] {
        let sim = sim();
        let a = sim.malloc(0, 128).unwrap();
        sim.fill(a, 0, 128).unwrap();
        let st = sim.create_stream(0, 0, false).unwrap();
        let k = Kernel::new("two words", move |ctx: &mut dyn KernelOps| {
            let b = u64::from(ctx.block_idx());
            let at = a + b * stride;
            ctx.store(at, 8, b + 1);
            // Block 1 writes back later than block 0.
            ctx.spin(1000 * (b + 1));
            ctx.dcci(at, false, 2);
        });
        sim.submit(st, kernel(k, 2)).unwrap();
        sim.synchronize_stream(st, None).unwrap();
        let (w0, w1) = (read_u64(&sim, a), read_u64(&sim, a + stride));
        if stride == 8 {
            // Core 1's fill also read the line while core 0's store sat dirty in its cache.
            assert!(
                hazard_kinds(&sim).contains(&"false_sharing".to_string()),
                "{:?}",
                hazard_kinds(&sim)
            );
            assert_eq!((w0, w1), (0, 2), "block 1's stale copy of word 0 won");
        } else {
            assert!(hazard_kinds(&sim).is_empty(), "{:#?}", sim.report().hazards);
            assert_eq!((w0, w1), (1, 2));
        }
    }
}

#[test]
fn a_dci_after_stores_never_written_back_drops_them() {
    for dcci_first in [false, true] {
        let sim = sim();
        let a = sim.malloc(0, 8).unwrap();
        sim.fill(a, 0, 8).unwrap();
        let st = sim.create_stream(0, 0, false).unwrap();
        let k = Kernel::new("dci", move |ctx: &mut dyn KernelOps| {
            ctx.store(a, 8, 9);
            if dcci_first {
                ctx.dcci(a, true, 0);
            }
            ctx.dci();
        });
        sim.submit(st, kernel(k, 1)).unwrap();
        sim.synchronize_stream(st, None).unwrap();
        if dcci_first {
            assert!(hazard_kinds(&sim).is_empty());
            assert_eq!(read_u64(&sim, a), 9);
        } else {
            assert_eq!(hazard_kinds(&sim), ["dropped_store"]);
            assert_eq!(read_u64(&sim, a), 0);
        }
    }
}

#[test]
fn on_the_950_the_kernel_tail_drops_scalar_stores_without_a_dcci() {
    for dcci in [false, true] {
        let sim = sim_on("Ascend950PR_9599");
        let a = sim.malloc(0, 8).unwrap();
        sim.fill(a, 0, 8).unwrap();
        let st = sim.create_stream(0, 0, false).unwrap();
        let k = Kernel::new("scalar out", move |ctx: &mut dyn KernelOps| {
            ctx.store(a, 8, 42);
            if dcci {
                ctx.dcci(a, true, 2);
            }
        });
        sim.submit(st, kernel(k, 1)).unwrap();
        sim.synchronize_stream(st, None).unwrap();
        if dcci {
            assert!(hazard_kinds(&sim).is_empty());
            assert_eq!(read_u64(&sim, a), 42);
        } else {
            assert_eq!(hazard_kinds(&sim), ["dropped_store"]);
            let h = &sim.report().hazards[0];
            assert!(h.detail.contains("tail"), "{}", h.detail);
            assert_eq!(read_u64(&sim, a), 0);
        }
    }
    // On the A2 the kernel's end writes the store back.
    let sim = sim();
    let a = sim.malloc(0, 8).unwrap();
    let st = sim.create_stream(0, 0, false).unwrap();
    let k = Kernel::new("scalar out", move |ctx: &mut dyn KernelOps| {
        ctx.store(a, 8, 42)
    });
    sim.submit(st, kernel(k, 1)).unwrap();
    sim.synchronize_stream(st, None).unwrap();
    assert_eq!(read_u64(&sim, a), 42);
}

fn strict_sim() -> Sim {
    sim_with(|c| {
        c.on_stall = OnStall::Error;
        c.watchdog_grace = Duration::from_millis(200);
    })
}

#[test]
fn a_wait_blocked_by_a_store_the_950_kernel_tail_dropped_is_diagnosed_naming_the_missing_dcci() {
    let mut config = SimConfig::default();
    strict(&mut config);
    let sim = Sim::new(ChipProfile::builtin("Ascend950PR_9599").unwrap(), config);
    let (s1, _s2, _) = guide_example(&sim, false, true);
    let err = sim.synchronize_stream(s1, None).unwrap_err();
    let text = err.to_string();
    for part in ["tail", "dropped", "0x1", "dcci", "value wait"] {
        assert!(text.contains(part), "{part:?} in {text}");
    }
}

#[test]
fn a_wait_on_a_flag_a_running_kernel_keeps_in_its_data_cache_is_diagnosed() {
    let sim = strict_sim();
    let (flag, s1, s2) = flag_waited_for_one(&sim, 128);
    // Stores the flag without a dcci, then waits for the released stream's answer forever.
    let answer = flag + 64;
    let k = Kernel::new("signal then wait", move |ctx: &mut dyn KernelOps| {
        ctx.store(flag, 8, 1);
        loop {
            ctx.dcci(answer, false, 2);
            if ctx.load(answer, 8) == 1 {
                break;
            }
            ctx.spin(100);
        }
    });
    sim.submit(s2, kernel(k, 1)).unwrap();
    sim.submit(
        s1,
        Task::ValueWrite {
            addr: answer,
            value: 1,
        },
    )
    .unwrap();
    let err = sim.synchronize_stream(s1, None).unwrap_err();
    let text = err.to_string();
    for part in [
        "holds a store of 0x1",
        "never written back",
        "dcci",
        "signal then wait",
    ] {
        assert!(text.contains(part), "{part:?} in {text}");
    }
    assert!(hazard_kinds(&sim).contains(&"invisible_write".to_string()));
}

#[test]
fn a_kernel_polling_a_stale_cached_line_is_diagnosed_naming_the_missing_dcci() {
    let sim = strict_sim();
    let (s1, s2, _) = guide_example(&sim, true, false);
    sim.synchronize_stream(s2, None).unwrap();
    let err = sim.synchronize_stream(s1, None).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("myKernel2"), "{text}");
    assert!(text.contains("stale") && text.contains("dcci"), "{text}");
}

#[test]
fn a_kernel_fault_is_classed_by_the_core_type_of_its_task() {
    let trap = || Kernel::new("trap", |ctx: &mut dyn KernelOps| ctx.trap("on purpose"));
    let cases = [
        ("Ascend910B1", trap(), CoreType::Vector),
        ("Ascend910B1", trap().on(CoreType::AiCore), CoreType::AiCore),
        // No separate vector cores: every kernel is an AI-core task.
        ("Ascend910A", trap(), CoreType::AiCore),
    ];
    for (soc, k, want) in cases {
        let sim = sim_on(soc);
        let s = sim.create_stream(0, 0, false).unwrap();
        sim.submit(s, kernel(k, 2)).unwrap();
        let r = sim.synchronize_stream(s, None);
        assert!(
            matches!(&r, Err(SimError::KernelFault { core, message })
                if *core == want && message.contains("trapped")),
            "{soc}: {r:?}"
        );
        let faults = sim.take_task_faults();
        assert_eq!(faults.len(), 1, "{soc}");
        assert_eq!(faults[0].class, FaultClass::Kernel(want), "{soc}");
    }
    // A kernel that cannot start is a task fault, not a core's.
    let sim = sim_on("Ascend910B1");
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(s, kernel(trap(), 0)).unwrap();
    assert!(matches!(
        sim.synchronize_stream(s, None),
        Err(SimError::TaskFault(_))
    ));
}

/// Recurses `n` deep with a 1 KiB frame each (not turned into a loop).
fn deep_recursion(n: u64) -> u64 {
    let frame = std::hint::black_box([n; 128]);
    if n == 0 {
        return 0;
    }
    deep_recursion(n - 1).wrapping_add(frame[5])
}

#[test]
fn a_kernel_block_that_overflows_its_stack_faults_with_a_message_and_the_process_goes_on() {
    if !ascend_sim_stack_guard::SUPPORTED {
        eprintln!("SKIPPED: stack overflows are caught only on Linux x86-64 and AArch64");
        return;
    }
    let config = SimConfig {
        kernel_stack_bytes: 128 * 1024,
        ..SimConfig::default()
    };
    let sim = Sim::new(ChipProfile::builtin("Ascend910B1").unwrap(), config);
    let flag = sim.malloc(0, 256).unwrap();
    sim.fill(flag, 0, 256).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    // Each block stores into its own line; block 0 then recurses far past its stack.
    let k = Kernel::new("deep", move |ctx: &mut dyn KernelOps| {
        let i = u64::from(ctx.block_idx());
        ctx.store(flag + 64 * i, 8, 7);
        ctx.dcci(flag + 64 * i, SINGLE_LINE, CACHELINE_OUT);
        if i == 0 {
            let depth = std::hint::black_box(1_000_000);
            ctx.store(flag + 128, 8, deep_recursion(depth));
        }
    });
    for round in 0..3 {
        sim.submit(s, kernel(k.clone(), 2)).unwrap();
        let r = sim.synchronize_stream(s, None);
        assert!(
            matches!(&r, Err(SimError::KernelFault { message, .. })
                if message.contains("overflowed its stack of 131072 bytes")
                    && message.contains("ASCEND_SIM_KERNEL_STACK")),
            "round {round}: {r:?}"
        );
        // Both blocks' stores before the overflow landed; the one after it never ran.
        assert_eq!(read_word(&sim, flag), 7, "round {round}");
        assert_eq!(read_word(&sim, flag + 64), 7, "round {round}");
        assert_eq!(read_word(&sim, flag + 128), 0, "round {round}");
        // The simulator goes on: a kernel that stays within its stack completes.
        let ok = Kernel::new("shallow", move |ctx: &mut dyn KernelOps| {
            ctx.store(flag + 192, 8, deep_recursion(20));
            ctx.dcci(flag + 192, SINGLE_LINE, CACHELINE_OUT);
        });
        sim.submit(s, kernel(ok, 1)).unwrap();
        sim.synchronize_stream(s, None)
            .expect("a kernel within its stack runs after an overflow");
        assert_eq!(read_word(&sim, flag + 192), 210, "round {round}");
    }
}

fn read_word(sim: &Sim, addr: u64) -> u64 {
    let mut b = [0u8; 8];
    sim.read(addr, &mut b).unwrap();
    u64::from_le_bytes(b)
}

/// Block 0 stores a flag and writes it back with a dcci `delay_cycles` later (or never, at
/// the kernel's end); block 1 polls it. The hazards, and what block 1 saw.
fn block_flag_handoff(delay_cycles: u64, dcci: bool) -> (Vec<String>, u64) {
    let sim = sim();
    let flag = sim.malloc(0, 64).unwrap();
    let seen = sim.malloc(0, 64).unwrap();
    sim.fill(flag, 0, 64).unwrap();
    sim.fill(seen, 0, 64).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    let k = Kernel::new("handoff", move |c: &mut dyn KernelOps| {
        if c.block_idx() == 0 {
            c.store(flag, 8, 1);
            c.spin(delay_cycles);
            if dcci {
                c.dcci(flag, false, 2);
            }
            return;
        }
        let mut v = 0;
        for _ in 0..200 {
            c.dcci(flag, false, 2);
            v = c.load(flag, 8);
            if v == 1 {
                break;
            }
        }
        c.store(seen, 8, v);
        c.dcci(seen, false, 2);
    });
    sim.submit(s, kernel(k, 2)).unwrap();
    sim.synchronize_stream(s, None).unwrap();
    (hazard_kinds(&sim), read_u64(&sim, seen))
}

#[test]
fn a_block_polling_a_flag_just_before_its_writers_dcci_sees_no_invisible_write() {
    // The poll reads memory while the store sits in the writer's cache for 1 µs, less than a
    // polling pass: the dcci was on its way.
    let (hazards, seen) = block_flag_handoff(1_850, true);
    assert_eq!(seen, 1, "the poll saw the flag once written back");
    assert!(hazards.is_empty(), "{hazards:?}");
}

#[test]
fn a_block_polling_a_flag_its_writer_never_writes_back_sees_an_invisible_write() {
    let (hazards, seen) = block_flag_handoff(400_000, false);
    assert_eq!(seen, 0, "the store reaches memory only at the kernel's end");
    assert!(
        hazards.contains(&"invisible_write".to_string()),
        "{hazards:?}"
    );
}

#[test]
fn a_read_of_a_store_whose_writer_ends_without_a_dcci_soon_after_is_an_invisible_write() {
    // Block 0 stores data and ends well within a polling pass, never writing it back but at
    // its kernel's end; block 1 reads it once in between: it read memory without the store.
    let sim = sim();
    let data = sim.malloc(0, 64).unwrap();
    let seen = sim.malloc(0, 64).unwrap();
    sim.fill(data, 0, 64).unwrap();
    sim.fill(seen, 0, 64).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    let k = Kernel::new("short_writer", move |c: &mut dyn KernelOps| {
        if c.block_idx() == 0 {
            c.store(data, 8, 5);
            c.spin(1_500);
            return;
        }
        c.spin(300);
        c.dcci(data, false, 2);
        let v = c.load(data, 8);
        c.store(seen, 8, v);
        c.dcci(seen, false, 2);
    });
    sim.submit(s, kernel(k, 2)).unwrap();
    sim.synchronize_stream(s, None).unwrap();
    assert_eq!(
        read_u64(&sim, seen),
        0,
        "the read came before the kernel's end"
    );
    let hazards = hazard_kinds(&sim);
    assert!(
        hazards.contains(&"invisible_write".to_string()),
        "{hazards:?}"
    );
}

#[test]
fn a_value_wait_released_by_a_kernel_that_has_ended_names_the_kernel() {
    let sim = sim();
    let flag = sim.malloc(0, 64).unwrap();
    sim.fill(flag, 0, 64).unwrap();
    let (s1, s2) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    let k = Kernel::new("raise_flag", move |c: &mut dyn KernelOps| {
        c.store(flag, 8, 1);
        c.dcci(flag, false, 2);
    });
    sim.submit(s1, kernel(k, 1)).unwrap();
    sim.synchronize_stream(s1, None).unwrap();
    sim.submit(
        s2,
        Task::ValueWait {
            addr: flag,
            value: 1,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    sim.synchronize_stream(s2, None).unwrap();
    let r = sim.report();
    let by = r.value_waits[0].released_by.as_ref().unwrap().to_string();
    assert!(by.contains("kernel raise_flag"), "{by}");
}

#[test]
fn the_published_progress_goes_on_while_a_kernel_spins() {
    let sim = sim();
    let progress = sim.progress();
    let s = sim.create_stream(0, 0, false).unwrap();
    let spin = Kernel::new("spin", |c: &mut dyn KernelOps| {
        for _ in 0..500_000 {
            c.spin(1_000);
        }
    });
    sim.submit(s, kernel(spin, 1)).unwrap();
    let watcher = {
        let progress = progress.clone();
        std::thread::spawn(move || {
            let deadline = std::time::Instant::now() + Duration::from_secs(20);
            while std::time::Instant::now() < deadline {
                if progress.tasks() == 0 && progress.now_ns() > 0 {
                    return true;
                }
                if progress.tasks() > 0 {
                    return false;
                }
                std::thread::yield_now();
            }
            false
        })
    };
    sim.synchronize_stream(s, None).unwrap();
    assert!(
        watcher.join().unwrap(),
        "the simulated time was published before the kernel completed"
    );
}
