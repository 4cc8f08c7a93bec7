//! Loom models of the watchdog. Under loom a watchdog wait shorter than `UNBOUNDED_WAIT` is a
//! bounded wait (release the lock, let every other thread run, come back with the grace
//! elapsed; `src/sync.rs`), so these models cover every point at which the real timeout can
//! fire relative to the other host thread.
//!
//! Bound: 2 threads, preemption bound 3 (`LOOM_MAX_PREEMPTIONS` overrides
//! it); all models together take about a second in release mode.

#![cfg(loom)]

mod loom_common;

use std::time::Duration;

use ascend_sim::{OnStall, SimError};
use loom::thread;
use loom_common::*;

/// A wait nobody can satisfy (the other thread writes a non-matching value and leaves):
/// `synchronize_stream` returns `Stalled`, naming the blocked stream, in every interleaving.
#[test]
fn stall_returns_stalled_when_no_thread_can_act() {
    let chip = chip();
    check("stall_returns_stalled_when_no_thread_can_act", move || {
        let sim = sim(&chip, Duration::from_millis(10), OnStall::Error);
        let a = buffer(&sim);
        let (s1, s2) = (stream(&sim), stream(&sim));
        sim.submit(s1, wait_eq(a, 1)).unwrap();
        let other = {
            let sim = sim.clone();
            thread::spawn(move || {
                sim.submit(s2, write(a, 2)).unwrap();
                sim.synchronize_stream(s2, None).unwrap();
            })
        };
        match sim.synchronize_stream(s1, None) {
            Err(SimError::Stalled(d)) => {
                assert!(d.blocked.iter().any(|b| b.stream == s1.0), "{}", d.text)
            }
            r => panic!("expected Stalled, got {r:?}"),
        }
        other.join().unwrap();
    });
}

/// A synchronize with a timeout on a wait nobody satisfies returns `Timeout`.
#[test]
fn timed_synchronize_returns_timeout() {
    let chip = chip();
    check("timed_synchronize_returns_timeout", move || {
        let sim = sim(&chip, Duration::from_secs(5), OnStall::Wait);
        let a = buffer(&sim);
        let (s1, s2) = (stream(&sim), stream(&sim));
        sim.submit(s1, wait_eq(a, 1)).unwrap();
        let other = {
            let sim = sim.clone();
            thread::spawn(move || sim.submit(s2, write(a, 2)).unwrap())
        };
        assert_eq!(
            sim.synchronize_stream(s1, Some(5))
                .err()
                .and_then(|e| e.timeout_ms()),
            Some(5)
        );
        other.join().unwrap();
    });
}

/// `OnStall::Wait`: the watchdog speaks but keeps waiting, and a later submission still
/// releases the waiter.
#[test]
fn watchdog_wait_mode_still_released() {
    let chip = chip();
    check("watchdog_wait_mode_still_released", move || {
        let sim = sim(&chip, Duration::from_millis(10), OnStall::Wait);
        let a = buffer(&sim);
        let (s1, s2) = (stream(&sim), stream(&sim));
        sim.submit(s1, wait_eq(a, 1)).unwrap();
        let waiter = {
            let sim = sim.clone();
            thread::spawn(move || sim.synchronize_stream(s1, None))
        };
        sim.submit(s2, write(a, 1)).unwrap();
        waiter.join().unwrap().expect("released");
    });
}
