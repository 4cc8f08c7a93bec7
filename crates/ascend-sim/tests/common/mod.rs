//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ascend_chips::ChipProfile;
use ascend_sim::*;

pub fn chip() -> ChipProfile {
    ChipProfile::builtin("Ascend910B1").expect("built-in chip")
}

pub fn sim() -> Sim {
    Sim::new(chip(), SimConfig::default())
}

pub fn sim_with(f: impl FnOnce(&mut SimConfig)) -> Sim {
    let mut c = SimConfig::default();
    f(&mut c);
    Sim::new(chip(), c)
}

/// A config whose watchdog errors out quickly.
pub fn strict(c: &mut SimConfig) {
    c.on_stall = OnStall::Error;
    c.watchdog_grace = Duration::from_millis(100);
}

pub fn host_buf(data: Vec<u8>) -> HostBuf {
    Arc::new(Mutex::new(data))
}

pub fn read_u64(sim: &Sim, addr: DevAddr) -> u64 {
    let mut b = [0u8; 8];
    sim.read(addr, &mut b).unwrap();
    u64::from_le_bytes(b)
}

pub fn write_u64(sim: &Sim, addr: DevAddr, v: u64) {
    sim.write(addr, &v.to_le_bytes()).unwrap();
}

/// Runs `tasks` on a fresh stream of device 0 and synchronizes it.
pub fn run_tasks(sim: &Sim, tasks: Vec<Task>) {
    let st = sim.create_stream(0, 0, false).unwrap();
    for t in tasks {
        sim.submit(st, t).unwrap();
    }
    sim.synchronize_stream(st, None).unwrap();
}

/// A CMO task on a range.
pub fn cmo(op: CmoType, addr: u64, len: u64) -> Task {
    Task::Cmo { op, addr, len }
}

/// A memset task.
pub fn memset(addr: u64, value: u8, len: u64) -> Task {
    Task::Memset { addr, value, len }
}

/// A kernel task of `blocks` blocks.
pub fn kernel(k: Kernel, blocks: u32) -> Task {
    Task::Kernel { kernel: k, blocks }
}

/// The classes of the hazards reported so far, in order.
pub fn hazard_kinds(sim: &Sim) -> Vec<String> {
    sim.report()
        .hazards
        .iter()
        .map(|h| h.kind.clone())
        .collect()
}
