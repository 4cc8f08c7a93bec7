//! [`AclError`]: CANN's error codes with their exact numbers, and the message codes
//! (`EH0008`, `EE1003`, …) that `aclGetRecentErrMsg` reports with them.
//!
//! The numbers live here and only here.

use std::fmt;
use std::sync::Arc;

use ascend_types::Diagnosis;

use thiserror::Error;

macro_rules! error_codes {
    ($( $(#[$doc:meta])* $variant:ident = $num:expr, $name:literal; )*) => {
        /// A CANN error code. The discriminant is CANN's number.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $( $(#[$doc])* $variant = $num, )*
            /// A code this crate does not know, returned by a backend (the real library);
            /// [`AclError::code`] keeps its number. Not in [`ErrorCode::ALL`].
            Other = -1,
        }

        impl ErrorCode {
            /// Every code this crate knows.
            pub const ALL: &'static [ErrorCode] = &[ $( ErrorCode::$variant, )* ];

            /// CANN's number for this code.
            pub fn number(self) -> i32 {
                self as i32
            }

            /// CANN's name for this code (`ACL_ERROR_RT_PARAM_INVALID`).
            pub fn name(self) -> &'static str {
                match self { $( ErrorCode::$variant => $name, )* ErrorCode::Other => "(unknown code)" }
            }

            /// The code with this number, if it is one this crate knows.
            pub fn from_number(n: i32) -> Option<ErrorCode> {
                match n { $( $num => Some(ErrorCode::$variant), )* _ => None }
            }
        }
    };
}

error_codes! {
    /// `ACL_ERROR_INVALID_PARAM`: ACL-layer NULL pointer, zero size or bad enum.
    InvalidParam = 100000, "ACL_ERROR_INVALID_PARAM";
    /// `ACL_ERROR_UNINITIALIZE`.
    Uninitialize = 100001, "ACL_ERROR_UNINITIALIZE";
    /// `ACL_ERROR_REPEAT_INITIALIZE`: `aclInit` while initialised.
    RepeatInitialize = 100002, "ACL_ERROR_REPEAT_INITIALIZE";
    /// `ACL_ERROR_INVALID_FILE`: a version query found no such package.
    InvalidFile = 100003, "ACL_ERROR_INVALID_FILE";
    /// `ACL_ERROR_REPEAT_FINALIZE`: `aclFinalize` while finalised.
    RepeatFinalize = 100037, "ACL_ERROR_REPEAT_FINALIZE";
    /// `ACL_ERROR_API_NOT_SUPPORT`.
    ApiNotSupport = 200001, "ACL_ERROR_API_NOT_SUPPORT";
    /// `ACL_ERROR_FEATURE_UNSUPPORTED`.
    FeatureUnsupported = 200006, "ACL_ERROR_FEATURE_UNSUPPORTED";
    /// `ACL_ERROR_INTERNAL_ERROR`.
    InternalError = 500000, "ACL_ERROR_INTERNAL_ERROR";
    /// `ACL_ERROR_FAILURE`.
    Failure = 500001, "ACL_ERROR_FAILURE";
    /// `ACL_ERROR_RT_FAILURE`.
    RtFailure = 500003, "ACL_ERROR_RT_FAILURE";
    /// `ACL_ERROR_RT_PARAM_INVALID`: a runtime parameter check failed.
    RtParamInvalid = 107000, "ACL_ERROR_RT_PARAM_INVALID";
    /// `ACL_ERROR_RT_INVALID_DEVICEID`.
    RtInvalidDeviceId = 107001, "ACL_ERROR_RT_INVALID_DEVICEID";
    /// `ACL_ERROR_RT_CONTEXT_NULL`: no current context.
    RtContextNull = 107002, "ACL_ERROR_RT_CONTEXT_NULL";
    /// `ACL_ERROR_RT_STREAM_CONTEXT`: stream not in the current context.
    RtStreamContext = 107003, "ACL_ERROR_RT_STREAM_CONTEXT";
    /// `ACL_ERROR_RT_MODEL_CONTEXT`: model not in the current context.
    RtModelContext = 107004, "ACL_ERROR_RT_MODEL_CONTEXT";
    /// `ACL_ERROR_RT_STREAM_MODEL`: stream/model relationship wrong, unknown barrier id.
    RtStreamModel = 107005, "ACL_ERROR_RT_STREAM_MODEL";
    /// `ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID`: the event's record has no timestamp yet.
    RtEventTimestampInvalid = 107006, "ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID";
    /// `ACL_ERROR_RT_ADDR_UNALIGNED`.
    RtAddrUnaligned = 107008, "ACL_ERROR_RT_ADDR_UNALIGNED";
    /// `ACL_ERROR_RT_STREAM_SUBSCRIBE`: the stream's subscription is wrong for the call.
    RtStreamSubscribe = 107011, "ACL_ERROR_RT_STREAM_SUBSCRIBE";
    /// `ACL_ERROR_RT_THREAD_SUBSCRIBE`: the thread is not (or differently) subscribed.
    RtThreadSubscribe = 107012, "ACL_ERROR_RT_THREAD_SUBSCRIBE";
    /// `ACL_ERROR_RT_STREAM_NO_CB_REG`: a callback on a stream no thread processes reports for.
    RtStreamNoCbReg = 107015, "ACL_ERROR_RT_STREAM_NO_CB_REG";
    /// `ACL_ERROR_RT_INVALID_HANDLE`: destroyed or wrong-type handle.
    RtInvalidHandle = 107017, "ACL_ERROR_RT_INVALID_HANDLE";
    /// `ACL_ERROR_RT_WAIT_TIMEOUT`.
    RtWaitTimeout = 107019, "ACL_ERROR_RT_WAIT_TIMEOUT";
    /// `ACL_ERROR_RT_TASK_TIMEOUT`: a task's own timeout expired (a notify wait).
    RtTaskTimeout = 107020, "ACL_ERROR_RT_TASK_TIMEOUT";
    /// `ACL_ERROR_RT_DEVICE_TASK_ABORT`.
    RtDeviceTaskAbort = 107022, "ACL_ERROR_RT_DEVICE_TASK_ABORT";
    /// `ACL_ERROR_RT_STREAM_ABORT`: the stream's tasks were aborted while a thread waited; in
    /// the simulator also a stream destroyed by force under a waiting thread.
    RtStreamAbort = 107023, "ACL_ERROR_RT_STREAM_ABORT";
    /// `ACL_ERROR_RT_STREAM_CAPTURED`.
    RtStreamCaptured = 107027, "ACL_ERROR_RT_STREAM_CAPTURED";
    /// `ACL_ERROR_RT_STREAM_NOT_CAPTURED`: the stream is not capturing.
    RtStreamNotCaptured = 107029, "ACL_ERROR_RT_STREAM_NOT_CAPTURED";
    /// `ACL_ERROR_RT_STREAM_CAPTURE_MODE_NOT_SUPPORT`: refused in the capture mode.
    RtStreamCaptureModeNotSupport = 107030, "ACL_ERROR_RT_STREAM_CAPTURE_MODE_NOT_SUPPORT";
    /// `ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD`: a capture ended on another thread.
    RtStreamCaptureWrongThread = 107038, "ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD";
    /// `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`: the chip lacks the feature, or wrong stream kind.
    RtFeatureNotSupport = 207000, "ACL_ERROR_RT_FEATURE_NOT_SUPPORT";
    /// `ACL_ERROR_RT_MEMORY_ALLOCATION`.
    RtMemoryAllocation = 207001, "ACL_ERROR_RT_MEMORY_ALLOCATION";
    /// `ACL_ERROR_RT_MEMORY_FREE`.
    RtMemoryFree = 207002, "ACL_ERROR_RT_MEMORY_FREE";
    /// `ACL_ERROR_RT_NO_DEVICE`.
    RtNoDevice = 207004, "ACL_ERROR_RT_NO_DEVICE";
    /// `ACL_ERROR_RT_RESOURCE_ALLOC_FAIL`.
    RtResourceAllocFail = 207005, "ACL_ERROR_RT_RESOURCE_ALLOC_FAIL";
    /// `ACL_ERROR_RT_NO_PERMISSION`: the driver does not permit it (an IPC key the process is
    /// not on the list of).
    RtNoPermission = 207006, "ACL_ERROR_RT_NO_PERMISSION";
    /// `ACL_ERROR_RT_NO_EVENT_RESOURCE`: too many events.
    RtNoEventResource = 207007, "ACL_ERROR_RT_NO_EVENT_RESOURCE";
    /// `ACL_ERROR_RT_NO_STREAM_RESOURCE`: too many streams.
    RtNoStreamResource = 207008, "ACL_ERROR_RT_NO_STREAM_RESOURCE";
    /// `ACL_ERROR_RT_NO_NOTIFY_RESOURCE`: too many notifies.
    RtNoNotifyResource = 207009, "ACL_ERROR_RT_NO_NOTIFY_RESOURCE";
    /// `ACL_ERROR_RT_NO_MODEL_RESOURCE`: too many models.
    RtNoModelResource = 207010, "ACL_ERROR_RT_NO_MODEL_RESOURCE";
    /// `ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED`: the device has no route of that link type.
    RtLinkTypeNotSupported = 207021, "ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED";
    /// `ACL_ERROR_RT_INTERNAL_ERROR` (includes "stream not in a model").
    RtInternalError = 507000, "ACL_ERROR_RT_INTERNAL_ERROR";
    /// `ACL_ERROR_RT_STREAM_TASK_FULL`.
    RtStreamTaskFull = 507002, "ACL_ERROR_RT_STREAM_TASK_FULL";
    /// `ACL_ERROR_RT_STREAM_NOT_COMPLETE`.
    RtStreamNotComplete = 507004, "ACL_ERROR_RT_STREAM_NOT_COMPLETE";
    /// `ACL_ERROR_RT_END_OF_SEQUENCE`.
    RtEndOfSequence = 507005, "ACL_ERROR_RT_END_OF_SEQUENCE";
    /// `ACL_ERROR_RT_EVENT_NOT_COMPLETE`.
    RtEventNotComplete = 507006, "ACL_ERROR_RT_EVENT_NOT_COMPLETE";
    /// `ACL_ERROR_RT_CONTEXT_RELEASE_ERROR`.
    RtContextReleaseError = 507007, "ACL_ERROR_RT_CONTEXT_RELEASE_ERROR";
    /// `ACL_ERROR_RT_MODEL_EXECUTE`.
    RtModelExecute = 507011, "ACL_ERROR_RT_MODEL_EXECUTE";
    /// `ACL_ERROR_RT_REPORT_TIMEOUT`: no report came within the timeout.
    RtReportTimeout = 507012, "ACL_ERROR_RT_REPORT_TIMEOUT";
    /// `ACL_ERROR_RT_AICORE_EXCEPTION`: a block of an AI-core (cube or mixed) kernel faulted.
    RtAicoreException = 507015, "ACL_ERROR_RT_AICORE_EXCEPTION";
    /// `ACL_ERROR_RT_DEV_SETUP_ERROR`.
    RtDevSetupError = 507033, "ACL_ERROR_RT_DEV_SETUP_ERROR";
    /// `ACL_ERROR_RT_VECTOR_CORE_EXCEPTION`: a block of a vector-core kernel faulted.
    RtVectorCoreException = 507035, "ACL_ERROR_RT_VECTOR_CORE_EXCEPTION";
    /// `ACL_ERROR_RT_STREAM_SYNC_TIMEOUT`.
    RtStreamSyncTimeout = 507046, "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT";
    /// `ACL_ERROR_RT_EVENT_SYNC_TIMEOUT`.
    RtEventSyncTimeout = 507047, "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT";
    /// `ACL_ERROR_RT_LABEL_CONTEXT`: the label belongs to another context.
    RtLabelContext = 507031, "ACL_ERROR_RT_LABEL_CONTEXT";
    /// `ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED`: the host range overlaps a registered one.
    HostMemoryAlreadyRegistered = 507910, "ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED";
    /// `ACL_ERROR_HOST_MEMORY_NOT_REGISTERED`: no registration has that base.
    HostMemoryNotRegistered = 507911, "ACL_ERROR_HOST_MEMORY_NOT_REGISTERED";
    /// `ACL_ERROR_RT_DRV_INTERNAL_ERROR`.
    RtDrvInternalError = 507899, "ACL_ERROR_RT_DRV_INTERNAL_ERROR";
}

/// A message code of CANN's error manager (what `aclGetRecentErrMsg` reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MsgCode {
    /// ACL: a value of a parameter is invalid (range / must be positive).
    EH0007,
    /// ACL: a parameter must not be NULL.
    EH0008,
    /// ACL: a parameter is invalid, with the reason.
    EH0009,
    /// ACL: a reserved parameter must be NULL.
    EH0012,
    /// ACL: aclInit configuration differs from the first one.
    EH0004,
    /// RT: generic "execution failed" trailer.
    EE1001,
    /// RT: a parameter value is invalid.
    EE1003,
    /// RT: a parameter cannot be NULL.
    EE1004,
    /// RT: the device does not support the function.
    EE1005,
    /// RT: a stream flag is not supported.
    EE1006,
    /// RT: a stream cannot be bound.
    EE1007,
    /// RT: stream does not belong to the current context.
    EE1010,
    /// RT: a value is invalid for a stated reason.
    EE1011,
    /// RT: the operation is not valid on this device (an IPC notify waited on by a device
    /// other than its creator).
    EE1012,
    /// RT: not supported in this (capture) mode.
    EE1016,
    /// RT: invalid handle / parameter invalid with a reason.
    EE1017,
    /// RT: API call sequence error (no current context, …).
    EE1018,
    /// RT: a stream to unbind is not bound to the model.
    EE4002,
    /// RT: an inner error explained by the runtime itself: a task fault, a synchronize that
    /// timed out, and in the simulator the watchdog's explanation of a stalled device.
    EE9999,
}

impl fmt::Display for MsgCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// An error of an ACL call: CANN's code, the message code CANN reports with it (if any), and
/// a message saying what was wrong.
///
/// ```
/// use ascend_rt::{AclError, ErrorCode};
/// let e = AclError::new(ErrorCode::RtParamInvalid, None, "flag must be 0");
/// assert_eq!(e.code(), 107000);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{} ({}){}: {message}", kind.name(), number.unwrap_or(kind.number()), msg_code.map(|m| format!(" [{m}]")).unwrap_or_default())]
#[non_exhaustive]
pub struct AclError {
    /// The CANN code.
    pub kind: ErrorCode,
    /// The message code CANN reports, if it reports one.
    pub msg_code: Option<MsgCode>,
    /// What was wrong.
    pub message: String,
    /// CANN returns this failure on a path that does not store it as the thread's last error
    /// (see [`AclError::sets_last_error`]).
    pub(crate) skips_last_error: bool,
    /// The number, when `kind` is [`ErrorCode::Other`] (a code this crate does not know).
    pub number: Option<i32>,
    /// The simulator watchdog's diagnosis, when the call waited on a device that could not
    /// progress (see [`AclError::diagnosis`]).
    pub(crate) diagnosis: Option<Arc<Diagnosis>>,
}

impl AclError {
    /// An error with a code, an optional message code and a message.
    pub fn new(kind: ErrorCode, msg_code: Option<MsgCode>, message: impl Into<String>) -> Self {
        AclError {
            kind,
            msg_code,
            message: message.into(),
            skips_last_error: false,
            number: None,
            diagnosis: None,
        }
    }

    /// The error for a code a backend returned: its [`ErrorCode`] if known, otherwise
    /// [`ErrorCode::Other`] keeping the number.
    pub fn from_code(code: i32, message: impl Into<String>) -> Self {
        match ErrorCode::from_number(code) {
            Some(kind) => AclError::new(kind, None, message),
            None => AclError {
                number: Some(code),
                ..AclError::new(ErrorCode::Other, None, message)
            },
        }
    }

    /// The same failure, carrying the watchdog's diagnosis of why the device could not progress.
    pub(crate) fn with_diagnosis(mut self, diagnosis: Arc<Diagnosis>) -> Self {
        self.diagnosis = Some(diagnosis);
        self
    }

    /// Why the device could not progress, as data, when this is the failure of a call that
    /// waited on a stalled simulated device (a synchronize that timed out or that the watchdog
    /// ended): the blocked streams with their head tasks and what each waits for, and the
    /// host threads' waits. The message holds the same explanation as text. `None` for any
    /// other failure, and always on a real device.
    ///
    /// ```
    /// use ascend_rt::raw_types::{wait_flag, Addr, RawStream};
    /// use ascend_rt::Runtime;
    ///
    /// let rt = Runtime::sim("Ascend910B1").unwrap();
    /// rt.set_device(0).unwrap();
    /// let mut flag = Addr::NULL;
    /// rt.malloc(Some(&mut flag), 8, 0).unwrap();
    /// // Wait for a value nothing will ever write.
    /// rt.value_wait(flag, 1, wait_flag::GEQ, RawStream::default()).unwrap();
    /// let err = rt.synchronize_stream_with_timeout(RawStream::default(), 50).unwrap_err();
    /// let why = err.diagnosis().expect("the watchdog explains the stall");
    /// assert_eq!(why.blocked.len(), 1);
    /// assert!(err.message.contains(&why.text));
    /// ```
    pub fn diagnosis(&self) -> Option<&Diagnosis> {
        self.diagnosis.as_deref()
    }

    /// The same failure, returned on one of the few RT paths that bypass the last-error store
    /// (e.g. `aclrtGetDevice` without a device).
    pub(crate) fn without_last_error(mut self) -> Self {
        self.skips_last_error = true;
        self
    }

    /// Whether CANN stores this failure's code as the thread's last error (what
    /// `aclrtGetLastError` returns). The RT C entry stores the external code of every failure
    /// it returns through `GetRtExtErrCodeAndSetGlobalErr` (`src/runtime/api/api_global_err.cc`),
    /// feature-gate warnings included; ACL-layer failures (the `EH` messages, codes 1000xx,
    /// 2000xx, 5000xx) never reach it, and a few RT early returns bypass it.
    pub fn sets_last_error(&self) -> bool {
        let rt_code =
            matches!(self.code(), 107_000..=107_999 | 207_000..=207_999 | 507_000..=507_999);
        let acl_layer = matches!(
            self.msg_code,
            Some(
                MsgCode::EH0004
                    | MsgCode::EH0007
                    | MsgCode::EH0008
                    | MsgCode::EH0009
                    | MsgCode::EH0012
            )
        );
        rt_code && !acl_layer && !self.skips_last_error
    }

    /// CANN's numeric code.
    pub fn code(&self) -> i32 {
        self.number.unwrap_or(self.kind.number())
    }

    /// Whether CANN stores this failure as the thread's recent error message with a message
    /// code. Feature-gate rejections that CANN only logs as a warning carry none; the
    /// simulator still keeps their explanation for `aclGetRecentErrMsg`, marked as its own.
    pub fn is_reported(&self) -> bool {
        self.msg_code.is_some()
    }
}

/// Result of an ACL call.
pub type AclResult<T> = Result<T, AclError>;

/// Constructors for the failures the validation tables name, so that each table row reads as
/// one line.
pub(crate) mod fail {
    use super::{AclError, ErrorCode, MsgCode};

    /// ACL layer: a pointer parameter is NULL (100000, EH0008).
    pub fn acl_null(api: &str, param: &str) -> AclError {
        AclError::new(
            ErrorCode::InvalidParam,
            Some(MsgCode::EH0008),
            format!("{api} failed: parameter {param} must not be NULL"),
        )
    }

    /// ACL layer: a value is out of range (100000, EH0007).
    pub fn acl_range(
        api: &str,
        param: &str,
        value: impl std::fmt::Display,
        expected: &str,
    ) -> AclError {
        AclError::new(
            ErrorCode::InvalidParam,
            Some(MsgCode::EH0007),
            format!(
                "{api} failed: value {value} of parameter {param} is invalid, expected {expected}"
            ),
        )
    }

    /// ACL layer: a reserved parameter must be NULL (100000, EH0012).
    pub fn acl_reserved(api: &str, param: &str) -> AclError {
        AclError::new(
            ErrorCode::InvalidParam,
            Some(MsgCode::EH0012),
            format!("{api} failed: reserved parameter {param} must be NULL"),
        )
    }

    /// RT layer: a parameter is NULL (107000, EE1004).
    pub fn rt_null(api: &str, param: &str) -> AclError {
        AclError::new(
            ErrorCode::RtParamInvalid,
            Some(MsgCode::EE1004),
            format!("{api} failed: {param} cannot be NULL"),
        )
    }

    /// RT layer: a value is invalid (107000, EE1003).
    pub fn rt_value(
        api: &str,
        param: &str,
        value: impl std::fmt::Display,
        expected: &str,
    ) -> AclError {
        AclError::new(
            ErrorCode::RtParamInvalid,
            Some(MsgCode::EE1003),
            format!(
                "{api} failed: value {value} for parameter {param} is invalid; expected {expected}"
            ),
        )
    }

    /// RT layer: a value is invalid for a reason (107000, EE1011).
    pub fn rt_reason(
        api: &str,
        param: &str,
        value: impl std::fmt::Display,
        reason: &str,
    ) -> AclError {
        AclError::new(
            ErrorCode::RtParamInvalid,
            Some(MsgCode::EE1011),
            format!(
                "{api} failed: value {value} for parameter {param} is invalid, reason: {reason}"
            ),
        )
    }

    /// RT layer: the chip lacks the feature (207000; only a warning in CANN's log).
    pub fn not_supported(api: &str, soc: &str, what: &str) -> AclError {
        AclError::new(
            ErrorCode::RtFeatureNotSupport,
            None,
            format!("{api}: not supported on {soc}: {what}"),
        )
    }

    /// RT layer: the chip lacks the feature, reported with EE1005.
    pub fn not_supported_reported(api: &str, soc: &str, what: &str) -> AclError {
        AclError::new(
            ErrorCode::RtFeatureNotSupport,
            Some(MsgCode::EE1005),
            format!("current device ({soc}) does not support {api}: {what}"),
        )
    }

    /// RT layer: a handle is not a live object of the right type (107017, EE1017).
    pub fn invalid_handle(api: &str, param: &str, value: u64) -> AclError {
        AclError::new(
            ErrorCode::RtInvalidHandle,
            Some(MsgCode::EE1017),
            format!("{api} failed: parameter {param} ({value:#x}) is invalid, reason: not a live handle of this type"),
        )
    }

    /// RT layer: no context is bound to the calling thread (107002, EE1018).
    pub fn no_context(api: &str) -> AclError {
        AclError::new(
            ErrorCode::RtContextNull,
            Some(MsgCode::EE1018),
            format!("{api} failed: no valid context is bound to the thread; call aclrtSetDevice or aclrtSetCurrentContext first"),
        )
    }

    /// RT layer: the stream belongs to another context (107003, EE1010).
    pub fn stream_context(api: &str, stream: u64, stream_ctx: u64, current: u64) -> AclError {
        AclError::new(
            ErrorCode::RtStreamContext,
            Some(MsgCode::EE1010),
            format!("{api} failed: stream {stream:#x} belongs to context {stream_ctx:#x}, not to the current context {current:#x}"),
        )
    }

    /// Core: the stream is not bound to a model (507000).
    pub fn not_in_model(api: &str, stream: u64) -> AclError {
        AclError::new(
            ErrorCode::RtInternalError,
            Some(MsgCode::EE9999),
            format!("{api} failed: stream {stream:#x} is not bound to a model running instance; bind it with aclmdlRIBindStream (the runtime's model-null error)"),
        )
    }

    /// Any code with a message and no message code.
    pub fn plain(kind: ErrorCode, message: impl Into<String>) -> AclError {
        AclError::new(kind, None, message)
    }
}
