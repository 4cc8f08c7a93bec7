//! Determinism and limits: the same program gives the same report, huge timeouts neither
//! overflow simulated time nor stop later work, the report's growth is bounded (faults capped
//! and counted, destroyed streams keep their figures), and churn of objects keeps working.

mod common;

use ascend_sim::*;
use common::*;

/// A program touching most of the simulator, for the determinism check.
fn big_program(sim: &Sim) -> String {
    let a = sim.malloc(0, 1 << 20).unwrap();
    let b = sim.malloc(0, 1 << 20).unwrap();
    let flag = sim.malloc(0, 64).unwrap();
    write_u64(sim, flag, 0);
    sim.fill(a, 1, 1 << 20).unwrap();
    let hb = host_buf(vec![7u8; 1 << 20]);
    let ss: Vec<_> = (0..4)
        .map(|i| sim.create_stream(0, i, false).unwrap())
        .collect();
    let e = sim.create_event(0).unwrap();
    let e2 = sim.create_event(0).unwrap();
    let ps = sim.create_stream(0, 0, true).unwrap();
    let ps2 = sim.create_stream(0, 0, true).unwrap();
    let m = sim.create_model(0).unwrap();
    sim.bind_stream(m, ps).unwrap();
    sim.bind_stream(m, ps2).unwrap();
    let d2d = |len| Task::Memcpy {
        dst: Loc::Device(b),
        src: Loc::Device(a),
        len,
    };
    sim.submit(ps, d2d(300_000)).unwrap();
    sim.submit(ps, Task::EventRecord(e2)).unwrap();
    sim.submit(ps2, Task::EventWait(e2)).unwrap();
    sim.submit(
        ps2,
        Task::ValueWrite {
            addr: flag + 16,
            value: 3,
        },
    )
    .unwrap();
    for round in 0..5u64 {
        let wait = Task::ValueWait {
            addr: flag,
            value: round + 1,
            mode: WaitMode::Geq,
        };
        sim.submit(ss[0], wait).unwrap();
        sim.submit(ss[0], d2d(100_000 + round * 777)).unwrap();
        let h2d = Task::Memcpy {
            dst: Loc::Device(b + 4096),
            src: Loc::Host {
                buf: hb.clone(),
                offset: 0,
            },
            len: 200_000,
        };
        sim.submit(ss[1], h2d).unwrap();
        sim.submit(ss[1], Task::EventRecord(e)).unwrap();
        sim.submit(ss[2], Task::EventWait(e)).unwrap();
        let memset = Task::Memset {
            addr: a + 8192,
            value: 3,
            len: 50_000,
        };
        sim.submit(ss[2], memset).unwrap();
        let write = Task::ValueWrite {
            addr: flag,
            value: round + 1,
        };
        sim.submit(ss[2], write).unwrap();
        sim.execute_model_async(m, ss[3]).unwrap();
        let cmo = Task::Cmo {
            op: CmoType::Prefetch,
            addr: a,
            len: 65536,
        };
        sim.submit(ss[3], cmo).unwrap();
    }
    sim.execute_model(m, None).unwrap();
    sim.synchronize_device(0, None).unwrap();
    sim.destroy_stream(ss[3], false).unwrap();
    sim.report_json()
}

#[test]
fn same_program_gives_the_same_report() {
    let r1 = big_program(&sim());
    let r2 = big_program(&sim());
    assert_eq!(r1, r2);
}

// ----- huge timeouts -----

#[test]
fn huge_timeouts_do_not_overflow_simulated_time() {
    let s = sim_with(strict);
    let a = s.malloc(0, 64).unwrap();
    write_u64(&s, a, 0);
    let st = s.create_stream(0, 0, false).unwrap();
    let n = s.create_notify(0).unwrap();
    let wait = Task::NotifyWait {
        notify: n,
        timeout_ms: Some(u64::MAX),
    };
    s.submit(st, wait).unwrap();
    // Effectively forever: the watchdog answers, the clock has not jumped.
    let r = s.synchronize_stream(st, Some(u64::MAX));
    assert!(matches!(r, Err(SimError::Stalled(_))), "{r:?}");
    assert!(s.now_ns() < 1 << 40);
    let st2 = s.create_stream(0, 0, false).unwrap();
    s.submit(st2, Task::NotifyRecord(n)).unwrap();
    s.synchronize_device(0, Some(u64::MAX)).unwrap();
    let e = s.create_event(0).unwrap();
    s.submit(st, Task::EventRecord(e)).unwrap();
    s.synchronize_event(e, Some(u64::MAX)).unwrap();
    s.charge_host(u64::MAX);
    s.submit(st, Task::ValueWrite { addr: a, value: 1 })
        .unwrap();
    s.synchronize_stream(st, Some(u64::MAX)).unwrap();
    let memset = Task::Memset {
        addr: a,
        value: 0,
        len: u64::MAX,
    };
    s.submit(st, memset).unwrap();
    assert!(matches!(
        s.synchronize_stream(st, None),
        Err(SimError::TaskFault(_))
    ));
}

#[test]
fn a_stalled_wait_with_a_huge_timeout_then_more_work() {
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
    let r = s.synchronize_stream(st, Some(u64::MAX / 1_000_000 + 1));
    assert!(matches!(r, Err(SimError::Stalled(_))), "{r:?}");
    let st2 = s.create_stream(0, 0, false).unwrap();
    s.submit(st2, Task::ValueWrite { addr: a, value: 1 })
        .unwrap();
    s.synchronize_stream(st2, None).unwrap();
    s.synchronize_stream(st, None).unwrap();
    // A finite timeout still times out.
    s.submit(
        st,
        Task::ValueWait {
            addr: a,
            value: 2,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    assert_eq!(
        s.synchronize_stream(st, Some(5))
            .err()
            .and_then(|e| e.timeout_ms()),
        Some(5)
    );
}

// ----- bounded growth -----

#[test]
fn faults_in_the_report_are_capped_and_counted() {
    let s = sim_with(|c| c.max_timeline_entries = 4);
    let st = s.create_stream(0, 0, false).unwrap();
    for _ in 0..10 {
        let w = Task::ValueWrite {
            addr: 0x1234,
            value: 1,
        };
        s.submit(st, w).unwrap();
    }
    assert!(s.synchronize_stream(st, None).is_err());
    let r = s.report();
    assert_eq!(r.faults.len(), 4);
    assert_eq!(r.faults.dropped, 6);
}

#[test]
fn churn_of_objects_keeps_working() {
    let s = sim();
    let a = s.malloc(0, 64).unwrap();
    let st = s.create_stream(0, 0, false).unwrap();
    for i in 0..1000u64 {
        let e = s.create_event(0).unwrap();
        s.submit(st, Task::EventRecord(e)).unwrap();
        s.destroy_event(e).unwrap();
        assert!(s.event_complete(e).is_err());
        let n = s.create_notify(0).unwrap();
        s.destroy_notify(n).unwrap();
        let m = s.create_model(0).unwrap();
        s.destroy_model(m).unwrap();
        assert!(s.execute_model(m, None).is_err());
        s.submit(st, Task::ValueWrite { addr: a, value: i })
            .unwrap();
    }
    s.synchronize_stream(st, None).unwrap();
    assert_eq!(read_u64(&s, a), 999);
}

#[test]
fn a_destroyed_objects_handle_stays_unknown_whatever_is_created_after_it() {
    let s = sim();
    let a = s.malloc(0, 64).unwrap();
    let old_stream = s.create_stream(0, 0, false).unwrap();
    let old_event = s.create_event(0).unwrap();
    let old_notify = s.create_notify(0).unwrap();
    let old_model = s.create_model(0).unwrap();
    s.destroy_stream(old_stream, false).unwrap();
    s.destroy_event(old_event).unwrap();
    s.destroy_notify(old_notify).unwrap();
    s.destroy_model(old_model).unwrap();
    // Ids are never handed out again, so an old handle never names a new object.
    for _ in 0..200 {
        let st = s.create_stream(0, 0, false).unwrap();
        let e = s.create_event(0).unwrap();
        let n = s.create_notify(0).unwrap();
        let m = s.create_model(0).unwrap();
        assert!(st != old_stream && e != old_event && n != old_notify && m != old_model);
        s.destroy_stream(st, true).unwrap();
        s.destroy_event(e).unwrap();
        s.destroy_notify(n).unwrap();
        s.destroy_model(m).unwrap();
    }
    let unknown = |r: Result<(), SimError>| matches!(r, Err(SimError::Unknown { .. }));
    assert!(unknown(
        s.submit(old_stream, Task::ValueWrite { addr: a, value: 1 })
            .map(|_| ())
    ));
    assert!(unknown(s.event_complete(old_event).map(|_| ())));
    assert!(unknown(s.destroy_notify(old_notify)));
    assert!(unknown(s.execute_model(old_model, None)));
    // A handle no object ever had is unknown too.
    assert!(unknown(s.synchronize_stream(StreamId(u64::MAX), None)));
}

// ----- destroyed streams in the report -----

#[test]
fn destroyed_streams_keep_their_figures_in_the_report() {
    let s = sim();
    let a = s.malloc(0, 64).unwrap();
    let s1 = s.create_stream(0, 3, false).unwrap();
    let s2 = s.create_stream(0, 0, false).unwrap();
    for st in [s1, s2] {
        s.submit(st, Task::ValueWrite { addr: a, value: 1 })
            .unwrap();
        s.submit(st, Task::ValueWrite { addr: a, value: 2 })
            .unwrap();
    }
    s.synchronize_device(0, None).unwrap();
    s.destroy_stream(s1, false).unwrap();
    let r = s.report();
    let ids: Vec<u64> = r.streams.iter().map(|x| x.stream).collect();
    assert_eq!(ids, vec![s1.0, s2.0]);
    let gone = &r.streams[0];
    assert!(gone.destroyed);
    assert_eq!((gone.tasks, gone.priority), (2, 3));
    assert!(gone.busy_ns > 0 && gone.end_ns > 0);
    assert!(!r.streams[1].destroyed);
    assert_eq!(r.streams.dropped, 0);
}
