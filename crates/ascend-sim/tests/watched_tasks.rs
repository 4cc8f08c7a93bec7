//! Watched tasks (`Sim::submit_watched_after`, `Sim::watched_end`): the host learns, once,
//! whether a task it submitted has run without a fault, faulted, or was discarded, and while
//! it is still queued, that it is; a model-bound stream takes no watched task.

mod common;

use ascend_sim::*;
use common::*;

/// A copy of `len` bytes of device memory at `src` into a new host buffer.
fn copy_out(src: DevAddr, len: u64) -> (Task, HostBuf) {
    let buf = host_buf(vec![0u8; len as usize]);
    let task = Task::Memcpy {
        dst: Loc::Host {
            buf: buf.clone(),
            offset: 0,
        },
        src: Loc::Device(src),
        len,
    };
    (task, buf)
}

#[test]
fn a_watched_copy_is_pending_behind_a_wait_then_ran_once_then_forgotten() {
    let sim = sim();
    let (a, flag) = (sim.malloc(0, 4096).unwrap(), sim.malloc(0, 64).unwrap());
    sim.write(a, &[5u8; 4096]).unwrap();
    sim.fill(flag, 0, 64).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    let wait = Task::ValueWait {
        addr: flag,
        value: 1,
        mode: WaitMode::Geq,
    };
    sim.submit(s, wait).unwrap();
    let (task, buf) = copy_out(a, 4096);
    let ids = sim.submit_watched_after(s, task, 0).unwrap().unwrap();
    assert_eq!(ids.len(), 1);
    assert_eq!(sim.watched_end(s, &ids), WatchedEnd::Pending);
    write_u64(&sim, flag, 1);
    sim.synchronize_stream(s, None).unwrap();
    assert_eq!(sim.watched_end(s, &ids), WatchedEnd::Ran);
    assert!(buf.lock().unwrap().iter().all(|&b| b == 5));
    // Answered once: the simulator has forgotten it.
    assert_eq!(sim.watched_end(s, &ids), WatchedEnd::Failed);
}

#[test]
fn a_watched_copy_that_faults_or_is_discarded_has_failed() {
    let sim = sim();
    let a = sim.malloc(0, 4096).unwrap();
    let flag = sim.malloc(0, 64).unwrap();
    sim.fill(flag, 0, 64).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    // Faults: its source is freed before it runs.
    let (task, _) = copy_out(a, 4096);
    let wait = Task::ValueWait {
        addr: flag,
        value: 1,
        mode: WaitMode::Geq,
    };
    sim.submit(s, wait.clone()).unwrap();
    let faulting = sim.submit_watched_after(s, task, 0).unwrap().unwrap();
    sim.free(0, a).unwrap();
    write_u64(&sim, flag, 1);
    assert!(sim.synchronize_stream(s, None).is_err());
    assert_eq!(sim.watched_end(s, &faulting), WatchedEnd::Failed);
    // Discarded: its stream is aborted while it waits.
    let b = sim.malloc(0, 4096).unwrap();
    write_u64(&sim, flag, 0);
    sim.submit(s, wait).unwrap();
    let (task, _) = copy_out(b, 4096);
    let discarded = sim.submit_watched_after(s, task, 0).unwrap().unwrap();
    assert_eq!(sim.watched_end(s, &discarded), WatchedEnd::Pending);
    sim.abort_stream(s).unwrap();
    assert_eq!(sim.watched_end(s, &discarded), WatchedEnd::Failed);
}

#[test]
fn a_stream_bound_to_a_model_takes_no_watched_task() {
    let sim = sim();
    let a = sim.malloc(0, 64).unwrap();
    let s = sim.create_stream(0, 0, true).unwrap();
    let m = sim.create_model(0).unwrap();
    sim.bind_stream(m, s).unwrap();
    let (task, _) = copy_out(a, 64);
    assert_eq!(sim.submit_watched_after(s, task, 0).unwrap(), None);
}
