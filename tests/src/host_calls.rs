//! Cases of host calls: host functions run in stream order on a runtime thread, and callbacks
//! run on the thread subscribed to the stream's reports, with the rows of each call.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use ascend_rt::raw_types::*;
use ascend_rt::{raw_types::callback_block, HostFn, Runtime};

use crate::helpers::*;
use crate::CaseResult;

/// The stream has report subscriptions or host functions of the other kind (107011).
const SUBSCRIBED_OTHERWISE: i32 = 107_011;
/// The thread is subscribed to nothing (107012).
const NOT_SUBSCRIBED: i32 = 107_012;
/// No report came within the timeout (507012).
const REPORT_TIMEOUT: i32 = 507_012;
/// A callback on a stream no thread subscribed to (107015).
const NO_SUBSCRIPTION: i32 = 107_015;

/// A function that appends `tag` to `log`.
fn append(log: &Arc<Mutex<Vec<u32>>>, tag: u32) -> HostFn {
    let log = log.clone();
    Box::new(move || log.lock().unwrap().push(tag))
}

pub(crate) fn host_functions_and_reports(rt: &Runtime) -> CaseResult {
    let log = Arc::new(Mutex::new(Vec::new()));
    expect(
        "LaunchHostFunc without a device",
        rt.launch_host_func(RawStream(0), Some(append(&log, 0))),
        NO_CONTEXT,
    );
    let _d = Dev::open(rt);
    let s = stream(rt);
    expect(
        "LaunchHostFunc garbage stream",
        rt.launch_host_func(RawStream(0xdead), Some(append(&log, 0))),
        BAD_HANDLE,
    );
    expect(
        "LaunchHostFunc NULL function",
        rt.launch_host_func(s, None),
        RT_PARAM,
    );
    // In stream order, between the tasks around them, on a thread of the runtime.
    let a = malloc(rt, 64);
    rt.memset_async(a, 64, 1, 64, s).expect("aclrtMemsetAsync");
    let main = std::thread::current().id();
    let elsewhere = Arc::new(Mutex::new(None));
    let seen = elsewhere.clone();
    let first: HostFn = Box::new(move || {
        *seen.lock().unwrap() = Some(std::thread::current().id() != main);
    });
    expect("LaunchHostFunc", rt.launch_host_func(s, Some(first)), 0);
    expect(
        "LaunchHostFunc",
        rt.launch_host_func(s, Some(append(&log, 1))),
        0,
    );
    rt.memset_async(a, 64, 2, 64, s).expect("aclrtMemsetAsync");
    expect(
        "LaunchHostFunc",
        rt.launch_host_func(s, Some(append(&log, 2))),
        0,
    );
    rt.synchronize_stream(s).expect("aclrtSynchronizeStream");
    assert_eq!(*log.lock().unwrap(), vec![1, 2], "host functions in order");
    assert_eq!(
        *elsewhere.lock().unwrap(),
        Some(true),
        "a host function runs on a runtime thread, not the launching one"
    );
    assert!(read_bytes(rt, a, 64).iter().all(|&b| b == 2));
    // A stream given host functions refuses report subscriptions.
    let me = rt.report_thread_id();
    expect(
        "SubscribeReport on a host-function stream",
        rt.subscribe_report(me, s),
        SUBSCRIBED_OTHERWISE,
    );

    // Callbacks: only on a subscribed stream, run inside ProcessReport on that thread.
    let c = stream(rt);
    let ran = Arc::new(AtomicU32::new(0));
    let count = |ran: &Arc<AtomicU32>| -> HostFn {
        let ran = ran.clone();
        Box::new(move || {
            ran.fetch_add(1, Ordering::SeqCst);
        })
    };
    expect(
        "LaunchCallback block type 2",
        rt.launch_callback(Some(count(&ran)), 2, c),
        INVALID_PARAM,
    );
    expect(
        "LaunchCallback without a subscription",
        rt.launch_callback(Some(count(&ran)), callback_block::NO_BLOCK, c),
        NO_SUBSCRIPTION,
    );
    expect(
        "ProcessReport without a subscription",
        rt.process_report(me, 10),
        NOT_SUBSCRIBED,
    );
    expect("SubscribeReport", rt.subscribe_report(me, c), 0);
    expect(
        "SubscribeReport twice",
        rt.subscribe_report(me, c),
        SUBSCRIBED_OTHERWISE,
    );
    expect(
        "LaunchHostFunc on a report stream",
        rt.launch_host_func(c, Some(append(&log, 3))),
        SUBSCRIBED_OTHERWISE,
    );
    expect(
        "ProcessReport timeout 0",
        rt.process_report(me, 0),
        INVALID_PARAM,
    );
    expect(
        "ProcessReport with nothing reported",
        rt.process_report(me, 10),
        REPORT_TIMEOUT,
    );
    expect(
        "LaunchCallback",
        rt.launch_callback(Some(count(&ran)), callback_block::NO_BLOCK, c),
        0,
    );
    expect(
        "LaunchCallback",
        rt.launch_callback(Some(count(&ran)), callback_block::NO_BLOCK, c),
        0,
    );
    assert_eq!(
        ran.load(Ordering::SeqCst),
        0,
        "a callback runs only when its thread asks"
    );
    while ran.load(Ordering::SeqCst) < 2 {
        match rt.process_report(me, 1000) {
            Ok(()) => {}
            Err(e) if e.code() == REPORT_TIMEOUT => {}
            Err(e) => panic!("ProcessReport: {e}"),
        }
    }
    rt.synchronize_stream(c).expect("aclrtSynchronizeStream");
    expect("UnSubscribeReport", rt.unsubscribe_report(me, c), 0);
    expect(
        "UnSubscribeReport twice",
        rt.unsubscribe_report(me, c),
        SUBSCRIBED_OTHERWISE,
    );
    expect(
        "ProcessReport after unsubscribing",
        rt.process_report(me, 10),
        NOT_SUBSCRIBED,
    );
    Ok(())
}
