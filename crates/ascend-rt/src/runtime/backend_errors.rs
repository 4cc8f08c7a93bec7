//! CANN's code for what a backend reported: the one place where a [`BackendError`] becomes an
//! [`AclError`]. Most failures have one code whatever the call; an expired or stalled wait
//! takes the code of the call that waited ([`WaitOf`]).

use crate::backend::BackendError;
use crate::error::{fail, AclError, ErrorCode, MsgCode};

/// Which call a wait belongs to: its expiry (or a stall) is reported with that call's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitOf {
    /// A stream synchronize, and any other call that waits on streams:
    /// `ACL_ERROR_RT_STREAM_SYNC_TIMEOUT` (507046).
    Stream,
    /// An event synchronize: `ACL_ERROR_RT_EVENT_SYNC_TIMEOUT` (507047).
    Event,
    /// A synchronous model run: `ACL_ERROR_RT_MODEL_EXECUTE`.
    Model,
}

impl WaitOf {
    /// The code of this wait's expiry (or stall).
    fn timeout_code(self) -> ErrorCode {
        match self {
            WaitOf::Stream => ErrorCode::RtStreamSyncTimeout,
            WaitOf::Event => ErrorCode::RtEventSyncTimeout,
            WaitOf::Model => ErrorCode::RtModelExecute,
        }
    }
}

impl BackendError {
    /// CANN's error for this failure of a call that waits as `wait` says.
    pub(crate) fn into_acl(self, wait: WaitOf) -> AclError {
        // What happened on the device is explained to aclGetRecentErrMsg (EE9999), as CANN's
        // error manager reports inner errors; the watchdog's diagnosis of a stall among them.
        let explained = |kind, message: String| AclError::new(kind, Some(MsgCode::EE9999), message);
        match self {
            BackendError::OutOfMemory(m) => fail::plain(ErrorCode::RtMemoryAllocation, m),
            BackendError::BadAddress(m) => fail::plain(ErrorCode::RtParamInvalid, m),
            BackendError::UnknownHandle(m) => fail::plain(ErrorCode::RtInvalidHandle, m),
            BackendError::QueueFull(m) => fail::plain(ErrorCode::RtStreamTaskFull, m),
            BackendError::Timeout { message, stall } => {
                let e = explained(wait.timeout_code(), message);
                match stall {
                    Some(d) => e.with_diagnosis(d),
                    None => e,
                }
            }
            BackendError::Stalled { message, stall } => {
                explained(wait.timeout_code(), message).with_diagnosis(stall)
            }
            BackendError::TaskFault(m) => explained(ErrorCode::RtInternalError, m),
            BackendError::KernelFault { core, message } => {
                explained(kernel_fault_code(Some(core)), message)
            }
            BackendError::TaskTimeout(m) => explained(ErrorCode::RtTaskTimeout, m),
            BackendError::StreamDiscarded(m) => explained(ErrorCode::RtStreamAbort, m),
            BackendError::TimestampInvalid(m) => fail::plain(ErrorCode::RtEventTimestampInvalid, m),
            BackendError::Unsupported(m) => fail::plain(ErrorCode::RtFeatureNotSupport, m),
            BackendError::Library(e) => e,
        }
    }
}

/// CANN's code for a task fault: a kernel's by the core type of its task (a vector-core
/// exception, 507035, or an AI-core exception, 507015), any other task's an internal error
/// (507000) (docs/validation/kernels.md).
pub(crate) fn kernel_fault_code(core: Option<ascend_types::CoreType>) -> ErrorCode {
    match core {
        Some(ascend_types::CoreType::Vector) => ErrorCode::RtVectorCoreException,
        Some(_) => ErrorCode::RtAicoreException,
        None => ErrorCode::RtInternalError,
    }
}

/// Whether `err` is a task's fault as [`kernel_fault_code`] gives it (a kernel's, or another
/// task's internal error).
pub(crate) fn is_task_fault(err: &AclError) -> bool {
    [
        None,
        Some(ascend_types::CoreType::Vector),
        Some(ascend_types::CoreType::AiCore),
    ]
    .iter()
    .any(|&core| kernel_fault_code(core).number() == err.code())
}

/// The code of a failure of a call that waits on streams, if at all (most calls).
impl From<BackendError> for AclError {
    fn from(e: BackendError) -> AclError {
        e.into_acl(WaitOf::Stream)
    }
}
