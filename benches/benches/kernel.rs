//! Simulator kernels: the host (wall) time of a kernel follows its yields to the engine (one
//! per memory operation or spin), not its simulated cycles. A block spinning a million cycles
//! in one call costs about a launch; the same million cycles as 1,000 polls of a word costs
//! about 2,000 yields; a 48-block kernel shows the per-block cost.

#![allow(missing_docs)] // criterion_group! generates undocumented public functions

use criterion::{criterion_group, criterion_main, Criterion};

use ascend_chips::ChipProfile;
use ascend_sim::{Kernel, KernelOps, Sim, SimConfig, Task};

fn quiet() -> SimConfig {
    SimConfig {
        max_timeline_entries: 1_000,
        ..SimConfig::default()
    }
}

fn kernels(c: &mut Criterion) {
    let mut g = c.benchmark_group("kernel");
    g.sample_size(20);
    let sim = Sim::new(ChipProfile::builtin("Ascend910B1").unwrap(), quiet());
    let flag = sim.malloc(0, 48 * 64).unwrap();
    sim.fill(flag, 0, 48 * 64).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    let run = |k: Kernel, blocks: u32| {
        sim.submit(s, Task::Kernel { kernel: k, blocks }).unwrap();
        sim.synchronize_stream(s, None).unwrap();
    };
    g.bench_function("spin_1m_cycles_in_one_call", |b| {
        b.iter(|| {
            run(
                Kernel::new("spin", |ctx: &mut dyn KernelOps| ctx.spin(1_000_000)),
                1,
            )
        })
    });
    g.bench_function("spin_1m_cycles_as_1000_polls", |b| {
        b.iter(|| {
            let k = Kernel::new("poll", move |ctx: &mut dyn KernelOps| {
                for _ in 0..1000 {
                    ctx.load(flag, 8);
                    ctx.spin(1000);
                }
            });
            run(k, 1)
        })
    });
    g.bench_function("48_blocks_one_store_each", |b| {
        b.iter(|| {
            let k = Kernel::new("store", move |ctx: &mut dyn KernelOps| {
                ctx.store(flag + 64 * u64::from(ctx.block_idx()), 8, 1);
            });
            run(k, 48)
        })
    });
    g.finish();
}

criterion_group!(benches, kernels);
criterion_main!(benches);
