//! A program that runs for hours runs in bounded memory: 100,000 tasks of every kind (value
//! writes, kernels, host functions, events, copies) with streams, events and buffers created
//! and destroyed all along leave the process's resident memory flat once the run report's
//! bounded record lists are full, and the report still holds the first and the latest
//! records of each kind with a count of the rest.
//!
//! One test in this file: it reads the process's resident memory, which another test running
//! beside it would change.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ascend_rt::raw_types::memcpy_kind;
use ascend_rt::{HostFn, Kernel, KernelOps, MemDst, MemSrc, Runtime};
use common::*;

/// The process's resident memory in KiB (Linux), if it can be read.
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line["VmRSS:".len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// One round of work: 20 tasks on a stream of its own (and one on the long-lived stream),
/// with a buffer, an event and the stream created and destroyed around them.
fn round(
    r: &Runtime,
    long_lived: ascend_rt::raw_types::RawStream,
    k: &Kernel,
    calls: &Arc<AtomicU64>,
) -> u64 {
    let s = stream(r);
    let buf = malloc(r, 64);
    let e = event(r);
    let mut tasks = 0;
    for i in 0..4u64 {
        ok(r.value_write(buf, i, 0, s));
        ok(r.launch_kernel(k.clone(), 4, s));
        ok(r.memset_async(buf, 64, 1, 64, s));
        tasks += 3;
    }
    let c = calls.clone();
    let f: HostFn = Box::new(move || {
        c.fetch_add(1, Ordering::Relaxed);
    });
    ok(r.launch_host_func(s, Some(f)));
    ok(r.record_event(e, s));
    ok(r.stream_wait_event(long_lived, e));
    ok(r.value_write(buf, 9, 0, long_lived));
    tasks += 4;
    let mut host = [0u8; 8];
    ok(r.memcpy_async(
        MemDst::Host(&mut host),
        8,
        MemSrc::Addr(buf),
        8,
        memcpy_kind::DEVICE_TO_HOST,
        s,
    ));
    tasks += 1;
    ok(r.synchronize_stream(s));
    ok(r.synchronize_stream(long_lived));
    ok(r.destroy_event(e));
    ok(r.free(buf));
    ok(r.destroy_stream(s));
    tasks
}

#[test]
fn a_hundred_thousand_tasks_run_in_flat_memory_with_race_detection_off_and_on() {
    // One after the other, each measured from its own warm-up (one test: see the module doc).
    for races in [false, true] {
        let config = ascend_sim::SimConfig {
            races,
            ..ascend_sim::SimConfig::default()
        };
        let r = Runtime::sim_with(A2, config).expect("a simulator runtime");
        r.set_device(0).expect("aclrtSetDevice(0)");
        if !hundred_thousand_tasks(&r, races) {
            return;
        }
    }
}

/// The run of the test on `r`; false (SKIPPED printed) where memory cannot be measured.
fn hundred_thousand_tasks(r: &Runtime, races: bool) -> bool {
    let long_lived = stream(r);
    let k = Kernel::new("touch", |ctx: &mut dyn KernelOps| ctx.spin(10));
    let calls = Arc::new(AtomicU64::new(0));
    let (mut tasks, mut rounds) = (0u64, 0u64);
    // Warm up until every bounded list of the report is full (10,000 records of each kind).
    while tasks < 25_000 {
        tasks += round(r, long_lived, &k, &calls);
        rounds += 1;
    }
    let Some(before) = resident_kib() else {
        println!("SKIPPED: /proc/self/status is not readable; cannot measure resident memory");
        return false;
    };
    while tasks < 125_000 {
        tasks += round(r, long_lived, &k, &calls);
        rounds += 1;
    }
    let after = resident_kib().expect("read before");
    assert_eq!(
        calls.load(Ordering::Relaxed),
        rounds,
        "every host function ran"
    );
    let grown = after.saturating_sub(before);
    assert!(
        grown < 3 * 1024,
        "races {races}: resident memory grew by {grown} KiB over 100,000 tasks ({before} -> {after} KiB)"
    );
    let report = r.sim_view().expect("a simulator runtime").report();
    let limit = ascend_sim::DEFAULT_REPORT_RECORDS;
    assert_eq!(report.timeline.len(), limit);
    assert!(report.timeline.dropped > 100_000, "the rest are counted");
    assert!(
        report.timeline[0].task < report.timeline[limit - 1].task,
        "first, then latest"
    );
    assert_eq!(report.kernel_blocks.len(), limit);
    assert!(report.streams.total() > rounds);
    println!("races {races}: {tasks} tasks in {rounds} rounds: resident {before} -> {after} KiB");
    true
}
