//! The checks many calls share: a stream argument's handle (107017), the impl step that
//! resolves it in the current context (107002, NULL to the default stream, 107003), a current
//! context, and the zero timeout of the timed synchronizes.

use super::state::{State, StreamRec};
use super::Runtime;
use crate::error::{fail, AclResult};
use crate::raw_types::RawStream;

impl Runtime {
    /// RT handle validation of a stream argument: NULL passes, anything else must be a live
    /// stream (107017).
    pub(super) fn check_stream_handle(st: &State, api: &str, stream: RawStream) -> AclResult<()> {
        if stream.0 != 0 && !st.streams.contains_key(&stream.0) {
            return Err(fail::invalid_handle(api, "stream", stream.0));
        }
        Ok(())
    }

    /// [`Self::check_stream_handle`] under the lock.
    pub(super) fn require_stream_handle(&self, api: &str, stream: RawStream) -> AclResult<()> {
        Self::check_stream_handle(&self.lock(), api, stream)
    }

    /// The impl step of a task API: a current context (107002), NULL resolved to its default
    /// stream, and the stream in that context (107003).
    pub(super) fn impl_stream(
        st: &State,
        api: &str,
        stream: RawStream,
    ) -> AclResult<(u64, StreamRec)> {
        let ctx = st
            .current_ctx(Self::thread())
            .ok_or_else(|| fail::no_context(api))?;
        let handle = if stream.0 == 0 {
            st.contexts[&ctx].default_stream
        } else {
            stream.0
        };
        let rec = st
            .streams
            .get(&handle)
            .cloned()
            .ok_or_else(|| fail::invalid_handle(api, "stream", handle))?;
        if rec.ctx != ctx {
            return Err(fail::stream_context(api, handle, rec.ctx, ctx));
        }
        Ok((handle, rec))
    }

    /// The stream argument of a task or stream call: RT handle validation (107017), then the
    /// impl step (107002, NULL to the default stream, 107003).
    pub(super) fn task_stream(&self, api: &str, stream: RawStream) -> AclResult<StreamRec> {
        let st = self.lock();
        Self::check_stream_handle(&st, api, stream)?;
        Ok(Self::impl_stream(&st, api, stream)?.1)
    }

    /// The parameter-check decorator's row of the two timed synchronizes: a timeout of 0 is
    /// 107000; under [`RuntimeOptions::documented_rules`] it means "check once" instead
    /// (`Ok(true)`). `Ok(false)`: any other timeout, checked by the caller.
    pub(super) fn zero_timeout(&self, api: &str, timeout: i32) -> AclResult<bool> {
        if timeout != 0 {
            return Ok(false);
        }
        if self.options.documented_rules {
            return Ok(true);
        }
        Err(fail::rt_value(
            api,
            "timeout",
            0,
            "-1 (wait forever) or a positive number of milliseconds",
        ))
    }

    /// The runtime's impl step of a call that needs a current context: 107002 (EE1018)
    /// without one.
    pub(super) fn require_context(&self, api: &str) -> AclResult<()> {
        Self::current_device(&self.lock(), api).map(|_| ())
    }

    /// The current context's device, or 107002.
    pub(super) fn current_device(st: &State, api: &str) -> AclResult<(u64, u32)> {
        let ctx = st
            .current_ctx(Self::thread())
            .ok_or_else(|| fail::no_context(api))?;
        Ok((ctx, st.contexts[&ctx].device))
    }
}
