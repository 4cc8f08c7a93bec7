//! Errors of the `hw` backend: [`HwError`] (why the backend could not start) and the
//! mapping of the library's return codes to [`AclError`].

use std::ffi::CStr;

use ascend_rt_sys::{self as sys, acl_fn, LoadError};

use super::HwBackend;
use crate::error::{AclError, AclResult, ErrorCode};

/// Why the `hw` backend could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HwError {
    /// The runtime library (or a function it must have) is unavailable.
    #[error(transparent)]
    Library(#[from] LoadError),
    /// `aclInit` failed.
    #[error("aclInit failed: {0}")]
    Init(AclError),
    /// `aclrtGetSocName` returned NULL.
    #[error("the runtime library reports no SoC name (aclrtGetSocName returned NULL)")]
    NoSocName,
    /// The library reports a SoC this crate has no built-in profile for.
    #[error("the device's SoC `{soc}` has no built-in chip profile: {detail}")]
    UnknownSoc {
        /// What `aclrtGetSocName` returned.
        soc: String,
        /// Which SoCs are known.
        detail: String,
    },
}

/// A function the library lacks: `ACL_ERROR_API_NOT_SUPPORT`.
pub(super) fn missing(e: LoadError) -> AclError {
    AclError::new(ErrorCode::ApiNotSupport, None, e.to_string())
}

impl HwBackend {
    /// Maps a return code: 0 is success; anything else is an error carrying the library's
    /// recent error message, if it has one.
    pub(super) fn check(&self, api: &str, rc: sys::aclError) -> AclResult<()> {
        if rc == 0 {
            return Ok(());
        }
        let mut message = format!(
            "{api} returned {rc} (runtime library {:?})",
            self.lib.path()
        );
        if let Ok(recent) = acl_fn!(self.lib, aclGetRecentErrMsg) {
            // SAFETY: no arguments; the result is NULL or a NUL-terminated string valid until
            // the thread's next call of this function, copied out at once.
            let text = unsafe { recent() };
            if !text.is_null() {
                // SAFETY: non-NULL and NUL-terminated (above).
                let text = unsafe { CStr::from_ptr(text) }.to_string_lossy();
                message.push_str(": ");
                message.push_str(text.trim());
            }
        }
        Err(AclError::from_code(rc, message))
    }
}
