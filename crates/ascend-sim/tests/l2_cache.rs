//! The L2 holds data: writes stay in dirty lines until written back, and the CMO types have
//! their real effects on what agents read afterwards.

mod common;

use ascend_sim::*;
use common::*;

#[test]
fn an_invalid_after_a_value_write_loses_the_write_and_reports_it() {
    let s = sim();
    let a = s.malloc(0, 512).unwrap();
    s.fill(a, 0, 512).unwrap();
    run_tasks(
        &s,
        vec![
            cmo(CmoType::Writeback, a, 512),
            Task::ValueWrite { addr: a, value: 7 },
            cmo(CmoType::Invalid, a, 512),
        ],
    );
    assert_eq!(
        read_u64(&s, a),
        0,
        "the dropped line reads as memory held it"
    );
    let r = s.report();
    assert_eq!(r.hazards.len(), 1, "{:?}", r.hazards);
    let h = &r.hazards[0];
    assert_eq!(h.kind, "lost_write");
    assert_eq!(h.addr, a);
    assert!(
        h.detail.contains("task"),
        "the writer is named: {}",
        h.detail
    );
    assert_eq!(r.caches[0].l2.dirty_lines_dropped, 1);
}

#[test]
fn a_writeback_before_the_invalid_keeps_the_write() {
    let s = sim();
    let a = s.malloc(0, 512).unwrap();
    s.fill(a, 0, 512).unwrap();
    run_tasks(
        &s,
        vec![
            cmo(CmoType::Writeback, a, 512),
            Task::ValueWrite { addr: a, value: 7 },
            cmo(CmoType::Writeback, a, 512),
            cmo(CmoType::Invalid, a, 512),
        ],
    );
    assert_eq!(read_u64(&s, a), 7);
    let r = s.report();
    assert!(r.hazards.is_empty(), "{:?}", r.hazards);
    let wb = r
        .cmos
        .iter()
        .filter(|c| c.op == "WRITEBACK")
        .collect::<Vec<_>>();
    assert_eq!(wb.len(), 2);
    assert_eq!(
        wb[1].bytes_written_back, 512,
        "the second write-back wrote the dirty line"
    );
}

#[test]
fn a_flush_writes_back_and_drops() {
    let s = sim();
    let a = s.malloc(0, 4096).unwrap();
    run_tasks(
        &s,
        vec![
            Task::Memset {
                addr: a,
                value: 0x11,
                len: 4096,
            },
            cmo(CmoType::Flush, a, 4096),
            cmo(CmoType::Invalid, a, 4096),
        ],
    );
    let mut b = [0u8; 16];
    s.read(a + 1000, &mut b).unwrap();
    assert_eq!(b, [0x11; 16]);
    let r = s.report();
    assert!(r.hazards.is_empty());
    let flush = r.cmos.iter().find(|c| c.op == "FLUSH").unwrap();
    assert_eq!(flush.lines, 8);
    assert_eq!(flush.bytes_written_back, 4096);
    let invalid = r.cmos.iter().find(|c| c.op == "INVALID").unwrap();
    assert_eq!(invalid.lines, 0, "nothing was left resident to drop");
}

#[test]
fn a_prefetch_fills_lines_so_later_reads_hit() {
    let s = sim();
    let a = s.malloc(0, 64 * 1024).unwrap();
    s.fill(a, 3, 64 * 1024).unwrap();
    run_tasks(&s, vec![cmo(CmoType::Flush, a, 64 * 1024)]);
    let before = s.report().caches[0].l2;
    run_tasks(&s, vec![cmo(CmoType::Prefetch, a, 64 * 1024)]);
    let filled = s.report().caches[0].l2;
    assert_eq!(
        filled.misses - before.misses,
        128,
        "the prefetch filled 128 lines"
    );
    let mut out = vec![0u8; 64 * 1024];
    s.read(a, &mut out).unwrap();
    let after = s.report().caches[0].l2;
    assert_eq!(
        after.hits - filled.hits,
        128,
        "the read found every line resident"
    );
    assert_eq!(after.misses, filled.misses);
}

#[test]
fn a_range_not_aligned_to_lines_acts_on_the_whole_lines_and_says_so() {
    let s = sim();
    let a = s.malloc(0, 1024).unwrap();
    s.fill(a, 0, 1024).unwrap();
    run_tasks(
        &s,
        vec![
            cmo(CmoType::Writeback, a, 1024),
            Task::ValueWrite {
                addr: a + 600,
                value: 9,
            },
            cmo(CmoType::Invalid, a + 520, 8),
        ],
    );
    let r = s.report();
    let invalid = r.cmos.iter().find(|c| c.op == "INVALID").unwrap();
    assert!(invalid.partial_lines);
    assert_eq!(invalid.lines, 1);
    assert_eq!(
        read_u64(&s, a + 600),
        0,
        "the whole line went, the written word with it"
    );
    let kinds: Vec<&str> = r.hazards.iter().map(|h| h.kind.as_str()).collect();
    assert_eq!(kinds, ["lost_write", "partial_line"], "{:?}", r.hazards);
}

#[test]
fn a_hazard_set_to_fail_fails_the_task_and_one_set_to_ignore_leaves_no_trace() {
    let scenario = |policy: HazardPolicy| {
        let s = sim_with(|c| c.hazards = policy);
        let a = s.malloc(0, 512).unwrap();
        s.fill(a, 0, 512).unwrap();
        let st = s.create_stream(0, 0, false).unwrap();
        for t in [
            cmo(CmoType::Writeback, a, 512),
            Task::ValueWrite { addr: a, value: 7 },
            cmo(CmoType::Invalid, a, 512),
        ] {
            s.submit(st, t).unwrap();
        }
        (s.synchronize_stream(st, None), s.report().hazards.len())
    };
    let (r, n) = scenario(HazardPolicy::all(HazardAction::Fail));
    let err = r.unwrap_err().to_string();
    assert!(err.contains("lost_write hazard"), "{err}");
    assert_eq!(n, 1);
    let (r, n) = scenario(HazardPolicy::all(HazardAction::Ignore));
    r.unwrap();
    assert_eq!(n, 0);
    let mut only_lost = HazardPolicy::all(HazardAction::Ignore);
    only_lost.set(HazardKind::LostWrite, HazardAction::Record);
    let (r, n) = scenario(only_lost);
    r.unwrap();
    assert_eq!(n, 1);
}

#[test]
fn a_read_of_never_written_memory_is_a_hazard_naming_the_reader() {
    let s = sim();
    let a = s.malloc(0, 64).unwrap();
    let mut out = [0u8; 8];
    s.read(a, &mut out).unwrap();
    let r = s.report();
    let h = r
        .hazards
        .iter()
        .find(|h| h.kind == "never_written_read")
        .expect("a never-written read hazard");
    assert!(h.detail.contains("host read"), "{}", h.detail);
    assert_eq!(r.never_written_reads, 1);
    let strict = sim_with(|c| c.hazards.never_written_read = HazardAction::Fail);
    let b = strict.malloc(0, 64).unwrap();
    assert!(strict.read(b, &mut out).is_err());
}

#[test]
fn a_copy_far_larger_than_the_l2_streams_through_it() {
    let s = sim();
    let len = 1u64 << 30;
    let a = s.malloc(0, len).unwrap();
    let b = s.malloc(0, len).unwrap();
    s.fill(a, 0x42, len).unwrap();
    s.copy(b, a, len).unwrap();
    let r = s.report();
    let l2 = &r.caches[0];
    let capacity = s.chip().cache.l2_bytes / s.chip().cache.l2_line_bytes;
    assert!(l2.resident_lines <= capacity);
    // Whatever stays dirty is the copy's tail; an INVALID of it loses data, a FLUSH does not.
    run_tasks(&s, vec![cmo(CmoType::Flush, b, len)]);
    run_tasks(&s, vec![cmo(CmoType::Invalid, b, len)]);
    let mut probe = [0u8; 8];
    s.read(b + len - 8, &mut probe).unwrap();
    assert_eq!(probe, [0x42; 8]);
    assert!(s.report().hazards.is_empty());
}

/// The duration of the last completed task of `kind` on the timeline.
fn last_duration(s: &Sim, kind: &str) -> u64 {
    let r = s.report();
    let span = r
        .timeline
        .iter()
        .rev()
        .find(|t| t.kind == kind)
        .unwrap_or_else(|| panic!("no {kind} on the timeline"));
    span.end_ns - span.start_ns
}

#[test]
fn a_prefetch_shortens_a_later_device_read_of_the_buffer() {
    let len = 8u64 << 20;
    let timed_copy = |prefetch: bool| {
        let s = sim();
        let a = s.malloc(0, len).unwrap();
        let b = s.malloc(0, len).unwrap();
        s.fill(a, 5, len).unwrap();
        let mut tasks = vec![cmo(CmoType::Flush, a, len), cmo(CmoType::Flush, b, len)];
        if prefetch {
            tasks.push(cmo(CmoType::Prefetch, a, len));
        }
        tasks.push(Task::Memcpy {
            dst: Loc::Device(b),
            src: Loc::Device(a),
            len,
        });
        run_tasks(&s, tasks);
        last_duration(&s, "Memcpy")
    };
    let (cold, warm) = (timed_copy(false), timed_copy(true));
    assert!(
        warm * 10 < cold * 9,
        "a copy of a prefetched source ({warm} ns) is faster than of a cold one ({cold} ns)"
    );
}

#[test]
fn an_invalid_costs_time_by_the_lines_resident_not_by_the_range() {
    let len = 1u64 << 30;
    let timed_invalid = |fill_first: bool| {
        let s = sim();
        let a = s.malloc(0, len).unwrap();
        if fill_first {
            s.fill(a, 1, len).unwrap();
            run_tasks(&s, vec![cmo(CmoType::Writeback, a, len)]);
        }
        run_tasks(&s, vec![cmo(CmoType::Invalid, a, len)]);
        last_duration(&s, "Cmo")
    };
    let (empty, full) = (timed_invalid(false), timed_invalid(true));
    assert!(
        empty * 2 < full,
        "an INVALID of 1 GiB on an empty L2 ({empty} ns) is much cheaper than on a full one ({full} ns)"
    );
}

/// A 32-byte (A2) descriptor: `outer × inner` blocks of `len` bytes at `src`, strided.
fn desc32(
    src: u64,
    len: u32,
    outer: u16,
    inner: u16,
    stride_outer: u32,
    stride_inner: u32,
) -> [u8; 32] {
    let mut d = [0u8; 32];
    d[8..10].copy_from_slice(&outer.to_le_bytes());
    d[10..12].copy_from_slice(&inner.to_le_bytes());
    d[12..16].copy_from_slice(&len.to_le_bytes());
    d[16..24].copy_from_slice(&src.to_le_bytes());
    d[24..28].copy_from_slice(&stride_outer.to_le_bytes());
    d[28..32].copy_from_slice(&stride_inner.to_le_bytes());
    d
}

#[test]
fn a_descriptor_is_read_when_its_task_executes_with_its_two_dimensional_shape() {
    let s = sim();
    let a = s.malloc(0, 8192).unwrap();
    let desc = s.malloc(0, 64).unwrap();
    s.fill(a, 0, 8192).unwrap();
    let flag = s.malloc(0, 64).unwrap();
    s.fill(flag, 0, 64).unwrap();
    let st = s.create_stream(0, 0, false).unwrap();
    // Memory holds the zeros; then every line of `a` is written and left dirty.
    for t in [
        cmo(CmoType::Writeback, a, 8192),
        Task::Memset {
            addr: a,
            value: 9,
            len: 8192,
        },
        // Held until the host releases it, after the descriptor is rewritten.
        Task::ValueWait {
            addr: flag,
            value: 1,
            mode: WaitMode::Eq,
        },
    ] {
        s.submit(st, t).unwrap();
    }
    s.write(desc, &desc32(a, 512, 1, 1, 0, 0)).unwrap();
    s.submit(
        st,
        Task::CmoWithDesc {
            desc,
            op: CmoType::Invalid,
        },
    )
    .unwrap();
    // Launched: the runtime's header (the INVALID opcode, 8) is over the descriptor's head.
    let mut head = [0u8; 4];
    s.read(desc, &mut head).unwrap();
    assert_eq!(u32::from_le_bytes(head), 8);
    // Rewritten before it executes: 2 outer x 2 inner blocks of one line, strides 4096/1024.
    s.write(desc + 8, &desc32(a, 512, 2, 2, 4096, 1024)[8..])
        .unwrap();
    s.write(flag, &1u64.to_le_bytes()).unwrap();
    s.synchronize_stream(st, None).unwrap();
    // The blocks at 0, 1024, 4096 and 5120 lost their writes; the lines between kept them.
    for (off, dropped) in [
        (0, true),
        (512, false),
        (1024, true),
        (2048, false),
        (4096, true),
        (5120, true),
        (6144, false),
    ] {
        let mut b = [0u8; 8];
        s.read(a + off, &mut b).unwrap();
        let want = if dropped { 0 } else { 9 };
        assert_eq!(b, [want; 8], "line at {off}");
    }
    assert_eq!(s.report().hazard_counts["lost_write"], 4);
}

#[test]
fn a_correct_unaligned_invalid_after_a_writeback_reports_no_partial_line_hazard() {
    let s = sim();
    let a = s.malloc(0, 1024).unwrap();
    s.fill(a, 0, 1024).unwrap();
    run_tasks(
        &s,
        vec![
            Task::ValueWrite {
                addr: a + 600,
                value: 9,
            },
            cmo(CmoType::Writeback, a, 1024),
            cmo(CmoType::Invalid, a + 520, 8),
        ],
    );
    assert_eq!(read_u64(&s, a + 600), 9, "written back before the drop");
    assert!(s.report().hazards.is_empty(), "{:?}", s.report().hazards);
}

#[test]
fn a_cmo_acts_on_the_l2_of_the_memory_it_names_whatever_the_streams_device() {
    let s = sim();
    let a = s.malloc(1, 512).unwrap();
    s.fill(a, 0, 512).unwrap();
    let st = s.create_stream(1, 0, false).unwrap();
    s.submit(st, cmo(CmoType::Writeback, a, 512)).unwrap();
    s.submit(st, Task::ValueWrite { addr: a, value: 5 })
        .unwrap();
    s.synchronize_stream(st, None).unwrap();
    // A stream of device 0 drops device 1's dirty line.
    run_tasks(&s, vec![cmo(CmoType::Invalid, a, 512)]);
    assert_eq!(read_u64(&s, a), 0);
    assert_eq!(s.report().caches[1].l2.dirty_lines_dropped, 1);
}

#[test]
fn a_lost_write_names_the_last_writer_of_any_word_of_the_line() {
    let s = sim();
    let a = s.malloc(0, 512).unwrap();
    s.fill(a, 0, 512).unwrap();
    run_tasks(
        &s,
        vec![
            cmo(CmoType::Writeback, a, 512),
            Task::ValueWrite {
                addr: a + 256,
                value: 1,
            },
            cmo(CmoType::Invalid, a, 512),
        ],
    );
    let h = &s.report().hazards[0];
    assert!(h.detail.contains("by task"), "{}", h.detail);
}

#[test]
fn a_descriptor_with_a_source_near_the_end_of_the_address_space_faults_without_panicking() {
    let s = sim();
    let desc = s.malloc(0, 64).unwrap();
    s.write(desc, &desc32(u64::MAX - 100, 64, 2, 2, 0, 64))
        .unwrap();
    let st = s.create_stream(0, 0, false).unwrap();
    s.submit(
        st,
        Task::CmoWithDesc {
            desc,
            op: CmoType::Invalid,
        },
    )
    .unwrap();
    assert!(matches!(
        s.synchronize_stream(st, None),
        Err(SimError::TaskFault(_))
    ));
}
