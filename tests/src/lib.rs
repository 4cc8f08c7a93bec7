//! The cross-backend conformance suite: one set of cases, written once against the raw level
//! of [`ascend_rt::Runtime`], run on every backend.
//!
//! A case takes a fresh [`Runtime`] (whatever its backend) and checks what CANN's code says
//! (`shared/spec/cann-api-facts.md`): the validation rows of §5.9 and §7 (expected codes are
//! derived from the chip's feature flags, so the same case checks a supported and an
//! unsupported chip), the four compare modes of `aclrtValueWait`, a wait released by another
//! host thread, event ordering, model execution, the barrier CMO pair (Ascend310B1), the
//! descriptor CMO on a model-bound stream, invalid handles, host-buffer copies, explicit
//! contexts (on the creating thread, on another thread, and without `aclrtSetDevice`),
//! notifies between two streams (and a wait that times out) and event timestamps. A case that
//! needs what the chip lacks returns [`Outcome::Skipped`] with the reason.
//!
//! The instantiations are in `tests/`: `sim.rs` (the simulator, every built-in SoC of
//! [`SIM_SOCS`]) and `hw.rs` (feature `hw`: the `hw` backend over the project's own
//! `libascendcl.so`, one process per SoC, and over the real library on a device).

#![forbid(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use ascend_rt::raw_types::*;
use ascend_rt::{AclResult, MemDst, MemSrc, Runtime};

/// The SoCs the simulator instantiation runs every case on: an A2 chip (value wait, CMO,
/// 32-byte descriptors), the 200I/500 A2 chip (barrier CMO only), a 950 chip (64-byte
/// descriptors) and a chip with none of these features.
pub const SIM_SOCS: &[&str] = &[
    "Ascend910B1",
    "Ascend310B1",
    "Ascend950PR_9599",
    "Ascend310P3",
];

/// What a case found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every check held.
    Passed,
    /// The case does not apply to this chip or machine.
    Skipped(String),
    /// A check failed (the panic message).
    Failed(String),
}

/// A case's own result: `Err` skips with a reason; failed checks panic.
pub type CaseResult = Result<(), String>;

/// One conformance case.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Its name.
    pub name: &'static str,
    /// Runs it on a fresh runtime.
    pub run: fn(&Runtime) -> CaseResult,
}

/// Every case, in a fixed order.
pub fn cases() -> &'static [Case] {
    &[
        Case {
            name: "value_api_validation",
            run: value_api_validation,
        },
        Case {
            name: "cmo_async_validation",
            run: cmo_async_validation,
        },
        Case {
            name: "cmo_barrier_validation",
            run: cmo_barrier_validation,
        },
        Case {
            name: "cmo_desc_validation",
            run: cmo_desc_validation,
        },
        Case {
            name: "supporting_api_validation",
            run: supporting_api_validation,
        },
        Case {
            name: "compare_modes",
            run: compare_modes,
        },
        Case {
            name: "wait_released_by_host_thread",
            run: wait_released_by_host_thread,
        },
        Case {
            name: "event_ordering",
            run: event_ordering,
        },
        Case {
            name: "model_execution_repeatable",
            run: model_execution_repeatable,
        },
        Case {
            name: "barrier_cmo_on_model_stream",
            run: barrier_cmo_on_model_stream,
        },
        Case {
            name: "desc_cmo_on_model_stream",
            run: desc_cmo_on_model_stream,
        },
        Case {
            name: "bad_handles",
            run: bad_handles,
        },
        Case {
            name: "host_buffer_copies",
            run: host_buffer_copies,
        },
        Case {
            name: "explicit_contexts",
            run: explicit_contexts,
        },
        Case {
            name: "notify_record_and_wait",
            run: notify_record_and_wait,
        },
        Case {
            name: "event_timestamps",
            run: event_timestamps,
        },
    ]
}

/// The case named `name`.
pub fn case(name: &str) -> Option<Case> {
    cases().iter().copied().find(|c| c.name == name)
}

/// Runs one case on a runtime from `make`, catching a failed check.
pub fn run_case(case: Case, make: &dyn Fn() -> Result<Runtime, String>) -> Outcome {
    let rt = match make() {
        Ok(rt) => rt,
        Err(e) => return Outcome::Failed(format!("cannot create the runtime: {e}")),
    };
    match catch_unwind(AssertUnwindSafe(|| (case.run)(&rt))) {
        Ok(Ok(())) => Outcome::Passed,
        Ok(Err(reason)) => Outcome::Skipped(reason),
        Err(panic) => Outcome::Failed(
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into()),
        ),
    }
}

/// Runs every case (or those whose name contains `filter`), prints one line per case
/// (`SKIPPED: <reason>` for skips) and returns the results.
pub fn run_suite(
    label: &str,
    make: &dyn Fn() -> Result<Runtime, String>,
    filter: Option<&str>,
) -> Vec<(&'static str, Outcome)> {
    let mut out = Vec::new();
    for c in cases() {
        if filter.is_some_and(|f| !c.name.contains(f)) {
            continue;
        }
        let outcome = run_case(*c, make);
        match &outcome {
            Outcome::Passed => println!("[{label}] {}: passed", c.name),
            Outcome::Skipped(r) => println!("[{label}] {}: SKIPPED: {r}", c.name),
            Outcome::Failed(m) => println!("[{label}] {}: FAILED: {m}", c.name),
        }
        out.push((c.name, outcome));
    }
    out
}

/// Panics naming every failed case of a suite run.
pub fn assert_all_passed(label: &str, results: &[(&'static str, Outcome)]) {
    let failed: Vec<String> = results
        .iter()
        .filter_map(|(n, o)| match o {
            Outcome::Failed(m) => Some(format!("{n}: {m}")),
            _ => None,
        })
        .collect();
    assert!(
        failed.is_empty(),
        "[{label}] {} case(s) failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

// ----- helpers -----

/// The code of a result: 0 for success.
fn code<T>(r: AclResult<T>) -> i32 {
    match r {
        Ok(_) => 0,
        Err(e) => e.code(),
    }
}

/// Checks a result's code, naming the row.
#[track_caller]
fn expect<T>(row: &str, r: AclResult<T>, want: i32) {
    let got = code(r);
    assert_eq!(got, want, "{row}: expected {want}, got {got}");
}

/// Device 0 set on the calling thread for the guard's life; reset when dropped (also when a
/// check fails), so a backend with process-wide state is left clean.
struct Dev<'a> {
    rt: &'a Runtime,
}

impl<'a> Dev<'a> {
    fn open(rt: &'a Runtime) -> Dev<'a> {
        rt.set_device(0).expect("aclrtSetDevice(0)");
        Dev { rt }
    }
}

impl Drop for Dev<'_> {
    fn drop(&mut self) {
        let _ = self.rt.reset_device_force(0);
    }
}

fn malloc(rt: &Runtime, size: usize) -> Addr {
    let mut a = Addr::NULL;
    rt.malloc(Some(&mut a), size, malloc_policy::HUGE_FIRST)
        .expect("aclrtMalloc");
    rt.memset(a, size, 0, size).expect("aclrtMemset");
    a
}

fn stream(rt: &Runtime) -> RawStream {
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).expect("aclrtCreateStream");
    s
}

fn persistent_stream(rt: &Runtime) -> RawStream {
    let mut s = RawStream::NULL;
    rt.create_stream_with_config(Some(&mut s), 0, stream_flag::PERSISTENT)
        .expect("aclrtCreateStreamWithConfig(PERSISTENT)");
    s
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
    .expect("aclrtMemcpy D2H");
    u64::from_le_bytes(b)
}

fn write_u64(rt: &Runtime, a: Addr, v: u64) {
    rt.memcpy(
        MemDst::Addr(a),
        8,
        MemSrc::Host(&v.to_le_bytes()),
        8,
        memcpy_kind::HOST_TO_DEVICE,
    )
    .expect("aclrtMemcpy H2D");
}

fn query(rt: &Runtime, s: RawStream) -> u32 {
    let mut st = 0;
    rt.stream_query(s, Some(&mut st)).expect("aclrtStreamQuery");
    st
}

/// A model with one persistent stream bound to it.
fn model_with_stream(rt: &Runtime) -> (RawModel, RawStream) {
    let mut m = RawModel::default();
    rt.mdl_ri_build_begin(Some(&mut m), 0)
        .expect("aclmdlRIBuildBegin");
    let s = persistent_stream(rt);
    rt.mdl_ri_bind_stream(m, s, model_stream_flag::HEAD)
        .expect("aclmdlRIBindStream");
    (m, s)
}

fn finish_model(rt: &Runtime, m: RawModel, s: RawStream) {
    rt.mdl_ri_end_task(m, s).expect("aclmdlRIEndTask");
    rt.mdl_ri_build_end(m, None).expect("aclmdlRIBuildEnd");
}

fn drop_model(rt: &Runtime, m: RawModel, s: RawStream) {
    rt.mdl_ri_unbind_stream(m, s).expect("aclmdlRIUnbindStream");
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    rt.mdl_ri_destroy(m).expect("aclmdlRIDestroy");
}

fn pick(supported: bool, yes: i32, no: i32) -> i32 {
    if supported {
        yes
    } else {
        no
    }
}

const INVALID_PARAM: i32 = 100_000;
const RT_PARAM: i32 = 107_000;
const BAD_DEVICE: i32 = 107_001;
const NO_CONTEXT: i32 = 107_002;
const STREAM_CONTEXT: i32 = 107_003;
const STREAM_MODEL: i32 = 107_005;
const TIMESTAMP_NOT_READY: i32 = 107_006;
const BAD_HANDLE: i32 = 107_017;
const TASK_TIMEOUT: i32 = 107_020;
const NO_NOTIFY: i32 = 207_009;
const NOT_SUPPORTED: i32 = 207_000;
const RT_INTERNAL: i32 = 507_000;

// ----- validation rows (cann-api-facts §5.9, §7) -----

fn value_api_validation(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let f = rt.chip().features;
    let gate = |code| pick(f.task_value_wait, code, NOT_SUPPORTED);
    let buf = malloc(rt, 64);
    expect(
        "ValueWrite devAddr NULL",
        rt.value_write(Addr::NULL, 1, 0, RawStream::NULL),
        INVALID_PARAM,
    );
    expect(
        "ValueWait devAddr NULL",
        rt.value_wait(Addr::NULL, 1, 0, RawStream::NULL),
        INVALID_PARAM,
    );
    expect(
        "ValueWrite flag 1",
        rt.value_write(buf, 1, 1, RawStream::NULL),
        gate(RT_PARAM),
    );
    expect(
        "ValueWait flag 4",
        rt.value_wait(buf, 1, wait_flag::MAX, RawStream::NULL),
        gate(RT_PARAM),
    );
    let mut host = Addr::NULL;
    rt.malloc_host(Some(&mut host), 64)
        .expect("aclrtMallocHost");
    expect(
        "ValueWrite on host memory",
        rt.value_write(host, 1, 0, RawStream::NULL),
        gate(RT_PARAM),
    );
    expect(
        "ValueWait on host memory",
        rt.value_wait(host, 1, 0, RawStream::NULL),
        gate(RT_PARAM),
    );
    rt.free_host(host).expect("aclrtFreeHost");
    let s = stream(rt);
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    expect(
        "ValueWrite on a destroyed stream",
        rt.value_write(buf, 1, 0, s),
        gate(BAD_HANDLE),
    );
    if f.task_value_wait {
        expect(
            "ValueWrite valid",
            rt.value_write(buf, 9, 0, RawStream::NULL),
            0,
        );
        rt.synchronize_stream(RawStream::NULL).expect("sync");
        assert_eq!(read_u64(rt, buf), 9, "the written value");
    }
    Ok(())
}

fn cmo_async_validation(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let f = rt.chip().features;
    let buf = malloc(rt, 4096);
    expect(
        "CmoAsync src NULL",
        rt.cmo_async(Addr::NULL, 64, cmo_type::PREFETCH, RawStream::NULL),
        INVALID_PARAM,
    );
    expect(
        "CmoAsync size 0",
        rt.cmo_async(buf, 0, cmo_type::PREFETCH, RawStream::NULL),
        INVALID_PARAM,
    );
    expect(
        "CmoAsync cmoType 4",
        rt.cmo_async(buf, 64, 4, RawStream::NULL),
        NOT_SUPPORTED,
    );
    let (m, s) = model_with_stream(rt);
    expect(
        "CmoAsync on a model-bound stream",
        rt.cmo_async(buf, 64, cmo_type::PREFETCH, s),
        NOT_SUPPORTED,
    );
    drop_model(rt, m, s);
    if f.task_cmo {
        for t in [
            cmo_type::PREFETCH,
            cmo_type::WRITEBACK,
            cmo_type::INVALID,
            cmo_type::FLUSH,
        ] {
            expect(
                "CmoAsync valid (all four types)",
                rt.cmo_async(buf, 4096, t, RawStream::NULL),
                0,
            );
        }
        rt.synchronize_stream(RawStream::NULL).expect("sync");
    } else {
        expect(
            "CmoAsync valid on a chip without it",
            rt.cmo_async(buf, 64, cmo_type::PREFETCH, RawStream::NULL),
            NOT_SUPPORTED,
        );
    }
    Ok(())
}

fn barrier_info(entries: &[(u32, u32)]) -> RawBarrierTaskInfo {
    let mut info = RawBarrierTaskInfo {
        barrier_num: entries.len(),
        ..Default::default()
    };
    for (slot, &(t, id)) in info.cmo_info.iter_mut().zip(entries) {
        *slot = RawBarrierCmoInfo {
            cmo_type: t,
            barrier_id: id,
        };
    }
    info
}

fn cmo_barrier_validation(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let ok = rt.chip().features.task_async_cmo;
    let gate = |code| pick(ok, code, NOT_SUPPORTED);
    let buf = malloc(rt, 4096);
    let n = RawStream::NULL;
    expect(
        "CmoAsyncWithBarrier src NULL",
        rt.cmo_async_with_barrier(Addr::NULL, 64, cmo_type::INVALID, 1, n),
        INVALID_PARAM,
    );
    expect(
        "CmoAsyncWithBarrier size 0",
        rt.cmo_async_with_barrier(buf, 0, cmo_type::INVALID, 1, n),
        gate(RT_PARAM),
    );
    expect(
        "CmoAsyncWithBarrier INVALID with id 0",
        rt.cmo_async_with_barrier(buf, 64, cmo_type::INVALID, 0, n),
        gate(RT_PARAM),
    );
    expect(
        "CmoAsyncWithBarrier PREFETCH with id 1",
        rt.cmo_async_with_barrier(buf, 64, cmo_type::PREFETCH, 1, n),
        gate(RT_PARAM),
    );
    expect(
        "CmoAsyncWithBarrier cmoType 4",
        rt.cmo_async_with_barrier(buf, 64, 4, 0, n),
        NOT_SUPPORTED,
    );
    expect(
        "CmoAsyncWithBarrier valid on the NULL stream",
        rt.cmo_async_with_barrier(buf, 64, cmo_type::INVALID, 1, n),
        gate(RT_INTERNAL),
    );
    let s = stream(rt);
    expect(
        "CmoAsyncWithBarrier valid on a plain stream",
        rt.cmo_async_with_barrier(buf, 64, cmo_type::INVALID, 1, s),
        gate(RT_INTERNAL),
    );
    expect(
        "CmoWaitBarrier NULL",
        rt.cmo_wait_barrier(None, n, 0),
        INVALID_PARAM,
    );
    expect(
        "CmoWaitBarrier count 0",
        rt.cmo_wait_barrier(Some(&barrier_info(&[])), n, 0),
        INVALID_PARAM,
    );
    let mut seven = barrier_info(&[(cmo_type::INVALID, 1)]);
    seven.barrier_num = 7;
    expect(
        "CmoWaitBarrier count 7",
        rt.cmo_wait_barrier(Some(&seven), n, 0),
        INVALID_PARAM,
    );
    expect(
        "CmoWaitBarrier entry type PREFETCH (before the gate)",
        rt.cmo_wait_barrier(Some(&barrier_info(&[(cmo_type::PREFETCH, 1)])), n, 0),
        RT_PARAM,
    );
    expect(
        "CmoWaitBarrier entry id 0 (before the gate)",
        rt.cmo_wait_barrier(Some(&barrier_info(&[(cmo_type::INVALID, 0)])), n, 0),
        RT_PARAM,
    );
    expect(
        "CmoWaitBarrier valid on a plain stream",
        rt.cmo_wait_barrier(Some(&barrier_info(&[(cmo_type::INVALID, 1)])), s, 0),
        gate(RT_INTERNAL),
    );
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    Ok(())
}

fn cmo_desc_validation(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let chip = rt.chip().clone();
    let cmo = chip.features.task_cmo;
    let with_desc = chip.cmo.desc_size != 0;
    let buf = malloc(rt, 4096);
    let desc = malloc(rt, 128);
    expect(
        "CmoGetDescSize NULL",
        rt.cmo_get_desc_size(None),
        pick(cmo, RT_PARAM, NOT_SUPPORTED),
    );
    let mut size = 0usize;
    expect(
        "CmoGetDescSize",
        rt.cmo_get_desc_size(Some(&mut size)),
        pick(cmo, 0, NOT_SUPPORTED),
    );
    if cmo {
        assert_eq!(size, chip.cmo.desc_size as usize, "descriptor size");
    }
    expect(
        "CmoSetDesc desc NULL",
        rt.cmo_set_desc(Addr::NULL, buf, 64),
        pick(cmo, RT_PARAM, NOT_SUPPORTED),
    );
    expect(
        "CmoSetDesc src NULL",
        rt.cmo_set_desc(desc, Addr::NULL, 64),
        pick(cmo, RT_PARAM, NOT_SUPPORTED),
    );
    expect(
        "CmoSetDesc size 0",
        rt.cmo_set_desc(desc, buf, 0),
        pick(cmo, RT_PARAM, NOT_SUPPORTED),
    );
    expect(
        "CmoAsyncWithDesc reserve not NULL (any chip)",
        rt.cmo_async_with_desc(desc, cmo_type::PREFETCH, RawStream::NULL, Addr(8)),
        RT_PARAM,
    );
    expect(
        "CmoAsyncWithDesc desc NULL",
        rt.cmo_async_with_desc(Addr::NULL, cmo_type::PREFETCH, RawStream::NULL, Addr::NULL),
        pick(with_desc, RT_PARAM, NOT_SUPPORTED),
    );
    expect(
        "CmoAsyncWithDesc cmoType 4",
        rt.cmo_async_with_desc(desc, 4, RawStream::NULL, Addr::NULL),
        pick(with_desc, RT_PARAM, NOT_SUPPORTED),
    );
    expect(
        "CmoAsyncWithDesc on the NULL stream",
        rt.cmo_async_with_desc(desc, cmo_type::PREFETCH, RawStream::NULL, Addr::NULL),
        pick(with_desc, RT_INTERNAL, NOT_SUPPORTED),
    );
    Ok(())
}

fn supporting_api_validation(rt: &Runtime) -> CaseResult {
    // Before any device: no context on this thread.
    let mut dev = -1;
    expect(
        "GetDevice without a device",
        rt.get_device(Some(&mut dev)),
        NO_CONTEXT,
    );
    let mut count = 0u32;
    rt.get_device_count(Some(&mut count))
        .expect("aclrtGetDeviceCount");
    assert!(count >= 1, "at least one device");
    expect("SetDevice -1", rt.set_device(-1), BAD_DEVICE);
    expect("SetDevice count", rt.set_device(count as i32), BAD_DEVICE);
    let _d = Dev::open(rt);
    expect("GetDevice", rt.get_device(Some(&mut dev)), 0);
    assert_eq!(dev, 0);
    if count > 1 {
        expect(
            "ResetDevice of a device not set",
            rt.reset_device(1),
            507_007,
        );
    }
    expect(
        "Malloc devPtr NULL",
        rt.malloc(None, 64, malloc_policy::HUGE_FIRST),
        INVALID_PARAM,
    );
    let mut a = Addr::NULL;
    expect(
        "Malloc size 0",
        rt.malloc(Some(&mut a), 0, malloc_policy::HUGE_FIRST),
        INVALID_PARAM,
    );
    let buf = malloc(rt, 64);
    let mut host = [0u8; 64];
    expect(
        "Memcpy count 0 (before any check)",
        rt.memcpy(MemDst::Addr(Addr::NULL), 0, MemSrc::Addr(Addr::NULL), 0, 99),
        0,
    );
    expect(
        "Memcpy kind 7",
        rt.memcpy(MemDst::Host(&mut host), 64, MemSrc::Addr(buf), 64, 7),
        INVALID_PARAM,
    );
    expect(
        "Memcpy count > destMax",
        rt.memcpy(
            MemDst::Host(&mut host),
            8,
            MemSrc::Addr(buf),
            16,
            memcpy_kind::DEVICE_TO_HOST,
        ),
        RT_PARAM,
    );
    expect(
        "Memset devPtr NULL",
        rt.memset(Addr::NULL, 8, 0, 8),
        INVALID_PARAM,
    );
    expect("CreateStream NULL", rt.create_stream(None), INVALID_PARAM);
    expect(
        "DestroyStream NULL",
        rt.destroy_stream(RawStream::NULL),
        INVALID_PARAM,
    );
    expect(
        "SynchronizeStreamWithTimeout -2",
        rt.synchronize_stream_with_timeout(RawStream::NULL, -2),
        RT_PARAM,
    );
    expect("CreateEvent NULL", rt.create_event(None), INVALID_PARAM);
    expect(
        "RecordEvent NULL",
        rt.record_event(RawEvent::default(), RawStream::NULL),
        INVALID_PARAM,
    );
    let mut m = RawModel::default();
    expect(
        "mdlRIBuildBegin NULL",
        rt.mdl_ri_build_begin(None, 0),
        INVALID_PARAM,
    );
    expect(
        "mdlRIBuildBegin flag 1",
        rt.mdl_ri_build_begin(Some(&mut m), 1),
        RT_PARAM,
    );
    rt.mdl_ri_build_begin(Some(&mut m), 0)
        .expect("aclmdlRIBuildBegin");
    let plain = stream(rt);
    expect(
        "mdlRIBindStream flag 5",
        rt.mdl_ri_bind_stream(m, plain, 5),
        RT_PARAM,
    );
    expect(
        "mdlRIBindStream non-persistent stream",
        rt.mdl_ri_bind_stream(m, plain, 0),
        RT_PARAM,
    );
    let p = persistent_stream(rt);
    rt.mdl_ri_bind_stream(m, p, 0).expect("bind");
    let mut m2 = RawModel::default();
    rt.mdl_ri_build_begin(Some(&mut m2), 0)
        .expect("aclmdlRIBuildBegin");
    expect(
        "mdlRIBindStream stream bound to another model",
        rt.mdl_ri_bind_stream(m2, p, 0),
        STREAM_MODEL,
    );
    expect(
        "mdlRIBuildEnd reserve not NULL",
        rt.mdl_ri_build_end(m, Some(1)),
        INVALID_PARAM,
    );
    drop_model(rt, m, p);
    rt.mdl_ri_destroy(m2).expect("aclmdlRIDestroy");
    rt.destroy_stream(plain).expect("aclrtDestroyStream");
    // A task API on a thread with no current context.
    let f = rt.chip().features;
    std::thread::scope(|sc| {
        sc.spawn(|| {
            expect(
                "ValueWrite on a thread without a context",
                rt.value_write(buf, 1, 0, RawStream::NULL),
                pick(f.task_value_wait, NO_CONTEXT, NOT_SUPPORTED),
            );
            expect(
                "MemsetAsync on a thread without a context",
                rt.memset_async(buf, 64, 0, 64, RawStream::NULL),
                NO_CONTEXT,
            );
        })
        .join()
        .expect("thread");
    });
    Ok(())
}

// ----- behaviour -----

/// One compare mode: the initial word, the operand, and a value that releases the wait.
struct Mode {
    name: &'static str,
    flag: u32,
    satisfied: u64,
    unsatisfied: u64,
    operand: u64,
    release: u64,
}

const MODES: &[Mode] = &[
    Mode {
        name: "GEQ",
        flag: wait_flag::GEQ,
        satisfied: 5,
        unsatisfied: 3,
        operand: 5,
        release: 7,
    },
    Mode {
        name: "EQ",
        flag: wait_flag::EQ,
        satisfied: 9,
        unsatisfied: 1,
        operand: 9,
        release: 9,
    },
    Mode {
        name: "AND",
        flag: wait_flag::AND,
        satisfied: 0b0110,
        unsatisfied: 0b1000,
        operand: 0b0011,
        release: 0b0001,
    },
    Mode {
        name: "NOR",
        flag: wait_flag::NOR,
        satisfied: 0,
        unsatisfied: u64::MAX,
        operand: 0,
        release: 0,
    },
];

fn compare_modes(rt: &Runtime) -> CaseResult {
    if !rt.chip().features.task_value_wait {
        return Err(format!("{} has no stream value wait", rt.chip().soc_name));
    }
    let _d = Dev::open(rt);
    let word = malloc(rt, 8);
    let marker = malloc(rt, 8);
    let (a, b) = (stream(rt), stream(rt));
    for m in MODES {
        // Satisfied at once.
        write_u64(rt, word, m.satisfied);
        write_u64(rt, marker, 0);
        rt.value_wait(word, m.operand, m.flag, a)
            .expect("aclrtValueWait");
        rt.value_write(marker, 1, 0, a).expect("aclrtValueWrite");
        rt.synchronize_stream(a).expect("sync a");
        assert_eq!(read_u64(rt, marker), 1, "{}: satisfied wait passed", m.name);
        // Unsatisfied until another stream writes.
        write_u64(rt, word, m.unsatisfied);
        write_u64(rt, marker, 0);
        rt.value_wait(word, m.operand, m.flag, a)
            .expect("aclrtValueWait");
        rt.value_write(marker, 2, 0, a).expect("aclrtValueWrite");
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(
            query(rt, a),
            stream_status::NOT_READY,
            "{}: an unsatisfied wait holds its stream",
            m.name
        );
        assert_eq!(
            read_u64(rt, marker),
            0,
            "{}: nothing after the wait ran",
            m.name
        );
        rt.value_write(word, m.release, 0, b)
            .expect("aclrtValueWrite");
        rt.synchronize_stream(b).expect("sync b");
        rt.synchronize_stream(a).expect("sync a");
        assert_eq!(read_u64(rt, marker), 2, "{}: released by stream b", m.name);
        assert_eq!(query(rt, a), stream_status::COMPLETE, "{}", m.name);
    }
    rt.destroy_stream(a).expect("destroy");
    rt.destroy_stream(b).expect("destroy");
    Ok(())
}

fn wait_released_by_host_thread(rt: &Runtime) -> CaseResult {
    if !rt.chip().features.task_value_wait {
        return Err(format!("{} has no stream value wait", rt.chip().soc_name));
    }
    let _d = Dev::open(rt);
    let word = malloc(rt, 8);
    let marker = malloc(rt, 8);
    let a = stream(rt);
    rt.value_wait(word, 7, wait_flag::EQ, a)
        .expect("aclrtValueWait");
    rt.value_write(marker, 3, 0, a).expect("aclrtValueWrite");
    std::thread::scope(|sc| {
        let writer = sc.spawn(|| {
            rt.set_device(0)
                .expect("aclrtSetDevice on the writer thread");
            std::thread::sleep(Duration::from_millis(20));
            let mut s = RawStream::NULL;
            rt.create_stream(Some(&mut s)).expect("aclrtCreateStream");
            rt.value_write(word, 7, 0, s).expect("aclrtValueWrite");
            rt.synchronize_stream(s).expect("sync");
            rt.destroy_stream(s).expect("destroy");
            rt.reset_device(0)
                .expect("aclrtResetDevice on the writer thread");
        });
        rt.synchronize_stream(a)
            .expect("the wait is released by the other thread");
        writer.join().expect("writer thread");
    });
    assert_eq!(read_u64(rt, marker), 3, "the task after the wait ran");
    rt.destroy_stream(a).expect("destroy");
    Ok(())
}

fn event_ordering(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let (a, b) = (stream(rt), stream(rt));
    let mut e = RawEvent::default();
    let mut start = RawEvent::default();
    rt.create_event(Some(&mut e)).expect("aclrtCreateEvent");
    rt.create_event(Some(&mut start)).expect("aclrtCreateEvent");
    // Plain ordering (every chip): a fill on a, an event, a copy on b after the event.
    let src = malloc(rt, 256);
    let dst = malloc(rt, 256);
    rt.record_event(start, a).expect("aclrtRecordEvent");
    rt.memset_async(src, 256, 0x5A, 256, a)
        .expect("aclrtMemsetAsync");
    rt.record_event(e, a).expect("aclrtRecordEvent");
    rt.stream_wait_event(b, e).expect("aclrtStreamWaitEvent");
    rt.memcpy_async(
        MemDst::Addr(dst),
        256,
        MemSrc::Addr(src),
        256,
        memcpy_kind::DEVICE_TO_DEVICE,
        b,
    )
    .expect("aclrtMemcpyAsync");
    rt.synchronize_stream(b).expect("sync b");
    let mut out = [0u8; 256];
    rt.memcpy(
        MemDst::Host(&mut out),
        256,
        MemSrc::Addr(dst),
        256,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .expect("D2H");
    assert!(
        out.iter().all(|&x| x == 0x5A),
        "b's copy ran after a's fill"
    );
    rt.synchronize_event(e).expect("aclrtSynchronizeEvent");
    let mut status = 9;
    rt.query_event_status(e, Some(&mut status)).expect("query");
    assert_eq!(status, event_recorded_status::COMPLETE);
    let mut ms = -1.0f32;
    rt.event_elapsed_time(Some(&mut ms), start, e)
        .expect("aclrtEventElapsedTime");
    assert!(ms >= 0.0, "elapsed time {ms} ms");
    // Held back (chips with value wait): the event waits behind a blocked stream.
    if rt.chip().features.task_value_wait {
        let word = malloc(rt, 8);
        let marker = malloc(rt, 8);
        rt.value_wait(word, 1, wait_flag::EQ, a)
            .expect("aclrtValueWait");
        rt.record_event(e, a).expect("aclrtRecordEvent");
        rt.stream_wait_event(b, e).expect("aclrtStreamWaitEvent");
        rt.value_write(marker, 2, 0, b).expect("aclrtValueWrite");
        std::thread::sleep(Duration::from_millis(5));
        rt.query_event_status(e, Some(&mut status)).expect("query");
        assert_eq!(
            status,
            event_recorded_status::NOT_READY,
            "the record waits behind the value wait"
        );
        assert_eq!(
            query(rt, b),
            stream_status::NOT_READY,
            "b waits for the event"
        );
        assert_eq!(read_u64(rt, marker), 0, "b's write waits for the event");
        rt.value_write(word, 1, 0, RawStream::NULL)
            .expect("release");
        rt.synchronize_stream(b).expect("sync b");
        assert_eq!(read_u64(rt, marker), 2, "b ran after the event");
        rt.query_event_status(e, Some(&mut status)).expect("query");
        assert_eq!(status, event_recorded_status::COMPLETE);
    }
    rt.destroy_event(e).expect("destroy event");
    rt.destroy_event(start).expect("destroy event");
    rt.destroy_stream(a).expect("destroy");
    rt.destroy_stream(b).expect("destroy");
    Ok(())
}

fn model_execution_repeatable(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let value = rt.chip().features.task_value_wait;
    let src = malloc(rt, 256);
    let dst = malloc(rt, 256);
    let flag = malloc(rt, 8);
    let (m, s) = model_with_stream(rt);
    rt.memset_async(src, 256, 0xAB, 256, s)
        .expect("aclrtMemsetAsync");
    rt.memcpy_async(
        MemDst::Addr(dst),
        256,
        MemSrc::Addr(src),
        256,
        memcpy_kind::DEVICE_TO_DEVICE,
        s,
    )
    .expect("aclrtMemcpyAsync");
    if value {
        rt.value_write(flag, 42, 0, s).expect("aclrtValueWrite");
    }
    finish_model(rt, m, s);
    let mut out = [0u8; 256];
    let read = |out: &mut [u8; 256]| {
        rt.memcpy(
            MemDst::Host(out),
            256,
            MemSrc::Addr(dst),
            256,
            memcpy_kind::DEVICE_TO_HOST,
        )
        .expect("D2H")
    };
    read(&mut out);
    assert!(
        out.iter().all(|&x| x == 0),
        "recorded tasks did not run yet"
    );
    for run in 0..3 {
        rt.memset(src, 256, 0, 256).expect("clear");
        rt.memset(dst, 256, 0, 256).expect("clear");
        write_u64(rt, flag, 0);
        rt.mdl_ri_execute(m, -1).expect("aclmdlRIExecute");
        read(&mut out);
        assert!(out.iter().all(|&x| x == 0xAB), "run {run}: the copy ran");
        if value {
            assert_eq!(read_u64(rt, flag), 42, "run {run}: the value write ran");
        }
    }
    if rt.chip().features.model_execute_async {
        rt.memset(dst, 256, 0, 256).expect("clear");
        let q = stream(rt);
        rt.mdl_ri_execute_async(m, q).expect("aclmdlRIExecuteAsync");
        rt.synchronize_stream(q).expect("sync");
        read(&mut out);
        assert!(out.iter().all(|&x| x == 0xAB), "async run: the copy ran");
        rt.destroy_stream(q).expect("destroy");
    }
    drop_model(rt, m, s);
    Ok(())
}

fn barrier_cmo_on_model_stream(rt: &Runtime) -> CaseResult {
    let f = rt.chip().features;
    if !f.task_async_cmo {
        return Err(format!(
            "{} has no barrier CMO (RT_FEATURE_TASK_ASYNC_CMO; Atlas 200I/500 A2 only)",
            rt.chip().soc_name
        ));
    }
    let _d = Dev::open(rt);
    let buf = malloc(rt, 8192);
    // cann-api-facts §8, steps 2-8.
    let (m, s) = model_with_stream(rt);
    expect(
        "CmoAsyncWithBarrier INVALID id 1",
        rt.cmo_async_with_barrier(buf, 4096, cmo_type::INVALID, 1, s),
        0,
    );
    expect(
        "CmoAsyncWithBarrier INVALID id 2",
        rt.cmo_async_with_barrier(buf.offset(4096), 4096, cmo_type::INVALID, 2, s),
        0,
    );
    expect(
        "CmoAsyncWithBarrier PREFETCH id 0",
        rt.cmo_async_with_barrier(buf, 4096, cmo_type::PREFETCH, 0, s),
        0,
    );
    if f.model_cmo_barrier {
        expect(
            "CmoWaitBarrier id unknown to the model",
            rt.cmo_wait_barrier(Some(&barrier_info(&[(cmo_type::INVALID, 3)])), s, 0),
            STREAM_MODEL,
        );
    }
    expect(
        "CmoWaitBarrier ids 1 and 2",
        rt.cmo_wait_barrier(
            Some(&barrier_info(&[
                (cmo_type::INVALID, 1),
                (cmo_type::INVALID, 2),
            ])),
            s,
            0,
        ),
        0,
    );
    finish_model(rt, m, s);
    for _ in 0..2 {
        rt.mdl_ri_execute(m, -1).expect("aclmdlRIExecute");
    }
    // A second model does not know the first one's ids.
    if f.model_cmo_barrier {
        let (m2, s2) = model_with_stream(rt);
        expect(
            "CmoWaitBarrier id of another model",
            rt.cmo_wait_barrier(Some(&barrier_info(&[(cmo_type::INVALID, 1)])), s2, 0),
            STREAM_MODEL,
        );
        drop_model(rt, m2, s2);
    }
    drop_model(rt, m, s);
    Ok(())
}

fn desc_cmo_on_model_stream(rt: &Runtime) -> CaseResult {
    let chip = rt.chip().clone();
    if chip.cmo.desc_size == 0 || !chip.features.task_cmo {
        return Err(format!("{} has no CMO descriptors", chip.soc_name));
    }
    let _d = Dev::open(rt);
    let mut size = 0usize;
    rt.cmo_get_desc_size(Some(&mut size))
        .expect("aclrtCmoGetDescSize");
    let buf = malloc(rt, 8192);
    let desc = malloc(rt, size);
    rt.cmo_set_desc(desc, buf, 8192).expect("aclrtCmoSetDesc");
    let plain = stream(rt);
    expect(
        "CmoAsyncWithDesc on a plain stream",
        rt.cmo_async_with_desc(desc, cmo_type::PREFETCH, plain, Addr::NULL),
        RT_INTERNAL,
    );
    let (m, s) = model_with_stream(rt);
    expect(
        "CmoAsync on the model-bound stream",
        rt.cmo_async(buf, 64, cmo_type::PREFETCH, s),
        NOT_SUPPORTED,
    );
    for t in [cmo_type::PREFETCH, cmo_type::WRITEBACK] {
        expect(
            "CmoAsyncWithDesc on a model-bound stream",
            rt.cmo_async_with_desc(desc, t, s, Addr::NULL),
            0,
        );
    }
    finish_model(rt, m, s);
    for _ in 0..2 {
        rt.mdl_ri_execute(m, -1).expect("aclmdlRIExecute");
    }
    drop_model(rt, m, s);
    rt.destroy_stream(plain).expect("destroy");
    Ok(())
}

fn bad_handles(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let f = rt.chip().features;
    let buf = malloc(rt, 64);
    let s = stream(rt);
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    expect(
        "SynchronizeStream destroyed",
        rt.synchronize_stream(s),
        BAD_HANDLE,
    );
    let mut st = 0;
    expect(
        "StreamQuery destroyed",
        rt.stream_query(s, Some(&mut st)),
        BAD_HANDLE,
    );
    expect("DestroyStream twice", rt.destroy_stream(s), BAD_HANDLE);
    expect(
        "MemsetAsync on a destroyed stream",
        rt.memset_async(buf, 64, 0, 64, s),
        BAD_HANDLE,
    );
    expect(
        "SynchronizeStream garbage",
        rt.synchronize_stream(RawStream(0x1234_5678)),
        BAD_HANDLE,
    );
    expect(
        "ValueWait on a garbage stream",
        rt.value_wait(buf, 0, 0, RawStream(0x1234_5678)),
        pick(f.task_value_wait, BAD_HANDLE, NOT_SUPPORTED),
    );
    let mut e = RawEvent::default();
    rt.create_event(Some(&mut e)).expect("aclrtCreateEvent");
    rt.destroy_event(e).expect("aclrtDestroyEvent");
    expect(
        "RecordEvent destroyed",
        rt.record_event(e, RawStream::NULL),
        BAD_HANDLE,
    );
    expect(
        "SynchronizeEvent destroyed",
        rt.synchronize_event(e),
        BAD_HANDLE,
    );
    let mut m = RawModel::default();
    rt.mdl_ri_build_begin(Some(&mut m), 0)
        .expect("aclmdlRIBuildBegin");
    rt.mdl_ri_destroy(m).expect("aclmdlRIDestroy");
    expect(
        "mdlRIExecute destroyed",
        rt.mdl_ri_execute(m, -1),
        BAD_HANDLE,
    );
    let p = persistent_stream(rt);
    expect(
        "mdlRIBindStream destroyed model",
        rt.mdl_ri_bind_stream(m, p, 0),
        BAD_HANDLE,
    );
    rt.destroy_stream(p).expect("destroy");
    // A stream handle used as an event handle.
    let q = stream(rt);
    expect(
        "RecordEvent with a stream handle",
        rt.record_event(RawEvent(q.0), RawStream::NULL),
        BAD_HANDLE,
    );
    rt.destroy_stream(q).expect("destroy");
    Ok(())
}

fn host_buffer_copies(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let n = 512;
    let pattern: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
    let dev = malloc(rt, n);
    let (mut h1, mut h2) = (Addr::NULL, Addr::NULL);
    rt.malloc_host(Some(&mut h1), n).expect("aclrtMallocHost");
    rt.malloc_host(Some(&mut h2), n).expect("aclrtMallocHost");
    let b1 = rt.host_buffer(h1).expect("host buffer");
    let b2 = rt.host_buffer(h2).expect("host buffer");
    b1.write_at(0, &pattern);
    let s = stream(rt);
    // Pinned → device → pinned, asynchronously.
    rt.memcpy_async(
        MemDst::Addr(dev),
        n,
        MemSrc::Addr(h1),
        n,
        memcpy_kind::HOST_TO_DEVICE,
        s,
    )
    .expect("H2D async");
    rt.memcpy_async(
        MemDst::Addr(h2),
        n,
        MemSrc::Addr(dev),
        n,
        memcpy_kind::DEVICE_TO_HOST,
        s,
    )
    .expect("D2H async");
    rt.synchronize_stream(s).expect("sync");
    assert_eq!(b2.to_vec(), pattern, "pinned round trip");
    // Device → pageable, asynchronously (filled before the call returns).
    let mut page = vec![0u8; n];
    rt.memcpy_async(
        MemDst::Host(&mut page),
        n,
        MemSrc::Addr(dev),
        n,
        memcpy_kind::DEVICE_TO_HOST,
        s,
    )
    .expect("D2H async pageable");
    assert_eq!(page, pattern, "pageable destination");
    // A fill of pinned memory through a stream, then a synchronous copy back to the device.
    rt.memset_async(h2, n, 0x11, 64, s)
        .expect("aclrtMemsetAsync on pinned memory");
    rt.synchronize_stream(s).expect("sync");
    assert!(b2.to_vec()[..64].iter().all(|&x| x == 0x11), "pinned fill");
    rt.memcpy(
        MemDst::Addr(dev),
        n,
        MemSrc::Addr(h2),
        n,
        memcpy_kind::HOST_TO_DEVICE,
    )
    .expect("H2D sync from pinned");
    rt.memcpy(
        MemDst::Host(&mut page),
        n,
        MemSrc::Addr(dev),
        n,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .expect("D2H sync");
    assert_eq!(page, b2.to_vec(), "sync round trip");
    rt.destroy_stream(s).expect("destroy");
    rt.free_host(h1).expect("aclrtFreeHost");
    rt.free_host(h2).expect("aclrtFreeHost");
    Ok(())
}

// ----- contexts, notifies, event timestamps -----

/// Fills `len` bytes at `a` with `value` on `s`, then copies them to `b` on the same stream.
fn fill_and_copy(rt: &Runtime, a: Addr, b: Addr, len: usize, value: i32, s: RawStream) {
    rt.memset_async(a, len, value, len, s)
        .expect("aclrtMemsetAsync");
    rt.memcpy_async(
        MemDst::Addr(b),
        len,
        MemSrc::Addr(a),
        len,
        memcpy_kind::DEVICE_TO_DEVICE,
        s,
    )
    .expect("aclrtMemcpyAsync D2D");
}

fn read_bytes(rt: &Runtime, a: Addr, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rt.memcpy(
        MemDst::Host(&mut v),
        len,
        MemSrc::Addr(a),
        len,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .expect("aclrtMemcpy D2H");
    v
}

/// Work in an explicit context: its default stream and a stream created in it, with device
/// memory allocated while it is current. Leaves the context current.
fn use_context(rt: &Runtime, ctx: RawContext, value: i32) {
    let mut cur = RawContext::default();
    rt.get_current_context(Some(&mut cur))
        .expect("aclrtGetCurrentContext");
    assert_eq!(cur, ctx, "the created context is current");
    let mut ds = RawStream::NULL;
    rt.ctx_get_current_default_stream(Some(&mut ds))
        .expect("aclrtCtxGetCurrentDefaultStream");
    assert_ne!(ds, RawStream::NULL, "the context's default stream");
    let (a, b) = (malloc(rt, 256), malloc(rt, 256));
    fill_and_copy(rt, a, b, 256, value, RawStream::NULL);
    rt.synchronize_stream(RawStream::NULL)
        .expect("sync the context's default stream (NULL)");
    assert!(
        read_bytes(rt, b, 256).iter().all(|&x| x == value as u8),
        "copy on the context's default stream"
    );
    let s = stream(rt);
    fill_and_copy(rt, a, b, 256, value + 1, s);
    rt.synchronize_stream(s)
        .expect("sync a stream of the context");
    fill_and_copy(rt, b, a, 128, value + 2, ds);
    rt.synchronize_stream(ds)
        .expect("sync the context's default stream (handle)");
    let got = read_bytes(rt, a, 256);
    assert!(
        got[..128].iter().all(|&x| x == (value + 2) as u8)
            && got[128..].iter().all(|&x| x == (value + 1) as u8),
        "copies on a stream of the context"
    );
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    rt.free(a).expect("aclrtFree");
    rt.free(b).expect("aclrtFree");
}

fn explicit_contexts(rt: &Runtime) -> CaseResult {
    let mut count = 0u32;
    rt.get_device_count(Some(&mut count))
        .expect("aclrtGetDeviceCount");
    let mut c = RawContext::default();
    expect(
        "CreateContext NULL",
        rt.create_context(None, 0),
        INVALID_PARAM,
    );
    expect(
        "CreateContext device -1",
        rt.create_context(Some(&mut c), -1),
        BAD_DEVICE,
    );
    expect(
        "CreateContext device count",
        rt.create_context(Some(&mut c), count as i32),
        BAD_DEVICE,
    );
    // Without aclrtSetDevice: the context is the thread's only one.
    expect(
        "CreateContext before SetDevice",
        rt.create_context(Some(&mut c), 0),
        0,
    );
    use_context(rt, c, 0x21);
    expect("DestroyContext (no SetDevice)", rt.destroy_context(c), 0);
    expect(
        "GetCurrentContext after its destruction",
        rt.get_current_context(Some(&mut RawContext::default())),
        NO_CONTEXT,
    );
    expect(
        "CreateStream without a context",
        rt.create_stream(Some(&mut RawStream::default())),
        NO_CONTEXT,
    );
    // Next to the device's default context.
    let _d = Dev::open(rt);
    let mut primary = RawContext::default();
    rt.get_current_context(Some(&mut primary))
        .expect("aclrtGetCurrentContext");
    let in_primary = stream(rt);
    expect(
        "CreateContext after SetDevice",
        rt.create_context(Some(&mut c), 0),
        0,
    );
    use_context(rt, c, 0x31);
    let buf = malloc(rt, 64);
    expect(
        "MemsetAsync on a stream of another context",
        rt.memset_async(buf, 64, 0, 64, in_primary),
        STREAM_CONTEXT,
    );
    // Another thread with a context of its own while this one keeps `c`.
    std::thread::scope(|sc| {
        sc.spawn(|| {
            let mut c2 = RawContext::default();
            rt.create_context(Some(&mut c2), 0)
                .expect("aclrtCreateContext on another thread");
            use_context(rt, c2, 0x41);
            rt.destroy_context(c2)
                .expect("aclrtDestroyContext on another thread");
        })
        .join()
        .expect("thread");
    });
    let mut cur = RawContext::default();
    rt.get_current_context(Some(&mut cur))
        .expect("aclrtGetCurrentContext");
    assert_eq!(cur, c, "the other thread left this thread's context alone");
    rt.memset_async(buf, 64, 0x51, 64, RawStream::NULL)
        .expect("aclrtMemsetAsync in the context");
    rt.synchronize_stream(RawStream::NULL).expect("sync");
    assert!(read_bytes(rt, buf, 64).iter().all(|&x| x == 0x51));
    // Back to the default context: its streams work, the other context's default stream does
    // not belong to it.
    rt.set_current_context(primary)
        .expect("aclrtSetCurrentContext(primary)");
    rt.memset_async(buf, 64, 0x61, 64, in_primary)
        .expect("aclrtMemsetAsync in the default context");
    rt.synchronize_stream(in_primary).expect("sync");
    assert!(read_bytes(rt, buf, 64).iter().all(|&x| x == 0x61));
    expect(
        "DestroyContext of the default context",
        rt.destroy_context(primary),
        NO_CONTEXT,
    );
    expect(
        "DestroyContext NULL",
        rt.destroy_context(RawContext(0)),
        INVALID_PARAM,
    );
    expect("DestroyContext", rt.destroy_context(c), 0);
    expect("DestroyContext twice", rt.destroy_context(c), NO_CONTEXT);
    expect(
        "SetCurrentContext destroyed",
        rt.set_current_context(c),
        BAD_HANDLE,
    );
    rt.memset_async(buf, 64, 0x71, 64, RawStream::NULL)
        .expect("the default context still works");
    rt.synchronize_stream(RawStream::NULL).expect("sync");
    assert!(read_bytes(rt, buf, 64).iter().all(|&x| x == 0x71));
    rt.destroy_stream(in_primary).expect("aclrtDestroyStream");
    Ok(())
}

/// The per-device notify limit of the docs (`aclrtCreateNotify` constraints).
fn notify_limit(chip: &ascend_chips::ChipProfile) -> usize {
    use ascend_chips::ChipType;
    match chip.chip_type {
        ChipType::David | ChipType::Ascend350 => 65535,
        ChipType::Cloud910B93 => 8192,
        ChipType::MiniV3 => 2048,
        _ => 1024,
    }
}

fn notify(rt: &Runtime) -> RawNotify {
    let mut n = RawNotify::default();
    rt.create_notify(Some(&mut n), notify_flag::DEFAULT)
        .expect("aclrtCreateNotify");
    n
}

fn notify_record_and_wait(rt: &Runtime) -> CaseResult {
    let mut n = RawNotify::default();
    expect(
        "CreateNotify without a device",
        rt.create_notify(Some(&mut n), notify_flag::DEFAULT),
        NO_CONTEXT,
    );
    let _d = Dev::open(rt);
    expect(
        "CreateNotify NULL",
        rt.create_notify(None, notify_flag::DEFAULT),
        INVALID_PARAM,
    );
    expect(
        "CreateNotify flag 2",
        rt.create_notify(Some(&mut n), 2),
        RT_PARAM,
    );
    expect(
        "CreateNotify DEVICE_USE_ONLY",
        rt.create_notify(Some(&mut n), notify_flag::DEVICE_USE_ONLY),
        0,
    );
    rt.destroy_notify(n).expect("aclrtDestroyNotify");
    let n = notify(rt);
    let (a, b) = (stream(rt), stream(rt));
    let (src, dst) = (malloc(rt, 4096), malloc(rt, 4096));
    // a waits for b's record before its copy.
    expect(
        "WaitAndResetNotify forever",
        rt.wait_and_reset_notify(n, a, 0),
        0,
    );
    rt.memcpy_async(
        MemDst::Addr(dst),
        4096,
        MemSrc::Addr(src),
        4096,
        memcpy_kind::DEVICE_TO_DEVICE,
        a,
    )
    .expect("aclrtMemcpyAsync on the waiting stream");
    assert_eq!(
        query(rt, a),
        stream_status::NOT_READY,
        "a waits for the record"
    );
    rt.memset_async(src, 4096, 0x3C, 4096, b)
        .expect("aclrtMemsetAsync");
    expect("RecordNotify", rt.record_notify(n, b), 0);
    rt.synchronize_stream(a)
        .expect("the record releases the wait");
    assert!(
        read_bytes(rt, dst, 4096).iter().all(|&x| x == 0x3C),
        "the copy after the wait saw the fill before the record"
    );
    // The wait consumed the record: a wait nobody records times out, reported at synchronize.
    expect(
        "WaitAndResetNotify 1 s (enqueue)",
        rt.wait_and_reset_notify(n, a, 1),
        0,
    );
    expect(
        "SynchronizeStream after a notify wait timed out",
        rt.synchronize_stream(a),
        TASK_TIMEOUT,
    );
    rt.synchronize_stream(b).expect("sync b");
    // A record before the wait is kept until a wait consumes it (UINT32_MAX: plain wait).
    rt.record_notify(n, b).expect("aclrtRecordNotify");
    rt.synchronize_stream(b).expect("sync b");
    expect(
        "WaitAndResetNotify UINT32_MAX after the record",
        rt.wait_and_reset_notify(n, b, notify_timeout::PLAIN_WAIT),
        0,
    );
    rt.synchronize_stream(b)
        .expect("a recorded notify releases a later wait");
    rt.destroy_stream(a).expect("aclrtDestroyStream");
    rt.destroy_stream(b).expect("aclrtDestroyStream");
    expect("DestroyNotify", rt.destroy_notify(n), 0);
    expect("DestroyNotify twice", rt.destroy_notify(n), BAD_HANDLE);
    expect(
        "RecordNotify destroyed",
        rt.record_notify(n, RawStream::NULL),
        BAD_HANDLE,
    );
    // The per-device limit, where it is small enough to reach quickly.
    let limit = notify_limit(rt.chip());
    if limit <= 8192 {
        let mut made = Vec::with_capacity(limit);
        let mut last = 0;
        for _ in 0..=limit {
            let mut m = RawNotify::default();
            last = code(rt.create_notify(Some(&mut m), notify_flag::DEFAULT));
            if last != 0 {
                break;
            }
            made.push(m);
        }
        let count = made.len();
        for m in made {
            rt.destroy_notify(m).expect("aclrtDestroyNotify");
        }
        assert_eq!(count, limit, "notifies created before the limit");
        assert_eq!(last, NO_NOTIFY, "CreateNotify past the limit");
    }
    Ok(())
}

fn timestamp(rt: &Runtime, e: RawEvent) -> u64 {
    let mut t = 0u64;
    rt.event_get_timestamp(e, Some(&mut t))
        .expect("aclrtEventGetTimestamp");
    t
}

fn event_timestamps(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let mut e0 = RawEvent::default();
    rt.create_event(Some(&mut e0)).expect("aclrtCreateEvent");
    let mut e1 = RawEvent::default();
    rt.create_event_with_flag(Some(&mut e1), event_flag::TIME_LINE)
        .expect("aclrtCreateEventWithFlag(TIME_LINE)");
    let mut e2 = RawEvent::default();
    rt.create_event(Some(&mut e2)).expect("aclrtCreateEvent");
    let mut t = 0u64;
    expect(
        "EventGetTimestamp timestamp NULL",
        rt.event_get_timestamp(e0, None),
        INVALID_PARAM,
    );
    expect(
        "EventGetTimestamp never recorded",
        rt.event_get_timestamp(e0, Some(&mut t)),
        RT_INTERNAL,
    );
    let (s, other) = (stream(rt), stream(rt));
    let len = 16 << 20;
    let buf = malloc(rt, len);
    // A record held back by a notify wait has not executed.
    let n = notify(rt);
    rt.wait_and_reset_notify(n, s, 0)
        .expect("aclrtWaitAndResetNotify");
    rt.record_event(e0, s).expect("aclrtRecordEvent");
    expect(
        "EventGetTimestamp before the record executes",
        rt.event_get_timestamp(e0, Some(&mut t)),
        TIMESTAMP_NOT_READY,
    );
    rt.memset_async(buf, len, 1, len, s)
        .expect("aclrtMemsetAsync");
    rt.record_event(e1, s).expect("aclrtRecordEvent");
    rt.memset_async(buf, len, 2, len, s)
        .expect("aclrtMemsetAsync");
    rt.record_event(e2, s).expect("aclrtRecordEvent");
    rt.record_notify(n, other).expect("aclrtRecordNotify");
    rt.synchronize_event(e2).expect("aclrtSynchronizeEvent");
    let (t0, t1, t2) = (timestamp(rt, e0), timestamp(rt, e1), timestamp(rt, e2));
    assert!(
        t0 <= t1 && t1 <= t2 && t0 < t2,
        "timestamps increase along the stream: {t0}, {t1}, {t2}"
    );
    let mut ms = 0f32;
    rt.event_elapsed_time(Some(&mut ms), e0, e2)
        .expect("aclrtEventElapsedTime");
    let us = (t2 - t0) as f64;
    let elapsed_us = ms as f64 * 1000.0;
    assert!(
        (elapsed_us - us).abs() <= 2.0 + us * 0.01,
        "elapsed time {elapsed_us} µs agrees with the timestamps' {us} µs"
    );
    // Re-recording moves the timestamp on.
    rt.record_event(e0, s).expect("aclrtRecordEvent");
    rt.synchronize_stream(s).expect("sync");
    assert!(timestamp(rt, e0) >= t2, "a later record, a later timestamp");
    // External and IPC events have no timestamp; IPC events exist on some chips only.
    let mut x = RawEvent::default();
    rt.create_event_with_flag(Some(&mut x), event_flag::EXTERNAL)
        .expect("aclrtCreateEventWithFlag(EXTERNAL)");
    expect(
        "EventGetTimestamp of an external event",
        rt.event_get_timestamp(x, Some(&mut t)),
        NOT_SUPPORTED,
    );
    rt.destroy_event(x).expect("aclrtDestroyEvent");
    use ascend_chips::ChipType;
    let ipc = matches!(
        rt.chip().chip_type,
        ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350
    );
    let mut x = RawEvent::default();
    expect(
        "CreateEventExWithFlag(IPC)",
        rt.create_event_ex_with_flag(Some(&mut x), event_flag::IPC),
        pick(ipc, 0, NOT_SUPPORTED),
    );
    if ipc {
        expect(
            "EventGetTimestamp of an IPC event",
            rt.event_get_timestamp(x, Some(&mut t)),
            NOT_SUPPORTED,
        );
        rt.destroy_event(x).expect("aclrtDestroyEvent");
    }
    rt.destroy_notify(n).expect("aclrtDestroyNotify");
    for e in [e0, e1, e2] {
        rt.destroy_event(e).expect("aclrtDestroyEvent");
    }
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    rt.destroy_stream(other).expect("aclrtDestroyStream");
    Ok(())
}
