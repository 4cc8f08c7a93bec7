//! Queue capacity, model running instances (their faults, timeouts and event order),
//! persistent streams, barrier ids.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use ascend_sim::*;
use common::*;

#[test]
fn full_plain_stream_blocks_until_another_thread_releases_it() {
    let sim = Arc::new(sim());
    let cap = sim.chip().limits.max_tasks_per_stream();
    let wait_slots = sim.chip().limits.value_wait_slots;
    let a = sim.malloc(0, 4096).unwrap();
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
    for _ in 0..cap - wait_slots {
        sim.submit(
            s,
            Task::ValueWrite {
                addr: a + 8,
                value: 5,
            },
        )
        .unwrap();
    }
    let releaser = {
        let sim = sim.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            write_u64(&sim, a, 1);
        })
    };
    let start = Instant::now();
    sim.submit(
        s,
        Task::ValueWrite {
            addr: a + 16,
            value: 9,
        },
    )
    .unwrap();
    assert!(start.elapsed() >= Duration::from_millis(90));
    releaser.join().unwrap();
    sim.synchronize_stream(s, None).unwrap();
    assert_eq!(read_u64(&sim, a + 16), 9);
    let r = sim.report();
    assert_eq!(r.streams[0].tasks, (cap - wait_slots + 2) as u64);
}

#[test]
fn model_stream_reports_queue_full() {
    let sim = sim();
    let cap = sim.chip().limits.max_tasks_per_stream();
    let a = sim.malloc(0, 64).unwrap();
    let s = sim.create_stream(0, 0, true).unwrap();
    let m = sim.create_model(0).unwrap();
    sim.bind_stream(m, s).unwrap();
    for _ in 0..cap {
        sim.submit(s, Task::ValueWrite { addr: a, value: 1 })
            .unwrap();
    }
    assert_eq!(
        sim.submit(s, Task::ValueWrite { addr: a, value: 1 }),
        Err(SimError::QueueFull(s.0))
    );
    // Nothing ran: recorded only.
    assert_eq!(sim.report().streams[0].tasks, 0);
}

#[test]
fn model_executes_its_tasks_each_time() {
    let sim = sim();
    let a = sim.malloc(0, 64).unwrap();
    let s1 = sim.create_stream(0, 0, true).unwrap();
    let s2 = sim.create_stream(0, 0, true).unwrap();
    let m = sim.create_model(0).unwrap();
    sim.bind_stream(m, s1).unwrap();
    sim.bind_stream(m, s2).unwrap();
    sim.submit(
        s1,
        Task::Memset {
            addr: a,
            value: 0,
            len: 16,
        },
    )
    .unwrap();
    sim.submit(s1, Task::ValueWrite { addr: a, value: 7 })
        .unwrap();
    sim.submit(
        s2,
        Task::ValueWrite {
            addr: a + 32,
            value: 11,
        },
    )
    .unwrap();
    // Recorded, not run.
    assert_eq!(read_u64(&sim, a), 0xA5A5_A5A5_A5A5_A5A5);
    sim.synchronize_stream(s1, None).unwrap(); // persistent: returns at once
    sim.execute_model(m, None).unwrap();
    assert_eq!(read_u64(&sim, a), 7);
    assert_eq!(read_u64(&sim, a + 8), 0);
    assert_eq!(read_u64(&sim, a + 32), 11);
    write_u64(&sim, a, 1);
    write_u64(&sim, a + 8, 1);
    sim.execute_model(m, None).unwrap();
    assert_eq!(read_u64(&sim, a), 7);
    assert_eq!(read_u64(&sim, a + 8), 0);
    let r = sim.report();
    let tasks: u64 = r.streams.iter().map(|s| s.tasks).sum();
    assert_eq!(tasks, 6);
}

#[test]
fn model_execute_async_orders_with_its_stream() {
    let sim = sim();
    let a = sim.malloc(0, 64).unwrap();
    let ms = sim.create_stream(0, 0, true).unwrap();
    let m = sim.create_model(0).unwrap();
    sim.bind_stream(m, ms).unwrap();
    sim.submit(
        ms,
        Task::Memset {
            addr: a,
            value: 3,
            len: 64,
        },
    )
    .unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(s, Task::ValueWrite { addr: a, value: 1 })
        .unwrap();
    sim.execute_model_async(m, s).unwrap();
    let last = sim
        .submit(
            s,
            Task::ValueWrite {
                addr: a + 8,
                value: 2,
            },
        )
        .unwrap();
    sim.synchronize_stream(s, None).unwrap();
    // The model's memset ran after the first write and before the last one.
    assert_eq!(read_u64(&sim, a), 0x0303_0303_0303_0303);
    assert_eq!(read_u64(&sim, a + 8), 2);
    let r = sim.report();
    let memset = r.timeline.iter().find(|t| t.kind == "Memset").unwrap();
    let run = r.timeline.iter().find(|t| t.kind == "ModelRun").unwrap();
    let w = r.timeline.iter().find(|t| t.task == last.0).unwrap();
    assert!(run.end_ns >= memset.end_ns);
    assert!(w.start_ns >= run.end_ns);
}

#[test]
fn barrier_waits_for_outstanding_invalid_cmos() {
    let sim = sim();
    let a = sim.malloc(0, 1 << 24).unwrap();
    let (s1, s2) = (
        sim.create_stream(0, 0, true).unwrap(),
        sim.create_stream(0, 0, true).unwrap(),
    );
    let m = sim.create_model(0).unwrap();
    sim.bind_stream(m, s1).unwrap();
    sim.bind_stream(m, s2).unwrap();
    sim.submit(
        s1,
        Task::CmoWithBarrier {
            op: CmoType::Invalid,
            addr: a,
            len: 1 << 24,
            barrier_id: 1,
        },
    )
    .unwrap();
    sim.submit(
        s2,
        Task::CmoWaitBarrier {
            barrier_ids: vec![1],
        },
    )
    .unwrap();
    sim.submit(s2, Task::ValueWrite { addr: a, value: 1 })
        .unwrap();
    sim.execute_model(m, None).unwrap();
    let r = sim.report();
    let cmo = r
        .timeline
        .iter()
        .find(|t| t.kind == "CmoWithBarrier")
        .unwrap();
    let bar = r
        .timeline
        .iter()
        .find(|t| t.kind == "CmoWaitBarrier")
        .unwrap();
    assert!(bar.end_ns >= cmo.end_ns, "{bar:?} {cmo:?}");
    assert_eq!(read_u64(&sim, a), 1);
    // A barrier on an id with nothing outstanding passes at once.
    sim.destroy_model(m).unwrap();
}

// ----- faults and timeouts inside a model -----

/// A model whose one task faults (a value write to freed memory).
fn faulting_model(s: &Sim) -> (ModelId, StreamId) {
    let a = s.malloc(0, 64).unwrap();
    let ps = s.create_stream(0, 0, true).unwrap();
    let m = s.create_model(0).unwrap();
    s.bind_stream(m, ps).unwrap();
    s.submit(ps, Task::ValueWrite { addr: a, value: 1 })
        .unwrap();
    s.free(0, a).unwrap();
    (m, ps)
}

#[test]
fn model_async_fault_is_reported_at_the_run_streams_synchronize() {
    let s = sim();
    let (m, ps) = faulting_model(&s);
    let st = s.create_stream(0, 0, false).unwrap();
    s.execute_model_async(m, st).unwrap();
    let r = s.synchronize_stream(st, None);
    assert!(matches!(r, Err(SimError::TaskFault(_))), "{r:?}");
    // Reported once: the next synchronize of either stream is clean.
    s.synchronize_stream(st, None).unwrap();
    s.synchronize_stream(ps, None).unwrap();
    s.synchronize_device(0, None).unwrap();
    assert_eq!(s.report().faults.len(), 1);
}

#[test]
fn model_sync_fault_is_reported_by_execute_model_once() {
    let s = sim();
    let (m, _) = faulting_model(&s);
    assert!(matches!(
        s.execute_model(m, None),
        Err(SimError::TaskFault(_))
    ));
    // A second run faults again (its own fault), and nothing is left over afterwards.
    assert!(matches!(
        s.execute_model(m, None),
        Err(SimError::TaskFault(_))
    ));
    s.synchronize_device(0, None).unwrap();
}

#[test]
fn model_notify_timeout_is_a_task_timeout_at_the_run_stream() {
    let s = sim();
    let n = s.create_notify(0).unwrap();
    let ps = s.create_stream(0, 0, true).unwrap();
    let m = s.create_model(0).unwrap();
    s.bind_stream(m, ps).unwrap();
    let wait = Task::NotifyWait {
        notify: n,
        timeout_ms: Some(1),
    };
    s.submit(ps, wait).unwrap();
    let st = s.create_stream(0, 0, false).unwrap();
    s.execute_model_async(m, st).unwrap();
    let r = s.synchronize_stream(st, None);
    assert!(matches!(r, Err(SimError::TaskTimeout(_))), "{r:?}");
    assert!(matches!(
        s.execute_model(m, None),
        Err(SimError::TaskTimeout(_))
    ));
}

// ----- event order inside a model -----

#[test]
fn model_wait_then_record_of_one_event_on_one_stream_runs() {
    let s = sim_with(strict);
    let e = s.create_event(0).unwrap();
    let st = s.create_stream(0, 0, false).unwrap();
    s.submit(st, Task::EventRecord(e)).unwrap();
    s.synchronize_stream(st, None).unwrap();
    let ps = s.create_stream(0, 0, true).unwrap();
    let m = s.create_model(0).unwrap();
    s.bind_stream(m, ps).unwrap();
    s.submit(ps, Task::EventWait(e)).unwrap();
    s.submit(ps, Task::EventRecord(e)).unwrap();
    s.execute_model(m, None).unwrap();
    // The second run waits for the first run's record.
    s.execute_model(m, None).unwrap();
    let st2 = s.create_stream(0, 0, false).unwrap();
    s.execute_model_async(m, st2).unwrap();
    s.execute_model_async(m, st2).unwrap();
    s.synchronize_stream(st2, None).unwrap();
}

#[test]
fn model_wait_waits_for_a_record_submitted_before_it_on_another_stream() {
    // Stream A is bound first but its wait is submitted after B's record: the wait is for
    // B's record of the same run (submission order), not for an older one.
    let s = sim_with(strict);
    let a = s.malloc(0, 64).unwrap();
    write_u64(&s, a, 0);
    let e = s.create_event(0).unwrap();
    let (pa, pb) = (
        s.create_stream(0, 0, true).unwrap(),
        s.create_stream(0, 0, true).unwrap(),
    );
    let m = s.create_model(0).unwrap();
    s.bind_stream(m, pa).unwrap();
    s.bind_stream(m, pb).unwrap();
    let memset = Task::Memset {
        addr: a,
        value: 9,
        len: 64,
    };
    s.submit(pb, memset).unwrap();
    s.submit(pb, Task::EventRecord(e)).unwrap();
    s.submit(pa, Task::EventWait(e)).unwrap();
    let write = Task::ValueWrite {
        addr: a + 8,
        value: 1,
    };
    s.submit(pa, write).unwrap();
    s.execute_model(m, None).unwrap();
    assert_eq!(read_u64(&s, a + 8), 1);
    assert_eq!(read_u64(&s, a), 0x0909_0909_0909_0909);
    let r = s.report();
    let span = |kind: &str| {
        r.timeline
            .iter()
            .filter(|t| t.kind == kind)
            .map(|t| (t.start_ns, t.end_ns))
            .next()
            .unwrap()
    };
    assert!(span("ValueWrite").0 >= span("EventRecord").1);
}

// ----- persistent streams -----

#[test]
fn synchronize_of_any_persistent_stream_returns_at_once() {
    let s = sim_with(strict);
    let a = s.malloc(0, 64).unwrap();
    write_u64(&s, a, 0);
    let ps = s.create_stream(0, 0, true).unwrap();
    let wait = Task::ValueWait {
        addr: a,
        value: 1,
        mode: WaitMode::Eq,
    };
    // Unbound: the task runs directly (and blocks), the synchronize does not wait for it.
    s.submit(ps, wait).unwrap();
    s.synchronize_stream(ps, None).unwrap();
    assert!(!s.stream_idle(ps).unwrap());
    write_u64(&s, a, 1);
    s.synchronize_device(0, None).unwrap();
    // Its faults surface at the device's synchronize.
    s.submit(
        ps,
        Task::ValueWrite {
            addr: 0x1234,
            value: 1,
        },
    )
    .unwrap();
    s.synchronize_stream(ps, None).unwrap();
    assert!(matches!(
        s.synchronize_device(0, None),
        Err(SimError::TaskFault(_))
    ));
}

#[test]
fn a_barrier_wait_on_310b_is_released_exactly_when_the_last_invalid_with_its_id_completes() {
    let chip = ascend_chips::ChipProfile::builtin("Ascend310B1").unwrap();
    let sim = Sim::new(chip, SimConfig::default());
    let a = sim.malloc(0, 4 << 20).unwrap();
    let b = sim.malloc(0, 64 << 10).unwrap();
    // Resident dirty lines make the INVALIDs take time (by the lines they walk).
    sim.fill(a, 1, 4 << 20).unwrap();
    sim.fill(b, 2, 64 << 10).unwrap();
    let streams: Vec<StreamId> = (0..3)
        .map(|_| sim.create_stream(0, 0, true).unwrap())
        .collect();
    let m = sim.create_model(0).unwrap();
    for &s in &streams {
        sim.bind_stream(m, s).unwrap();
    }
    let invalid = |addr, len| Task::CmoWithBarrier {
        op: CmoType::Invalid,
        addr,
        len,
        barrier_id: 3,
    };
    sim.submit(streams[0], invalid(a, 4 << 20)).unwrap();
    sim.submit(streams[1], invalid(b, 64 << 10)).unwrap();
    sim.submit(
        streams[2],
        Task::CmoWaitBarrier {
            barrier_ids: vec![3],
        },
    )
    .unwrap();
    sim.execute_model(m, None).unwrap();
    let r = sim.report();
    let ends: Vec<u64> = r
        .timeline
        .iter()
        .filter(|t| t.kind == "CmoWithBarrier")
        .map(|t| t.end_ns)
        .collect();
    assert_eq!(ends.len(), 2);
    let bar = r
        .timeline
        .iter()
        .find(|t| t.kind == "CmoWaitBarrier")
        .unwrap();
    let last = *ends.iter().max().unwrap();
    assert!(
        ends[0] != ends[1],
        "the two INVALIDs end at different times: {ends:?}"
    );
    assert_eq!(
        bar.end_ns, last,
        "released when the last INVALID with id 3 completed"
    );
    // The counter's timeline: up to 2 at dispatch, down to 0 at the last completion.
    let counts: Vec<(u64, u32)> = r
        .barriers
        .iter()
        .filter(|b| b.barrier_id == 3 && b.model == Some(m.0))
        .map(|b| (b.at_ns, b.outstanding))
        .collect();
    assert_eq!(
        counts.iter().map(|c| c.1).collect::<Vec<_>>(),
        [1, 2, 1, 0],
        "{counts:?}"
    );
    assert_eq!(counts[3].0, last);
    let trace = sim.trace_json();
    assert!(
        trace.contains(&format!("model {} barrier 3", m.0)),
        "the trace has the counter track"
    );
}

#[test]
fn synchronize_device_waits_for_its_own_streams_only_and_not_for_force_destroyed_ones() {
    let sim = sim_with(strict);
    assert!(sim.chip().limits.device_count >= 2, "needs two devices");
    let a = sim.malloc(0, 64).unwrap();
    write_u64(&sim, a, 0);
    let parked = |sim: &Sim, dev: u32| {
        let s = sim.create_stream(dev, 0, false).unwrap();
        let wait = Task::ValueWait {
            addr: a,
            value: 1,
            mode: WaitMode::Eq,
        };
        sim.submit(s, wait).unwrap();
        s
    };
    // A wait nothing releases, on device 1: device 0's synchronize does not wait for it.
    let other = parked(&sim, 1);
    let mine: Vec<_> = (0..8)
        .map(|_| sim.create_stream(0, 0, false).unwrap())
        .collect();
    for (i, s) in mine.iter().enumerate() {
        let write = Task::ValueWrite {
            addr: a + 8 + 8 * (i as u64 % 4),
            value: 7,
        };
        sim.submit(*s, write).unwrap();
    }
    sim.synchronize_device(0, None).unwrap();
    assert!(mine.iter().all(|s| sim.stream_idle(*s).unwrap()));
    // A parked stream on device 0 keeps it busy until it is destroyed by force.
    let stuck = parked(&sim, 0);
    assert!(matches!(
        sim.synchronize_device(0, None),
        Err(SimError::Stalled(_))
    ));
    sim.destroy_stream(stuck, true).unwrap();
    sim.synchronize_device(0, None).unwrap();
    // Device 1 is still busy with its own parked wait.
    assert!(!sim.stream_idle(other).unwrap());
    sim.destroy_stream(other, true).unwrap();
    sim.synchronize_device(1, None).unwrap();
}

/// A model whose stream fills 64 bytes at `a` (when given) and records `e`, queued to run on a
/// stream busy first with a long kernel; then another stream waits for `e`. Returns the run's
/// stream and the waiting one.
fn late_run_recording(s: &Sim, e: EventId, a: Option<u64>) -> (StreamId, StreamId) {
    let ms = s.create_stream(0, 0, true).unwrap();
    let m = s.create_model(0).unwrap();
    s.bind_stream(m, ms).unwrap();
    if let Some(addr) = a {
        s.submit(ms, memset(addr, 9, 64)).unwrap();
    }
    s.submit(ms, Task::EventRecord(e)).unwrap();
    let (run, external) = (
        s.create_stream(0, 0, false).unwrap(),
        s.create_stream(0, 0, false).unwrap(),
    );
    let busy = Kernel::new("busy", |c: &mut dyn KernelOps| c.spin(200_000));
    s.submit(run, kernel(busy, 1)).unwrap();
    s.execute_model_async(m, run).unwrap();
    s.submit(external, Task::EventWait(e)).unwrap();
    (run, external)
}

#[test]
fn a_wait_submitted_after_an_async_model_run_waits_for_that_runs_record_however_late_it_starts() {
    // As the vendor's model_sync_external sample: the model records an event; the host
    // queues the run, then makes another stream wait for the event and read what the model
    // wrote. The run starts late (its stream is busy first): the wait still waits for it.
    let s = sim_with(strict);
    let (a, out) = (s.malloc(0, 64).unwrap(), s.malloc(0, 64).unwrap());
    write_u64(&s, a, 0);
    write_u64(&s, out, 0);
    let e = s.create_event(0).unwrap();
    let (run, external) = late_run_recording(&s, e, Some(a));
    let copy = Task::Memcpy {
        dst: Loc::Device(out),
        src: Loc::Device(a),
        len: 64,
    };
    s.submit(external, copy).unwrap();
    s.synchronize_stream(external, None).unwrap();
    assert_eq!(
        read_u64(&s, out),
        0x0909_0909_0909_0909,
        "the copy came after the run"
    );
    s.synchronize_stream(run, None).unwrap();
}

#[test]
fn an_async_model_run_discarded_before_it_starts_releases_the_waits_for_its_record() {
    let s = sim_with(strict);
    let e = s.create_event(0).unwrap();
    let (run, external) = late_run_recording(&s, e, None);
    // The run is thrown away with its stream: the wait for its record does not hang.
    s.destroy_stream(run, true).unwrap();
    s.synchronize_stream(external, None).unwrap();
}
