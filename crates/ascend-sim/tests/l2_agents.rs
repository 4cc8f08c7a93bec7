//! Agents that go around the L2 (chip-file data, `cache.*_via_l2`): their writes land in
//! memory under the L2's lines, so a write-back can clobber them and a read through the L2 can
//! miss them; a FLUSH before, or an INVALID after, is what makes such a program correct.

mod common;

use ascend_chips::{ChipProfile, L2Agent};
use ascend_sim::*;
use common::*;

/// The default chip, with the copy engine going around the L2 (the scheduler through it).
fn sim_copy_engine_around() -> Sim {
    let mut chip = chip();
    chip.cache.copy_engine_via_l2 = false;
    Sim::new(chip, SimConfig::default())
}

#[test]
fn every_built_in_chip_sends_every_agent_through_the_l2() {
    for chip in ChipProfile::all_builtin() {
        for agent in [L2Agent::Scheduler, L2Agent::CopyEngine, L2Agent::AiCore] {
            assert!(chip.cache.via_l2(agent), "{} {agent:?}", chip.soc_name);
        }
    }
}

#[test]
fn a_write_back_over_data_written_around_the_l2_clobbers_it_and_reports_a_clobber() {
    let s = sim_copy_engine_around();
    let a = s.malloc(0, 512).unwrap();
    s.fill(a, 0, 512).unwrap();
    run_tasks(
        &s,
        vec![
            // Through the L2: the line is dirty with 7 in its first word.
            Task::ValueWrite { addr: a, value: 7 },
            // Around the L2: memory under the line takes 0x22 in its ninth word.
            memset(a + 64, 0x22, 8),
            // The whole line goes back, over the newer 0x22 bytes.
            cmo(CmoType::Writeback, a, 512),
        ],
    );
    assert_eq!(read_u64(&s, a), 7);
    assert_eq!(read_u64(&s, a + 64), 0, "the write around the L2 is lost");
    let r = s.report();
    assert_eq!(r.hazards.len(), 1, "{:?}", r.hazards);
    let h = &r.hazards[0];
    assert_eq!((h.kind.as_str(), h.addr, h.len), ("clobber", a, 512));
    for part in [
        "WRITEBACK",
        "copy engine",
        "0x2222222222222222",
        &format!("{:#x}", a + 64),
        "task",
    ] {
        assert!(h.detail.contains(part), "{part:?} in {}", h.detail);
    }
    assert_eq!(r.caches[0].l2.writes_around, 1);
}

#[test]
fn a_flush_before_the_write_around_the_l2_keeps_both_writes() {
    let s = sim_copy_engine_around();
    let a = s.malloc(0, 512).unwrap();
    s.fill(a, 0, 512).unwrap();
    run_tasks(
        &s,
        vec![
            Task::ValueWrite { addr: a, value: 7 },
            cmo(CmoType::Flush, a, 512),
            memset(a + 64, 0x22, 8),
            cmo(CmoType::Writeback, a, 512),
        ],
    );
    assert_eq!(read_u64(&s, a), 7);
    assert_eq!(read_u64(&s, a + 64), 0x2222_2222_2222_2222);
    assert!(s.report().hazards.is_empty(), "{:?}", s.report().hazards);
}

#[test]
fn an_eviction_clobbers_a_write_around_the_l2_like_a_writeback_does() {
    let mut chip = chip();
    chip.cache.copy_engine_via_l2 = false;
    // One set of two ways: a third line evicts the least recently used.
    chip.cache.l2_bytes = 1024;
    chip.cache.l2_ways = 2;
    let s = Sim::new(chip, SimConfig::default());
    let a = s.malloc(0, 4096).unwrap();
    s.fill(a, 0, 4096).unwrap();
    run_tasks(
        &s,
        vec![
            Task::ValueWrite { addr: a, value: 1 },
            memset(a + 8, 0x33, 8),
            Task::ValueWrite {
                addr: a + 512,
                value: 2,
            },
            Task::ValueWrite {
                addr: a + 1024,
                value: 3,
            },
        ],
    );
    let r = s.report();
    assert_eq!(r.hazards.len(), 1, "{:?}", r.hazards);
    assert_eq!(r.hazards[0].kind, "clobber");
    assert!(
        r.hazards[0].detail.contains("eviction"),
        "{}",
        r.hazards[0].detail
    );
    assert_eq!(read_u64(&s, a + 8), 0);
}

#[test]
fn a_write_through_the_l2_after_the_write_around_it_is_newer_and_no_clobber() {
    let s = sim_copy_engine_around();
    let a = s.malloc(0, 512).unwrap();
    s.fill(a, 0, 512).unwrap();
    run_tasks(
        &s,
        vec![
            Task::ValueWrite { addr: a, value: 7 },
            memset(a + 64, 0x22, 8),
            Task::ValueWrite {
                addr: a + 64,
                value: 9,
            },
            cmo(CmoType::Writeback, a, 512),
        ],
    );
    assert_eq!(read_u64(&s, a + 64), 9);
    assert!(s.report().hazards.is_empty(), "{:?}", s.report().hazards);
}

#[test]
fn a_read_through_the_l2_of_a_line_written_around_it_is_stale_until_invalidated() {
    let s = sim_copy_engine_around();
    let a = s.malloc(0, 512).unwrap();
    s.fill(a, 0, 512).unwrap();
    let wait = |value| Task::ValueWait {
        addr: a,
        value,
        mode: WaitMode::Eq,
    };
    run_tasks(
        &s,
        vec![
            cmo(CmoType::Prefetch, a, 512),
            memset(a, 0x44, 8),
            // The scheduler reads through the L2 and still sees the old word.
            wait(0),
        ],
    );
    let r = s.report();
    assert_eq!(r.hazards.len(), 1, "{:?}", r.hazards);
    let h = &r.hazards[0];
    assert_eq!(h.kind, "stale_read");
    assert!(
        h.detail.contains("0x4444444444444444") && h.detail.contains("INVALID"),
        "{}",
        h.detail
    );
    // The host reads through the copy engine, around the L2: memory has the new word.
    assert_eq!(read_u64(&s, a), 0x4444_4444_4444_4444);

    // The correct program: INVALID after the write around the L2, then the read sees it.
    let s = sim_copy_engine_around();
    let a = s.malloc(0, 512).unwrap();
    s.fill(a, 0, 512).unwrap();
    run_tasks(
        &s,
        vec![
            cmo(CmoType::Prefetch, a, 512),
            memset(a, 0x44, 8),
            cmo(CmoType::Invalid, a, 512),
            Task::ValueWait {
                addr: a,
                value: 0x4444_4444_4444_4444,
                mode: WaitMode::Eq,
            },
        ],
    );
    assert!(s.report().hazards.is_empty(), "{:?}", s.report().hazards);
}

#[test]
fn a_value_wait_around_the_l2_is_released_when_a_writeback_brings_the_word_to_memory() {
    let mut chip = chip();
    chip.cache.scheduler_via_l2 = false;
    let s = Sim::new(chip, SimConfig::default());
    let a = s.malloc(0, 512).unwrap();
    s.fill(a, 0, 512).unwrap();
    // The fill went through the L2 too: it reaches memory, where the scheduler polls, only
    // when written back.
    run_tasks(&s, vec![cmo(CmoType::Flush, a, 512)]);
    let waiter = s.create_stream(0, 0, false).unwrap();
    let writer = s.create_stream(0, 0, false).unwrap();
    s.submit(
        waiter,
        Task::ValueWait {
            addr: a,
            value: 5,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    // The copy engine writes through the L2: the word stays in a dirty line until written
    // back, and the scheduler polls memory around the L2.
    let word = host_buf(5u64.to_le_bytes().to_vec());
    s.submit(
        writer,
        Task::Memcpy {
            dst: Loc::Device(a),
            src: Loc::Host {
                buf: word,
                offset: 0,
            },
            len: 8,
        },
    )
    .unwrap();
    s.synchronize_stream(writer, None).unwrap();
    s.charge_host(1_000_000);
    assert!(
        !s.stream_idle(waiter).unwrap(),
        "the wait cannot see a word still in a dirty line"
    );
    s.submit(writer, cmo(CmoType::Writeback, a, 512)).unwrap();
    s.synchronize_stream(waiter, None).unwrap();
    assert!(s.report().hazards.is_empty(), "{:?}", s.report().hazards);
}

#[test]
fn a_clobber_set_to_fail_fails_the_task_that_wrote_the_line_back() {
    let mut chip = chip();
    chip.cache.copy_engine_via_l2 = false;
    let mut config = SimConfig::default();
    config.hazards.set(HazardKind::Clobber, HazardAction::Fail);
    let s = Sim::new(chip, config);
    let a = s.malloc(0, 512).unwrap();
    s.fill(a, 0, 512).unwrap();
    let st = s.create_stream(0, 0, false).unwrap();
    for t in [
        Task::ValueWrite { addr: a, value: 7 },
        memset(a + 64, 0x22, 8),
        cmo(CmoType::Flush, a, 512),
    ] {
        s.submit(st, t).unwrap();
    }
    let err = s.synchronize_stream(st, None).unwrap_err();
    assert!(err.to_string().contains("clobber"), "{err}");
}
