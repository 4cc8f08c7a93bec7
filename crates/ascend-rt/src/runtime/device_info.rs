//! Device queries and per-device settings: `aclrtGetDeviceInfo`,
//! `aclrtDeviceGetStreamPriorityRange`, `aclrtQueryDeviceStatus`,
//! `aclrtGetDeviceUtilizationRate`, and the resource limits (`aclrtSetDeviceResLimit`,
//! `aclrtGetDeviceResLimit`, `aclrtResetDeviceResLimit`).
//!
//! Rows and values from the vendor's runtime (docs/validation/devices-contexts.md, Device
//! queries). The resource limits are bookkeeping here: the simulator's kernels do not tell
//! cube from vector cores, so a limit does not change where blocks run.

use super::chip_caps::{core_counts, simt};
use super::compat::npu_arch;
use super::Runtime;
use crate::backend::DeviceCall;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::dev_attr;
use crate::raw_types::RawUtilization;

/// `aclrtDevResLimitType`: cube cores (0) and vector cores (1).
pub const RES_LIMIT_TYPES: u32 = 2;

/// `ACL_RT_DEVICE_STATUS_NORMAL`.
pub const DEVICE_STATUS_NORMAL: u32 = 0;

/// A form factor the simulated device reports: a PCIe card (`ACL_DEV_FORM_FACTOR_PCIE_CARD`,
/// assumed).
const FORM_FACTOR_PCIE_CARD: i64 = 3;

impl Runtime {
    /// `aclrtGetDeviceInfo(deviceId, attr, &value)`. Order: value NULL (100000, EH0008); a
    /// device id past the device count (107000, EE1003: this call reports a bad id as a bad
    /// value); an attribute the runtime does not know (107000, EE1003); the cube-core count or
    /// architecture of a SoC whose platform file lacks it (107000, EE9999). Needs no context.
    pub fn get_device_info(
        &self,
        device: u32,
        attr: i32,
        value: Option<&mut i64>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtGetDeviceInfo";
            let out = value.ok_or_else(|| fail::acl_null(api, "value"))?;
            let count = self.backend.device_count()?;
            if device >= count {
                return Err(fail::rt_value(
                    api,
                    "deviceId",
                    device,
                    &format!("[0, {count})"),
                ));
            }
            if let Some(v) = self
                .backend
                .device_call(DeviceCall::Info { device, attr })?
            {
                *out = v;
                return Ok(());
            }
            let chip = self.chip();
            let cores = core_counts(chip);
            let simt = simt(chip);
            let missing = |what: &str| {
                AclError::new(
                    ErrorCode::RtParamInvalid,
                    Some(MsgCode::EE9999),
                    format!(
                        "{api} failed: the platform information of {} has no {what}",
                        chip.soc_name
                    ),
                )
            };
            use dev_attr::*;
            *out = match attr {
                AICPU_CORE_NUM => i64::from(cores.aicpu),
                AICORE_CORE_NUM => i64::from(cores.aicore),
                CUBE_CORE_NUM => i64::from(cores.cube.ok_or_else(|| missing("cube core count"))?),
                VECTOR_CORE_NUM => i64::from(cores.vector),
                WARP_SIZE => {
                    if simt {
                        32
                    } else {
                        0
                    }
                }
                MAX_THREAD_PER_VECTOR_CORE | MAX_THREADS_PER_BLOCK => {
                    if simt {
                        2048
                    } else {
                        0
                    }
                }
                UBUF_PER_VECTOR_CORE => {
                    if simt {
                        221_184
                    } else {
                        0
                    }
                }
                205..=208 => {
                    if simt {
                        65_535
                    } else {
                        0
                    }
                }
                MAX_BLOCK_DIM_X..=MAX_BLOCK_DIM_Z => {
                    if simt {
                        2048
                    } else {
                        0
                    }
                }
                TOTAL_GLOBAL_MEM_SIZE => chip.memory.device_bytes as i64,
                L2_CACHE_SIZE => chip.cache.l2_bytes as i64,
                PHY_CHIP_ID => i64::from(device),
                DEVICE_FORM_FACTOR => FORM_FACTOR_PCIE_CARD,
                SMP_ID..=408 | IS_VIRTUAL => 0,
                NPU_ARCH => i64::from(npu_arch(&chip.soc_name).ok_or_else(|| missing("NpuArch"))?),
                _ => {
                    return Err(fail::rt_value(
                        api,
                        "attr",
                        attr,
                        "one of 1, 101, 102, 201-212, 301, 302, 401-409, 501, 601",
                    ))
                }
            };
            Ok(())
        })
    }

    /// `aclrtDeviceGetStreamPriorityRange(&least, &greatest)`: 7 and 0 on every chip. Checks
    /// nothing: each non-NULL pointer is written, and the call succeeds even with both NULL.
    pub fn device_stream_priority_range(
        &self,
        least: Option<&mut i32>,
        greatest: Option<&mut i32>,
    ) -> AclResult<()> {
        self.call(|| {
            if let Some(l) = least {
                *l = 7;
            }
            if let Some(g) = greatest {
                *g = 0;
            }
            Ok(())
        })
    }

    /// `aclrtQueryDeviceStatus(deviceId, &status)`: normal (0). Order: status NULL (100000,
    /// EH0008); a device id out of range (107001, EE1003). Needs no context.
    pub fn query_device_status(&self, device: i32, status: Option<&mut u32>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtQueryDeviceStatus";
            let out = status.ok_or_else(|| fail::acl_null(api, "deviceStatus"))?;
            let device = self.check_device_id(api, device)?;
            *out = match self.backend.device_call(DeviceCall::Status { device })? {
                Some(v) => v as u32,
                None => DEVICE_STATUS_NORMAL,
            };
            Ok(())
        })
    }

    /// `aclrtGetDeviceUtilizationRate(deviceId, &info)`. Order: info NULL (100000, EH0008);
    /// its reserved extension pointer not NULL (100000, EH0012). Each field's query failing
    /// (a bad device id included) makes the field -1 rather than failing the call, as the
    /// vendor's does; memory utilization is always -1. The simulated device reports 0% for a
    /// device id in range (assumed: the query is answered when the program is between tasks).
    pub fn get_device_utilization_rate(
        &self,
        device: i32,
        info: Option<&mut RawUtilization>,
        extension_is_null: bool,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtGetDeviceUtilizationRate";
            let out = info.ok_or_else(|| fail::acl_null(api, "utilizationInfo"))?;
            if !extension_is_null {
                return Err(AclError::new(
                    ErrorCode::InvalidParam,
                    Some(MsgCode::EH0012),
                    format!(
                        "{api} failed: utilizationExtend is a reserved parameter and must be NULL"
                    ),
                ));
            }
            let count = self.backend.device_count()?;
            let pct = if device >= 0 && (device as u32) < count {
                0
            } else {
                -1
            };
            *out = RawUtilization {
                cube: pct,
                vector: pct,
                aicpu: pct,
                memory: -1,
            };
            Ok(())
        })
    }

    /// The checks the three resource-limit calls share after their own: a negative id
    /// (107001), then `kind` when given (107000, EE1003), then an id past the count (107001),
    /// then a device no thread of the process has opened (507033, EE9999).
    fn res_limit_device(&self, api: &str, device: i32, kind: Option<u32>) -> AclResult<u32> {
        if device < 0 {
            return Err(AclError::new(
                ErrorCode::RtInvalidDeviceId,
                Some(MsgCode::EE1003),
                format!("{api} failed: value {device} for parameter deviceId is invalid; expected a value greater than or equal to 0"),
            ));
        }
        if let Some(k) = kind {
            if k >= RES_LIMIT_TYPES {
                return Err(fail::rt_value(api, "type", k, "[0, 2)"));
            }
        }
        let dev = self.check_device_id(api, device)?;
        let st = self.lock();
        let open = st.devices.get(&dev).is_some_and(|r| r.refcount > 0)
            || st.contexts.values().any(|c| c.device == dev);
        if !open {
            return Err(AclError::new(
                ErrorCode::RtDevSetupError,
                Some(MsgCode::EE9999),
                format!("{api} failed: device {dev} is not open in this process (call aclrtSetDevice first)"),
            ));
        }
        Ok(dev)
    }

    /// The device's full core counts, cube then vector: where its limits start.
    fn res_limit_init(&self) -> [u32; 2] {
        let c = core_counts(self.chip());
        [c.cube.unwrap_or(c.aicore), c.vector]
    }

    /// `aclrtSetDeviceResLimit(deviceId, type, value)`: the cores of `type` the device's
    /// kernels may use, for every thread of the process, until the device is released or
    /// reset. Order: as [`Runtime::get_device_res_limit`] without the pointer; a value above the
    /// device's count (107000, EE1003). 0 is accepted.
    pub fn set_device_res_limit(&self, device: i32, kind: u32, value: u32) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtSetDeviceResLimit";
            let dev = self.res_limit_device(api, device, Some(kind))?;
            let init = self.res_limit_init();
            if value > init[kind as usize] {
                return Err(fail::rt_value(
                    api,
                    "value",
                    value,
                    &format!("a value less than or equal to {}", init[kind as usize]),
                ));
            }
            self.backend.device_call(DeviceCall::ResLimitSet {
                device: dev,
                kind,
                value,
            })?;
            self.lock().res_limits.entry(dev).or_insert(init)[kind as usize] = value;
            Ok(())
        })
    }

    /// `aclrtGetDeviceResLimit(deviceId, type, &value)`: the limit, or the full count when none
    /// was set. Order: value NULL (100000, EH0008); a negative id (107001, EE1003); a type
    /// other than 0 or 1 (107000, EE1003); an id past the count (107001, EE1003); a device not
    /// open in the process (507033, EE9999).
    pub fn get_device_res_limit(
        &self,
        device: i32,
        kind: u32,
        value: Option<&mut u32>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtGetDeviceResLimit";
            let out = value.ok_or_else(|| fail::acl_null(api, "value"))?;
            let dev = self.res_limit_device(api, device, Some(kind))?;
            if let Some(v) = self
                .backend
                .device_call(DeviceCall::ResLimitGet { device: dev, kind })?
            {
                *out = v as u32;
                return Ok(());
            }
            let init = self.res_limit_init();
            *out = self.lock().res_limits.get(&dev).unwrap_or(&init)[kind as usize];
            Ok(())
        })
    }

    /// `aclrtResetDeviceResLimit(deviceId)`: both limits back to the full counts. Order: a
    /// negative id, an id past the count (107001, EE1003); a device not open (507033).
    pub fn reset_device_res_limit(&self, device: i32) -> AclResult<()> {
        self.call(|| {
            let dev = self.res_limit_device("aclrtResetDeviceResLimit", device, None)?;
            self.backend
                .device_call(DeviceCall::ResLimitReset { device: dev })?;
            self.lock().res_limits.remove(&dev);
            Ok(())
        })
    }
}
