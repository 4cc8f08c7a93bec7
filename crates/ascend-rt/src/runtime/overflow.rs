//! Float overflow detection: the device's saturation mode (`aclrtSetDeviceSatMode`,
//! `aclrtGetDeviceSatMode`), the per-stream overflow switch (`aclrtSetStreamOverflowSwitch`,
//! `aclrtGetStreamOverflowSwitch`) and the overflow status (`aclrtGetOverflowStatus`,
//! `aclrtResetOverflowStatus`).
//!
//! Rows and chip differences from the vendor's runtime (docs/validation/overflow.md). The
//! simulator's kernels do no floating-point arithmetic of their own, so no overflow is ever
//! flagged: the status the device copies out is all zeros.

use ascend_chips::{ChipProfile, ChipType};
use ascend_types::Task;

use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::overflow_mode;
use crate::raw_types::{Addr, RawStream};

/// The bytes of overflow status `aclrtGetOverflowStatus` copies out.
pub const OVERFLOW_STATUS_BYTES: usize = 64;

/// The modes a chip supports (the runtime's `supportOverflowMode`): both on the A2/A3 family,
/// Inf/NaN only on 950/350, saturation only elsewhere.
fn supports(chip: &ChipProfile, mode: u32) -> bool {
    match chip.chip_type {
        ChipType::Cloud910B93 => true,
        ChipType::David | ChipType::Ascend350 => mode == overflow_mode::INFNAN,
        _ => mode == overflow_mode::SATURATION,
    }
}

/// The mode a process starts in: Inf/NaN where the chip has the runtime's overflow-mode
/// feature (A2/A3, 950/350), saturation elsewhere.
pub(super) fn default_mode(chip: &ChipProfile) -> u32 {
    match chip.chip_type {
        ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350 => overflow_mode::INFNAN,
        _ => overflow_mode::SATURATION,
    }
}

/// Chips with a per-stream overflow switch (`RT_FEATURE_STREAM_ATTR_OVERFLOW_CHECK`).
fn has_stream_switch(chip: &ChipProfile) -> bool {
    matches!(
        chip.chip_type,
        ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350
    )
}

/// Chips whose task scheduler is STARS: the others (310P, 910A) report the switch as always on.
fn stars(chip: &ChipProfile) -> bool {
    matches!(
        chip.chip_type,
        ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350 | ChipType::MiniV3
    )
}

impl Runtime {
    /// `aclrtSetDeviceSatMode(mode)`: the process's overflow mode, which the current device
    /// and the streams created afterwards take. Order: a mode of the enum the chip does not
    /// support (207000, a warning); saturation on a chip that only saturates succeeds at once;
    /// a mode outside the enum's first two (107000, EE1003). Needs no context.
    pub fn set_device_sat_mode(&self, mode: u32) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtSetDeviceSatMode";
            let chip = self.chip();
            if mode <= overflow_mode::INFNAN && !supports(chip, mode) {
                let only = if supports(chip, overflow_mode::INFNAN) {
                    "only the Inf/NaN mode"
                } else {
                    "only the saturation mode"
                };
                return Err(fail::not_supported(api, &chip.soc_name, only));
            }
            if mode > overflow_mode::INFNAN {
                return Err(fail::rt_value(api, "mode", mode, "[0, 2)"));
            }
            self.backend
                .device_call(crate::backend::DeviceCall::SatModeSet { mode })?;
            self.lock().sat_mode = Some(mode);
            Ok(())
        })
    }

    /// `aclrtGetDeviceSatMode(&mode)`: the process's overflow mode. Order: mode NULL (100000,
    /// EH0008). Needs no context.
    pub fn get_device_sat_mode(&self, mode: Option<&mut u32>) -> AclResult<()> {
        self.call(|| {
            let out = mode.ok_or_else(|| fail::acl_null("aclrtGetDeviceSatMode", "mode"))?;
            if let Some(v) = self
                .backend
                .device_call(crate::backend::DeviceCall::SatModeGet)?
            {
                *out = v as u32;
                return Ok(());
            }
            *out = self
                .lock()
                .sat_mode
                .unwrap_or_else(|| default_mode(self.chip()));
            Ok(())
        })
    }

    /// `aclrtSetStreamOverflowSwitch(stream, flag)`. Order: flag not 0 or 1 (100000, EH0007);
    /// on a chip without the per-stream switch (310P, 310B, 910A) success, with nothing checked
    /// further; the stream handle (107017); no current context (107002); a stream of another
    /// context (107003).
    pub fn set_stream_overflow_switch(&self, stream: RawStream, flag: u32) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtSetStreamOverflowSwitch";
            if flag > 1 {
                return Err(fail::acl_range(api, "flag", flag, "0 or 1"));
            }
            if !has_stream_switch(self.chip()) {
                return Ok(());
            }
            let mut st = self.lock();
            Self::check_stream_handle(&st, api, stream)?;
            let (handle, rec) = Self::impl_stream(&st, api, stream)?;
            self.backend
                .device_call(crate::backend::DeviceCall::OverflowSwitchSet {
                    stream: rec.backend,
                    flag,
                })?;
            if let Some(r) = st.streams.get_mut(&handle) {
                r.overflow_switch = Some(flag);
            }
            Ok(())
        })
    }

    /// `aclrtGetStreamOverflowSwitch(stream, &flag)`: the stream's switch (0 until set); always
    /// 1 on the chips without STARS (310P, 910A). Order: flag NULL (100000, EH0008); the stream
    /// handle (107017); no current context (107002); a stream of another context (107003).
    pub fn get_stream_overflow_switch(
        &self,
        stream: RawStream,
        flag: Option<&mut u32>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtGetStreamOverflowSwitch";
            let out = flag.ok_or_else(|| fail::acl_null(api, "flag"))?;
            let st = self.lock();
            Self::check_stream_handle(&st, api, stream)?;
            let (handle, rec) = Self::impl_stream(&st, api, stream)?;
            let call = crate::backend::DeviceCall::OverflowSwitchGet {
                stream: rec.backend,
            };
            if let Some(v) = self.backend.device_call(call)? {
                *out = v as u32;
                return Ok(());
            }
            *out = if stars(self.chip()) {
                st.streams
                    .get(&handle)
                    .and_then(|r| r.overflow_switch)
                    .unwrap_or(0)
            } else {
                1
            };
            Ok(())
        })
    }

    /// `aclrtGetOverflowStatus(outputAddr, outputSize, stream)`: puts on the stream a copy of
    /// the 64-byte overflow status into device memory at `outputAddr` (all zeros: nothing
    /// overflows in the simulator). Order: outputAddr NULL (100000, EH0008); the stream handle
    /// (107017); outputSize not 64 (107000); no current context (107002); a stream of another
    /// context (107003); `outputAddr` not 64 bytes of live device memory (107000, EE1003).
    pub fn get_overflow_status(
        &self,
        output: Addr,
        output_size: usize,
        stream: RawStream,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtGetOverflowStatus";
            if output.is_null() {
                return Err(fail::acl_null(api, "outputAddr"));
            }
            self.require_stream_handle(api, stream)?;
            if output_size != OVERFLOW_STATUS_BYTES {
                return Err(fail::plain(
                    ErrorCode::RtParamInvalid,
                    format!(
                        "{api} failed: outputSize {output_size} must be {OVERFLOW_STATUS_BYTES}"
                    ),
                ));
            }
            let rec = self.task_stream(api, stream)?;
            self.require_device_range(api, "outputAddr", output, OVERFLOW_STATUS_BYTES as u64)?;
            self.launch(
                &rec,
                Task::Memset {
                    addr: output.0,
                    value: 0,
                    len: OVERFLOW_STATUS_BYTES as u64,
                },
            )
        })
    }

    /// `aclrtResetOverflowStatus(stream)`: clears the overflow status, in stream order (the
    /// simulator's status is always clear, so nothing runs). Order: the stream handle
    /// (107017); no current context (107002); a stream of another context (107003).
    pub fn reset_overflow_status(&self, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtResetOverflowStatus";
            self.task_stream(api, stream)?;
            Ok(())
        })
    }

    /// `addr` is live device memory with at least `len` bytes to its allocation's end
    /// (107000, EE1003).
    pub(super) fn require_device_range(
        &self,
        api: &str,
        param: &str,
        addr: Addr,
        len: u64,
    ) -> AclResult<()> {
        match self.lock().locate(addr.0) {
            super::state::Location::Device { room, .. } if room >= len => Ok(()),
            _ => Err(AclError::new(
                ErrorCode::RtParamInvalid,
                Some(MsgCode::EE1003),
                format!(
                    "{api} failed: {param} {:#x} is not {len} bytes of live device memory",
                    addr.0
                ),
            )),
        }
    }
}
