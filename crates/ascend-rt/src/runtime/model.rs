//! Model running instances: build-begin, bind/unbind stream, end-task, build-end, execute
//! (+async), destroy (docs/validation/models.md, including the barrier recipe).

use std::collections::BTreeSet;

use super::backend_errors::WaitOf;
use super::state::{HandleKind, ModelRec, State};
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
                    // mode a model stream does not support. Without a context there is none,
                    // and neither is there on a chip without a control queue (310B), whose
                    // runtime does not read NULL as the default stream.
                    let null_is_default = matches!(
                        self.chip.chip_type,
                        ascend_chips::ChipType::Cloud910B93
                            | ascend_chips::ChipType::David
                            | ascend_chips::ChipType::Ascend350
                    );
                    if !null_is_default || Self::current_device(&st, api).is_err() {
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

    /// The stream argument of end-task and unbind: a live stream bound to this model. NULL is
    /// the current context's default stream on the A2/A3, 950 and 350 families (107000 without
    /// a context), 107000 elsewhere. A stream not bound to the model: the unbind's 107005
    /// (EE4002); the end-task's 507000 (EE1017) on those families, 107005 elsewhere.
    fn bound_stream(
        &self,
        api: &str,
        model: RawModel,
        stream: RawStream,
    ) -> AclResult<(ModelRec, StreamId)> {
        let mdl = self.check_model(api, model)?;
        let st = self.lock();
        Self::check_stream_handle(&st, api, stream)?;
        let resolves_null = super::chip_caps::model_calls_resolve_null_stream(&self.chip);
        let handle = match (stream.0, resolves_null) {
            (0, true) => st
                .current_ctx(Self::thread())
                .map(|ctx| st.contexts[&ctx].default_stream)
                .ok_or_else(|| fail::rt_null(api, "stream"))?,
            (0, false) => return Err(fail::rt_null(api, "stream")),
            (h, _) => h,
        };
        Self::current_device(&st, api)?;
        let rec = &st.streams[&handle];
        if rec.model != Some(model.0) {
            let end_task = api == "aclmdlRIEndTask";
            let (kind, msg) = match (end_task, resolves_null) {
                (true, true) => (ErrorCode::RtInternalError, MsgCode::EE1017),
                (true, false) => (ErrorCode::RtStreamModel, MsgCode::EE1017),
                (false, _) => (ErrorCode::RtStreamModel, MsgCode::EE4002),
            };
            return Err(AclError::new(
                kind,
                Some(msg),
                format!(
                    "{api} failed: stream {handle:#x} is not bound to model {:#x}",
                    model.0
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
            st.sealed.remove(&backend);
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
            if let Err(e) = self.refuse_sealed("aclmdlRIEndTask", backend) {
                // The vendor's runtime drops the model's end mark before the refused send: the
                // model cannot run (507011) until an end mark succeeds.
                if let Some(m) = self.lock().models.get_mut(&model.0) {
                    m.end_marked = false;
                }
                return Err(e);
            }
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
            let mut st = self.lock();
            if let Some(m) = st.models.get_mut(&model.0) {
                m.built = true;
            }
            // On 950 the model's streams are complete now: they take no more tasks.
            if self.seals_built_streams() {
                let sealed: Vec<StreamId> = mdl
                    .streams
                    .iter()
                    .filter_map(|h| st.streams.get(h).map(|r| r.backend))
                    .collect();
                st.sealed.extend(sealed);
                self.any_sealed
                    .store(true, std::sync::atomic::Ordering::Release);
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
            if timeout < -1 || timeout == 0 {
                return Err(fail::rt_value(
                    api,
                    "timeout",
                    timeout,
                    "-1 or a positive number of ms",
                ));
            }
            self.require_context(api)?;
            self.require_model_ready(api, &mdl, false)?;
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

    /// Whether the chip's runtime marks a model's streams complete at the end of its build
    /// (950/350): a task given to one afterwards is refused.
    fn seals_built_streams(&self) -> bool {
        matches!(
            self.chip.chip_type,
            ascend_chips::ChipType::David | ascend_chips::ChipType::Ascend350
        )
    }

    /// 107000 (EE1016) for a task given, on 950, to a stream of a model whose build ended
    /// (the runtime's last check before a task is sent).
    pub(super) fn refuse_sealed(&self, api: &str, stream: StreamId) -> AclResult<()> {
        if !self.any_sealed.load(std::sync::atomic::Ordering::Acquire) {
            return Ok(());
        }
        self.refuse_sealed_in(&self.lock(), api, stream)
    }

    /// [`Runtime::refuse_sealed`], under the caller's lock.
    pub(super) fn refuse_sealed_in(
        &self,
        st: &State,
        api: &str,
        stream: StreamId,
    ) -> AclResult<()> {
        if st.sealed.contains(&stream) {
            return Err(AclError::new(
                ErrorCode::RtParamInvalid,
                Some(MsgCode::EE1016),
                format!("{api} failed: the stream belongs to a model whose build has ended (aclmdlRIBuildEnd); it takes no more tasks until it is unbound"),
            ));
        }
        Ok(())
    }

    /// A model can run once `aclmdlRIEndTask` has marked a stream's end (507011, EE1018), and,
    /// for an asynchronous run on the A2/A3 and 950 families (the runtime's
    /// `MODEL_EXE_DOT_NEED_LOAD_COMPLETE`), once its build has ended (507011).
    fn require_model_ready(&self, api: &str, mdl: &ModelRec, asynchronous: bool) -> AclResult<()> {
        let refuse = |why: &str| {
            AclError::new(
                ErrorCode::RtModelExecute,
                Some(MsgCode::EE1018),
                format!("{api} failed: {why}"),
            )
        };
        if !mdl.end_marked {
            return Err(refuse(
                "no stream of the model was ended with aclmdlRIEndTask",
            ));
        }
        let needs_build_end = matches!(
            self.chip.chip_type,
            ascend_chips::ChipType::Cloud910B93
                | ascend_chips::ChipType::David
                | ascend_chips::ChipType::Ascend350
        );
        if asynchronous && needs_build_end && !mdl.built {
            return Err(refuse("the model's build has not ended (aclmdlRIBuildEnd)"));
        }
        Ok(())
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
            // The decorator refuses a model's stream (and, on 950, any persistent stream)
            // before the context is looked at.
            let named = self.lock().streams.get(&stream.0).cloned();
            if let Some(r) = named {
                let david = matches!(
                    self.chip.chip_type,
                    ascend_chips::ChipType::David | ascend_chips::ChipType::Ascend350
                );
                if r.model.is_some() {
                    return Err(AclError::new(
                        ErrorCode::RtParamInvalid,
                        Some(MsgCode::EE1017),
                        format!(
                            "{api} failed: parameter stream ({:#x}) is invalid, reason: the stream is bound to a model; a model runs on a stream of no model",
                            stream.0
                        ),
                    ));
                }
                if david && r.flags & stream_flag::PERSISTENT != 0 {
                    return Err(AclError::new(
                        ErrorCode::RtParamInvalid,
                        Some(MsgCode::EE1006),
                        format!(
                            "{api} failed: stream flag value {:#x}: a persistent stream cannot run a model",
                            r.flags
                        ),
                    ));
                }
            }
            let rec = self.task_stream(api, stream)?;
            self.require_model_ready(api, &mdl, true)?;
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
            // A model a capture records into goes when the capture ends, not before.
            if st.captures.values().any(|c| c.model == model.0) {
                return Err(AclError::new(
                    crate::error::ErrorCode::RtStreamCaptured,
                    Some(crate::error::MsgCode::EE1016),
                    format!(
                        "{api} failed: model {:#x} is being captured into; end the capture \
                         (aclmdlRICaptureEnd) first",
                        model.0
                    ),
                ));
            }
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
