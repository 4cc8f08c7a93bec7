//! Host functions and callbacks recorded into a model running instance (by a capture, or on a
//! persistent stream bound to the model): they run at every run of the model, in the model's
//! task order, as kernels and copies in the same model do; the model keeps them until it goes.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use ascend_rt::raw_types::RawModel;
use ascend_rt::{raw_types::capture_mode, HostFn, Runtime};
use common::*;

fn counting(n: &Arc<AtomicU32>) -> HostFn {
    let n = n.clone();
    Box::new(move || {
        n.fetch_add(1, Ordering::SeqCst);
    })
}

fn run_times(r: &Runtime, model: RawModel, times: usize) {
    let exec = stream(r);
    for _ in 0..times {
        ok(r.mdl_ri_execute_async(model, exec));
        ok(r.synchronize_stream(exec));
    }
    ok(r.destroy_stream(exec));
}

#[test]
fn captured_host_functions_run_at_every_run_of_the_model() {
    let r = rt0(A2);
    let s = stream(&r);
    let (a, b) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    ok(r.mdl_ri_capture_begin(s, capture_mode::RELAXED));
    ok(r.launch_host_func(s, Some(counting(&a))));
    ok(r.launch_host_func(s, Some(counting(&b))));
    let mut model = RawModel::default();
    ok(r.mdl_ri_capture_end(s, Some(&mut model)));
    ok(r.synchronize_stream(s));
    assert_eq!(a.load(Ordering::SeqCst), 0, "captured, not run at launch");
    run_times(&r, model, 3);
    assert_eq!(a.load(Ordering::SeqCst), 3);
    assert_eq!(b.load(Ordering::SeqCst), 3);
    ok(r.mdl_ri_destroy(model));
}

#[test]
fn a_captured_host_function_runs_in_the_models_task_order() {
    let r = rt0(A2);
    let s = stream(&r);
    let flag = malloc(&r, 8);
    ok(r.memset(flag, 8, 0, 8));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (seen2, rt_flag) = (seen.clone(), flag);
    // The function reads what the model's earlier task wrote.
    let r = Arc::new(r);
    let weak = Arc::downgrade(&r);
    let f: HostFn = Box::new(move || {
        let r = weak.upgrade().expect("runtime");
        r.set_device(0).unwrap();
        seen2.lock().unwrap().push(read_u64(&r, rt_flag));
    });
    ok(r.mdl_ri_capture_begin(s, capture_mode::RELAXED));
    ok(r.value_write(flag, 7, 0, s));
    ok(r.launch_host_func(s, Some(f)));
    ok(r.value_write(flag, 8, 0, s));
    let mut model = RawModel::default();
    ok(r.mdl_ri_capture_end(s, Some(&mut model)));
    for _ in 0..2 {
        ok(r.memset(flag, 8, 0, 8));
        run_times(&r, model, 1);
        assert_eq!(read_u64(&r, flag), 8);
    }
    assert_eq!(*seen.lock().unwrap(), vec![7, 7]);
    ok(r.mdl_ri_destroy(model));
}

#[test]
fn captured_callbacks_run_at_every_run_of_the_model() {
    let r = Arc::new(rt0(A2));
    let s = stream(&r);
    let n = Arc::new(AtomicU32::new(0));
    let thread = 41;
    ok(r.subscribe_report(thread, s));
    ok(r.mdl_ri_capture_begin(s, capture_mode::RELAXED));
    ok(r.launch_callback(Some(counting(&n)), 1, s));
    ok(r.launch_callback(Some(counting(&n)), 0, s));
    let mut model = RawModel::default();
    ok(r.mdl_ri_capture_end(s, Some(&mut model)));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reporter = {
        let (r, stop) = (r.clone(), stop.clone());
        std::thread::spawn(move || {
            r.set_device(0).unwrap();
            while !stop.load(Ordering::SeqCst) {
                let _ = r.process_report(thread, 20);
            }
        })
    };
    run_times(&r, model, 3);
    // The non-blocking callback may still be due after the last synchronize.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while n.load(Ordering::SeqCst) < 6 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    stop.store(true, Ordering::SeqCst);
    reporter.join().unwrap();
    assert_eq!(n.load(Ordering::SeqCst), 6, "two callbacks over three runs");
    ok(r.mdl_ri_destroy(model));
    ok(r.unsubscribe_report(thread, s));
}

#[test]
fn a_host_function_on_a_bound_persistent_stream_runs_at_every_execute() {
    let r = rt0(A2);
    let (model, ps) = bound(&r);
    let n = Arc::new(AtomicU32::new(0));
    ok(r.launch_host_func(ps, Some(counting(&n))));
    ok(r.mdl_ri_end_task(model, ps));
    ok(r.mdl_ri_build_end(model, None));
    run_times(&r, model, 4);
    assert_eq!(n.load(Ordering::SeqCst), 4);
    ok(r.mdl_ri_unbind_stream(model, ps));
    ok(r.mdl_ri_destroy(model));
    ok(r.destroy_stream(ps));
}

#[test]
fn a_models_host_functions_are_dropped_when_the_model_goes() {
    let r = rt0(A2);
    let s = stream(&r);
    let token = Arc::new(());
    let t = token.clone();
    ok(r.mdl_ri_capture_begin(s, capture_mode::RELAXED));
    ok(r.launch_host_func(
        s,
        Some(Box::new(move || {
            let _ = &t;
        })),
    ));
    let mut model = RawModel::default();
    ok(r.mdl_ri_capture_end(s, Some(&mut model)));
    run_times(&r, model, 2);
    assert_eq!(Arc::strong_count(&token), 2, "the model keeps its function");
    ok(r.mdl_ri_destroy(model));
    assert_eq!(Arc::strong_count(&token), 1, "and drops it with the model");
}

#[test]
fn many_threads_run_models_with_captured_host_functions() {
    let r = Arc::new(rt0(A2));
    let n = Arc::new(AtomicU32::new(0));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (r, n) = (r.clone(), n.clone());
            std::thread::spawn(move || {
                r.set_device(0).unwrap();
                let s = stream(&r);
                ok(r.mdl_ri_capture_begin(s, capture_mode::THREAD_LOCAL));
                ok(r.launch_host_func(s, Some(counting(&n))));
                let mut model = RawModel::default();
                ok(r.mdl_ri_capture_end(s, Some(&mut model)));
                run_times(&r, model, 5);
                ok(r.mdl_ri_destroy(model));
                ok(r.destroy_stream(s));
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(n.load(Ordering::SeqCst), 40);
}

#[test]
fn each_of_two_runs_in_flight_runs_its_non_blocking_callback() {
    let r = rt0(A2);
    let s = stream(&r);
    let n = Arc::new(AtomicU32::new(0));
    let thread = 43;
    ok(r.subscribe_report(thread, s));
    ok(r.mdl_ri_capture_begin(s, capture_mode::RELAXED));
    ok(r.launch_callback(Some(counting(&n)), 0, s));
    let mut model = RawModel::default();
    ok(r.mdl_ri_capture_end(s, Some(&mut model)));
    let exec = stream(&r);
    // Both runs complete before any callback is taken: two copies of one call are due.
    ok(r.mdl_ri_execute_async(model, exec));
    ok(r.mdl_ri_execute_async(model, exec));
    ok(r.synchronize_stream(exec));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while n.load(Ordering::SeqCst) < 2 && std::time::Instant::now() < deadline {
        let _ = r.process_report(thread, 20);
    }
    assert_eq!(n.load(Ordering::SeqCst), 2, "one callback per run");
    ok(r.mdl_ri_destroy(model));
}

#[test]
fn a_recorded_host_function_that_runs_its_own_model_again_does_not_deadlock() {
    let r = Arc::new(rt0(A2));
    let s = stream(&r);
    let n = Arc::new(AtomicU32::new(0));
    let model = Arc::new(Mutex::new(RawModel::default()));
    let (weak, n2, m2) = (Arc::downgrade(&r), n.clone(), model.clone());
    let f: HostFn = Box::new(move || {
        // The first run starts a second one from inside its own host function.
        if n2.fetch_add(1, Ordering::SeqCst) == 0 {
            let r = weak.upgrade().expect("runtime");
            r.set_device(0).unwrap();
            let exec = stream(&r);
            let m = *m2.lock().unwrap();
            r.mdl_ri_execute_async(m, exec).unwrap();
        }
    });
    ok(r.mdl_ri_capture_begin(s, capture_mode::RELAXED));
    ok(r.launch_host_func(s, Some(f)));
    let mut m = RawModel::default();
    ok(r.mdl_ri_capture_end(s, Some(&mut m)));
    *model.lock().unwrap() = m;
    run_times(&r, m, 1);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while n.load(Ordering::SeqCst) < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
        ok(r.synchronize_device());
    }
    assert_eq!(n.load(Ordering::SeqCst), 2);
}

#[test]
fn a_bound_streams_host_functions_are_dropped_when_it_is_unbound() {
    let r = rt0(A2);
    let (model, ps) = bound(&r);
    let token = Arc::new(());
    let t = token.clone();
    ok(r.launch_host_func(
        ps,
        Some(Box::new(move || {
            let _ = &t;
        })),
    ));
    assert_eq!(Arc::strong_count(&token), 2);
    ok(r.mdl_ri_unbind_stream(model, ps));
    assert_eq!(Arc::strong_count(&token), 1, "dropped with the recording");
    ok(r.mdl_ri_destroy(model));
    ok(r.destroy_stream(ps));
}

#[test]
fn a_run_under_way_when_its_model_is_destroyed_still_runs_its_host_functions() {
    let r = rt0(A2);
    let n = Arc::new(AtomicU32::new(0));
    let gate = malloc(&r, 8);
    ok(r.memset(gate, 8, 0, 8));
    let (model, ps) = bound(&r);
    ok(r.value_wait(gate, 1, 0, ps));
    ok(r.launch_host_func(ps, Some(counting(&n))));
    ok(r.mdl_ri_end_task(model, ps));
    ok(r.mdl_ri_build_end(model, None));
    let exec = stream(&r);
    ok(r.mdl_ri_execute_async(model, exec));
    // The run starts and stops at the gate; the model goes meanwhile, its stream stays.
    assert_code(r.synchronize_stream_with_timeout(exec, 5), 507046);
    ok(r.mdl_ri_destroy(model));
    let other = stream(&r);
    ok(r.value_write(gate, 1, 0, other));
    ok(r.synchronize_stream(exec));
    ok(r.synchronize_device());
    assert_eq!(
        n.load(Ordering::SeqCst),
        1,
        "the run under way kept its function"
    );
    ok(r.destroy_stream(ps));
}
