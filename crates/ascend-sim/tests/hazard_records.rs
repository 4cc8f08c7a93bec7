//! The run report's hazard records: alike hazards of one operation at one instant are one
//! record counting them all, every occurrence of every class is counted however many records
//! are kept, and hazards of other writers stay apart.

mod common;

use ascend_sim::*;
use common::*;

const MIB: u64 = 1 << 20;

fn invalid(addr: u64, len: u64) -> Task {
    Task::Cmo {
        op: CmoType::Invalid,
        addr,
        len,
    }
}

#[test]
fn an_invalid_dropping_thousands_of_dirty_lines_is_one_record_counting_each_and_later_classes_show()
{
    let sim = sim();
    let line = sim.chip().cache.l2_line_bytes;
    let (buf, never) = (
        sim.malloc(0, 4 * MIB).unwrap(),
        sim.malloc(0, 4096).unwrap(),
    );
    let out = sim.malloc(0, 4096).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(s, memset(buf, 7, 4 * MIB)).unwrap();
    sim.submit(s, invalid(buf, 4 * MIB)).unwrap();
    sim.submit(
        s,
        Task::Memcpy {
            dst: Loc::Device(out),
            src: Loc::Device(never),
            len: 4096,
        },
    )
    .unwrap();
    sim.synchronize_stream(s, None).unwrap();
    let r = sim.report();
    let lines = 4 * MIB / line;
    assert_eq!(
        r.hazard_counts.get("lost_write"),
        Some(&lines),
        "{:?}",
        r.hazard_counts
    );
    assert_eq!(r.hazard_counts.get("never_written_read"), Some(&1));
    let lost: Vec<_> = r
        .hazards
        .iter()
        .filter(|h| h.kind == "lost_write")
        .collect();
    assert_eq!(lost.len(), 1, "one record for the one INVALID: {lost:?}");
    assert_eq!(
        (lost[0].count, lost[0].addr, lost[0].len),
        (lines, buf, 4 * MIB)
    );
    assert!(r.hazards.iter().any(|h| h.kind == "never_written_read"));
}

#[test]
fn lines_another_writer_wrote_are_a_record_of_their_own() {
    let sim = sim();
    let line = sim.chip().cache.l2_line_bytes;
    let buf = sim.malloc(0, 64 * line).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(s, memset(buf, 1, 32 * line)).unwrap();
    sim.submit(s, memset(buf + 32 * line, 2, 32 * line))
        .unwrap();
    sim.submit(s, invalid(buf, 64 * line)).unwrap();
    sim.synchronize_stream(s, None).unwrap();
    let r = sim.report();
    let lost: Vec<_> = r
        .hazards
        .iter()
        .filter(|h| h.kind == "lost_write")
        .collect();
    assert_eq!(lost.len(), 2, "one record per writer: {lost:?}");
    assert_eq!(lost.iter().map(|h| h.count).sum::<u64>(), 64);
    assert!(lost[0].detail.contains("task 1"), "{}", lost[0].detail);
    assert!(lost[1].detail.contains("task 2"), "{}", lost[1].detail);
}

#[test]
fn every_occurrence_is_counted_beyond_the_records_kept() {
    let sim = sim();
    let line = sim.chip().cache.l2_line_bytes;
    let buf = sim.malloc(0, line).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    // 3,000 INVALIDs, each dropping a line the fill before it wrote: records of their own
    // (other tasks, other instants), more than the report keeps.
    for _ in 0..1500 {
        sim.submit(s, memset(buf, 3, line)).unwrap();
        sim.submit(s, invalid(buf, line)).unwrap();
    }
    sim.synchronize_stream(s, None).unwrap();
    let r = sim.report();
    assert_eq!(r.hazard_counts.get("lost_write"), Some(&1500));
    assert!(r.hazards.len() < 1500, "records are bounded");
    assert!(r.hazards.dropped > 0);
}
