//! Stream creation through a config handle: `aclrtCreateStreamConfigHandle`,
//! `aclrtSetStreamConfigOpt`, `aclrtCreateStreamV2`, `aclrtDestroyStreamConfigHandle`.
//!
//! The only implementation in the vendor's tree is the C runtime library
//! (`src/acl/aclrt_c/runtime/stream.c`): its checks only log, so every ACL-level failure here
//! is 100000 without a message code. The handle is plain host memory (`aclrtStreamConfigHandle`
//! in `include/external/acl/acl_rt.h`); [`RawStreamConfig`] is its Rust form. The runtime call
//! behind `aclrtCreateStreamV2` (`rtStreamCreateWithConfig`) is not in the tree; its flag and
//! priority are given the checks of `aclrtCreateStreamWithConfig` (assumed).

use super::Runtime;
use crate::error::{AclError, AclResult, ErrorCode};
use crate::raw_types::{stream_config_attr as attr, RawStream, RawStreamConfig};

/// An ACL-level failure of these calls: 100000, logged only.
fn invalid(api: &str, what: impl std::fmt::Display) -> AclError {
    AclError::new(
        ErrorCode::InvalidParam,
        None,
        format!("{api} failed: {what}"),
    )
}

impl Runtime {
    /// `aclrtCreateStreamConfigHandle()`: a zeroed handle (priority 0, no flags).
    pub fn create_stream_config_handle(&self) -> RawStreamConfig {
        RawStreamConfig::default()
    }

    /// `aclrtDestroyStreamConfigHandle(handle)`: `None` (NULL) is 100000.
    pub fn destroy_stream_config_handle(&self, handle: Option<RawStreamConfig>) -> AclResult<()> {
        self.call(|| match handle {
            Some(_) => Ok(()),
            None => Err(invalid("aclrtDestroyStreamConfigHandle", "handle is NULL")),
        })
    }

    /// `aclrtSetStreamConfigOpt(handle, attr, attrValue, valueSize)`: `value` is the bytes at
    /// `attrValue` (its length is `valueSize`), read in native byte order.
    ///
    /// Order (all 100000): handle or attrValue NULL; attr ≥ 4; valueSize not the option's size
    /// (`void*` for WORK_ADDR_PTR, `size_t` for WORK_SIZE and FLAG, `uint32_t` for PRIORITY);
    /// a priority above 7.
    pub fn set_stream_config_opt(
        &self,
        handle: Option<&mut RawStreamConfig>,
        attribute: u32,
        value: Option<&[u8]>,
    ) -> AclResult<()> {
        self.set_stream_config_opt_sized(handle, attribute, value.map(|v| (v.len(), v)))
    }

    /// [`Runtime::set_stream_config_opt`] with the value's declared size apart from its bytes,
    /// for a caller that must not read `valueSize` bytes before the size is checked (the C
    /// library passes at most the 8 bytes an option takes).
    pub fn set_stream_config_opt_sized(
        &self,
        handle: Option<&mut RawStreamConfig>,
        attribute: u32,
        value: Option<(usize, &[u8])>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtSetStreamConfigOpt";
            let (Some(h), Some((size, v))) = (handle, value) else {
                return Err(invalid(api, "handle or attrValue is NULL"));
            };
            let want = match attribute {
                attr::WORK_ADDR_PTR | attr::WORK_SIZE | attr::FLAG => 8,
                attr::PRIORITY => 4,
                _ => return Err(invalid(api, format_args!("attr {attribute} is invalid"))),
            };
            if size != want || v.len() != want {
                return Err(invalid(
                    api,
                    format_args!("valueSize {size} is invalid, it should be {want}"),
                ));
            }
            let word = |b: &[u8]| -> u64 {
                let mut buf = [0u8; 8];
                buf[..b.len()].copy_from_slice(b);
                u64::from_ne_bytes(buf)
            };
            match attribute {
                attr::WORK_ADDR_PTR => h.work_ptr = word(v),
                attr::WORK_SIZE => h.work_size = word(v),
                attr::FLAG => h.flag = word(v),
                _ => {
                    let p = word(v) as u32;
                    if p > attr::MAX_PRIORITY {
                        return Err(invalid(
                            api,
                            format_args!("priority {p} is invalid, it should be in [0, 7]"),
                        ));
                    }
                    h.priority = p;
                }
            }
            Ok(())
        })
    }

    /// `aclrtCreateStreamV2(&stream, handle)`: a stream with the handle's flag and priority
    /// (`None` = a zeroed handle). Order: stream NULL (100000, no message); then the stream
    /// flag checks of `aclrtCreateStreamWithConfig` (207000 / 107000, EE1006); no current
    /// context (107002, EE1018).
    pub fn create_stream_v2(
        &self,
        stream: Option<&mut RawStream>,
        handle: Option<&RawStreamConfig>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCreateStreamV2";
            let out = stream.ok_or_else(|| invalid(api, "stream is NULL"))?;
            let cfg = handle.copied().unwrap_or_default();
            let flags = self.check_stream_flags(api, cfg.flag as u32)?;
            let priority = cfg.priority.min(self.chip.limits.priority_max);
            *out = self.create_stream_inner(api, priority, flags)?;
            Ok(())
        })
    }
}
