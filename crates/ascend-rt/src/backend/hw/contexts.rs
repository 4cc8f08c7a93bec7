//! Per-thread context switching: which library context an object or a device's new objects
//! belong to, and making it current on the calling thread (`aclrtSetCurrentContext`) before
//! a call that needs it.

use ascend_rt_sys::{self as sys, acl_fn};

use super::state::StreamInfo;
use super::HwBackend;
use super::RawHandle;
use crate::error::{AclError, AclResult, ErrorCode};

impl HwBackend {
    /// The library context new objects of `device` go to: the device's default context;
    /// while it has none, an explicit context of the device (the calling thread's current one
    /// if it is one of them, else the newest).
    fn device_ctx(&self, device: u32) -> AclResult<usize> {
        let mine: Vec<(usize, u64)> = {
            let st = self.state();
            if let Some(&ctx) = st.contexts.get(&device) {
                return Ok(ctx);
            }
            st.explicit
                .iter()
                .filter(|(_, e)| e.device == device)
                .map(|(c, e)| (*c, e.serial))
                .collect()
        };
        let current = self.current_ctx();
        if let Some(cur) = current.filter(|cur| mine.iter().any(|(c, _)| c == cur)) {
            return Ok(cur);
        }
        let newest = mine
            .iter()
            .max_by_key(|(_, serial)| *serial)
            .map(|(c, _)| *c);
        newest.ok_or_else(|| {
            AclError::new(
                ErrorCode::RtContextNull,
                None,
                format!("hw backend: device {device} is not open and has no context"),
            )
        })
    }

    /// The calling thread's current library context, if it has one.
    fn current_ctx(&self) -> Option<usize> {
        let get = acl_fn!(self.lib, aclrtGetCurrentContext).ok()?;
        let mut current: sys::aclrtContext = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        let rc = unsafe { get(&mut current) };
        (rc == 0 && !current.is_null()).then_some(current as usize)
    }

    /// Makes `ctx` current on the calling thread, if it is not already.
    pub(super) fn enter_ctx(&self, ctx: usize) -> AclResult<()> {
        if self.current_ctx() == Some(ctx) {
            return Ok(());
        }
        // SAFETY: the call only passes `ctx` by value; the library validates it. It was live
        // when looked up; if another thread reset the device meanwhile, the library rejects it.
        acl!(self, aclrtSetCurrentContext(ctx as sys::aclrtContext))
    }

    /// Makes the context new objects of `device` go to current on the calling thread and
    /// returns it.
    pub(super) fn enter(&self, device: u32) -> AclResult<usize> {
        let ctx = self.device_ctx(device)?;
        self.enter_ctx(ctx)?;
        Ok(ctx)
    }

    /// What the backend knows of a stream, or `ACL_ERROR_RT_INVALID_HANDLE`.
    fn stream_info(&self, stream: RawHandle) -> AclResult<StreamInfo> {
        self.state().streams.get(&stream).copied().ok_or_else(|| {
            AclError::new(
                ErrorCode::RtInvalidHandle,
                None,
                format!("hw backend: unknown stream {stream:#x}"),
            )
        })
    }

    /// Makes the stream's context current on the calling thread.
    pub(super) fn enter_stream(&self, stream: RawHandle) -> AclResult<StreamInfo> {
        let info = self.stream_info(stream)?;
        self.enter_ctx(info.ctx)?;
        Ok(info)
    }

    /// `ACL_ERROR_RT_INVALID_HANDLE` for a `kind` handle the backend does not know.
    pub(super) fn unknown(kind: &str, h: RawHandle) -> AclError {
        AclError::new(
            ErrorCode::RtInvalidHandle,
            None,
            format!("hw backend: unknown {kind} {h:#x}"),
        )
    }

    /// Makes the event's context current on the calling thread.
    pub(super) fn enter_event(&self, event: RawHandle) -> AclResult<()> {
        let ctx = self.state().events.get(&event).map(|e| e.ctx);
        self.enter_ctx(ctx.ok_or_else(|| Self::unknown("event", event))?)
    }

    /// Makes the model's context current on the calling thread.
    pub(super) fn enter_model(&self, model: RawHandle) -> AclResult<()> {
        let ctx = self.state().models.get(&model).map(|m| m.ctx);
        self.enter_ctx(ctx.ok_or_else(|| Self::unknown("model", model))?)
    }

    /// Makes the notify's context current on the calling thread.
    pub(super) fn enter_notify(&self, notify: RawHandle) -> AclResult<()> {
        let ctx = self.state().notifies.get(&notify).map(|n| n.ctx);
        self.enter_ctx(ctx.ok_or_else(|| Self::unknown("notify", notify))?)
    }

    /// Enters the context of the device owning `addr`, if it is device memory.
    pub(super) fn enter_addr(&self, addr: u64) -> AclResult<()> {
        let device = self.state().device_of_addr(addr);
        match device {
            Some(d) => self.enter(d).map(|_| ()),
            None => Ok(()),
        }
    }
}
