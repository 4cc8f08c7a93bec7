//! The differences between the vendor's runtime built from source with its driver stubbed
//! (the oracle, docs/validation/vendor-oracle.md) and the front end that are explained: each
//! is an artefact of the stub (the oracle answers what no device would, because the stubbed
//! driver does not do what a device does), with the vendor file and line that shows it.
//! A difference not in this table is a defect of the front end, or a new artefact to study;
//! the oracle test fails on it.

use super::{Outcome, ProbeRow};

/// Why a difference is not a defect of the front end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The stubbed driver answers differently from a device.
    StubArtefact,
}

/// One explained difference: a call whose described arguments contain every one of
/// `args_contain`, on the SoCs named (all when empty), where the oracle returns `vendor` and
/// the front end `ours` (any code when `None`).
#[derive(Debug, Clone, Copy)]
pub struct Known {
    /// The ACL function.
    pub api: &'static str,
    /// Pieces of its described arguments.
    pub args_contain: &'static [&'static str],
    /// The SoCs it applies to (all when empty).
    pub socs: &'static [&'static str],
    /// What the oracle returns.
    pub vendor: Option<i32>,
    /// What the front end returns.
    pub ours: Option<i32>,
    /// The kind of explanation.
    pub reason: Reason,
    /// The explanation, with the vendor file and line that shows it.
    pub why: &'static str,
}

/// The driver stubs the oracle links: `S` for 910B/310B, `S950` for 950 (vendor tree at the
/// commit named in docs/validation/vendor-oracle.md).
const MEMSET_BOUND: &str = "the bound of a synchronous fill is the driver's check: the runtime \
    passes maxCount and count to drvMemsetD8 (src/runtime/driver/npu_driver_mem.cc:773), which \
    the stub accepts for any length (tests/ut/runtime/runtime/stub/hal_stub.cc:598; \
    test/platform/950/stub/hal_stub.cc:661)";
const LOCATION: &str = "the value calls refuse memory that is not device memory after asking \
    the driver where a pointer lives (src/runtime/api/impl/api_error.cc:7258-7266 and \
    7284-7292); the stub's drvMemGetAttribute answers device memory for every pointer \
    (tests/ut/runtime/runtime/stub/hal_stub.cc:602-607; test/platform/950/stub/hal_stub.cc:\
    665-670), so host memory passes on the oracle, and on a thread without a context the call \
    reaches the context check (107002) that a device never gets to";
const MC2_FIRMWARE: &str = "a device-only (MC2) event needs the TS firmware to report the MC2 \
    feature (src/runtime/api/impl/api_impl.cc:2048-2055, src/runtime/core/src/utils/\
    capability.cc:155-162); the stub reports firmware version 1 and no capability table \
    (tests/ut/runtime/runtime/stub/hal_stub.cc:148-160), so the oracle refuses what a device \
    with current firmware creates";
const CMO_ID: &str = "a barrier CMO asks the driver for a hardware CMO id \
    (src/runtime/feature/model/model.cc:2119, src/runtime/driver/npu_driver_res.cc:1423); the \
    stub's halResourceIdAlloc has no case for DRV_CMO_ID and fails (tests/ut/runtime/runtime/\
    stub/hal_stub.cc:806-807), which the runtime maps to 107000";
const NO_CMO_ID: &str = "follows from the stub's missing CMO ids: no INVALID with this id got a \
    hardware id, so the wait finds none (src/runtime/feature/model/model.cc:2138-2141, \
    107005)";

const ONE_ADDRESS: &str = "the stub hands out one address for every allocation, device and \
    page-locked alike (tests/ut/runtime/runtime/stub/hal_stub.cc:460-470 and 506-510, \
    &mallocbuff[0]), so on the oracle the two ends of this copy are one address and the \
    decorator's dst == src shortcut returns success (src/runtime/api/impl/api_error.cc:2144) \
    before the context check a device reaches (api_impl.cc:2750-2751, 107002)";
const ONE_ADDRESS_ASYNC: &str = "the stub hands out one address for every allocation \
    (test/platform/950/stub/hal_stub.cc), so the two ends of this copy are one address on the \
    oracle and the asynchronous copy's dst == src shortcut (src/runtime/api/impl/api_error.cc:\
    2249-2251) returns success before the check of a stream whose model's build ended \
    (task_david.cc:635-640, 107000)";
const NO_FAULTS: &str = "the oracle's completion model reports every task done without fault, \
    and the stub's device memory is one 400 MB array with no allocation bounds \
    (tests/ut/runtime/runtime/stub/hal_stub.cc:217, 460-470); the vendor's CMO launch has no \
    host-side range check (src/runtime/api/api_c_standard_soc.cc:835-857). The simulator faults \
    a task that crosses the end of its allocation (a CMO of 1 MiB on a 256-byte buffer), which \
    the synchronize reports (507000)";

const HOST_AS_DEVICE: &str = "the stub's drvMemGetAttribute answers device memory for every \
    pointer (tests/ut/runtime/runtime/stub/hal_stub.cc:602-607; test/platform/950/stub/\
    hal_stub.cc), so the runtime takes a pageable or registered host end of a device-to-device \
    copy for device memory and submits the copy, which the completion model reports done. No \
    device copy engine reaches pageable host memory as device memory: the simulator faults the \
    copy (507000), at the call, since a copy with pageable memory returns once it is done";

const MODEL_FAULT: &str = "the oracle's completion model reports every task of a model's run \
    done without fault; the simulator runs the tasks the model holds, and one of them (a CMO \
    past its allocation's end, a copy of host memory as device memory) faults (507000)";

const WALL_CLOCK: &str = "the oracle's completion reports come back in wall-clock time, after \
    the send returns; a synchronize with a 1 ms timeout on a stream with tasks in flight can \
    expire before they are read on a loaded machine (src/runtime/core/src/stream/stream.cc, \
    the timed wait on the completion queue), where a device, and the simulator's simulated \
    clock, finish the tasks in microseconds";

/// A device-to-device asynchronous copy with a host end ([`HOST_AS_DEVICE`]).
const fn host_as_device(args: &'static [&'static str]) -> Known {
    Known {
        api: "aclrtMemcpyAsync",
        args_contain: args,
        socs: &[],
        vendor: Some(0),
        ours: Some(507000),
        reason: Reason::StubArtefact,
        why: HOST_AS_DEVICE,
    }
}

/// A value call on host memory: the front end's 107000 against whatever the oracle answers.
const fn location(api: &'static str, ptr: &'static [&'static str]) -> Known {
    Known {
        api,
        args_contain: ptr,
        socs: &[],
        vendor: None,
        ours: Some(107000),
        reason: Reason::StubArtefact,
        why: LOCATION,
    }
}

/// Every explained difference.
pub const KNOWN: &[Known] = &[
    Known {
        api: "aclrtMemset",
        args_contain: &["maxCount=32", "count=64"],
        socs: &[],
        vendor: Some(0),
        ours: Some(107000),
        reason: Reason::StubArtefact,
        why: MEMSET_BOUND,
    },
    location("aclrtValueWrite", &["devAddr=Pinned"]),
    location("aclrtValueWrite", &["devAddr=Pageable"]),
    location("aclrtValueWait", &["devAddr=Pinned"]),
    location("aclrtValueWait", &["devAddr=Pageable"]),
    location("aclrtValueWrite", &["devAddr=Registered"]),
    location("aclrtValueWait", &["devAddr=Registered"]),
    Known {
        api: "aclrtCreateEventWithFlag",
        args_contain: &["flag=16"],
        socs: &["Ascend910B1", "Ascend950PR_9599"],
        vendor: Some(207000),
        ours: Some(0),
        reason: Reason::StubArtefact,
        why: MC2_FIRMWARE,
    },
    Known {
        api: "aclrtCreateStreamWithConfig",
        args_contain: &["flag=0x20"],
        socs: &["Ascend910B1", "Ascend950PR_9599"],
        vendor: Some(207000),
        ours: Some(0),
        reason: Reason::StubArtefact,
        why: MC2_FIRMWARE,
    },
    host_as_device(&["dst=Pageable", "kind=3"]),
    host_as_device(&["dst=Registered", "kind=3"]),
    host_as_device(&["src=Pageable", "kind=3"]),
    host_as_device(&["src=Registered", "kind=3"]),
    Known {
        api: "aclmdlRIExecute",
        args_contain: &[],
        socs: &[],
        vendor: Some(0),
        ours: Some(507000),
        reason: Reason::StubArtefact,
        why: MODEL_FAULT,
    },
    Known {
        api: "aclrtCmoAsyncWithBarrier",
        args_contain: &["stream=Bound"],
        socs: &["Ascend310B1"],
        vendor: Some(107000),
        ours: Some(0),
        reason: Reason::StubArtefact,
        why: CMO_ID,
    },
    Known {
        api: "aclrtCmoWaitBarrier",
        args_contain: &["stream=Bound"],
        socs: &["Ascend310B1"],
        vendor: Some(107005),
        ours: Some(0),
        reason: Reason::StubArtefact,
        why: NO_CMO_ID,
    },
    // The same, on the persistent stream a sequence bound to the model.
    Known {
        api: "aclrtCmoAsyncWithBarrier",
        args_contain: &["stream=Persistent"],
        socs: &["Ascend310B1"],
        vendor: Some(107000),
        ours: Some(0),
        reason: Reason::StubArtefact,
        why: CMO_ID,
    },
    Known {
        api: "aclrtCmoWaitBarrier",
        args_contain: &["stream=Persistent"],
        socs: &["Ascend310B1"],
        vendor: Some(107005),
        ours: Some(0),
        reason: Reason::StubArtefact,
        why: NO_CMO_ID,
    },
    Known {
        api: "aclrtMemcpy",
        args_contain: &["[fresh thread]"],
        socs: &[],
        vendor: Some(0),
        ours: Some(107002),
        reason: Reason::StubArtefact,
        why: ONE_ADDRESS,
    },
    Known {
        api: "aclrtMemcpyAsync",
        args_contain: &["dst=Desc", "src=Dev"],
        socs: &["Ascend950PR_9599"],
        vendor: Some(0),
        ours: Some(107000),
        reason: Reason::StubArtefact,
        why: ONE_ADDRESS_ASYNC,
    },
    Known {
        api: "aclrtSynchronizeStreamWithTimeout",
        args_contain: &["timeout=1"],
        socs: &[],
        vendor: Some(507046),
        ours: Some(0),
        reason: Reason::StubArtefact,
        why: WALL_CLOCK,
    },
    Known {
        api: "aclrtSynchronizeEventWithTimeout",
        args_contain: &["timeout=1"],
        socs: &[],
        vendor: Some(507047),
        ours: Some(0),
        reason: Reason::StubArtefact,
        why: WALL_CLOCK,
    },
    Known {
        api: "aclrtSynchronizeStream",
        args_contain: &[],
        socs: &[],
        vendor: Some(0),
        ours: Some(507000),
        reason: Reason::StubArtefact,
        why: NO_FAULTS,
    },
    Known {
        api: "aclrtSynchronizeStreamWithTimeout",
        args_contain: &[],
        socs: &[],
        vendor: Some(0),
        ours: Some(507000),
        reason: Reason::StubArtefact,
        why: NO_FAULTS,
    },
];

fn code(r: &Result<Outcome, String>) -> Option<i32> {
    r.as_ref().ok().map(|o| o.code)
}

/// The entry that explains `row`'s difference on `soc`, if any.
pub fn explain(soc: &str, row: &ProbeRow) -> Option<&'static Known> {
    KNOWN.iter().find(|k| {
        k.api == row.api
            && (k.socs.is_empty() || k.socs.contains(&soc))
            && k.args_contain.iter().all(|a| row.args.contains(a))
            && k.vendor.is_none_or(|v| code(&row.library) == Some(v))
            && k.ours.is_none_or(|o| code(&row.predicted) == Some(o))
    })
}

/// A row as one line: the call, its arguments, the oracle's answer and the front end's.
pub fn line(row: &ProbeRow) -> String {
    let show = |r: &Result<Outcome, String>| match r {
        Ok(o) => o.to_string(),
        Err(e) => format!("error: {e}"),
    };
    format!(
        "{}({}): vendor {}, front end {}",
        row.api,
        row.args,
        show(&row.library),
        show(&row.predicted)
    )
}
