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

/// Core counts of a SoC as `aclrtGetDeviceInfo` reports them: AI cores and vector cores from
/// the chip file (its platform file's `ai_core_cnt` / `vector_core_cnt`); AI CPUs and whether
/// the platform file has a `cube_core_cnt` (310P and 910A do not) by chip type
/// (`src/platform/platform_config/*.ini`: `ai_cpu_cnt` 6 on the A2/A3 and 950 families, 7 on
/// 310P3, 4 on 310B1 and 910A).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct CoreCounts {
    pub aicpu: u32,
    pub aicore: u32,
    pub cube: Option<u32>,
    pub vector: u32,
}

/// [`CoreCounts`] of the chip.
pub(super) fn core_counts(chip: &ChipProfile) -> CoreCounts {
    let (aicore, vector) = (chip.cache.aic_cores, chip.cache.aiv_cores);
    let (aicpu, has_cube) = match chip.chip_type {
        ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350 => (6, true),
        ChipType::Dc => (7, false),
        ChipType::MiniV3 => (4, true),
        _ => (4, false),
    };
    CoreCounts {
        aicpu,
        aicore,
        cube: has_cube.then_some(aicore),
        vector,
    }
}

/// The SIMT properties `aclrtGetDeviceInfo` reports (warp size … block dimensions): the 950
/// and 350 families have them (`src/runtime/config/950/dev_info_reg.cc`), every other chip type
/// reports 0.
pub(super) fn simt(chip: &ChipProfile) -> bool {
    matches!(chip.chip_type, ChipType::David | ChipType::Ascend350)
}

/// Whether the model calls on a stream argument resolve NULL to the current context's default
/// stream and check its binding as the 910_B_93, 950 and 350 families' runtimes do (end-graph:
/// `src/runtime/api/impl/api_error.cc:4231` and `context.cc:2110-2113`; unbind: `:3953` and
/// `src/runtime/feature/model/model.cc:604-608`). The runtime's current-stream lookup reads NULL
/// as the default stream only on chips with the device-controlled send queue feature
/// (`src/runtime/core/src/runtime.cc:6017-6025`, `RT_FEATURE_DEVICE_CTRL_SQ`, registered by
/// exactly these three families: `config/910_B_93/dev_info_reg.cc:122`, `950/…:119`,
/// `350/…:119`). Elsewhere NULL stays NULL, and the end mark's first step, the send queue's
/// unlock, refuses it (107000: `src/runtime/api/api_c_model.cc:111`, `api_error.cc:6558-6563`);
/// that is why the 200I/500 A2 differs.
pub(super) fn model_calls_resolve_null_stream(chip: &ChipProfile) -> bool {
    error_verbose(chip)
}

/// `RT_FEATURE_IPC_MEMORY` (`aclrtIpcMem*`): every chip family but the 200I/500 A2 (310B)
/// (`src/runtime/config/*/dev_info_reg.cc`; docs/validation/ipc.md).
pub(super) fn ipc_memory(chip: &ChipProfile) -> bool {
    chip.chip_type != ChipType::MiniV3
}

/// A2's driver shares memory in the flat address mode: the link of an IPC key is not chosen
/// (`aclrtIpcMemSetAttr` is refused; A3 and the other chips take it).
pub(super) fn flat_address_mode(chip: &ChipProfile) -> bool {
    chip.chip_type == ChipType::Cloud910B93 && !fabric_sharing(chip)
}

/// The 950 family reaches other devices by UB paths, not by SIO or HCCS.
pub(super) fn ub_links(chip: &ChipProfile) -> bool {
    matches!(chip.chip_type, ChipType::David | ChipType::Ascend350)
}

/// 1 GiB pages for physical memory (`RT_FEATURE_MEM_1G_HUGE_PAGE`): A2, A3 and the 950
/// family register it (docs/validation/physical-memory.md).
pub(super) fn giant_pages(chip: &ChipProfile) -> bool {
    matches!(
        chip.chip_type,
        ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350
    )
}

/// Fabric shareable handles (cross-server physical memory sharing): documented for A3 only,
/// whose devices have a server id.
pub(super) fn fabric_sharing(chip: &ChipProfile) -> bool {
    chip.soc_name.starts_with("Ascend910_93")
}
