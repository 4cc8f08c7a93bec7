//! Helpers shared by the conformance tests: runtimes per SoC, buffers, streams of each kind,
//! and assertions on CANN codes and message codes.

#![allow(dead_code)]

use ascend_rt::raw_types::{malloc_policy, stream_flag, Addr, RawEvent, RawModel, RawStream};
use ascend_rt::{AclResult, MsgCode, Runtime};

/// Atlas A2 (CHIP_910_B_93): TASK_CMO, VALUE_WAIT, 32-byte descriptors.
pub const A2: &str = "Ascend910B1";
/// Atlas A3 (CHIP_910_B_93).
pub const A3: &str = "Ascend910_9391";
/// Ascend 950PR (CHIP_DAVID): TASK_CMO, VALUE_WAIT, 64-byte descriptors.
pub const DAVID: &str = "Ascend950PR_9599";
/// Ascend 950DT (CHIP_DAVID).
pub const DAVID_DT: &str = "Ascend950DT_9591";
/// 200I/500 A2 (CHIP_MINI_V3): TASK_ASYNC_CMO and MODEL_CMO_BARRIER only.
pub const MINI_V3: &str = "Ascend310B1";
/// Atlas inference 310P (CHIP_DC): none of the features.
pub const DC: &str = "Ascend310P3";
/// Atlas training 910 (CHIP_CLOUD): none of the features.
pub const CLOUD: &str = "Ascend910A";

/// Every built-in SoC.
pub const ALL_SOCS: [&str; 8] = [
    "Ascend910B1",
    "Ascend910B4",
    "Ascend910_9391",
    "Ascend950PR_9599",
    "Ascend950DT_9591",
    "Ascend310B1",
    "Ascend310P3",
    "Ascend910A",
];

/// A fresh runtime over the simulator of `soc` (no device set).
pub fn rt(soc: &str) -> Runtime {
    Runtime::sim(soc).unwrap_or_else(|e| panic!("Runtime::sim({soc}): {e}"))
}

/// A fresh runtime with device 0 set on the calling thread.
pub fn rt0(soc: &str) -> Runtime {
    let r = rt(soc);
    r.set_device(0).expect("aclrtSetDevice(0)");
    r
}

/// The code of a result: 0 for success.
pub fn code<T>(r: AclResult<T>) -> i32 {
    match r {
        Ok(_) => 0,
        Err(e) => e.code(),
    }
}

/// Asserts `r` failed with `code` and (when given) the message code; `None` for the message
/// asserts there is none.
#[track_caller]
pub fn assert_err<T: std::fmt::Debug>(r: AclResult<T>, code: i32, msg: Option<MsgCode>) {
    match r {
        Ok(v) => panic!("expected error {code} ({msg:?}), got Ok({v:?})"),
        Err(e) => {
            assert_eq!(e.code(), code, "code of {e}");
            assert_eq!(e.msg_code, msg, "message code of {e}");
        }
    }
}

/// Asserts `r` failed with `code`, whatever the message code.
#[track_caller]
pub fn assert_code<T: std::fmt::Debug>(r: AclResult<T>, code: i32) {
    match r {
        Ok(v) => panic!("expected error {code}, got Ok({v:?})"),
        Err(e) => assert_eq!(e.code(), code, "code of {e}"),
    }
}

/// Asserts success.
#[track_caller]
pub fn ok<T>(r: AclResult<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("expected success, got {e}"),
    }
}

/// `aclrtMalloc` of `size` bytes (HUGE_FIRST) on the current device.
#[track_caller]
pub fn malloc(r: &Runtime, size: usize) -> Addr {
    let mut a = Addr::NULL;
    ok(r.malloc(Some(&mut a), size, malloc_policy::HUGE_FIRST));
    assert!(!a.is_null());
    a
}

/// `aclrtMallocHost` of `size` bytes.
#[track_caller]
pub fn malloc_host(r: &Runtime, size: usize) -> Addr {
    let mut a = Addr::NULL;
    ok(r.malloc_host(Some(&mut a), size));
    a
}

/// A plain stream of the current context.
#[track_caller]
pub fn stream(r: &Runtime) -> RawStream {
    let mut s = RawStream::NULL;
    ok(r.create_stream(Some(&mut s)));
    assert_ne!(s, RawStream::NULL);
    s
}

/// A stream created with `flag`.
#[track_caller]
pub fn stream_with(r: &Runtime, flag: u32) -> RawStream {
    let mut s = RawStream::NULL;
    ok(r.create_stream_with_config(Some(&mut s), 0, flag));
    s
}

/// A persistent stream (not bound).
#[track_caller]
pub fn persistent(r: &Runtime) -> RawStream {
    stream_with(r, stream_flag::PERSISTENT)
}

/// A new model.
#[track_caller]
pub fn model(r: &Runtime) -> RawModel {
    let mut m = RawModel::default();
    ok(r.mdl_ri_build_begin(Some(&mut m), 0));
    m
}

/// A model and a persistent stream bound to it (flag HEAD).
#[track_caller]
pub fn bound(r: &Runtime) -> (RawModel, RawStream) {
    let m = model(r);
    let s = persistent(r);
    ok(r.mdl_ri_bind_stream(m, s, 0));
    (m, s)
}

/// A stream that was created and destroyed.
#[track_caller]
pub fn destroyed_stream(r: &Runtime) -> RawStream {
    let s = stream(r);
    ok(r.destroy_stream(s));
    s
}

/// A new event.
#[track_caller]
pub fn event(r: &Runtime) -> RawEvent {
    let mut e = RawEvent::default();
    ok(r.create_event(Some(&mut e)));
    e
}

/// A handle that was never given out.
pub const GARBAGE: RawStream = RawStream(0xdead);

/// A stream of device 1's default context, created on another thread (which set device 1).
/// The calling thread's current context is not changed.
#[track_caller]
pub fn other_ctx_stream(r: &Runtime) -> RawStream {
    std::thread::scope(|s| {
        s.spawn(|| {
            ok(r.set_device(1));
            stream(r)
        })
        .join()
        .unwrap()
    })
}

/// Runs `f` on a fresh thread that never called `aclrtSetDevice`.
pub fn on_fresh_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| s.spawn(f).join().unwrap())
}

/// An address that is in no allocation (neither device nor registered host memory).
pub const UNREGISTERED: Addr = Addr(0x1000);

/// The 8-byte little-endian value at device address `a`, by a synchronous copy.
pub fn read_u64(r: &Runtime, a: Addr) -> u64 {
    let mut h = [0u8; 8];
    ok(r.memcpy(
        ascend_rt::MemDst::Host(&mut h),
        8,
        ascend_rt::MemSrc::Addr(a),
        8,
        ascend_rt::raw_types::memcpy_kind::DEVICE_TO_HOST,
    ));
    u64::from_le_bytes(h)
}

/// `n` bytes at device (or page-locked) address `a`, by a synchronous copy.
#[allow(dead_code)]
#[track_caller]
pub fn read_bytes(r: &Runtime, a: Addr, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n];
    ok(r.memcpy(
        ascend_rt::MemDst::Host(&mut out),
        n,
        ascend_rt::MemSrc::Addr(a),
        n,
        ascend_rt::raw_types::memcpy_kind::DEVICE_TO_HOST,
    ));
    out
}

/// A new device service (on a socket of its own, named after `name` and this process) whose
/// simulator has `config`, and this process's runtime on its device 0.
pub fn on_new_service_with(name: &str, config: ascend_rt::sim::SimConfig) -> Runtime {
    let dir = std::env::temp_dir().join(format!("service-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("device.sock");
    let chip = ascend_chips::ChipProfile::builtin(A2).unwrap();
    ascend_rt::device_service::spawn(&path, chip, config).unwrap();
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(0).unwrap();
    rt
}

/// [`on_new_service_with`] the default configuration.
pub fn on_new_service(name: &str) -> Runtime {
    on_new_service_with(name, Default::default())
}
