//! How long other host threads wait while a large kernel runs: the engine's lock is released
//! while a block runs and a drive yields the core thread to other calls, so a call on another
//! device waits at most about one engine step, and an abort of the kernel's stream stops it at
//! its next operation. The kernel has 4,096 blocks (85 waves on 48 cores) of 20,000 loads and
//! stores each, far longer than a measurement; a host thread synchronizes it, as a program waiting
//! for its kernel does.
//!
//! - `call_on_another_device_while_4096_blocks_run`: `malloc` + `free` on device 1 (target:
//!   under 1 ms of wall time);
//! - `abort_of_the_running_kernels_stream`: `abort_stream` of the kernel's stream once its
//!   first block runs, until it returns (target: under 100 ms).

#![allow(missing_docs)] // criterion_group! generates undocumented public functions

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

use ascend_chips::ChipProfile;
use ascend_sim::{Kernel, KernelOps, Sim, SimConfig, StreamId, Task};

const BLOCKS: u32 = 4096;
const OPS_PER_BLOCK: u32 = 20_000;
/// The vector cores of a 910B1 device: one line of words per core.
const CORES: u32 = 48;

fn quiet() -> SimConfig {
    SimConfig {
        max_timeline_entries: 1_000,
        ..SimConfig::default()
    }
}

/// A kernel of [`BLOCKS`] blocks that each load and store a word of their own (in a 64-byte
/// line per core) [`OPS_PER_BLOCK`] times; `started` is set when its first block runs.
fn long_kernel(words: u64, started: Arc<AtomicBool>) -> Task {
    let k = Kernel::new("long", move |ctx: &mut dyn KernelOps| {
        started.store(true, Ordering::Release);
        let mine = words + 64 * u64::from(ctx.block_idx() % CORES);
        for i in 0..OPS_PER_BLOCK / 2 {
            let v = ctx.load(mine, 8);
            ctx.store(mine, 8, v + u64::from(i));
        }
    });
    Task::Kernel {
        kernel: k,
        blocks: BLOCKS,
    }
}

/// Submits the long kernel on `s`, starts a host thread synchronizing it, and returns once
/// its first block runs.
fn run_long_kernel(sim: &Arc<Sim>, s: StreamId, flag: u64) -> std::thread::JoinHandle<()> {
    let started = Arc::new(AtomicBool::new(false));
    sim.submit(s, long_kernel(flag, started.clone())).unwrap();
    let waiter = {
        let sim = sim.clone();
        std::thread::spawn(move || {
            let _ = sim.synchronize_stream(s, None);
        })
    };
    while !started.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
    waiter
}

fn latency(c: &mut Criterion) {
    let mut g = c.benchmark_group("kernel_latency");
    g.sample_size(20);
    g.measurement_time(Duration::from_secs(3));
    let sim = Arc::new(Sim::new(
        ChipProfile::builtin("Ascend910B1").unwrap(),
        quiet(),
    ));
    let flag = sim.malloc(0, 64 * u64::from(CORES)).unwrap();
    sim.fill(flag, 0, 64 * u64::from(CORES)).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();

    let waiter = run_long_kernel(&sim, s, flag);
    g.bench_function("call_on_another_device_while_4096_blocks_run", |b| {
        b.iter(|| {
            let a = sim.malloc(1, 64).unwrap();
            sim.free(1, a).unwrap();
        })
    });
    assert!(
        !waiter.is_finished(),
        "the kernel ran for the whole measurement"
    );
    sim.abort_stream(s).unwrap();
    waiter.join().unwrap();

    g.bench_function("abort_of_the_running_kernels_stream", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let waiter = run_long_kernel(&sim, s, flag);
                let t = Instant::now();
                sim.abort_stream(s).unwrap();
                total += t.elapsed();
                waiter.join().unwrap();
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, latency);
criterion_main!(benches);
