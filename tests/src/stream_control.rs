//! Cases of stream control: aborting a stream's queued tasks, the rows of stop, the failure
//! mode, and the stream state callbacks.

use std::sync::{Arc, Mutex};

use ascend_chips::ChipType;
use ascend_rt::raw_types::*;
use ascend_rt::{raw_types::stream_state, Runtime};

use crate::helpers::*;
use crate::CaseResult;

pub(crate) fn stream_control(rt: &Runtime) -> CaseResult {
    // State callbacks need no device; they run on the thread that creates or destroys.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    expect(
        "RegStreamStateCallback",
        rt.reg_stream_state_callback(
            Some("conformance"),
            Some(Arc::new(move |s: RawStream, state: u32| {
                log.lock().unwrap().push((s, state));
            })),
        ),
        0,
    );
    expect(
        "RegStreamStateCallback name NULL",
        rt.reg_stream_state_callback(None, None),
        INVALID_PARAM,
    );
    expect(
        "RegStreamStateCallback twice",
        rt.reg_stream_state_callback(Some("conformance"), Some(Arc::new(|_, _| {}))),
        RT_PARAM,
    );
    let _d = Dev::open(rt);
    let s = stream(rt);
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    expect(
        "RegStreamStateCallback unregister",
        rt.reg_stream_state_callback(Some("conformance"), None),
        0,
    );
    let _after = stream(rt);
    let seen = seen.lock().unwrap().clone();
    let ours: Vec<u32> = seen.iter().filter(|(x, _)| *x == s).map(|e| e.1).collect();
    assert_eq!(
        ours,
        vec![stream_state::CREATE_POST, stream_state::DESTROY_PRE],
        "the stream's creation and destruction, once each"
    );
    assert!(
        seen.iter().all(|(x, _)| *x != _after),
        "nothing after unregistering"
    );

    // Abort drops what is queued; the stream stays usable. Stop's rows.
    let controls = matches!(
        rt.chip().chip_type,
        ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350
    );
    let s = stream(rt);
    expect(
        "StreamAbort garbage",
        rt.stream_abort(RawStream(0xdead)),
        BAD_HANDLE,
    );
    expect(
        "StreamStop garbage",
        rt.stream_stop(RawStream(0xdead)),
        BAD_HANDLE,
    );
    expect("StreamStop NULL", rt.stream_stop(RawStream(0)), RT_PARAM);
    let a = malloc(rt, 64);
    if controls {
        let n = notify(rt);
        expect(
            "WaitAndResetNotify forever",
            rt.wait_and_reset_notify(n, s, 0),
            0,
        );
        rt.memset_async(a, 64, 7, 64, s).expect("aclrtMemsetAsync");
        assert_eq!(query(rt, s), stream_status::NOT_READY, "held by the wait");
        expect("StreamAbort", rt.stream_abort(s), 0);
        rt.synchronize_stream(s)
            .expect("an aborted stream has nothing left");
        assert!(
            read_bytes(rt, a, 64).iter().all(|&b| b == 0),
            "the aborted fill never ran"
        );
        rt.memset_async(a, 64, 9, 64, s).expect("aclrtMemsetAsync");
        rt.synchronize_stream(s).expect("aclrtSynchronizeStream");
        assert!(
            read_bytes(rt, a, 64).iter().all(|&b| b == 9),
            "the stream runs again after an abort"
        );
        rt.destroy_notify(n).expect("aclrtDestroyNotify");
    } else {
        expect("StreamAbort", rt.stream_abort(s), NOT_SUPPORTED);
        expect("StreamStop", rt.stream_stop(s), NOT_SUPPORTED);
    }

    // The failure mode: stop is the context's; back to continue is refused.
    expect(
        "SetStreamFailureMode garbage",
        rt.set_stream_failure_mode(RawStream(0xdead), 1),
        BAD_HANDLE,
    );
    expect(
        "SetStreamFailureMode continue",
        rt.set_stream_failure_mode(s, 0),
        0,
    );
    expect(
        "SetStreamFailureMode stop",
        rt.set_stream_failure_mode(s, 1),
        0,
    );
    expect(
        "SetStreamFailureMode stop again",
        rt.set_stream_failure_mode(s, 1),
        0,
    );
    expect(
        "SetStreamFailureMode back to continue",
        rt.set_stream_failure_mode(s, 0),
        NOT_SUPPORTED,
    );
    // Work still runs while nothing has failed.
    rt.memset_async(a, 64, 4, 64, s).expect("aclrtMemsetAsync");
    rt.synchronize_stream(s).expect("aclrtSynchronizeStream");
    assert!(read_bytes(rt, a, 64).iter().all(|&b| b == 4));
    Ok(())
}
