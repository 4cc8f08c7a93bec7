//! The families the safe level now covers beyond memory, streams and events: notifies, events
//! with flags, report threads and callbacks, capture, labels, binaries and kernel arguments,
//! and registered host memory. Each handle releases itself, and a task that names memory keeps
//! it alive as a copy does.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ascend_rt::safe::*;
use ascend_rt::{Kernel, KernelOps, Runtime};

fn device() -> Device {
    let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    Device::open(&rt, 0).unwrap()
}

fn word(dev: &Device, value: u64) -> DeviceBuffer {
    let b = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
    b.copy_from_host_sync(&value.to_le_bytes()).unwrap();
    b
}

#[test]
fn a_notify_holds_a_stream_until_another_sets_it_and_a_timeout_ends_the_wait() {
    let dev = device();
    let out = word(&dev, 0);
    let n = dev.notify().unwrap();
    let (a, b) = (dev.stream().unwrap(), dev.stream().unwrap());
    a.wait_notify(&n, None).unwrap();
    a.value_write(out.ptr(), 4).unwrap();
    assert!(!a.is_complete().unwrap(), "the wait holds the stream");
    b.record_notify(&n).unwrap();
    a.synchronize().unwrap();
    assert_eq!(out.read_u64(0).unwrap(), 4);
    // Nothing sets it again: a timed wait ends with a fault at the synchronize.
    let c = dev.stream().unwrap();
    c.wait_notify(&n, Some(Duration::from_millis(1))).unwrap();
    assert!(c.synchronize().is_err());
}

#[test]
fn an_event_with_the_time_line_flag_gives_when_its_record_ran_and_bad_flags_get_canns_code() {
    let dev = device();
    let s = dev.stream().unwrap();
    let e = dev
        .event_with_flags(EventFlags::SYNC | EventFlags::TIME_LINE)
        .unwrap();
    s.record(&e).unwrap();
    s.synchronize().unwrap();
    assert!(e.timestamp_us().is_ok());
    let bad = dev
        .event_with_flags(EventFlags::EXTERNAL | EventFlags::SYNC)
        .unwrap_err();
    assert_eq!(bad.code(), 107000, "{bad}");
}

#[test]
fn callbacks_run_on_the_report_thread_in_stream_order_and_its_drop_runs_what_is_queued() {
    let dev = device();
    let s = dev.stream().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    {
        let reports = dev.report_thread().unwrap();
        reports.subscribe(&s).unwrap();
        let here = std::thread::current().id();
        for i in 0..5 {
            let seen = seen.clone();
            s.callback(i % 2 == 0, move || {
                assert_ne!(std::thread::current().id(), here);
                seen.lock().unwrap().push(i);
            })
            .unwrap();
        }
        // Dropped with callbacks queued: they run first.
    }
    assert_eq!(*seen.lock().unwrap(), vec![0, 1, 2, 3, 4]);
    let other = dev.stream().unwrap();
    let e = other.callback(true, || {}).unwrap_err();
    assert_eq!(e.code(), 107015, "a stream no report thread has: {e}");
}

#[test]
fn a_captured_task_runs_each_time_its_model_runs_and_a_dropped_capture_discards_its_tasks() {
    let dev = device();
    let counter = word(&dev, 0);
    let s = dev.stream().unwrap();
    let capture = s.begin_capture(CaptureMode::Relaxed).unwrap();
    let at = counter.ptr().addr().0;
    s.launch(
        Kernel::new("count", move |c: &mut dyn KernelOps| {
            let v = c.load(at, 8);
            c.store(at, 8, v + 1);
            c.dcci(at, false, 2);
        }),
        1,
        &[counter.ptr()],
    )
    .unwrap();
    let model = capture.end().unwrap();
    assert_eq!(counter.read_u64(0).unwrap(), 0, "recorded, not run");
    for _ in 0..3 {
        model.execute().unwrap();
    }
    assert_eq!(counter.read_u64(0).unwrap(), 3);

    let dropped = s.begin_capture(CaptureMode::Relaxed).unwrap();
    s.fill_async(counter.ptr(), 0, 8).unwrap();
    drop(dropped);
    s.synchronize().unwrap();
    assert_eq!(
        counter.read_u64(0).unwrap(),
        3,
        "the dropped capture's fill never runs"
    );
    s.fill_async(counter.ptr(), 0, 8).unwrap();
    s.synchronize().unwrap();
    assert_eq!(
        counter.read_u64(0).unwrap(),
        0,
        "the stream runs its tasks again"
    );

    // Memory a captured task names is the model's: dropping its buffer keeps it.
    let scratch = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
    let capture = s.begin_capture(CaptureMode::Relaxed).unwrap();
    s.fill_async(scratch.ptr(), 1, 64).unwrap();
    let model = capture.end().unwrap();
    drop(scratch);
    model.execute().unwrap();
    assert!(dev.hazards().is_empty(), "{:?}", dev.hazards());
}

#[test]
fn a_switch_in_a_model_jumps_to_the_label_its_index_names() {
    let dev = device();
    let (index, out) = (word(&dev, 1), word(&dev, 0));
    let labels = [dev.label().unwrap(), dev.label().unwrap()];
    let list = dev.label_list(&[&labels[0], &labels[1]]).unwrap();
    let ms = dev
        .stream_with(StreamConfig {
            persistent: true,
            ..StreamConfig::default()
        })
        .unwrap();
    let model = dev.model().unwrap();
    model.bind(&ms).unwrap();
    ms.switch_label(index.ptr(), 2, &list).unwrap();
    ms.fill_async(out.ptr(), 1, 8).unwrap();
    ms.set_label(&labels[0]).unwrap();
    ms.fill_async(out.ptr(), 2, 8).unwrap();
    ms.set_label(&labels[1]).unwrap();
    model.end_task(&ms).unwrap();
    model.build_end().unwrap();
    model.execute().unwrap();
    assert_eq!(out.read_u64(0).unwrap(), 0, "index 1: both fills skipped");
    index.copy_from_host_sync(&0u64.to_le_bytes()).unwrap();
    model.execute().unwrap();
    assert_eq!(out.read_u64(0).unwrap(), u64::from_le_bytes([2; 8]));
    let plain = dev.stream().unwrap();
    assert_eq!(
        plain
            .switch_label(index.ptr(), 2, &list)
            .unwrap_err()
            .code(),
        107005,
        "a stream of no model"
    );
}

#[test]
fn a_function_of_a_binary_runs_its_registered_kernel_with_the_arguments_pushed() {
    let dev = device();
    let path = std::env::temp_dir().join(format!("safe-binary-{}.o", std::process::id()));
    std::fs::write(&path, b"not an Ascend C binary").unwrap();
    dev.runtime().register_sim_function(
        "store_arg",
        Arc::new(|args: &[u8]| {
            let dst = u64::from_le_bytes(args[..8].try_into().unwrap());
            let v = u64::from_le_bytes(args[8..16].try_into().unwrap());
            Kernel::new("store_arg", move |c: &mut dyn KernelOps| {
                c.store(dst, 8, v);
                c.dcci(dst, false, 2);
            })
        }),
    );
    let bin = dev.load_binary(path.to_str().unwrap()).unwrap();
    let f = bin.function("store_arg").unwrap();
    let out = word(&dev, 0);
    let s = dev.stream().unwrap();
    let mut args = f.args().unwrap();
    args.push_ptr(out.ptr()).unwrap();
    args.push_bytes(&77u64.to_le_bytes()).unwrap();
    s.launch_function(&f, 1, &mut args).unwrap();
    s.synchronize().unwrap();
    assert_eq!(out.read_u64(0).unwrap(), 77);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn registered_host_memory_is_written_by_the_device_and_waits_for_its_tasks_before_unregistering() {
    let dev = device();
    let mem = dev.register_host(64).unwrap();
    let s = dev.stream().unwrap();
    s.fill_async(mem.ptr(), 9, 64).unwrap();
    s.synchronize().unwrap();
    assert_eq!(
        mem.host().to_vec(),
        vec![9; 64],
        "the device wrote the host's bytes"
    );

    let flag = word(&dev, 0);
    s.value_wait(flag.ptr(), 1, WaitMode::Eq).unwrap();
    s.fill_async(mem.ptr(), 3, 64).unwrap();
    let released = AtomicU32::new(0);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(20));
            released.store(1, Ordering::SeqCst);
            let r = dev.stream().unwrap();
            r.value_write(flag.ptr(), 1).unwrap();
            r.synchronize().unwrap();
        });
        drop(mem); // waits for the queued fill, released by the other thread
        assert_eq!(
            released.load(Ordering::SeqCst),
            1,
            "the drop waited for the stream"
        );
        assert!(s.is_complete().unwrap());
    });
}
