//! [`HostCallTable`]: the functions of the host calls a backend put on streams, kept by call
//! number until they have run for the last time or were dropped, and run on whichever host
//! thread takes their call (the simulator's backend, and the shared device's client, whose
//! service only knows the call numbers); and [`UndrivenHostCall`], the warning that a host
//! function waits while nothing drives the device.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::{BResult, HostFn, StreamId};

/// The shared device service numbers its processes' host calls from here on, so that the
/// simulator's backend beside it (which numbers its own from 1) takes only its own dropped
/// calls.
pub(crate) const SERVICE_CALLS_FROM: u64 = 1 << 62;

/// The functions of the host calls launched and not yet released, with their streams: a call
/// on an ordinary stream is released when it has run or is dropped; one recorded into a model
/// when the simulator reports its recording gone (the model destroyed, the stream unbound).
#[derive(Default)]
pub(crate) struct HostCallTable {
    /// The last call number given out.
    pub(crate) next: AtomicU64,
    fns: Mutex<HashMap<u64, (StreamId, SharedHostFn)>>,
}

/// A function kept for its call; a model's runs may reach it from several threads in turn.
type SharedHostFn = Arc<Mutex<HostFn>>;

impl std::fmt::Debug for HostCallTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.fns.lock().map_or(0, |m| m.len());
        write!(f, "HostCallTable({n} pending)")
    }
}

impl HostCallTable {
    pub(crate) fn insert(&self, call: u64, stream: StreamId, f: HostFn) {
        self.fns
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(call, (stream, Arc::new(Mutex::new(f))));
    }

    /// No function is kept.
    pub(crate) fn is_empty(&self) -> bool {
        self.fns
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty()
    }

    /// The function of `call`: taken out of the table when this is its last run, else shared.
    pub(crate) fn get(&self, call: u64, last: bool) -> Option<SharedHostFn> {
        let mut fns = self.fns.lock().unwrap_or_else(|p| p.into_inner());
        if last {
            fns.remove(&call).map(|(_, f)| f)
        } else {
            fns.get(&call).map(|(_, f)| f.clone())
        }
    }

    /// Runs `call`'s function on the calling thread (a panic in it is caught and logged: it
    /// must not take the host thread down), without telling the device; `repeats`: a model
    /// run's copy, whose function stays for the model's next run.
    pub(crate) fn run(&self, call: u64, repeats: bool) {
        if let Some(f) = self.get(call, !repeats) {
            match super::host_calls::run_kept_host_fn(&f) {
                Some(true) => {}
                Some(false) => tracing::error!("host call {call} panicked; its stream goes on"),
                None => tracing::error!(
                    "host call {call} was reached again while it runs on this thread (its \
                     function ran its own model and processed that run's calls); this run of it \
                     is skipped"
                ),
            }
        }
    }

    /// Forgets the functions of a stream that is gone.
    pub(crate) fn forget_stream(&self, stream: StreamId) {
        self.forget_where(|_, s| s == stream);
    }

    /// Forgets the functions of these calls (dropped without running, or their model's
    /// recording gone).
    pub(crate) fn forget_calls(&self, calls: &[u64]) {
        if !calls.is_empty() {
            let calls: std::collections::HashSet<u64> = calls.iter().copied().collect();
            self.forget_where(|call, _| calls.contains(&call));
        }
    }

    /// Takes the matching functions out under the lock and drops them after it: a function may
    /// own what calls back into the runtime when dropped (a stream, a buffer), which may come
    /// back here.
    fn forget_where(&self, gone: impl Fn(u64, StreamId) -> bool) {
        let dropped: Vec<SharedHostFn> = {
            let mut fns = self.fns.lock().unwrap_or_else(|p| p.into_inner());
            let calls: Vec<u64> = fns
                .iter()
                .filter(|(call, (s, _))| gone(**call, *s))
                .map(|(call, _)| *call)
                .collect();
            calls
                .iter()
                .filter_map(|c| fns.remove(c))
                .map(|(_, f)| f)
                .collect()
        };
        drop(dropped);
    }
}

/// Tells the program, once, that a host function waits in a stream's queue while nothing moves
/// the device: the device runs as the host's calls advance the host clock (or while a host
/// thread waits on it, or with the wall clock in the paced mode), so a program that waits for
/// the function by other means (a condition variable it signals) without calling the API
/// would wait for ever without being told.
#[derive(Debug, Default)]
pub(crate) struct UndrivenHostCall {
    /// The device's position when first seen unchanged, and since when (wall).
    since: Option<((u64, u64), std::time::Instant)>,
    /// The position last warned about.
    warned: Option<(u64, u64)>,
}

impl UndrivenHostCall {
    /// Looks at the device while the thread of `channel` waits for a host call: the warning
    /// to give, once a call of the channel has waited in a queue for the watchdog's grace
    /// with the device's position unchanged (once per position).
    pub(crate) fn check(&mut self, sim: &ascend_sim::Sim, channel: u64) -> Option<String> {
        let Some((stream, pos)) = sim.queued_host_call(channel) else {
            self.since = None;
            return None;
        };
        let since = match self.since {
            Some((p, t)) if p == pos => t,
            _ => {
                self.since = Some((pos, std::time::Instant::now()));
                return None;
            }
        };
        if since.elapsed() < sim.config().watchdog_grace || self.warned == Some(pos) {
            return None;
        }
        self.warned = Some(pos);
        Some(format!(
            "a host function waits in the queue of stream {} at {} ns, and no host call has \
             moved the simulated clock since: the device runs as the host's calls advance the \
             host clock, or while a thread waits on it (aclrtSynchronizeStream, ...). If the \
             program waits for the function by other means (a condition variable it signals) \
             without calling the API, it will wait for ever: synchronize the stream, or run with \
             ASCEND_SIM_PACING=wall so that the wall clock moves the device",
            stream.0, pos.0
        ))
    }
}

/// A backend's own host-function thread (the one that runs `aclrtLaunchHostFunc`'s functions),
/// started at the first such launch and told to stop when the backend goes.
#[derive(Debug, Default)]
pub(crate) struct HostThreadSlot(Mutex<Option<Arc<AtomicBool>>>);

impl HostThreadSlot {
    /// Starts the thread with `start`, given the flag it stops at, unless it runs already.
    pub(crate) fn ensure(&self, start: impl FnOnce(Arc<AtomicBool>) -> BResult<()>) -> BResult<()> {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            let stop = Arc::new(AtomicBool::new(false));
            start(stop.clone())?;
            *slot = Some(stop);
        }
        Ok(())
    }

    /// Tells the thread, if it runs, to stop (it notices between two of its waits).
    pub(crate) fn stop(&self) {
        if let Some(stop) = self.0.lock().unwrap_or_else(|p| p.into_inner()).take() {
            stop.store(true, Ordering::Release);
        }
    }
}
