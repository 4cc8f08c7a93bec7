//! Models (`aclmdlRI*`): building, binding streams, executing and destroying. A model run
//! refreshes the host destinations of the copies on its bound streams.

use ascend_rt_sys as sys;

use super::handles::{raw_stream, timeout_arg};
use super::host_staging::Finish;
use super::state::ModelInfo;
use super::HwBackend;
use super::RawHandle;
use crate::backend::{BResult, ModelId, Models, StreamId};

impl Models for HwBackend {
    /// `aclmdlRIBuildBegin` in the context of the device's new objects.
    fn create_model(&self, device: u32) -> BResult<ModelId> {
        let ctx = self.enter(device)?;
        let mut m: sys::aclmdlRI = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclmdlRIBuildBegin(&mut m, 0))?;
        let h = m as usize as RawHandle;
        self.state().models.insert(
            h,
            ModelInfo {
                ctx,
                streams: Vec::new(),
            },
        );
        Ok(ModelId(h))
    }

    /// `aclmdlRIBindStream`; the model remembers the stream.
    fn bind_stream(&self, model: ModelId, stream: StreamId, flag: u32) -> BResult<()> {
        let stream: RawHandle = stream.0;
        let model: RawHandle = model.0;
        self.enter_model(model)?;
        // SAFETY: live model and stream handles of the library.
        acl!(
            self,
            aclmdlRIBindStream(model as usize as sys::aclmdlRI, raw_stream(stream), flag)
        )?;
        if let Some(m) = self.state().models.get_mut(&model) {
            m.streams.push(stream);
        }
        Ok(())
    }

    /// `aclmdlRIUnbindStream`; the model forgets the stream.
    fn unbind_stream(&self, model: ModelId, stream: StreamId) -> BResult<()> {
        let stream: RawHandle = stream.0;
        let model: RawHandle = model.0;
        self.enter_model(model)?;
        // SAFETY: live model and stream handles of the library.
        acl!(
            self,
            aclmdlRIUnbindStream(model as usize as sys::aclmdlRI, raw_stream(stream))
        )?;
        if let Some(m) = self.state().models.get_mut(&model) {
            m.streams.retain(|s| *s != stream);
        }
        Ok(())
    }

    /// `aclmdlRIEndTask`.
    fn end_task(&self, model: ModelId, stream: StreamId) -> BResult<()> {
        let stream: RawHandle = stream.0;
        let model: RawHandle = model.0;
        self.enter_model(model)?;
        // SAFETY: live model and stream handles of the library.
        Ok(acl!(
            self,
            aclmdlRIEndTask(model as usize as sys::aclmdlRI, raw_stream(stream))
        )?)
    }

    /// `aclmdlRIBuildEnd`.
    fn build_end(&self, model: ModelId) -> BResult<()> {
        let model: RawHandle = model.0;
        self.enter_model(model)?;
        // SAFETY: a live model handle; `reserve` must be NULL.
        Ok(acl!(
            self,
            aclmdlRIBuildEnd(model as usize as sys::aclmdlRI, std::ptr::null_mut())
        )?)
    }

    /// `aclmdlRIExecute`; then refreshes the host destinations of the model's copies.
    fn execute_model(&self, model: ModelId, timeout_ms: Option<u64>) -> BResult<()> {
        let model: RawHandle = model.0;
        self.enter_model(model)?;
        // SAFETY: a live model handle of the library.
        acl!(
            self,
            aclmdlRIExecute(model as usize as sys::aclmdlRI, timeout_arg(timeout_ms))
        )?;
        self.refresh_model(model);
        Ok(())
    }

    /// `aclmdlRIExecuteAsync` on `stream`; the model's copies are refreshed when the stream
    /// is observed complete.
    fn execute_model_async(&self, model: ModelId, stream: StreamId) -> BResult<()> {
        let stream: RawHandle = stream.0;
        let model: RawHandle = model.0;
        if !self.state().models.contains_key(&model) {
            return Err(Self::unknown("model", model).into());
        }
        // The stream's context: a default stream is NULL in its own context.
        self.enter_stream(stream)?;
        // SAFETY: live model and stream handles of the library.
        acl!(
            self,
            aclmdlRIExecuteAsync(model as usize as sys::aclmdlRI, raw_stream(stream))
        )?;
        self.push_pending(stream, false, Some(Finish::ModelRun(model)), None);
        Ok(())
    }

    /// `aclmdlRIDestroy`; finishes and drops the pending host work of its streams.
    fn destroy_model(&self, model: ModelId) -> BResult<()> {
        let model: RawHandle = model.0;
        self.enter_model(model)?;
        // SAFETY: a live model handle of the library.
        acl!(self, aclmdlRIDestroy(model as usize as sys::aclmdlRI))?;
        let streams = self
            .state()
            .models
            .remove(&model)
            .map(|m| m.streams)
            .unwrap_or_default();
        self.finish(|p| streams.contains(&p.stream), true);
        Ok(())
    }
}
