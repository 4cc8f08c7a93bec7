//! Regressions of the second review of the simulator: model faults and event order, huge
//! lengths and timeouts, frees under value waits, lazy backing, allocation speed, bounded
//! growth, persistent streams and destroyed streams in the report.

mod common;

use std::time::{Duration, Instant};

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
    let d2d = |len| TaskKind::Memcpy {
        dst: Loc::Device(b),
        src: Loc::Device(a),
        len,
    };
    sim.submit(ps, d2d(300_000)).unwrap();
    sim.submit(ps, TaskKind::EventRecord(e2)).unwrap();
    sim.submit(ps2, TaskKind::EventWait(e2)).unwrap();
    sim.submit(
        ps2,
        TaskKind::ValueWrite {
            addr: flag + 16,
            value: 3,
        },
    )
    .unwrap();
    for round in 0..5u64 {
        let wait = TaskKind::ValueWait {
            addr: flag,
            value: round + 1,
            mode: WaitMode::Geq,
        };
        sim.submit(ss[0], wait).unwrap();
        sim.submit(ss[0], d2d(100_000 + round * 777)).unwrap();
        let h2d = TaskKind::Memcpy {
            dst: Loc::Device(b + 4096),
            src: Loc::Host {
                buf: hb.clone(),
                offset: 0,
            },
            len: 200_000,
        };
        sim.submit(ss[1], h2d).unwrap();
        sim.submit(ss[1], TaskKind::EventRecord(e)).unwrap();
        sim.submit(ss[2], TaskKind::EventWait(e)).unwrap();
        let memset = TaskKind::Memset {
            addr: a + 8192,
            value: 3,
            len: 50_000,
        };
        sim.submit(ss[2], memset).unwrap();
        let write = TaskKind::ValueWrite {
            addr: flag,
            value: round + 1,
        };
        sim.submit(ss[2], write).unwrap();
        sim.execute_model_async(m, ss[3]).unwrap();
        let cmo = TaskKind::Cmo {
            op: CmoOp::Prefetch,
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

// ----- 1. model faults -----

/// A model whose one task faults (a value write to freed memory).
fn faulting_model(s: &Sim) -> (ModelId, StreamId) {
    let a = s.malloc(0, 64).unwrap();
    let ps = s.create_stream(0, 0, true).unwrap();
    let m = s.create_model(0).unwrap();
    s.bind_stream(m, ps).unwrap();
    s.submit(ps, TaskKind::ValueWrite { addr: a, value: 1 })
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
    let wait = TaskKind::NotifyWait {
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

// ----- 2. event order inside a model -----

#[test]
fn model_wait_then_record_of_one_event_on_one_stream_runs() {
    let s = sim_with(strict);
    let e = s.create_event(0).unwrap();
    let st = s.create_stream(0, 0, false).unwrap();
    s.submit(st, TaskKind::EventRecord(e)).unwrap();
    s.synchronize_stream(st, None).unwrap();
    let ps = s.create_stream(0, 0, true).unwrap();
    let m = s.create_model(0).unwrap();
    s.bind_stream(m, ps).unwrap();
    s.submit(ps, TaskKind::EventWait(e)).unwrap();
    s.submit(ps, TaskKind::EventRecord(e)).unwrap();
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
    let memset = TaskKind::Memset {
        addr: a,
        value: 9,
        len: 64,
    };
    s.submit(pb, memset).unwrap();
    s.submit(pb, TaskKind::EventRecord(e)).unwrap();
    s.submit(pa, TaskKind::EventWait(e)).unwrap();
    let write = TaskKind::ValueWrite {
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

// ----- 3. huge copies -----

#[test]
fn memcpy_with_a_huge_length_faults_without_allocating() {
    let s = sim();
    let st = s.create_stream(0, 0, false).unwrap();
    let d = s.malloc(0, 64).unwrap();
    let hb = host_buf(vec![0u8; 64]);
    let tasks = [
        (Loc::Device(d), Loc::Device(0x1234)),
        (Loc::Device(d), Loc::Device(d)),
        (
            Loc::Host {
                buf: hb.clone(),
                offset: 0,
            },
            Loc::Device(d),
        ),
        (
            Loc::Device(d),
            Loc::Host {
                buf: hb.clone(),
                offset: 0,
            },
        ),
    ];
    for (dst, src) in tasks {
        let copy = TaskKind::Memcpy {
            dst,
            src,
            len: u64::MAX,
        };
        s.submit(st, copy).unwrap();
        let r = s.synchronize_stream(st, None);
        assert!(matches!(r, Err(SimError::TaskFault(_))), "{r:?}");
    }
}

#[test]
fn device_copies_across_pages_behave_as_memmove() {
    let s = sim();
    let len = 300_000u64;
    let a = s.malloc(0, len).unwrap();
    let data: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
    s.write(a, &data).unwrap();
    let mut shadow = data.clone();
    let st = s.create_stream(0, 0, false).unwrap();
    // Forward-overlapping, backward-overlapping and page-aligned copies.
    for (dst, src, n) in [
        (1000u64, 70_000u64, 150_000u64),
        (80_000, 3, 200_000),
        (0, 131_072, 131_072),
    ] {
        let copy = TaskKind::Memcpy {
            dst: Loc::Device(a + dst),
            src: Loc::Device(a + src),
            len: n,
        };
        s.submit(st, copy).unwrap();
        shadow.copy_within(src as usize..(src + n) as usize, dst as usize);
    }
    s.synchronize_stream(st, None).unwrap();
    let mut out = vec![0u8; len as usize];
    s.read(a, &mut out).unwrap();
    assert!(out == shadow);
}

// ----- 4. huge timeouts -----

#[test]
fn huge_timeouts_do_not_overflow_simulated_time() {
    let s = sim_with(strict);
    let a = s.malloc(0, 64).unwrap();
    write_u64(&s, a, 0);
    let st = s.create_stream(0, 0, false).unwrap();
    let n = s.create_notify(0).unwrap();
    let wait = TaskKind::NotifyWait {
        notify: n,
        timeout_ms: Some(u64::MAX),
    };
    s.submit(st, wait).unwrap();
    // Effectively forever: the watchdog answers, the clock has not jumped.
    let r = s.synchronize_stream(st, Some(u64::MAX));
    assert!(matches!(r, Err(SimError::Stalled(_))), "{r:?}");
    assert!(s.now_ns() < 1 << 40);
    let st2 = s.create_stream(0, 0, false).unwrap();
    s.submit(st2, TaskKind::NotifyRecord(n)).unwrap();
    s.synchronize_device(0, Some(u64::MAX)).unwrap();
    let e = s.create_event(0).unwrap();
    s.submit(st, TaskKind::EventRecord(e)).unwrap();
    s.synchronize_event(e, Some(u64::MAX)).unwrap();
    s.charge_host(u64::MAX);
    s.submit(st, TaskKind::ValueWrite { addr: a, value: 1 })
        .unwrap();
    s.synchronize_stream(st, Some(u64::MAX)).unwrap();
    let memset = TaskKind::Memset {
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
    let wait = TaskKind::ValueWait {
        addr: a,
        value: 1,
        mode: WaitMode::Eq,
    };
    s.submit(st, wait).unwrap();
    let r = s.synchronize_stream(st, Some(u64::MAX / 1_000_000 + 1));
    assert!(matches!(r, Err(SimError::Stalled(_))), "{r:?}");
    let st2 = s.create_stream(0, 0, false).unwrap();
    s.submit(st2, TaskKind::ValueWrite { addr: a, value: 1 })
        .unwrap();
    s.synchronize_stream(st2, None).unwrap();
    s.synchronize_stream(st, None).unwrap();
    // A finite timeout still times out.
    s.submit(
        st,
        TaskKind::ValueWait {
            addr: a,
            value: 2,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    assert_eq!(s.synchronize_stream(st, Some(5)), Err(SimError::Timeout(5)));
}

// ----- 5. free under a value wait -----

#[test]
fn free_under_a_parked_value_wait_faults_it() {
    let s = sim_with(strict);
    let a = s.malloc(0, 64).unwrap();
    write_u64(&s, a, 0);
    let st = s.create_stream(0, 0, false).unwrap();
    let wait = TaskKind::ValueWait {
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

// ----- 6. and 7. lazy backing -----

#[test]
fn a_gib_fill_costs_no_backing_until_partly_written() {
    let s = sim();
    let len = 1u64 << 30;
    let a = s.malloc(0, len).unwrap();
    let st = s.create_stream(0, 0, false).unwrap();
    let memset = TaskKind::Memset {
        addr: a,
        value: 0x3C,
        len,
    };
    s.submit(st, memset).unwrap();
    s.synchronize_stream(st, None).unwrap();
    s.fill(a + 100, 0x11, len - 200).unwrap();
    let page = s.chip().memory.backing_page_bytes;
    assert!(s.backing_bytes() <= 2 * page, "{}", s.backing_bytes());
    let mut b = [0u8; 4];
    s.read(a + 98, &mut b).unwrap();
    assert_eq!(b, [0x3C, 0x3C, 0x11, 0x11]);
    s.read(a + len / 2, &mut b).unwrap();
    assert_eq!(b, [0x11; 4]);
    // A partial write materialises one page; the rest still reads as filled.
    write_u64(&s, a + len / 2 + 8, 5);
    assert!(s.backing_bytes() <= 3 * page);
    assert_eq!(read_u64(&s, a + len / 2 + 8), 5);
    assert_eq!(read_u64(&s, a + len / 2), 0x1111_1111_1111_1111);
    assert_eq!(read_u64(&s, a + len / 2 + 16), 0x1111_1111_1111_1111);
    // A copy of filled pages stays uniform.
    let b2 = s.malloc(0, len / 4).unwrap();
    s.copy(b2, a + len / 2, len / 4).unwrap();
    assert!(s.backing_bytes() <= 5 * page);
    assert_eq!(read_u64(&s, b2 + 8), 5);
    assert_eq!(read_u64(&s, b2 + len / 8), 0x1111_1111_1111_1111);
    s.free(0, a).unwrap();
    s.free(0, b2).unwrap();
    assert_eq!(s.backing_bytes(), 0);
}

#[test]
fn pages_no_live_allocation_overlaps_are_released() {
    let s = sim();
    let v: Vec<_> = (0..100)
        .map(|_| {
            let a = s.malloc(0, 512).unwrap();
            write_u64(&s, a, 1);
            a
        })
        .collect();
    assert!(s.backing_bytes() > 0);
    // Freeing one of a page's allocations keeps the page for the others.
    s.free(0, v[1]).unwrap();
    assert_eq!(read_u64(&s, v[0]), 1);
    assert_eq!(read_u64(&s, v[2]), 1);
    for (i, &a) in v.iter().enumerate() {
        if i != 1 {
            s.free(0, a).unwrap();
        }
    }
    assert_eq!(s.backing_bytes(), 0);
}

// ----- 8. allocation speed and placement -----

#[test]
fn many_allocations_are_fast_and_first_fit() {
    let s = sim();
    let t = Instant::now();
    let v: Vec<_> = (0..40_000).map(|_| s.malloc(0, 64).unwrap()).collect();
    // Generous for unoptimised builds; a release build takes a few ms.
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    let align = s.chip().memory.base_alignment;
    assert!(v.windows(2).all(|w| w[1] == w[0] + align));
    // Holes are refilled lowest first; a request too big for a hole goes past it.
    s.free(0, v[10]).unwrap();
    s.free(0, v[11]).unwrap();
    s.free(0, v[20]).unwrap();
    assert_eq!(s.malloc(0, 2 * align).unwrap(), v[10]);
    assert_eq!(s.malloc(0, 1).unwrap(), v[20]);
    assert_eq!(s.malloc(0, 1).unwrap(), v[39_999] + align);
}

// ----- 9. bounded growth -----

#[test]
fn faults_in_the_report_are_capped_and_counted() {
    let s = sim_with(|c| c.max_timeline_entries = 4);
    let st = s.create_stream(0, 0, false).unwrap();
    for _ in 0..10 {
        let w = TaskKind::ValueWrite {
            addr: 0x1234,
            value: 1,
        };
        s.submit(st, w).unwrap();
    }
    assert!(s.synchronize_stream(st, None).is_err());
    let r = s.report();
    assert_eq!(r.faults.len(), 4);
    assert_eq!(r.faults_dropped, 6);
}

#[test]
fn churn_of_objects_keeps_working() {
    let s = sim();
    let a = s.malloc(0, 64).unwrap();
    let st = s.create_stream(0, 0, false).unwrap();
    for i in 0..1000u64 {
        let e = s.create_event(0).unwrap();
        s.submit(st, TaskKind::EventRecord(e)).unwrap();
        s.destroy_event(e).unwrap();
        assert!(s.event_complete(e).is_err());
        let n = s.create_notify(0).unwrap();
        s.destroy_notify(n).unwrap();
        let m = s.create_model(0).unwrap();
        s.destroy_model(m).unwrap();
        assert!(s.execute_model(m, None).is_err());
        s.submit(st, TaskKind::ValueWrite { addr: a, value: i })
            .unwrap();
    }
    s.synchronize_stream(st, None).unwrap();
    assert_eq!(read_u64(&s, a), 999);
}

// ----- 10. persistent streams -----

#[test]
fn synchronize_of_any_persistent_stream_returns_at_once() {
    let s = sim_with(strict);
    let a = s.malloc(0, 64).unwrap();
    write_u64(&s, a, 0);
    let ps = s.create_stream(0, 0, true).unwrap();
    let wait = TaskKind::ValueWait {
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
        TaskKind::ValueWrite {
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

// ----- 11. destroyed streams in the report -----

#[test]
fn destroyed_streams_keep_their_figures_in_the_report() {
    let s = sim();
    let a = s.malloc(0, 64).unwrap();
    let s1 = s.create_stream(0, 3, false).unwrap();
    let s2 = s.create_stream(0, 0, false).unwrap();
    for st in [s1, s2] {
        s.submit(st, TaskKind::ValueWrite { addr: a, value: 1 })
            .unwrap();
        s.submit(st, TaskKind::ValueWrite { addr: a, value: 2 })
            .unwrap();
    }
    s.synchronize_device(0, None).unwrap();
    s.destroy_stream(s1, false).unwrap();
    let r = s.report();
    let ids: Vec<u32> = r.streams.iter().map(|x| x.stream).collect();
    assert_eq!(ids, vec![s1.0, s2.0]);
    let gone = &r.streams[0];
    assert!(gone.destroyed);
    assert_eq!((gone.tasks, gone.priority), (2, 3));
    assert!(gone.busy_ns > 0 && gone.end_ns > 0);
    assert!(!r.streams[1].destroyed);
    assert_eq!(r.streams_dropped, 0);
}
