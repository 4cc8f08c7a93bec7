//! [`BackendError`]: what a backend reports when a call fails — what happened, not which CANN
//! code it is. The front end picks the code, per call, in one place
//! (`runtime/backend_errors.rs`).

use std::sync::Arc;

use ascend_types::Diagnosis;

use crate::error::AclError;

/// What went wrong in a backend.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// Device or host memory could not be allocated.
    #[error("{0}")]
    OutOfMemory(String),
    /// An address range is not (or no longer) device memory the backend holds.
    #[error("{0}")]
    BadAddress(String),
    /// A handle the backend does not know (destroyed, or never its own).
    #[error("{0}")]
    UnknownHandle(String),
    /// A stream's queue has no room for the task.
    #[error("{0}")]
    QueueFull(String),
    /// A bounded wait expired; `stall` is the watchdog's diagnosis when the device could not
    /// progress during it.
    #[error("{message}")]
    Timeout {
        /// What happened.
        message: String,
        /// Why the device could not progress, where it could not.
        stall: Option<Arc<Diagnosis>>,
    },
    /// The device cannot progress and nothing the host does can change that (the simulator's
    /// watchdog, with its diagnosis).
    #[error("{message}")]
    Stalled {
        /// What happened.
        message: String,
        /// Why the device cannot progress.
        stall: Arc<Diagnosis>,
    },
    /// A task failed on the device.
    #[error("{0}")]
    TaskFault(String),
    /// A block of a kernel faulted on a core of type `core` (as the runtime names the task).
    #[error("{message}")]
    KernelFault {
        /// The core type of the kernel's task.
        core: ascend_types::CoreType,
        /// What happened.
        message: String,
    },
    /// A task's own timeout expired on the device (a notify wait's).
    #[error("{0}")]
    TaskTimeout(String),
    /// An event's timestamp is not valid yet: its latest record has not executed.
    #[error("{0}")]
    TimestampInvalid(String),
    /// The stream a thread waited on went away (destroyed by force, or its device reset)
    /// with tasks of the wait still queued: they were discarded.
    #[error("{0}")]
    StreamDiscarded(String),
    /// The backend cannot do this.
    #[error("{0}")]
    Unsupported(String),
    /// A real runtime library's own failure: its code is already CANN's and is kept as is.
    #[error(transparent)]
    Library(AclError),
}

/// Result of a backend call.
pub type BResult<T> = Result<T, BackendError>;

impl From<AclError> for BackendError {
    fn from(e: AclError) -> BackendError {
        BackendError::Library(e)
    }
}
