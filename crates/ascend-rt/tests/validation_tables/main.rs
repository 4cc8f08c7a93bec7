//! One test per row of the validation tables of the eight target APIs
//! (docs/validation/cmo.md, docs/validation/value-write-wait.md), one per row of the edge matrix
//! (docs/validation/edge-matrix.md), and the rules of the supporting APIs
//! (docs/validation/devices-contexts.md, memory.md, streams-events.md, models.md), each
//! checking CANN's code and, where the docs name one, the message code.
//!
//! One file per family of calls (`cmo`, `value`, `edge_matrix`, `common_rules`, `devices`,
//! `memory`, `streams`, `events`, `models`, `vendor_oracle`). Test names carry a table key: `t5_1` … `t5_6` are `aclrtCmoAsync`,
//! `aclrtCmoAsyncWithBarrier`, `aclrtCmoWaitBarrier`, `aclrtCmoGetDescSize`, `aclrtCmoSetDesc`
//! and `aclrtCmoAsyncWithDesc`; `t5_7` / `t5_8` are `aclrtValueWrite` / `aclrtValueWait`;
//! `t5_9` is the edge matrix; `t7_1` … `t7_6` are init / finalize, devices, memory, streams,
//! events and model running instances; `rowN` is the row number in the call's table.
//!
//! Rows that cannot be reached through the public (ACL) API are listed in a comment where
//! their table's tests are, with why. "Supported chip" is one whose feature gate passes for
//! the API (docs/products.md): Ascend910B1 / Ascend910_9391 / Ascend950PR_9599 for CmoAsync,
//! the descriptor pair and the value pair; Ascend310B1 for the barrier pair.

#[path = "../common/mod.rs"]
mod common;

mod cmo;
mod common_rules;
mod devices;
mod edge_matrix;
mod events;
mod memory;
mod models;
mod streams;
mod value;
mod vendor_oracle;

use std::sync::Arc;
use std::time::Duration;

use ascend_rt::raw_types::{
    cmo_type, event_flag, malloc_policy, memcpy_kind, model_stream_flag, stream_flag, wait_flag,
    Addr, RawBarrierCmoInfo, RawBarrierTaskInfo, RawContext, RawEvent, RawModel, RawStream,
};
use ascend_rt::{MemDst, MemSrc, MsgCode, Runtime};
use ascend_sim::{OnStall, SimConfig};
use common::*;

/// Chips where CmoAsync, GetDescSize, SetDesc, AsyncWithDesc, ValueWrite, ValueWait pass
/// their gate.
const CMO_CHIPS: [&str; 5] = [
    "Ascend910B1",
    "Ascend910B4",
    "Ascend910_9391",
    "Ascend950PR_9599",
    "Ascend950DT_9591",
];
/// Chips where they do not.
const NON_CMO_CHIPS: [&str; 3] = ["Ascend310B1", "Ascend310P3", "Ascend910A"];
/// Chips without the barrier pair.
const NON_BARRIER_CHIPS: [&str; 7] = [
    "Ascend910B1",
    "Ascend910B4",
    "Ascend910_9391",
    "Ascend950PR_9599",
    "Ascend950DT_9591",
    "Ascend310P3",
    "Ascend910A",
];

fn info(entries: &[(u32, u32)]) -> RawBarrierTaskInfo {
    let mut i = RawBarrierTaskInfo {
        barrier_num: entries.len(),
        ..Default::default()
    };
    for (k, &(t, id)) in entries.iter().enumerate() {
        i.cmo_info[k] = RawBarrierCmoInfo {
            cmo_type: t,
            barrier_id: id,
        };
    }
    i
}

/// Every kind of bad stream handle: destroyed, garbage, an event handle, a model handle.
fn bad_streams(r: &Runtime) -> Vec<RawStream> {
    let e = event(r);
    let m = model(r);
    vec![destroyed_stream(r), GARBAGE, RawStream(e.0), RawStream(m.0)]
}

/// Asserts the calling thread's recent messages carry no CANN message code: the failures were
/// ones CANN only logs, explained by the simulator (docs/error-messages.md).
#[track_caller]
fn assert_no_recent(r: &Runtime) {
    let text = r
        .get_recent_err_msg()
        .expect("the simulator explains every failure");
    for line in text.lines() {
        assert!(line.starts_with("ascend-sim: "), "{text}");
    }
}

/// A runtime over the simulator of `soc` (no device set) whose stalls fail after a short
/// grace instead of hanging the test.
fn rt_failing_stalls(soc: &str) -> Arc<Runtime> {
    let cfg = SimConfig {
        on_stall: OnStall::Error,
        watchdog_grace: Duration::from_secs(2),
        ..SimConfig::default()
    };
    Arc::new(Runtime::sim_with(soc, cfg).unwrap())
}

/// An event created with `flag` (`aclrtCreateEventWithFlag`).
fn event_with(r: &Runtime, flag: u32) -> RawEvent {
    let mut e = RawEvent::default();
    ok(r.create_event_with_flag(Some(&mut e), flag));
    e
}
