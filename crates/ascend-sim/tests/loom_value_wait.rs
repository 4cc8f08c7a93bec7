//! Loom models of value waits released by another host thread's submission: a host thread
//! blocked in `synchronize_stream` on a stream whose head is a value wait, and writers whose
//! `submit` of a value write releases it. The models run the real `Sim` (its mutex, condition
//! variable and watchdog loop come from `loom` under `--cfg loom`, see `src/sync.rs`).
//!
//! The watchdog grace is `UNBOUNDED_WAIT`: a stalled waiter sleeps until notified, so a lost
//! wake-up shows up as a deadlock, which loom reports.
//!
//! Bound: at most 3 threads, preemption bound 3 (`LOOM_MAX_PREEMPTIONS` overrides
//! it); all models together take about a second in release mode.
//! Run: `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p ascend-sim
//! --release --test 'loom_*' -- --nocapture`.

#![cfg(loom)]

mod loom_common;

use ascend_sim::{OnStall, UNBOUNDED_WAIT};
use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use loom::thread;
use loom_common::*;

/// One waiter, one writer: the writer's submission releases the waiter (no lost wake-up, no
/// deadlock), whichever runs first.
#[test]
fn waiter_released_by_writers_submit() {
    let chip = chip();
    check("waiter_released_by_writers_submit", move || {
        let sim = sim(&chip, UNBOUNDED_WAIT, OnStall::Error);
        let a = buffer(&sim);
        let (s1, s2) = (stream(&sim), stream(&sim));
        sim.submit(s1, wait_eq(a, 1)).unwrap();
        let waiter = {
            let sim = sim.clone();
            thread::spawn(move || sim.synchronize_stream(s1, None))
        };
        sim.submit(s2, write(a, 1)).unwrap();
        waiter.join().unwrap().expect("the waiter is released");
        assert_eq!(read_u64(&sim, a), 1);
    });
}

/// The waiter is woken only when the stream's condition holds: a first, non-matching write
/// does not release it; it returns only after the matching write was submitted.
#[test]
fn waiter_not_released_before_condition() {
    let chip = chip();
    check("waiter_not_released_before_condition", move || {
        let sim = sim(&chip, UNBOUNDED_WAIT, OnStall::Error);
        let a = buffer(&sim);
        let (s1, s2) = (stream(&sim), stream(&sim));
        sim.submit(s1, wait_eq(a, 7)).unwrap();
        let released = Arc::new(AtomicBool::new(false));
        let waiter = {
            let (sim, released) = (sim.clone(), released.clone());
            thread::spawn(move || {
                sim.synchronize_stream(s1, None).expect("released");
                assert!(
                    released.load(Ordering::Acquire),
                    "the waiter returned before the matching write was submitted"
                );
                assert_eq!(read_u64(&sim, a), 7);
            })
        };
        sim.submit(s2, write(a, 3)).unwrap();
        released.store(true, Ordering::Release);
        sim.submit(s2, write(a, 7)).unwrap();
        waiter.join().unwrap();
    });
}

/// Two waiters on two streams (one waits for the value, the other for a later one) and one
/// writer: both are released, each only by its own condition.
#[test]
fn two_waiters_one_writer() {
    let chip = chip();
    check("two_waiters_one_writer", move || {
        let sim = sim(&chip, UNBOUNDED_WAIT, OnStall::Error);
        let a = buffer(&sim);
        let (s1, s2, s3) = (stream(&sim), stream(&sim), stream(&sim));
        sim.submit(s1, wait_eq(a, 1)).unwrap();
        sim.submit(s2, wait_eq(a, 2)).unwrap();
        let second = Arc::new(AtomicBool::new(false));
        let w1 = {
            let sim = sim.clone();
            thread::spawn(move || sim.synchronize_stream(s1, None))
        };
        let w2 = {
            let (sim, second) = (sim.clone(), second.clone());
            thread::spawn(move || {
                let r = sim.synchronize_stream(s2, None);
                assert!(second.load(Ordering::Acquire), "released before a == 2");
                r
            })
        };
        sim.submit(s3, write(a, 1)).unwrap();
        // s1 must have seen 1 before it is overwritten: order it on the device.
        sim.submit(s3, ascend_sim::Task::EventWait(event_after(&sim, s1)))
            .unwrap();
        second.store(true, Ordering::Release);
        sim.submit(s3, write(a, 2)).unwrap();
        w1.join().unwrap().expect("waiter 1 released");
        w2.join().unwrap().expect("waiter 2 released");
    });
}

/// An event recorded on `s` after everything submitted to it so far.
fn event_after(sim: &ascend_sim::Sim, s: ascend_sim::StreamId) -> ascend_sim::EventId {
    let e = sim.create_event(0).unwrap();
    sim.submit(s, ascend_sim::Task::EventRecord(e)).unwrap();
    e
}
