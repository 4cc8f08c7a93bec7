//! Copies (huge and overlapping ones included), bounds checks, faults, events, determinism,
//! lazily backed memory, allocation speed and placement.

mod common;

use std::time::{Duration, Instant};

use ascend_sim::*;
use common::*;

#[test]
fn memcpy_round_trip_and_timing() {
    let sim = sim();
    let t = sim.chip().timing;
    let n = 1usize << 20;
    let data: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
    let src = host_buf(data.clone());
    let dst = host_buf(vec![0; n]);
    let a = sim.malloc(0, n as u64).unwrap();
    let b = sim.malloc(0, n as u64).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    let h2d = sim
        .submit(
            s,
            Task::Memcpy {
                dst: Loc::Device(a),
                src: Loc::Host {
                    buf: src,
                    offset: 0,
                },
                len: n as u64,
            },
        )
        .unwrap();
    sim.submit(
        s,
        Task::Memcpy {
            dst: Loc::Device(b),
            src: Loc::Device(a),
            len: n as u64,
        },
    )
    .unwrap();
    sim.submit(
        s,
        Task::Memcpy {
            dst: Loc::Host {
                buf: dst.clone(),
                offset: 0,
            },
            src: Loc::Device(b),
            len: n as u64,
        },
    )
    .unwrap();
    sim.synchronize_stream(s, None).unwrap();
    assert_eq!(*dst.lock().unwrap(), data);
    let r = sim.report();
    let span = r.timeline.iter().find(|x| x.task == h2d.0).unwrap();
    let expect = t.sqe_dispatch_ns + t.dma_setup_ns + (n as f64 / t.h2d_gbps).ceil() as u64;
    assert_eq!(span.end_ns - span.start_ns, expect);
    assert_eq!(r.never_written_reads, 0);
    let copy = r.engines.iter().find(|e| e.engine == "copy").unwrap();
    assert_eq!(copy.tasks, 3);
}

#[test]
fn concurrent_copies_share_bandwidth() {
    let n = 1u64 << 22;
    let time_of = |streams: usize| {
        let sim = common::sim();
        let a = sim.malloc(0, n).unwrap();
        let b = sim.malloc(0, n).unwrap();
        for i in 0..streams {
            let s = sim.create_stream(0, 0, false).unwrap();
            let buf = host_buf(vec![1; n as usize]);
            let dst = if i == 0 { a } else { b };
            sim.submit(
                s,
                Task::Memcpy {
                    dst: Loc::Device(dst),
                    src: Loc::Host { buf, offset: 0 },
                    len: n,
                },
            )
            .unwrap();
        }
        sim.synchronize_device(0, None).unwrap();
        sim.report().end_ns
    };
    let one = time_of(1);
    let two = time_of(2);
    assert!(two as f64 > one as f64 * 1.8, "{one} {two}");
}

#[test]
fn bad_addresses_are_explained() {
    let sim = sim();
    let a = sim.malloc(0, 100).unwrap();
    let mut buf = [0u8; 8];
    let e = sim.read(a + 96, &mut buf).unwrap_err();
    assert!(e.to_string().contains("crosses end of allocation"), "{e}");
    let e = sim.write(a + 4096, &buf).unwrap_err();
    assert!(e.to_string().contains("not allocated"), "{e}");
    sim.free(0, a).unwrap();
    let e = sim.read(a, &mut buf).unwrap_err();
    assert!(e.to_string().contains("freed"), "{e}");
    assert!(matches!(
        sim.read(0x1000, &mut buf),
        Err(SimError::BadAddress { .. })
    ));
    assert!(matches!(
        sim.malloc(0, 1 << 40),
        Err(SimError::OutOfMemory { .. })
    ));
    assert!(matches!(
        sim.malloc(99, 8),
        Err(SimError::Unknown { kind: "device", .. })
    ));
}

#[test]
fn task_on_freed_memory_faults_at_next_synchronize_only() {
    let sim = sim();
    let a = sim.malloc(0, 4096).unwrap();
    let gate = sim.malloc(0, 8).unwrap();
    sim.fill(gate, 0, 8).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    // The fill waits behind the gate, so that the free (which takes host time, during which
    // the device runs) comes first.
    let wait = Task::ValueWait {
        addr: gate,
        value: 1,
        mode: WaitMode::Eq,
    };
    sim.submit(s, wait).unwrap();
    sim.submit(
        s,
        Task::Memset {
            addr: a,
            value: 1,
            len: 4096,
        },
    )
    .unwrap();
    sim.free(0, a).unwrap();
    sim.write(gate, &1u64.to_le_bytes()).unwrap();
    let e = sim.synchronize_stream(s, None).unwrap_err();
    assert!(
        matches!(&e, SimError::TaskFault(t) if t.contains("freed") && t.contains("by free")),
        "{e}"
    );
    sim.synchronize_stream(s, None).unwrap();
    assert_eq!(sim.report().faults.len(), 1);
}

#[test]
fn events_order_streams_and_time_them() {
    let sim = sim();
    let n = 1u64 << 20;
    let a = sim.malloc(0, n).unwrap();
    let (s1, s2) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    let (start, end, never) = (
        sim.create_event(0).unwrap(),
        sim.create_event(0).unwrap(),
        sim.create_event(0).unwrap(),
    );
    assert!(!sim.event_complete(start).unwrap());
    assert_eq!(sim.event_time_ns(start).unwrap(), None);
    sim.submit(s1, Task::EventRecord(start)).unwrap();
    sim.submit(
        s1,
        Task::Memset {
            addr: a,
            value: 9,
            len: n,
        },
    )
    .unwrap();
    sim.submit(s1, Task::EventRecord(end)).unwrap();
    // s2 waits for `end`, and for an event never recorded (does not block).
    sim.submit(s2, Task::EventWait(never)).unwrap();
    sim.submit(s2, Task::EventWait(end)).unwrap();
    let w = sim
        .submit(s2, Task::ValueWrite { addr: a, value: 42 })
        .unwrap();
    sim.synchronize_stream(s2, None).unwrap();
    // The value write ran after the memset.
    assert_eq!(read_u64(&sim, a), 42);
    sim.synchronize_event(end, None).unwrap();
    let t0 = sim.event_time_ns(start).unwrap().unwrap();
    let t1 = sim.event_time_ns(end).unwrap().unwrap();
    let hbm = sim.chip().timing.hbm_gbps;
    assert!(t1 - t0 >= (n as f64 / hbm) as u64, "{t0} {t1}");
    let tick = 1_000_000 / sim.chip().timing.timestamp_ticks_per_ms;
    assert_eq!(t0 % tick, 0);
    let r = sim.report();
    let ws = r.timeline.iter().find(|x| x.task == w.0).unwrap();
    assert!(ws.start_ns >= t1);
    assert!(sim.event_complete(end).unwrap());
    // Reset makes it not complete again.
    sim.submit(s1, Task::EventReset(end)).unwrap();
    sim.synchronize_stream(s1, None).unwrap();
    assert!(!sim.event_complete(end).unwrap());
    sim.destroy_event(never).unwrap();
    assert!(sim.event_complete(never).is_err());
}

fn program(sim: &Sim) -> String {
    let a = sim.malloc(0, 1 << 20).unwrap();
    let b = sim.malloc(0, 1 << 20).unwrap();
    let (s1, s2) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 1, false).unwrap(),
    );
    sim.fill(a, 0, 64).unwrap();
    for i in 1..50u64 {
        sim.submit(
            s1,
            Task::ValueWait {
                addr: a,
                value: i,
                mode: WaitMode::Geq,
            },
        )
        .unwrap();
        sim.submit(
            s1,
            Task::Memcpy {
                dst: Loc::Device(b),
                src: Loc::Device(a),
                len: 4096 * i,
            },
        )
        .unwrap();
        sim.submit(s2, Task::ValueWrite { addr: a, value: i })
            .unwrap();
        sim.charge_host(3000);
    }
    sim.synchronize_device(0, None).unwrap();
    sim.report_json()
}

#[test]
fn same_program_same_timeline() {
    let one = program(&sim());
    let two = program(&sim());
    assert_eq!(one, two);
    assert!(one.contains("\"value_waits\""));
}

#[test]
fn a_64_gib_device_costs_only_what_is_touched() {
    let sim = sim();
    let bytes = sim.chip().memory.device_bytes;
    let a = sim.malloc(0, bytes).unwrap();
    write_u64(&sim, a + bytes - 8, 5);
    write_u64(&sim, a, 6);
    assert_eq!(read_u64(&sim, a + bytes - 8), 5);
    assert!(sim.backing_bytes() <= 2 * sim.chip().memory.backing_page_bytes);
    assert!(matches!(
        sim.malloc(0, 512),
        Err(SimError::OutOfMemory { .. })
    ));
    sim.free(0, a).unwrap();
    assert_eq!(sim.backing_bytes(), 0);
}

#[test]
fn a_copy_of_filled_memory_between_buffers_at_different_page_offsets_stays_uniform() {
    let s = sim();
    let page = s.chip().memory.backing_page_bytes;
    let len = 4u64 << 30;
    // The second buffer starts at another offset within its page than the first.
    let a = s.malloc(0, len + 32).unwrap();
    let b = s.malloc(0, len + 32).unwrap();
    assert_ne!(
        a % page,
        b % page,
        "the test needs differently aligned buffers"
    );
    s.fill(a, 0x5A, len).unwrap();
    s.copy(b, a, len).unwrap();
    assert!(
        s.backing_bytes() <= 4 * page,
        "a copy of 4 GiB of filled memory holds {} bytes of backing",
        s.backing_bytes()
    );
    let mut probe = [0u8; 16];
    for at in [0, 1, page - 8, len / 2 + 3, len - 16] {
        s.read(b + at, &mut probe).unwrap();
        assert_eq!(probe, [0x5A; 16], "byte {at} of the copy");
    }
    // A copy from an odd offset into the filled buffer stays cheap too.
    let c = s.malloc(0, len).unwrap();
    s.copy(c, a + 100, len / 2).unwrap();
    assert!(s.backing_bytes() <= 8 * page, "{}", s.backing_bytes());
    s.read(c + len / 4, &mut probe).unwrap();
    assert_eq!(probe, [0x5A; 16]);
}

// ----- huge and overlapping device copies -----

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
        let copy = Task::Memcpy {
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
        let copy = Task::Memcpy {
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

// ----- lazy backing -----

#[test]
fn a_gib_fill_costs_no_backing_until_partly_written() {
    let s = sim();
    let len = 1u64 << 30;
    let a = s.malloc(0, len).unwrap();
    let st = s.create_stream(0, 0, false).unwrap();
    let memset = Task::Memset {
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

// ----- allocation speed and placement -----

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
