//! How far a run has got, readable from any thread without the engine lock: tasks completed
//! and the simulated time reached. The engine publishes both as each task completes and as
//! each kernel block takes a step (relaxed stores), so the time goes on while a kernel spins;
//! a progress display reads them whenever it likes, even while one host call keeps the
//! engine busy for a long time.
//!
//! ```
//! use ascend_sim::{Sim, SimConfig, Task};
//! use ascend_chips::ChipProfile;
//! let sim = Sim::new(ChipProfile::builtin("Ascend910B1").unwrap(), SimConfig::default());
//! let progress = sim.progress();
//! let x = sim.malloc(0, 8).unwrap();
//! let s = sim.create_stream(0, 0, false).unwrap();
//! sim.submit(s, Task::ValueWrite { addr: x, value: 1 }).unwrap();
//! sim.synchronize_stream(s, None).unwrap();
//! assert_eq!(progress.tasks(), 1);
//! assert!(progress.now_ns() > 0);
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

/// Tasks completed so far and the simulated time reached.
#[derive(Debug, Default)]
pub struct RunProgress {
    tasks: AtomicU64,
    now_ns: AtomicU64,
}

impl RunProgress {
    /// Tasks completed so far, on every stream.
    pub fn tasks(&self) -> u64 {
        self.tasks.load(Ordering::Relaxed)
    }

    /// The simulated time reached (of the latest task completion or kernel step), in ns.
    pub fn now_ns(&self) -> u64 {
        self.now_ns.load(Ordering::Relaxed)
    }

    /// A task completed at `now_ns`; `tasks` have completed in all.
    pub(crate) fn publish(&self, tasks: u64, now_ns: u64) {
        self.tasks.store(tasks, Ordering::Relaxed);
        self.now_ns.store(now_ns, Ordering::Relaxed);
    }

    /// The device's clock reached `now_ns` (a kernel block's step).
    pub(crate) fn publish_time(&self, now_ns: u64) {
        self.now_ns.fetch_max(now_ns, Ordering::Relaxed);
    }
}
