//! The host clock: every host call costs host time and the device runs to it before the call
//! answers (a call that needs only an idle device leaves that to the next call that looks); synchronous copies take their bandwidth time; threads share one clock; a force
//! destroy drains the queue and lists what it discards; a pending host call nobody is ready to
//! take holds its own stream only; spinning kernels are fast-forwarded behind a timed wait;
//! the paced mode moves the device with the wall clock (docs/host-clock.md).

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ascend_sim::pacing::Pacer;
use ascend_sim::*;
use common::*;

/// A program of one host thread: allocations, copies, fills, queries, a kernel, waits, a
/// force destroy and bracketed calls; returns the report as JSON.
fn single_threaded_program() -> String {
    let sim = sim();
    let a = sim.malloc(0, 1 << 20).unwrap();
    let flag = sim.malloc(0, 64).unwrap();
    sim.fill(flag, 0, 64).unwrap();
    let (s1, s2) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    sim.host_call_begin("aclrtMemsetAsync");
    sim.submit(s1, memset(a, 3, 1 << 20)).unwrap();
    sim.host_call_end(0);
    let wait = Task::ValueWait {
        addr: flag,
        value: 1,
        mode: WaitMode::Eq,
    };
    sim.submit(s2, wait.clone()).unwrap();
    while !sim.stream_idle(s1).unwrap() {}
    sim.write(a, &[7u8; 4096]).unwrap();
    let body = move |ctx: &mut dyn KernelOps| {
        ctx.store(flag, 8, 1);
        ctx.dcci(flag, false, 2);
    };
    sim.submit(s1, kernel(Kernel::new("raise", body), 2))
        .unwrap();
    sim.synchronize_stream(s2, Some(100)).unwrap();
    sim.submit(s2, memset(a, 9, 64)).unwrap();
    sim.submit(s2, wait).unwrap();
    sim.submit(s2, memset(a, 9, 64)).unwrap();
    sim.destroy_stream(s2, true).unwrap();
    sim.synchronize_device(0, None).unwrap();
    sim.report_json()
}

#[test]
fn a_single_threaded_program_gives_the_same_report_bit_for_bit_every_run() {
    let first = single_threaded_program();
    for run in 1..20 {
        assert!(
            single_threaded_program() == first,
            "run {run} gave another report"
        );
    }
}

#[test]
fn each_query_costs_host_time_so_a_polling_loop_ends() {
    let sim = sim();
    let t = sim.chip().timing;
    let a = sim.malloc(0, 64 << 20).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.submit(s, memset(a, 1, 64 << 20)).unwrap();
    let before = sim.now_ns();
    let mut queries = 0u64;
    while !sim.stream_idle(s).unwrap() {
        queries += 1;
        assert!(
            queries < 1_000_000,
            "the fill never completed under polling"
        );
    }
    let spent = sim.now_ns() - before;
    assert_eq!(
        spent,
        (queries + 1) * t.host_query_ns,
        "each query costs one"
    );
    // A 64 MiB fill at the chip's memory bandwidth takes tens of µs: many queries, not one.
    assert!(queries > 10, "{queries} queries");
}

#[test]
fn a_synchronous_copy_takes_its_bandwidth_time_while_other_streams_run() {
    let sim = sim();
    let t = sim.chip().timing;
    let src = sim.malloc(0, 4096).unwrap();
    let big = sim.malloc(0, 1 << 20).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    sim.fill(src, 5, 4096).unwrap();
    let out = host_buf(vec![0; 4096]);
    let copy = Task::Memcpy {
        dst: Loc::Host {
            buf: out.clone(),
            offset: 0,
        },
        src: Loc::Device(src),
        len: 4096,
    };
    sim.submit(s, copy).unwrap();
    let before = sim.now_ns();
    sim.write(big, &vec![1u8; 1 << 20]).unwrap();
    let took = sim.now_ns() - before;
    let transfer = ((1u64 << 20) as f64 / t.h2d_gbps).ceil() as u64;
    assert_eq!(
        took,
        t.host_launch_ns + t.dma_setup_ns + transfer + t.host_sync_ns,
        "launch, setup, 1 MiB at the host link's bandwidth, observation"
    );
    assert!(
        out.lock().unwrap().iter().all(|&b| b == 5),
        "the queued D2H landed during the synchronous copy"
    );
}

#[test]
fn every_host_threads_calls_advance_the_one_host_clock() {
    let sim = Arc::new(sim());
    let t = sim.chip().timing;
    let s = sim.create_stream(0, 0, false).unwrap();
    let before = sim.now_ns();
    let threads: Vec<_> = (0..6)
        .map(|_| {
            let sim = sim.clone();
            std::thread::spawn(move || {
                for _ in 0..50 {
                    sim.stream_idle(s).unwrap();
                }
            })
        })
        .collect();
    for th in threads {
        th.join().unwrap();
    }
    assert_eq!(sim.now_ns() - before, 300 * t.host_query_ns);
}

#[test]
fn a_force_destroy_runs_what_the_queue_can_run_and_lists_what_it_discards() {
    let sim = sim();
    let a = sim.malloc(0, 4096).unwrap();
    let flag = sim.malloc(0, 8).unwrap();
    sim.fill(flag, 0, 8).unwrap();
    sim.fill(a, 0, 4096).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    let body = move |ctx: &mut dyn KernelOps| {
        ctx.store(a, 8, 42);
        ctx.dcci(a, false, 2);
    };
    sim.submit(s, kernel(Kernel::new("store", body), 1))
        .unwrap();
    let wait = Task::ValueWait {
        addr: flag,
        value: 1,
        mode: WaitMode::Eq,
    };
    let wait_task = sim.submit(s, wait).unwrap();
    let fill = sim.submit(s, memset(a, 9, 4096)).unwrap();
    sim.destroy_stream(s, true).unwrap();
    assert_eq!(
        read_u64(&sim, a),
        42,
        "the kernel ran before the destroy returned"
    );
    let report = sim.report();
    let discarded: Vec<(u64, &str)> = report
        .discarded
        .iter()
        .map(|d| (d.task, &*d.kind))
        .collect();
    assert_eq!(
        discarded,
        [(wait_task.0, "ValueWait"), (fill.0, "Memset")],
        "the blocked wait and what followed it"
    );
}

/// A 1 MiB buffer, a stream holding a blocking host call (number 1) for `channel`'s thread,
/// and another stream.
fn blocking_call_beside_another_stream(sim: &Sim, channel: u64) -> (DevAddr, StreamId, StreamId) {
    let a = sim.malloc(0, 1 << 20).unwrap();
    let (held, other) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    let call = HostCall {
        call: 1,
        channel,
        blocking: true,
    };
    sim.submit_host_call(held, call).unwrap();
    (a, held, other)
}

#[test]
fn a_host_call_no_thread_is_ready_to_take_holds_its_own_stream_only() {
    let sim = sim_with(strict);
    // Channel 7: a report thread that is not processing reports.
    let (a, held, other) = blocking_call_beside_another_stream(&sim, 7);
    sim.submit(other, memset(a, 1, 1 << 20)).unwrap();
    sim.synchronize_stream(other, Some(2000)).unwrap();
    assert!(
        !sim.stream_idle(held).unwrap(),
        "the call's stream stays held"
    );
    // Once a thread takes it and returns, the stream goes on.
    let due = sim.next_host_call(7, Some(0)).unwrap().expect("due");
    assert!(sim.finish_host_call(due.task));
    sim.synchronize_stream(held, Some(100)).unwrap();
}

#[test]
fn a_timed_wait_behind_a_spinning_kernel_skips_to_its_deadline_and_says_what_blocks() {
    let sim = sim();
    let flag = sim.malloc(0, 64).unwrap();
    sim.fill(flag, 0, 64).unwrap();
    let (s, w) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    // Polls without a dcci: it never sees the write.
    let body = move |ctx: &mut dyn KernelOps| {
        while ctx.load(flag, 8) != 1 {
            ctx.spin(100);
        }
    };
    sim.submit(s, kernel(Kernel::new("stale poller", body), 1))
        .unwrap();
    // The kernel has cached the line before the write.
    sim.charge_host(20_000);
    sim.submit(
        w,
        Task::ValueWrite {
            addr: flag,
            value: 1,
        },
    )
    .unwrap();
    sim.synchronize_stream(w, None).unwrap();
    let wall = Instant::now();
    let err = sim.synchronize_stream(s, Some(50)).unwrap_err();
    assert!(
        wall.elapsed() < Duration::from_secs(1),
        "took {:?}",
        wall.elapsed()
    );
    match &err {
        SimError::TimeoutBlocked(50, why) => {
            assert!(
                why.text.contains("stale") && why.text.contains("dcci"),
                "{}",
                why.text
            )
        }
        other => panic!("expected a timeout with the reason, got {other}"),
    }
    assert!(sim.report().fast_forwarded_ns > 40_000_000);
    sim.destroy_stream(s, true).unwrap();
}

#[test]
fn the_paced_mode_moves_the_device_while_the_host_makes_no_call() {
    let paced = Arc::new(sim_with(|c| c.pacing = Pacing::Wall { ratio: 1.0 }));
    let _pacer: Pacer = Sim::start_pacer(&paced).expect("a pacer");
    let a = paced.malloc(0, 64).unwrap();
    let s = paced.create_stream(0, 0, false).unwrap();
    let progress = paced.progress();
    paced.submit(s, memset(a, 1, 64)).unwrap();
    let start = Instant::now();
    while progress.tasks() == 0 && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        progress.tasks(),
        1,
        "the fill ran while the host only slept"
    );

    // Off by default: nothing moves without a call.
    let calls = Arc::new(sim());
    assert!(Sim::start_pacer(&calls).is_none());
    let b = calls.malloc(0, 64).unwrap();
    let t = calls.create_stream(0, 0, false).unwrap();
    let quiet = calls.progress();
    calls.submit(t, memset(b, 1, 64)).unwrap();
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(quiet.tasks(), 0);
}

/// The runtime's host-function thread as a thread that takes the first call of channel 0 (charging
/// a little host time while none is due: nothing moves the clock on its own) and runs it for
/// 600 ms of wall time (it sleeps; it could wait for what the main thread does after its
/// synchronize); the flag says when it has returned.
fn slow_runtime_thread(sim: &Arc<Sim>) -> (std::thread::JoinHandle<()>, Arc<AtomicBool>) {
    let returned = Arc::new(AtomicBool::new(false));
    let runner = {
        let (sim, returned) = (sim.clone(), returned.clone());
        std::thread::spawn(move || {
            let due = loop {
                if let Some(c) = sim.wait_host_call(0, Duration::from_millis(10)) {
                    break c;
                }
                sim.charge_host(1_000);
            };
            std::thread::sleep(Duration::from_millis(600));
            returned.store(true, Ordering::SeqCst);
            sim.finish_host_call(due.task);
        })
    };
    (runner, returned)
}

#[test]
fn a_host_function_that_runs_long_holds_the_clock_for_a_while_only() {
    let sim = Arc::new(sim_with(strict));
    let (a, held, other) = blocking_call_beside_another_stream(&sim, 0);
    let (runner, returned) = slow_runtime_thread(&sim);
    // Let the call be taken before the other stream's work is queued.
    std::thread::sleep(Duration::from_millis(100));
    sim.submit(other, memset(a, 1, 1 << 20)).unwrap();
    sim.synchronize_stream(other, None).unwrap();
    assert!(
        !returned.load(Ordering::SeqCst),
        "the other stream finished while the host function still ran"
    );
    runner.join().unwrap();
    sim.synchronize_stream(held, None).unwrap();
}

#[test]
fn a_timed_wait_behind_a_polling_kernel_is_not_skipped_while_another_host_thread_may_release_it() {
    let sim = Arc::new(sim());
    let flag = sim.malloc(0, 64).unwrap();
    sim.fill(flag, 0, 64).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    // A correct poller: dcci before each load.
    let body = move |ctx: &mut dyn KernelOps| loop {
        ctx.dcci(flag, false, 2);
        if ctx.load(flag, 8) == 1 {
            break;
        }
        ctx.spin(100);
    };
    sim.submit(s, kernel(Kernel::new("poller", body), 1))
        .unwrap();
    let (called, has_called) = std::sync::mpsc::channel();
    let writer = {
        let sim = sim.clone();
        std::thread::spawn(move || {
            sim.charge_host(1_000);
            called.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(100));
            write_u64(&sim, flag, 1);
        })
    };
    // The second thread has called before the wait begins.
    has_called.recv().unwrap();
    assert_eq!(sim.synchronize_stream(s, Some(3000)), Ok(()));
    writer.join().unwrap();
    assert_eq!(sim.report().fast_forwarded_ns, 0);
}

#[test]
fn a_force_destroy_drains_a_wait_that_another_streams_work_releases() {
    let sim = sim();
    let a = sim.malloc(0, 4096).unwrap();
    let big = sim.malloc(0, 64 << 20).unwrap();
    sim.fill(a, 0, 4096).unwrap();
    let (s, o) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    let ev = sim.create_event(0).unwrap();
    sim.submit(o, memset(big, 1, 64 << 20)).unwrap();
    sim.submit(o, Task::EventRecord(ev)).unwrap();
    sim.submit(s, Task::EventWait(ev)).unwrap();
    sim.submit(s, memset(a, 7, 4096)).unwrap();
    sim.destroy_stream(s, true).unwrap();
    assert_eq!(
        read_u64(&sim, a),
        0x0707_0707_0707_0707,
        "the fill behind the wait ran"
    );
    assert!(sim.report().discarded.is_empty());
}

#[test]
fn a_call_due_for_the_runtime_thread_while_it_runs_another_does_not_hold_the_clock() {
    let sim = Arc::new(sim_with(strict));
    let (a, first, other) = blocking_call_beside_another_stream(&sim, 0);
    let (runner, returned) = slow_runtime_thread(&sim);
    std::thread::sleep(Duration::from_millis(100));
    // A second call for the runtime's thread, which is busy with the first.
    let second = sim.create_stream(0, 0, false).unwrap();
    let call = HostCall {
        call: 2,
        channel: 0,
        blocking: true,
    };
    sim.submit_host_call(second, call).unwrap();
    sim.submit(other, memset(a, 1, 1 << 20)).unwrap();
    sim.synchronize_stream(other, None).unwrap();
    assert!(
        !returned.load(Ordering::SeqCst),
        "the fill did not wait for the busy thread"
    );
    runner.join().unwrap();
    let due = sim
        .next_host_call(0, Some(0))
        .unwrap()
        .expect("the second call");
    sim.finish_host_call(due.task);
    sim.synchronize_stream(first, None).unwrap();
    sim.synchronize_stream(second, None).unwrap();
}

/// A kernel of one block on device 0 that marks `started` when it runs and stores `value`.
fn marking_kernel(flag: u64, value: u64, started: Arc<AtomicBool>) -> Task {
    kernel(
        Kernel::new("marks", move |ctx: &mut dyn KernelOps| {
            started.store(true, Ordering::Release);
            ctx.store(flag, 8, value);
            ctx.dcci(flag, false, 2);
        }),
        1,
    )
}

#[test]
fn a_call_that_needs_only_an_idle_device_does_not_run_another_devices_kernel() {
    let sim = sim();
    let flag = sim.malloc(0, 64).unwrap();
    sim.fill(flag, 0, 64).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    let started = Arc::new(AtomicBool::new(false));
    sim.submit(s, marking_kernel(flag, 5, started.clone()))
        .unwrap();
    // Allocations, streams and events on device 1, which has no work: the kernel on device 0
    // does not run in them (it would have to, to bring device 0 to the host's time).
    let a = sim.malloc(1, 4096).unwrap();
    let s1 = sim.create_stream(1, 0, false).unwrap();
    let ev = sim.create_event(1).unwrap();
    sim.free(1, a).unwrap();
    assert!(
        !started.load(Ordering::Acquire),
        "calls on idle device 1 ran device 0's kernel"
    );
    // The next call that looks at the devices runs them to the host's time first (reading
    // the clock charges nothing, so only that catch-up can run the kernel).
    let _ = sim.now_ns();
    assert!(
        started.load(Ordering::Acquire),
        "the look caught device 0 up"
    );
    sim.synchronize_stream(s, None).unwrap();
    let mut b = [0u8; 8];
    sim.read(flag, &mut b).unwrap();
    assert_eq!(u64::from_le_bytes(b), 5);
    // A call on a device with work queued runs the devices as before.
    let started = Arc::new(AtomicBool::new(false));
    sim.submit(s, marking_kernel(flag, 6, started.clone()))
        .unwrap();
    let _ = sim.malloc(0, 64).unwrap();
    assert!(
        started.load(Ordering::Acquire),
        "an allocation on the busy device runs it to the host's time"
    );
    sim.synchronize_stream(s, None).unwrap();
    sim.destroy_event(ev).unwrap();
    sim.destroy_stream(s1, false).unwrap();
}

#[test]
fn the_devices_end_where_they_would_have_when_calls_on_an_idle_device_came_between() {
    // The same kernel and copies, with and without allocations on idle device 1 in between:
    // the kernel's task ends at the same simulated time after the same host time charged.
    let run = |with_device_1_calls: bool| {
        let sim = sim();
        let flag = sim.malloc(0, 64).unwrap();
        sim.fill(flag, 0, 64).unwrap();
        let s = sim.create_stream(0, 0, false).unwrap();
        let started = Arc::new(AtomicBool::new(false));
        sim.submit(s, marking_kernel(flag, 9, started)).unwrap();
        if with_device_1_calls {
            let a = sim.malloc(1, 64).unwrap();
            sim.free(1, a).unwrap();
        } else {
            sim.charge_host(2 * sim.chip().timing.host_alloc_ns);
        }
        sim.synchronize_stream(s, None).unwrap();
        let r = sim.report();
        (sim.now_ns(), r.end_ns, read_u64(&sim, flag))
    };
    assert_eq!(run(true), run(false));
}
