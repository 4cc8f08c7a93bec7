//! Error queries: `aclrtGetLastError`, `aclrtPeekAtLastError`, `aclrtGetErrorVerbose`
//! (`aclGetRecentErrMsg` is in `mod.rs`).
//!
//! Behaviour from the vendor's runtime: `src/acl/aclrt_impl/context.cpp` (the level check),
//! `src/runtime/api/api_c.cc` (`rtGetLastError`, `rtPeekAtLastError`),
//! `src/runtime/api/impl/api_impl.cc` (`GetLastErr`, `PeekLastErr`, `GetErrorVerbose`),
//! `src/runtime/core/src/common/inner_thread_local.cpp` (get clears, peek does not),
//! `src/acl/aclrt_impl/event.cpp` and `src/runtime/api/api_c_device.cc` (`rtsGetErrorVerbose`).

use super::{chip_caps, Runtime};
use crate::error::{fail, AclResult};
use crate::raw_types::{error_type, last_err_level, RawErrorInfo};

impl Runtime {
    fn check_level(api: &str, level: u32) -> AclResult<()> {
        if level != last_err_level::THREAD {
            return Err(fail::acl_range(api, "level", level, "ACL_RT_THREAD_LEVEL"));
        }
        Ok(())
    }

    /// `aclrtGetLastError(level)`: the code of the calling thread's latest RT-level failure
    /// (0 if none), and clears it. Only `ACL_RT_THREAD_LEVEL` (0) is accepted; another level
    /// is `Err` 100000 (EH0007).
    ///
    /// ```
    /// use ascend_rt::{Runtime, raw_types::*};
    /// let rt = Runtime::sim("Ascend910B1").unwrap();
    /// rt.set_device(0).unwrap();
    /// assert!(rt.value_write(Addr(0x1000), 1, 0, RawStream::NULL).is_err()); // 107000
    /// assert_eq!(rt.get_last_error(last_err_level::THREAD).unwrap(), 107000);
    /// assert_eq!(rt.get_last_error(last_err_level::THREAD).unwrap(), 0);
    /// ```
    pub fn get_last_error(&self, level: u32) -> AclResult<i32> {
        self.call(|| {
            Self::check_level("aclrtGetLastError", level)?;
            Ok(self.errors.last_error(true))
        })
    }

    /// `aclrtPeekAtLastError(level)`: as [`Runtime::get_last_error`] without clearing.
    pub fn peek_at_last_error(&self, level: u32) -> AclResult<i32> {
        self.call(|| {
            Self::check_level("aclrtPeekAtLastError", level)?;
            Ok(self.errors.last_error(false))
        })
    }

    /// `aclrtGetErrorVerbose(deviceId, &errorInfo)`: details of a device fault. The simulator
    /// models no hardware faults, so a valid query reports `ACL_RT_NO_ERROR` with no detail.
    ///
    /// Order: errorInfo NULL (100000, EH0008); chip without the feature (207000, warning only,
    /// stored as the last error); device id outside [0, count) (107001, EE1003).
    pub fn get_error_verbose(&self, device: i32, info: Option<&mut RawErrorInfo>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtGetErrorVerbose";
            let out = info.ok_or_else(|| fail::acl_null(api, "errorInfo"))?;
            if !chip_caps::error_verbose(&self.chip) {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    "the chip cannot report detailed device errors",
                ));
            }
            self.check_device_id(api, device)?;
            *out = RawErrorInfo {
                try_repair: 0,
                has_detail: 0,
                error_type: error_type::NO_ERROR,
                aicore_err_type: 0,
            };
            Ok(())
        })
    }
}
