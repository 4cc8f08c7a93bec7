//! Chip capabilities the supporting calls need that the chip profiles do not carry, derived
//! from the runtime chip type. Each names the vendor file it was read from.

use ascend_chips::{ChipProfile, ChipType};

/// `RT_FEATURE_DFX_ERR_GET_AND_REPAIR` (`aclrtGetErrorVerbose`): registered for the
/// 910_B_93, 950 and 350 chip families (`src/runtime/config/*/dev_info_reg.cc`).
pub(super) fn error_verbose(chip: &ChipProfile) -> bool {
    matches!(
        chip.chip_type,
        ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350
    )
}

/// `RT_FEATURE_IPC_EVENT` (`aclrtCreateEventExWithFlag(ACL_EVENT_IPC)`): the same three
/// families (`src/runtime/config/*/dev_info_reg.cc`).
pub(super) fn ipc_event(chip: &ChipProfile) -> bool {
    error_verbose(chip)
}

/// Most notifies per device (docs `docs/zh/api_ref/08_notify_management.md`, aclrtCreateNotify
/// constraints): 65535 on 950, 8192 on A2/A3, 2048 on 200I/500 A2, 1024 on 310P and 910.
pub(super) fn max_notifies(chip: &ChipProfile) -> usize {
    match chip.chip_type {
        ChipType::David | ChipType::Ascend350 => 65535,
        ChipType::Cloud910B93 => 8192,
        ChipType::MiniV3 => 2048,
        _ => 1024,
    }
}
