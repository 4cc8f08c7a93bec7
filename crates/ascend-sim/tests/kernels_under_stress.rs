//! Simulator kernels driven as a demanding user would: many host threads and streams, blocks
//! beyond the core count, streams destroyed and simulators dropped while blocks spin, memory
//! freed under a kernel, wrong pointers, kernel bodies that call back into the simulator or
//! block in host code, determinism, launch latency per kernel, the data cache's promises
//! (whole-line write-back, LRU eviction beyond capacity) and no hazards for correct programs.
//!
//! Every test that could hang guards its wall time: a hang fails the test instead of hanging
//! the run.

mod common;

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use ascend_chips::ChipProfile;
use ascend_sim::*;
use common::*;

const LINE: u64 = 64;

fn sim_on(soc: &str) -> Sim {
    Sim::new(ChipProfile::builtin(soc).unwrap(), SimConfig::default())
}

/// Runs `f` on a thread of its own; fails (instead of hanging) when it has not answered within
/// `secs` of wall time. A hung thread is left behind (the test process ends anyway).
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = catch_unwind(AssertUnwindSafe(f));
        let _ = tx.send(r);
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(Ok(v)) => v,
        Ok(Err(p)) => resume_unwind(p),
        Err(_) => panic!("{what}: no answer within {secs} s of wall time (a hang)"),
    }
}

/// Waits (wall time) until `f` holds.
fn eventually(secs: u64, what: &str, f: impl Fn() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < Duration::from_secs(secs), "{what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Counts the kernel bodies alive (started and not yet unwound or returned).
struct Alive(Arc<AtomicUsize>);

impl Alive {
    fn new(n: &Arc<AtomicUsize>) -> Alive {
        n.fetch_add(1, Ordering::SeqCst);
        Alive(n.clone())
    }
}

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A kernel whose blocks poll `flag` (with a dcci before each load) until it reads 1.
fn poller(flag: u64, alive: &Arc<AtomicUsize>) -> Kernel {
    let alive = alive.clone();
    Kernel::new("poller", move |ctx: &mut dyn KernelOps| {
        let _a = Alive::new(&alive);
        loop {
            ctx.dcci(flag, false, 2);
            if ctx.load(flag, 8) == 1 {
                break;
            }
            ctx.spin(100);
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Concurrency: many host threads, many streams, blocks beyond the core count.
// ---------------------------------------------------------------------------------------------

#[test]
fn many_host_threads_launch_multi_block_kernels_on_their_own_streams() {
    within(300, "12 host threads launching kernels", || {
        let sim = Arc::new(sim());
        let cores = sim.chip().cache.aic_cores;
        let blocks = cores * 2 + 3;
        const THREADS: u64 = 12;
        const KERNELS: u64 = 3;
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let sim = sim.clone();
                std::thread::spawn(move || {
                    let out = sim.malloc(0, KERNELS * u64::from(blocks) * LINE).unwrap();
                    let st = sim.create_stream(0, 0, false).unwrap();
                    for k in 0..KERNELS {
                        let body = move |ctx: &mut dyn KernelOps| {
                            let b = u64::from(ctx.block_idx());
                            let at = out + (k * u64::from(ctx.block_num()) + b) * LINE;
                            ctx.store(at, 8, (t << 32) | (k << 16) | b);
                            ctx.spin(10 * (b % 7));
                            ctx.dcci(at, false, 2);
                        };
                        sim.submit(st, kernel(Kernel::new(format!("t{t}k{k}"), body), blocks))
                            .unwrap();
                    }
                    sim.synchronize_stream(st, None).unwrap();
                    for k in 0..KERNELS {
                        for b in 0..u64::from(blocks) {
                            let at = out + (k * u64::from(blocks) + b) * LINE;
                            assert_eq!(read_u64(&sim, at), (t << 32) | (k << 16) | b);
                        }
                    }
                    sim.destroy_stream(st, false).unwrap();
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let r = sim.report();
        assert_eq!(
            r.kernel_blocks.len() as u64,
            THREADS * KERNELS * u64::from(blocks)
        );
        assert!(r.hazards.is_empty(), "{:#?}", r.hazards);
        assert!(r.kernel_blocks.iter().all(|b| b.fault.is_none()));
    });
}

#[test]
fn a_host_thread_releases_a_kernel_another_host_thread_waits_for() {
    // Thread A synchronizes a kernel that polls a flag; thread B writes the flag later. The
    // watchdog (1 s grace, error) must not fire while B takes 200 ms to come.
    within(60, "a poll released by another host thread", || {
        let sim = Arc::new(sim_with(|c| {
            c.on_stall = OnStall::Error;
            c.watchdog_grace = Duration::from_secs(2);
        }));
        let flag = sim.malloc(0, 8).unwrap();
        sim.fill(flag, 0, 8).unwrap();
        let alive = Arc::new(AtomicUsize::new(0));
        let st = sim.create_stream(0, 0, false).unwrap();
        sim.submit(st, kernel(poller(flag, &alive), 4)).unwrap();
        let b = {
            let sim = sim.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                let t = Instant::now();
                write_u64(&sim, flag, 1);
                t.elapsed()
            })
        };
        let t = Instant::now();
        sim.synchronize_stream(st, None).unwrap();
        let write_took = b.join().unwrap();
        assert!(t.elapsed() >= Duration::from_millis(200));
        // The writer gets the lock within the watchdog's grace, however loaded the machine
        // (the driving thread lets other host threads in between steps).
        assert!(
            write_took < Duration::from_secs(2),
            "the host write waited {write_took:?} for the lock"
        );
        assert_eq!(alive.load(Ordering::SeqCst), 0);
    });
}

// ---------------------------------------------------------------------------------------------
// Determinism.
// ---------------------------------------------------------------------------------------------

/// A program of four streams with multi-block kernels in waves, a value wait released by a
/// kernel, a false-sharing pair (a hazard) and local copies.
fn mixed_program() -> RunReport {
    let sim = sim();
    let cores = sim.chip().cache.aic_cores;
    let buf = sim.malloc(0, 64 * 1024).unwrap();
    sim.fill(buf, 0, 64 * 1024).unwrap();
    let flag = sim.malloc(0, 64).unwrap();
    sim.fill(flag, 0, 64).unwrap();
    let s: Vec<StreamId> = (0..4)
        .map(|_| sim.create_stream(0, 0, false).unwrap())
        .collect();
    sim.submit(
        s[0],
        Task::ValueWait {
            addr: flag,
            value: 1,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    for (i, &st) in s.iter().enumerate() {
        let i = i as u64;
        let body = move |ctx: &mut dyn KernelOps| {
            let b = u64::from(ctx.block_idx());
            let at = buf + (i * 128 + b) * LINE;
            let v = ctx.load(at, 8);
            ctx.store(at, 8, v + b + i);
            ctx.spin(37 * (b % 5) + i);
            if b % 3 == 0 {
                ctx.dcci(at, false, 2);
            }
        };
        sim.submit(st, kernel(Kernel::new(format!("wave{i}"), body), cores + 7))
            .unwrap();
    }
    // Two blocks writing words of one line: false sharing.
    let fs = buf + 60 * 1024;
    let body = move |ctx: &mut dyn KernelOps| {
        let b = u64::from(ctx.block_idx());
        ctx.store(fs + b * 8, 8, b + 1);
        ctx.spin(500 * (b + 1));
        ctx.dcci(fs + b * 8, false, 2);
    };
    sim.submit(s[1], kernel(Kernel::new("false sharing", body), 2))
        .unwrap();
    let body = move |ctx: &mut dyn KernelOps| {
        ctx.spin(20_000);
        ctx.store(flag, 8, 1);
        ctx.dcci(flag, false, 2);
        let mut local = vec![0u8; 256];
        ctx.copy_gm_to_local(&mut local, buf);
        ctx.copy_local_to_gm(buf + 32 * 1024, &local);
    };
    sim.submit(s[2], kernel(Kernel::new("signal", body), 1))
        .unwrap();
    sim.submit(
        s[0],
        kernel(poller(flag, &Arc::new(AtomicUsize::new(0))), 3),
    )
    .unwrap();
    for &st in &s {
        sim.synchronize_stream(st, None).unwrap();
    }
    sim.report()
}

#[test]
fn the_same_multi_stream_program_twice_gives_identical_reports() {
    within(120, "determinism", || {
        let first = mixed_program();
        assert!(
            !first.hazards.is_empty(),
            "the program has a false-sharing pair"
        );
        for _ in 0..2 {
            let again = mixed_program();
            assert_eq!(again.timeline, first.timeline);
            assert_eq!(again.kernel_blocks, first.kernel_blocks);
            assert_eq!(again.hazards, first.hazards);
            assert_eq!(again.value_waits, first.value_waits);
            assert_eq!(again.end_ns, first.end_ns);
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Teardown while blocks run.
// ---------------------------------------------------------------------------------------------

#[test]
fn dropping_the_sim_while_blocks_poll_ends_every_block_thread() {
    let alive = Arc::new(AtomicUsize::new(0));
    let a2 = alive.clone();
    within(60, "dropping a sim mid-poll", move || {
        let sim = sim();
        let cores = sim.chip().cache.aic_cores;
        let flag = sim.malloc(0, 8).unwrap();
        sim.fill(flag, 0, 8).unwrap();
        let st = sim.create_stream(0, 0, false).unwrap();
        sim.submit(st, kernel(poller(flag, &a2), cores + 5))
            .unwrap();
        assert_eq!(
            sim.synchronize_stream(st, Some(1))
                .err()
                .and_then(|e| e.timeout_ms()),
            Some(1)
        );
        assert_eq!(
            a2.load(Ordering::SeqCst),
            cores as usize,
            "a wave is running"
        );
        drop(sim);
    });
    eventually(
        10,
        "every block thread unwinds once the sim is gone",
        || alive.load(Ordering::SeqCst) == 0,
    );
}

#[test]
fn force_destroying_a_stream_while_its_blocks_poll_frees_the_cores() {
    within(60, "force destroy mid-poll", || {
        let sim = sim();
        let cores = sim.chip().cache.aic_cores;
        let flag = sim.malloc(0, 8).unwrap();
        sim.fill(flag, 0, 8).unwrap();
        let alive = Arc::new(AtomicUsize::new(0));
        let s1 = sim.create_stream(0, 0, false).unwrap();
        let s2 = sim.create_stream(0, 0, false).unwrap();
        sim.submit(s1, kernel(poller(flag, &alive), cores * 3))
            .unwrap();
        // A second task behind the kernel goes too.
        sim.submit(
            s1,
            Task::ValueWrite {
                addr: flag,
                value: 7,
            },
        )
        .unwrap();
        // Another stream's kernel waits for cores behind the poller.
        let out = sim.malloc(0, u64::from(cores) * LINE).unwrap();
        let body = move |ctx: &mut dyn KernelOps| {
            let at = out + u64::from(ctx.block_idx()) * LINE;
            ctx.store(at, 8, 0xAB);
            ctx.dcci(at, false, 2);
        };
        sim.submit(s2, kernel(Kernel::new("after", body), cores))
            .unwrap();
        assert_eq!(
            sim.synchronize_stream(s2, Some(1))
                .err()
                .and_then(|e| e.timeout_ms()),
            Some(1)
        );
        assert_eq!(alive.load(Ordering::SeqCst), cores as usize);
        sim.destroy_stream(s1, true).unwrap();
        eventually(10, "the destroyed stream's blocks unwind", || {
            alive.load(Ordering::SeqCst) == 0
        });
        sim.synchronize_stream(s2, Some(1000)).unwrap();
        for b in 0..u64::from(cores) {
            assert_eq!(read_u64(&sim, out + b * LINE), 0xAB);
        }
        assert_eq!(
            read_u64(&sim, flag),
            0,
            "the destroyed stream's value write never ran"
        );
        assert!(
            sim.synchronize_stream(s1, None).is_err(),
            "the stream is gone"
        );
    });
}

#[test]
fn a_force_destroyed_kernels_stores_do_not_leak_into_the_next_kernel() {
    within(60, "destroyed kernel's dirty lines", || {
        let sim = sim();
        let a = sim.malloc(0, 64).unwrap();
        sim.fill(a, 0, 64).unwrap();
        let s1 = sim.create_stream(0, 0, false).unwrap();
        let victim = Kernel::new("victim", move |ctx: &mut dyn KernelOps| {
            ctx.store(a, 8, 0x77);
            loop {
                ctx.spin(1000);
            }
        });
        sim.submit(s1, kernel(victim, 1)).unwrap();
        assert_eq!(
            sim.synchronize_stream(s1, Some(1))
                .err()
                .and_then(|e| e.timeout_ms()),
            Some(1)
        );
        sim.destroy_stream(s1, true).unwrap();
        // The host writes the word after the kernel is gone.
        write_u64(&sim, a, 5);
        let seen = Arc::new(AtomicU64::new(u64::MAX));
        let seen2 = seen.clone();
        let next = Kernel::new("next", move |ctx: &mut dyn KernelOps| {
            seen2.store(ctx.load(a, 8), Ordering::SeqCst);
        });
        let s2 = sim.create_stream(0, 0, false).unwrap();
        sim.submit(s2, kernel(next, 1)).unwrap();
        sim.synchronize_stream(s2, None).unwrap();
        assert_eq!(
            seen.load(Ordering::SeqCst),
            5,
            "the next kernel (same core) loads the destroyed kernel's store, not memory"
        );
        assert_eq!(
            read_u64(&sim, a),
            5,
            "the next kernel's end wrote the destroyed kernel's store over the host's write"
        );
    });
}

#[test]
fn a_faulted_kernels_stopped_blocks_do_not_leak_stores_into_the_next_kernel() {
    within(60, "faulted kernel's dirty lines", || {
        let sim = sim();
        let a = sim.malloc(0, 64).unwrap();
        sim.fill(a, 0, 64).unwrap();
        let bad = sim.device_window().start + (1 << 30);
        let st = sim.create_stream(0, 0, false).unwrap();
        let faulty = Kernel::new("faulty", move |ctx: &mut dyn KernelOps| {
            if ctx.block_idx() == 1 {
                ctx.store(a, 8, 0x77);
                loop {
                    ctx.spin(1000);
                }
            }
            ctx.spin(100_000);
            ctx.load(bad, 8);
        });
        sim.submit(st, kernel(faulty, 2)).unwrap();
        assert!(sim.synchronize_stream(st, None).is_err());
        write_u64(&sim, a, 5);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let seen2 = seen.clone();
        let next = Kernel::new("next", move |ctx: &mut dyn KernelOps| {
            let v = ctx.load(a, 8);
            seen2.lock().unwrap().push((ctx.block_idx(), v));
        });
        sim.submit(st, kernel(next, 2)).unwrap();
        sim.synchronize_stream(st, None).unwrap();
        let mut seen = seen.lock().unwrap().clone();
        seen.sort();
        assert_eq!(
            seen,
            [(0, 5), (1, 5)],
            "block 1 runs on the stopped block's core"
        );
        assert_eq!(read_u64(&sim, a), 5, "the stopped block's store came back");
    });
}

// ---------------------------------------------------------------------------------------------
// Wrong pointers, sizes, panics.
// ---------------------------------------------------------------------------------------------

#[test]
fn wrong_pointers_and_sizes_fault_the_task_and_the_stream_goes_on() {
    within(120, "wrong pointers", || {
        let sim = sim();
        let a = sim.malloc(0, 64).unwrap();
        sim.fill(a, 0, 64).unwrap();
        let freed = sim.malloc(0, 64).unwrap();
        sim.free(0, freed).unwrap();
        let wild = sim.device_window().start + (1 << 34);
        let st = sim.create_stream(0, 0, false).unwrap();
        type Body = Box<dyn Fn(&mut dyn KernelOps) + Send + Sync>;
        let cases: Vec<(&str, Body, Option<&str>)> = vec![
            (
                "load freed",
                Box::new(move |c| {
                    let _ = c.load(freed, 8);
                }),
                Some("freed"),
            ),
            (
                "store freed",
                Box::new(move |c| c.store(freed, 4, 1)),
                Some("freed"),
            ),
            (
                "load wild",
                Box::new(move |c| {
                    let _ = c.load(wild, 8);
                }),
                Some("not allocated"),
            ),
            (
                "load null",
                Box::new(|c| {
                    let _ = c.load(0, 8);
                }),
                Some("0x0"),
            ),
            (
                "load top",
                Box::new(|c| {
                    let _ = c.load(u64::MAX - 7, 8);
                }),
                Some("device"),
            ),
            (
                "load 0 bytes",
                Box::new(move |c| {
                    let _ = c.load(a, 0);
                }),
                Some("1, 2, 4 or 8"),
            ),
            (
                "load 3 bytes",
                Box::new(move |c| {
                    let _ = c.load(a, 3);
                }),
                Some("1, 2, 4 or 8"),
            ),
            (
                "store 16 bytes",
                Box::new(move |c| c.store(a, 16, 1)),
                Some("1, 2, 4 or 8"),
            ),
            (
                "misaligned",
                Box::new(move |c| {
                    let _ = c.load(a + 2, 4);
                }),
                Some("not aligned"),
            ),
            (
                "past the end",
                Box::new(move |c| {
                    let _ = c.load(a + 64, 8);
                }),
                Some(""),
            ),
            ("last word", Box::new(move |c| c.store(a + 56, 8, 9)), None),
            (
                "dcci wild",
                Box::new(move |c| c.dcci(wild, false, 2)),
                Some("dcci"),
            ),
            (
                "dcci freed",
                Box::new(move |c| c.dcci(freed, false, 2)),
                Some("freed"),
            ),
            (
                "dcci all, any addr",
                Box::new(move |c| c.dcci(wild, true, 0)),
                None,
            ),
            (
                "copy in, zero bytes",
                Box::new(move |c| c.copy_gm_to_local(&mut [], a)),
                None,
            ),
            (
                "copy in, zero bytes at a wild address",
                Box::new(move |c| c.copy_gm_to_local(&mut [], wild)),
                Some(""),
            ),
            (
                "copy in, 64 MiB from 64 B",
                Box::new(move |c| c.copy_gm_to_local(&mut vec![0u8; 64 << 20], a)),
                Some("crosses end"),
            ),
            (
                "copy out past the end",
                Box::new(move |c| c.copy_local_to_gm(a + 32, &[1u8; 64])),
                Some("crosses end"),
            ),
            (
                "copy out to freed",
                Box::new(move |c| c.copy_local_to_gm(freed, &[1u8; 8])),
                Some("freed"),
            ),
            (
                "panic",
                Box::new(|_| panic!("kernel bug 42")),
                Some("kernel bug 42"),
            ),
            (
                "panic with a non-string payload",
                Box::new(|_| std::panic::panic_any(17u32)),
                Some("panic"),
            ),
            // Last: it moves the clock some 10^16 ns on.
            ("spin u64::MAX", Box::new(|c| c.spin(u64::MAX / 4096)), None),
        ];
        for (name, body, fault) in cases {
            let k = Kernel::new(name, move |c: &mut dyn KernelOps| body(c));
            sim.submit(st, kernel(k, 2)).unwrap();
            let r = sim.synchronize_stream(st, None);
            match (fault, r) {
                (None, Ok(())) => {}
                (Some(part), Err(e)) => {
                    let text = e.to_string();
                    assert!(text.contains(name), "{name}: {text}");
                    assert!(text.contains(part), "{name}: {part:?} in {text}");
                }
                (want, got) => panic!("{name}: wanted a fault {want:?}, got {got:?}"),
            }
        }
        // The stream goes on, and memory holds what the good kernels stored.
        sim.submit(st, Task::ValueWrite { addr: a, value: 3 })
            .unwrap();
        sim.synchronize_stream(st, None).unwrap();
        assert_eq!(read_u64(&sim, a), 3);
        assert_eq!(read_u64(&sim, a + 56), 9);
        let r = sim.report();
        assert!(r.kernel_blocks.iter().any(|b| b.fault.is_some()));
    });
}

#[test]
fn a_kernel_of_zero_blocks_faults_its_task() {
    let sim = sim();
    let st = sim.create_stream(0, 0, false).unwrap();
    let k = Kernel::new("none", |_: &mut dyn KernelOps| unreachable!());
    sim.submit(st, kernel(k, 0)).unwrap();
    let err = sim.synchronize_stream(st, None).unwrap_err().to_string();
    assert!(err.contains("at least one block"), "{err}");
}

#[test]
fn freed_memory_is_not_resurrected_by_a_late_data_cache_write_back() {
    within(60, "free under a dirty line", || {
        let sim = sim();
        let a = sim.malloc(0, 64).unwrap();
        sim.fill(a, 0, 64).unwrap();
        let st = sim.create_stream(0, 0, false).unwrap();
        let k = Kernel::new("late", move |ctx: &mut dyn KernelOps| {
            ctx.store(a, 8, 0xDEAD_BEEF);
            ctx.spin(10_000_000);
        });
        sim.submit(st, kernel(k, 1)).unwrap();
        // The store is made (dirty in core 0's cache); the block spins.
        sim.charge_host(200_000);
        sim.free(0, a).unwrap();
        sim.synchronize_stream(st, None).unwrap();
        let b = sim.malloc(0, 64).unwrap();
        assert_eq!(b, a, "first fit gives the same address back");
        let poison = u64::from_le_bytes([sim.config().poison_byte; 8]);
        assert_eq!(
            read_u64(&sim, b),
            poison,
            "a fresh allocation is poison (malloc's promise); the freed kernel's store came back"
        );
    });
}

#[test]
fn a_kernel_calling_back_into_the_sim_is_diagnosed_not_a_deadlock() {
    let sim = Arc::new(sim_with(strict));
    let inner = Arc::downgrade(&sim);
    let st = sim.create_stream(0, 0, false).unwrap();
    let k = Kernel::new("reentrant", move |ctx: &mut dyn KernelOps| {
        if let Some(s) = inner.upgrade() {
            let _ = s.now_ns();
        }
        ctx.spin(1);
    });
    sim.submit(st, kernel(k, 1)).unwrap();
    let s2 = sim.clone();
    let r = within(10, "a kernel calling sim.now_ns()", move || {
        s2.synchronize_stream(st, None)
    });
    assert!(r.is_err(), "re-entry should be reported as a fault");
}

#[test]
fn a_kernel_blocked_in_host_code_is_diagnosed_by_the_watchdog() {
    let sim = Arc::new(sim_with(strict));
    let (tx, rx) = mpsc::channel::<()>();
    let rx = Mutex::new(rx);
    let st = sim.create_stream(0, 0, false).unwrap();
    let k = Kernel::new("blocked", move |ctx: &mut dyn KernelOps| {
        // Waits for the host (at most 20 s), then returns.
        let _ = rx.lock().unwrap().recv_timeout(Duration::from_secs(20));
        ctx.spin(1);
    });
    sim.submit(st, kernel(k, 1)).unwrap();
    let s2 = sim.clone();
    let waiter = std::thread::spawn(move || s2.synchronize_stream(st, None));
    std::thread::sleep(Duration::from_millis(300));
    // Another host thread cannot even read the clock meanwhile.
    let s3 = sim.clone();
    let clock = std::thread::spawn(move || {
        let t = Instant::now();
        s3.now_ns();
        t.elapsed()
    });
    let t = Instant::now();
    while !waiter.is_finished() && t.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let finished = waiter.is_finished();
    drop(tx); // release the kernel so that nothing stays hung
    let r = waiter.join().unwrap();
    let clock_took = clock.join().unwrap();
    assert!(
        finished,
        "the synchronize neither finished nor was stalled by the watchdog within 3 s \
         (grace 100 ms); it returned {r:?} only once the kernel was released; another host \
         thread's now_ns() took {clock_took:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The watchdog and long kernels.
// ---------------------------------------------------------------------------------------------

/// A checksum over `n` words: loads only, one store at the end.
fn checksum(buf: u64, words: u64, out: u64) -> Kernel {
    Kernel::new("checksum", move |ctx: &mut dyn KernelOps| {
        let mut sum = 0u64;
        for i in 0..words {
            sum = sum.wrapping_add(ctx.load(buf + i * 8, 8));
        }
        ctx.store(out, 8, sum);
        ctx.dcci(out, false, 2);
    })
}

#[test]
fn the_watchdog_does_not_stall_a_finite_read_only_kernel() {
    within(120, "checksum", || {
        let sim = sim_with(|c| {
            c.on_stall = OnStall::Error;
            c.watchdog_grace = Duration::from_millis(200);
        });
        let words = 64 * 1024u64;
        let buf = sim.malloc(0, words * 8).unwrap();
        sim.fill(buf, 1, words * 8).unwrap();
        let out = sim.malloc(0, 8).unwrap();
        let st = sim.create_stream(0, 0, false).unwrap();
        sim.submit(st, kernel(checksum(buf, words, out), 1))
            .unwrap();
        let t = Instant::now();
        let r = sim.synchronize_stream(st, None);
        let wall = t.elapsed();
        assert_eq!(r, Ok(()), "after {wall:?} of wall time");
        assert_eq!(
            read_u64(&sim, out),
            words.wrapping_mul(0x0101_0101_0101_0101)
        );
    });
}

#[test]
fn a_sim_time_timeout_is_not_a_wall_time_limit_for_a_read_only_kernel() {
    within(120, "checksum with a timeout", || {
        // Default watchdog (5 s, wait); the kernel needs well under 100 ms of simulated time.
        let sim = sim_with(|c| c.on_stall = OnStall::Error);
        let words = 16 * 1024u64;
        let buf = sim.malloc(0, words * 8).unwrap();
        sim.fill(buf, 1, words * 8).unwrap();
        let out = sim.malloc(0, 8).unwrap();
        let st = sim.create_stream(0, 0, false).unwrap();
        sim.submit(st, kernel(checksum(buf, words, out), 1))
            .unwrap();
        let r = sim.synchronize_stream(st, Some(100));
        assert_eq!(r, Ok(()), "ended at {} ns simulated", sim.now_ns());
    });
}

// ---------------------------------------------------------------------------------------------
// Data-cache semantics.
// ---------------------------------------------------------------------------------------------

#[test]
fn stores_beyond_capacity_evict_the_least_recently_used_lines_whole() {
    within(120, "eviction", || {
        let sim = sim();
        let cap = sim.chip().cache.dcache_bytes / sim.chip().cache.dcache_line_bytes;
        assert_eq!(sim.chip().cache.dcache_line_bytes, LINE);
        let extra = 40;
        let lines = cap + extra;
        let buf = sim.malloc(0, lines * LINE).unwrap();
        sim.fill(buf, 0, lines * LINE).unwrap();
        let st = sim.create_stream(0, 0, false).unwrap();
        let k = Kernel::new("many lines", move |ctx: &mut dyn KernelOps| {
            for i in 0..cap {
                ctx.store(buf + i * LINE, 8, i + 1);
            }
            // Line 0 is used again: line 1 is the least recently used now.
            ctx.load(buf, 8);
            for i in cap..lines {
                ctx.store(buf + i * LINE, 8, i + 1);
            }
            ctx.spin(100_000_000);
        });
        sim.submit(st, kernel(k, 1)).unwrap();
        // The kernel's stores are done; it spins. Memory holds the evicted lines only.
        assert_eq!(
            sim.synchronize_stream(st, Some(5))
                .err()
                .and_then(|e| e.timeout_ms()),
            Some(5)
        );
        let evicted: Vec<u64> = (0..lines)
            .filter(|&i| read_u64(&sim, buf + i * LINE) == i + 1)
            .collect();
        let want: Vec<u64> = (1..=extra).collect();
        assert_eq!(
            evicted, want,
            "lines 1..={extra} evicted (line 0 was reused)"
        );
        // Whole-line write-back: an evicted line also wrote its unstored words (as cached).
        sim.synchronize_stream(st, None).unwrap();
        for i in 0..lines {
            assert_eq!(read_u64(&sim, buf + i * LINE), i + 1, "line {i}");
        }
        // The host's reads of lines still dirty in the cache are (rightly) invisible writes.
        let k = hazard_kinds(&sim);
        assert!(k.iter().all(|k| k == "invisible_write"), "{k:?}");
    });
}

#[test]
fn a_whole_line_write_back_puts_the_cached_copy_over_a_host_write() {
    let sim = sim();
    let a = sim.malloc(0, 64).unwrap();
    sim.fill(a, 0, 64).unwrap();
    let st = sim.create_stream(0, 0, false).unwrap();
    let k = Kernel::new("word 0", move |ctx: &mut dyn KernelOps| {
        ctx.store(a, 8, 1);
        ctx.spin(10_000_000);
        ctx.dcci(a, false, 2);
    });
    sim.submit(st, kernel(k, 1)).unwrap();
    sim.charge_host(100_000);
    write_u64(&sim, a + 8, 2);
    sim.synchronize_stream(st, None).unwrap();
    assert_eq!(read_u64(&sim, a), 1);
    assert_eq!(
        read_u64(&sim, a + 8),
        0,
        "the stale cached word overwrote the host's"
    );
    assert_eq!(hazard_kinds(&sim), ["false_sharing"]);
}

// ---------------------------------------------------------------------------------------------
// Hazards for correct programs (false positives).
// ---------------------------------------------------------------------------------------------

#[test]
fn correct_programs_report_no_hazards() {
    for soc in ["Ascend910B1", "Ascend950PR_9599"] {
        let sim = sim_on(soc);
        let cores = sim.chip().cache.aic_cores;
        let buf = sim.malloc(0, 64 * 1024).unwrap();
        sim.fill(buf, 3, 64 * 1024).unwrap();
        let out = sim.malloc(0, 64 * 1024).unwrap();
        sim.fill(out, 0, 64 * 1024).unwrap();
        let st = sim.create_stream(0, 0, false).unwrap();
        // Read-only blocks sharing lines.
        let k = Kernel::new("readers", move |ctx: &mut dyn KernelOps| {
            for i in 0..32 {
                ctx.load(buf + i * 8, 8);
            }
        });
        sim.submit(st, kernel(k, cores + 3)).unwrap();
        // Blocks writing their own lines, with a dcci each.
        let k = Kernel::new("writers", move |ctx: &mut dyn KernelOps| {
            let at = out + u64::from(ctx.block_idx()) * LINE;
            ctx.store(at, 8, u64::from(ctx.block_idx()) + 1);
            ctx.store(at + 8, 8, 7);
            ctx.dcci(at, false, 2);
        });
        sim.submit(st, kernel(k, cores + 3)).unwrap();
        // The next kernel reads what the previous one wrote, and its own store back.
        let k = Kernel::new("consumer", move |ctx: &mut dyn KernelOps| {
            let b = u64::from(ctx.block_idx());
            let v = ctx.load(out + b * LINE, 8);
            let at = out + 32 * 1024 + b * LINE;
            ctx.store(at, 8, v * 10);
            assert_eq!(ctx.load(at, 8), v * 10);
            ctx.dcci(at, true, 0);
        });
        sim.submit(st, kernel(k, cores + 3)).unwrap();
        sim.synchronize_stream(st, None).unwrap();
        // The host writes between kernels; the next kernel reads it fresh.
        write_u64(&sim, buf, 99);
        let seen = Arc::new(AtomicU64::new(0));
        let s2 = seen.clone();
        let k = Kernel::new("after host", move |ctx: &mut dyn KernelOps| {
            s2.store(ctx.load(buf, 8), Ordering::SeqCst);
        });
        sim.submit(st, kernel(k, 1)).unwrap();
        sim.synchronize_stream(st, None).unwrap();
        assert_eq!(seen.load(Ordering::SeqCst), 99, "{soc}");
        for b in 0..u64::from(cores + 3) {
            assert_eq!(read_u64(&sim, out + 32 * 1024 + b * LINE), (b + 1) * 10);
        }
        assert!(
            hazard_kinds(&sim).is_empty(),
            "{soc}: {:#?}",
            sim.report().hazards
        );
    }
}

#[test]
fn a_payload_next_to_a_waited_flag_flushed_with_it_is_no_hazard() {
    let sim = sim();
    let flag = sim.malloc(0, 64).unwrap();
    sim.fill(flag, 0, 64).unwrap();
    let (s1, s2) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    sim.submit(
        s1,
        Task::ValueWait {
            addr: flag,
            value: 1,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    let k = Kernel::new("payload then flag", move |ctx: &mut dyn KernelOps| {
        ctx.store(flag + 8, 8, 0x5A);
        ctx.spin(100_000);
        ctx.store(flag, 8, 1);
        ctx.dcci(flag, false, 2);
    });
    sim.submit(s2, kernel(k, 1)).unwrap();
    sim.synchronize_stream(s1, None).unwrap();
    sim.synchronize_stream(s2, None).unwrap();
    assert_eq!(read_u64(&sim, flag + 8), 0x5A);
    assert!(hazard_kinds(&sim).is_empty(), "{:#?}", sim.report().hazards);
}

// ---------------------------------------------------------------------------------------------
// Scale.
// ---------------------------------------------------------------------------------------------

#[test]
fn twenty_thousand_blocks_run_in_waves_of_at_most_one_thread_per_core() {
    within(600, "20 000 blocks", || {
        let sim = sim();
        let cores = sim.chip().cache.aic_cores as usize;
        let blocks = 20_000u32;
        let out = sim.malloc(0, u64::from(blocks) * 8).unwrap();
        let alive = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let ran = Arc::new(AtomicUsize::new(0));
        let (a, m, r) = (alive.clone(), most.clone(), ran.clone());
        let k = Kernel::new("many", move |ctx: &mut dyn KernelOps| {
            let _g = Alive::new(&a);
            m.fetch_max(a.load(Ordering::SeqCst), Ordering::SeqCst);
            r.fetch_add(1, Ordering::SeqCst);
            // Blocks of one wave write words of different lines; a dcci makes them visible.
            let b = u64::from(ctx.block_idx());
            if b % 8 == 0 {
                ctx.store(out + b * 8, 8, b);
                ctx.dcci(out + b * 8, false, 2);
            }
        });
        let st = sim.create_stream(0, 0, false).unwrap();
        let t = Instant::now();
        sim.submit(st, kernel(k, blocks)).unwrap();
        sim.synchronize_stream(st, None).unwrap();
        let wall = t.elapsed();
        eprintln!("20 000 blocks: {wall:?}");
        assert_eq!(ran.load(Ordering::SeqCst), blocks as usize);
        assert!(
            most.load(Ordering::SeqCst) <= cores,
            "{} bodies alive at once",
            most.load(Ordering::SeqCst)
        );
        assert_eq!(read_u64(&sim, out + 19_992 * 8), 19_992);
        let rep = sim.report();
        assert_eq!(rep.kernel_blocks.total(), u64::from(blocks));
    });
}

// ---------------------------------------------------------------------------------------------
// Launch latency.
// ---------------------------------------------------------------------------------------------

#[test]
fn every_kernel_waits_its_own_launch_time() {
    let sim = sim();
    let launch = sim.chip().timing.kernel_launch_ns;
    let s: Vec<StreamId> = (0..4)
        .map(|_| sim.create_stream(0, 0, false).unwrap())
        .collect();
    for (i, &st) in s.iter().enumerate() {
        let k = Kernel::new(format!("k{i}"), |ctx: &mut dyn KernelOps| ctx.spin(10));
        sim.submit(st, kernel(k, 1)).unwrap();
    }
    for &st in &s {
        sim.synchronize_stream(st, None).unwrap();
    }
    let r = sim.report();
    for b in &r.kernel_blocks {
        let span = r.timeline.iter().find(|t| t.task == b.task).unwrap();
        assert!(
            b.start_ns >= span.start_ns + launch,
            "kernel {} dispatched at {} ns started its block at {} ns (launch {launch} ns)",
            b.kernel,
            span.start_ns,
            b.start_ns
        );
    }
}

#[test]
fn the_report_lists_blocks_stopped_by_a_sibling_fault() {
    let sim = sim();
    let bad = sim.device_window().start + (1 << 30);
    let st = sim.create_stream(0, 0, false).unwrap();
    let k = Kernel::new("half faulty", move |ctx: &mut dyn KernelOps| {
        if ctx.block_idx() == 1 {
            loop {
                ctx.spin(1000);
            }
        }
        ctx.spin(10_000);
        ctx.load(bad, 8);
    });
    sim.submit(st, kernel(k, 2)).unwrap();
    assert!(sim.synchronize_stream(st, None).is_err());
    let blocks: Vec<u32> = sim.report().kernel_blocks.iter().map(|b| b.block).collect();
    assert_eq!(blocks.len(), 2, "{blocks:?}");
}

// ---------------------------------------------------------------------------------------------
// Other host threads while a long kernel runs.
// ---------------------------------------------------------------------------------------------

/// A kernel of many blocks, each polling a word for a long time (`polls` loads).
fn long_kernel(flag: u64, polls: u64) -> Kernel {
    Kernel::new("long", move |ctx: &mut dyn KernelOps| {
        for _ in 0..polls {
            ctx.load(flag, 8);
            ctx.spin(10);
        }
    })
}

#[test]
fn another_threads_call_answers_and_an_abort_stops_a_kernel_while_it_runs() {
    within(60, "calls beside a long kernel", || {
        let sim = Arc::new(sim());
        let flag = sim.malloc(0, 8).unwrap();
        sim.fill(flag, 0, 8).unwrap();
        let st = sim.create_stream(0, 0, false).unwrap();
        // 4,096 blocks of a million polls each: hours of host time if run to the end.
        sim.submit(st, kernel(long_kernel(flag, 1_000_000), 4096))
            .unwrap();
        let finished = Arc::new(AtomicUsize::new(0));
        let (s2, f2) = (sim.clone(), finished.clone());
        let waiter = std::thread::spawn(move || {
            let r = s2.synchronize_stream(st, None);
            f2.store(1, Ordering::SeqCst);
            r
        });
        // The kernel runs (its blocks take turns) before the other calls come.
        std::thread::sleep(Duration::from_millis(200));
        let other = sim.malloc(1, 64).expect("a call on another device answers");
        sim.free(1, other).unwrap();
        assert_eq!(
            finished.load(Ordering::SeqCst),
            0,
            "the call answered only once the kernel had ended"
        );
        sim.abort_stream(st).unwrap();
        // The synchronize returns (with the abort's error or without): the kernel stopped.
        let _ = waiter.join().unwrap();
        assert_eq!(finished.load(Ordering::SeqCst), 1);
        // The stream is usable again.
        sim.submit(st, kernel(long_kernel(flag, 3), 2)).unwrap();
        sim.synchronize_stream(st, None).unwrap();
    });
}
