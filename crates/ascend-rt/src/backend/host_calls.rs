//! [`HostCalls`]: the backend's role for host functions and callbacks that streams run on host
//! threads (`aclrtLaunchHostFunc`, `aclrtLaunchCallback`), and for the threads that process
//! them.

use super::{BResult, StreamId};

/// A host function or callback: run on a host thread each time its stream reaches it: once
/// for a task on an ordinary stream, at every run of the model for a task recorded into a
/// model (captured, or launched on a persistent stream bound to the model), which keeps the
/// function until the recording goes (the model is destroyed or the stream unbound).
pub type HostFn = Box<dyn FnMut() + Send + 'static>;

/// Runs a host function, catching a panic (it must not take a host thread down, nor unwind
/// into a library): false when it panicked.
pub(crate) fn run_host_fn(f: &mut HostFn) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_ok()
}

/// Runs a host function kept for many runs (a model's) as [`run_host_fn`] does. Only one
/// thread runs a channel's calls, so the function is busy only when it runs further up the
/// calling thread's stack (it ran its own model and processed that run's calls): that run is
/// skipped (`None`) rather than deadlocked.
pub(crate) fn run_kept_host_fn(f: &std::sync::Mutex<HostFn>) -> Option<bool> {
    let mut guard = match f.try_lock() {
        Ok(g) => g,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return None,
    };
    Some(run_host_fn(&mut guard))
}

/// Which host thread runs a host call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostCallThread {
    /// The runtime's own host-function thread (`aclrtLaunchHostFunc`).
    Runtime,
    /// The thread with this id, when it processes reports (`aclrtLaunchCallback` on a stream
    /// subscribed with `aclrtSubscribeReport`).
    Reports(u64),
    /// The thread with this id, when it processes host functions (`aclrtLaunchHostFunc` on a
    /// stream subscribed with `aclrtSubscribeHostFunc`).
    HostFuncs(u64),
}

/// Host calls on streams and the threads that run them.
pub trait HostCalls {
    /// Puts a host call on a stream: `f` runs on the host thread `thread` names when the
    /// stream reaches it; a blocking call holds the stream until `f` returns.
    ///
    /// - the stream is live and may take a task now (as for [`super::Streams::launch`]); a
    ///   `Reports` or `HostFuncs` thread is subscribed to the stream.
    fn launch_host_call(
        &self,
        stream: StreamId,
        f: HostFn,
        thread: HostCallThread,
        blocking: bool,
    ) -> BResult<()>;

    /// Runs, on the calling thread, the host calls due for `thread`, waiting up to
    /// `timeout_ms` (`None`: forever) for the first. False when none came in time.
    ///
    /// - `thread` is a `Reports` or `HostFuncs` thread: the calling one.
    fn process_host_calls(&self, thread: HostCallThread, timeout_ms: Option<u64>) -> BResult<bool>;

    /// `aclrtSubscribeReport` / `aclrtUnSubscribeReport` as the backend must know them (a real
    /// runtime keeps its own subscriptions; the simulator needs none).
    ///
    /// - an unsubscribe names a subscription the front end holds.
    fn subscribe_reports(&self, thread: u64, stream: StreamId, subscribe: bool) -> BResult<()>;

    /// The calling thread's id as the backend's `aclrtSubscribeReport` and
    /// `aclrtProcessReport` know it. A real runtime uses the thread's `pthread_t`; a model
    /// numbers its threads itself, once each (this default).
    fn caller_thread_id(&self) -> u64 {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        thread_local! {
            static ID: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
        }
        ID.with(|id| *id)
    }
}
