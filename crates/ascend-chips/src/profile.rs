//! The typed chip profile: what one `sim-models/<SoC>.toml` file says, with plain values.
//!
//! Provenance (sourced / derived / assumed, and the source) of every number is kept beside the
//! values in [`ChipProfile::provenance`], keyed by the dotted TOML path (`limits.rtsq_depth`).

use std::collections::BTreeMap;

use crate::tagged::Provenance;

/// The runtime's chip family (`rtChipType`), which decides the scheduler generation and the
/// feature set. The discriminant is the runtime's own number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ChipType {
    /// `CHIP_MINI` (Ascend310, first generation).
    Mini = 0,
    /// `CHIP_CLOUD` (Ascend910A and other old training parts).
    Cloud = 1,
    /// `CHIP_DC` (Ascend310P, Atlas inference series).
    Dc = 4,
    /// `CHIP_910_B_93` (Atlas A2 `Ascend910B*` and Atlas A3 `Ascend910_93*`).
    Cloud910B93 = 5,
    /// `CHIP_MINI_V3` (Ascend310B, Atlas 200I/500 A2).
    MiniV3 = 7,
    /// `CHIP_DAVID` (Ascend 950PR / 950DT).
    David = 15,
    /// `CHIP_ASCEND_350`.
    Ascend350 = 19,
}

impl ChipType {
    /// Parses the name used in the TOML files (`"CHIP_910_B_93"` and so on).
    pub fn from_name(name: &str) -> Option<ChipType> {
        Some(match name {
            "CHIP_MINI" => ChipType::Mini,
            "CHIP_CLOUD" => ChipType::Cloud,
            "CHIP_DC" => ChipType::Dc,
            "CHIP_910_B_93" => ChipType::Cloud910B93,
            "CHIP_MINI_V3" => ChipType::MiniV3,
            "CHIP_DAVID" => ChipType::David,
            "CHIP_ASCEND_350" => ChipType::Ascend350,
            _ => return None,
        })
    }

    /// The runtime's number for this chip type.
    pub fn number(self) -> u32 {
        self as u32
    }

    /// True for the STARS v2 ("David") scheduler generation (950 family and Ascend350), whose
    /// runtime implementation differs in a few validation details.
    pub fn is_stars_v2(self) -> bool {
        matches!(self, ChipType::David | ChipType::Ascend350)
    }
}

/// Runtime feature flags of a chip (`RT_FEATURE_*`), which gate the APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Features {
    /// `RT_FEATURE_TASK_CMO`: `aclrtCmoAsync`, `aclrtCmoGetDescSize`, `aclrtCmoSetDesc`.
    pub task_cmo: bool,
    /// `RT_FEATURE_TASK_ASYNC_CMO`: `aclrtCmoAsyncWithBarrier`, `aclrtCmoWaitBarrier`.
    pub task_async_cmo: bool,
    /// `RT_FEATURE_MODEL_CMO_BARRIER`: barrier ids must be known to the model.
    pub model_cmo_barrier: bool,
    /// `RT_FEATURE_TASK_VALUE_WAIT`: `aclrtValueWrite`, `aclrtValueWait`.
    pub task_value_wait: bool,
    /// `RT_FEATURE_TASK_CMO_DOT_NO_LOG`: an unsupported CMO returns silently.
    pub task_cmo_dot_no_log: bool,
    /// Whether streams created with `ACL_STREAM_HUGE` are supported.
    pub stream_huge: bool,
    /// Whether `aclmdlRIExecuteAsync` is supported.
    pub model_execute_async: bool,
    /// The MC2 feature (the runtime's `mc2FeatureFlag` is non-zero): device-only streams
    /// (`ACL_STREAM_DEVICE_USE_ONLY`) and events (`ACL_EVENT_DEVICE_USE_ONLY`) can be created.
    pub mc2: bool,
    /// `RT_FEATURE_MEM_HOST_REGISTER`: host memory can be registered for the device
    /// (`aclrtHostRegister`, `aclrtHostRegisterV2`, `aclrtHostUnregister`); without it the
    /// runtime's driver layer refuses them with 207000 once their arguments and the context
    /// are checked.
    pub host_register: bool,
}

/// CMO parameters of a chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CmoParams {
    /// `aclrtCmoGetDescSize` result (`cmoDDRStructInfoSize`); 0 means the descriptor APIs are
    /// not supported.
    pub desc_size: u32,
    /// The CMO SQE version (1, 2 or 3).
    pub sqe_version: u32,
    /// The QoS class CMO traffic runs at on the copy engine.
    pub qos: u32,
}

/// Queue depths and resource counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Slots in each stream's hardware submission queue (`rtsqDepth`).
    pub rtsq_depth: u32,
    /// Slots of each queue kept in reserve (`rtsqReservedTaskNum`).
    pub rtsq_reserved: u32,
    /// Slots one value-wait task occupies (4 on STARS v1, 3 on STARS v2).
    pub value_wait_slots: u32,
    /// Most streams a device may have at once (the documented per-device count).
    pub max_streams: u32,
    /// Most events a device may have at once.
    pub max_events: u32,
    /// Most tasks a persistent (model-bound) stream may record.
    pub max_persist_tasks: u32,
    /// Lowest stream priority number (0 is the highest priority).
    pub priority_max: u32,
    /// Devices the simulated host sees.
    pub device_count: u32,
}

impl Limits {
    /// `maxTaskNumPerStream`: the slots a stream offers to tasks.
    pub fn max_tasks_per_stream(&self) -> u32 {
        self.rtsq_depth.saturating_sub(self.rtsq_reserved)
    }
}

/// Device memory parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryParams {
    /// Device memory capacity in bytes.
    pub device_bytes: u64,
    /// `aclrtMalloc` rounds sizes up to a multiple of this.
    pub malloc_round: u64,
    /// `aclrtMalloc` adds this padding (`AICoreSpec.padding_size`) before rounding.
    pub malloc_padding: u64,
    /// Alignment of the base address of every allocation.
    pub base_alignment: u64,
    /// Size of the simulator's lazily backed memory pages.
    pub backing_page_bytes: u64,
}

/// Cache geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheParams {
    /// L2 capacity in bytes.
    pub l2_bytes: u64,
    /// L2 line (model granule) in bytes.
    pub l2_line_bytes: u64,
    /// L2 associativity.
    pub l2_ways: u32,
    /// AI-core scalar data cache line in bytes.
    pub dcache_line_bytes: u64,
    /// AI-core scalar data cache capacity in bytes.
    pub dcache_bytes: u64,
    /// AI cores (cube cores) on the device.
    pub aic_cores: u32,
    /// Vector cores on the device.
    pub aiv_cores: u32,
    /// Whether the task scheduler's own memory accesses (value write, value-wait polls,
    /// reading CMO descriptors) go through the L2; false means they go around it to memory.
    pub scheduler_via_l2: bool,
    /// Whether the copy engine's device-side accesses (memcpy, memset, the runtime's writes
    /// of descriptor headers) go through the L2.
    pub copy_engine_via_l2: bool,
    /// Whether the AI cores' loads and stores (below their own data caches) go through the L2.
    pub ai_core_via_l2: bool,
    /// What a kernel's end does to each core's data cache: true, it is invalidated without
    /// write-back (the tail `dci` the 950 compiler emits, which drops unflushed scalar
    /// stores); false, its dirty lines are written back.
    pub kernel_end_drops_dcache: bool,
}

/// An agent that reads and writes device memory: whether it goes through the L2 is chip data
/// ([`CacheParams::via_l2`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum L2Agent {
    /// The task scheduler (value write and wait, CMO descriptor reads).
    Scheduler,
    /// The copy engine (memcpy, memset, host-initiated writes of device memory).
    CopyEngine,
    /// The AI cores.
    AiCore,
}

impl L2Agent {
    /// The agent's name as reports and chip files spell it (`copy_engine`).
    pub fn name(self) -> &'static str {
        match self {
            L2Agent::Scheduler => "scheduler",
            L2Agent::CopyEngine => "copy_engine",
            L2Agent::AiCore => "ai_core",
        }
    }
}

impl ChipProfile {
    /// Whether the chip's runtime accepts `op` at all (its feature gate, docs/products.md,
    /// "which flag gates which call"): the value calls need `task_value_wait`; the plain and
    /// descriptor CMOs `task_cmo` (a descriptor CMO also a descriptor size); the barrier pair
    /// `task_async_cmo`.
    ///
    /// ```
    /// use ascend_chips::{ChipProfile, TargetOp};
    /// let a2 = ChipProfile::builtin("Ascend910B1").unwrap();
    /// assert!(a2.supports(TargetOp::ValueWait));
    /// assert!(!a2.supports(TargetOp::CmoWaitBarrier));
    /// ```
    pub fn supports(&self, op: TargetOp) -> bool {
        let f = &self.features;
        match op {
            TargetOp::ValueWrite | TargetOp::ValueWait => f.task_value_wait,
            TargetOp::CmoAsync | TargetOp::CmoGetDescSize | TargetOp::CmoSetDesc => f.task_cmo,
            TargetOp::CmoAsyncWithDesc => f.task_cmo && self.cmo.desc_size > 0,
            TargetOp::CmoAsyncWithBarrier | TargetOp::CmoWaitBarrier => f.task_async_cmo,
        }
    }
}

impl CacheParams {
    /// Whether `agent`'s accesses go through the L2 (true) or around it to memory (false).
    ///
    /// ```
    /// use ascend_chips::{ChipProfile, L2Agent};
    /// let chip = ChipProfile::builtin("Ascend910B1").unwrap();
    /// assert!(chip.cache.via_l2(L2Agent::CopyEngine));
    /// ```
    pub fn via_l2(&self, agent: L2Agent) -> bool {
        match agent {
            L2Agent::Scheduler => self.scheduler_via_l2,
            L2Agent::CopyEngine => self.copy_engine_via_l2,
            L2Agent::AiCore => self.ai_core_via_l2,
        }
    }
}

/// Timings and bandwidths. Times in nanoseconds, bandwidths in bytes per nanosecond (= GB/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimingParams {
    /// Host cost of one task-launching API call.
    pub host_launch_ns: u64,
    /// Host cost of any other API call that reaches the device.
    pub host_call_ns: u64,
    /// Host cost of a status query (`aclrtStreamQuery`, `aclrtQueryEventStatus`).
    pub host_query_ns: u64,
    /// Host cost of a device allocation or free.
    pub host_alloc_ns: u64,
    /// Host cost of observing a completion in a synchronize call.
    pub host_sync_ns: u64,
    /// Scheduler time to fetch and dispatch one submission-queue entry.
    pub sqe_dispatch_ns: u64,
    /// Time for the scheduler to write a completion entry.
    pub cqe_ns: u64,
    /// Latency of one posted 64-bit write reaching the device-coherent point.
    pub value_write_ns: u64,
    /// Latency of one 64-bit load from the device-coherent point (a value-wait poll read).
    pub poll_read_ns: u64,
    /// Reads per value-wait pass before the queue head is rewound.
    pub poll_reads_per_pass: u32,
    /// Latency of an L2 hit.
    pub l2_hit_ns: u64,
    /// Latency of an L2 miss served from HBM/DDR.
    pub hbm_latency_ns: u64,
    /// HBM/DDR bandwidth.
    pub hbm_gbps: f64,
    /// L2 bandwidth.
    pub l2_gbps: f64,
    /// Host-to-device link bandwidth.
    pub h2d_gbps: f64,
    /// Device-to-host link bandwidth.
    pub d2h_gbps: f64,
    /// Fixed cost of one copy-engine (SDMA) job.
    pub dma_setup_ns: u64,
    /// Event record / wait task cost.
    pub event_ns: u64,
    /// Event timestamp counter frequency in ticks per millisecond (`eventTimestampFreq`).
    pub timestamp_ticks_per_ms: u64,
    /// AI-core clock in MHz.
    pub core_mhz: u64,
    /// Time from a kernel task's dispatch to its first block starting on a core.
    pub kernel_launch_ns: u64,
    /// Latency of a load or store that hits the AI core's data cache.
    pub dcache_hit_ns: u64,
}

/// The eight target operations of the runtime API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TargetOp {
    /// `aclrtValueWrite`.
    ValueWrite,
    /// `aclrtValueWait`.
    ValueWait,
    /// `aclrtCmoAsync`.
    CmoAsync,
    /// `aclrtCmoAsyncWithBarrier`.
    CmoAsyncWithBarrier,
    /// `aclrtCmoWaitBarrier`.
    CmoWaitBarrier,
    /// `aclrtCmoGetDescSize`.
    CmoGetDescSize,
    /// `aclrtCmoSetDesc`.
    CmoSetDesc,
    /// `aclrtCmoAsyncWithDesc`.
    CmoAsyncWithDesc,
}

impl TargetOp {
    /// All eight, in the API's order.
    pub const ALL: [TargetOp; 8] = [
        TargetOp::ValueWrite,
        TargetOp::ValueWait,
        TargetOp::CmoAsync,
        TargetOp::CmoAsyncWithBarrier,
        TargetOp::CmoWaitBarrier,
        TargetOp::CmoGetDescSize,
        TargetOp::CmoSetDesc,
        TargetOp::CmoAsyncWithDesc,
    ];

    /// The ACL name (`aclrtValueWrite`).
    pub fn acl_name(self) -> &'static str {
        match self {
            TargetOp::ValueWrite => "aclrtValueWrite",
            TargetOp::ValueWait => "aclrtValueWait",
            TargetOp::CmoAsync => "aclrtCmoAsync",
            TargetOp::CmoAsyncWithBarrier => "aclrtCmoAsyncWithBarrier",
            TargetOp::CmoWaitBarrier => "aclrtCmoWaitBarrier",
            TargetOp::CmoGetDescSize => "aclrtCmoGetDescSize",
            TargetOp::CmoSetDesc => "aclrtCmoSetDesc",
            TargetOp::CmoAsyncWithDesc => "aclrtCmoAsyncWithDesc",
        }
    }
}

/// Everything the project knows about one SoC.
#[derive(Debug, Clone, PartialEq)]
pub struct ChipProfile {
    /// The SoC version string `aclrtGetSocName` returns (`Ascend910B1`).
    pub soc_name: String,
    /// The product line it belongs to (`Atlas A2 training/inference series`).
    pub product: String,
    /// The runtime's chip family.
    pub chip_type: ChipType,
    /// Runtime features.
    pub features: Features,
    /// CMO parameters.
    pub cmo: CmoParams,
    /// Queue and resource limits.
    pub limits: Limits,
    /// Device memory.
    pub memory: MemoryParams,
    /// Caches and cores.
    pub cache: CacheParams,
    /// Timings.
    pub timing: TimingParams,
    /// Where each number comes from, keyed by dotted path (`limits.rtsq_depth`).
    pub provenance: BTreeMap<String, Provenance>,
}
