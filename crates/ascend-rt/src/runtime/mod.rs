//! [`Runtime`]: the raw level of the API, one method per ACL call, each validating its
//! arguments in CANN's order (docs/validation/) before handing the call to the backend.
//!
//! Validation is written once, here, and serves every backend. Each method's body reads as
//! the validation table of its API: one early return per row, in the table's order.
//!
//! Where to find what:
//!
//! | calls or helpers | file |
//! |---|---|
//! | the eight target operations (`aclrtValueWrite`/`Wait`, the six `aclrtCmo*`) | `tasks.rs` |
//! | init, finalize, devices; device queries and settings | `device.rs`, `device_info.rs` |
//! | contexts and thread queries | `context.rs` |
//! | memory: allocation, copies, fills; host registration; peer access | `memory.rs`, `copies.rs`, `copy_staging.rs`, `host_register.rs`, `peer.rs`, `addresses.rs`, `allocator.rs` |
//! | streams: create, destroy, synchronize, query; configs; queries and settings; failure modes, abort, stop | `stream.rs`, `stream_config.rs`, `stream_info.rs`, `stream_failure.rs` |
//! | events, event flags; notifies | `event.rs`, `event_flags.rs`, `notify.rs` |
//! | model running instances; capture; labels | `model.rs`, `capture.rs`, `labels.rs` |
//! | host functions, callbacks, exception information | `callbacks.rs` |
//! | kernels from binaries; simulator kernels | `binaries.rs`, `kernels.rs` |
//! | random numbers, reduce-copies, overflow detection | `random.rs`, `reduce.rs`, `overflow.rs` |
//! | error queries; version and compatibility queries | `errors.rs`, `errmsg.rs`, `version.rs`, `compat.rs` |
//! | the one launch path of every task (`Runtime::launch`) | `launch.rs` |
//! | shared checks: a stream argument (`check_stream_handle`, `impl_stream`, `task_stream`), a current context, the zero timeout | `checks.rs` |
//! | the call wrapper (`call`: recent errors, registered-memory coherence), the lock, the backends' constructors | this file |
//! | a backend's errors as CANN's codes | `backend_errors.rs` |
//! | the bookkeeping behind the lock (handles, records) | `state.rs` |
//! | which of CANN's two descriptions to follow; chip capabilities; the simulator's view | `options.rs`, `chip_caps.rs`, `sim_view.rs` |

mod addresses;
mod allocator;
mod backend_errors;
mod binaries;
mod call_site;
mod callbacks;
mod capture;
mod checks;
mod chip_caps;
mod code_rules;
mod compat;
mod context;
mod copies;
mod copy_staging;
mod device;
mod device_info;
mod errmsg;
mod errors;
mod event;
mod event_flags;
mod host_register;
mod ipc_event;
mod ipc_memory;
mod ipc_notify;
mod kernels;
mod labels;
mod launch;
mod memory;
mod model;
mod notify;
mod options;
mod overflow;
mod peer;
mod physical_memory;
mod random;
pub(crate) mod reduce;
#[cfg(feature = "sim")]
mod shareable;
mod sim_view;
mod state;
mod stream;
mod stream_config;
mod stream_failure;
mod stream_info;
mod tasks;
mod va_ranges;
mod version;

use std::sync::{Mutex, MutexGuard};
use std::thread::ThreadId;

use ascend_chips::ChipProfile;

use crate::backend::{Backend, NotifyId};
use crate::error::{fail, AclError, AclResult};

pub use addresses::AddressClass;
pub use allocator::{AllocatorField, AllocatorFields};
pub use binaries::SimKernelFactory;
pub use callbacks::{ExceptionCallback, ExceptionInfo};
pub use compat::npu_arch;
pub use copies::{MemDst, MemSrc};
pub use device_info::{DEVICE_STATUS_NORMAL, RES_LIMIT_TYPES};
pub use errmsg::RecentError;
pub use host_register::{HostMemory, SharedBytes, MEM_ATTACH_GLOBAL};
pub use ipc_event::{IpcEventHandle, IPC_EVENT_HANDLE_SIZE};
pub use ipc_memory::{
    IPC_KEY_LEN, IPC_MEM_EXPORT_NO_PID_VALIDATION, IPC_MEM_IMPORT_ENABLE_PEER_ACCESS,
};
pub use ipc_notify::{IPC_NOTIFY_EXPORT_NO_PID_VALIDATION, IPC_NOTIFY_IMPORT_ENABLE_PEER_ACCESS};
pub use kernels::MAX_KERNEL_ARGS_BYTES;
pub use labels::MAX_LABELS;
pub use memory::HostBuffer;
pub use options::RuntimeOptions;
pub use overflow::OVERFLOW_STATUS_BYTES;
pub use random::{random_rt_type, RawRandomParam, RawRandomTaskInfo};
pub use shareable::VMM_EXPORT_NO_PID_VALIDATION;
#[cfg(feature = "sim")]
pub use sim_view::SimView;
pub(crate) use state::{State, StreamRec};
pub use stream_failure::StreamStateCallback;
pub use version::{CannPackageVersion, ACL_VERSION, SIM_PACKAGE_VERSION};

/// The ACL runtime of one process (in Rust, of one `Runtime` value): per-thread contexts,
/// handle registries and allocations, over one backend.
///
/// Every method mirrors one ACL function: raw handles, raw enum values, nullable addresses,
/// and `Err` with CANN's exact code for bad input.
///
/// ```
/// use ascend_rt::{Runtime, raw_types::*};
/// let rt = Runtime::sim("Ascend910B1").unwrap();
/// rt.set_device(0).unwrap();
/// let mut buf = Addr::NULL;
/// rt.malloc(Some(&mut buf), 64, malloc_policy::HUGE_FIRST).unwrap();
/// rt.value_write(buf, 100, 0, RawStream::NULL).unwrap();
/// rt.value_wait(buf, 100, wait_flag::EQ, RawStream::NULL).unwrap();
/// rt.synchronize_stream(RawStream::NULL).unwrap();
/// // A flag other than 0 is CANN's 107000.
/// assert_eq!(rt.value_write(buf, 1, 1, RawStream::NULL).unwrap_err().code(), 107000);
/// ```
#[derive(Debug)]
pub struct Runtime {
    /// Shared (weakly) with the wrappers of host functions, which keep registered memory
    /// coherent around the function (see `host_register`).
    backend: std::sync::Arc<dyn Backend>,
    chip: ChipProfile,
    state: Mutex<State>,
    /// Held while a device is opened (its first `aclrtSetDevice`) or released (its last
    /// reset), so that opening and releasing one device never interleave; taken before
    /// `state`, never while holding it.
    device_lifecycle: Mutex<()>,
    errors: errmsg::ErrorLog,
    options: RuntimeOptions,
    /// The process's exception callback (`aclrtSetExceptionInfoCallback`).
    exception_cb: callbacks::ExceptionSlot,
    /// Some context stopped on a failure (a quick check before looking it up).
    any_ctx_failed: std::sync::atomic::AtomicBool,
    /// Some stream is capturing (a quick check before looking it up).
    any_capture: std::sync::atomic::AtomicBool,
    /// Some stream is sealed by its model's build end (950).
    any_sealed: std::sync::atomic::AtomicBool,
    /// Registered host memory (`aclrtHostRegister`); taken before `state`, never while
    /// holding it.
    registered: std::sync::Arc<host_register::Registrations>,
    /// The call sites already warned of an input the code accepts and the documentation does
    /// not (`code_rules`).
    warned: code_rules::Warned,
}

thread_local! {
    /// How deep this thread is in API calls (an API body may call another API).
    static CALL_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

impl Runtime {
    /// A runtime over `backend`.
    pub(crate) fn new(backend: Box<dyn Backend>) -> Runtime {
        let chip = backend.chip().clone();
        Runtime {
            backend: std::sync::Arc::from(backend),
            chip,
            state: Mutex::new(State::default()),
            device_lifecycle: Mutex::new(()),
            errors: errmsg::ErrorLog::default(),
            options: RuntimeOptions::default(),
            exception_cb: callbacks::ExceptionSlot::default(),
            any_ctx_failed: std::sync::atomic::AtomicBool::new(false),
            any_capture: std::sync::atomic::AtomicBool::new(false),
            any_sealed: std::sync::atomic::AtomicBool::new(false),
            warned: Default::default(),
            registered: std::sync::Arc::default(),
        }
    }

    /// The same runtime with other options (see [`RuntimeOptions`]).
    ///
    /// ```
    /// use ascend_rt::{Runtime, RuntimeOptions};
    /// let rt = Runtime::sim("Ascend910B1")
    ///     .unwrap()
    ///     .with_options(RuntimeOptions { documented_rules: true, ..RuntimeOptions::default() });
    /// assert!(rt.options().documented_rules);
    /// ```
    pub fn with_options(mut self, options: RuntimeOptions) -> Runtime {
        self.options = options;
        self
    }

    /// The options in force.
    pub fn options(&self) -> RuntimeOptions {
        self.options
    }

    /// A runtime over the simulator of a built-in SoC, with default settings.
    #[cfg(feature = "sim")]
    pub fn sim(soc_name: &str) -> AclResult<Runtime> {
        Self::sim_with(soc_name, ascend_sim::SimConfig::default())
    }

    /// A runtime over the simulator of a built-in SoC, with `config`.
    #[cfg(feature = "sim")]
    pub fn sim_with(soc_name: &str, config: ascend_sim::SimConfig) -> AclResult<Runtime> {
        let chip = ChipProfile::builtin(soc_name)
            .map_err(|e| fail::plain(crate::error::ErrorCode::InternalError, e.to_string()))?;
        Ok(Runtime::sim_with_chip(chip, config))
    }

    /// A runtime over the simulator of any chip profile (a chip file of one's own, say).
    #[cfg(feature = "sim")]
    pub fn sim_with_chip(chip: ChipProfile, config: ascend_sim::SimConfig) -> Runtime {
        Runtime::new(Box::new(crate::backend::sim::SimBackend::new(chip, config)))
    }

    /// A runtime whose device is the shared device service's at the socket `path` (started
    /// with `ascend-sim device --socket PATH`, or [`crate::device_service::serve`]): several
    /// processes use one simulated device, and each process's calls are validated here as
    /// for a device of its own; a simulator kernel's body runs in this process, its blocks on
    /// the service's simulator. Page-locked host memory, host functions and callbacks and
    /// registered host memory are not yet available there (refused with 207000, saying so).
    #[cfg(feature = "sim")]
    pub fn shared_device(path: impl AsRef<std::path::Path>) -> AclResult<Runtime> {
        let client = crate::backend::shared::client::SharedDeviceClient::connect(path).map_err(
            |e| match e {
                crate::backend::BackendError::Library(e) => e,
                other => fail::plain(crate::error::ErrorCode::RtInternalError, other.to_string()),
            },
        )?;
        Ok(Runtime::new(Box::new(client)))
    }

    /// A runtime that validates every call as CANN does and then does nothing (the `null`
    /// backend): handles and device addresses are handed out, no data moves, nothing waits.
    /// For checking a program's calls without simulating it, and as the yardstick of what the
    /// front end alone costs.
    ///
    /// ```
    /// use ascend_rt::{raw_types::*, Runtime};
    /// let rt = Runtime::null("Ascend910B1").unwrap();
    /// rt.set_device(0).unwrap();
    /// let mut flag = Addr::NULL;
    /// rt.malloc(Some(&mut flag), 8, malloc_policy::NORMAL_ONLY).unwrap();
    /// assert!(rt.value_write(flag, 1, 0, RawStream::NULL).is_ok());
    /// assert_eq!(rt.value_write(flag, 1, 7, RawStream::NULL).unwrap_err().code(), 107000);
    /// ```
    pub fn null(soc_name: &str) -> AclResult<Runtime> {
        let chip = ChipProfile::builtin(soc_name)
            .map_err(|e| fail::plain(crate::error::ErrorCode::InternalError, e.to_string()))?;
        Ok(Runtime::new(Box::new(
            crate::backend::null::NullBackend::new(chip),
        )))
    }

    /// Which backend runs the calls: `"sim"`, `"hw"` or `"null"`.
    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }

    /// True when the backend runs simulator kernels ([`crate::Kernel`], launched with
    /// [`Runtime::launch_kernel`]): the simulator, and the project's own `libascendcl.so`
    /// through the `hw` backend; never a real device's runtime library.
    pub fn runs_sim_kernels(&self) -> bool {
        self.backend.runs_sim_kernels()
    }

    /// The chip profile of the devices.
    pub fn chip(&self) -> &ChipProfile {
        &self.chip
    }

    /// The simulator behind this runtime, for inspection (reports, timeline, diagnosis,
    /// settings); `None` over real hardware.
    ///
    /// ```
    /// let rt = ascend_rt::Runtime::sim("Ascend910B1").unwrap();
    /// let view = rt.sim_view().expect("a simulator runtime");
    /// assert_eq!(view.report().chip, "Ascend910B1");
    /// assert!(view.diagnose().is_none());
    /// ```
    #[cfg(feature = "sim")]
    pub fn sim_view(&self) -> Option<SimView<'_>> {
        self.backend.simulator().map(SimView::new)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the bookkeeping half-updated in a way
        // that matters more than refusing all further calls would, so recover the guard.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn thread() -> ThreadId {
        thread_local! {
            // Read once per thread: asking the standard library each call is a measurable
            // share of a call's cost.
            static ID: ThreadId = std::thread::current().id();
        }
        ID.with(|id| *id)
    }

    /// Runs an API body and records a failure as the thread's recent error.
    fn call<T>(&self, body: impl FnOnce() -> AclResult<T>) -> AclResult<T> {
        // Registered host memory is made coherent around the outermost call only, when this
        // thread holds no lock of the runtime.
        let outermost = CALL_DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get() == 1
        });
        struct Leave;
        impl Drop for Leave {
            fn drop(&mut self) {
                CALL_DEPTH.with(|d| d.set(d.get() - 1));
            }
        }
        let _leave = Leave;
        if outermost {
            self.exchange_registered(true);
        }
        let result = body();
        if outermost {
            self.exchange_registered(false);
        }
        if let Err(e) = &result {
            self.errors.record(e);
        }
        result
    }

    /// Releases a context's objects in the backend in the documented order (models, events,
    /// then streams; the default stream goes with the context). Failures are logged: the
    /// objects are gone from the bookkeeping either way.
    fn release_ctx_objects(&self, objs: &state::CtxObjects, force: bool) {
        for &m in &objs.models {
            if let Err(e) = self.backend.destroy_model(m) {
                tracing::warn!("releasing model {m:#x}: {e}");
            }
        }
        for &ev in &objs.events {
            if let Err(e) = self.backend.destroy_event(ev) {
                tracing::warn!("releasing event {ev:#x}: {e}");
            }
        }
        for &s in &objs.streams {
            if let Err(e) = self.backend.destroy_stream(s, force) {
                tracing::warn!("releasing stream {s:#x}: {e}");
            }
        }
    }

    /// Frees a released device's memory and notifies in the backend.
    fn release_device_objects(&self, device: u32, allocs: &[u64], notifies: &[NotifyId]) {
        for &a in allocs {
            if let Err(e) = self.backend.free(device, a) {
                tracing::warn!("freeing device memory {a:#x} of device {device}: {e}");
            }
        }
        for &n in notifies {
            if let Err(e) = self.backend.destroy_notify(n) {
                tracing::warn!("releasing notify {n:#x}: {e}");
            }
        }
    }

    /// The recent error messages of the calling thread, newest first, and clears them
    /// (`aclGetRecentErrMsg`).
    pub fn get_recent_err_msg(&self) -> Option<String> {
        self.errors.take_text()
    }

    /// Records a failure found outside the runtime's own calls (a C entry point's checks of
    /// its arguments) for `aclGetRecentErrMsg` and `aclrtGetLastError`, as a call's failure
    /// is; returns it.
    pub fn record_failure(&self, e: AclError) -> AclError {
        self.errors.record(&e);
        e
    }

    /// The calling thread's last error without clearing it.
    pub fn peek_recent_error(&self) -> Option<RecentError> {
        self.errors.peek()
    }

    /// The backend's run report as JSON, if it has one.
    pub fn report_json(&self) -> Option<String> {
        #[cfg(feature = "sim")]
        let json = self.backend.simulator().map(ascend_sim::Sim::report_json);
        #[cfg(not(feature = "sim"))]
        let json = None;
        json
    }

    /// The backend's timeline as a Chrome trace (JSON; open it in Perfetto), if it has one.
    pub fn trace_json(&self) -> Option<String> {
        #[cfg(feature = "sim")]
        let json = self.backend.simulator().map(ascend_sim::Sim::trace_json);
        #[cfg(not(feature = "sim"))]
        let json = None;
        json
    }
}

impl From<AclError> for i32 {
    fn from(e: AclError) -> i32 {
        e.code()
    }
}
