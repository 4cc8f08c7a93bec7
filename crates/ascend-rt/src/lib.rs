//! `ascend-rt`: the Ascend runtime (ACL) API for stream-memory operations
//! (`aclrtValueWrite`, `aclrtValueWait`) and cache maintenance (the six `aclrtCmo*` calls),
//! with the device, memory, stream, event and model calls around them.
//!
//! Two levels:
//! - the raw level, [`Runtime`]: one method per ACL function, raw handles and enum values,
//!   nullable addresses and out-parameters, so anything the C API accepts can be passed;
//! - the safe level, [`safe`]: owned handles that release themselves, Rust enums and
//!   `Result<_, AclError>`.
//!
//! Start with the [`guide`]: the two synchronisation scenarios at the safe level, what the
//! types guarantee, and testing one's own pipeline with proptest on the simulator.
//!
//! Every call is validated once, here, in CANN's order and with CANN's exact error codes, and
//! then executed by a backend: the simulator (feature `sim`, the default) or real hardware
//! (feature `hw`). The backends trust that validation, so they are not reachable from outside
//! this crate: no safe program can hand one an unchecked length or address. The simulator is
//! inspected through [`SimView`].
//!
//! ```compile_fail
//! // The backend seam is private: a program cannot call a backend past the validation.
//! let rt = ascend_rt::Runtime::sim("Ascend910B1").unwrap();
//! let _ = rt.backend();
//! ```
//!
//! ```compile_fail
//! use ascend_rt::backend::Backend;
//! ```

mod backend;
pub mod data_types;
#[cfg(feature = "sim")]
pub mod device_service;
pub mod error;
pub mod guide;
pub mod raw_types;
mod runtime;
pub mod safe;
/// The simulator's settings and a builder of a [`Runtime`] over it.
#[cfg(feature = "sim")]
#[path = "sim_config.rs"]
pub mod sim;

pub use ascend_types::{dcci_kind, CmoDescFields, CmoDescLayout, CoreType, Kernel, KernelOps};
pub use ascend_types::{BlockedStream, Diagnosis};
#[cfg(feature = "hw")]
pub use backend::hw::HwError;
pub use backend::HostFn;
pub use error::{AclError, AclResult, ErrorCode, MsgCode};
pub use raw_types::RawStream;
pub use runtime::SimKernelFactory;
#[cfg(feature = "sim")]
pub use runtime::SimView;
pub use runtime::MAX_KERNEL_ARGS_BYTES;
pub use runtime::OVERFLOW_STATUS_BYTES;
pub use runtime::{npu_arch, DEVICE_STATUS_NORMAL, RES_LIMIT_TYPES};
pub use runtime::{random_rt_type, RawRandomParam, RawRandomTaskInfo, MAX_LABELS};
pub use runtime::{AddressClass, HostBuffer, MemDst, MemSrc, RecentError, Runtime, RuntimeOptions};
pub use runtime::{AllocatorField, AllocatorFields, StreamStateCallback};
pub use runtime::{CannPackageVersion, ACL_VERSION, SIM_PACKAGE_VERSION};
pub use runtime::{ExceptionCallback, ExceptionInfo};
pub use runtime::{HostMemory, SharedBytes, MEM_ATTACH_GLOBAL};
pub use runtime::{IpcEventHandle, IPC_EVENT_HANDLE_SIZE, VMM_EXPORT_NO_PID_VALIDATION};
pub use runtime::{
    IPC_KEY_LEN, IPC_MEM_EXPORT_NO_PID_VALIDATION, IPC_MEM_IMPORT_ENABLE_PEER_ACCESS,
};
pub use runtime::{IPC_NOTIFY_EXPORT_NO_PID_VALIDATION, IPC_NOTIFY_IMPORT_ENABLE_PEER_ACCESS};
