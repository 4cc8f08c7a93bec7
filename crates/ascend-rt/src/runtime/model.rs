//! Model running instances: build-begin, bind/unbind stream, end-task, build-end, execute
//! (+async), destroy (docs/validation/models.md, including the barrier recipe).

use std::collections::BTreeSet;

use super::backend_errors::WaitOf;
use super::state::{HandleKind, ModelRec};
use super::Runtime;
use crate::backend::StreamId;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::{model_stream_flag, stream_flag, RawModel, RawStream};

impl Runtime {
    /// `aclmdlRIBuildBegin(&modelRI, flag)`: flag must be 0 (107000).
    pub fn mdl_ri_build_begin(&self, model: Option<&mut RawModel>, flag: u32) -> AclResult<()> {
        self.call(|| {
            let api = "aclmdlRIBuildBegin";
            let out = model.ok_or_else(|| fail::acl_null(api, "modelRI"))?;
            if flag != 0 {
                return Err(fail::rt_value(api, "flag", flag, "0"));
            }
            let mut st = self.lock();
            let (ctx, device) = Self::current_device(&st, api)?;
            let backend = self.backend.create_model(device)?;
            let handle = st.new_handle(HandleKind::Model);
            st.models.insert(
                handle,
                ModelRec {
                    ctx,
                    backend,
                    streams: BTreeSet::new(),
                    barrier_ids: BTreeSet::new(),
                    built: false,
                    end_marked: false,
                },
            );
            *out = RawModel(handle);
            Ok(())
        })
    }

    fn check_model(&self, api: &str, model: RawModel) -> AclResult<ModelRec> {
        if model.0 == 0 {
            return Err(fail::acl_null(api, "modelRI"));
        }
        self.lock()
            .models
            .get(&model.0)
            .cloned()
            .ok_or_else(|| fail::invalid_handle(api, "modelRI", model.0))
    }

    /// `aclmdlRIBindStream(modelRI, stream, flag)`: the stream must be persistent, unbound,
    /// not device-use-only and not fast-launch.
    pub fn mdl_ri_bind_stream(
        &self,
        model: RawModel,
        stream: RawStream,
        flag: u32,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclmdlRIBindStream";
            if model.0 == 0 {
                return Err(fail::acl_null(api, "modelRI"));
            }
            if flag != model_stream_flag::HEAD && flag != model_stream_flag::DEFAULT {
                return Err(fail::rt_value(api, "flag", flag, "ACL_MODEL_STREAM_FLAG_HEAD (0) or ACL_MODEL_STREAM_FLAG_DEFAULT (0x7FFFFFFF)"));
            }
            let mdl = self.check_model(api, model)?;
            let rec = {
                let st = self.lock();
                Self::check_stream_handle(&st, api, stream)?;
                if stream.0 == 0 {
                    // NULL is the current context's default stream, which stops on failure: a
                    // mode a model stream does not support. Without a context there is none.
                    if Self::current_device(&st, api).is_err() {
                        return Err(fail::rt_null(api, "stream"));
                    }
                    return Err(AclError::new(
                        ErrorCode::RtFeatureNotSupport,
                        Some(MsgCode::EE1016),
                        format!("{api} failed: the default stream (NULL) stops on failure, which a model's stream does not support; bind a stream created with ACL_STREAM_PERSISTENT"),
                    ));
                }
                st.streams[&stream.0].clone()
            };
            if rec.flags & stream_flag::PERSISTENT == 0 {
                return Err(AclError::new(
                    ErrorCode::RtParamInvalid,
                    Some(MsgCode::EE1017),
                    format!("{api} failed: parameter stream ({:#x}) is invalid, reason: it was not created with ACL_STREAM_PERSISTENT", stream.0),
                ));
            }
            if let Some(other) = rec.model {
                return Err(AclError::new(
                    ErrorCode::RtStreamModel,
                    Some(MsgCode::EE1007),
                    format!("failed to bind stream {:#x}, reason: it is already bound to model {other:#x}", stream.0),
                ));
            }
            if rec.flags & stream_flag::DEVICE_USE_ONLY != 0 {
                return Err(AclError::new(
                    ErrorCode::RtInternalError,
                    Some(MsgCode::EE1011),
                    format!("{api} failed: value {:#x} for stream is invalid, reason: ACL_STREAM_DEVICE_USE_ONLY streams cannot be bound", stream.0),
                ));
            }
            if rec.flags & stream_flag::FAST_LAUNCH != 0 {
                return Err(AclError::new(
                    ErrorCode::RtFeatureNotSupport,
                    Some(MsgCode::EE1011),
                    format!("{api} failed: value {:#x} for stream is invalid, reason: ACL_STREAM_FAST_LAUNCH streams cannot be bound", stream.0),
                ));
            }
            self.require_context(api)?;
            // Reserve the binding under the lock first, so that two threads binding the same
            // stream cannot both pass the "already bound" row; undo it if the backend fails.
            {
                let mut st = self.lock();
                match st.streams.get_mut(&stream.0) {
                    Some(s) if s.model.is_none() => s.model = Some(model.0),
                    Some(s) => {
                        let other = s.model.unwrap_or_default();
                        return Err(AclError::new(
                            ErrorCode::RtStreamModel,
                            Some(MsgCode::EE1007),
                            format!("failed to bind stream {:#x}, reason: it is already bound to model {other:#x}", stream.0),
                        ));
                    }
                    None => return Err(fail::invalid_handle(api, "stream", stream.0)),
                }
                if !st.models.contains_key(&model.0) {
                    if let Some(s) = st.streams.get_mut(&stream.0) {
                        s.model = None;
                    }
                    return Err(fail::invalid_handle(api, "modelRI", model.0));
                }
            }
            if let Err(e) = self.backend.bind_stream(mdl.backend, rec.backend, flag) {
                if let Some(s) = self.lock().streams.get_mut(&stream.0) {
                    s.model = None;
                }
                return Err(e.into());
            }
            let mut st = self.lock();
            if let Some(m) = st.models.get_mut(&model.0) {
                m.streams.insert(stream.0);
            }
            Ok(())
        })
    }

    /// The stream argument of end-task and unbind: a live stream bound to this model (107005).
    fn bound_stream(
        &self,
        api: &str,
        model: RawModel,
        stream: RawStream,
    ) -> AclResult<(ModelRec, StreamId)> {
        let mdl = self.check_model(api, model)?;
        let st = self.lock();
        Self::check_stream_handle(&st, api, stream)?;
        if stream.0 == 0 {
            return Err(fail::rt_null(api, "stream"));
        }
        Self::current_device(&st, api)?;
        let rec = &st.streams[&stream.0];
        if rec.model != Some(model.0) {
            return Err(fail::plain(
                ErrorCode::RtStreamModel,
                format!(
                    "{api} failed: stream {:#x} is not bound to model {:#x}",
                    stream.0, model.0
                ),
            ));
        }
        Ok((mdl, rec.backend))
    }

    /// `aclmdlRIUnbindStream(modelRI, stream)`.
    pub fn mdl_ri_unbind_stream(&self, model: RawModel, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let api = "aclmdlRIUnbindStream";
            let (mdl, backend) = self.bound_stream(api, model, stream)?;
            self.backend.unbind_stream(mdl.backend, backend)?;
            let mut st = self.lock();
            if let Some(s) = st.streams.get_mut(&stream.0) {
                s.model = None;
            }
            if let Some(m) = st.models.get_mut(&model.0) {
                m.streams.remove(&stream.0);
            }
            Ok(())
        })
    }

    /// `aclmdlRIEndTask(modelRI, stream)`: marks the end of task submission on a bound stream.
    pub fn mdl_ri_end_task(&self, model: RawModel, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let (mdl, backend) = self.bound_stream("aclmdlRIEndTask", model, stream)?;
            self.backend
                .end_task(mdl.backend, backend)
                .map_err(AclError::from)?;
            if let Some(m) = self.lock().models.get_mut(&model.0) {
                m.end_marked = true;
            }
            Ok(())
        })
    }

    /// `aclmdlRIBuildEnd(modelRI, reserve)`: `reserve` must be NULL (100000, EH0012).
    pub fn mdl_ri_build_end(&self, model: RawModel, reserve: Option<u64>) -> AclResult<()> {
        self.call(|| {
            let api = "aclmdlRIBuildEnd";
            if model.0 == 0 {
                return Err(fail::acl_null(api, "modelRI"));
            }
            if reserve.is_some_and(|r| r != 0) {
                return Err(fail::acl_reserved(api, "reserve"));
            }
            let mdl = self.check_model(api, model)?;
            self.require_context(api)?;
            // The runtime's load of the model: it needs a stream, then the end mark of
            // aclmdlRIEndTask (the core's model load, EE1018 both).
            if mdl.streams.is_empty() {
                return Err(AclError::new(
                    ErrorCode::RtStreamModel,
                    Some(MsgCode::EE1018),
                    format!("{api} failed: model {:#x} has no stream; bind one with aclmdlRIBindStream", model.0),
                ));
            }
            if !mdl.end_marked {
                return Err(AclError::new(
                    ErrorCode::RtModelExecute,
                    Some(MsgCode::EE1018),
                    format!("{api} failed: call aclmdlRIEndTask on the model's stream to mark the end of its tasks before aclmdlRIBuildEnd"),
                ));
            }
            self.backend.build_end(mdl.backend)?;
            if let Some(m) = self.lock().models.get_mut(&model.0) {
                m.built = true;
            }
            Ok(())
        })
    }

    /// `aclmdlRIExecute(modelRI, timeout)`: runs the recorded tasks of every bound stream and
    /// waits; `timeout` −1 = forever, otherwise ms.
    pub fn mdl_ri_execute(&self, model: RawModel, timeout: i32) -> AclResult<()> {
        self.call(|| {
            let api = "aclmdlRIExecute";
            let mdl = self.check_model(api, model)?;
            if timeout < -1 {
                return Err(fail::rt_value(
                    api,
                    "timeout",
                    timeout,
                    "-1 or a positive number of ms",
                ));
            }
            self.require_context(api)?;
            let limit = if timeout == -1 {
                None
            } else {
                Some(timeout as u64)
            };
            let r = self.backend.execute_model(mdl.backend, limit);
            self.report_task_faults();
            r.map_err(|e| e.into_acl(WaitOf::Model))
        })
    }

    /// `aclmdlRIExecuteAsync(modelRI, stream)`: unsupported on chips without it (207000).
    pub fn mdl_ri_execute_async(&self, model: RawModel, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let api = "aclmdlRIExecuteAsync";
            let mdl = self.check_model(api, model)?;
            // The runtime's entry validates both handles before the chip's gate.
            self.require_stream_handle(api, stream)?;
            if !self.chip.features.model_execute_async {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    "use aclmdlRIExecute",
                ));
            }
            let rec = self.task_stream(api, stream)?;
            if rec.model.is_some() {
                return Err(fail::rt_value(
                    api,
                    "stream",
                    format!("{:#x}", stream.0),
                    "a stream not bound to a model",
                ));
            }
            self.backend
                .execute_model_async(mdl.backend, rec.backend)
                .map_err(AclError::from)
        })
    }

    /// `aclmdlRIDestroy(modelRI)`: unbinds its streams and frees its barrier-id map.
    pub fn mdl_ri_destroy(&self, model: RawModel) -> AclResult<()> {
        self.call(|| {
            let api = "aclmdlRIDestroy";
            if model.0 == 0 {
                return Err(fail::acl_null(api, "modelRI"));
            }
            // Destroyed and forgotten in one step under the lock: a concurrent destroy of the
            // same handle finds it gone.
            let mut st = self.lock();
            let mdl = st
                .models
                .get(&model.0)
                .ok_or_else(|| fail::invalid_handle(api, "modelRI", model.0))?;
            self.backend.destroy_model(mdl.backend)?;
            st.forget_model(model.0);
            // A captured model's own stream goes with it.
            let own = st.capture_streams.remove(&model.0);
            drop(st);
            if let Some(s) = own {
                self.destroy_stream_force(RawStream(s))?;
            }
            Ok(())
        })
    }
}
