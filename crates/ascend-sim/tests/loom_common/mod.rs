//! Shared set-up of the loom models (`tests/loom_*.rs`): a model runner that counts the
//! interleavings it explores and applies the default preemption bound, and a small `Sim`.
//!
//! Run: `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p ascend-sim --release
//! --test 'loom_*' -- --nocapture` (each model prints its interleaving count). The default
//! preemption bound is 3 (`LOOM_MAX_PREEMPTIONS` overrides it); every model has ≤ 3 threads.

#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ascend_chips::ChipProfile;
use ascend_sim::{DevAddr, OnStall, Sim, SimConfig, StreamId, Task, WaitMode};

/// The preemption bound used when `LOOM_MAX_PREEMPTIONS` is not set.
pub const DEFAULT_PREEMPTIONS: usize = 3;

/// Runs `f` under loom, exhaustively up to the preemption bound, and prints how many
/// interleavings were explored.
pub fn check(name: &str, f: impl Fn() + Sync + Send + 'static) {
    let count = std::sync::Arc::new(AtomicUsize::new(0));
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(DEFAULT_PREEMPTIONS);
    }
    let bound = b.preemption_bound;
    let c = count.clone();
    let t = Instant::now();
    b.check(move || {
        c.fetch_add(1, Ordering::Relaxed);
        f();
    });
    eprintln!(
        "loom model {name}: {} interleavings explored (preemption bound {bound:?}) in {:.2?}",
        count.load(Ordering::Relaxed),
        t.elapsed()
    );
}

/// The chip of the models (parsed once, outside the model).
pub fn chip() -> ChipProfile {
    ChipProfile::builtin("Ascend910B1").expect("builtin chip")
}

/// A simulator whose watchdog waits `grace` and then does `on_stall`. With
/// `grace = ascend_sim::UNBOUNDED_WAIT` a stalled host thread waits only for notifications,
/// so a lost wake-up is a deadlock loom reports.
pub fn sim(chip: &ChipProfile, grace: Duration, on_stall: OnStall) -> loom::sync::Arc<Sim> {
    let config = SimConfig {
        watchdog_grace: grace,
        on_stall,
        ..SimConfig::default()
    };
    loom::sync::Arc::new(Sim::new(chip.clone(), config))
}

/// A zeroed 64-byte buffer.
pub fn buffer(sim: &Sim) -> DevAddr {
    let a = sim.malloc(0, 64).expect("malloc");
    sim.fill(a, 0, 64).expect("fill");
    a
}

/// A plain stream on device 0.
pub fn stream(sim: &Sim) -> StreamId {
    sim.create_stream(0, 0, false).expect("stream")
}

/// The value wait `*addr == value`.
pub fn wait_eq(addr: DevAddr, value: u64) -> Task {
    Task::ValueWait {
        addr,
        value,
        mode: WaitMode::Eq,
    }
}

/// The value write `*addr = value`.
pub fn write(addr: DevAddr, value: u64) -> Task {
    Task::ValueWrite { addr, value }
}

/// The 64-bit word at `addr`.
pub fn read_u64(sim: &Sim, addr: DevAddr) -> u64 {
    let mut b = [0u8; 8];
    sim.read(addr, &mut b).expect("read");
    u64::from_le_bytes(b)
}
