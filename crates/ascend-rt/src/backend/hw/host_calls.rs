//! Host calls on a real device: `aclrtLaunchHostFunc` and `aclrtLaunchCallback` with a
//! trampoline that runs the front end's closure, and the report subscriptions and processing
//! passed through to the library, and the stream control calls (failure mode, abort, stop).

use std::ffi::c_void;

use super::handles::raw_stream;
use super::{HwBackend, RawHandle};
use crate::backend::{HostCallThread, HostFn};
use crate::error::AclResult;

/// The C function the library calls: `args` is a `Box<HostFn>` leaked at launch, taken back
/// and run exactly once. A panic is caught here: it must not unwind into the library.
/// The calling thread's `pthread_t`, the id the library's report calls use.
pub(super) fn pthread_id() -> u64 {
    extern "C" {
        fn pthread_self() -> usize;
    }
    // SAFETY: pthread_self has no preconditions and cannot fail; pthread_t is an unsigned
    // integer of pointer width on the Linux targets the library exists for.
    (unsafe { pthread_self() }) as u64
}

extern "C" fn trampoline(args: *mut c_void) {
    if args.is_null() {
        return;
    }
    // SAFETY: `args` is the pointer `Box::into_raw` gave at launch, which the library passes
    // back once, as its documentation says of host functions and callbacks.
    let f = unsafe { Box::from_raw(args.cast::<HostFn>()) };
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(*f)).is_err() {
        tracing::error!("a host function panicked; the panic stopped at the library's boundary");
    }
}

impl HwBackend {
    /// Launches `f` on the stream through the library.
    pub(super) fn launch_host_call(
        &self,
        stream: RawHandle,
        f: HostFn,
        thread: HostCallThread,
        blocking: bool,
    ) -> AclResult<()> {
        self.enter_stream(stream)?;
        let s = raw_stream(stream);
        let args = Box::into_raw(Box::new(f)).cast::<c_void>();
        let rc = match thread {
            // SAFETY: a live stream (or NULL), a function of the right signature, and `args`,
            // which only the trampoline reads.
            HostCallThread::Runtime | HostCallThread::HostFuncs(_) => {
                acl!(self, aclrtLaunchHostFunc(s, Some(trampoline), args))
            }
            // SAFETY: as above.
            HostCallThread::Reports(_) => acl!(
                self,
                aclrtLaunchCallback(Some(trampoline), args, u32::from(blocking) as _, s)
            ),
        };
        if rc.is_err() {
            // SAFETY: the library refused the launch, so it never calls the trampoline: the
            // box is still ours to free.
            drop(unsafe { Box::from_raw(args.cast::<HostFn>()) });
        }
        rc
    }

    /// `aclrtProcessReport(timeout)` on the calling thread; false on the library's report
    /// timeout.
    pub(super) fn process_host_calls(&self, timeout_ms: Option<u64>) -> AclResult<bool> {
        let t = timeout_ms.map_or(-1, |ms| ms.min(i32::MAX as u64) as i32);
        match acl!(self, aclrtProcessReport(t)) {
            Ok(()) => Ok(true),
            Err(e) if e.code() == crate::error::ErrorCode::RtReportTimeout.number() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// `aclrtSubscribeReport` / `aclrtUnSubscribeReport`.
    pub(super) fn subscribe_reports(
        &self,
        thread: u64,
        stream: RawHandle,
        subscribe: bool,
    ) -> AclResult<()> {
        self.enter_stream(stream)?;
        let s = raw_stream(stream);
        if subscribe {
            // SAFETY: a live stream handle (or NULL); the thread id is a plain number.
            acl!(self, aclrtSubscribeReport(thread, s))
        } else {
            // SAFETY: as above.
            acl!(self, aclrtUnSubscribeReport(thread, s))
        }
    }
}

/// A control call on a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StreamControl {
    /// `aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE)`.
    StopOnFailure,
    /// `aclrtStreamAbort(stream)`.
    Abort,
    /// `aclrtStreamStop(stream)`.
    Stop,
}

impl HwBackend {
    /// Passes a stream control call to the library.
    pub(super) fn stream_control(&self, stream: RawHandle, what: StreamControl) -> AclResult<()> {
        self.enter_stream(stream)?;
        let s = raw_stream(stream);
        match what {
            // SAFETY: a live stream handle of the library, or NULL for the default stream.
            StreamControl::StopOnFailure => acl!(self, aclrtSetStreamFailureMode(s, 1)),
            // SAFETY: as above.
            StreamControl::Abort => acl!(self, aclrtStreamAbort(s)),
            // SAFETY: as above.
            StreamControl::Stop => acl!(self, aclrtStreamStop(s)),
        }
    }
}
