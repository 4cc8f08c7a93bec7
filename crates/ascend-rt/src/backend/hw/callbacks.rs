//! Host calls on a real device: `aclrtLaunchHostFunc` and `aclrtLaunchCallback` with a
//! trampoline that runs the front end's closure, and the report subscriptions and processing
//! passed through to the library, and the stream control calls (failure mode, abort, stop).

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use super::handles::raw_stream;
use super::{HwBackend, RawHandle};
use crate::backend::{BResult, HostCalls, StreamId};
use crate::backend::{HostCallThread, HostFn};

/// The calling thread's `pthread_t`, the id the library's report calls use.
pub(super) fn pthread_id() -> u64 {
    extern "C" {
        fn pthread_self() -> usize;
    }
    // SAFETY: pthread_self has no preconditions and cannot fail; pthread_t is an unsigned
    // integer of pointer width on the Linux targets the library exists for.
    (unsafe { pthread_self() }) as u64
}

/// What is logged when a host function panicked (the panic is caught before the library).
const PANICKED: &str = "a host function panicked; the panic stopped at the library's boundary";

/// The C function the library calls for a call on an ordinary stream: `args` is a
/// `Box<HostFn>` leaked at launch, taken back and run exactly once.
extern "C" fn trampoline_once(args: *mut c_void) {
    if args.is_null() {
        return;
    }
    // SAFETY: `args` is the pointer `Box::into_raw` gave at launch for a stream that runs each
    // task once, so the library passes it back once.
    let mut f = unsafe { Box::from_raw(args.cast::<HostFn>()) };
    if !crate::backend::host_calls::run_host_fn(&mut f) {
        tracing::error!("{PANICKED}");
    }
}

/// The C function the library calls for a call on a persistent stream, which a model may run
/// many times: `args` is the function of a [`KeptHostFn`], which the backend holds until the
/// library has destroyed the stream; the call takes a reference of its own while it runs, so
/// a function that destroys its own stream (or device) finishes on live memory.
extern "C" fn trampoline_kept(args: *mut c_void) {
    if args.is_null() {
        return;
    }
    let ptr = args.cast::<Mutex<HostFn>>().cast_const();
    // SAFETY: `ptr` is `Arc::as_ptr` of a `KeptHostFn` the backend still holds: it is
    // released only after the library destroyed the stream holding the task, so the count is
    // at least one here.
    unsafe { Arc::increment_strong_count(ptr) };
    // SAFETY: the reference counted just above, taken back as an owned `Arc`.
    let f = unsafe { Arc::from_raw(ptr) };
    match crate::backend::host_calls::run_kept_host_fn(&f) {
        Some(true) => {}
        Some(false) => tracing::error!("{PANICKED}"),
        None => tracing::error!(
            "a host function was reached again while it runs on this thread; this run is skipped"
        ),
    }
}

/// A host function launched on a persistent stream: the library may call it at every run of
/// the stream's model, so the backend holds it until the stream is destroyed.
pub(super) struct KeptHostFn(Arc<Mutex<HostFn>>);

impl std::fmt::Debug for KeptHostFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeptHostFn({:p})", Arc::as_ptr(&self.0))
    }
}

impl HwBackend {
    /// Frees the kept host functions of streams that are gone (after the library destroyed
    /// them), outside the lock: a function may own what calls back into the backend.
    pub(super) fn release_kept_host_fns(&self, streams: &[RawHandle]) {
        let kept: Vec<_> = {
            let mut st = self.state();
            streams
                .iter()
                .filter_map(|h| st.kept_host_fns.remove(h))
                .collect()
        };
        drop(kept);
    }
}

impl HostCalls for HwBackend {
    /// Launches `f` on the stream through the library.
    fn launch_host_call(
        &self,
        stream: StreamId,
        f: HostFn,
        thread: HostCallThread,
        blocking: bool,
    ) -> BResult<()> {
        let stream: RawHandle = stream.0;
        let info = self.enter_stream(stream)?;
        let s = raw_stream(stream);
        let (args, tramp, kept): (*mut c_void, extern "C" fn(*mut c_void), _) = if info.persistent {
            let kept = KeptHostFn(Arc::new(Mutex::new(f)));
            (
                Arc::as_ptr(&kept.0).cast_mut().cast(),
                trampoline_kept,
                Some(kept),
            )
        } else {
            (Box::into_raw(Box::new(f)).cast(), trampoline_once, None)
        };
        let rc = match thread {
            // SAFETY: a live stream (or NULL), a function of the right signature, and `args`,
            // which only the trampoline reads.
            HostCallThread::Runtime | HostCallThread::HostFuncs(_) => {
                acl!(self, aclrtLaunchHostFunc(s, Some(tramp), args))
            }
            // SAFETY: as above.
            HostCallThread::Reports(_) => acl!(
                self,
                aclrtLaunchCallback(Some(tramp), args, u32::from(blocking) as _, s)
            ),
        };
        match (rc.is_err(), kept) {
            // Refused: `kept` is dropped here, freeing the function.
            (true, Some(_)) => {}
            (true, None) => {
                // SAFETY: the library refused the launch, so it never calls the trampoline:
                // the box is still ours to free.
                drop(unsafe { Box::from_raw(args.cast::<HostFn>()) });
            }
            (false, Some(kept)) => self
                .state()
                .kept_host_fns
                .entry(stream)
                .or_default()
                .push(kept),
            (false, None) => {}
        }
        Ok(rc?)
    }

    /// `aclrtProcessReport(timeout)` on the calling thread; false on the library's report
    /// timeout.
    fn process_host_calls(
        &self,
        _thread: HostCallThread,
        timeout_ms: Option<u64>,
    ) -> BResult<bool> {
        let t = timeout_ms.map_or(-1, |ms| ms.min(i32::MAX as u64) as i32);
        match acl!(self, aclrtProcessReport(t)) {
            Ok(()) => Ok(true),
            Err(e) if e.code() == crate::error::ErrorCode::RtReportTimeout.number() => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// `aclrtSubscribeReport` / `aclrtUnSubscribeReport`.
    fn subscribe_reports(&self, thread: u64, stream: StreamId, subscribe: bool) -> BResult<()> {
        let stream: RawHandle = stream.0;
        self.enter_stream(stream)?;
        let s = raw_stream(stream);
        if subscribe {
            // SAFETY: a live stream handle (or NULL); the thread id is a plain number.
            Ok(acl!(self, aclrtSubscribeReport(thread, s))?)
        } else {
            // SAFETY: as above.
            Ok(acl!(self, aclrtUnSubscribeReport(thread, s))?)
        }
    }

    fn caller_thread_id(&self) -> u64 {
        pthread_id()
    }
}
