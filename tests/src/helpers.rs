//! What the cases share: result-code checks, the device guard, small wrappers of the raw
//! calls the cases repeat, and the expected error codes.

use ascend_rt::raw_types::*;
use ascend_rt::{AclResult, MemDst, MemSrc, Runtime};

/// The code of a result: 0 for success.
pub(crate) fn code<T>(r: AclResult<T>) -> i32 {
    match r {
        Ok(_) => 0,
        Err(e) => e.code(),
    }
}

/// Checks a result's code, naming the row.
#[track_caller]
pub(crate) fn expect<T>(row: &str, r: AclResult<T>, want: i32) {
    let got = code(r);
    assert_eq!(got, want, "{row}: expected {want}, got {got}");
}

/// Device 0 set on the calling thread for the guard's life; reset when dropped (also when a
/// check fails), so a backend with process-wide state is left clean.
pub(crate) struct Dev<'a> {
    rt: &'a Runtime,
}

impl<'a> Dev<'a> {
    /// `aclrtSetDevice(0)`, reset when the guard drops.
    pub(crate) fn open(rt: &'a Runtime) -> Dev<'a> {
        rt.set_device(0).expect("aclrtSetDevice(0)");
        Dev { rt }
    }
}

impl Drop for Dev<'_> {
    fn drop(&mut self) {
        let _ = self.rt.reset_device_force(0);
    }
}

/// `size` bytes of zeroed device memory.
pub(crate) fn malloc(rt: &Runtime, size: usize) -> Addr {
    let mut a = Addr::NULL;
    rt.malloc(Some(&mut a), size, malloc_policy::HUGE_FIRST)
        .expect("aclrtMalloc");
    rt.memset(a, size, 0, size).expect("aclrtMemset");
    a
}

/// A new stream (`aclrtCreateStream`).
pub(crate) fn stream(rt: &Runtime) -> RawStream {
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).expect("aclrtCreateStream");
    s
}

/// A new persistent stream (model-bound work).
pub(crate) fn persistent_stream(rt: &Runtime) -> RawStream {
    let mut s = RawStream::NULL;
    rt.create_stream_with_config(Some(&mut s), 0, stream_flag::PERSISTENT)
        .expect("aclrtCreateStreamWithConfig(PERSISTENT)");
    s
}

/// The little-endian word at `a` (synchronous copy).
pub(crate) fn read_u64(rt: &Runtime, a: Addr) -> u64 {
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

/// Writes `v` little-endian at `a` (synchronous copy).
pub(crate) fn write_u64(rt: &Runtime, a: Addr, v: u64) {
    rt.memcpy(
        MemDst::Addr(a),
        8,
        MemSrc::Host(&v.to_le_bytes()),
        8,
        memcpy_kind::HOST_TO_DEVICE,
    )
    .expect("aclrtMemcpy H2D");
}

/// The stream's status (`aclrtStreamQuery`).
pub(crate) fn query(rt: &Runtime, s: RawStream) -> u32 {
    let mut st = 0;
    rt.stream_query(s, Some(&mut st)).expect("aclrtStreamQuery");
    st
}

/// A model with one persistent stream bound to it.
pub(crate) fn model_with_stream(rt: &Runtime) -> (RawModel, RawStream) {
    let mut m = RawModel::default();
    rt.mdl_ri_build_begin(Some(&mut m), 0)
        .expect("aclmdlRIBuildBegin");
    let s = persistent_stream(rt);
    rt.mdl_ri_bind_stream(m, s, model_stream_flag::HEAD)
        .expect("aclmdlRIBindStream");
    (m, s)
}

/// Ends the model's task list on `s` and finishes building it.
pub(crate) fn finish_model(rt: &Runtime, m: RawModel, s: RawStream) {
    rt.mdl_ri_end_task(m, s).expect("aclmdlRIEndTask");
    rt.mdl_ri_build_end(m, None).expect("aclmdlRIBuildEnd");
}

/// Unbinds and destroys the stream, then destroys the model.
pub(crate) fn drop_model(rt: &Runtime, m: RawModel, s: RawStream) {
    rt.mdl_ri_unbind_stream(m, s).expect("aclmdlRIUnbindStream");
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    rt.mdl_ri_destroy(m).expect("aclmdlRIDestroy");
}

/// `yes` when the feature is supported, else `no`.
pub(crate) fn pick(supported: bool, yes: i32, no: i32) -> i32 {
    if supported {
        yes
    } else {
        no
    }
}

/// `len` bytes at `a` (synchronous copy).
pub(crate) fn read_bytes(rt: &Runtime, a: Addr, len: usize) -> Vec<u8> {
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

/// A new notify (`aclrtCreateNotify`).
pub(crate) fn notify(rt: &Runtime) -> RawNotify {
    let mut n = RawNotify::default();
    rt.create_notify(Some(&mut n), notify_flag::DEFAULT)
        .expect("aclrtCreateNotify");
    n
}

/// `ACL_ERROR_INVALID_PARAM`.
pub(crate) const INVALID_PARAM: i32 = 100_000;
/// `ACL_ERROR_RT_PARAM_INVALID`.
pub(crate) const RT_PARAM: i32 = 107_000;
/// `ACL_ERROR_RT_INVALID_DEVICEID`.
pub(crate) const BAD_DEVICE: i32 = 107_001;
/// `ACL_ERROR_RT_CONTEXT_NULL`.
pub(crate) const NO_CONTEXT: i32 = 107_002;
/// `ACL_ERROR_RT_STREAM_CONTEXT`.
pub(crate) const STREAM_CONTEXT: i32 = 107_003;
/// `ACL_ERROR_RT_STREAM_MODEL`.
pub(crate) const STREAM_MODEL: i32 = 107_005;
/// `ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID`.
pub(crate) const TIMESTAMP_NOT_READY: i32 = 107_006;
/// `ACL_ERROR_RT_INVALID_HANDLE`.
pub(crate) const BAD_HANDLE: i32 = 107_017;
/// `ACL_ERROR_RT_TASK_TIMEOUT`.
pub(crate) const TASK_TIMEOUT: i32 = 107_020;
/// `ACL_ERROR_RT_NO_NOTIFY_RESOURCE`.
pub(crate) const NO_NOTIFY: i32 = 207_009;
/// `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`.
pub(crate) const NOT_SUPPORTED: i32 = 207_000;
/// `ACL_ERROR_RT_INTERNAL_ERROR`.
pub(crate) const RT_INTERNAL: i32 = 507_000;
