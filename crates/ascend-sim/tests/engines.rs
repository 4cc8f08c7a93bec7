//! Engine routing, forced stream destruction, model timeouts, unaligned waits.

mod common;

use std::time::Duration;

use ascend_chips::ChipType;
use ascend_sim::*;
use common::*;

#[test]
fn cmo_runs_on_the_copy_engine_on_a2_and_splits_on_950() {
    for (chip_type, engines) in [
        (ChipType::Cloud910B93, vec!["copy"]),
        (ChipType::David, vec!["copy", "cmo"]),
    ] {
        let mut c = chip();
        c.chip_type = chip_type;
        let sim = Sim::new(c, SimConfig::default());
        let a = sim.malloc(0, 1 << 20).unwrap();
        let s = sim.create_stream(0, 0, false).unwrap();
        for op in [CmoType::Prefetch, CmoType::Invalid] {
            sim.submit(
                s,
                Task::Cmo {
                    op,
                    addr: a,
                    len: 1 << 20,
                },
            )
            .unwrap();
        }
        sim.synchronize_stream(s, None).unwrap();
        let r = sim.report();
        let names: Vec<&str> = r
            .engines
            .iter()
            .filter(|e| e.engine != "scheduler")
            .map(|e| e.engine.as_str())
            .collect();
        assert_eq!(names, engines, "{chip_type:?}");
    }
}

#[test]
fn cmo_on_unallocated_memory_faults() {
    let sim = sim();
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(
        s,
        Task::Cmo {
            op: CmoType::Prefetch,
            addr: 0x1000_0000_0000,
            len: 4096,
        },
    )
    .unwrap();
    assert!(matches!(
        sim.synchronize_stream(s, None),
        Err(SimError::TaskFault(t)) if t.contains("not allocated")
    ));
}

#[test]
fn cmo_with_descriptor_reads_the_range_from_device_memory() {
    let sim = sim();
    let a = sim.malloc(0, 1 << 20).unwrap();
    let desc = sim.malloc(0, 64).unwrap();
    let mut d = [0u8; 32];
    d[12..16].copy_from_slice(&(1u32 << 20).to_le_bytes());
    d[16..24].copy_from_slice(&a.to_le_bytes());
    sim.write(desc, &d).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(
        s,
        Task::CmoWithDesc {
            desc,
            op: CmoType::Prefetch,
        },
    )
    .unwrap();
    sim.synchronize_stream(s, None).unwrap();
    // A descriptor pointing past the allocation faults.
    d[12..16].copy_from_slice(&(2u32 << 20).to_le_bytes());
    sim.write(desc, &d).unwrap();
    sim.submit(
        s,
        Task::CmoWithDesc {
            desc,
            op: CmoType::Prefetch,
        },
    )
    .unwrap();
    assert!(matches!(
        sim.synchronize_stream(s, None),
        Err(SimError::TaskFault(t)) if t.contains("crosses end")
    ));
}

#[test]
fn force_destroy_drops_blocked_and_running_tasks() {
    let sim = sim_with(strict);
    let a = sim.malloc(0, 1 << 24).unwrap();
    write_u64(&sim, a, 0);
    let (s1, s2, s3) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    let ev = sim.create_event(0).unwrap();
    sim.submit(
        s1,
        Task::ValueWait {
            addr: a,
            value: 1,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    sim.submit(s1, Task::EventRecord(ev)).unwrap();
    sim.submit(
        s2,
        Task::Memset {
            addr: a + 8,
            value: 0,
            len: (1 << 24) - 8,
        },
    )
    .unwrap();
    sim.submit(s3, Task::EventWait(ev)).unwrap();
    sim.charge_host(3000);
    sim.destroy_stream(s1, true).unwrap();
    sim.destroy_stream(s2, true).unwrap();
    // The dropped record no longer blocks s3.
    sim.synchronize_device(0, None).unwrap();
    assert!(sim.diagnose().is_none());
    assert!(sim.submit(s1, Task::EventRecord(ev)).is_err());
}

#[test]
fn destroy_without_force_waits_for_the_queue() {
    let sim = sim();
    let a = sim.malloc(0, 64).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(s, Task::ValueWrite { addr: a, value: 4 })
        .unwrap();
    sim.destroy_stream(s, false).unwrap();
    assert_eq!(read_u64(&sim, a), 4);
}

#[test]
fn execute_model_with_timeout() {
    let sim = sim_with(|c| c.watchdog_grace = Duration::from_millis(50));
    let a = sim.malloc(0, 64).unwrap();
    write_u64(&sim, a, 0);
    let s = sim.create_stream(0, 0, true).unwrap();
    let m = sim.create_model(0).unwrap();
    sim.bind_stream(m, s).unwrap();
    sim.submit(
        s,
        Task::ValueWait {
            addr: a,
            value: 1,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    assert_eq!(
        sim.execute_model(m, Some(2))
            .err()
            .and_then(|e| e.timeout_ms()),
        Some(2)
    );
    let d = sim.diagnose().unwrap();
    assert!(d.text.contains("value wait"), "{}", d.text);
    write_u64(&sim, a, 1);
    sim.synchronize_device(0, Some(1)).unwrap();
}

#[test]
fn unaligned_wait_sees_writes_to_either_word() {
    let sim = sim();
    let a = sim.malloc(0, 64).unwrap();
    sim.fill(a, 0, 64).unwrap();
    let (s1, s2) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    sim.submit(
        s1,
        Task::ValueWait {
            addr: a + 4,
            value: 1 << 32,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    sim.charge_host(50_000);
    // Bytes 8..12 of the buffer are bytes 4..8 of the waited word.
    sim.submit(
        s2,
        Task::ValueWrite {
            addr: a + 8,
            value: 1,
        },
    )
    .unwrap();
    sim.synchronize_stream(s1, Some(1)).unwrap();
}
