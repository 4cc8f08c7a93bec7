//! The safe level's stream control: host functions run in stream order, the failure mode
//! decides whether a failed task's successors run, and an abort drops what is queued.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ascend_rt::safe::*;
use ascend_rt::Runtime;

fn device() -> Device {
    let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    Device::open(&rt, 0).unwrap()
}

#[test]
fn a_host_function_runs_only_when_its_stream_reaches_it() {
    let dev = device();
    let flag = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
    flag.fill_sync(0).unwrap();
    let s = dev.stream().unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    s.value_wait(flag.ptr(), 1, WaitMode::Eq).unwrap();
    let seen = ran.clone();
    s.host_func(move || seen.store(true, Ordering::SeqCst))
        .unwrap();
    // The wait is not satisfied: the host function cannot have run.
    assert!(!s.is_complete().unwrap());
    assert!(!ran.load(Ordering::SeqCst));
    let w = dev.stream().unwrap();
    w.value_write(flag.ptr(), 1).unwrap();
    s.synchronize().unwrap();
    assert!(ran.load(Ordering::SeqCst));
}

#[test]
fn the_tasks_after_a_host_function_wait_until_it_returns() {
    let dev = device();
    let word = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
    word.fill_sync(0).unwrap();
    let s = dev.stream().unwrap();
    let (release, held) = std::sync::mpsc::channel::<()>();
    s.host_func(move || held.recv().unwrap()).unwrap();
    s.value_write(word.ptr(), 5).unwrap();
    // However long the host function is held, the write behind it does not run.
    for _ in 0..50 {
        assert_eq!(word.read_u64(0).unwrap(), 0);
        assert!(!s.is_complete().unwrap());
        std::thread::yield_now();
    }
    release.send(()).unwrap();
    s.synchronize().unwrap();
    assert_eq!(word.read_u64(0).unwrap(), 5);
}

#[test]
fn stop_on_failure_discards_the_tasks_after_a_failed_one_and_continue_runs_them() {
    for (mode, later_ran) in [
        (FailureMode::StopOnFailure, false),
        (FailureMode::ContinueOnFailure, true),
    ] {
        let dev = device();
        let buf = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
        let word = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
        word.fill_sync(0).unwrap();
        let s = dev.stream().unwrap();
        s.set_failure_mode(mode).unwrap();
        // A prefetch that runs past the end of its allocation faults on the device.
        s.cmo(CmoType::Prefetch, buf.ptr(), 1 << 30).unwrap();
        s.value_write(word.ptr(), 9).unwrap();
        assert!(s.synchronize().is_err(), "{mode:?}: the fault is reported");
        let after = word.read_u64(0).unwrap();
        assert_eq!(after == 9, later_ran, "{mode:?}: the later write");
    }
}

#[test]
fn an_abort_drops_the_queued_tasks_and_the_stream_stays_usable() {
    let dev = device();
    let flag = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
    flag.fill_sync(0).unwrap();
    let word = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
    word.fill_sync(0).unwrap();
    let s = dev.stream().unwrap();
    // A wait nothing satisfies, then a write behind it.
    s.value_wait(flag.ptr(), 1, WaitMode::Eq).unwrap();
    s.value_write(word.ptr(), 3).unwrap();
    s.abort().unwrap();
    let _ = s.synchronize();
    assert_eq!(word.read_u64(0).unwrap(), 0, "the queued write was dropped");
    // The stream takes and runs new tasks.
    s.value_write(word.ptr(), 4).unwrap();
    s.synchronize().unwrap();
    assert_eq!(word.read_u64(0).unwrap(), 4);
}

#[test]
fn an_abort_is_refused_where_the_firmware_cannot_abort_a_stream() {
    let rt = Arc::new(Runtime::sim("Ascend310B1").unwrap());
    let dev = Device::open(&rt, 0).unwrap();
    let s = dev.stream().unwrap();
    assert_eq!(s.abort().unwrap_err().code(), 207000);
}

#[test]
fn a_timeout_shorter_than_a_millisecond_waits_one_millisecond() {
    let dev = device();
    let s = dev.stream().unwrap();
    s.synchronize_timeout(std::time::Duration::ZERO).unwrap();
    s.synchronize_timeout(std::time::Duration::from_micros(500))
        .unwrap();
}
