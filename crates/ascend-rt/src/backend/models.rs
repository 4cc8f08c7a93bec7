//! [`Models`]: the backend's role for model running instances (`aclmdlRI`): streams bound to
//! them, their build, and their runs.

use super::{BResult, ModelId, StreamId};

/// Model running instances.
///
/// A `model` argument is a live model of this backend, not destroyed by the front end; a
/// `stream` argument is a live stream of the model's device.
pub trait Models {
    /// Creates a model running instance on `device` (open).
    fn create_model(&self, device: u32) -> BResult<ModelId>;

    /// Binds a persistent stream to a model; its later tasks are recorded into the model.
    ///
    /// - the stream is persistent and bound to no model; the model's build has not ended;
    ///   `flag` is a valid `ACL_MODEL_STREAM_FLAG_*`.
    fn bind_stream(&self, model: ModelId, stream: StreamId, flag: u32) -> BResult<()>;

    /// Unbinds a stream from a model.
    ///
    /// - the stream is bound to this model.
    fn unbind_stream(&self, model: ModelId, stream: StreamId) -> BResult<()>;

    /// Marks the end of task submission on a bound stream.
    ///
    /// - the stream is bound to this model.
    fn end_task(&self, model: ModelId, stream: StreamId) -> BResult<()>;

    /// Ends the model's build.
    ///
    /// - its build has not ended.
    fn build_end(&self, model: ModelId) -> BResult<()>;

    /// Runs the model and waits for it; `timeout_ms` `None` waits forever.
    ///
    /// - its build has ended.
    fn execute_model(&self, model: ModelId, timeout_ms: Option<u64>) -> BResult<()>;

    /// Enqueues a run of the model on a stream (bound to no model).
    ///
    /// - its build has ended.
    fn execute_model_async(&self, model: ModelId, stream: StreamId) -> BResult<()>;

    /// Destroys a model; its bound streams are unbound, its recordings released.
    fn destroy_model(&self, model: ModelId) -> BResult<()>;
}
