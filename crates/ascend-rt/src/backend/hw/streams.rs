//! Streams: creating and destroying them in the right context, launching onto them, and
//! synchronising or querying them (and whole devices), which is where the host observes
//! completion and finishes the pending host copies.

use ascend_rt_sys as sys;

use super::handles::{raw_stream, timeout_arg};
use super::state::StreamInfo;
use super::HwBackend;
use super::RawHandle;
use crate::backend::Task;
use crate::backend::{BResult, StreamId, Streams, TaskFaultInfo};
use crate::error::AclResult;

impl Streams for HwBackend {
    /// `aclrtCreateStreamWithConfig` in the context of the device's new objects.
    fn create_stream(&self, device: u32, priority: u32, flags: u32) -> BResult<StreamId> {
        let ctx = self.enter(device)?;
        let mut s: sys::aclrtStream = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtCreateStreamWithConfig(&mut s, priority, flags))?;
        let h = s as usize as RawHandle;
        self.state().streams.insert(
            h,
            StreamInfo {
                device,
                ctx,
                persistent: flags & sys::ACL_STREAM_PERSISTENT as u32 != 0,
            },
        );
        Ok(StreamId(h))
    }

    /// `aclrtDestroyStream` (or `aclrtDestroyStreamForce`); finishes and drops the stream's
    /// pending host work.
    fn destroy_stream(&self, stream: StreamId, force: bool) -> BResult<()> {
        let stream: RawHandle = stream.0;
        self.enter_stream(stream)?;
        let s = raw_stream(stream);
        // SAFETY: a live stream handle of the library (front-end validated).
        if force {
            acl!(self, aclrtDestroyStreamForce(s))?;
        } else {
            acl!(self, aclrtDestroyStream(s))?;
        }
        self.state().streams.remove(&stream);
        self.release_kept_host_fns(&[stream]);
        self.finish(|p| p.stream == stream, true);
        Ok(())
    }

    /// Enqueues `task` on `stream` in the stream's context (see `tasks`); the library keeps
    /// its own task ids (`aclrtGetThreadLastTaskId`), so the answer is 0.
    fn launch(&self, stream: StreamId, task: Task) -> BResult<u64> {
        let info = self.enter_stream(stream.0)?;
        self.launch_inner(stream.0, info, task)?;
        Ok(0)
    }

    /// `aclrtSynchronizeStream` (or its timeout form); then finishes the stream's pending
    /// host work.
    fn synchronize_stream(&self, stream: StreamId, timeout_ms: Option<u64>) -> BResult<()> {
        let stream: RawHandle = stream.0;
        self.enter_stream(stream)?;
        let s = raw_stream(stream);
        // SAFETY: a live stream handle of the library, or NULL for the default stream.
        match timeout_ms {
            None => acl!(self, aclrtSynchronizeStream(s))?,
            Some(_) => acl!(
                self,
                aclrtSynchronizeStreamWithTimeout(s, timeout_arg(timeout_ms))
            )?,
        }
        self.finish(|p| p.stream == stream, false);
        Ok(())
    }

    /// `aclrtStreamQuery`; a complete stream's pending host work is finished.
    fn stream_idle(&self, stream: StreamId) -> BResult<bool> {
        let stream: RawHandle = stream.0;
        self.enter_stream(stream)?;
        let mut status: sys::aclrtStreamStatus = 0 as _;
        // SAFETY: a live stream handle (or NULL) and a live out-pointer.
        acl!(self, aclrtStreamQuery(raw_stream(stream), &mut status))?;
        let idle = status as u32 == sys::aclrtStreamStatus_ACL_STREAM_STATUS_COMPLETE as u32;
        if idle {
            self.finish(|p| p.stream == stream, false);
        }
        Ok(idle)
    }

    fn set_stop_on_failure(&self, stream: StreamId, named: bool) -> BResult<()> {
        // The library spreads the mode over the context itself: telling it about the other
        // streams would also name the default stream as NULL, which a chip without a control
        // queue refuses.
        if !named {
            return Ok(());
        }
        Ok(self.stream_control(stream.0, StreamControl::StopOnFailure)?)
    }

    fn abort_stream(&self, stream: StreamId) -> BResult<()> {
        Ok(self.stream_control(stream.0, StreamControl::Abort)?)
    }

    fn stop_stream(&self, stream: StreamId) -> BResult<()> {
        Ok(self.stream_control(stream.0, StreamControl::Stop)?)
    }

    fn take_task_faults(&self) -> Vec<TaskFaultInfo> {
        // The library calls the program's exception callback itself.
        Vec::new()
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
