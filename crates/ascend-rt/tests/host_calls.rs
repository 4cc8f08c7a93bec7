//! Host functions, callbacks and exception information: the rows of each call in the vendor's
//! order, where and when the functions run, and the exception callback's report of a failed
//! task.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use ascend_rt::raw_types::{memcpy_kind, RawStream};
use ascend_rt::{
    raw_types::callback_block, ExceptionInfo, HostFn, Kernel, KernelOps, MemDst, MemSrc, MsgCode,
};
use common::*;

fn counter() -> (Arc<AtomicU32>, impl Fn() -> HostFn) {
    let n = Arc::new(AtomicU32::new(0));
    let m = n.clone();
    (n, move || {
        let m = m.clone();
        Box::new(move || {
            m.fetch_add(1, Ordering::SeqCst);
        }) as HostFn
    })
}

#[test]
fn a_host_function_runs_on_the_runtime_thread_between_the_tasks_around_it() {
    let r = rt0(A2);
    let s = stream(&r);
    let buf = malloc(&r, 8);
    ok(r.memset(buf, 8, 0, 8));
    ok(r.value_write(buf, 1, 0, s));
    let seen = Arc::new(Mutex::new(None));
    let (seen2, main) = (seen.clone(), std::thread::current().id());
    let f: HostFn = Box::new(move || {
        *seen2.lock().unwrap() = Some(std::thread::current().id() != main);
    });
    ok(r.launch_host_func(s, Some(f)));
    ok(r.value_write(buf, 2, 0, s));
    ok(r.synchronize_stream(s));
    assert_eq!(*seen.lock().unwrap(), Some(true), "ran, on another thread");
    let mut host = [0u8; 8];
    ok(r.memcpy(
        MemDst::Host(&mut host),
        8,
        MemSrc::Addr(buf),
        8,
        memcpy_kind::DEVICE_TO_HOST,
    ));
    assert_eq!(u64::from_le_bytes(host), 2);
}

#[test]
fn launch_host_func_checks_handle_function_subscription_then_context() {
    let r = rt0(A2);
    let s = stream(&r);
    let (_, f) = counter();
    assert_err(
        r.launch_host_func(GARBAGE, Some(f())),
        107017,
        Some(MsgCode::EE1017),
    );
    assert_err(r.launch_host_func(s, None), 107000, Some(MsgCode::EE1004));
    ok(r.subscribe_report(77, s));
    assert_err(
        r.launch_host_func(s, Some(f())),
        107011,
        Some(MsgCode::EE1016),
    );
    assert_err(
        r.launch_host_func(other_ctx_stream(&r), Some(f())),
        107003,
        Some(MsgCode::EE1010),
    );
    let r2 = rt(A2);
    assert_err(
        r2.launch_host_func(RawStream(0), Some(f())),
        107002,
        Some(MsgCode::EE1018),
    );
}

#[test]
fn callbacks_run_inside_process_report_on_the_subscribed_thread_only() {
    let r = Arc::new(rt0(A2));
    let s = stream(&r);
    let (n, f) = counter();
    assert_err(
        r.launch_callback(Some(f()), 2, s),
        100000,
        Some(MsgCode::EH0007),
    );
    assert_err(
        r.launch_callback(Some(f()), 1, s),
        107015,
        Some(MsgCode::EE1018),
    );
    assert_err(r.process_report(5, 100), 107012, None);
    ok(r.subscribe_report(5, s));
    assert_err(r.subscribe_report(5, s), 107011, Some(MsgCode::EE9999));
    assert_err(r.launch_callback(None, 1, s), 107000, Some(MsgCode::EE1004));
    assert_err(
        r.launch_host_func(s, Some(f())),
        107011,
        Some(MsgCode::EE1016),
    );
    assert_err(r.process_report(5, 0), 100000, Some(MsgCode::EH0009));
    assert_err(r.process_report(5, -2), 100000, Some(MsgCode::EH0009));
    assert_code(r.process_report(5, 10), 507012);
    ok(r.launch_callback(Some(f()), callback_block::BLOCK, s));
    ok(r.launch_callback(Some(f()), callback_block::NO_BLOCK, s));
    assert_eq!(
        n.load(Ordering::SeqCst),
        0,
        "nothing runs before the report thread asks"
    );
    // A synchronize on another thread waits for the blocking callback, which only thread 5
    // runs.
    let r2 = r.clone();
    let sync = std::thread::spawn(move || {
        r2.set_device(0)?;
        r2.synchronize_stream(s)
    });
    ok(r.process_report(5, -1));
    while n.load(Ordering::SeqCst) < 2 {
        ok(r.process_report(5, 100)
            .or_else(|e| if e.code() == 507012 { Ok(()) } else { Err(e) }));
    }
    ok(sync.join().unwrap());
    assert_err(r.unsubscribe_report(6, s), 107012, Some(MsgCode::EE9999));
    ok(r.unsubscribe_report(5, s));
    assert_err(r.unsubscribe_report(5, s), 107011, Some(MsgCode::EE9999));
    assert_err(r.process_report(5, 10), 107012, None);
}

#[test]
fn a_stream_given_host_functions_refuses_report_subscriptions() {
    let r = rt0(A2);
    let s = stream(&r);
    let (n, f) = counter();
    ok(r.launch_host_func(s, Some(f())));
    assert_err(r.subscribe_report(3, s), 107011, Some(MsgCode::EE1016));
    assert_err(
        r.launch_callback(Some(f()), 1, s),
        107011,
        Some(MsgCode::EE1016),
    );
    assert_err(r.unsubscribe_report(3, s), 107011, Some(MsgCode::EE1016));
    ok(r.synchronize_stream(s));
    assert_eq!(n.load(Ordering::SeqCst), 1);
}

#[test]
fn subscribed_host_functions_run_inside_process_host_func() {
    let r = rt0(A2);
    let s = stream(&r);
    let (n, f) = counter();
    assert_code(r.subscribe_host_func(9, RawStream(0)), 107000);
    ok(r.subscribe_host_func(9, s));
    assert_code(r.subscribe_host_func(9, s), 107011);
    ok(r.launch_host_func(s, Some(f())));
    assert_code(r.process_host_func(9, 0), 107000);
    assert_code(r.process_host_func(8, 10), 107012);
    ok(r.process_host_func(9, -1));
    assert_eq!(n.load(Ordering::SeqCst), 1);
    ok(r.synchronize_stream(s));
    assert_code(r.unsubscribe_host_func(8, s), 107011);
    ok(r.unsubscribe_host_func(9, s));
}

#[test]
fn many_threads_launch_host_functions_and_every_one_runs_once() {
    let r = Arc::new(rt0(A2));
    let (n, f) = counter();
    let f = Arc::new(f);
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (r, f) = (r.clone(), f.clone());
            std::thread::spawn(move || {
                r.set_device(0).unwrap();
                let s = stream(&r);
                for _ in 0..25 {
                    r.launch_host_func(s, Some(f())).unwrap();
                }
                r.synchronize_stream(s).unwrap();
                r.destroy_stream(s).unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(n.load(Ordering::SeqCst), 200);
}

#[test]
fn the_exception_callback_names_the_failed_task_its_stream_and_device() {
    let r = rt0(A2);
    let s = stream(&r);
    let got = Arc::new(Mutex::new(Vec::<ExceptionInfo>::new()));
    let g = got.clone();
    ok(
        r.set_exception_info_callback(Some(Arc::new(move |i: &ExceptionInfo| {
            g.lock().unwrap().push(*i);
        }))),
    );
    let trap = Kernel::new("trap", |ctx: &mut dyn KernelOps| ctx.trap("on purpose"));
    ok(r.launch_kernel(trap, 1, s));
    let mut last = 0;
    ok(r.get_thread_last_task_id(Some(&mut last)));
    // A vector kernel's fault is a vector-core exception, in both places.
    assert_code(r.synchronize_stream(s), 507035);
    let got = got.lock().unwrap().clone();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].task_id, last, "the id aclrtGetThreadLastTaskId gave");
    assert_eq!(got[0].device_id, 0);
    assert_eq!(got[0].error_code, 507035);
    let mut sid = 0;
    ok(r.stream_get_id(s, Some(&mut sid)));
    assert_eq!(got[0].stream_id, sid as u32);
    ok(r.set_exception_info_callback(None));
}

#[test]
fn the_last_task_id_is_per_thread_and_all_ones_before_any() {
    let r = rt0(A2);
    let mut id = 0;
    assert_err(
        r.get_thread_last_task_id(None),
        100000,
        Some(MsgCode::EH0008),
    );
    let fresh = on_fresh_thread(|| {
        let mut id = 0;
        r.get_thread_last_task_id(Some(&mut id)).map(|_| id)
    });
    assert_eq!(fresh.unwrap(), u32::MAX);
    let s = stream(&r);
    let e = event(&r);
    ok(r.record_event(e, s));
    ok(r.get_thread_last_task_id(Some(&mut id)));
    assert_ne!(id, u32::MAX);
}

/// A runtime whose watchdog fails a stalled wait after half a second, with its explanation.
fn failing_stalls() -> ascend_rt::Runtime {
    let cfg = ascend_sim::SimConfig {
        on_stall: ascend_sim::OnStall::Error,
        watchdog_grace: std::time::Duration::from_millis(500),
        ..ascend_sim::SimConfig::default()
    };
    ascend_rt::Runtime::sim_with(A2, cfg).unwrap()
}

/// Runs `f` on a thread of its own; `None` if it has not returned within `secs` (a hang).
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(secs)).ok()
}

/// A host function that signals that it started and returns when `go` is sent.
fn held() -> (
    HostFn,
    std::sync::mpsc::Receiver<()>,
    std::sync::mpsc::Sender<()>,
) {
    let (started_tx, started) = std::sync::mpsc::channel();
    let (go, go_rx) = std::sync::mpsc::channel::<()>();
    let f: HostFn = Box::new(move || {
        started_tx.send(()).unwrap();
        let _ = go_rx.recv();
    });
    (f, started, go)
}

#[test]
fn destroying_a_stream_drops_its_queued_functions_where_their_drop_may_call_the_runtime() {
    let done = within(20, || {
        let r = Arc::new(rt0(A2));
        let (s, other) = (stream(&r), stream(&r));
        let (f, started, go) = held();
        ok(r.launch_host_func(s, Some(f)));
        // Queued behind it: a function whose drop destroys another stream.
        struct DestroysOnDrop(Arc<ascend_rt::Runtime>, RawStream);
        impl Drop for DestroysOnDrop {
            fn drop(&mut self) {
                ok(self.0.destroy_stream_force(self.1));
            }
        }
        let owned = DestroysOnDrop(r.clone(), other);
        ok(r.launch_host_func(
            s,
            Some(Box::new(move || {
                let _ = &owned;
            })),
        ));
        started.recv().unwrap();
        ok(r.destroy_stream_force(s));
        go.send(()).ok();
        // The runtime still takes host functions.
        let s2 = stream(&r);
        let (n, f) = counter();
        ok(r.launch_host_func(s2, Some(f())));
        ok(r.synchronize_stream(s2));
        n.load(Ordering::SeqCst)
    });
    assert_eq!(done, Some(1), "the destroy, or a later launch, hung");
}

#[test]
fn an_abort_releases_the_functions_it_discards() {
    let r = rt0(A2);
    let s = stream(&r);
    let (f, started, go) = held();
    ok(r.launch_host_func(s, Some(f)));
    let token = Arc::new(());
    for _ in 0..5 {
        let t = token.clone();
        ok(r.launch_host_func(
            s,
            Some(Box::new(move || {
                let _ = &t;
            })),
        ));
    }
    started.recv().unwrap();
    ok(r.stream_abort(s));
    assert_eq!(
        Arc::strong_count(&token),
        1,
        "the discarded functions were dropped"
    );
    go.send(()).unwrap();
    ok(r.synchronize_stream(s));
}

#[test]
fn stop_on_failure_releases_the_functions_it_discards() {
    let r = rt0(A2);
    let s = stream(&r);
    let a = malloc(&r, 64);
    ok(r.set_stream_failure_mode(
        s,
        ascend_rt::raw_types::stream_failure_mode::STOP_ON_FAILURE,
    ));
    // A prefetch past the end of its allocation faults; the functions behind it are discarded.
    ok(r.cmo_async(a, 1 << 30, ascend_rt::raw_types::cmo_type::PREFETCH, s));
    let token = Arc::new(());
    for _ in 0..5 {
        let t = token.clone();
        ok(r.launch_host_func(
            s,
            Some(Box::new(move || {
                let _ = &t;
            })),
        ));
    }
    assert_code(r.synchronize_stream(s), 507000);
    assert_eq!(
        Arc::strong_count(&token),
        1,
        "the discarded functions were dropped"
    );
}

#[test]
fn callbacks_for_any_report_thread_id_run_on_that_thread_not_the_runtimes() {
    // Zero and the top bit are ids like any other: none of them shares the runtime's own
    // host-function thread, and none shares another's.
    for id in [0u64, 1 << 63, (1 << 63) | 5] {
        let r = rt0(A2);
        let (s, busy) = (stream(&r), stream(&r));
        // The runtime's own host-function thread is running.
        let (n, f) = counter();
        ok(r.launch_host_func(busy, Some(f())));
        ok(r.synchronize_stream(busy));
        assert_eq!(n.load(Ordering::SeqCst), 1);
        ok(r.subscribe_report(id, s));
        let ran_on = Arc::new(Mutex::new(None));
        let seen = ran_on.clone();
        let f: HostFn = Box::new(move || {
            *seen.lock().unwrap() = Some(std::thread::current().id());
        });
        ok(r.launch_callback(Some(f), callback_block::NO_BLOCK, s));
        ok(r.synchronize_stream(s));
        ok(r.process_report(id, 1000));
        assert_eq!(
            *ran_on.lock().unwrap(),
            Some(std::thread::current().id()),
            "report thread {id:#x}"
        );
        ok(r.unsubscribe_report(id, s));
    }
}

#[test]
fn a_destroyed_streams_subscriptions_go_with_it() {
    let r = rt0(A2);
    let s = stream(&r);
    ok(r.subscribe_report(7, s));
    ok(r.destroy_stream(s));
    // Thread 7 serves no stream now: it is not subscribed, and may serve another device.
    assert_code(r.process_report(7, 10), 107012);
    ok(r.set_device(1));
    let s1 = stream(&r);
    ok(r.subscribe_report(7, s1));
    ok(r.unsubscribe_report(7, s1));
    // The same for a thread that ran a stream's host functions.
    let s2 = stream(&r);
    ok(r.subscribe_host_func(9, s2));
    ok(r.destroy_stream(s2));
    assert_code(r.process_host_func(9, 10), 107012);
}

#[test]
fn a_blocking_callback_left_behind_by_an_unsubscribe_is_explained_as_never_running() {
    // As on a device, nothing runs the call once its thread stops serving the stream; the
    // stall says so (here the watchdog fails the wait instead of waiting for ever).
    let r = failing_stalls();
    ok(r.set_device(0));
    let s = stream(&r);
    ok(r.subscribe_report(5, s));
    let (n, f) = counter();
    ok(r.launch_callback(Some(f()), callback_block::BLOCK, s));
    ok(r.unsubscribe_report(5, s));
    let e = r.synchronize_stream(s).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("report thread 5"), "{text}");
    assert!(text.contains("no longer serves this stream"), "{text}");
    assert_eq!(n.load(Ordering::SeqCst), 0);
}

#[test]
fn a_host_function_waiting_for_its_own_stream_is_explained_not_left_hanging() {
    let r = Arc::new(failing_stalls());
    ok(r.set_device(0));
    let s = stream(&r);
    let inner = Arc::new(Mutex::new(None));
    let (r2, seen) = (r.clone(), inner.clone());
    let f: HostFn = Box::new(move || {
        r2.set_device(0).unwrap();
        let e = r2.synchronize_stream(s).err().map(|e| e.to_string());
        *seen.lock().unwrap() = Some(e);
    });
    ok(r.launch_host_func(s, Some(f)));
    let r3 = r.clone();
    let outer = within(30, move || {
        r3.set_device(0).unwrap();
        code(r3.synchronize_stream(s))
    });
    assert_eq!(
        outer,
        Some(0),
        "the stream went on once the host function returned"
    );
    let text = inner
        .lock()
        .unwrap()
        .clone()
        .flatten()
        .expect("the inner wait failed");
    assert!(
        text.contains("must not wait for work that needs its own stream"),
        "{text}"
    );
}

#[test]
fn a_host_function_no_thread_drives_towards_is_reported_on_stderr() {
    // The scenario runs in a child process of this test binary, whose standard error the
    // parent reads.
    const CHILD: &str = "ASCEND_RT_TEST_UNDRIVEN_CHILD";
    const NAME: &str = "a_host_function_no_thread_drives_towards_is_reported_on_stderr";
    if std::env::var_os(CHILD).is_some() {
        let cfg = ascend_sim::SimConfig {
            watchdog_grace: std::time::Duration::from_millis(300),
            ..ascend_sim::SimConfig::default()
        };
        let r = ascend_rt::Runtime::sim_with(A2, cfg).unwrap();
        ok(r.set_device(0));
        let s = stream(&r);
        let (n, f) = counter();
        ok(r.launch_host_func(s, Some(f())));
        // The program waits by other means, without a call: nothing moves the device meanwhile.
        std::thread::sleep(std::time::Duration::from_millis(2000));
        assert_eq!(n.load(Ordering::SeqCst), 0);
        ok(r.synchronize_stream(s));
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
    assert!(
        err.contains("no host call has moved the simulated clock since"),
        "{err}"
    );
    assert_eq!(
        err.matches("no host call has moved").count(),
        1,
        "said once: {err}"
    );
}

#[test]
fn a_host_function_may_wait_for_another_stream_which_runs_meanwhile() {
    let r = Arc::new(failing_stalls());
    ok(r.set_device(0));
    let (s1, s2) = (stream(&r), stream(&r));
    let (a, b) = (malloc(&r, 1 << 20), malloc(&r, 1 << 20));
    ok(r.memset(a, 1 << 20, 1, 1 << 20));
    let inner = Arc::new(Mutex::new(None));
    let (r2, seen) = (r.clone(), inner.clone());
    let f: HostFn = Box::new(move || {
        r2.set_device(0).unwrap();
        *seen.lock().unwrap() = Some(code(r2.synchronize_stream(s1)));
    });
    ok(r.launch_host_func(s2, Some(f)));
    ok(r.memcpy_async(
        MemDst::Addr(b),
        1 << 20,
        MemSrc::Addr(a),
        1 << 20,
        memcpy_kind::DEVICE_TO_DEVICE,
        s1,
    ));
    let r3 = r.clone();
    let outer = within(30, move || {
        r3.set_device(0).unwrap();
        code(r3.synchronize_stream(s2))
    });
    assert_eq!(outer, Some(0));
    assert_eq!(
        *inner.lock().unwrap(),
        Some(0),
        "the other stream's copy ran"
    );
}
