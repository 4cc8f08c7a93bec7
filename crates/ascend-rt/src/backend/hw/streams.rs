//! Streams: creating and destroying them in the right context, launching onto them, and
//! synchronising or querying them (and whole devices), which is where the host observes
//! completion and finishes the pending host copies.

use ascend_rt_sys as sys;

use super::handles::{raw_stream, timeout_arg};
use super::state::StreamInfo;
use super::HwBackend;
use super::RawHandle;
use crate::backend::Task;
use crate::error::AclResult;

impl HwBackend {
    /// `aclrtCreateStreamWithConfig` in the context of the device's new objects.
    pub(super) fn create_stream(
        &self,
        device: u32,
        priority: u32,
        flags: u32,
    ) -> AclResult<RawHandle> {
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
        Ok(h)
    }

    /// `aclrtDestroyStream` (or `aclrtDestroyStreamForce`); finishes and drops the stream's
    /// pending host work.
    pub(super) fn destroy_stream(&self, stream: RawHandle, force: bool) -> AclResult<()> {
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

    /// Enqueues `task` on `stream` in the stream's context (see `tasks`).
    pub(super) fn launch(&self, stream: RawHandle, task: Task) -> AclResult<()> {
        let info = self.enter_stream(stream)?;
        self.launch_inner(stream, info, task)
    }

    /// `aclrtSynchronizeStream` (or its timeout form); then finishes the stream's pending
    /// host work.
    pub(super) fn synchronize_stream(
        &self,
        stream: RawHandle,
        timeout_ms: Option<u64>,
    ) -> AclResult<()> {
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
    pub(super) fn stream_idle(&self, stream: RawHandle) -> AclResult<bool> {
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

    /// `aclrtSynchronizeDevice`; then finishes the pending host work of the device's streams.
    pub(super) fn synchronize_device(
        &self,
        device: u32,
        _timeout_ms: Option<u64>,
    ) -> AclResult<()> {
        self.enter(device)?;
        acl!(self, aclrtSynchronizeDevice())?;
        let streams: Vec<RawHandle> = self
            .state()
            .streams
            .iter()
            .filter(|(_, s)| s.device == device)
            .map(|(h, _)| *h)
            .collect();
        self.finish(|p| streams.contains(&p.stream), false);
        Ok(())
    }
}
