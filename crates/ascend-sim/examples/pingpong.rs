//! Value write / value wait ping-pong between two streams: measures simulated tasks per
//! wall-clock second. Run with `cargo run --release -p ascend-sim --example pingpong [iters]`.

use std::time::Instant;

use ascend_chips::ChipProfile;
use ascend_sim::{Sim, SimConfig, Task, WaitMode};

fn main() {
    let iters: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let chip = ChipProfile::builtin("Ascend910B1").expect("chip");
    let sim = Sim::new(
        chip,
        SimConfig {
            max_timeline_entries: 10_000,
            ..SimConfig::default()
        },
    );
    let x = sim.malloc(0, 64).expect("malloc");
    let y = x + 8;
    sim.fill(x, 0, 16).expect("fill");
    let a = sim.create_stream(0, 0, false).expect("stream");
    let b = sim.create_stream(0, 0, false).expect("stream");
    let per_stream = sim.chip().limits.value_wait_slots as u64 + 1;
    let batch = sim.chip().limits.max_tasks_per_stream() as u64 / per_stream;
    let start = Instant::now();
    let mut i = 1;
    while i <= iters {
        let end = (i + batch).min(iters + 1);
        for k in i..end {
            let wait = |addr, value| Task::ValueWait {
                addr,
                value,
                mode: WaitMode::Geq,
            };
            sim.submit(a, wait(x, k)).expect("submit");
            sim.submit(a, Task::ValueWrite { addr: y, value: k })
                .expect("submit");
            sim.submit(b, Task::ValueWrite { addr: x, value: k })
                .expect("submit");
            sim.submit(b, wait(y, k)).expect("submit");
        }
        sim.synchronize_device(0, None).expect("sync");
        i = end;
    }
    let wall = start.elapsed().as_secs_f64();
    let tasks = 4 * iters;
    println!(
        "{tasks} tasks in {wall:.3} s wall: {:.0} simulated tasks/s; simulated time {} ns ({:.0} ns per round trip)",
        tasks as f64 / wall,
        sim.now_ns(),
        sim.now_ns() as f64 / iters as f64
    );
}
