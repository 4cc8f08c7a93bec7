//! `ascend-types`: the vocabulary every layer of the twin speaks — the front end
//! (`ascend-rt`), both backends and the simulator (`ascend-sim`) use these types directly, so
//! no layer re-spells another's enum.
//!
//! - [`CmoType`], [`WaitMode`], [`MemcpyKind`]: the ACL enum values, each with its raw value
//!   written once;
//! - [`CmoDescLayout`], [`CMO_OPCODE_OFFSET`]: the CMO descriptor's two layouts and the
//!   runtime's CMO opcodes;
//! - [`StreamId`], [`EventId`], [`NotifyId`], [`ModelId`], [`TaskId`]: typed handles of a
//!   backend's objects (64 bits: a simulator's serial number or a real library's pointer), never
//!   a bare integer and never narrowed;
//! - [`Task`], [`Loc`], [`HostBuf`]: what a stream executes, after validation;
//! - [`Kernel`], [`KernelOps`]: simulator kernels and what their blocks can do;
//! - [`Diagnosis`]: the simulator watchdog's explanation of a stalled device, as data;
//! - [`warn_user!`]: the one rule for a warning the user must see (the logger, else stderr).
//!
//! No logic beyond conversions (and that rule) lives here.

#![forbid(unsafe_code)]

mod cmo_desc;
mod diagnosis;
mod enums;
mod ids;
mod kernel;
mod random;
mod reduce;
mod task;
pub mod warning;

pub use cmo_desc::{CmoDescFields, CmoDescLayout, CMO_OPCODE_OFFSET};
pub use diagnosis::{BlockedStream, Diagnosis};
pub use enums::{CmoType, MemcpyKind, WaitMode};
pub use ids::{EventId, ModelId, NotifyId, StreamId, TaskId};
pub use kernel::{dcci_kind, panic_text, CoreType, Kernel, KernelBody, KernelOps};
pub use random::{RandomFunc, RandomParam, RandomTask, RandomType};
pub use reduce::{ReduceOp, ReduceType};
pub use task::{DevAddr, HostBuf, Loc, Task};
