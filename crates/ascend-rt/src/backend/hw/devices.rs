//! Devices and explicit contexts: opening and resetting a device (its default context), and
//! creating and destroying explicit contexts, with what the backend forgets when the library
//! releases them.

use ascend_rt_sys as sys;

use super::handles::{default_stream, CONTEXT_STREAM_TAG, TAG_MASK};
use super::state::{ExplicitCtx, StreamInfo};
use super::HwBackend;
use super::RawHandle;
use crate::error::{AclError, ErrorCode};
use ascend_chips::ChipProfile;

use crate::backend::{BResult, DeviceCall, Devices, StreamId};

impl Devices for HwBackend {
    fn name(&self) -> &'static str {
        "hw"
    }

    fn chip(&self) -> &ChipProfile {
        &self.chip
    }

    fn soc_name(&self) -> BResult<String> {
        Ok(self.soc.clone())
    }

    /// `aclrtGetDeviceCount`.
    fn device_count(&self) -> BResult<u32> {
        let mut n = 0u32;
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtGetDeviceCount(&mut n))?;
        Ok(n)
    }

    /// `aclrtSetDevice` (a device's first), remembering the default context it created;
    /// returns the handle of the device's default stream.
    fn open_device(&self, device: u32) -> BResult<StreamId> {
        acl!(self, aclrtSetDevice(device as i32))?;
        let mut ctx: sys::aclrtContext = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtGetCurrentContext(&mut ctx))?;
        let mut st = self.state();
        st.contexts.insert(device, ctx as usize);
        let h = default_stream(device);
        st.streams.insert(
            h,
            StreamInfo {
                device,
                ctx: ctx as usize,
                persistent: false,
            },
        );
        Ok(StreamId(h))
    }

    /// `aclrtResetDevice` (or `aclrtResetDeviceForce`); forgets what the reset released with
    /// the default context, finishes its streams' pending host copies and frees the pinned
    /// memory of dropped host buffers.
    fn close_device(&self, device: u32, force: bool) -> BResult<()> {
        let rc = if force {
            acl!(self, aclrtResetDeviceForce(device as i32))
        } else {
            acl!(self, aclrtResetDevice(device as i32))
        };
        let streams: Vec<RawHandle> = {
            let mut st = self.state();
            // The reset releases the default context and what was created in it; explicit
            // contexts stay until they are destroyed.
            let ctx = st.contexts.remove(&device);
            let streams = st
                .streams
                .iter()
                .filter(|(_, s)| Some(s.ctx) == ctx)
                .map(|(h, _)| *h)
                .collect::<Vec<_>>();
            st.streams.retain(|_, s| Some(s.ctx) != ctx);
            st.events.retain(|_, e| Some(e.ctx) != ctx);
            st.models.retain(|_, m| Some(m.ctx) != ctx);
            st.notifies.retain(|_, n| Some(n.ctx) != ctx);
            st.allocs.retain(|_, (_, d)| *d != device);
            streams
        };
        if rc.is_ok() {
            self.release_kept_host_fns(&streams);
        }
        self.finish(|p| streams.contains(&p.stream), true);
        self.sweep_pinned();
        Ok(rc?)
    }

    /// `aclrtCreateContext`, which also makes the new context current on the calling thread
    /// (as the front end does); its default stream is the NULL stream in it.
    fn create_context(&self, device: u32) -> BResult<StreamId> {
        let mut ctx: sys::aclrtContext = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtCreateContext(&mut ctx, device as i32))?;
        let ctx = ctx as usize;
        let mut st = self.state();
        st.seq += 1;
        let serial = st.seq;
        st.explicit.insert(ctx, ExplicitCtx { device, serial });
        let h = CONTEXT_STREAM_TAG | (serial & !TAG_MASK);
        st.streams.insert(
            h,
            StreamInfo {
                device,
                ctx,
                persistent: false,
            },
        );
        Ok(StreamId(h))
    }

    /// Waits for the context's default stream, finishes its pending host copies, then
    /// `aclrtDestroyContext`; forgets what the library released with the context.
    fn destroy_context(&self, _device: u32, default_stream: StreamId) -> BResult<()> {
        let default_stream: RawHandle = default_stream.0;
        let info = self.enter_stream(default_stream)?;
        let ctx = info.ctx;
        if !self.state().explicit.contains_key(&ctx) {
            return Err(AclError::new(
                ErrorCode::RtContextNull,
                None,
                format!("hw backend: {default_stream:#x} is not the stream of an explicit context"),
            )
            .into());
        }
        // SAFETY: NULL is the current (explicit) context's default stream.
        let synced = acl!(self, aclrtSynchronizeStream(std::ptr::null_mut()));
        if let Err(e) = &synced {
            tracing::debug!("hw backend: synchronising a context before its destruction: {e}");
        }
        // Copies into host buffers are finished while their pinned memory is surely alive.
        let streams: Vec<RawHandle> = {
            let st = self.state();
            st.streams
                .iter()
                .filter(|(_, s)| s.ctx == ctx)
                .map(|(h, _)| *h)
                .collect()
        };
        self.finish(|p| streams.contains(&p.stream), true);
        // SAFETY: a live explicit context of the library, destroyed once (it leaves the table
        // below, and the front end forgets it before calling).
        let rc = acl!(self, aclrtDestroyContext(ctx as sys::aclrtContext));
        if rc.is_ok() {
            self.release_kept_host_fns(&streams);
        }
        let mut st = self.state();
        st.explicit.remove(&ctx);
        st.streams.retain(|_, s| s.ctx != ctx);
        st.events.retain(|_, e| e.ctx != ctx);
        st.models.retain(|_, m| m.ctx != ctx);
        st.notifies.retain(|_, n| n.ctx != ctx);
        Ok(rc?)
    }

    /// `aclrtSynchronizeDevice`; then finishes the pending host work of the device's streams.
    fn synchronize_device(&self, device: u32, _timeout_ms: Option<u64>) -> BResult<()> {
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

    fn device_call(&self, call: DeviceCall) -> BResult<Option<i64>> {
        Ok(Some(self.run_device_call(call)?))
    }
}
