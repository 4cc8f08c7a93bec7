//! Tasks whose end the host asks about later: a copy into host memory the simulator does not
//! share with the program that asked for it (the device service copies into a buffer of its
//! own, and its client takes the bytes once the copy has run). The engine keeps each watched
//! task's end ([`crate::engine::Engine::watched`]), with its place in the order tasks
//! completed, until the host forgets it.

use super::Sim;
use crate::types::*;

/// How the tasks of one watched submission ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchedEnd {
    /// Some task is still queued.
    Pending,
    /// Every task ran without a fault; `order`: the last one's place in the order the
    /// device's tasks completed (a copy with a greater `order` ran later).
    Ran {
        /// The last task's place in completion order.
        order: u64,
    },
    /// Some task faulted, or was discarded without running (its stream aborted, destroyed
    /// by force, or stopped after a failure), or the simulator does not watch it.
    Failed,
}

impl Sim {
    /// [`Sim::submit_after`] of a task whose end the host asks about with
    /// [`Sim::watched_ends`]: the ids of its tasks (one a mapping it crosses), or `None`
    /// where `stream` is bound to a model (it would run at every run of the model, not once)
    /// and nothing was submitted.
    pub fn submit_watched_after(
        &self,
        stream: StreamId,
        task: Task,
        host_ns: u64,
    ) -> Result<Option<Vec<TaskId>>, SimError> {
        let mut ids = Vec::new();
        let taken = self.submit_pieces(stream, task, host_ns, true, |id| ids.push(id))?;
        Ok(taken.then_some(ids))
    }

    /// How each watched submission (its stream, its tasks) has ended, all seen at one moment
    /// of the device. The simulator keeps the answers until [`Sim::forget_watched`].
    pub fn watched_ends(&self, submissions: &[(StreamId, &[TaskId])]) -> Vec<WatchedEnd> {
        let g = self.lock();
        let ends = submissions
            .iter()
            .map(|&(stream, tasks)| watched_end(&g, stream, tasks))
            .collect();
        self.release(g);
        ends
    }

    /// Runs `f` unless the watched submission (`stream`, `tasks`) has run, and says whether it
    /// did: while it is queued, `f` runs under the device's lock, so the submission's copies,
    /// which write when they complete, come after it. For a buffer a copy lands in, to hold
    /// the bytes its destination held until the copy writes them (and for good where the copy
    /// faults or is discarded).
    pub fn unless_watched_ran(&self, stream: StreamId, tasks: &[TaskId], f: impl FnOnce()) -> bool {
        let g = self.lock();
        let ran = matches!(watched_end(&g, stream, tasks), WatchedEnd::Ran { .. });
        if !ran {
            f();
        }
        self.release(g);
        !ran
    }

    /// Forgets watched tasks: their end has been taken, or nobody will ask for it (their
    /// program has gone).
    pub fn forget_watched(&self, tasks: &[TaskId]) {
        let mut g = self.lock();
        for t in tasks {
            g.watched.remove(&t.0);
        }
        self.release(g);
    }
}

/// How one watched submission has ended, as the engine says now.
fn watched_end(e: &crate::engine::Engine, stream: StreamId, tasks: &[TaskId]) -> WatchedEnd {
    let mut order = 0;
    let mut failed = false;
    for t in tasks {
        match e.watched.get(&t.0) {
            Some(Some((ran, at))) => {
                failed |= !ran;
                order = order.max(*at);
            }
            Some(None) => {
                let queued = e
                    .streams
                    .get(&stream.0)
                    .is_some_and(|st| st.queue.iter().any(|q| q.id == t.0));
                if queued {
                    return WatchedEnd::Pending;
                }
                // Neither queued nor ended: discarded.
                failed = true;
            }
            None => failed = true,
        }
    }
    if failed {
        WatchedEnd::Failed
    } else {
        WatchedEnd::Ran { order }
    }
}
