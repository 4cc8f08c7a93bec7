//! [`ModelRI`]: a model running instance; destroyed on drop.

use std::sync::Arc;

use super::device::DeviceGuard;
use super::stream::Stream;
use crate::error::AclResult;
use crate::raw_types::{model_stream_flag, RawModel};

/// A model running instance (`aclmdlRIBuildBegin` … `aclmdlRIDestroy`).
///
/// Tasks put on a bound (persistent) stream are recorded, and run each time the model executes.
#[derive(Debug)]
pub struct ModelRI {
    dev: Arc<DeviceGuard>,
    raw: RawModel,
}

impl ModelRI {
    pub(super) fn new(dev: Arc<DeviceGuard>, raw: RawModel) -> Self {
        ModelRI { dev, raw }
    }

    /// The raw handle.
    pub fn raw(&self) -> RawModel {
        self.raw
    }

    /// Binds a persistent stream (`aclmdlRIBindStream`, flag HEAD).
    pub fn bind(&self, stream: &Stream) -> AclResult<()> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        self.dev
            .rt
            .mdl_ri_bind_stream(self.raw, stream.raw(), model_stream_flag::HEAD)
    }

    /// Unbinds a stream (`aclmdlRIUnbindStream`).
    pub fn unbind(&self, stream: &Stream) -> AclResult<()> {
        self.dev.rt.mdl_ri_unbind_stream(self.raw, stream.raw())
    }

    /// Marks the end of a bound stream's tasks (`aclmdlRIEndTask`).
    pub fn end_task(&self, stream: &Stream) -> AclResult<()> {
        self.dev.rt.mdl_ri_end_task(self.raw, stream.raw())
    }

    /// Ends the build (`aclmdlRIBuildEnd`).
    pub fn build_end(&self) -> AclResult<()> {
        self.dev.rt.mdl_ri_build_end(self.raw, None)
    }

    /// Runs the model and waits for it (`aclmdlRIExecute`, no timeout).
    pub fn execute(&self) -> AclResult<()> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        self.dev.rt.mdl_ri_execute(self.raw, -1)
    }

    /// Enqueues a run on `stream` (`aclmdlRIExecuteAsync`).
    pub fn execute_async(&self, stream: &Stream) -> AclResult<()> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        self.dev.rt.mdl_ri_execute_async(self.raw, stream.raw())
    }
}

impl Drop for ModelRI {
    fn drop(&mut self) {
        self.dev
            .release("destroying a model", |rt| rt.mdl_ri_destroy(self.raw));
    }
}
