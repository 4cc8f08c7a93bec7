//! Cache maintenance over a large range: an INVALID of 1 GiB on an empty L2 and on a full one.
//! The simulator's work (host time per CMO task) follows the lines resident in the range, not
//! the range.

#![allow(missing_docs)] // criterion_group! generates undocumented public functions

use criterion::{criterion_group, criterion_main, Criterion};

use ascend_chips::ChipProfile;
use ascend_sim::{CmoType, Sim, SimConfig, Task};

const GIB: u64 = 1 << 30;

fn quiet() -> SimConfig {
    SimConfig {
        max_timeline_entries: 1_000,
        ..SimConfig::default()
    }
}

fn invalid_1gib(c: &mut Criterion) {
    let mut g = c.benchmark_group("cmo_invalid_1gib");
    g.sample_size(10);
    for full in [false, true] {
        let name = if full { "full_l2" } else { "empty_l2" };
        g.bench_function(name, |bench| {
            let sim = Sim::new(ChipProfile::builtin("Ascend910B1").unwrap(), quiet());
            let a = sim.malloc(0, GIB).unwrap();
            let s = sim.create_stream(0, 0, false).unwrap();
            let cmo = |op, len| Task::Cmo { op, addr: a, len };
            bench.iter_custom(|iters| {
                let mut spent = std::time::Duration::ZERO;
                for _ in 0..iters {
                    if full {
                        // Untimed: fill the L2 with lines of the range.
                        sim.submit(s, cmo(CmoType::Prefetch, GIB)).unwrap();
                        sim.synchronize_stream(s, None).unwrap();
                    }
                    let t = std::time::Instant::now();
                    sim.submit(s, cmo(CmoType::Invalid, GIB)).unwrap();
                    sim.synchronize_stream(s, None).unwrap();
                    spent += t.elapsed();
                }
                spent
            });
        });
    }
    g.finish();
}

criterion_group!(benches, invalid_1gib);
criterion_main!(benches);
