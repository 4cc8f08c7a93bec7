//! Value write / value wait through the host API: compare modes, threads, watchdog, timeouts,
//! frees under a wait.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ascend_sim::*;
use common::*;

/// Runs one wait on a word holding `m` for operand `v`; true if it released.
fn releases(geq: GeqSemantics, mode: WaitMode, m: u64, v: u64) -> bool {
    let sim = sim_with(|c| c.geq = geq);
    let a = sim.malloc(0, 64).unwrap();
    write_u64(&sim, a, m);
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(
        s,
        Task::ValueWait {
            addr: a,
            value: v,
            mode,
        },
    )
    .unwrap();
    match sim.synchronize_stream(s, Some(1)) {
        Ok(()) => true,
        Err(e) if e.timeout_ms() == Some(1) => false,
        Err(e) => panic!("unexpected {e}"),
    }
}

#[test]
fn each_mode_satisfied_and_not() {
    use WaitMode::*;
    let g = GeqSemantics::SignedIsa;
    assert!(releases(g, Geq, 5, 3));
    assert!(!releases(g, Geq, 3, 5));
    assert!(releases(g, Eq, 100, 100));
    assert!(!releases(g, Eq, 99, 100));
    assert!(releases(g, And, 0b110, 0b010));
    assert!(!releases(g, And, 0b100, 0b011));
    assert!(releases(g, Nor, 0, 0));
    assert!(!releases(g, Nor, u64::MAX, 0));
}

#[test]
fn geq_counter_examples_through_the_simulator() {
    use GeqSemantics::*;
    let min = 0x8000_0000_0000_0000;
    let max = 0x7FFF_FFFF_FFFF_FFFF;
    assert!(releases(Cyclic, WaitMode::Geq, min, 1));
    assert!(!releases(SignedIsa, WaitMode::Geq, min, 1));
    assert!(releases(SignedIsa, WaitMode::Geq, max, min));
    assert!(!releases(Cyclic, WaitMode::Geq, max, min));
}

#[test]
fn write_on_another_stream_releases_wait_with_pass_timing() {
    let sim = sim();
    let t = sim.chip().timing;
    let a = sim.malloc(0, 64).unwrap();
    write_u64(&sim, a, 0);
    let (sa, sb) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    sim.submit(
        sa,
        Task::ValueWait {
            addr: a,
            value: 1,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    // Let the wait poll a while (several passes) before the write is submitted.
    let t0 = sim.now_ns();
    sim.charge_host(100_000);
    sim.submit(sb, Task::ValueWrite { addr: a, value: 1 })
        .unwrap();
    sim.synchronize_stream(sa, None).unwrap();
    let r = sim.report();
    assert_eq!(r.value_waits.len(), 1);
    let w = &r.value_waits[0];
    let pass = 2 * t.sqe_dispatch_ns + t.poll_reads_per_pass as u64 * t.poll_read_ns;
    assert!(w.passes >= 100_000 / pass, "{w:?}");
    // Written 100 µs after the wait's submission + the launch + dispatch + write latency;
    // seen at the next poll read.
    let written = t0 + 100_000 + t.sqe_dispatch_ns + t.value_write_ns;
    assert!(w.end_ns >= written && w.end_ns <= written + pass, "{w:?}");
    assert_eq!(r.never_written_reads, 0);
}

#[test]
fn waiter_thread_blocks_until_writer_thread_submits() {
    let sim = Arc::new(sim());
    let a = sim.malloc(0, 1 << 20).unwrap();
    write_u64(&sim, a, 0);
    let sa = sim.create_stream(0, 0, false).unwrap();
    let sb = sim.create_stream(0, 0, false).unwrap();
    let written = Arc::new(AtomicBool::new(false));
    let waiter = {
        let (sim, written) = (sim.clone(), written.clone());
        std::thread::spawn(move || {
            sim.submit(
                sa,
                Task::ValueWait {
                    addr: a,
                    value: 100,
                    mode: WaitMode::Eq,
                },
            )
            .unwrap();
            sim.synchronize_stream(sa, None).unwrap();
            written.load(Ordering::SeqCst)
        })
    };
    let start = Instant::now();
    std::thread::sleep(Duration::from_millis(200));
    written.store(true, Ordering::SeqCst);
    sim.submit(
        sb,
        Task::ValueWrite {
            addr: a,
            value: 100,
        },
    )
    .unwrap();
    sim.synchronize_stream(sb, None).unwrap();
    assert!(waiter.join().unwrap(), "waiter returned before the write");
    assert!(start.elapsed() >= Duration::from_millis(200));
    assert_eq!(read_u64(&sim, a), 100);
}

#[test]
fn watchdog_reports_a_wait_that_can_never_be_satisfied() {
    let sim = sim_with(strict);
    let a = sim.malloc(0, 64).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(
        s,
        Task::ValueWait {
            addr: a,
            value: 100,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    let start = Instant::now();
    let err = sim.synchronize_stream(s, None).unwrap_err();
    assert!(start.elapsed() >= Duration::from_millis(100));
    let SimError::Stalled(d) = err else {
        panic!("expected Stalled, got {err}")
    };
    assert_eq!(d.blocked.len(), 1);
    let w = &d.blocked[0].waiting_for;
    assert!(w.contains(&format!("{a:#x}")), "{w}");
    assert!(
        w.contains("EQ: mem 0xa5a5a5a5a5a5a5a5 == 0x64 is false"),
        "{w}"
    );
    assert!(
        w.contains("never written, poison 0xa5a5a5a5a5a5a5a5"),
        "{w}"
    );
    // The diagnosis made during the wait also names the host thread's wait; one made after
    // it ended names the same blocked streams and no host wait.
    assert_eq!(d.host_waits.len(), 1, "{:?}", d.host_waits);
    assert!(
        d.host_waits[0].starts_with(&format!("a synchronize of stream {} (on ", s.0)),
        "the wait and the thread: {:?}",
        d.host_waits
    );
    let later = sim.diagnose().expect("still stalled");
    assert_eq!(later.blocked, d.blocked);
    assert!(later.host_waits.is_empty());
    assert!(sim.report().never_written_reads >= 1);
}

#[test]
fn a_destroy_of_a_stream_blocked_forever_waits_and_the_watchdog_names_it() {
    let sim = std::sync::Arc::new(sim_with(|c| {
        c.on_stall = OnStall::Wait;
        c.watchdog_grace = Duration::from_millis(50);
    }));
    let a = sim.malloc(0, 64).unwrap();
    write_u64(&sim, a, 0);
    let s = sim.create_stream(0, 0, false).unwrap();
    let wait = Task::ValueWait {
        addr: a,
        value: 7,
        mode: WaitMode::Eq,
    };
    sim.submit(s, wait).unwrap();
    let destroyer = {
        let sim = sim.clone();
        std::thread::spawn(move || sim.destroy_stream(s, false))
    };
    // The destroy waits (as CANN's does, with no timeout); meanwhile the diagnosis names it.
    let start = Instant::now();
    let text = loop {
        if let Some(d) = sim.diagnose().filter(|d| !d.host_waits.is_empty()) {
            break d.text;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "no diagnosis");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(
        text.contains(&format!("host thread waits in a destroy of stream {}", s.0)),
        "{text}"
    );
    assert!(text.contains("value wait on"), "{text}");
    assert!(
        !destroyer.is_finished(),
        "the destroy returned before the release"
    );
    // Another host thread's write releases the stream; the destroy then completes.
    write_u64(&sim, a, 7);
    destroyer.join().unwrap().unwrap();
    assert!(sim.diagnose().is_none());
}

#[test]
fn diagnosis_names_the_last_writer() {
    let sim = sim_with(strict);
    let a = sim.malloc(0, 64).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    let w = sim.create_stream(0, 0, false).unwrap();
    let wt = sim
        .submit(w, Task::ValueWrite { addr: a, value: 3 })
        .unwrap();
    sim.synchronize_stream(w, None).unwrap();
    sim.submit(
        s,
        Task::ValueWait {
            addr: a,
            value: 4,
            mode: WaitMode::Geq,
        },
    )
    .unwrap();
    let Err(SimError::Stalled(d)) = sim.synchronize_device(0, None) else {
        panic!("expected a stall")
    };
    let text = &d.blocked[0].waiting_for;
    assert!(
        text.contains("GEQ (signed): (i64)mem 3 >= (i64)4 is false"),
        "{text}"
    );
    assert!(
        text.contains(&format!("last written by task {}", wt.0)),
        "{text}"
    );
}

#[test]
fn timed_synchronize_times_out_in_simulated_time() {
    let sim = sim();
    let a = sim.malloc(0, 64).unwrap();
    write_u64(&sim, a, 0);
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(
        s,
        Task::ValueWait {
            addr: a,
            value: 1,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    let before = sim.now_ns();
    assert_eq!(
        sim.synchronize_stream(s, Some(5))
            .err()
            .and_then(|e| e.timeout_ms()),
        Some(5)
    );
    assert_eq!(sim.now_ns(), before + 5_000_000);
    // A later write still releases it.
    write_u64(&sim, a, 1);
    sim.synchronize_stream(s, Some(5)).unwrap();
}

#[test]
fn wait_on_freed_memory_faults_once() {
    let sim = sim();
    let a = sim.malloc(0, 64).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(
        s,
        Task::ValueWait {
            addr: a,
            value: 1,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    sim.free(0, a).unwrap();
    let e = sim.synchronize_stream(s, None).unwrap_err();
    assert!(
        matches!(&e, SimError::TaskFault(t) if t.contains("freed")),
        "{e}"
    );
    sim.synchronize_stream(s, None).unwrap();
}

#[test]
fn free_under_a_parked_value_wait_faults_it() {
    let s = sim_with(strict);
    let a = s.malloc(0, 64).unwrap();
    write_u64(&s, a, 0);
    let st = s.create_stream(0, 0, false).unwrap();
    let wait = Task::ValueWait {
        addr: a,
        value: 1,
        mode: WaitMode::Eq,
    };
    s.submit(st, wait).unwrap();
    s.charge_host(100_000);
    s.free(0, a).unwrap();
    let r = s.synchronize_stream(st, None);
    match r {
        Err(SimError::TaskFault(m)) => assert!(m.contains("freed"), "{m}"),
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn a_wait_whose_releasing_write_is_queued_behind_it_on_its_stream_is_named_as_waiting_for_itself() {
    let sim = sim_with(strict);
    let a = sim.malloc(0, 64).unwrap();
    write_u64(&sim, a, 0);
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(
        s,
        Task::ValueWait {
            addr: a,
            value: 7,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    let wt = sim
        .submit(s, Task::ValueWrite { addr: a, value: 7 })
        .unwrap();
    let Err(SimError::Stalled(d)) = sim.synchronize_device(0, None) else {
        panic!("expected a stall")
    };
    let text = &d.blocked[0].waiting_for;
    assert!(
        text.contains(&format!(
            "it waits for itself: task {} on this stream writes 7 to this address (which would \
             release it), but runs only after this wait",
            wt.0
        )),
        "{text}"
    );
}

#[test]
fn a_wait_whose_releasing_write_waits_for_an_event_recorded_behind_it_is_named_as_waiting_for_itself(
) {
    let sim = sim_with(strict);
    let a = sim.malloc(0, 64).unwrap();
    write_u64(&sim, a, 0);
    let s1 = sim.create_stream(0, 0, false).unwrap();
    let s2 = sim.create_stream(0, 0, false).unwrap();
    let e = sim.create_event(0).unwrap();
    sim.submit(
        s1,
        Task::ValueWait {
            addr: a,
            value: 7,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    sim.submit(s1, Task::EventRecord(e)).unwrap();
    sim.submit(s2, Task::EventWait(e)).unwrap();
    let wt = sim
        .submit(s2, Task::ValueWrite { addr: a, value: 7 })
        .unwrap();
    let Err(SimError::Stalled(d)) = sim.synchronize_device(0, None) else {
        panic!("expected a stall")
    };
    let wait = d
        .blocked
        .iter()
        .find(|b| b.stream == s1.0)
        .expect("stream 1");
    assert!(
        wait.waiting_for.contains(&format!(
            "task {} on stream {} (behind a wait for an event this stream records after this \
             wait) writes 7",
            wt.0, s2.0
        )),
        "{}",
        wait.waiting_for
    );
    assert!(d.text.contains("it waits for itself"), "{}", d.text);
}

#[test]
fn a_wait_released_by_another_stream_is_not_said_to_wait_for_itself() {
    let sim = sim_with(strict);
    let a = sim.malloc(0, 64).unwrap();
    write_u64(&sim, a, 0);
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(
        s,
        Task::ValueWait {
            addr: a,
            value: 7,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    let Err(SimError::Stalled(d)) = sim.synchronize_device(0, None) else {
        panic!("expected a stall")
    };
    assert!(!d.text.contains("waits for itself"), "{}", d.text);
}

#[test]
fn a_streams_waiting_is_counted_apart_from_its_work() {
    let sim = sim();
    let flag = sim.malloc(0, 64).unwrap();
    let buf = sim.malloc(0, 4096).unwrap();
    sim.fill(flag, 0, 64).unwrap();
    let (waiter, worker) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    let wait = Task::ValueWait {
        addr: flag,
        value: 1,
        mode: WaitMode::Eq,
    };
    sim.submit(waiter, wait).unwrap();
    sim.submit(worker, memset(buf, 1, 4096)).unwrap();
    sim.submit(
        worker,
        Task::ValueWrite {
            addr: flag,
            value: 1,
        },
    )
    .unwrap();
    sim.synchronize_device(0, None).unwrap();
    let r = sim.report();
    let of = |s: StreamId| r.streams.iter().find(|x| x.stream == s.0).unwrap().clone();
    let (w, k) = (of(waiter), of(worker));
    assert!(w.wait_ns > 0 && w.wait_ns == w.busy_ns, "{w:?}");
    assert_eq!(k.wait_ns, 0, "{k:?}");
}
