//! The core thread: the one thread of a simulator on which its kernel blocks run, as
//! coroutines (`crate::kernel::Blocks`), and which therefore takes every kernel block's turn.
//!
//! Host threads drive the engine themselves while no block is due. When a block's turn comes
//! (the engine's [`crate::engine::Step::KernelTurn`]), the host thread posts a job here (run
//! to a time, or drive until its wait is over) and sleeps until the answer. The core thread
//! takes the engine's lock for each step as a host thread would, and releases it while a
//! block runs: other host threads' calls go on between two operations of a kernel, an abort
//! or force destroy stops a block at its next operation, and a block whose body blocks in
//! host code is seen by the watchdog of the host thread waiting for it.
//!
//! Jobs are served in the order they were posted. A drive job ends early when another job
//! waits, and its poster posts it again, so that no host call waits for a long kernel.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use crate::engine::Engine;

/// A host thread's wait, as the core thread checks it after each step.
pub(crate) type Until = Arc<dyn Fn(&Engine) -> bool + Send + Sync>;

/// Work for the core thread.
pub(crate) enum Job {
    /// Run the device to this time (`Engine::run_until`).
    RunUntil(u64),
    /// Drive the device until the wait is over or the drive must return to its host thread.
    Drive {
        /// The drive's state, carried across jobs.
        state: crate::facade::DriveState,
        /// The wait.
        until: Until,
    },
}

/// The core thread's answer to a [`Job`].
pub(crate) enum JobResult {
    /// The run reached its time.
    Ran,
    /// The drive stopped: its state, and why.
    Drove(crate::facade::DriveState, crate::facade::Flow),
}

/// The jobs posted to the core thread and its answers, kept under the engine's lock.
#[derive(Default)]
pub struct CoreJobs {
    queue: VecDeque<(u64, Job)>,
    results: BTreeMap<u64, JobResult>,
    next: u64,
    /// The job being served.
    pub(crate) running: Option<u64>,
    /// The core thread's generation: a thread of an older one ends (it was held by a block
    /// whose body blocked in host code and was given up).
    pub(crate) epoch: u64,
    /// A core thread of this generation runs.
    pub(crate) started: bool,
    /// The simulator is going away.
    pub(crate) shutdown: bool,
    /// Kernel turns begun so far (the watchdog's sign that the core thread moves).
    pub(crate) turns: u64,
}

impl std::fmt::Debug for CoreJobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoreJobs")
            .field("queued", &self.queue.len())
            .field("results", &self.results.len())
            .field("running", &self.running)
            .field("epoch", &self.epoch)
            .finish()
    }
}

impl CoreJobs {
    /// Posts `job`; returns its number.
    pub(crate) fn post(&mut self, job: Job) -> u64 {
        self.next += 1;
        self.queue.push_back((self.next, job));
        self.next
    }

    /// The answer to job `id`, once there is one.
    pub(crate) fn take_result(&mut self, id: u64) -> Option<JobResult> {
        self.results.remove(&id)
    }

    /// True while job `id` is queued or served.
    pub(crate) fn pending(&self, id: u64) -> bool {
        self.running == Some(id) || self.queue.iter().any(|(j, _)| *j == id)
    }

    /// True when a job waits behind the one served.
    pub(crate) fn others_waiting(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Takes the next job to serve.
    pub(crate) fn next_job(&mut self) -> Option<(u64, Job)> {
        let j = self.queue.pop_front()?;
        self.running = Some(j.0);
        Some(j)
    }

    /// Job `id` was served, with `result`.
    pub(crate) fn answer(&mut self, id: u64, result: JobResult) {
        self.running = None;
        self.results.insert(id, result);
    }

    /// Gives up the core thread of this generation (held by a block that blocks in host
    /// code): its jobs are dropped, and the next job starts a new thread.
    pub(crate) fn give_up_thread(&mut self) {
        self.epoch += 1;
        self.started = false;
        self.running = None;
        self.queue.clear();
    }
}
