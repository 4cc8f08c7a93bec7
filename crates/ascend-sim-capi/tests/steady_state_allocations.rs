//! In the steady state (queues warm, no host thread blocked), driving the simulator allocates
//! (almost) nothing per task: a counting global allocator counts the heap allocations of a
//! value write / value wait ping-pong after a warm-up. (In this crate because a global
//! allocator needs `unsafe`, which the simulator's crate forbids.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use ascend_chips::ChipProfile;
use ascend_sim::*;

/// Counts allocations (and reallocations) made through it.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn rounds(sim: &Sim, x: u64, a: StreamId, b: StreamId, from: u64, n: u64) {
    let y = x + 8;
    for k in from..from + n {
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
        if k % 64 == 0 {
            sim.synchronize_device(0, None).unwrap();
        }
    }
    sim.synchronize_device(0, None).unwrap();
}

#[test]
fn a_steady_value_ping_pong_allocates_almost_nothing_per_task() {
    // A report that keeps nothing per task: the timeline and records are bounded.
    let config = SimConfig {
        max_timeline_entries: 16,
        ..SimConfig::default()
    };
    let sim = Sim::new(ChipProfile::builtin("Ascend910B1").unwrap(), config);
    let x = sim.malloc(0, 64).unwrap();
    sim.fill(x, 0, 64).unwrap();
    let a = sim.create_stream(0, 0, false).unwrap();
    let b = sim.create_stream(0, 0, false).unwrap();
    rounds(&sim, x, a, b, 1, 2_000);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let n = 5_000;
    rounds(&sim, x, a, b, 2_001, n);
    let per_task = (ALLOCATIONS.load(Ordering::Relaxed) - before) as f64 / (4 * n) as f64;
    println!("{per_task:.3} heap allocations per task");
    assert!(per_task <= 0.1, "{per_task:.3} heap allocations per task");
}
