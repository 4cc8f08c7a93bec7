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
//! Every call is validated once, here, in CANN's order and with CANN's exact error codes, and
//! then executed by a [`Backend`]: the simulator (feature `sim`, the default) or real hardware.

pub mod backend;
pub mod cmo_desc;
pub mod error;
pub mod raw_types;
mod runtime;
pub mod safe;

pub use backend::Backend;
pub use error::{AclError, AclResult, ErrorCode, MsgCode};
pub use runtime::{AddressClass, HostBuffer, MemDst, MemSrc, RecentError, Runtime, RuntimeOptions};
pub use runtime::{CannPackageVersion, ACL_VERSION, SIM_PACKAGE_VERSION};
