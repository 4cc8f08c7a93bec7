//! The safe level ties device memory to stream order: a buffer named by a queued task is not
//! freed under it; dropping the buffer waits for that stream's work.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ascend_rt::safe::*;
use ascend_rt::Runtime;

#[test]
fn dropping_a_buffer_waits_for_the_queued_tasks_that_name_it() {
    let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    let dev = Device::open(&rt, 0).unwrap();
    let flag = Arc::new(dev.malloc(8, MallocPolicy::NormalOnly).unwrap());
    flag.fill_sync(0).unwrap();
    let src = dev.malloc(4096, MallocPolicy::NormalOnly).unwrap();
    src.fill_sync(0x5A).unwrap();
    let dst = dev.malloc(4096, MallocPolicy::NormalOnly).unwrap();
    let s = dev.stream().unwrap();
    // The copy waits behind a value wait that only the releaser below satisfies.
    s.value_wait(flag.ptr(), 1, WaitMode::Eq).unwrap();
    s.copy_d2d_async(dst.ptr(), src.ptr(), 4096).unwrap();
    let releaser = {
        let (rt, dev, flag) = (rt.clone(), dev.clone(), flag.clone());
        std::thread::spawn(move || {
            // Release only once the drop below is waiting on the stream.
            let start = Instant::now();
            let drop_waits = || {
                rt.sim_view()
                    .and_then(|v| v.diagnose())
                    .is_some_and(|d| !d.host_waits.is_empty())
            };
            while !drop_waits() {
                assert!(
                    start.elapsed() < Duration::from_secs(20),
                    "the drop never waited"
                );
                std::thread::yield_now();
            }
            let w = dev.stream().unwrap();
            w.value_write(flag.ptr(), 1).unwrap();
            w.synchronize().unwrap();
        })
    };
    drop(src); // waits for the copy, which reads it
    releaser.join().unwrap();
    // The copy read live memory: no fault, and the bytes arrived.
    s.synchronize().unwrap();
    let mut out = vec![0u8; 4096];
    dst.copy_to_host_sync(&mut out).unwrap();
    assert!(out.iter().all(|&b| b == 0x5A));
}

#[test]
fn a_buffer_used_by_a_stream_destroyed_by_force_is_freed_at_once() {
    let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    let dev = Device::open(&rt, 0).unwrap();
    let flag = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
    flag.fill_sync(0).unwrap();
    let buf = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
    let s = dev.stream().unwrap();
    s.value_wait(flag.ptr(), 1, WaitMode::Eq).unwrap();
    s.fill_async(buf.ptr(), 1, 64).unwrap();
    // A stream destroyed by force abandons its tasks, so nothing waits for it.
    s.destroy_force().unwrap();
    drop(buf);
}

#[test]
fn a_dropped_stream_runs_its_queued_work_first() {
    let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    let dev = Device::open(&rt, 0).unwrap();
    let flag = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
    let out = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
    flag.fill_sync(0).unwrap();
    out.fill_sync(0).unwrap();
    let s = dev.stream().unwrap();
    // The stream waits for a flag another thread raises only after the drop began, then
    // writes 9: a drop that did not wait would throw both away.
    s.value_wait(flag.ptr(), 1, WaitMode::Eq).unwrap();
    s.value_write(out.ptr(), 9).unwrap();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(100));
            flag.copy_from_host_sync(&1u64.to_le_bytes()).unwrap();
        });
        drop(s);
    });
    assert_eq!(
        out.read_u64(0).unwrap(),
        9,
        "the queued write ran before the stream went"
    );
}

#[test]
fn a_buffer_a_models_task_names_outlives_its_drop_while_the_model_may_run() {
    let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    let dev = Device::open(&rt, 0).unwrap();
    let bound = dev.stream_with(StreamConfig::persistent()).unwrap();
    let model = dev.model().unwrap();
    model.bind(&bound).unwrap();
    let buf = dev.malloc(4096, MallocPolicy::NormalOnly).unwrap();
    let addr = buf.ptr().addr();
    bound.fill_async(buf.ptr(), 9, 4096).unwrap();
    model.end_task(&bound).unwrap();
    model.build_end().unwrap();
    drop(buf);
    // The memory was not given back: a new buffer does not get it, so the model's fill
    // cannot land in it.
    let other = dev.malloc(4096, MallocPolicy::NormalOnly).unwrap();
    assert_ne!(other.ptr().addr(), addr);
    other.fill_sync(0).unwrap();
    model.execute().unwrap();
    assert_eq!(other.read_u64(0).unwrap(), 0);
}

#[test]
fn a_buffer_moved_into_a_host_function_is_freed_there_without_waiting_for_that_stream() {
    let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    let dev = Device::open(&rt, 0).unwrap();
    let s = dev.stream().unwrap();
    let buf = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
    s.fill_async(buf.ptr(), 1, 64).unwrap();
    let (done, dropped) = std::sync::mpsc::channel();
    let mut buf = Some(buf);
    s.host_func(move || {
        drop(buf.take());
        done.send(()).unwrap();
    })
    .unwrap();
    let s = Arc::new(s);
    let waiter = {
        let s = s.clone();
        std::thread::spawn(move || s.synchronize())
    };
    dropped
        .recv_timeout(Duration::from_secs(20))
        .expect("the drop inside the host function returned");
    waiter.join().unwrap().unwrap();
}

#[test]
fn reads_and_writes_past_a_buffers_end_are_refused() {
    let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    let dev = Device::open(&rt, 0).unwrap();
    let buf = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
    buf.fill_sync(0).unwrap();
    assert_eq!(buf.read_u64(56).unwrap(), 0);
    assert_eq!(buf.read_u64(60).unwrap_err().code(), 100000);
    assert_eq!(buf.read_u64(usize::MAX).unwrap_err().code(), 100000);
    let host = dev.malloc_host(16).unwrap();
    assert_eq!(host.len(), 16);
    host.write_at(8, &[1; 8]).unwrap();
    assert_eq!(host.write_at(10, &[1; 16]).unwrap_err().code(), 100000);
    assert_eq!(host.write_at(usize::MAX, &[1]).unwrap_err().code(), 100000);
}

#[test]
fn a_buffer_a_queued_kernel_writes_waits_for_it_before_it_is_freed() {
    let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    let dev = Device::open(&rt, 0).unwrap();
    let buf = dev.malloc(4096, MallocPolicy::NormalOnly).unwrap();
    let at = buf.ptr().addr().0;
    let s = dev.stream().unwrap();
    let k = ascend_rt::Kernel::new("fill", move |c: &mut dyn ascend_rt::KernelOps| {
        c.spin(1_000_000); // still running when the buffer is dropped
        for i in 0..64 {
            c.store(at + 8 * i, 8, i);
        }
        c.dcci(at, true, ascend_rt::dcci_kind::OUT);
    });
    s.launch(k, 4, &[buf.ptr()]).unwrap();
    // Freed while the kernel is queued: the drop waits for the stream, so no block writes
    // freed memory.
    drop(buf);
    s.synchronize().unwrap();
    let r = rt.sim_view().unwrap().report();
    assert!(r.faults.is_empty(), "{:?}", r.faults);
}
