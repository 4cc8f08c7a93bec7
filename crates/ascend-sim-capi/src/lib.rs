//! The drop-in `libascendcl.so`: the ACL C API, under the standard names, types and values,
//! over [`ascend_rt::Runtime`] and the simulator, so that unmodified ACL C/C++ programs run on
//! the model with the same validation and error codes as Rust programs.
//!
//! Settings come from the environment, read strictly: a value that is set but not understood
//! stops the simulator with a message naming the variable, the value and what is accepted (on
//! standard error and from `aclGetRecentErrMsg`; every call then returns 500000):
//! - `ASCEND_SIM_SOC`: the SoC to simulate (a name from `sim-models/`, default `Ascend910B1`);
//! - `ASCEND_SIM_CHIP_FILE=<path>`: a chip file of one's own (the format of `sim-models/`),
//!   instead of a built-in SoC;
//! - `ASCEND_SIM_REPORT=<path>`: write the run report as JSON at `aclFinalize` or at exit;
//! - `ASCEND_SIM_TRACE=<path>`: write the timeline as a Chrome trace (open it in Perfetto) at
//!   the same moment;
//! - `ASCEND_SIM_ON_STALL=error|wait` and `ASCEND_SIM_WATCHDOG_MS=<ms>`: what a host thread
//!   waiting on a stalled device does, and after how long;
//! - `ASCEND_SIM_HAZARDS=ignore|record|fail` (also per class, `record,lost_write=fail`): what
//!   the simulator's memory-side hazards do;
//! - `ASCEND_SIM_PROGRESS=<path>`: rewrite `<path>` every fifth of a second with the tasks
//!   completed and the simulated time reached (what `ascend-sim exec` shows on a terminal);
//! - `ASCEND_SIM_LOG=<filter>`: what the simulator logs to standard error (default `warn`,
//!   which includes the watchdog's explanation of a stalled device);
//! - `ASCEND_SIM_RULES=code|documented`: check calls as the vendor's runtime code does (a
//!   warning names each call site whose input the documentation forbids, or whose size is
//!   narrowed), or enforce the documented rules too;
//! - `ASCEND_SIM_RACES`, `ASCEND_SIM_SCHEDULE_SEED`, `ASCEND_SIM_PACING`,
//!   `ASCEND_SIM_KERNEL_STACK`, `ASCEND_SIM_KERNELS`: see `settings` and the README.
//!
//! No panic crosses the ABI: every entry point catches unwinding and returns
//! `ACL_ERROR_INTERNAL_ERROR`; NULL or garbage handles get CANN's error codes.
//!
//! Unsafe code is confined to turning C pointers into Rust references and slices; each block
//! states what the ACL contract guarantees about the pointer.

mod abi_check;
mod allocator;
mod api_errors;
mod binaries;
mod callbacks;
mod compat;
mod context;
mod device;
mod device_ext;
pub mod env_names;
mod errors;
mod event;
mod event_ext;
mod fatal_signal;
mod ffi;
mod global;
mod host_register;
mod ipc_memory;
mod kernels;
mod memory;
mod model;
mod notify;
mod on_demand;
mod overflow;
mod physical_memory;
mod progress_file;
mod settings;
mod stream;
mod stream_ext;
mod tasks;

pub use global::runtime;
