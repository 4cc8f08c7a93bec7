//! Loom model of queue-full blocking: a host thread whose `submit` finds the stream's queue
//! full (its head is a value wait nobody has satisfied yet) blocks, and is released when the
//! queued tasks complete after another host thread's submission satisfies the wait.
//!
//! The chip's queue is shrunk so that a value wait (4 slots on A2) and two writes fill it.
//! The watchdog grace is `UNBOUNDED_WAIT`, so a lost wake-up is a deadlock loom reports.
//!
//! Bound: 2 threads, preemption bound 3 (`LOOM_MAX_PREEMPTIONS` overrides
//! it); all models together take about a second in release mode.

#![cfg(loom)]

mod loom_common;

use ascend_sim::{OnStall, UNBOUNDED_WAIT};
use loom::thread;
use loom_common::*;

#[test]
fn queue_full_submit_released_by_completion() {
    let mut chip = chip();
    let wait_slots = chip.limits.value_wait_slots.max(1);
    chip.limits.rtsq_depth = chip.limits.rtsq_reserved + wait_slots + 2;
    check("queue_full_submit_released_by_completion", move || {
        let sim = sim(&chip, UNBOUNDED_WAIT, OnStall::Error);
        let (a, b) = (buffer(&sim), buffer(&sim));
        let (s1, s2) = (stream(&sim), stream(&sim));
        sim.submit(s1, wait_eq(a, 1)).unwrap();
        sim.submit(s1, write(b, 1)).unwrap();
        sim.submit(s1, write(b, 2)).unwrap();
        // The queue of s1 is full now: the next submit blocks until the wait completes.
        let blocked = {
            let sim = sim.clone();
            thread::spawn(move || {
                sim.submit(s1, write(b, 3)).expect("submit released");
                sim.synchronize_stream(s1, None).expect("s1 drains");
                assert_eq!(read_u64(&sim, b), 3);
            })
        };
        sim.submit(s2, write(a, 1)).unwrap();
        blocked.join().unwrap();
    });
}
