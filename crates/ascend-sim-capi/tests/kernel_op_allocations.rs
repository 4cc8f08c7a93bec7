//! In the steady state a kernel operation allocates (almost) nothing: a counting global
//! allocator counts the heap allocations of two runs of the same kernel, one with many more
//! rounds than the other, so the launch's own allocations cancel out. The kernel stores,
//! loads and `dcci`s at a 64-byte stride, so every step fills a data-cache line, writes a
//! dirty one back and drops it: the data cache's whole path. (In this crate because a global
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

const SLICE: u64 = 16 * 1024;
const STRIDE: u64 = 64;

/// A kernel of `blocks` blocks, each walking its own slice `rounds` times (3 operations a
/// step); returns the allocations the launch and its run made.
fn allocations_of(sim: &Sim, base: u64, blocks: u32, rounds: u64) -> u64 {
    let s = sim.create_stream(0, 0, false).unwrap();
    let walk = Kernel::new("walk", move |ctx: &mut dyn KernelOps| {
        let mine = base + u64::from(ctx.block_idx()) * SLICE;
        let mut sum = 0u64;
        for r in 0..rounds {
            for off in (0..SLICE).step_by(STRIDE as usize) {
                ctx.store(mine + off, 8, r + off);
                sum = sum.wrapping_add(ctx.load(mine + off, 8));
                ctx.dcci(mine + off, false, 2);
            }
        }
        assert_eq!(
            sum,
            (0..rounds)
                .map(|r| (0..SLICE).step_by(64).map(|o| r + o).sum::<u64>())
                .sum::<u64>()
        );
    });
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    sim.submit(
        s,
        Task::Kernel {
            kernel: walk,
            blocks,
        },
    )
    .unwrap();
    sim.synchronize_stream(s, None).unwrap();
    let made = ALLOCATIONS.load(Ordering::Relaxed) - before;
    sim.destroy_stream(s, false).unwrap();
    made
}

fn per_operation(blocks: u32) -> f64 {
    let config = SimConfig {
        max_timeline_entries: 16,
        ..SimConfig::default()
    };
    let sim = Sim::new(ChipProfile::builtin("Ascend910B1").unwrap(), config);
    let base = sim.malloc(0, SLICE * u64::from(blocks)).unwrap();
    sim.fill(base, 0, SLICE * u64::from(blocks)).unwrap();
    // Warm: stacks, tables and the core thread exist before anything is counted.
    allocations_of(&sim, base, blocks, 1);
    let short = allocations_of(&sim, base, blocks, 1);
    let long = allocations_of(&sim, base, blocks, 21);
    let ops = 20 * (SLICE / STRIDE) * 3 * u64::from(blocks);
    let per_op = long.saturating_sub(short) as f64 / ops as f64;
    println!("{blocks} block(s): {short} and {long} allocations, {per_op:.4} per kernel operation");
    per_op
}

/// One test, so no other test's allocations are counted: one block, then 48.
#[test]
fn a_kernel_operation_in_the_steady_state_allocates_almost_nothing() {
    for blocks in [1, 48] {
        let per_op = per_operation(blocks);
        assert!(
            per_op <= 0.01,
            "{blocks} block(s): {per_op:.4} heap allocations per kernel operation"
        );
    }
}
