//! The simulator's behaviour as seen through the `ascend-rt` API: compare modes, GEQ
//! semantics, host threads, the watchdog, queue limits, events, copies, device resets,
//! determinism and the run report.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ascend_rt::raw_types::*;
use ascend_rt::safe::{Device, MallocPolicy, StreamConfig, WaitMode};
use ascend_rt::{MemDst, MemSrc, Runtime};
use ascend_sim::{GeqSemantics, OnStall, SimConfig};

fn runtime(soc: &str) -> Arc<Runtime> {
    Arc::new(Runtime::sim(soc).expect("built-in SoC"))
}

fn runtime_with(soc: &str, cfg: SimConfig) -> Arc<Runtime> {
    Arc::new(Runtime::sim_with(soc, cfg).expect("built-in SoC"))
}

/// Writes `mem` into a fresh word, enqueues a wait with (`value`, `flag`) and reports whether
/// the stream got past it within a short timed synchronize.
fn released(rt: &Runtime, mem: u64, value: u64, flag: u32) -> bool {
    let mut word = Addr::NULL;
    rt.malloc(Some(&mut word), 8, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memcpy(
        MemDst::Addr(word),
        8,
        MemSrc::Host(&mem.to_le_bytes()),
        8,
        memcpy_kind::HOST_TO_DEVICE,
    )
    .unwrap();
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    rt.value_wait(word, value, flag, s).unwrap();
    let result = rt.synchronize_stream_with_timeout(s, 5);
    rt.destroy_stream_force(s).unwrap();
    rt.free(word).unwrap();
    match result {
        Ok(()) => true,
        Err(e) if e.code() == 507046 => false,
        Err(e) => panic!("unexpected error {e}"),
    }
}

#[test]
fn each_compare_mode_satisfied_and_unsatisfied() {
    let rt = runtime("Ascend910B1");
    rt.set_device(0).unwrap();
    use wait_flag::*;
    let cases: &[(u64, u64, u32, bool)] = &[
        (5, 5, GEQ, true),
        (6, 5, GEQ, true),
        (4, 5, GEQ, false),
        (7, 7, EQ, true),
        (7, 8, EQ, false),
        (0b1010, 0b0010, AND, true),
        (0b1010, 0b0101, AND, false),
        (0, 0, NOR, true),
        (u64::MAX, 0, NOR, false),
        (0xFFFF_FFFF_0000_0000, 0x0000_0000_FFFF_FFFF, NOR, false),
        (0xFFFF_FFFF_0000_0000, 0x0000_0000_FFFF_FFFE, NOR, true),
    ];
    for &(mem, value, flag, want) in cases {
        assert_eq!(
            released(&rt, mem, value, flag),
            want,
            "mem {mem:#x} value {value:#x} flag {flag}"
        );
    }
}

#[test]
fn geq_is_signed_by_default_and_cyclic_as_a_setting() {
    let signed = runtime("Ascend910B1");
    signed.set_device(0).unwrap();
    // The two counter-examples of docs/validation/value-write-wait.md (GEQ: signed versus cyclic).
    assert!(!released(&signed, 0x8000_0000_0000_0000, 1, wait_flag::GEQ));
    assert!(released(
        &signed,
        0x7FFF_FFFF_FFFF_FFFF,
        0x8000_0000_0000_0000,
        wait_flag::GEQ
    ));

    let cyclic = runtime_with(
        "Ascend910B1",
        SimConfig {
            geq: GeqSemantics::Cyclic,
            ..SimConfig::default()
        },
    );
    cyclic.set_device(0).unwrap();
    assert!(released(&cyclic, 0x8000_0000_0000_0000, 1, wait_flag::GEQ));
    assert!(!released(
        &cyclic,
        0x7FFF_FFFF_FFFF_FFFF,
        0x8000_0000_0000_0000,
        wait_flag::GEQ
    ));
}

#[test]
fn a_wait_is_released_by_a_write_from_another_stream() {
    let rt = runtime("Ascend950PR_9599");
    let dev = Device::open(&rt, 0).unwrap();
    let flag = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
    flag.fill_sync(0).unwrap();
    let data = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
    let (a, b) = (dev.stream().unwrap(), dev.stream().unwrap());
    // a: wait for flag >= 1, then copy the data written by b before the flag.
    a.value_wait(flag.ptr(), 1, WaitMode::Geq).unwrap();
    let out = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
    a.copy_d2d_async(out.ptr(), data.ptr(), 64).unwrap();
    assert!(
        !a.is_complete().unwrap(),
        "a must be blocked before b writes"
    );
    b.copy_h2d_async(data.ptr(), &[7u8; 64]).unwrap();
    b.value_write(flag.ptr(), 1).unwrap();
    a.synchronize().unwrap();
    let mut got = [0u8; 64];
    out.copy_to_host_sync(&mut got).unwrap();
    assert_eq!(got, [7u8; 64], "stream order: the data precedes the flag");
}

#[test]
fn two_host_threads_wait_and_write() {
    let rt = runtime("Ascend910B1");
    let dev = Device::open(&rt, 0).unwrap();
    let flag = Arc::new(dev.malloc(8, MallocPolicy::HugeFirst).unwrap());
    flag.fill_sync(0).unwrap();
    let a = Arc::new(dev.stream().unwrap());
    let b = Arc::new(dev.stream().unwrap());
    let started = Instant::now();
    let waiter = {
        let (a, flag) = (a.clone(), flag.clone());
        std::thread::spawn(move || {
            a.value_wait(flag.ptr(), 100, WaitMode::Eq).unwrap();
            a.synchronize().unwrap();
            started.elapsed()
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    let writer = {
        let (b, flag) = (b.clone(), flag.clone());
        std::thread::spawn(move || {
            b.value_write(flag.ptr(), 100).unwrap();
            b.synchronize().unwrap();
        })
    };
    writer.join().unwrap();
    let waited = waiter.join().unwrap();
    assert!(
        waited >= Duration::from_millis(300),
        "the waiter returned before the write: {waited:?}"
    );
    assert_eq!(flag.read_u64(0).unwrap(), 100);
}

/// A runtime whose stalls end in an error after 100 ms, with device 0 set and a zeroed word.
fn stalls_fail_with_a_zeroed_word() -> (Arc<Runtime>, Addr) {
    let cfg = SimConfig {
        on_stall: OnStall::Error,
        watchdog_grace: Duration::from_millis(100),
        ..SimConfig::default()
    };
    let rt = runtime_with("Ascend910B1", cfg);
    rt.set_device(0).unwrap();
    let mut word = Addr::NULL;
    rt.malloc(Some(&mut word), 8, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(word, 8, 0, 8).unwrap();
    (rt, word)
}

#[test]
fn the_watchdog_explains_a_wait_that_can_never_be_satisfied() {
    let (rt, word) = stalls_fail_with_a_zeroed_word();
    rt.value_wait(word, 0x64, wait_flag::EQ, RawStream::NULL)
        .unwrap();
    let t = Instant::now();
    let err = rt.synchronize_stream(RawStream::NULL).unwrap_err();
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "the watchdog must end the wait"
    );
    let text = err.to_string();
    assert!(
        text.contains(&format!("{:#x}", word.0)),
        "diagnosis names the address: {text}"
    );
    assert!(text.contains("EQ"), "diagnosis names the predicate: {text}");
}

#[test]
fn the_error_of_a_stalled_wait_carries_the_watchdogs_diagnosis_as_data() {
    let (rt, word) = stalls_fail_with_a_zeroed_word();
    let mut other = RawStream::NULL;
    rt.create_stream(Some(&mut other)).unwrap();
    rt.value_wait(word, 0x64, wait_flag::EQ, other).unwrap();
    // A synchronize that the watchdog ends, and one whose own timeout expires first.
    let stalled = rt.synchronize_stream(other).unwrap_err();
    let timed = rt.synchronize_stream_with_timeout(other, 50).unwrap_err();
    for err in [&stalled, &timed] {
        let why = err
            .diagnosis()
            .unwrap_or_else(|| panic!("no diagnosis in {err}"));
        assert_eq!(why.blocked.len(), 1, "{why:?}");
        let head = &why.blocked[0];
        assert!(head.waiting_for.contains("EQ"), "{head:?}");
        assert!(
            head.waiting_for.contains(&format!("{:#x}", word.0)),
            "{head:?}"
        );
        assert!(err.message.contains(&why.text), "{err}");
    }
    assert_eq!(stalled.code(), 507046);
    assert_eq!(timed.code(), 507046);
    // A failure that is not a stall has none.
    let bad = rt.synchronize_stream(RawStream(0xdead)).unwrap_err();
    assert!(bad.diagnosis().is_none(), "{bad}");
}

#[test]
fn a_model_bound_stream_reports_a_full_queue() {
    let rt = runtime("Ascend910B1");
    let dev = Device::open(&rt, 0).unwrap();
    let word = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
    let model = dev.model().unwrap();
    let s = dev.stream_with(StreamConfig::persistent()).unwrap();
    model.bind(&s).unwrap();
    let cap = rt.chip().limits.max_tasks_per_stream() as usize;
    for i in 0..cap {
        s.value_write(word.ptr(), i as u64)
            .unwrap_or_else(|e| panic!("task {i} of {cap}: {e}"));
    }
    let err = s.value_write(word.ptr(), 0).unwrap_err();
    assert_eq!(err.code(), 507002, "{err}");
}

#[test]
fn a_full_plain_queue_blocks_the_host_until_another_thread_releases_it() {
    let rt = runtime("Ascend910B1");
    let dev = Device::open(&rt, 0).unwrap();
    let gate = Arc::new(dev.malloc(8, MallocPolicy::NormalOnly).unwrap());
    gate.fill_sync(0).unwrap();
    let s = Arc::new(dev.stream().unwrap());
    s.value_wait(gate.ptr(), 1, WaitMode::Eq).unwrap();
    let cap = rt.chip().limits.max_tasks_per_stream() as usize;
    let slots = rt.chip().limits.value_wait_slots as usize;
    let releaser = {
        let (dev, gate) = (dev.clone(), gate.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            let other = dev.stream().unwrap();
            other.value_write(gate.ptr(), 1).unwrap();
            other.synchronize().unwrap();
        })
    };
    let t = Instant::now();
    // One more task than the queue holds behind the wait: the last submission must block
    // until the releaser's write lets the wait complete.
    for i in 0..(cap - slots + 1) {
        s.value_write(gate.ptr(), 1)
            .unwrap_or_else(|e| panic!("task {i}: {e}"));
    }
    assert!(
        t.elapsed() >= Duration::from_millis(150),
        "the submission should have blocked"
    );
    releaser.join().unwrap();
    s.synchronize().unwrap();
}

#[test]
fn events_order_streams_and_measure_time() {
    let rt = runtime("Ascend910B1");
    let dev = Device::open(&rt, 0).unwrap();
    let buf = dev.malloc(1 << 20, MallocPolicy::HugeFirst).unwrap();
    let (start, end) = (dev.event().unwrap(), dev.event().unwrap());
    let s = dev.stream().unwrap();
    s.record(&start).unwrap();
    s.fill_async(buf.ptr(), 1, 1 << 20).unwrap();
    s.record(&end).unwrap();
    let t = dev.stream().unwrap();
    t.wait_event(&end).unwrap();
    t.synchronize().unwrap();
    assert!(end.is_complete().unwrap());
    let ms = start.elapsed_ms(&end).unwrap();
    assert!(
        ms > 0.0 && ms < 10.0,
        "a 1 MiB fill takes some microseconds: {ms} ms"
    );
}

#[test]
fn model_execution_runs_recorded_tasks_each_time() {
    let rt = runtime("Ascend950PR_9599");
    let dev = Device::open(&rt, 0).unwrap();
    let word = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
    word.fill_sync(0).unwrap();
    let model = dev.model().unwrap();
    let s = dev.stream_with(StreamConfig::persistent()).unwrap();
    model.bind(&s).unwrap();
    s.value_write(word.ptr(), 42).unwrap();
    model.end_task(&s).unwrap();
    model.build_end().unwrap();
    assert_eq!(word.read_u64(0).unwrap(), 0, "recorded, not run");
    model.execute().unwrap();
    assert_eq!(word.read_u64(0).unwrap(), 42);
    word.fill_sync(0).unwrap();
    model.execute().unwrap();
    assert_eq!(word.read_u64(0).unwrap(), 42, "runs again");
}

fn program(rt: &Arc<Runtime>) -> String {
    let dev = Device::open(rt, 0).unwrap();
    let word = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
    word.fill_sync(0).unwrap();
    let buf = dev.malloc(4096, MallocPolicy::NormalOnly).unwrap();
    let (a, b) = (dev.stream().unwrap(), dev.stream().unwrap());
    for i in 1..=20u64 {
        a.value_wait(word.ptr(), i, WaitMode::Geq).unwrap();
        a.fill_async(buf.ptr(), i as u8, 4096).unwrap();
        b.copy_h2d_async(buf.ptr(), &[i as u8; 128]).unwrap();
        b.value_write(word.ptr(), i).unwrap();
    }
    a.synchronize().unwrap();
    b.synchronize().unwrap();
    rt.report_json().unwrap()
}

#[test]
fn the_same_program_gives_the_same_timeline() {
    let one = program(&runtime("Ascend910B1"));
    let two = program(&runtime("Ascend910B1"));
    assert_eq!(one, two);
    assert!(one.contains("\"value_waits\""), "{one}");
}

#[test]
fn the_last_reset_releases_the_devices_objects_and_memory() {
    let rt = runtime("Ascend910B1");
    rt.set_device(0).unwrap();
    let mut buf = Addr::NULL;
    rt.malloc(Some(&mut buf), 1 << 20, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(buf, 1 << 20, 1, 1 << 20).unwrap();
    let (mut s, mut e, mut m) = (RawStream::NULL, RawEvent::default(), RawModel::default());
    rt.create_stream(Some(&mut s)).unwrap();
    rt.create_event(Some(&mut e)).unwrap();
    rt.mdl_ri_build_begin(Some(&mut m), 0).unwrap();
    rt.value_write(buf, 5, 0, s).unwrap();
    rt.reset_device(0).unwrap();

    rt.set_device(0).unwrap();
    assert_eq!(
        rt.value_write(buf, 1, 0, RawStream::NULL)
            .unwrap_err()
            .code(),
        107000,
        "memory is gone"
    );
    assert_eq!(rt.free(buf).unwrap_err().code(), 107000);
    assert_eq!(rt.destroy_stream(s).unwrap_err().code(), 107017);
    assert_eq!(rt.destroy_event(e).unwrap_err().code(), 107017);
    assert_eq!(rt.mdl_ri_destroy(m).unwrap_err().code(), 107017);
    // The device is usable again.
    let mut again = Addr::NULL;
    rt.malloc(Some(&mut again), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.value_write(again, 1, 0, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
}

#[test]
fn a_forced_reset_abandons_the_default_streams_tasks_for_good() {
    let rt = runtime_with(
        "Ascend910B1",
        SimConfig {
            on_stall: OnStall::Error,
            watchdog_grace: Duration::from_secs(2),
            ..SimConfig::default()
        },
    );
    rt.set_device(0).unwrap();
    let mut word = Addr::NULL;
    rt.malloc(Some(&mut word), 8, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(word, 8, 0, 8).unwrap();
    rt.value_wait(word, 1, wait_flag::EQ, RawStream::NULL)
        .unwrap();
    rt.reset_device_force(0).unwrap();
    rt.set_device(0).unwrap();
    // The old default stream's wait must not haunt the new session.
    rt.synchronize_device().unwrap();
}

#[test]
fn memory_outlives_the_default_context_while_an_explicit_context_remains() {
    let rt = runtime("Ascend910B1");
    rt.set_device(0).unwrap();
    let mut ctx = RawContext::default();
    rt.create_context(Some(&mut ctx), 0).unwrap();
    let mut buf = Addr::NULL;
    rt.malloc(Some(&mut buf), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.reset_device(0).unwrap();
    rt.set_current_context(ctx).unwrap();
    rt.value_write(buf, 1, 0, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    rt.destroy_context(ctx).unwrap();
}

#[test]
fn with_on_stall_wait_the_watchdog_speaks_and_the_host_keeps_waiting() {
    let cfg = SimConfig {
        on_stall: OnStall::Wait,
        watchdog_grace: Duration::from_millis(50),
        ..SimConfig::default()
    };
    let rt = runtime_with("Ascend910B1", cfg);
    let dev = Device::open(&rt, 0).unwrap();
    let flag = Arc::new(dev.malloc(8, MallocPolicy::NormalOnly).unwrap());
    flag.fill_sync(0).unwrap();
    let s = dev.stream().unwrap();
    s.value_wait(flag.ptr(), 1, WaitMode::Eq).unwrap();
    let releaser = {
        let (dev, flag) = (dev.clone(), flag.clone());
        std::thread::spawn(move || {
            // Well past the grace period: the watchdog has spoken (on stderr, as this test
            // installs no logger) and the waiter is still waiting.
            std::thread::sleep(Duration::from_millis(400));
            let w = dev.stream().unwrap();
            w.value_write(flag.ptr(), 1).unwrap();
            w.synchronize().unwrap();
        })
    };
    s.synchronize().unwrap();
    releaser.join().unwrap();
}

#[test]
fn a_stalled_destroy_of_a_blocked_stream_is_explained_and_leaves_the_stream_usable() {
    let (rt, word) = stalls_fail_with_a_zeroed_word();
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    rt.value_wait(word, 5, wait_flag::EQ, s).unwrap();
    let err = rt.destroy_stream(s).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("host thread waits in a destroy of stream"),
        "{text}"
    );
    assert!(text.contains(&format!("{:#x}", word.0)), "{text}");
    // The destroy did not happen: the stream is still there, and once released it goes.
    rt.value_write(word, 5, 0, RawStream::NULL).unwrap();
    rt.synchronize_stream(s).unwrap();
    rt.destroy_stream(s).unwrap();
    assert_eq!(rt.synchronize_stream(s).unwrap_err().code(), 107017);
}
