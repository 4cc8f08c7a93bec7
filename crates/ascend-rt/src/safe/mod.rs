//! The safe level: owned handles that release themselves (RAII), Rust enums, and
//! `Result<_, AclError>`.
//!
//! Contexts are per host thread in ACL. Every safe handle remembers the context it belongs to
//! and makes it current on the calling thread before each call (as cudarc does), so handles
//! can be moved to and shared between threads freely.
//!
//! Names say when work happens: a `_sync` method (and a read such as
//! [`DeviceBuffer::read_u64`]) acts now, outside stream order; an `_async` method, and every
//! other [`Stream`] method that takes memory, enqueues a task. Device memory is tied to stream
//! order: dropping a [`DeviceBuffer`] waits for the streams whose tasks name it.
//!
//! Beyond memory, streams, events and models, the safe level has kernels ([`Stream::launch_with`],
//! [`Block`], [`Gm`]), notifies ([`Notify`]), events with flags ([`EventFlags`],
//! [`Event::timestamp_us`]), report threads and callbacks ([`ReportThread`],
//! [`Stream::callback`]), capture ([`Stream::begin_capture`], [`Capture`]), labels ([`Label`],
//! [`LabelList`]), binaries and kernel arguments ([`Binary`], [`Function`], [`KernelArgs`]) and
//! registered host memory ([`RegisteredHost`]). What stays at the raw level, and why: the
//! custom allocator (`aclrtAllocatorSetObjToDesc` and friends register C function pointers
//! that the runtime calls with the program's own data: a contract for C programs, with no
//! ownership Rust could check), the exception-info callback (process-wide, with no stream to
//! order it by), `aclrtSubscribeHostFunc` (the safe [`Stream::host_func`] runs host functions
//! on the runtime's own thread), events for other processes (`aclrtCreateEventExWithFlag`:
//! one process is simulated) and the built-in random-number and reduce tasks (their arguments
//! are device structures laid out by hand).
//!
//! ```
//! use std::sync::Arc;
//! use ascend_rt::{Runtime, safe::*};
//! let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
//! let dev = Device::open(&rt, 0).unwrap();
//! let flag = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
//! flag.fill_sync(0).unwrap();
//! let (a, b) = (dev.stream().unwrap(), dev.stream().unwrap());
//! a.value_wait(flag.ptr(), 7, WaitMode::Eq).unwrap();
//! b.value_write(flag.ptr(), 7).unwrap();
//! a.synchronize().unwrap();
//! ```

mod binary;
mod capture;
mod device;
mod enums;
mod event;
mod event_flags;
mod host_register;
mod kernel;
mod labels;
mod memory;
mod model;
mod notify;
mod report;
mod stream;

pub use binary::{Binary, Function, KernelArgs};
pub use capture::{Capture, CaptureMode};
pub use device::Device;
pub use enums::{CmoType, FailureMode, MallocPolicy, MemcpyKind, StreamConfig, WaitMode};
pub use event::Event;
pub use event_flags::EventFlags;
pub use host_register::RegisteredHost;
pub use kernel::{Block, Gm};
pub use labels::{Label, LabelList};
pub use memory::{CmoDesc, DeviceBuffer, DevicePtr, PinnedHostBuffer};
pub use model::ModelRI;
pub use notify::Notify;
pub use report::ReportThread;
pub use stream::Stream;

/// A timeout as the `...WithTimeout` calls take it: whole milliseconds, rounded up, at least
/// one (0 is CANN's "invalid", not "do not wait"), at most `i32::MAX`.
fn timeout_ms(timeout: std::time::Duration) -> i32 {
    timeout
        .as_micros()
        .div_ceil(1000)
        .clamp(1, i32::MAX as u128) as i32
}
