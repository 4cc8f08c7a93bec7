//! The host-facing synchronisation primitives of the simulator, swappable for `loom`'s.
//!
//! In a normal build this module re-exports `std::sync`; built with `RUSTFLAGS="--cfg loom"`
//! it re-exports `loom::sync`, so that loom's model checker explores every interleaving of the
//! host threads that lock the engine, wait on its condition variable and notify it (as
//! crossbeam's `primitive` module and tokio's `loom` module do). Nothing else in the crate
//! names `std::sync` for host-thread synchronisation.
//!
//! Wall-clock time does not exist in a loom model, and loom's `Condvar::wait_timeout` never
//! times out. The watchdog's timed waits therefore go through [`timed_wait`] and its elapsed
//! time through [`WallClock`]:
//!
//! - normal build: `Condvar::wait_timeout` and `Instant`;
//! - loom: a wait of at least [`UNBOUNDED_WAIT`] is modelled as an *unbounded* wait (only a
//!   notification ends it, so a lost wake-up is a deadlock that loom reports); a shorter wait
//!   is modelled as a *bounded* wait: the thread releases the lock, yields so that every other
//!   thread may run first, takes the lock again and counts the whole duration as elapsed on
//!   its (logical) wall clock. That is exactly the set of behaviours of a real timed wait whose
//!   timeout fires at some point after the other threads made some steps.

use std::time::Duration;

#[cfg(loom)]
#[allow(unused_imports)]
pub(crate) use loom::sync::{atomic, Arc, Condvar, Mutex, MutexGuard};
#[cfg(not(loom))]
#[allow(unused_imports)]
pub(crate) use std::sync::{atomic, Arc, Condvar, Mutex, MutexGuard};

use std::sync::PoisonError;

/// Starts a named thread that runs `f` and is never joined (the simulator's core thread):
/// an OS thread in a normal build, a loom thread under loom, so that the models explore the
/// hand-off between host threads and the core thread too.
pub(crate) fn spawn_detached(name: &str, f: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    #[cfg(not(loom))]
    let b = std::thread::Builder::new();
    #[cfg(loom)]
    let b = loom::thread::Builder::new();
    b.name(name.to_owned()).spawn(f).map(drop)
}

/// Waits of at least this long are modelled under loom as unbounded (never timing out); in a
/// normal build they are ordinary timed waits.
pub const UNBOUNDED_WAIT: Duration = Duration::from_secs(3600);

/// The wall time one blocking call has spent, for the watchdog.
#[derive(Debug, Clone)]
pub(crate) struct WallClock {
    #[cfg(not(loom))]
    start: std::time::Instant,
    #[cfg(loom)]
    modelled: Duration,
}

impl WallClock {
    /// A clock started now.
    pub(crate) fn start() -> WallClock {
        WallClock {
            #[cfg(not(loom))]
            start: std::time::Instant::now(),
            #[cfg(loom)]
            modelled: Duration::ZERO,
        }
    }

    /// Wall time since [`WallClock::start`] (under loom: the durations of the bounded waits
    /// that timed out).
    pub(crate) fn elapsed(&self) -> Duration {
        #[cfg(not(loom))]
        {
            self.start.elapsed()
        }
        #[cfg(loom)]
        {
            self.modelled
        }
    }
}

/// Releases `guard`, waits until `cv` is notified or `dur` passes, and takes the lock of
/// `mutex` (the one `guard` came from) again. A poisoned lock is recovered.
#[cfg_attr(not(loom), allow(unused_variables))]
pub(crate) fn timed_wait<'a, T>(
    mutex: &'a Mutex<T>,
    cv: &Condvar,
    guard: MutexGuard<'a, T>,
    dur: Duration,
    clock: &mut WallClock,
) -> MutexGuard<'a, T> {
    #[cfg(not(loom))]
    {
        cv.wait_timeout(guard, dur)
            .unwrap_or_else(PoisonError::into_inner)
            .0
    }
    #[cfg(loom)]
    {
        if dur >= UNBOUNDED_WAIT {
            cv.wait(guard).unwrap_or_else(PoisonError::into_inner)
        } else {
            drop(guard);
            loom::thread::yield_now();
            clock.modelled = clock.modelled.saturating_add(dur);
            mutex.lock().unwrap_or_else(PoisonError::into_inner)
        }
    }
}
