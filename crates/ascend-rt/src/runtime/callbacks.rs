//! Host functions, callbacks and exception information: `aclrtLaunchHostFunc`,
//! `aclrtSubscribeReport` / `aclrtLaunchCallback` / `aclrtProcessReport` /
//! `aclrtUnSubscribeReport`, `aclrtSubscribeHostFunc` / `aclrtProcessHostFunc` /
//! `aclrtUnSubscribeHostFunc`, `aclrtSetExceptionInfoCallback` and
//! `aclrtGetThreadLastTaskId` (the launch path, `launch.rs`, notes the calling thread's last
//! task here).
//!
//! Rows and semantics from the vendor's runtime (docs/validation/host-calls.md). A host
//! function runs on the runtime's own host thread when its stream reaches it, and the stream
//! waits for it; a callback runs inside `aclrtProcessReport` on the thread subscribed to its
//! stream. On the simulator the device clock stops at a due call until it has run, so the
//! timeline is the same however long the host takes.

use std::cell::Cell;
use std::sync::Arc;

use super::state::{StreamRec, Subscription};
use super::Runtime;
use crate::backend::{HostCallThread, HostFn};
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::callback_block;
use crate::raw_types::RawStream;

/// What the exception callback is told about a failed task (`aclrtExceptionInfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExceptionInfo {
    /// The failed task's id (as [`Runtime::get_thread_last_task_id`] reports ids).
    pub task_id: u32,
    /// The stream's id (as `aclrtStreamGetId` reports it), or `u32::MAX` when the stream is
    /// gone.
    pub stream_id: u32,
    /// The operating-system id of the thread that launched the task, or `u32::MAX` when not
    /// known.
    pub thread_id: u32,
    /// The device.
    pub device_id: u32,
    /// The failure's error code (what the stream's synchronize returns).
    pub error_code: u32,
}

/// The process's exception callback.
pub type ExceptionCallback = Arc<dyn Fn(&ExceptionInfo) + Send + Sync>;

/// Where the runtime keeps the exception callback; whether one is set is also a flag, so the
/// launch path asks without taking a lock.
#[derive(Default)]
pub(super) struct ExceptionSlot(
    std::sync::RwLock<Option<ExceptionCallback>>,
    std::sync::atomic::AtomicBool,
);

impl std::fmt::Debug for ExceptionSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ExceptionSlot(set: {})", self.get().is_some())
    }
}

impl ExceptionSlot {
    fn get(&self) -> Option<ExceptionCallback> {
        if !self.is_set() {
            return None;
        }
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn is_set(&self) -> bool {
        self.1.load(std::sync::atomic::Ordering::Acquire)
    }

    fn set(&self, cb: Option<ExceptionCallback>) {
        let mut slot = self.0.write().unwrap_or_else(|p| p.into_inner());
        self.1
            .store(cb.is_some(), std::sync::atomic::Ordering::Release);
        *slot = cb;
    }
}

thread_local! {
    /// The id of the last task the thread launched (`aclrtGetThreadLastTaskId`).
    static LAST_TASK: Cell<u32> = const { Cell::new(u32::MAX) };
}

/// Notes task `id` as the calling thread's last (`aclrtGetThreadLastTaskId`).
pub(super) fn note_last_task(id: u64) {
    LAST_TASK.with(|c| c.set(id as u32));
}

/// The operating-system id of the calling thread, from `/proc/thread-self` (Linux), if it can be
/// read.
pub(super) fn os_thread_id() -> Option<u32> {
    let link = std::fs::read_link("/proc/thread-self").ok()?;
    link.file_name()?.to_str()?.parse().ok()
}

/// A report thread's timeout argument: -1 waits forever, a positive value is milliseconds,
/// anything else is invalid.
fn report_timeout(timeout: i32) -> Option<Option<u64>> {
    match timeout {
        -1 => Some(None),
        t if t > 0 => Some(Some(t as u64)),
        _ => None,
    }
}

impl Runtime {
    /// True while an exception callback is registered (no lock taken).
    pub(super) fn exception_callback_set(&self) -> bool {
        self.exception_cb.is_set()
    }

    /// `aclrtGetThreadLastTaskId(&taskId)`: the id of the last task the calling thread
    /// launched, `0xFFFFFFFF` before any. Order: taskId NULL (100000, EH0008). On the simulator
    /// the id is the task's number in the run report and the trace.
    pub fn get_thread_last_task_id(&self, task_id: Option<&mut u32>) -> AclResult<()> {
        self.call(|| {
            let out =
                task_id.ok_or_else(|| fail::acl_null("aclrtGetThreadLastTaskId", "taskId"))?;
            *out = LAST_TASK.with(Cell::get);
            Ok(())
        })
    }

    /// `aclrtLaunchHostFunc(stream, fn, args)`: `f` runs on the runtime's host thread when the
    /// stream reaches it, and the stream waits for it. Order: the stream handle (107017); `f`
    /// missing (107000, EE1004); a stream subscribed for reports (107011, EE1016); no current
    /// context (107002); a stream of another context (107003). A stream subscribed with
    /// `aclrtSubscribeHostFunc` runs it on that thread instead.
    pub fn launch_host_func(&self, stream: RawStream, f: Option<HostFn>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtLaunchHostFunc";
            let (rec, thread) = {
                let mut st = self.lock();
                Self::check_stream_handle(&st, api, stream)?;
                let f_missing = f.is_none();
                if f_missing {
                    return Err(fail::rt_null(api, "fn"));
                }
                let resolved = Self::resolve_null_stream(&st, stream);
                if let Some(Subscription::Reports(_)) =
                    resolved.and_then(|h| st.streams.get(&h)?.subscription)
                {
                    return Err(subscribed_otherwise(api, "aclrtSubscribeReport"));
                }
                let (handle, rec) = Self::impl_stream(&st, api, stream)?;
                let live = st.streams.get_mut(&handle);
                let thread = match live {
                    Some(StreamRec {
                        hostfunc_thread: Some(t),
                        ..
                    }) => HostCallThread::HostFuncs(*t),
                    Some(r) => {
                        r.subscription = Some(Subscription::Runtime);
                        HostCallThread::Runtime
                    }
                    None => HostCallThread::Runtime,
                };
                (rec, thread)
            };
            self.launch_host_call(&rec, f.expect("checked above"), thread, true)
        })
    }

    /// Puts a host call on a stream as every task goes: refused while the stream's context
    /// has failed, recorded into the model while the stream captures, refused on a sealed
    /// model stream; the function is made coherent with registered memory.
    fn launch_host_call(
        &self,
        rec: &StreamRec,
        f: HostFn,
        thread: HostCallThread,
        blocking: bool,
    ) -> AclResult<()> {
        let target = self.launch_target(rec, "the host call's launch")?;
        if let (HostCallThread::Reports(t), true) = (thread, target != rec.backend) {
            self.subscribe_capture_stream(rec.backend, t)?;
        }
        let f = self.coherent_host_fn(f);
        self.backend
            .launch_host_call(target, f, thread, blocking)
            .map_err(AclError::from)
    }

    /// The calling thread's id as [`Runtime::subscribe_report`] and [`Runtime::process_report`]
    /// expect it: what a C program passes as `pthread_self()`. On the simulator, any number
    /// works; on a real runtime only a live thread's id does, so a portable program subscribes
    /// the id its report thread reads here.
    ///
    /// ```
    /// use ascend_rt::Runtime;
    /// let rt = Runtime::sim("Ascend910B1").unwrap();
    /// let me = rt.report_thread_id();
    /// assert_eq!(me, rt.report_thread_id());
    /// let other = std::thread::scope(|s| s.spawn(|| rt.report_thread_id()).join().unwrap());
    /// assert_ne!(me, other);
    /// ```
    pub fn report_thread_id(&self) -> u64 {
        self.backend.caller_thread_id()
    }

    /// `aclrtSubscribeReport(threadId, stream)`: the callbacks of `stream` run on thread
    /// `thread` when it calls `aclrtProcessReport`. Order: the stream handle (107017); a stream
    /// used by `aclrtLaunchHostFunc` (107011, EE1016); NULL without a context (107002); a
    /// stream already subscribed (107011, EE9999); the thread already processing reports for
    /// another device (107012, EE9999).
    pub fn subscribe_report(&self, thread: u64, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtSubscribeReport";
            let (backend, handle) = {
                let mut st = self.lock();
                Self::check_stream_handle(&st, api, stream)?;
                let resolved = Self::resolve_null_stream(&st, stream);
                if let Some(Subscription::Runtime) = resolved.and_then(|h| st.streams.get(&h)?.subscription) {
                    return Err(subscribed_otherwise(api, "aclrtLaunchHostFunc"));
                }
                let handle = resolved.ok_or_else(|| fail::no_context(api))?;
                let rec = st.streams[&handle].clone();
                if rec.subscription.is_some() {
                    return Err(AclError::new(
                        ErrorCode::RtStreamSubscribe,
                        Some(MsgCode::EE9999),
                        format!("{api} failed: stream {handle:#x} is already subscribed"),
                    ));
                }
                if let Some(&dev) = st.report_threads.get(&thread) {
                    if dev != rec.device {
                        return Err(AclError::new(
                            ErrorCode::RtThreadSubscribe,
                            Some(MsgCode::EE9999),
                            format!("{api} failed: thread {thread} already processes the reports of device {dev}, not device {}", rec.device),
                        ));
                    }
                }
                if let Some(r) = st.streams.get_mut(&handle) {
                    r.subscription = Some(Subscription::Reports(thread));
                }
                st.report_threads.insert(thread, rec.device);
                (rec.backend, handle)
            };
            if let Err(e) = self.backend.subscribe_reports(thread, backend, true) {
                let mut st = self.lock();
                if let Some(r) = st.stream_any_mut(handle) {
                    r.subscription = None;
                }
                st.forget_idle_report_thread(thread);
                return Err(e.into());
            }
            Ok(())
        })
    }

    /// `aclrtLaunchCallback(fn, userData, blockType, stream)`: `f` runs inside the subscribed
    /// thread's `aclrtProcessReport` when the stream reaches it; with `ACL_CALLBACK_BLOCK` the
    /// stream waits for it. Order: blockType not 0 or 1 (100000, EH0007); the stream handle
    /// (107017); `f` missing (107000, EE1004); a stream used by `aclrtLaunchHostFunc` (107011,
    /// EE1016); no current context (107002); a stream of another context (107003); a stream no
    /// thread is subscribed to (107015, EE1018).
    pub fn launch_callback(
        &self,
        f: Option<HostFn>,
        block_type: u32,
        stream: RawStream,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtLaunchCallback";
            if block_type > callback_block::BLOCK {
                return Err(fail::acl_range(api, "blockType", block_type, "0 or 1"));
            }
            let (rec, thread) = {
                let st = self.lock();
                Self::check_stream_handle(&st, api, stream)?;
                if f.is_none() {
                    return Err(fail::rt_null(api, "fn"));
                }
                let resolved = Self::resolve_null_stream(&st, stream);
                if let Some(Subscription::Runtime) = resolved.and_then(|h| st.streams.get(&h)?.subscription) {
                    return Err(subscribed_otherwise(api, "aclrtLaunchHostFunc"));
                }
                let (handle, rec) = Self::impl_stream(&st, api, stream)?;
                let Some(Subscription::Reports(t)) = rec.subscription else {
                    return Err(AclError::new(
                        ErrorCode::RtStreamNoCbReg,
                        Some(MsgCode::EE1018),
                        format!("{api} failed: stream {handle:#x} is not bound to any thread; call aclrtSubscribeReport first"),
                    ));
                };
                (rec, HostCallThread::Reports(t))
            };
            let blocking = block_type == callback_block::BLOCK;
            self.launch_host_call(&rec, f.expect("checked above"), thread, blocking)
        })
    }

    /// `aclrtProcessReport(timeout)` on thread `thread` (the caller's own id, as it subscribed
    /// it): runs the callbacks due for it, waiting up to `timeout` ms (-1: forever) for the
    /// first. Order: timeout 0 or below -1 (100000, EH0009); a thread subscribed to no stream
    /// (107012, without a message); nothing due in time (507012).
    pub fn process_report(&self, thread: u64, timeout: i32) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtProcessReport";
            let wait = report_timeout(timeout).ok_or_else(|| {
                AclError::new(
                    ErrorCode::InvalidParam,
                    Some(MsgCode::EH0009),
                    format!("{api} failed: timeout {timeout} must be -1 or greater than 0"),
                )
            })?;
            if !self.lock().report_threads.contains_key(&thread) {
                return Err(AclError::new(
                    ErrorCode::RtThreadSubscribe,
                    None,
                    format!(
                        "{api}: thread {thread} is subscribed to no stream (aclrtSubscribeReport)"
                    ),
                ));
            }
            self.process(api, HostCallThread::Reports(thread), wait)
        })
    }

    /// Runs the calls due for `thread`; 507012 when none came in time.
    fn process(&self, api: &str, thread: HostCallThread, wait: Option<u64>) -> AclResult<()> {
        let ran = self
            .backend
            .process_host_calls(thread, wait)
            .map_err(AclError::from)?;
        self.report_task_faults();
        if ran {
            Ok(())
        } else {
            Err(AclError::new(
                ErrorCode::RtReportTimeout,
                None,
                format!("{api}: nothing was reported within the timeout"),
            ))
        }
    }

    /// `aclrtUnSubscribeReport(threadId, stream)`. Order: the stream handle (107017); a stream
    /// used by `aclrtLaunchHostFunc` (107011, EE1016); NULL without a context (107002); a
    /// stream not subscribed (107011, EE9999); subscribed to another thread (107012, EE9999).
    pub fn unsubscribe_report(&self, thread: u64, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtUnSubscribeReport";
            let backend = {
                let mut st = self.lock();
                Self::check_stream_handle(&st, api, stream)?;
                let resolved = Self::resolve_null_stream(&st, stream);
                if let Some(Subscription::Runtime) = resolved.and_then(|h| st.streams.get(&h)?.subscription) {
                    return Err(subscribed_otherwise(api, "aclrtLaunchHostFunc"));
                }
                let handle = resolved.ok_or_else(|| fail::no_context(api))?;
                match st.streams[&handle].subscription {
                    Some(Subscription::Reports(t)) if t == thread => {}
                    Some(Subscription::Reports(t)) => {
                        return Err(AclError::new(
                            ErrorCode::RtThreadSubscribe,
                            Some(MsgCode::EE9999),
                            format!("{api} failed: stream {handle:#x} is subscribed to thread {t}, not {thread}"),
                        ))
                    }
                    _ => {
                        return Err(AclError::new(
                            ErrorCode::RtStreamSubscribe,
                            Some(MsgCode::EE9999),
                            format!("{api} failed: stream {handle:#x} is not subscribed"),
                        ))
                    }
                }
                let backend = match st.streams.get_mut(&handle) {
                    Some(r) => {
                        r.subscription = None;
                        r.backend
                    }
                    None => return Err(fail::invalid_handle(api, "stream", handle)),
                };
                st.forget_idle_report_thread(thread);
                backend
            };
            self.backend
                .subscribe_reports(thread, backend, false)
                .map_err(AclError::from)
        })
    }

    /// `aclrtSubscribeHostFunc(threadId, stream)` (the vendor's compact runtime): the host
    /// functions of `stream` run inside thread `thread`'s `aclrtProcessHostFunc`. Order: NULL
    /// stream (107000); the stream handle (107017); a stream that already has such a thread
    /// (107011).
    pub fn subscribe_host_func(&self, thread: u64, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtSubscribeHostFunc";
            if stream.0 == 0 {
                return Err(null_exe_stream(api));
            }
            let mut st = self.lock();
            Self::check_stream_handle(&st, api, stream)?;
            if st
                .stream_any(stream.0)
                .is_some_and(|r| r.hostfunc_thread.is_some())
            {
                return Err(fail::plain(
                    ErrorCode::RtStreamSubscribe,
                    format!(
                        "{api} failed: stream {:#x} already has a host-function thread",
                        stream.0
                    ),
                ));
            }
            if let Some(r) = st.streams.get_mut(&stream.0) {
                r.hostfunc_thread = Some(thread);
            }
            Ok(())
        })
    }

    /// `aclrtProcessHostFunc(timeout)` on thread `thread`: runs the host functions due for it.
    /// Order: timeout 0 or below -1 (107000); a thread subscribed to no stream (107012);
    /// nothing due in time (507012).
    pub fn process_host_func(&self, thread: u64, timeout: i32) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtProcessHostFunc";
            let wait = report_timeout(timeout).ok_or_else(|| {
                fail::plain(
                    ErrorCode::RtParamInvalid,
                    format!("{api} failed: timeout {timeout} must be -1 or greater than 0"),
                )
            })?;
            let serving = self
                .lock()
                .all_streams()
                .any(|r| r.hostfunc_thread == Some(thread));
            if !serving {
                return Err(fail::plain(
                    ErrorCode::RtThreadSubscribe,
                    format!("{api}: thread {thread} is subscribed to no stream (aclrtSubscribeHostFunc)"),
                ));
            }
            self.process(api, HostCallThread::HostFuncs(thread), wait)
        })
    }

    /// `aclrtUnSubscribeHostFunc(threadId, stream)`. Order: NULL stream (107000); a stream not
    /// subscribed to that thread (107011).
    pub fn unsubscribe_host_func(&self, thread: u64, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtUnSubscribeHostFunc";
            if stream.0 == 0 {
                return Err(null_exe_stream(api));
            }
            let mut st = self.lock();
            let rec = st.stream_any_mut(stream.0);
            let Some(rec) = rec.filter(|r| r.hostfunc_thread == Some(thread)) else {
                return Err(fail::plain(
                    ErrorCode::RtStreamSubscribe,
                    format!(
                        "{api} failed: stream {:#x} is not subscribed to thread {thread}",
                        stream.0
                    ),
                ));
            };
            rec.hostfunc_thread = None;
            Ok(())
        })
    }

    /// `aclrtSetExceptionInfoCallback(callback)`: `callback` (process-wide; `None` unregisters)
    /// is called for each task that fails, when the host learns of the failure (at a
    /// synchronize, or while processing reports). Never fails.
    pub fn set_exception_info_callback(
        &self,
        callback: Option<ExceptionCallback>,
    ) -> AclResult<()> {
        self.call(|| {
            if callback.is_some() {
                // Faults from before the registration are not this callback's.
                self.backend.take_task_faults();
            }
            self.exception_cb.set(callback);
            Ok(())
        })
    }

    /// Tells the exception callback, if one is registered, of the task faults the backend
    /// reported since the last time.
    pub(super) fn report_task_faults(&self) {
        let Some(cb) = self.exception_cb.get() else {
            return;
        };
        for fault in self.backend.take_task_faults() {
            let (stream_id, thread_id) = {
                let st = self.lock();
                let handle = st
                    .streams
                    .iter()
                    .find(|(_, r)| r.backend == fault.stream)
                    .map(|(h, _)| *h);
                let id = handle.map_or(u32::MAX, |h| {
                    (h & ((1 << super::state::KIND_SHIFT) - 1)) as u32
                });
                (
                    id,
                    st.launchers.get(&fault.stream).copied().unwrap_or(u32::MAX),
                )
            };
            cb(&ExceptionInfo {
                task_id: fault.task as u32,
                stream_id,
                thread_id,
                device_id: fault.device,
                error_code: super::backend_errors::kernel_fault_code(fault.kernel_core).number()
                    as u32,
            });
        }
    }

    /// The handle a stream argument names: itself, or for NULL the current context's default
    /// stream (`None` without a context).
    fn resolve_null_stream(st: &super::state::State, stream: RawStream) -> Option<u64> {
        if stream.0 != 0 {
            return Some(stream.0);
        }
        st.current_ctx(Self::thread())
            .map(|ctx| st.contexts[&ctx].default_stream)
    }
}

/// A stream subscribed by the other mechanism (107011, EE1016).
/// The host-function subscription calls refuse a NULL stream first (107000).
fn null_exe_stream(api: &str) -> AclError {
    fail::plain(
        ErrorCode::RtParamInvalid,
        format!("{api} failed: exeStream is NULL"),
    )
}

fn subscribed_otherwise(api: &str, by: &str) -> AclError {
    AclError::new(
        ErrorCode::RtStreamSubscribe,
        Some(MsgCode::EE1016),
        format!("{api} failed: the stream is already used by {by}; one stream takes host functions or subscribed callbacks, not both"),
    )
}
