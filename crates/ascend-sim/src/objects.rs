//! Events and model running instances as the engine tracks them. Destroyed notifies and
//! models leave the engine at once; a destroyed event once no record of it is pending.

use std::collections::BTreeSet;

/// One event.
#[derive(Debug, Default)]
pub struct Event {
    /// Record number of the latest record submitted (host view).
    pub latest: Option<u64>,
    /// Records submitted but not yet executed.
    pub pending: BTreeSet<u64>,
    /// The latest executed record (number, simulated time), cleared by a reset.
    pub executed: Option<(u64, u64)>,
    /// Destroyed by the host (pending records still complete; the entry goes with the last).
    pub destroyed: bool,
}

impl Event {
    /// True when record `seq` has executed (or was dropped).
    pub fn done(&self, seq: u64) -> bool {
        !self.pending.contains(&seq)
    }

    /// True when the latest record has executed and no reset followed.
    pub fn complete(&self) -> bool {
        match self.latest {
            None => false,
            Some(s) => self.done(s) && self.executed.is_some_and(|(e, _)| e >= s),
        }
    }
}

/// One notify: a flag set by records and cleared by the wait that consumes it.
#[derive(Debug, Default)]
pub struct Notify {
    /// Set by an executed record, not yet consumed by a wait.
    pub set: bool,
}

/// One model running instance.
#[derive(Debug, Default)]
pub struct Model {
    /// Bound streams, in binding order.
    pub streams: Vec<u64>,
}

/// One execution of a model.
#[derive(Debug)]
pub struct Instance {
    /// The model.
    pub model: u64,
    /// Tasks not yet complete.
    pub remaining: u64,
    /// The stream whose `ModelRun` task waits for this instance, if asynchronous.
    pub run_stream: Option<u64>,
    /// The first fault of its tasks (message, class): reported at the synchronize of the run
    /// stream (asynchronous) or by `execute_model` (synchronous).
    pub fault: Option<(String, crate::types::FaultClass)>,
    /// A synchronous run whose host call gave up (timeout or watchdog): nobody collects it,
    /// so it is removed when its last task completes.
    pub abandoned: bool,
}
