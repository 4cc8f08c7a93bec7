//! Explicit contexts and thread queries: `aclrtCreateContext`, `aclrtDestroyContext`,
//! `aclrtCtxGetCurrentDefaultStream`, `aclrtGetResInCurrentThread`, `aclrtGetRunMode`.
//!
//! Behaviour from the vendor's runtime: `src/acl/aclrt_impl/context.cpp`, `device.cpp`,
//! `src/runtime/api/api_c.cc` (`rtCtxCreateEx`, `rtCtxDestroyEx`),
//! `src/runtime/api/impl/api_error.cc` and `api_impl.cc` (`ContextCreate`, `ContextDestroy`,
//! `GetResInCurrentThread`, `GetRunMode`).

use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::stream_state;
use crate::raw_types::{dev_res_limit_type, run_mode, RawContext, RawStream};

impl Runtime {
    /// `aclrtCreateContext(&context, deviceId)`: a new context on the device, with a default
    /// stream of its own, made current on the calling thread.
    ///
    /// Order: context NULL (100000, EH0008); device id outside [0, count) (107001, EE1003).
    pub fn create_context(&self, context: Option<&mut RawContext>, device: i32) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCreateContext";
            let out = context.ok_or_else(|| fail::acl_null(api, "context"))?;
            let dev = self.check_device_id(api, device)?;
            let mut st = self.lock();
            let backend_stream = self.backend.create_context(dev)?;
            let ctx = st.register_context(dev, backend_stream, true);
            st.current.insert(Self::thread(), ctx);
            *out = RawContext(ctx);
            let default = st.contexts[&ctx].default_stream;
            drop(st);
            self.notify_stream_state(default, stream_state::CREATE_POST);
            Ok(())
        })
    }

    /// `aclrtDestroyContext(context)`: releases a context made by `aclrtCreateContext` and
    /// everything created in it, after its default stream's tasks complete; threads it was
    /// current on are left without a context.
    ///
    /// Order: NULL (100000, EH0008); not a live context (107002, EE1017); a default context
    /// of `aclrtSetDevice` (107002, EE1017).
    pub fn destroy_context(&self, context: RawContext) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtDestroyContext";
            if context.0 == 0 {
                return Err(fail::acl_null(api, "context"));
            }
            let mut st = self.lock();
            let rec = match st.contexts.get(&context.0) {
                Some(rec) if rec.explicit => rec.clone(),
                found => {
                    let reason = if found.is_some() {
                        "the default context of a device cannot be destroyed explicitly"
                    } else {
                        "the context handle is NULL or was already destroyed"
                    };
                    return Err(AclError::new(
                        ErrorCode::RtContextNull,
                        Some(MsgCode::EE1017),
                        format!(
                            "{api} failed: parameter context ({:#x}) is invalid, reason: {reason}",
                            context.0
                        ),
                    ));
                }
            };
            if !st.stream_state_cbs.0.is_empty() {
                drop(st);
                self.notify_stream_state(rec.default_stream, stream_state::DESTROY_PRE);
                st = self.lock();
                if !st.contexts.contains_key(&context.0) {
                    return Err(AclError::new(
                        ErrorCode::RtContextNull,
                        Some(MsgCode::EE1017),
                        format!(
                            "{api} failed: context {:#x} was destroyed meanwhile",
                            context.0
                        ),
                    ));
                }
            }
            let objs = st.take_ctx_objects(context.0);
            drop(st);
            self.release_ctx_objects(&objs, false);
            match objs.default_stream {
                Some(b) => self
                    .backend
                    .destroy_context(rec.device, b)
                    .map_err(AclError::from),
                None => Ok(()),
            }
        })
    }

    /// `aclrtCtxGetCurrentDefaultStream(&stream)`: the default stream of the calling thread's
    /// current context.
    ///
    /// Order: stream NULL (100000, EH0008); no current context (107002, EE1018).
    pub fn ctx_get_current_default_stream(&self, stream: Option<&mut RawStream>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCtxGetCurrentDefaultStream";
            let out = stream.ok_or_else(|| fail::acl_null(api, "stream"))?;
            let st = self.lock();
            let (ctx, _) = Self::current_device(&st, api)?;
            *out = RawStream(st.contexts[&ctx].default_stream);
            Ok(())
        })
    }

    /// `aclrtGetResInCurrentThread(type, &value)`: the cube (0) or vector (1) cores the
    /// calling thread may use: the device's whole count, since no stream limits are set.
    ///
    /// Order: value NULL (100000, EH0008); type ≥ 2 (107000, EE1003); no current context
    /// (107002, EE1018).
    pub fn get_res_in_current_thread(
        &self,
        res_type: u32,
        value: Option<&mut u32>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtGetResInCurrentThread";
            let out = value.ok_or_else(|| fail::acl_null(api, "value"))?;
            if res_type >= dev_res_limit_type::MAX {
                return Err(fail::rt_value(api, "type", res_type, "[0, 2)"));
            }
            let st = self.lock();
            Self::current_device(&st, api)?;
            *out = if res_type == dev_res_limit_type::CUBE_CORE {
                self.chip.cache.aic_cores
            } else {
                self.chip.cache.aiv_cores
            };
            Ok(())
        })
    }

    /// `aclrtGetRunMode(&runMode)`: `ACL_HOST` (1): the simulated SoCs are driven from a host.
    /// Needs no device. Order: runMode NULL (100000, EH0008).
    pub fn get_run_mode(&self, mode: Option<&mut u32>) -> AclResult<()> {
        self.call(|| {
            let out = mode.ok_or_else(|| fail::acl_null("aclrtGetRunMode", "runMode"))?;
            *out = run_mode::HOST;
            Ok(())
        })
    }
}
