//! Loom models of the hand-off between host threads and the core thread, the one thread of a
//! simulator on which kernel blocks run as coroutines. A host thread whose wait reaches a
//! block's turn posts a job to the core thread and sleeps until its answer; the core thread
//! takes the engine's lock for each step and releases it while the block runs, so that other
//! host threads' calls (a submission, an abort, a force destroy) go on between two operations
//! of a kernel. The models run the real `Sim`: its mutex, its condition variables and the core
//! thread itself come from `loom` under `--cfg loom` (see `src/sync.rs`).
//!
//! The watchdog grace is `UNBOUNDED_WAIT`: a host thread waiting for the core thread's answer,
//! and the core thread waiting for a job, sleep until notified, so a lost wake-up on either
//! side is a deadlock, which loom reports.
//!
//! Bound: 3 threads (the main thread, one host thread, the core thread), preemption bound 3
//! (`LOOM_MAX_PREEMPTIONS` overrides it).
//! Run: `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p ascend-sim
//! --release --test 'loom_*' -- --nocapture`.

#![cfg(loom)]

mod loom_common;

use ascend_sim::{Kernel, KernelOps, OnStall, Sim, SimError, StreamId, Task, UNBOUNDED_WAIT};
use loom::sync::Arc;
use loom::thread;
use loom_common::*;

/// A host thread synchronizing stream `s`.
fn synchronizing(sim: &Arc<Sim>, s: StreamId) -> thread::JoinHandle<Result<(), SimError>> {
    let sim = sim.clone();
    thread::spawn(move || sim.synchronize_stream(s, None))
}

/// A one-block kernel that stores `value` at `addr` and writes its line back (`dcci`).
fn store_kernel(addr: u64, value: u64) -> Task {
    Task::Kernel {
        kernel: Kernel::new("store", move |ctx: &mut dyn KernelOps| {
            ctx.store(addr, 8, value);
            ctx.dcci(addr, false, 2);
        }),
        blocks: 1,
    }
}

/// A one-block kernel that loads `addr` `n` times (each load is one turn of the block).
fn load_kernel(addr: u64, n: usize) -> Task {
    Task::Kernel {
        kernel: Kernel::new("loads", move |ctx: &mut dyn KernelOps| {
            for _ in 0..n {
                ctx.load(addr, 8);
            }
        }),
        blocks: 1,
    }
}

/// A host thread synchronizes a kernel's stream (its wait is handed to the core thread) while
/// the main thread submits a value write on another stream and synchronizes that: both
/// return, with both stores in memory, whichever thread reaches the engine first.
#[test]
fn kernel_synchronized_while_another_thread_submits() {
    let chip = chip();
    check(
        "kernel_synchronized_while_another_thread_submits",
        move || {
            let sim = sim(&chip, UNBOUNDED_WAIT, OnStall::Error);
            let a = buffer(&sim);
            let (s1, s2) = (stream(&sim), stream(&sim));
            sim.submit(s1, store_kernel(a, 5)).unwrap();
            let waiter = synchronizing(&sim, s1);
            sim.submit(s2, write(a + 8, 9)).unwrap();
            sim.synchronize_stream(s2, None)
                .expect("the value write's stream completes");
            waiter
                .join()
                .unwrap()
                .expect("the kernel's stream completes");
            assert_eq!(read_u64(&sim, a), 5, "the kernel's store");
            assert_eq!(read_u64(&sim, a + 8), 9, "the value write");
        },
    );
}

/// Two host threads synchronize the same kernel's stream: each posts its own job to the core
/// thread (or finds the kernel done), and both return once the kernel ended.
#[test]
fn two_host_threads_wait_for_one_kernel() {
    let chip = chip();
    check("two_host_threads_wait_for_one_kernel", move || {
        let sim = sim(&chip, UNBOUNDED_WAIT, OnStall::Error);
        let a = buffer(&sim);
        let s = stream(&sim);
        sim.submit(s, store_kernel(a, 3)).unwrap();
        let other = synchronizing(&sim, s);
        sim.synchronize_stream(s, None).expect("the first waiter");
        assert_eq!(read_u64(&sim, a), 3);
        other.join().unwrap().expect("the second waiter");
    });
}

/// An abort of the kernel's stream from the main thread while a host thread synchronizes it:
/// the abort returns, the kernel is stopped at an operation or has ended, the waiter returns
/// (either result), and the stream takes and completes new work afterwards.
#[test]
fn abort_while_a_kernel_runs_releases_its_waiter() {
    let chip = chip();
    check("abort_while_a_kernel_runs_releases_its_waiter", move || {
        let sim = sim(&chip, UNBOUNDED_WAIT, OnStall::Error);
        let a = buffer(&sim);
        let s = stream(&sim);
        sim.submit(s, load_kernel(a, 2)).unwrap();
        let waiter = synchronizing(&sim, s);
        sim.abort_stream(s).expect("the abort");
        let _ = waiter.join().unwrap();
        sim.submit(s, write(a, 4)).unwrap();
        sim.synchronize_stream(s, None)
            .expect("the stream works after the abort");
        assert_eq!(read_u64(&sim, a), 4);
    });
}

/// A force destroy of the kernel's stream while a host thread synchronizes it: the destroy
/// returns and the waiter returns (the stream is gone or its kernel completed).
#[test]
fn force_destroy_while_a_kernel_runs_releases_its_waiter() {
    let chip = chip();
    check(
        "force_destroy_while_a_kernel_runs_releases_its_waiter",
        move || {
            let sim = sim(&chip, UNBOUNDED_WAIT, OnStall::Error);
            let a = buffer(&sim);
            let s = stream(&sim);
            sim.submit(s, load_kernel(a, 2)).unwrap();
            let waiter = synchronizing(&sim, s);
            sim.destroy_stream(s, true).expect("the force destroy");
            let _ = waiter.join().unwrap();
            assert!(sim.submit(s, write(a, 1)).is_err(), "the stream is gone");
        },
    );
}
