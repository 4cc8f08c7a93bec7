//! Watched tasks (`Sim::submit_watched_after`, `Sim::watched_ends`): the host learns whether
//! a task it submitted has run without a fault (and its place in the order tasks completed),
//! faulted, or was discarded, and while it is still queued, that it is, until it forgets the
//! task; a model-bound stream takes no watched task.

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
    assert_eq!(sim.watched_ends(&[(s, &ids)]), [WatchedEnd::Pending]);
    write_u64(&sim, flag, 1);
    sim.synchronize_stream(s, None).unwrap();
    let ran = sim.watched_ends(&[(s, &ids)]);
    assert!(matches!(ran[..], [WatchedEnd::Ran { .. }]), "{ran:?}");
    assert_eq!(sim.watched_ends(&[(s, &ids)]), ran, "kept until forgotten");
    assert!(buf.lock().unwrap().iter().all(|&b| b == 5));
    sim.forget_watched(&ids);
    assert_eq!(sim.watched_ends(&[(s, &ids)]), [WatchedEnd::Failed]);
}

#[test]
fn watched_copies_say_the_order_the_device_ran_them_in_not_the_order_they_were_submitted() {
    let sim = sim();
    let (a, flag) = (sim.malloc(0, 4096).unwrap(), sim.malloc(0, 64).unwrap());
    sim.fill(flag, 0, 64).unwrap();
    let (first, second) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    let wait = Task::ValueWait {
        addr: flag,
        value: 1,
        mode: WaitMode::Geq,
    };
    sim.submit(first, wait).unwrap();
    let held = sim
        .submit_watched_after(first, copy_out(a, 64).0, 0)
        .unwrap()
        .unwrap();
    let free = sim
        .submit_watched_after(second, copy_out(a, 64).0, 0)
        .unwrap()
        .unwrap();
    sim.synchronize_stream(second, None).unwrap();
    write_u64(&sim, flag, 1);
    sim.synchronize_stream(first, None).unwrap();
    match sim.watched_ends(&[(first, &held), (second, &free)])[..] {
        [WatchedEnd::Ran { order: late }, WatchedEnd::Ran { order: early }] => {
            assert!(early < late, "{early} {late}")
        }
        ref other => panic!("{other:?}"),
    }
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
    assert_eq!(sim.watched_ends(&[(s, &faulting)]), [WatchedEnd::Failed]);
    // Discarded: its stream is aborted while it waits.
    let b = sim.malloc(0, 4096).unwrap();
    write_u64(&sim, flag, 0);
    sim.submit(s, wait).unwrap();
    let (task, _) = copy_out(b, 4096);
    let discarded = sim.submit_watched_after(s, task, 0).unwrap().unwrap();
    assert_eq!(sim.watched_ends(&[(s, &discarded)]), [WatchedEnd::Pending]);
    sim.abort_stream(s).unwrap();
    assert_eq!(sim.watched_ends(&[(s, &discarded)]), [WatchedEnd::Failed]);
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
