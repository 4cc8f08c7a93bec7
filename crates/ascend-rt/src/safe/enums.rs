//! Rust enums for the ACL enum values the safe level takes (the CMO type, wait mode and copy
//! kind are the shared vocabulary of `ascend-types`).

use crate::raw_types::{malloc_policy, stream_failure_mode, stream_flag};

pub use ascend_types::{CmoType, MemcpyKind, WaitMode};

/// `aclrtMemMallocPolicy` (the eight base policies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MallocPolicy {
    /// Huge pages first, normal pages as fallback.
    HugeFirst,
    /// Huge pages only.
    HugeOnly,
    /// Normal pages only.
    NormalOnly,
    /// `HugeFirst`, P2P-capable.
    HugeFirstP2p,
    /// `HugeOnly`, P2P-capable.
    HugeOnlyP2p,
    /// `NormalOnly`, P2P-capable.
    NormalOnlyP2p,
    /// 1 GiB huge pages only (no padding added).
    Huge1gOnly,
    /// `Huge1gOnly`, P2P-capable.
    Huge1gOnlyP2p,
}

impl MallocPolicy {
    /// The raw value.
    pub fn raw(self) -> u32 {
        match self {
            MallocPolicy::HugeFirst => malloc_policy::HUGE_FIRST,
            MallocPolicy::HugeOnly => malloc_policy::HUGE_ONLY,
            MallocPolicy::NormalOnly => malloc_policy::NORMAL_ONLY,
            MallocPolicy::HugeFirstP2p => malloc_policy::HUGE_FIRST_P2P,
            MallocPolicy::HugeOnlyP2p => malloc_policy::HUGE_ONLY_P2P,
            MallocPolicy::NormalOnlyP2p => malloc_policy::NORMAL_ONLY_P2P,
            MallocPolicy::Huge1gOnly => malloc_policy::HUGE1G_ONLY,
            MallocPolicy::Huge1gOnlyP2p => malloc_policy::HUGE1G_ONLY_P2P,
        }
    }
}

/// Settings of `aclrtCreateStreamWithConfig`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StreamConfig {
    /// Priority, 0 (highest) to the chip's lowest; clamped by the runtime.
    pub priority: u32,
    /// `ACL_STREAM_FAST_LAUNCH`.
    pub fast_launch: bool,
    /// `ACL_STREAM_FAST_SYNC`.
    pub fast_sync: bool,
    /// `ACL_STREAM_PERSISTENT`: may be bound to a model running instance.
    pub persistent: bool,
    /// `ACL_STREAM_HUGE`.
    pub huge: bool,
    /// `ACL_STREAM_CPU_SCHEDULE`.
    pub cpu_schedule: bool,
    /// `ACL_STREAM_DEVICE_USE_ONLY`.
    pub device_use_only: bool,
}

impl StreamConfig {
    /// A persistent stream (for model running instances).
    pub fn persistent() -> StreamConfig {
        StreamConfig {
            persistent: true,
            ..StreamConfig::default()
        }
    }

    /// The raw flag word.
    pub fn flags(&self) -> u32 {
        let bit = |on: bool, b: u32| if on { b } else { 0 };
        bit(self.fast_launch, stream_flag::FAST_LAUNCH)
            | bit(self.fast_sync, stream_flag::FAST_SYNC)
            | bit(self.persistent, stream_flag::PERSISTENT)
            | bit(self.huge, stream_flag::HUGE)
            | bit(self.cpu_schedule, stream_flag::CPU_SCHEDULE)
            | bit(self.device_use_only, stream_flag::DEVICE_USE_ONLY)
    }
}

/// What a stream does with its later tasks after one of its tasks fails
/// (`aclrtSetStreamFailureMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FailureMode {
    /// The later tasks run (`ACL_CONTINUE_ON_FAILURE`, the default).
    #[default]
    ContinueOnFailure,
    /// The later tasks are discarded (`ACL_STOP_ON_FAILURE`).
    StopOnFailure,
}

impl FailureMode {
    /// The raw value.
    pub fn raw(self) -> u64 {
        match self {
            FailureMode::ContinueOnFailure => stream_failure_mode::CONTINUE_ON_FAILURE,
            FailureMode::StopOnFailure => stream_failure_mode::STOP_ON_FAILURE,
        }
    }
}
