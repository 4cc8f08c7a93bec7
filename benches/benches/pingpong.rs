//! Value write / value wait ping-pong between two streams, through the simulator directly and
//! through the `ascend-rt` raw API. Throughput is reported in simulated tasks per second of
//! wall-clock time.

#![allow(missing_docs)] // criterion_group! generates undocumented public functions

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use ascend_chips::ChipProfile;
use ascend_rt::raw_types::*;
use ascend_rt::Runtime;
use ascend_sim::{Sim, SimConfig, Task, WaitMode};

const ROUNDS: u64 = 400;

fn quiet() -> SimConfig {
    SimConfig {
        max_timeline_entries: 1_000,
        ..SimConfig::default()
    }
}

fn sim_pingpong(c: &mut Criterion) {
    let mut g = c.benchmark_group("pingpong");
    g.throughput(Throughput::Elements(4 * ROUNDS));
    g.bench_function("sim_direct", |bench| {
        let sim = Sim::new(ChipProfile::builtin("Ascend910B1").unwrap(), quiet());
        let x = sim.malloc(0, 64).unwrap();
        let y = x + 8;
        let (a, b) = (
            sim.create_stream(0, 0, false).unwrap(),
            sim.create_stream(0, 0, false).unwrap(),
        );
        let mut base = 0u64;
        bench.iter(|| {
            for k in base + 1..=base + ROUNDS {
                sim.submit(
                    a,
                    Task::ValueWait {
                        addr: x,
                        value: k,
                        mode: WaitMode::Geq,
                    },
                )
                .unwrap();
                sim.submit(a, Task::ValueWrite { addr: y, value: k })
                    .unwrap();
                sim.submit(b, Task::ValueWrite { addr: x, value: k })
                    .unwrap();
                sim.submit(
                    b,
                    Task::ValueWait {
                        addr: y,
                        value: k,
                        mode: WaitMode::Geq,
                    },
                )
                .unwrap();
            }
            sim.synchronize_device(0, None).unwrap();
            base += ROUNDS;
        });
    });
    g.bench_function("raw_api", |bench| {
        let rt = Runtime::sim_with("Ascend910B1", quiet()).unwrap();
        rt.set_device(0).unwrap();
        let mut x = Addr::NULL;
        rt.malloc(Some(&mut x), 16, malloc_policy::NORMAL_ONLY)
            .unwrap();
        let y = x.offset(8);
        rt.memset(x, 16, 0, 16).unwrap();
        let (mut a, mut b) = (RawStream::NULL, RawStream::NULL);
        rt.create_stream(Some(&mut a)).unwrap();
        rt.create_stream(Some(&mut b)).unwrap();
        let mut base = 0u64;
        bench.iter(|| {
            for k in base + 1..=base + ROUNDS {
                rt.value_wait(x, k, wait_flag::GEQ, a).unwrap();
                rt.value_write(y, k, 0, a).unwrap();
                rt.value_write(x, k, 0, b).unwrap();
                rt.value_wait(y, k, wait_flag::GEQ, b).unwrap();
            }
            rt.synchronize_stream(a).unwrap();
            rt.synchronize_stream(b).unwrap();
            base += ROUNDS;
        });
    });
    g.finish();
}

criterion_group!(benches, sim_pingpong);
criterion_main!(benches);
