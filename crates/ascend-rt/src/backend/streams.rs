//! [`Streams`]: the backend's role for streams, the tasks put on them, and the faults those
//! tasks report.

use super::{BResult, StreamId, Task};

/// A task fault the device reported, for the exception callback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFaultInfo {
    /// The backend's task id.
    pub task: u64,
    /// The backend's stream.
    pub stream: StreamId,
    /// The device.
    pub device: u32,
    /// What happened.
    pub message: String,
    /// The core type of the faulting kernel's task; `None` for a task other than a kernel.
    pub kernel_core: Option<ascend_types::CoreType>,
}

/// Streams and their tasks.
///
/// A `stream` argument is a live stream of this backend (created by
/// [`Streams::create_stream`], or a default stream from opening a device or creating a
/// context) that the front end has not destroyed.
pub trait Streams {
    /// Creates a stream on `device`.
    ///
    /// - the device is open; `priority` and `flags` passed the front end's checks.
    fn create_stream(&self, device: u32, priority: u32, flags: u32) -> BResult<StreamId>;

    /// Destroys a stream; without `force`, waits for its tasks first, with it drops them.
    ///
    /// - the stream is not a default stream.
    fn destroy_stream(&self, stream: StreamId, force: bool) -> BResult<()>;

    /// Enqueues a task; returns the backend's id of the task (0 where the backend has none
    /// to give).
    ///
    /// - every address of the task lies in live memory of the stream's device (or pinned
    ///   host memory the task names); the stream is neither capturing nor sealed into a model
    ///   for this task, and has not stopped on a failure.
    fn launch(&self, stream: StreamId, task: Task) -> BResult<u64>;

    /// Blocks until the stream's tasks complete; `timeout_ms` `None` waits forever.
    fn synchronize_stream(&self, stream: StreamId, timeout_ms: Option<u64>) -> BResult<()>;

    /// True when the stream's tasks have completed.
    fn stream_idle(&self, stream: StreamId) -> BResult<bool>;

    /// Stop on failure (`ACL_STOP_ON_FAILURE`): after a task of the stream faults, its later
    /// tasks are discarded. Stop is a context's mode: the front end calls this for the stream
    /// the program named (`named`), then for every other stream of its context, those created
    /// later included (`!named`). A real runtime spreads the mode over the context itself, so
    /// it needs only the named stream; a model marks each stream.
    fn set_stop_on_failure(&self, stream: StreamId, named: bool) -> BResult<()>;

    /// `aclrtStreamAbort`: the stream's running and queued tasks are dropped; it stays usable.
    fn abort_stream(&self, stream: StreamId) -> BResult<()>;

    /// `aclrtStreamStop`: the stream's running task is stopped (it fails); the rest go on.
    fn stop_stream(&self, stream: StreamId) -> BResult<()>;

    /// The task faults reported since the last call, oldest first (for the exception
    /// callback; a real runtime calls it itself and reports none here).
    fn take_task_faults(&self) -> Vec<TaskFaultInfo>;
}
