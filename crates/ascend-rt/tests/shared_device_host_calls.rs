//! Host functions and callbacks on a device shared through the device service: the function is
//! the process's code and runs in the process, on the runtime's host-function thread
//! (`aclrtLaunchHostFunc`) or on the thread that processes reports (`aclrtLaunchCallback` after
//! `aclrtSubscribeReport`), when its stream reaches it, holding the stream while it runs; the
//! functions of calls dropped without running are released.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use ascend_rt::raw_types::*;
use ascend_rt::{HostFn, MemDst, MemSrc, Runtime};

fn on_new_service(name: &str) -> Arc<Runtime> {
    Arc::new(common::on_new_service(name))
}

fn stream(rt: &Runtime) -> RawStream {
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    s
}

fn word(rt: &Runtime) -> Addr {
    let mut a = Addr::NULL;
    rt.malloc(Some(&mut a), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(a, 64, 0, 64).unwrap();
    a
}

fn read_u64(rt: &Runtime, a: Addr) -> u64 {
    let mut b = [0u8; 8];
    rt.memcpy(
        MemDst::Host(&mut b),
        8,
        MemSrc::Addr(a),
        8,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    u64::from_le_bytes(b)
}

#[test]
fn a_host_function_runs_in_the_process_between_the_tasks_around_it() {
    let rt = on_new_service("host-func");
    let s = stream(&rt);
    let w = word(&rt);
    rt.value_write(w, 1, 0, s).unwrap();
    let seen = Arc::new(Mutex::new(None));
    let (seen2, rt2, main) = (seen.clone(), rt.clone(), std::thread::current().id());
    let f: HostFn = Box::new(move || {
        // What the stream did before it is done; what it does after is not yet.
        rt2.set_device(0).unwrap();
        let value = read_u64(&rt2, w);
        *seen2.lock().unwrap() = Some((std::thread::current().id() != main, value));
    });
    rt.launch_host_func(s, Some(f)).unwrap();
    rt.value_write(w, 2, 0, s).unwrap();
    rt.synchronize_stream(s).unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        Some((true, 1)),
        "ran on another thread, in order"
    );
    assert_eq!(read_u64(&rt, w), 2);
}

#[test]
fn a_host_function_behind_a_wait_runs_once_another_stream_releases_it() {
    let rt = on_new_service("behind-wait");
    let (s, writer) = (stream(&rt), stream(&rt));
    let flag = word(&rt);
    rt.value_wait(flag, 1, 0, s).unwrap();
    let n = Arc::new(AtomicU32::new(0));
    let n2 = n.clone();
    rt.launch_host_func(
        s,
        Some(Box::new(move || {
            n2.fetch_add(1, Ordering::SeqCst);
        })),
    )
    .unwrap();
    rt.synchronize_stream(writer).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert_eq!(
        n.load(Ordering::SeqCst),
        0,
        "not before the wait is released"
    );
    rt.value_write(flag, 1, 0, writer).unwrap();
    rt.synchronize_stream(s).unwrap();
    assert_eq!(n.load(Ordering::SeqCst), 1);
}

#[test]
fn callbacks_run_on_the_thread_that_processes_the_stream_s_reports() {
    let rt = on_new_service("callbacks");
    let s = stream(&rt);
    let ran_on = Arc::new(Mutex::new(Vec::new()));
    for block in [callback_block::BLOCK, callback_block::NO_BLOCK] {
        let r = ran_on.clone();
        let f: HostFn = Box::new(move || r.lock().unwrap().push(std::thread::current().id()));
        let e = rt.launch_callback(Some(f), block, s).unwrap_err();
        assert_eq!(e.code(), 107015, "not subscribed yet: {e}");
    }
    let reporter = {
        let rt = rt.clone();
        std::thread::spawn(move || {
            rt.set_device(0).unwrap();
            rt.subscribe_report(5, s).unwrap();
            let me = std::thread::current().id();
            // Two callbacks: processed as they come.
            let mut processed = 0;
            while processed < 2 {
                if rt.process_report(5, 1000).is_ok() {
                    processed += 1;
                }
            }
            rt.unsubscribe_report(5, s).unwrap();
            me
        })
    };
    // Launched once the thread has subscribed.
    loop {
        let r = ran_on.clone();
        let f: HostFn = Box::new(move || r.lock().unwrap().push(std::thread::current().id()));
        match rt.launch_callback(Some(f), callback_block::BLOCK, s) {
            Ok(()) => break,
            Err(e) if e.code() == 107015 => std::thread::yield_now(),
            Err(e) => panic!("{e}"),
        }
    }
    let r = ran_on.clone();
    let f: HostFn = Box::new(move || r.lock().unwrap().push(std::thread::current().id()));
    rt.launch_callback(Some(f), callback_block::NO_BLOCK, s)
        .unwrap();
    let reporter_id = reporter.join().unwrap();
    rt.synchronize_stream(s).unwrap();
    assert_eq!(*ran_on.lock().unwrap(), vec![reporter_id, reporter_id]);
}

#[test]
fn the_functions_of_host_calls_an_abort_drops_are_released() {
    let rt = on_new_service("dropped");
    let (s, other) = (stream(&rt), stream(&rt));
    let flag = word(&rt);
    let held = Arc::new(());
    rt.value_wait(flag, 1, 0, s).unwrap();
    let h = held.clone();
    rt.launch_host_func(
        s,
        Some(Box::new(move || {
            let _ = &h;
        })),
    )
    .unwrap();
    assert_eq!(Arc::strong_count(&held), 2);
    rt.stream_abort(s).unwrap();
    assert_eq!(
        Arc::strong_count(&held),
        1,
        "the dropped call's function is released by the abort, as in one process"
    );
    // A stream destroyed with a call queued releases it too.
    rt.value_wait(flag, 1, 0, other).unwrap();
    let h = held.clone();
    rt.launch_host_func(
        other,
        Some(Box::new(move || {
            let _ = &h;
        })),
    )
    .unwrap();
    rt.destroy_stream_force(other).unwrap();
    assert_eq!(Arc::strong_count(&held), 1, "released by the destroy");
}

#[test]
fn a_host_function_waiting_for_its_own_stream_is_explained_not_left_hanging() {
    let config = ascend_rt::sim::SimConfig {
        on_stall: ascend_rt::sim::OnStall::Error,
        watchdog_grace: std::time::Duration::from_millis(500),
        ..Default::default()
    };
    let rt = Arc::new(common::on_new_service_with("own-stream", config));
    let s = stream(&rt);
    let inner = Arc::new(Mutex::new(None));
    let (rt2, seen) = (rt.clone(), inner.clone());
    rt.launch_host_func(
        s,
        Some(Box::new(move || {
            rt2.set_device(0).unwrap();
            let e = rt2.synchronize_stream(s).err().map(|e| e.to_string());
            *seen.lock().unwrap() = Some(e);
        })),
    )
    .unwrap();
    // The function's own calls are its thread's, whichever connection carries them: the
    // simulator knows it waits for the call it is running.
    let (tx, rx) = std::sync::mpsc::channel();
    let rt3 = rt.clone();
    std::thread::spawn(move || {
        rt3.set_device(0).unwrap();
        let _ = tx.send(rt3.synchronize_stream(s).map_err(|e| e.code()));
    });
    let outer = rx.recv_timeout(std::time::Duration::from_secs(30));
    assert_eq!(
        outer,
        Ok(Ok(())),
        "the stream went on once the function returned"
    );
    let text = inner.lock().unwrap().clone().flatten();
    assert!(
        text.as_deref()
            .is_some_and(|t| t.contains("must not wait for work that needs its own stream")),
        "{text:?}"
    );
}

#[test]
fn a_host_function_no_thread_drives_towards_is_reported_on_the_program_s_stderr() {
    // The program runs in a child process of this test binary, whose standard error the
    // parent reads.
    const CHILD: &str = "ASCEND_RT_TEST_UNDRIVEN_SERVICE_CHILD";
    const NAME: &str =
        "a_host_function_no_thread_drives_towards_is_reported_on_the_program_s_stderr";
    if std::env::var_os(CHILD).is_some() {
        let config = ascend_rt::sim::SimConfig {
            watchdog_grace: std::time::Duration::from_millis(300),
            ..Default::default()
        };
        let rt = common::on_new_service_with("undriven", config);
        let s = stream(&rt);
        let n = Arc::new(AtomicU32::new(0));
        let n2 = n.clone();
        rt.launch_host_func(
            s,
            Some(Box::new(move || {
                n2.fetch_add(1, Ordering::SeqCst);
            })),
        )
        .unwrap();
        // The program waits by other means, without a call: nothing moves the device meanwhile.
        std::thread::sleep(std::time::Duration::from_millis(2000));
        assert_eq!(n.load(Ordering::SeqCst), 0);
        rt.synchronize_stream(s).unwrap();
        assert_eq!(n.load(Ordering::SeqCst), 1);
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", NAME, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.matches("no host call has moved the simulated clock since")
            .count(),
        1,
        "said once: {err}"
    );
}
