//! The raw vocabulary of the ACL C API: opaque nullable handles, nullable device addresses and
//! the numeric values of every enum and flag, exactly as the C headers define them.
//!
//! Raw values stay raw (`u32`, `i32`) at this level so that a test or a C caller can pass
//! anything the C API accepts, including out-of-range values.

/// A nullable stream handle (`aclrtStream`); 0 is NULL (the default stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawStream(pub u64);

/// A nullable event handle (`aclrtEvent`); 0 is NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawEvent(pub u64);

/// A nullable model running instance handle (`aclmdlRI`); 0 is NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawModel(pub u64);

/// A nullable context handle (`aclrtContext`); 0 is NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawContext(pub u64);

/// A nullable address (`void*`): device memory, registered host memory, or anything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Addr(pub u64);

impl Addr {
    /// The NULL address.
    pub const NULL: Addr = Addr(0);

    /// True for NULL.
    pub fn is_null(self) -> bool {
        self.0 == 0
    }

    /// The address `offset` bytes further on.
    pub fn offset(self, offset: u64) -> Addr {
        Addr(self.0.wrapping_add(offset))
    }
}

impl RawStream {
    /// The NULL stream (the current context's default stream).
    pub const NULL: RawStream = RawStream(0);
}

/// `aclrtCmoType` values.
pub mod cmo_type {
    use ascend_types::CmoType;
    /// `ACL_RT_CMO_TYPE_PREFETCH`.
    pub const PREFETCH: u32 = CmoType::Prefetch as u32;
    /// `ACL_RT_CMO_TYPE_WRITEBACK`.
    pub const WRITEBACK: u32 = CmoType::Writeback as u32;
    /// `ACL_RT_CMO_TYPE_INVALID`.
    pub const INVALID: u32 = CmoType::Invalid as u32;
    /// `ACL_RT_CMO_TYPE_FLUSH`.
    pub const FLUSH: u32 = CmoType::Flush as u32;
    /// What the ACL layer adds to get the runtime opcode (`RT_CMO_PREFETCH` = 6).
    pub const RT_OPCODE_OFFSET: u32 = ascend_types::CMO_OPCODE_OFFSET;
    /// The runtime's reserved opcode (`RT_CMO_RESERVED`), first invalid one.
    pub const RT_OPCODE_RESERVED: u32 = 10;
}

/// `ACL_RT_CMO_MAX_BARRIER_NUM`: entries of an `aclrtBarrierTaskInfo`.
pub const CMO_MAX_BARRIER_NUM: usize = 6;

/// `aclrtValueWait` compare flags.
pub mod wait_flag {
    use ascend_types::WaitMode;
    /// `ACL_STREAM_WAIT_VALUE_GEQ`.
    pub const GEQ: u32 = WaitMode::Geq as u32;
    /// `ACL_STREAM_WAIT_VALUE_EQ`.
    pub const EQ: u32 = WaitMode::Eq as u32;
    /// `ACL_STREAM_WAIT_VALUE_AND`.
    pub const AND: u32 = WaitMode::And as u32;
    /// `ACL_STREAM_WAIT_VALUE_NOR`.
    pub const NOR: u32 = WaitMode::Nor as u32;
    /// `MEM_WAIT_VALUE_TYPE_MAX`: first invalid flag.
    pub const MAX: u32 = 4;
}

/// `aclrtCreateStreamWithConfig` flag bits.
pub mod stream_flag {
    /// `ACL_STREAM_FAST_LAUNCH`.
    pub const FAST_LAUNCH: u32 = 0x1;
    /// `ACL_STREAM_FAST_SYNC`.
    pub const FAST_SYNC: u32 = 0x2;
    /// `ACL_STREAM_PERSISTENT`: may be bound to a model.
    pub const PERSISTENT: u32 = 0x4;
    /// `ACL_STREAM_HUGE`.
    pub const HUGE: u32 = 0x8;
    /// `ACL_STREAM_CPU_SCHEDULE`.
    pub const CPU_SCHEDULE: u32 = 0x10;
    /// `ACL_STREAM_DEVICE_USE_ONLY`.
    pub const DEVICE_USE_ONLY: u32 = 0x20;
    /// The bits the ACL layer translates; others are dropped.
    pub const ACL_MASK: u32 = 0x3F;
}

/// `aclmdlRIBindStream` flag values.
pub mod model_stream_flag {
    /// `ACL_MODEL_STREAM_FLAG_HEAD`.
    pub const HEAD: u32 = 0;
    /// `ACL_MODEL_STREAM_FLAG_DEFAULT`.
    pub const DEFAULT: u32 = 0x7FFF_FFFF;
}

/// `aclrtMemcpyKind` values.
pub mod memcpy_kind {
    use ascend_types::MemcpyKind;
    /// `ACL_MEMCPY_HOST_TO_HOST`.
    pub const HOST_TO_HOST: u32 = MemcpyKind::HostToHost as u32;
    /// `ACL_MEMCPY_HOST_TO_DEVICE`.
    pub const HOST_TO_DEVICE: u32 = MemcpyKind::HostToDevice as u32;
    /// `ACL_MEMCPY_DEVICE_TO_HOST`.
    pub const DEVICE_TO_HOST: u32 = MemcpyKind::DeviceToHost as u32;
    /// `ACL_MEMCPY_DEVICE_TO_DEVICE`.
    pub const DEVICE_TO_DEVICE: u32 = MemcpyKind::DeviceToDevice as u32;
    /// `ACL_MEMCPY_DEFAULT`: direction from the addresses.
    pub const DEFAULT: u32 = MemcpyKind::Default as u32;
    /// `ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE`.
    pub const HOST_TO_BUF_TO_DEVICE: u32 = MemcpyKind::HostToBufToDevice as u32;
    /// `ACL_MEMCPY_INNER_DEVICE_TO_DEVICE` (rejected by aclrtMemcpy).
    pub const INNER_DEVICE_TO_DEVICE: u32 = 6;
    /// `ACL_MEMCPY_INTER_DEVICE_TO_DEVICE` (rejected by aclrtMemcpy).
    pub const INTER_DEVICE_TO_DEVICE: u32 = 7;
}

/// `aclrtMemMallocPolicy` values.
pub mod malloc_policy {
    /// `ACL_MEM_MALLOC_HUGE_FIRST`.
    pub const HUGE_FIRST: u32 = 0;
    /// `ACL_MEM_MALLOC_HUGE_ONLY`.
    pub const HUGE_ONLY: u32 = 1;
    /// `ACL_MEM_MALLOC_NORMAL_ONLY`.
    pub const NORMAL_ONLY: u32 = 2;
    /// `ACL_MEM_MALLOC_HUGE_FIRST_P2P`.
    pub const HUGE_FIRST_P2P: u32 = 3;
    /// `ACL_MEM_MALLOC_HUGE_ONLY_P2P`.
    pub const HUGE_ONLY_P2P: u32 = 4;
    /// `ACL_MEM_MALLOC_NORMAL_ONLY_P2P`.
    pub const NORMAL_ONLY_P2P: u32 = 5;
    /// `ACL_MEM_MALLOC_HUGE1G_ONLY`.
    pub const HUGE1G_ONLY: u32 = 6;
    /// `ACL_MEM_MALLOC_HUGE1G_ONLY_P2P`.
    pub const HUGE1G_ONLY_P2P: u32 = 7;
    /// `ACL_MEM_TYPE_LOW_BAND_WIDTH`.
    pub const TYPE_LOW_BAND_WIDTH: u32 = 0x0100;
    /// `ACL_MEM_TYPE_HIGH_BAND_WIDTH`.
    pub const TYPE_HIGH_BAND_WIDTH: u32 = 0x1000;
    /// `ACL_MEM_ACCESS_USER_SPACE_READONLY`.
    pub const ACCESS_USER_SPACE_READONLY: u32 = 0x0010_0000;
}

/// `aclrtStreamStatus` values.
pub mod stream_status {
    /// `ACL_STREAM_STATUS_COMPLETE`.
    pub const COMPLETE: u32 = 0;
    /// `ACL_STREAM_STATUS_NOT_READY`.
    pub const NOT_READY: u32 = 1;
}

/// `aclrtEventRecordedStatus` values.
pub mod event_recorded_status {
    /// `ACL_EVENT_RECORDED_STATUS_NOT_READY`.
    pub const NOT_READY: u32 = 0;
    /// `ACL_EVENT_RECORDED_STATUS_COMPLETE`.
    pub const COMPLETE: u32 = 1;
}

/// One entry of an `aclrtBarrierTaskInfo`, raw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RawBarrierCmoInfo {
    /// `aclrtCmoType` (raw).
    pub cmo_type: u32,
    /// Logical barrier id.
    pub barrier_id: u32,
}

/// `aclrtBarrierTaskInfo`, raw: `barrier_num` may disagree with the array (as in C).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RawBarrierTaskInfo {
    /// Number of valid entries (1..=6 when valid).
    pub barrier_num: usize,
    /// The entries; only the first `barrier_num` are read.
    pub cmo_info: [RawBarrierCmoInfo; CMO_MAX_BARRIER_NUM],
}

/// Runs a raw call that writes one out-parameter, starting from `T::default()` (NULL for a
/// handle), and returns what it wrote: sugar over the raw level's `Option<&mut T>` outputs.
///
/// ```
/// use ascend_rt::raw_types::{with_out, RawLabel};
/// use ascend_rt::Runtime;
///
/// let rt = Runtime::sim("Ascend910B1").unwrap();
/// rt.set_device(0).unwrap();
/// let label: RawLabel = with_out(|out| rt.create_label(Some(out))).unwrap();
/// assert_ne!(label, RawLabel::default());
/// // The same call given NULL is refused, as in C.
/// assert_eq!(rt.create_label(None).unwrap_err().code(), 100000);
/// ```
pub fn with_out<T: Default, E>(call: impl FnOnce(&mut T) -> Result<(), E>) -> Result<T, E> {
    let mut value = T::default();
    call(&mut value)?;
    Ok(value)
}

/// A nullable kernel binary handle (`aclrtBinHandle`); 0 is NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawBinary(pub u64);

/// A nullable kernel function handle (`aclrtFuncHandle`); 0 is NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawFunction(pub u64);

/// A nullable kernel argument list handle (`aclrtArgsHandle`); 0 is NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawArgs(pub u64);

/// A nullable handle of one argument in a kernel argument list (`aclrtParamHandle`); 0 is
/// NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawParam(pub u64);

/// A nullable label handle (`aclrtLabel`); 0 is NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawLabel(pub u64);

/// A nullable label list handle (`aclrtLabelList`); 0 is NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawLabelList(pub u64);

/// The NULL value of each kernel and label handle.
macro_rules! null_handles {
    ($($t:ident),*) => {
        $(impl $t {
            #[doc = concat!("The NULL `", stringify!($t), "`.")]
            pub const NULL: $t = $t(0);
        })*
    };
}
null_handles!(
    RawBinary,
    RawFunction,
    RawArgs,
    RawParam,
    RawLabel,
    RawLabelList
);

/// A nullable notify handle (`aclrtNotify`); 0 is NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawNotify(pub u64);

/// Event creation flags (`aclrtCreateEventWithFlag`, `aclrtCreateEventExWithFlag`): the ACL
/// values are passed to the runtime unchanged, so they share the runtime's bit positions.
pub mod event_flag {
    /// `ACL_EVENT_SYNC` (runtime `RT_EVENT_DDSYNC_NS`): the event can be used on model-bound
    /// streams.
    pub const SYNC: u32 = 0x1;
    /// `ACL_EVENT_CAPTURE_STREAM_PROGRESS` (runtime `RT_EVENT_STREAM_MARK`).
    pub const CAPTURE_STREAM_PROGRESS: u32 = 0x2;
    /// Runtime `RT_EVENT_DDSYNC` (no ACL name).
    pub const RT_DDSYNC: u32 = 0x4;
    /// `ACL_EVENT_TIME_LINE` (runtime `RT_EVENT_TIME_LINE`).
    pub const TIME_LINE: u32 = 0x8;
    /// `ACL_EVENT_DEVICE_USE_ONLY` (runtime `RT_EVENT_MC2`); only alone.
    pub const DEVICE_USE_ONLY: u32 = 0x10;
    /// `ACL_EVENT_EXTERNAL` (runtime `RT_EVENT_EXTERNAL`); only alone.
    pub const EXTERNAL: u32 = 0x20;
    /// `ACL_EVENT_IPC` (runtime `RT_EVENT_IPC`); Ex mode only, alone.
    pub const IPC: u32 = 0x40;
    /// Runtime `RT_EVENT_DEFAULT`: what `aclrtCreateEvent` uses (DDSYNC | STREAM_MARK | TIME_LINE).
    pub const RT_DEFAULT: u32 = 0x0E;
    /// Runtime `RT_EVENT_FLAG_MAX`: every flag `aclrtCreateEventWithFlag` accepts.
    pub const RT_FLAG_MAX: u32 = 0x3F;
    /// The flags `aclrtCreateEventExWithFlag` accepts (the first four and IPC).
    pub const RT_EX_FLAG_MAX: u32 = 0x4F;
}

/// `aclrtEventStatus` values (`aclrtQueryEvent`).
pub mod event_status {
    /// `ACL_EVENT_STATUS_COMPLETE`.
    pub const COMPLETE: u32 = 0;
    /// `ACL_EVENT_STATUS_NOT_READY`.
    pub const NOT_READY: u32 = 1;
}

/// `aclrtCreateNotify` flags.
pub mod notify_flag {
    /// `ACL_NOTIFY_DEFAULT`.
    pub const DEFAULT: u64 = 0;
    /// `ACL_NOTIFY_DEVICE_USE_ONLY` (runtime `RT_NOTIFY_FLAG_DOWNLOAD_TO_DEV`).
    pub const DEVICE_USE_ONLY: u64 = 1;
}

/// `aclrtWaitAndResetNotify` timeouts (seconds; cann docs `08_notify_management.md`).
pub mod notify_timeout {
    /// 0: wait forever.
    pub const FOREVER: u32 = 0;
    /// `UINT32_MAX`: the runtime's plain (untimed) notify wait.
    pub const PLAIN_WAIT: u32 = u32::MAX;
}

/// `aclrtRunMode` values.
pub mod run_mode {
    /// `ACL_DEVICE`: the program runs on the device's own CPU.
    pub const DEVICE: u32 = 0;
    /// `ACL_HOST`: the program runs on a host that drives the device.
    pub const HOST: u32 = 1;
}

/// `aclrtLastErrLevel` values.
pub mod last_err_level {
    /// `ACL_RT_THREAD_LEVEL`: the calling thread's last error (the only level ACL accepts).
    pub const THREAD: u32 = 0;
}

/// `aclrtDevResLimitType` values.
pub mod dev_res_limit_type {
    /// `ACL_RT_DEV_RES_CUBE_CORE`.
    pub const CUBE_CORE: u32 = 0;
    /// `ACL_RT_DEV_RES_VECTOR_CORE`.
    pub const VECTOR_CORE: u32 = 1;
    /// The runtime's `RT_DEV_RES_TYPE_MAX`: first invalid type.
    pub const MAX: u32 = 2;
}

/// `aclrtStreamConfigAttr` values (`aclrtSetStreamConfigOpt`) and the value size each takes.
pub mod stream_config_attr {
    /// `ACL_RT_STREAM_WORK_ADDR_PTR`: a `void*`.
    pub const WORK_ADDR_PTR: u32 = 0;
    /// `ACL_RT_STREAM_WORK_SIZE`: a `size_t`.
    pub const WORK_SIZE: u32 = 1;
    /// `ACL_RT_STREAM_FLAG`: a `size_t` of stream flags.
    pub const FLAG: u32 = 2;
    /// `ACL_RT_STREAM_PRIORITY`: a `uint32_t` in [0, 7].
    pub const PRIORITY: u32 = 3;
    /// Highest priority the option accepts (`ACL_RT_MAX_PRIORITY`).
    pub const MAX_PRIORITY: u32 = 7;
}

/// `aclrtSetStreamFailureMode` values.
pub mod stream_failure_mode {
    /// `ACL_CONTINUE_ON_FAILURE`.
    pub const CONTINUE_ON_FAILURE: u64 = 0;
    /// `ACL_STOP_ON_FAILURE`.
    pub const STOP_ON_FAILURE: u64 = 1;
}

/// `aclrtErrorType` values (`aclrtGetErrorVerbose`).
pub mod error_type {
    /// `ACL_RT_NO_ERROR`.
    pub const NO_ERROR: u32 = 0;
}

/// `aclrtStreamConfigHandle`, raw: what `aclrtSetStreamConfigOpt` fills in and
/// `aclrtCreateStreamV2` reads. A new handle is all zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RawStreamConfig {
    /// `workptr`: a work area address (recorded, unused by the simulator).
    pub work_ptr: u64,
    /// `workSize`.
    pub work_size: u64,
    /// `flag`: stream flags (`ACL_STREAM_*`).
    pub flag: u64,
    /// `priority`.
    pub priority: u32,
}

/// `aclrtErrorInfo`, raw: the fields `aclrtGetErrorVerbose` sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RawErrorInfo {
    /// `tryRepair`.
    pub try_repair: u8,
    /// `hasDetail`.
    pub has_detail: u8,
    /// `errorType` (`aclrtErrorType`).
    pub error_type: u32,
    /// `detail.aicoreErrType` (`aclrtAicoreErrorType`).
    pub aicore_err_type: u32,
}

/// `aclrtUtilizationInfo`, raw: percentages, or -1 where the query failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RawUtilization {
    /// `cubeUtilization`.
    pub cube: i32,
    /// `vectorUtilization`.
    pub vector: i32,
    /// `aicpuUtilization`.
    pub aicpu: i32,
    /// `memoryUtilization` (always -1: the runtime does not query it).
    pub memory: i32,
}

/// `aclrtStreamState` values.
pub mod stream_state {
    /// `ACL_RT_STREAM_STATE_CREATE_POST`: after a stream is created.
    pub const CREATE_POST: u32 = 1;
    /// `ACL_RT_STREAM_STATE_DESTROY_PRE`: before a stream is destroyed.
    pub const DESTROY_PRE: u32 = 2;
}

/// `aclCannAttr` values.
pub mod cann_attr {
    /// `ACL_CANN_ATTR_INF_NAN`: the float computation units follow IEEE infinities and NaNs.
    pub const INF_NAN: i32 = 0;
    /// `ACL_CANN_ATTR_BF16`: bfloat16 is supported.
    pub const BF16: i32 = 1;
    /// `ACL_CANN_ATTR_JIT_COMPILE`: operators can be compiled just in time.
    pub const JIT_COMPILE: i32 = 2;
}

/// `aclrtDevFeatureType` values the runtime accepts.
pub mod dev_feature {
    /// `ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV`.
    pub const TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV: i32 = 1;
    /// `ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV`.
    pub const SYSTEM_MEMQ_EVENT_CROSS_DEV: i32 = 21;
    /// The runtime's AI CPU schedule type query (not in the public enum).
    pub const AICPU_SCHEDULE_TYPE: i32 = 10001;
    /// The runtime's task-id width query (not in the public enum).
    pub const SYSTEM_TASKID_BIT_WIDTH: i32 = 20001;
    /// One past the largest value the runtime's range check accepts.
    pub const MAX: i32 = 20002;
}

/// `aclrtFloatOverflowMode` values.
pub mod overflow_mode {
    /// `ACL_RT_OVERFLOW_MODE_SATURATION`: results saturate.
    pub const SATURATION: u32 = 0;
    /// `ACL_RT_OVERFLOW_MODE_INFNAN`: results follow IEEE infinities and NaNs.
    pub const INFNAN: u32 = 1;
    /// `ACL_RT_OVERFLOW_MODE_UNDEF`.
    pub const UNDEF: u32 = 2;
}

/// `aclmdlRICaptureMode` values.
pub mod capture_mode {
    /// `ACL_MODEL_RI_CAPTURE_MODE_GLOBAL`: unsafe calls are refused on every thread.
    pub const GLOBAL: u32 = 0;
    /// `ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL`: unsafe calls are refused on the capturing
    /// thread.
    pub const THREAD_LOCAL: u32 = 1;
    /// `ACL_MODEL_RI_CAPTURE_MODE_RELAXED`: nothing is refused.
    pub const RELAXED: u32 = 2;
}

/// `aclmdlRICaptureStatus` values.
pub mod capture_status {
    /// Not capturing.
    pub const NONE: u32 = 0;
    /// Capturing.
    pub const ACTIVE: u32 = 1;
}

/// `aclrtCallbackBlockType`: the stream goes on without waiting for the callback (0), or waits
/// for it to return (1).
pub mod callback_block {
    /// `ACL_CALLBACK_NO_BLOCK`.
    pub const NO_BLOCK: u32 = 0;
    /// `ACL_CALLBACK_BLOCK`.
    pub const BLOCK: u32 = 1;
}

/// `aclrtHostRegisterV2` flags (`ACL_HOST_REG_*`).
pub mod host_reg_flag {
    /// `ACL_HOST_REG_MAPPED`: the device gets a pointer to the memory.
    pub const MAPPED: u32 = 0x2;
    /// `ACL_HOST_REG_IOMEMORY`: I/O memory (mapped too).
    pub const IOMEMORY: u32 = 0x4;
    /// `ACL_HOST_REG_READONLY`: the device only reads it (mapped too).
    pub const READONLY: u32 = 0x8;
    /// `ACL_HOST_REG_PINNED`: pinned against swapping; no device pointer by itself.
    pub const PINNED: u32 = 0x1000_0000;
    /// Every flag the runtime accepts.
    pub const ALL: u32 = MAPPED | IOMEMORY | READONLY | PINNED;
}

/// `aclrtHostRegisterType` values of `aclrtHostRegister`.
pub mod host_register_type {
    /// `ACL_HOST_REGISTER_MAPPED`.
    pub const MAPPED: u32 = 0;
    /// `ACL_HOST_REGISTER_IOMEMORY`.
    pub const IOMEMORY: u32 = 0x4;
    /// `ACL_HOST_REGISTER_READONLY`.
    pub const READONLY: u32 = 0x8;
}

/// `aclrtDevAttr` values.
pub mod dev_attr {
    /// `ACL_DEV_ATTR_AICPU_CORE_NUM`.
    pub const AICPU_CORE_NUM: i32 = 1;
    /// `ACL_DEV_ATTR_AICORE_CORE_NUM`.
    pub const AICORE_CORE_NUM: i32 = 101;
    /// `ACL_DEV_ATTR_CUBE_CORE_NUM`.
    pub const CUBE_CORE_NUM: i32 = 102;
    /// `ACL_DEV_ATTR_VECTOR_CORE_NUM`.
    pub const VECTOR_CORE_NUM: i32 = 201;
    /// `ACL_DEV_ATTR_WARP_SIZE`.
    pub const WARP_SIZE: i32 = 202;
    /// `ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE`.
    pub const MAX_THREAD_PER_VECTOR_CORE: i32 = 203;
    /// `ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE`.
    pub const UBUF_PER_VECTOR_CORE: i32 = 204;
    /// `ACL_DEV_ATTR_MAX_GRID_DIM_X` (206, 207: Y, Z).
    pub const MAX_GRID_DIM_X: i32 = 205;
    /// `ACL_DEV_ATTR_MAX_BLOCK_PER_GRID`.
    pub const MAX_BLOCK_PER_GRID: i32 = 208;
    /// `ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK`.
    pub const MAX_THREADS_PER_BLOCK: i32 = 209;
    /// `ACL_DEV_ATTR_MAX_BLOCK_DIM_X` (211, 212: Y, Z).
    pub const MAX_BLOCK_DIM_X: i32 = 210;
    /// `ACL_DEV_ATTR_MAX_BLOCK_DIM_Z`.
    pub const MAX_BLOCK_DIM_Z: i32 = 212;
    /// `ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE`.
    pub const TOTAL_GLOBAL_MEM_SIZE: i32 = 301;
    /// `ACL_DEV_ATTR_L2_CACHE_SIZE`.
    pub const L2_CACHE_SIZE: i32 = 302;
    /// `ACL_DEV_ATTR_SMP_ID` (401) … `ACL_DEV_ATTR_DEVICE_FORM_FACTOR` (409).
    pub const SMP_ID: i32 = 401;
    /// `ACL_DEV_ATTR_PHY_CHIP_ID`.
    pub const PHY_CHIP_ID: i32 = 402;
    /// `ACL_DEV_ATTR_DEVICE_FORM_FACTOR`.
    pub const DEVICE_FORM_FACTOR: i32 = 409;
    /// `ACL_DEV_ATTR_IS_VIRTUAL`.
    pub const IS_VIRTUAL: i32 = 501;
    /// `ACL_DEV_ATTR_NPU_ARCH`.
    pub const NPU_ARCH: i32 = 601;
}

/// A nullable physical memory handle (`aclrtDrvMemHandle`, from `aclrtMallocPhysical` or an
/// import of a shareable handle); 0 is NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawPhysical(pub u64);

impl RawPhysical {
    /// The NULL handle.
    pub const NULL: RawPhysical = RawPhysical(0);
}

/// `aclrtMemLocation`: where memory lies (`kind`: an `aclrtMemLocationType`, see
/// [`mem_location`]; `id`: the device id, or 0 on the host).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MemLocation {
    /// `id`.
    pub id: u32,
    /// `type`.
    pub kind: u32,
}

/// `aclrtMemLocationType` values.
pub mod mem_location {
    /// `ACL_MEM_LOCATION_TYPE_HOST`.
    pub const HOST: u32 = 0;
    /// `ACL_MEM_LOCATION_TYPE_DEVICE`.
    pub const DEVICE: u32 = 1;
    /// `ACL_MEM_LOCATION_TYPE_UNREGISTERED`.
    pub const UNREGISTERED: u32 = 2;
    /// `ACL_MEM_LOCATION_TYPE_MANAGED`.
    pub const MANAGED: u32 = 3;
    /// `ACL_MEM_LOCATION_TYPE_HOST_NUMA`: host memory of a NUMA node (`id`).
    pub const HOST_NUMA: u32 = 4;
}

/// `aclrtPhysicalMemProp`: what `aclrtMallocPhysical` allocates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PhysicalMemProp {
    /// `handleType` (`aclrtMemHandleType`: only `ACL_MEM_HANDLE_TYPE_NONE`, 0).
    pub handle_type: u32,
    /// `allocationType` (`aclrtMemAllocationType`: only `ACL_MEM_ALLOCATION_TYPE_PINNED`, 0).
    pub allocation_type: u32,
    /// `memAttr` (`aclrtMemAttr`: the memory and page type, e.g. `ACL_HBM_MEM_NORMAL`, 5).
    pub mem_attr: u32,
    /// `location`.
    pub location: MemLocation,
    /// `reserve`.
    pub reserve: u64,
}

/// `aclrtMemAccessDesc`: an access right of one location to a mapped range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MemAccessDesc {
    /// `flags` (`aclrtMemAccessFlags`: `ACL_RT_MEM_ACCESS_FLAGS_NONE` 0, `_READ` 1,
    /// `_READWRITE` 3).
    pub flags: u32,
    /// `location`.
    pub location: MemLocation,
}

/// `aclrtMemSharedHandleType` values, and the size of each form of a shareable handle.
pub mod mem_share {
    /// `ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT`: a 64-bit handle.
    pub const DEFAULT: u32 = 0x1;
    /// `ACL_MEM_SHARE_HANDLE_TYPE_FABRIC`: a 128-byte `aclrtMemFabricHandle` that names its
    /// server too.
    pub const FABRIC: u32 = 0x2;
    /// Bytes of an `aclrtMemFabricHandle`.
    pub const FABRIC_BYTES: usize = 128;
}
