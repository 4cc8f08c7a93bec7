//! A value write / value wait ping-pong between two streams, for whole-process timing (CPU
//! seconds per run, with `farm-bench`): `cargo run --release -p ascend-benches --example
//! pingpong_run -- sim|api|null ROUNDS` runs ROUNDS rounds of four tasks through the simulator
//! directly (`sim`), through the raw `ascend-rt` API (`api`), or through the API over the
//! do-nothing backend (`null`: what the front end alone costs); `wide PAIRS ROUNDS` runs
//! PAIRS stream pairs side by side (per-task cost against the number of streams). Tasks per
//! CPU-second =
//! 4 × ROUNDS / the run's CPU seconds (minus start-up, which a run of 0 rounds measures).

use ascend_chips::ChipProfile;
use ascend_rt::raw_types::*;
use ascend_rt::Runtime;
use ascend_sim::{Sim, SimConfig, Task, WaitMode};

fn quiet() -> SimConfig {
    ascend_benches::timed_config(1_000)
}

/// The argument as a number of stream pairs (at least 1).
fn rounds_or_pairs(arg: Option<&String>) -> u64 {
    arg.and_then(|r| r.parse().ok()).unwrap_or(1).max(1)
}

/// Round `k` of a ping-pong between streams `a` and `b` on the words at `x` and `x + 8`:
/// `a` waits for `x` and writes `x + 8`; `b` writes `x` and waits for `x + 8`.
fn round(sim: &Sim, a: ascend_sim::StreamId, b: ascend_sim::StreamId, x: u64, k: u64) {
    let y = x + 8;
    let wait = |addr| Task::ValueWait {
        addr,
        value: k,
        mode: WaitMode::Geq,
    };
    sim.submit(a, wait(x)).unwrap();
    sim.submit(a, Task::ValueWrite { addr: y, value: k })
        .unwrap();
    sim.submit(b, Task::ValueWrite { addr: x, value: k })
        .unwrap();
    sim.submit(b, wait(y)).unwrap();
}

/// `pairs` pairs of streams on the simulator directly, each pair ping-ponging `rounds` times on
/// its own two words, the pairs' tasks interleaved (4 × pairs × rounds tasks), the device
/// synchronized every `sync_every` rounds.
fn sim_rounds(pairs: u64, rounds: u64, sync_every: u64) {
    let sim = Sim::new(ChipProfile::builtin("Ascend910B1").unwrap(), quiet());
    let words = sim.malloc(0, 16 * pairs).unwrap();
    let streams: Vec<_> = (0..2 * pairs)
        .map(|_| sim.create_stream(0, 0, false).unwrap())
        .collect();
    for k in 1..=rounds {
        for p in 0..pairs as usize {
            let x = words + 16 * p as u64;
            round(&sim, streams[2 * p], streams[2 * p + 1], x, k);
        }
        if k % sync_every == 0 {
            sim.synchronize_device(0, None).unwrap();
        }
    }
    sim.synchronize_device(0, None).unwrap();
}

/// `threads` host threads sharing one simulator, each ping-ponging `rounds` rounds on its own
/// two streams and words, synchronizing its own streams every 256 rounds.
fn threads_rounds(threads: u64, rounds: u64) {
    let sim = std::sync::Arc::new(Sim::new(
        ChipProfile::builtin("Ascend910B1").unwrap(),
        quiet(),
    ));
    let words = sim.malloc(0, 16 * threads).unwrap();
    let workers: Vec<_> = (0..threads)
        .map(|p| {
            let sim = sim.clone();
            std::thread::spawn(move || {
                let a = sim.create_stream(0, 0, false).unwrap();
                let b = sim.create_stream(0, 0, false).unwrap();
                let x = words + 16 * p;
                for k in 1..=rounds {
                    round(&sim, a, b, x, k);
                    if k % 256 == 0 {
                        sim.synchronize_stream(a, None).unwrap();
                        sim.synchronize_stream(b, None).unwrap();
                    }
                }
                sim.synchronize_stream(a, None).unwrap();
                sim.synchronize_stream(b, None).unwrap();
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("sim", String::as_str);
    let rounds: u64 = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(100_000);
    match mode {
        "sim" => sim_rounds(1, rounds, 256),
        // `wide PAIRS ROUNDS`: PAIRS pairs of streams side by side, synchronized often enough
        // that about 1,024 tasks are in flight whatever the number of streams (at least one
        // round's worth), so that only the number of streams changes.
        "wide" => {
            let rounds: u64 = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(1_000);
            let pairs = rounds_or_pairs(args.get(2));
            sim_rounds(pairs, rounds, (256 / pairs).max(1))
        }
        // `threads N ROUNDS`: N host threads, each ping-ponging its own pair of streams on
        // one shared simulator (aggregate throughput against the number of host threads: time
        // it in wall seconds).
        "threads" => {
            let rounds: u64 = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(100_000);
            threads_rounds(rounds_or_pairs(args.get(2)), rounds)
        }
        "api" | "null" => {
            // `null`: the same calls through the front end over the do-nothing backend.
            let rt = if mode == "null" {
                Runtime::null("Ascend910B1").unwrap()
            } else {
                Runtime::sim_with("Ascend910B1", quiet()).unwrap()
            };
            rt.set_device(0).unwrap();
            let mut x = Addr::NULL;
            rt.malloc(Some(&mut x), 16, malloc_policy::NORMAL_ONLY)
                .unwrap();
            let y = x.offset(8);
            rt.memset(x, 16, 0, 16).unwrap();
            let (mut a, mut b) = (RawStream::NULL, RawStream::NULL);
            rt.create_stream(Some(&mut a)).unwrap();
            rt.create_stream(Some(&mut b)).unwrap();
            for k in 1..=rounds {
                rt.value_wait(x, k, wait_flag::GEQ, a).unwrap();
                rt.value_write(y, k, 0, a).unwrap();
                rt.value_write(x, k, 0, b).unwrap();
                rt.value_wait(y, k, wait_flag::GEQ, b).unwrap();
                if k % 256 == 0 {
                    rt.synchronize_stream(a).unwrap();
                    rt.synchronize_stream(b).unwrap();
                }
            }
            rt.synchronize_stream(a).unwrap();
            rt.synchronize_stream(b).unwrap();
        }
        other => {
            eprintln!(
                "usage: pingpong_run sim|api|null ROUNDS | wide PAIRS ROUNDS | threads N ROUNDS (not {other:?})"
            );
            std::process::exit(2);
        }
    }
}
