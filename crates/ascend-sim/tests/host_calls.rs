//! Host calls on streams: a stream reaching one holds until a host thread runs it, the clock
//! stops there meanwhile (so the timeline does not depend on the host), a non-blocking call
//! lets the stream go on, and a call nobody runs is explained by the watchdog.

mod common;

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use ascend_sim::*;
use common::*;

fn host_call(call: u64, channel: u64, blocking: bool) -> HostCall {
    HostCall {
        call,
        channel,
        blocking,
    }
}

/// Runs write 1 / host call / write 2 on one stream, with the runtime-style thread taking the
/// call after `delay` of wall time; returns the stream's and the recorded event's timestamp.
fn run_with_delay(delay: Duration) -> (u64, u64, u64) {
    let sim = Arc::new(sim());
    let a = sim.malloc(0, 64).unwrap();
    write_u64(&sim, a, 0);
    let st = sim.create_stream(0, 0, false).unwrap();
    let ev = sim.create_event(0).unwrap();
    sim.submit(st, Task::ValueWrite { addr: a, value: 1 })
        .unwrap();
    sim.submit_host_call(st, host_call(7, 0, true)).unwrap();
    sim.submit(st, Task::ValueWrite { addr: a, value: 2 })
        .unwrap();
    sim.submit(st, Task::EventRecord(ev)).unwrap();
    let runner = {
        let sim = sim.clone();
        thread::spawn(move || loop {
            if let Some(c) = sim.wait_host_call(0, Duration::from_millis(20)) {
                assert_eq!((c.call, c.stream, c.blocking), (7, st.0, true));
                // The stream is held at the call: the first write is done, the second not.
                assert_eq!(read_u64(&sim, a), 1);
                thread::sleep(delay);
                assert!(sim.finish_host_call(c.task));
                return c.due_ns;
            }
        })
    };
    sim.synchronize_stream(st, None).unwrap();
    let due = runner.join().unwrap();
    assert_eq!(read_u64(&sim, a), 2);
    let at = sim.event_time_ns(ev).unwrap().unwrap();
    (due, at, sim.now_ns())
}

#[test]
fn a_blocking_host_call_holds_its_stream_and_the_timeline_ignores_how_long_the_host_took() {
    let fast = run_with_delay(Duration::ZERO);
    let slow = run_with_delay(Duration::from_millis(150));
    assert_eq!(
        fast, slow,
        "due time, event time and clock must not depend on the host"
    );
}

#[test]
fn a_non_blocking_host_call_lets_the_stream_go_on() {
    let sim = sim();
    let a = sim.malloc(0, 64).unwrap();
    let st = sim.create_stream(0, 0, false).unwrap();
    sim.submit_host_call(st, host_call(9, 5, false)).unwrap();
    sim.submit(st, Task::ValueWrite { addr: a, value: 3 })
        .unwrap();
    sim.synchronize_stream(st, None).unwrap();
    assert_eq!(read_u64(&sim, a), 3);
    // Still due for thread 5, which never took it.
    let c = sim
        .next_host_call(5, Some(1))
        .unwrap()
        .expect("the call is due");
    assert_eq!((c.call, c.blocking), (9, false));
    assert!(sim.finish_host_call(c.task));
    assert!(!sim.finish_host_call(c.task), "finished twice");
}

#[test]
fn a_host_call_nobody_runs_is_named_by_the_watchdog() {
    let sim = sim_with(strict);
    let st = sim.create_stream(0, 0, false).unwrap();
    sim.submit_host_call(st, host_call(11, 42, true)).unwrap();
    let err = sim.synchronize_stream(st, None).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("host call 11"), "{text}");
    assert!(text.contains("host thread 42"), "{text}");
    assert!(text.contains("aclrtProcessReport"), "{text}");
}

#[test]
fn a_report_thread_with_nothing_due_times_out_with_none() {
    let sim = sim();
    assert_eq!(sim.next_host_call(3, Some(5)).unwrap(), None);
}

#[test]
fn destroying_a_stream_held_at_a_host_call_forgets_the_call() {
    let sim = sim();
    let st = sim.create_stream(0, 0, false).unwrap();
    sim.submit_host_call(st, host_call(13, 0, true)).unwrap();
    let c = sim.next_host_call(0, Some(10)).unwrap().expect("due");
    sim.destroy_stream(st, true).unwrap();
    assert!(!sim.finish_host_call(c.task));
    // The clock is free again.
    let st2 = sim.create_stream(0, 0, false).unwrap();
    sim.submit(st2, Task::EventReset(sim.create_event(0).unwrap()))
        .unwrap();
    sim.synchronize_stream(st2, None).unwrap();
}
