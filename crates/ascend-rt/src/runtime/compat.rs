//! Compatibility queries: `aclGetCannAttributeList`, `aclGetCannAttribute`,
//! `aclrtCheckArchCompatibility`, `aclrtGetDeviceCapability`.
//!
//! Behaviour from the vendor's runtime (docs/validation/devices-contexts.md, Compatibility):
//! the CANN attributes come from the ACL layer's feature list and the SoC's specification, the
//! architecture check compares NPU architecture numbers from the platform files, and the device
//! capability is the runtime's answer for its chip type.

use ascend_chips::ChipType;

use super::Runtime;
use crate::error::{fail, AclResult, ErrorCode};
use crate::raw_types::{cann_attr, dev_feature};

/// The NPU architecture number of each SoC the vendor's platform files name (their
/// `NpuArch`), grouped by number.
const NPU_ARCH: &[(u32, &[&str])] = &[
    (
        1001,
        &[
            "Ascend910A",
            "Ascend910B",
            "Ascend910PremiumA",
            "Ascend910ProA",
            "Ascend910ProB",
        ],
    ),
    (
        2002,
        &["Ascend310P1", "Ascend310P3", "Ascend310P5", "Ascend310P7"],
    ),
    (
        2201,
        &[
            "Ascend910B1",
            "Ascend910B2",
            "Ascend910B2C",
            "Ascend910B3",
            "Ascend910B4",
            "Ascend910B4-1",
            "Ascend910_9362",
            "Ascend910_9363",
            "Ascend910_9372",
            "Ascend910_9381",
            "Ascend910_9382",
            "Ascend910_9391",
            "Ascend910_9392",
        ],
    ),
    (
        3002,
        &["Ascend310B1", "Ascend310B2", "Ascend310B3", "Ascend310B4"],
    ),
    (3003, &["KirinX90"]),
    (3004, &["Ascend031"]),
    (3113, &["Kirin9030"]),
    (3505, &["Ascend035", "Ascend035A", "Ascend035B"]),
    (
        3510,
        &[
            "Ascend350_354f",
            "Ascend350_355e",
            "Ascend950DT_950x",
            "Ascend950DT_950y",
            "Ascend950DT_9571",
            "Ascend950DT_9572",
            "Ascend950DT_9573",
            "Ascend950DT_9574",
            "Ascend950DT_9575",
            "Ascend950DT_9576",
            "Ascend950DT_9577",
            "Ascend950DT_9578",
            "Ascend950DT_9581",
            "Ascend950DT_9581x",
            "Ascend950DT_9582",
            "Ascend950DT_9582x",
            "Ascend950DT_9583",
            "Ascend950DT_9584",
            "Ascend950DT_9585",
            "Ascend950DT_9586",
            "Ascend950DT_9587",
            "Ascend950DT_9588",
            "Ascend950DT_9591",
            "Ascend950DT_9592",
            "Ascend950DT_9595",
            "Ascend950DT_9596",
            "Ascend950DT_95A1",
            "Ascend950DT_95A2",
            "Ascend950PR_950z",
            "Ascend950PR_9579",
            "Ascend950PR_957b",
            "Ascend950PR_957bx",
            "Ascend950PR_957c",
            "Ascend950PR_957d",
            "Ascend950PR_9589",
            "Ascend950PR_958b",
            "Ascend950PR_9599",
        ],
    ),
    (5101, &["KirinDev0000"]),
    (5161, &["KirinDev0001"]),
    (5163, &["KirinDev0003"]),
    (5165, &["KirinDev0002"]),
];

/// The NPU architecture of SoC `name`, if a platform file names it.
pub fn npu_arch(name: &str) -> Option<u32> {
    NPU_ARCH
        .iter()
        .find(|(_, names)| names.contains(&name))
        .map(|(arch, _)| *arch)
}

impl Runtime {
    /// The CANN attributes this SoC has, in the vendor's order (INF_NAN, BF16, JIT_COMPILE):
    /// the runtime version (8.5) meets every attribute's minimum, bfloat16 and IEEE
    /// infinities/NaNs need the SoC's support (the A2/A3 and 950 families), and just-in-time
    /// compilation needs nothing more.
    pub fn cann_attributes(&self) -> &'static [i32] {
        use cann_attr::*;
        match self.chip().chip_type {
            ChipType::Cloud910B93 | ChipType::David => &[INF_NAN, BF16, JIT_COMPILE],
            _ => &[JIT_COMPILE],
        }
    }

    /// `aclGetCannAttributeList(&list, &num)`: [`Runtime::cann_attributes`]. Order: list NULL,
    /// then num NULL (100000, EH0008). `list` receives the attributes, `num` their count.
    pub fn get_cann_attribute_list(
        &self,
        list: Option<&mut &'static [i32]>,
        num: Option<&mut usize>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclGetCannAttributeList";
            let list = list.ok_or_else(|| fail::acl_null(api, "cannAttrList"))?;
            let num = num.ok_or_else(|| fail::acl_null(api, "num"))?;
            *list = self.cann_attributes();
            *num = list.len();
            Ok(())
        })
    }

    /// `aclGetCannAttribute(attr, &value)`: 1 when the SoC has the attribute, else 0. Order:
    /// value NULL (100000, EH0008); an attribute outside the enum (100000, only logged).
    pub fn get_cann_attribute(&self, attr: i32, value: Option<&mut i32>) -> AclResult<()> {
        self.call(|| {
            let api = "aclGetCannAttribute";
            let out = value.ok_or_else(|| fail::acl_null(api, "value"))?;
            if !(cann_attr::INF_NAN..=cann_attr::JIT_COMPILE).contains(&attr) {
                return Err(fail::plain(
                    ErrorCode::InvalidParam,
                    format!("{api} failed: attribute {attr} is not an aclCannAttr"),
                ));
            }
            *out = i32::from(self.cann_attributes().contains(&attr));
            Ok(())
        })
    }

    /// `aclrtCheckArchCompatibility(socVersion, &canCompatible)`: 1 when `socVersion` has the
    /// same NPU architecture as this device's SoC, else 0. Order: socVersion NULL, then
    /// canCompatible NULL (107000, EE1004); an empty name (107000); a name no platform file
    /// knows (107000, EE1011). Needs no device or context.
    pub fn check_arch_compatibility(
        &self,
        soc_version: Option<&str>,
        can_compatible: Option<&mut i32>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCheckArchCompatibility";
            let soc = soc_version.ok_or_else(|| fail::rt_null(api, "omSocVersion"))?;
            let out = can_compatible.ok_or_else(|| fail::rt_null(api, "canCompatible"))?;
            if soc.is_empty() {
                return Err(fail::plain(
                    ErrorCode::RtParamInvalid,
                    format!("{api} failed: omSocVersion is an empty string"),
                ));
            }
            let theirs = npu_arch(soc).ok_or_else(|| {
                fail::rt_reason(
                    api,
                    "omSocVersion",
                    soc,
                    "no platform information for this SoC",
                )
            })?;
            let ours_name = self.chip().soc_name.clone();
            let ours = npu_arch(&ours_name).ok_or_else(|| {
                fail::rt_reason(api, "socVersion", &ours_name, "the device's SoC is unknown")
            })?;
            *out = i32::from(theirs == ours);
            Ok(())
        })
    }

    /// `aclrtGetDeviceCapability(deviceId, feature, &value)`. Order: value NULL (100000,
    /// EH0008); a feature outside [0, 20002), then one the runtime does not know (107000,
    /// EE1003); a device id out of range (107001, EE1003); for feature 1, no current context
    /// (107002, EE1018). Feature 1 is 1 on the chip types with tiling-key sinking (A2/A3, 310P,
    /// 950), else 0; the driver queries (21) and the runtime-internal ones (10001, 20001)
    /// answer 0 here (assumed).
    pub fn get_device_capability(
        &self,
        device: i32,
        feature: i32,
        value: Option<&mut i32>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtGetDeviceCapability";
            let out = value.ok_or_else(|| fail::acl_null(api, "value"))?;
            use dev_feature::*;
            if !(0..MAX).contains(&feature) {
                return Err(fail::rt_value(api, "devFeatureType", feature, "[0, 20002)"));
            }
            let known = [
                TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV,
                SYSTEM_MEMQ_EVENT_CROSS_DEV,
                AICPU_SCHEDULE_TYPE,
                SYSTEM_TASKID_BIT_WIDTH,
            ];
            if !known.contains(&feature) {
                return Err(fail::rt_value(
                    api,
                    "devFeatureType",
                    feature,
                    "one of 1, 21, 10001, 20001",
                ));
            }
            let dev = self.check_device_id(api, device)?;
            if feature == TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV {
                self.require_context(api)?;
            }
            if let Some(v) = self
                .backend
                .device_call(crate::backend::DeviceCall::Capability {
                    device: dev,
                    feature,
                })?
            {
                *out = v as i32;
                return Ok(());
            }
            *out = if feature == TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV {
                self.require_context(api)?;
                let sink = matches!(
                    self.chip().chip_type,
                    ChipType::Cloud910B93 | ChipType::Dc | ChipType::David | ChipType::Ascend350
                );
                i32::from(sink)
            } else {
                0
            };
            Ok(())
        })
    }
}
