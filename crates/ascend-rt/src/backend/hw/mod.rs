//! The `hw` backend: [`Backend`] over the real runtime library (`libascendcl.so`), loaded at
//! run time through `ascend-rt-sys`.
//!
//! Each method calls the matching ACL function on the calling thread. The front end has
//! already validated the call, so a non-zero return code here is something only the library
//! could know (or a disagreement with the front end's prediction, which the conformance suite
//! looks for); it becomes an [`AclError`] with [`AclError::from_code`], which keeps numbers
//! this crate does not know.
//!
//! **Contexts.** ACL binds contexts to threads. The front end keeps one default context per
//! device, shared by every thread (as `aclrtSetDevice` does), and calls [`Backend::open_device`]
//! only for a device's first `aclrtSetDevice`. So `open_device` calls `aclrtSetDevice` and
//! remembers the context it created (`aclrtGetCurrentContext`); before any call that needs a
//! context, the backend makes the device's context current on the calling thread
//! (`aclrtSetCurrentContext`) if it is not already. `close_device` calls `aclrtResetDevice`
//! (or `aclrtResetDeviceForce`).
//!
//! An explicit context ([`Backend::create_context`]) is a real `aclrtCreateContext`; its
//! default stream is the NULL stream while that context is current. The [`Backend`] calls
//! that create objects name only a device, not the front end's context, so streams, events,
//! models and notifies are created in the device's default context, or, while the device has
//! none (`aclrtCreateContext` without `aclrtSetDevice`), in an explicit context of the device
//! (the calling thread's current one if it is one of them, else the newest). Each object
//! remembers the context it was created in, and every later call on it makes that context
//! current first. Destroying an explicit context releases, in the library, what was created
//! in it; the backend forgets those objects too.
//!
//! **Handles.** A stream, event, model or notify handle is the library's own handle value. A
//! context's default stream is a tagged value that maps to the NULL stream of that context.
//!
//! **Host buffers.** The front end's page-locked buffers ([`HostBuf`], an
//! `Arc<Mutex<Vec<u8>>>`) are the host's view. [`Backend::malloc_host`] also allocates real
//! page-locked memory with `aclrtMallocHost`, which is what the device reads and writes:
//! - an asynchronous copy *from* a host buffer copies the range into the pinned memory when it
//!   is enqueued, then the device copies from there (a host write to the buffer after the
//!   enqueue is not seen by that copy);
//! - an asynchronous copy *into* a host buffer lands in the pinned memory and is copied into
//!   the buffer when the host observes its completion: a successful stream, device or event
//!   synchronisation, a stream or event query that reports completion, a model execution, a
//!   stream destruction or a device reset;
//! - a host buffer the backend did not allocate (the front end's staging of pageable memory)
//!   gets temporary pinned memory, freed when the copy's completion is observed.
//!
//! Copies on model-bound streams run at each execution of the model; their host destinations
//! are refreshed after each `aclmdlRIExecute` (or, for `aclmdlRIExecuteAsync`, when the
//! stream it was enqueued on is observed complete).
//!
//! The library is initialised (`aclInit`) once per process and library path and never
//! finalised by this backend (a real runtime cannot always be initialised again).

#![allow(unsafe_code)]
// The declarations come from the vendor's headers or from the project's own, whose integer
// types may differ (an enum, `int`, `uint32_t`): the casts keep this module compiling on both.
#![allow(clippy::unnecessary_cast)]

use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use ascend_chips::ChipProfile;
use ascend_rt_sys::{self as sys, acl_fn, Library, LoadError};

use super::{AsyncLoc, BHandle, Backend, CmoOp, HostBuf, SyncDst, SyncSrc, Task, WaitCompare};
use crate::error::{AclError, AclResult, ErrorCode};
use crate::Runtime;

/// Why the `hw` backend could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HwError {
    /// The runtime library (or a function it must have) is unavailable.
    #[error(transparent)]
    Library(#[from] LoadError),
    /// `aclInit` failed.
    #[error("aclInit failed: {0}")]
    Init(AclError),
    /// `aclrtGetSocName` returned NULL.
    #[error("the runtime library reports no SoC name (aclrtGetSocName returned NULL)")]
    NoSocName,
    /// The library reports a SoC this crate has no built-in profile for.
    #[error("the device's SoC `{soc}` has no built-in chip profile: {detail}")]
    UnknownSoc {
        /// What `aclrtGetSocName` returned.
        soc: String,
        /// Which SoCs are known.
        detail: String,
    },
}

/// Tag of a device's default stream handle (never a user-space pointer).
const DEFAULT_STREAM_TAG: u64 = 0xDEF0_0000_0000_0000;
/// Tag of an explicit context's default stream handle (never a user-space pointer).
const CONTEXT_STREAM_TAG: u64 = 0xDEF1_0000_0000_0000;
const TAG_MASK: u64 = 0xFFFF_0000_0000_0000;

fn default_stream(device: u32) -> BHandle {
    DEFAULT_STREAM_TAG | device as u64
}

/// The library's stream for a backend stream handle (NULL for a context's default stream,
/// which the caller has made current).
fn raw_stream(h: BHandle) -> sys::aclrtStream {
    if matches!(h & TAG_MASK, DEFAULT_STREAM_TAG | CONTEXT_STREAM_TAG) {
        std::ptr::null_mut()
    } else {
        h as usize as sys::aclrtStream
    }
}

/// `aclrtEventGetTimestamp`'s code for a record that has not executed.
const TIMESTAMP_NOT_READY: i32 = ErrorCode::RtEventTimestampInvalid as i32;
/// The runtime flag word of `aclrtCreateEvent` (`RT_EVENT_DEFAULT`).
const EVENT_RT_DEFAULT: u32 = crate::raw_types::event_flag::RT_DEFAULT;
/// The flags only `aclrtCreateEventExWithFlag` accepts (`ACL_EVENT_IPC`).
const EVENT_EX_ONLY: u32 = !crate::raw_types::event_flag::RT_FLAG_MAX;

fn ptr(addr: u64) -> *mut c_void {
    addr as usize as *mut c_void
}

fn cmo_type(op: CmoOp) -> sys::aclrtCmoType {
    (match op {
        CmoOp::Prefetch => sys::aclrtCmoType_ACL_RT_CMO_TYPE_PREFETCH,
        CmoOp::Writeback => sys::aclrtCmoType_ACL_RT_CMO_TYPE_WRITEBACK,
        CmoOp::Invalid => sys::aclrtCmoType_ACL_RT_CMO_TYPE_INVALID,
        CmoOp::Flush => sys::aclrtCmoType_ACL_RT_CMO_TYPE_FLUSH,
    }) as _
}

fn wait_flag(c: WaitCompare) -> u32 {
    (match c {
        WaitCompare::Geq => sys::ACL_STREAM_WAIT_VALUE_GEQ,
        WaitCompare::Eq => sys::ACL_STREAM_WAIT_VALUE_EQ,
        WaitCompare::And => sys::ACL_STREAM_WAIT_VALUE_AND,
        WaitCompare::Nor => sys::ACL_STREAM_WAIT_VALUE_NOR,
    }) as u32
}

fn timeout_arg(timeout_ms: Option<u64>) -> i32 {
    timeout_ms.map_or(-1, |t| t.min(i32::MAX as u64) as i32)
}

/// Calls an ACL function of the backend's library and turns its code into a result. The
/// function is looked up by name (a missing one is an error, not a panic). Each call site
/// states, in a `// SAFETY:` comment, why its pointer arguments are valid.
macro_rules! acl {
    ($self:expr, $name:ident ( $($arg:expr),* $(,)? )) => {{
        let f = acl_fn!($self.lib, $name).map_err(missing)?;
        // SAFETY: `f` is the library's `$name`, declared by bindgen from the ACL header, so
        // the signature matches; the arguments' validity is stated at the call site.
        let rc = unsafe { f($($arg),*) };
        $self.check(stringify!($name), rc)
    }};
}

fn missing(e: LoadError) -> AclError {
    AclError::new(ErrorCode::ApiNotSupport, None, e.to_string())
}

#[derive(Debug, Clone, Copy)]
struct StreamInfo {
    device: u32,
    /// The library context it belongs to.
    ctx: usize,
    persistent: bool,
}

#[derive(Debug, Clone, Copy)]
struct EventInfo {
    /// The library context it was created in.
    ctx: usize,
    /// The stream and sequence number of its latest record.
    last_record: Option<(BHandle, u64)>,
}

#[derive(Debug, Clone)]
struct ModelInfo {
    /// The library context it was created in.
    ctx: usize,
    streams: Vec<BHandle>,
}

#[derive(Debug, Clone, Copy)]
struct NotifyInfo {
    /// The library context it was created in.
    ctx: usize,
}

/// An explicit context (`aclrtCreateContext`).
#[derive(Debug, Clone, Copy)]
struct ExplicitCtx {
    device: u32,
    /// Creation order (newest wins when one must be picked for a device).
    serial: u64,
}

/// Pinned memory behind a host buffer the backend allocated.
#[derive(Debug)]
struct Pinned {
    buf: Weak<Mutex<Vec<u8>>>,
    ptr: usize,
}

/// Work whose completion the host must observe before finishing it.
#[derive(Debug)]
enum Finish {
    /// Copy `len` bytes of pinned memory at `src` into `buf` at `offset`.
    CopyBack {
        buf: HostBuf,
        offset: usize,
        src: usize,
        len: usize,
    },
    /// Refresh the copies into host buffers of a model run.
    ModelRun(BHandle),
}

#[derive(Debug)]
struct Pending {
    stream: BHandle,
    seq: u64,
    finish: Option<Finish>,
    /// Temporary pinned memory to free once done.
    temp: Option<usize>,
    /// On a persistent stream: runs at each model execution; kept until the stream goes.
    sticky: bool,
}

#[derive(Debug, Default)]
struct HwState {
    /// Each open device's default context.
    contexts: HashMap<u32, usize>,
    /// Live explicit contexts, by the library's context value.
    explicit: HashMap<usize, ExplicitCtx>,
    streams: HashMap<BHandle, StreamInfo>,
    events: HashMap<BHandle, EventInfo>,
    models: HashMap<BHandle, ModelInfo>,
    notifies: HashMap<BHandle, NotifyInfo>,
    /// Device allocations: base → (length, device).
    allocs: BTreeMap<u64, (u64, u32)>,
    /// Pinned memory of the host buffers, by the buffer's `Arc` address.
    pinned: HashMap<usize, Pinned>,
    pending: Vec<Pending>,
    seq: u64,
}

impl HwState {
    fn device_of_addr(&self, addr: u64) -> Option<u32> {
        let (&base, &(len, device)) = self.allocs.range(..=addr).next_back()?;
        (addr - base < len).then_some(device)
    }

    /// The pinned memory of a host buffer the backend allocated and that is still alive.
    fn pinned_of(&self, buf: &HostBuf) -> Option<usize> {
        let p = self.pinned.get(&(Arc::as_ptr(buf) as usize))?;
        let live = p.buf.upgrade()?;
        Arc::ptr_eq(&live, buf).then_some(p.ptr)
    }
}

/// The libraries this process has loaded and initialised, by path. A library is never
/// unloaded: a runtime library keeps threads and thread-local destructors that must not
/// outlive its code (unloading the project's own Rust `libascendcl.so` crashes at thread exit).
static LIBRARIES: Mutex<Option<HashMap<PathBuf, Arc<Library>>>> = Mutex::new(None);

/// The real-hardware backend.
pub struct HwBackend {
    lib: Arc<Library>,
    chip: ChipProfile,
    soc: String,
    state: Mutex<HwState>,
}

impl std::fmt::Debug for HwBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HwBackend")
            .field("library", &self.lib.path())
            .field("soc", &self.soc)
            .finish_non_exhaustive()
    }
}

impl HwBackend {
    /// Loads the runtime library from where [`ascend_rt_sys::library_candidates`] says
    /// (`ASCEND_RT_LIB`, the toolkit, the loader path) and starts the backend.
    pub fn load() -> Result<HwBackend, HwError> {
        if let Some((path, _)) = ascend_rt_sys::library_candidates().first() {
            if let Some(lib) = Self::cached(path) {
                return Self::start(lib);
            }
        }
        Self::from_library(Library::load()?)
    }

    /// Loads the runtime library at `path` and starts the backend.
    pub fn load_from(path: impl AsRef<Path>) -> Result<HwBackend, HwError> {
        match Self::cached(path.as_ref()) {
            Some(lib) => Self::start(lib),
            None => Self::from_library(Library::load_from(path)?),
        }
    }

    fn cached(path: &Path) -> Option<Arc<Library>> {
        let libs = LIBRARIES.lock().unwrap_or_else(|p| p.into_inner());
        libs.as_ref()?.get(path).cloned()
    }

    /// Starts the backend on a loaded library: `aclInit` (once per process and library path),
    /// then the SoC name and its built-in chip profile. The library stays loaded for the
    /// process's life.
    pub fn from_library(lib: Library) -> Result<HwBackend, HwError> {
        let lib = {
            let mut libs = LIBRARIES.lock().unwrap_or_else(|p| p.into_inner());
            let libs = libs.get_or_insert_with(HashMap::new);
            match libs.get(lib.path()) {
                Some(known) => known.clone(),
                None => {
                    let init = acl_fn!(lib, aclInit)?;
                    // SAFETY: aclInit accepts NULL for "no configuration file".
                    let rc = unsafe { init(std::ptr::null()) };
                    if rc != 0 && rc != ErrorCode::RepeatInitialize.number() {
                        return Err(HwError::Init(AclError::from_code(
                            rc,
                            format!("aclInit(NULL) returned {rc}"),
                        )));
                    }
                    let lib = Arc::new(lib);
                    libs.insert(lib.path().to_path_buf(), lib.clone());
                    lib
                }
            }
        };
        Self::start(lib)
    }

    fn start(lib: Arc<Library>) -> Result<HwBackend, HwError> {
        let get_soc = acl_fn!(lib, aclrtGetSocName)?;
        // SAFETY: no arguments; the result is NULL or a NUL-terminated string owned by the
        // library that stays valid for the process's life (it names the installed device).
        let name = unsafe { get_soc() };
        if name.is_null() {
            return Err(HwError::NoSocName);
        }
        // SAFETY: non-NULL and NUL-terminated (above); copied out at once.
        let soc = unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned();
        let chip = ChipProfile::builtin(&soc).map_err(|e| HwError::UnknownSoc {
            soc: soc.clone(),
            detail: e.to_string(),
        })?;
        Ok(HwBackend {
            lib,
            chip,
            soc,
            state: Mutex::new(HwState::default()),
        })
    }

    /// The loaded library.
    pub fn library(&self) -> &Library {
        &self.lib
    }

    fn state(&self) -> MutexGuard<'_, HwState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Maps a return code: 0 is success; anything else is an error carrying the library's
    /// recent error message, if it has one.
    fn check(&self, api: &str, rc: sys::aclError) -> AclResult<()> {
        if rc == 0 {
            return Ok(());
        }
        let mut message = format!(
            "{api} returned {rc} (runtime library {:?})",
            self.lib.path()
        );
        if let Ok(recent) = acl_fn!(self.lib, aclGetRecentErrMsg) {
            // SAFETY: no arguments; the result is NULL or a NUL-terminated string valid until
            // the thread's next call of this function, copied out at once.
            let text = unsafe { recent() };
            if !text.is_null() {
                // SAFETY: non-NULL and NUL-terminated (above).
                let text = unsafe { CStr::from_ptr(text) }.to_string_lossy();
                message.push_str(": ");
                message.push_str(text.trim());
            }
        }
        Err(AclError::from_code(rc, message))
    }

    /// The library context new objects of `device` go to: the device's default context;
    /// while it has none, an explicit context of the device (the calling thread's current one
    /// if it is one of them, else the newest).
    fn device_ctx(&self, device: u32) -> AclResult<usize> {
        let mine: Vec<(usize, u64)> = {
            let st = self.state();
            if let Some(&ctx) = st.contexts.get(&device) {
                return Ok(ctx);
            }
            st.explicit
                .iter()
                .filter(|(_, e)| e.device == device)
                .map(|(c, e)| (*c, e.serial))
                .collect()
        };
        let current = self.current_ctx();
        if let Some(cur) = current.filter(|cur| mine.iter().any(|(c, _)| c == cur)) {
            return Ok(cur);
        }
        let newest = mine
            .iter()
            .max_by_key(|(_, serial)| *serial)
            .map(|(c, _)| *c);
        newest.ok_or_else(|| {
            AclError::new(
                ErrorCode::RtContextNull,
                None,
                format!("hw backend: device {device} is not open and has no context"),
            )
        })
    }

    /// The calling thread's current library context, if it has one.
    fn current_ctx(&self) -> Option<usize> {
        let get = acl_fn!(self.lib, aclrtGetCurrentContext).ok()?;
        let mut current: sys::aclrtContext = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        let rc = unsafe { get(&mut current) };
        (rc == 0 && !current.is_null()).then_some(current as usize)
    }

    /// Makes `ctx` current on the calling thread, if it is not already.
    fn enter_ctx(&self, ctx: usize) -> AclResult<()> {
        if self.current_ctx() == Some(ctx) {
            return Ok(());
        }
        // SAFETY: `ctx` is a context of the library the backend still tracks: a device's
        // default context (removed from the tables at the device's reset) or an explicit one
        // (removed when it is destroyed), so it is live.
        acl!(self, aclrtSetCurrentContext(ctx as sys::aclrtContext))
    }

    /// Makes the context new objects of `device` go to current on the calling thread and
    /// returns it.
    fn enter(&self, device: u32) -> AclResult<usize> {
        let ctx = self.device_ctx(device)?;
        self.enter_ctx(ctx)?;
        Ok(ctx)
    }

    fn stream_info(&self, stream: BHandle) -> AclResult<StreamInfo> {
        self.state().streams.get(&stream).copied().ok_or_else(|| {
            AclError::new(
                ErrorCode::RtInvalidHandle,
                None,
                format!("hw backend: unknown stream {stream:#x}"),
            )
        })
    }

    /// Makes the stream's context current on the calling thread.
    fn enter_stream(&self, stream: BHandle) -> AclResult<StreamInfo> {
        let info = self.stream_info(stream)?;
        self.enter_ctx(info.ctx)?;
        Ok(info)
    }

    fn unknown(kind: &str, h: BHandle) -> AclError {
        AclError::new(
            ErrorCode::RtInvalidHandle,
            None,
            format!("hw backend: unknown {kind} {h:#x}"),
        )
    }

    /// Makes the event's context current on the calling thread.
    fn enter_event(&self, event: BHandle) -> AclResult<()> {
        let ctx = self.state().events.get(&event).map(|e| e.ctx);
        self.enter_ctx(ctx.ok_or_else(|| Self::unknown("event", event))?)
    }

    /// Makes the model's context current on the calling thread.
    fn enter_model(&self, model: BHandle) -> AclResult<()> {
        let ctx = self.state().models.get(&model).map(|m| m.ctx);
        self.enter_ctx(ctx.ok_or_else(|| Self::unknown("model", model))?)
    }

    /// Makes the notify's context current on the calling thread.
    fn enter_notify(&self, notify: BHandle) -> AclResult<()> {
        let ctx = self.state().notifies.get(&notify).map(|n| n.ctx);
        self.enter_ctx(ctx.ok_or_else(|| Self::unknown("notify", notify))?)
    }

    /// Enters the context of the device owning `addr`, if it is device memory.
    fn enter_addr(&self, addr: u64) -> AclResult<()> {
        let device = self.state().device_of_addr(addr);
        match device {
            Some(d) => self.enter(d).map(|_| ()),
            None => Ok(()),
        }
    }

    fn alloc_pinned(&self, bytes: usize) -> AclResult<usize> {
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtMallocHost(&mut p, bytes))?;
        Ok(p as usize)
    }

    fn free_pinned(&self, p: usize) {
        // Best effort: pinned memory is released with its context on a device reset anyway.
        let free = || -> AclResult<()> {
            // SAFETY: `p` came from aclrtMallocHost and is freed once (it left every table).
            acl!(self, aclrtFreeHost(p as *mut c_void))
        };
        if let Err(e) = free() {
            tracing::debug!("hw backend: aclrtFreeHost failed: {e}");
        }
    }

    /// Frees the pinned memory of host buffers the front end has dropped.
    fn sweep_pinned(&self) {
        let dead: Vec<usize> = {
            let mut st = self.state();
            let keys: Vec<usize> = st
                .pinned
                .iter()
                .filter(|(_, p)| p.buf.strong_count() == 0)
                .map(|(k, _)| *k)
                .collect();
            keys.iter()
                .filter_map(|k| st.pinned.remove(k))
                .map(|p| p.ptr)
                .collect()
        };
        for p in dead {
            self.free_pinned(p);
        }
    }

    /// The device-side pointer of one end of an asynchronous copy, and what to do once the
    /// copy is done. Host sources are staged into pinned memory now.
    fn async_end(
        &self,
        loc: &AsyncLoc,
        len: usize,
        is_dst: bool,
    ) -> AclResult<(*mut c_void, Option<Finish>, Option<usize>)> {
        match loc {
            AsyncLoc::Device(a) => Ok((ptr(*a), None, None)),
            AsyncLoc::Host(buf, offset) => {
                let known = self.state().pinned_of(buf);
                let (base, temp) = match known {
                    Some(p) => (p + offset, None),
                    None => {
                        let t = self.alloc_pinned(len.max(1))?;
                        (t, Some(t))
                    }
                };
                if is_dst {
                    let finish = Finish::CopyBack {
                        buf: buf.clone(),
                        offset: *offset,
                        src: base,
                        len,
                    };
                    Ok((base as *mut c_void, Some(finish), temp))
                } else {
                    let data = buf.lock().unwrap_or_else(|p| p.into_inner());
                    let src = &data[*offset..*offset + len];
                    // SAFETY: `base` is pinned memory with at least `len` bytes from `base`
                    // (the buffer's own pinned block, as long as the buffer, or a fresh
                    // temporary of `len` bytes); no device work writes it while the host
                    // stages a source, and the regions do not overlap (host heap vs pinned).
                    unsafe {
                        std::ptr::copy_nonoverlapping(src.as_ptr(), base as *mut u8, len);
                    }
                    Ok((base as *mut c_void, None, temp))
                }
            }
        }
    }

    fn push_pending(
        &self,
        stream: BHandle,
        sticky: bool,
        finish: Option<Finish>,
        temp: Option<usize>,
    ) {
        if finish.is_none() && temp.is_none() {
            return;
        }
        let mut st = self.state();
        st.seq += 1;
        let seq = st.seq;
        st.pending.push(Pending {
            stream,
            seq,
            finish,
            temp,
            sticky,
        });
    }

    /// Finishes the pending work matching `done`: copies device results into host buffers,
    /// frees temporaries. Sticky entries are only refreshed unless `release` is set.
    fn finish(&self, done: impl Fn(&Pending) -> bool, release: bool) {
        let (ready, models): (Vec<Pending>, Vec<BHandle>) = {
            let mut st = self.state();
            let mut ready = Vec::new();
            let mut models = Vec::new();
            let mut keep = Vec::new();
            for p in std::mem::take(&mut st.pending) {
                if !done(&p) {
                    keep.push(p);
                } else if let Some(Finish::ModelRun(m)) = p.finish {
                    models.push(m);
                } else if p.sticky && !release {
                    Self::copy_back(&p);
                    keep.push(p);
                } else {
                    ready.push(p);
                }
            }
            st.pending = keep;
            (ready, models)
        };
        for p in &ready {
            Self::copy_back(p);
            if let Some(t) = p.temp {
                self.free_pinned(t);
            }
        }
        for m in models {
            self.refresh_model(m);
        }
    }

    fn copy_back(p: &Pending) {
        if let Some(Finish::CopyBack {
            buf,
            offset,
            src,
            len,
        }) = &p.finish
        {
            let mut data = buf.lock().unwrap_or_else(|e| e.into_inner());
            // SAFETY: `src` is pinned memory holding at least `len` bytes (allocated for this
            // buffer or this copy, freed only after this copy-back); the copy that wrote it
            // has completed (the host observed its stream, event or model finish).
            let from = unsafe { std::slice::from_raw_parts(*src as *const u8, *len) };
            data[*offset..*offset + *len].copy_from_slice(from);
        }
    }

    /// After a model run: refreshes the host destinations of its streams' copies.
    fn refresh_model(&self, model: BHandle) {
        let streams: Vec<BHandle> = self
            .state()
            .models
            .get(&model)
            .map(|m| m.streams.clone())
            .unwrap_or_default();
        self.finish(|p| streams.contains(&p.stream), false);
    }

    fn launch_inner(&self, stream: BHandle, info: StreamInfo, task: Task) -> AclResult<()> {
        let s = raw_stream(stream);
        match task {
            // SAFETY (all value and CMO tasks): addresses are device addresses the front end
            // validated; the library does not dereference them on the host.
            Task::ValueWrite { addr, value } => acl!(self, aclrtValueWrite(ptr(addr), value, 0, s)),
            Task::ValueWait {
                addr,
                value,
                compare,
            } => acl!(
                self,
                aclrtValueWait(ptr(addr), value, wait_flag(compare), s)
            ),
            Task::Memset { addr, value, len } => acl!(
                self,
                aclrtMemsetAsync(ptr(addr), len as usize, value as i32, len as usize, s)
            ),
            Task::Cmo { op, addr, len } => acl!(
                self,
                aclrtCmoAsync(ptr(addr), len as usize, cmo_type(op), s)
            ),
            Task::CmoWithBarrier {
                op,
                addr,
                len,
                barrier_id,
            } => acl!(
                self,
                aclrtCmoAsyncWithBarrier(ptr(addr), len as usize, cmo_type(op), barrier_id, s)
            ),
            Task::CmoWaitBarrier { barrier_ids } => {
                let mut info = sys::aclrtBarrierTaskInfo {
                    barrierNum: barrier_ids.len() as _,
                    ..Default::default()
                };
                for (slot, id) in info.cmoInfo.iter_mut().zip(&barrier_ids) {
                    slot.cmoType = cmo_type(CmoOp::Invalid);
                    slot.barrierId = *id;
                }
                // SAFETY: `info` is a live local the call only reads.
                acl!(self, aclrtCmoWaitBarrier(&mut info, s, 0))
            }
            Task::CmoWithDesc { desc, op } => acl!(
                self,
                aclrtCmoAsyncWithDesc(ptr(desc), cmo_type(op), s, std::ptr::null())
            ),
            Task::EventRecord(e) => {
                // SAFETY: `e` is a live event handle of the library (front-end validated).
                acl!(self, aclrtRecordEvent(e as usize as sys::aclrtEvent, s))?;
                let mut st = self.state();
                st.seq += 1;
                let seq = st.seq;
                if let Some(ev) = st.events.get_mut(&e) {
                    ev.last_record = Some((stream, seq));
                }
                Ok(())
            }
            // SAFETY: `e` is a live event handle of the library (front-end validated).
            Task::EventWait(e) => {
                acl!(self, aclrtStreamWaitEvent(s, e as usize as sys::aclrtEvent))
            }
            // SAFETY: as above.
            Task::EventReset(e) => acl!(self, aclrtResetEvent(e as usize as sys::aclrtEvent, s)),
            // SAFETY: `n` is a live notify handle of the library (front-end validated).
            Task::NotifyRecord(n) => {
                acl!(self, aclrtRecordNotify(n as usize as sys::aclrtNotify, s))
            }
            Task::NotifyWait { notify, timeout_s } => {
                // The API's 0 waits forever.
                let timeout = timeout_s.unwrap_or(0);
                // SAFETY: as above.
                acl!(
                    self,
                    aclrtWaitAndResetNotify(notify as usize as sys::aclrtNotify, s, timeout)
                )
            }
            Task::Memcpy { dst, src, len } => {
                let n = len as usize;
                let (d, finish, dtemp) = self.async_end(&dst, n, true)?;
                let (sp, _, stemp) = match self.async_end(&src, n, false) {
                    Ok(v) => v,
                    Err(e) => {
                        if let Some(t) = dtemp {
                            self.free_pinned(t);
                        }
                        return Err(e);
                    }
                };
                let kind = match (&dst, &src) {
                    (AsyncLoc::Device(_), AsyncLoc::Host(..)) => {
                        sys::aclrtMemcpyKind_ACL_MEMCPY_HOST_TO_DEVICE
                    }
                    (AsyncLoc::Host(..), AsyncLoc::Device(_)) => {
                        sys::aclrtMemcpyKind_ACL_MEMCPY_DEVICE_TO_HOST
                    }
                    (AsyncLoc::Device(_), AsyncLoc::Device(_)) => {
                        sys::aclrtMemcpyKind_ACL_MEMCPY_DEVICE_TO_DEVICE
                    }
                    (AsyncLoc::Host(..), AsyncLoc::Host(..)) => {
                        sys::aclrtMemcpyKind_ACL_MEMCPY_HOST_TO_HOST
                    }
                };
                // SAFETY: host ends are pinned memory of at least `n` bytes that stays
                // allocated until the copy's completion is observed (see `finish`); device
                // ends are front-end validated device ranges.
                let rc = acl!(self, aclrtMemcpyAsync(d, n, sp, n, kind as _, s));
                if rc.is_err() {
                    for t in [stemp, dtemp].into_iter().flatten() {
                        self.free_pinned(t);
                    }
                    return rc;
                }
                self.push_pending(stream, info.persistent, None, stemp);
                self.push_pending(stream, info.persistent, finish, dtemp);
                Ok(())
            }
        }
    }
}

impl Drop for HwBackend {
    fn drop(&mut self) {
        let st = std::mem::take(&mut *self.state());
        for p in st.pending {
            if let Some(t) = p.temp {
                self.free_pinned(t);
            }
        }
        for p in st.pinned.into_values() {
            self.free_pinned(p.ptr);
        }
    }
}

impl Backend for HwBackend {
    fn name(&self) -> &'static str {
        "hw"
    }

    fn chip(&self) -> &ChipProfile {
        &self.chip
    }

    fn soc_name(&self) -> AclResult<String> {
        Ok(self.soc.clone())
    }

    fn device_count(&self) -> AclResult<u32> {
        let mut n = 0u32;
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtGetDeviceCount(&mut n))?;
        Ok(n)
    }

    fn open_device(&self, device: u32) -> AclResult<BHandle> {
        acl!(self, aclrtSetDevice(device as i32))?;
        let mut ctx: sys::aclrtContext = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtGetCurrentContext(&mut ctx))?;
        let mut st = self.state();
        st.contexts.insert(device, ctx as usize);
        let h = default_stream(device);
        st.streams.insert(
            h,
            StreamInfo {
                device,
                ctx: ctx as usize,
                persistent: false,
            },
        );
        Ok(h)
    }

    fn close_device(&self, device: u32, force: bool) -> AclResult<()> {
        let rc = if force {
            acl!(self, aclrtResetDeviceForce(device as i32))
        } else {
            acl!(self, aclrtResetDevice(device as i32))
        };
        let streams: Vec<BHandle> = {
            let mut st = self.state();
            // The reset releases the default context and what was created in it; explicit
            // contexts stay until they are destroyed.
            let ctx = st.contexts.remove(&device);
            let streams = st
                .streams
                .iter()
                .filter(|(_, s)| Some(s.ctx) == ctx)
                .map(|(h, _)| *h)
                .collect::<Vec<_>>();
            st.streams.retain(|_, s| Some(s.ctx) != ctx);
            st.events.retain(|_, e| Some(e.ctx) != ctx);
            st.models.retain(|_, m| Some(m.ctx) != ctx);
            st.notifies.retain(|_, n| Some(n.ctx) != ctx);
            st.allocs.retain(|_, (_, d)| *d != device);
            streams
        };
        self.finish(|p| streams.contains(&p.stream), true);
        self.sweep_pinned();
        rc
    }

    fn malloc(&self, device: u32, bytes: u64, policy: u32) -> AclResult<u64> {
        self.enter(device)?;
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtMalloc(&mut p, bytes as usize, policy as _))?;
        let addr = p as usize as u64;
        self.state().allocs.insert(addr, (bytes, device));
        Ok(addr)
    }

    fn free(&self, device: u32, addr: u64) -> AclResult<()> {
        self.enter(device)?;
        // SAFETY: a base address aclrtMalloc returned (front-end validated).
        acl!(self, aclrtFree(ptr(addr)))?;
        self.state().allocs.remove(&addr);
        Ok(())
    }

    fn malloc_host(&self, bytes: usize) -> AclResult<HostBuf> {
        self.sweep_pinned();
        // Page-locked memory needs a context on some runtimes: use any open device's, else
        // any explicit context.
        let any = {
            let st = self.state();
            let default = st.contexts.values().next().copied();
            default.or_else(|| st.explicit.keys().next().copied())
        };
        if let Some(ctx) = any {
            self.enter_ctx(ctx)?;
        }
        let p = self.alloc_pinned(bytes)?;
        let buf: HostBuf = Arc::new(Mutex::new(vec![0u8; bytes]));
        self.state().pinned.insert(
            Arc::as_ptr(&buf) as usize,
            Pinned {
                buf: Arc::downgrade(&buf),
                ptr: p,
            },
        );
        Ok(buf)
    }

    fn memcpy(&self, dst: SyncDst<'_>, src: SyncSrc<'_>, count: u64) -> AclResult<()> {
        let n = count as usize;
        match (dst, src) {
            (SyncDst::Host(d), SyncSrc::Host(s)) => {
                d[..n].copy_from_slice(&s[..n]);
                Ok(())
            }
            (SyncDst::Device(d), SyncSrc::Host(s)) => {
                self.enter_addr(d)?;
                // SAFETY: `s` is a live host slice of at least `n` bytes for the whole
                // (synchronous) call; `d` is a validated device range.
                acl!(
                    self,
                    aclrtMemcpy(
                        ptr(d),
                        n,
                        s.as_ptr() as *const c_void,
                        n,
                        sys::aclrtMemcpyKind_ACL_MEMCPY_HOST_TO_DEVICE as _
                    )
                )
            }
            (SyncDst::Host(d), SyncSrc::Device(s)) => {
                self.enter_addr(s)?;
                // SAFETY: `d` is a live, exclusively borrowed host slice of at least `n`
                // bytes for the whole (synchronous) call; `s` is a validated device range.
                acl!(
                    self,
                    aclrtMemcpy(
                        d.as_mut_ptr() as *mut c_void,
                        n,
                        ptr(s) as *const c_void,
                        n,
                        sys::aclrtMemcpyKind_ACL_MEMCPY_DEVICE_TO_HOST as _
                    )
                )
            }
            (SyncDst::Device(d), SyncSrc::Device(s)) => {
                self.enter_addr(d)?;
                // SAFETY: both are validated device ranges.
                acl!(
                    self,
                    aclrtMemcpy(
                        ptr(d),
                        n,
                        ptr(s) as *const c_void,
                        n,
                        sys::aclrtMemcpyKind_ACL_MEMCPY_DEVICE_TO_DEVICE as _
                    )
                )
            }
        }
    }

    fn memset(&self, addr: u64, value: u8, count: u64) -> AclResult<()> {
        self.enter_addr(addr)?;
        let n = count as usize;
        // SAFETY: a validated device range.
        acl!(self, aclrtMemset(ptr(addr), n, value as i32, n))
    }

    fn create_stream(&self, device: u32, priority: u32, flags: u32) -> AclResult<BHandle> {
        let ctx = self.enter(device)?;
        let mut s: sys::aclrtStream = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtCreateStreamWithConfig(&mut s, priority, flags))?;
        let h = s as usize as BHandle;
        self.state().streams.insert(
            h,
            StreamInfo {
                device,
                ctx,
                persistent: flags & sys::ACL_STREAM_PERSISTENT as u32 != 0,
            },
        );
        Ok(h)
    }

    fn destroy_stream(&self, stream: BHandle, force: bool) -> AclResult<()> {
        self.enter_stream(stream)?;
        let s = raw_stream(stream);
        // SAFETY: a live stream handle of the library (front-end validated).
        if force {
            acl!(self, aclrtDestroyStreamForce(s))?;
        } else {
            acl!(self, aclrtDestroyStream(s))?;
        }
        self.state().streams.remove(&stream);
        self.finish(|p| p.stream == stream, true);
        Ok(())
    }

    fn launch(&self, stream: BHandle, task: Task) -> AclResult<()> {
        let info = self.enter_stream(stream)?;
        self.launch_inner(stream, info, task)
    }

    fn synchronize_stream(&self, stream: BHandle, timeout_ms: Option<u64>) -> AclResult<()> {
        self.enter_stream(stream)?;
        let s = raw_stream(stream);
        // SAFETY: a live stream handle of the library, or NULL for the default stream.
        match timeout_ms {
            None => acl!(self, aclrtSynchronizeStream(s))?,
            Some(_) => acl!(
                self,
                aclrtSynchronizeStreamWithTimeout(s, timeout_arg(timeout_ms))
            )?,
        }
        self.finish(|p| p.stream == stream, false);
        Ok(())
    }

    fn stream_idle(&self, stream: BHandle) -> AclResult<bool> {
        self.enter_stream(stream)?;
        let mut status: sys::aclrtStreamStatus = 0 as _;
        // SAFETY: a live stream handle (or NULL) and a live out-pointer.
        acl!(self, aclrtStreamQuery(raw_stream(stream), &mut status))?;
        let idle = status as u32 == sys::aclrtStreamStatus_ACL_STREAM_STATUS_COMPLETE as u32;
        if idle {
            self.finish(|p| p.stream == stream, false);
        }
        Ok(idle)
    }

    fn synchronize_device(&self, device: u32, _timeout_ms: Option<u64>) -> AclResult<()> {
        self.enter(device)?;
        acl!(self, aclrtSynchronizeDevice())?;
        let streams: Vec<BHandle> = self
            .state()
            .streams
            .iter()
            .filter(|(_, s)| s.device == device)
            .map(|(h, _)| *h)
            .collect();
        self.finish(|p| streams.contains(&p.stream), false);
        Ok(())
    }

    /// `flags` is the runtime flag word: `RT_EVENT_DEFAULT` is `aclrtCreateEvent`, a flag
    /// only Ex mode has (`ACL_EVENT_IPC`) is `aclrtCreateEventExWithFlag`, any other is
    /// `aclrtCreateEventWithFlag` (the trait does not say whether the front end's event is in
    /// Ex mode; the front end enforces Ex mode's rules itself).
    fn create_event(&self, device: u32, flags: u32) -> AclResult<BHandle> {
        let ctx = self.enter(device)?;
        let mut e: sys::aclrtEvent = std::ptr::null_mut();
        // SAFETY (all three): the out-pointer is a live local.
        if flags == EVENT_RT_DEFAULT {
            acl!(self, aclrtCreateEvent(&mut e))?;
        } else if flags & EVENT_EX_ONLY != 0 {
            acl!(self, aclrtCreateEventExWithFlag(&mut e, flags))?;
        } else {
            acl!(self, aclrtCreateEventWithFlag(&mut e, flags))?;
        }
        let h = e as usize as BHandle;
        self.state().events.insert(
            h,
            EventInfo {
                ctx,
                last_record: None,
            },
        );
        Ok(h)
    }

    fn destroy_event(&self, event: BHandle) -> AclResult<()> {
        self.enter_event(event)?;
        // SAFETY: a live event handle of the library.
        acl!(self, aclrtDestroyEvent(event as usize as sys::aclrtEvent))?;
        self.state().events.remove(&event);
        Ok(())
    }

    fn event_complete(&self, event: BHandle) -> AclResult<bool> {
        self.enter_event(event)?;
        let mut status: sys::aclrtEventRecordedStatus = 0 as _;
        // SAFETY: a live event handle and a live out-pointer.
        acl!(
            self,
            aclrtQueryEventStatus(event as usize as sys::aclrtEvent, &mut status)
        )?;
        let done = status as u32
            == sys::aclrtEventRecordedStatus_ACL_EVENT_RECORDED_STATUS_COMPLETE as u32;
        if done {
            self.finish_event(event);
        }
        Ok(done)
    }

    fn synchronize_event(&self, event: BHandle, timeout_ms: Option<u64>) -> AclResult<()> {
        self.enter_event(event)?;
        let e = event as usize as sys::aclrtEvent;
        // SAFETY: a live event handle of the library.
        match timeout_ms {
            None => acl!(self, aclrtSynchronizeEvent(e))?,
            Some(_) => acl!(
                self,
                aclrtSynchronizeEventWithTimeout(e, timeout_arg(timeout_ms))
            )?,
        }
        self.finish_event(event);
        Ok(())
    }

    fn event_elapsed_ms(&self, start: BHandle, end: BHandle) -> AclResult<f32> {
        self.enter_event(start)?;
        let mut ms = 0f32;
        // SAFETY: live event handles and a live out-pointer.
        acl!(
            self,
            aclrtEventElapsedTime(
                &mut ms,
                start as usize as sys::aclrtEvent,
                end as usize as sys::aclrtEvent
            )
        )?;
        Ok(ms)
    }

    fn create_model(&self, device: u32) -> AclResult<BHandle> {
        let ctx = self.enter(device)?;
        let mut m: sys::aclmdlRI = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclmdlRIBuildBegin(&mut m, 0))?;
        let h = m as usize as BHandle;
        self.state().models.insert(
            h,
            ModelInfo {
                ctx,
                streams: Vec::new(),
            },
        );
        Ok(h)
    }

    fn bind_stream(&self, model: BHandle, stream: BHandle, flag: u32) -> AclResult<()> {
        self.enter_model(model)?;
        // SAFETY: live model and stream handles of the library.
        acl!(
            self,
            aclmdlRIBindStream(model as usize as sys::aclmdlRI, raw_stream(stream), flag)
        )?;
        if let Some(m) = self.state().models.get_mut(&model) {
            m.streams.push(stream);
        }
        Ok(())
    }

    fn unbind_stream(&self, model: BHandle, stream: BHandle) -> AclResult<()> {
        self.enter_model(model)?;
        // SAFETY: live model and stream handles of the library.
        acl!(
            self,
            aclmdlRIUnbindStream(model as usize as sys::aclmdlRI, raw_stream(stream))
        )?;
        if let Some(m) = self.state().models.get_mut(&model) {
            m.streams.retain(|s| *s != stream);
        }
        Ok(())
    }

    fn end_task(&self, model: BHandle, stream: BHandle) -> AclResult<()> {
        self.enter_model(model)?;
        // SAFETY: live model and stream handles of the library.
        acl!(
            self,
            aclmdlRIEndTask(model as usize as sys::aclmdlRI, raw_stream(stream))
        )
    }

    fn build_end(&self, model: BHandle) -> AclResult<()> {
        self.enter_model(model)?;
        // SAFETY: a live model handle; `reserve` must be NULL.
        acl!(
            self,
            aclmdlRIBuildEnd(model as usize as sys::aclmdlRI, std::ptr::null_mut())
        )
    }

    fn execute_model(&self, model: BHandle, timeout_ms: Option<u64>) -> AclResult<()> {
        self.enter_model(model)?;
        // SAFETY: a live model handle of the library.
        acl!(
            self,
            aclmdlRIExecute(model as usize as sys::aclmdlRI, timeout_arg(timeout_ms))
        )?;
        self.refresh_model(model);
        Ok(())
    }

    fn execute_model_async(&self, model: BHandle, stream: BHandle) -> AclResult<()> {
        if !self.state().models.contains_key(&model) {
            return Err(Self::unknown("model", model));
        }
        // The stream's context: a default stream is NULL in its own context.
        self.enter_stream(stream)?;
        // SAFETY: live model and stream handles of the library.
        acl!(
            self,
            aclmdlRIExecuteAsync(model as usize as sys::aclmdlRI, raw_stream(stream))
        )?;
        self.push_pending(stream, false, Some(Finish::ModelRun(model)), None);
        Ok(())
    }

    fn destroy_model(&self, model: BHandle) -> AclResult<()> {
        self.enter_model(model)?;
        // SAFETY: a live model handle of the library.
        acl!(self, aclmdlRIDestroy(model as usize as sys::aclmdlRI))?;
        let streams = self
            .state()
            .models
            .remove(&model)
            .map(|m| m.streams)
            .unwrap_or_default();
        self.finish(|p| streams.contains(&p.stream), true);
        Ok(())
    }

    fn cmo_set_desc(&self, desc: u64, src: u64, size: u64) -> AclResult<()> {
        self.enter_addr(desc)?;
        // SAFETY: `desc` is validated device memory with room for a descriptor; `src` is only
        // recorded in the descriptor, never dereferenced on the host.
        acl!(self, aclrtCmoSetDesc(ptr(desc), ptr(src), size as usize))
    }

    /// `aclrtCreateContext`, which also makes the new context current on the calling thread
    /// (as the front end does); its default stream is the NULL stream in it.
    fn create_context(&self, device: u32) -> AclResult<BHandle> {
        let mut ctx: sys::aclrtContext = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtCreateContext(&mut ctx, device as i32))?;
        let ctx = ctx as usize;
        let mut st = self.state();
        st.seq += 1;
        let serial = st.seq;
        st.explicit.insert(ctx, ExplicitCtx { device, serial });
        let h = CONTEXT_STREAM_TAG | (serial & !TAG_MASK);
        st.streams.insert(
            h,
            StreamInfo {
                device,
                ctx,
                persistent: false,
            },
        );
        Ok(h)
    }

    /// Waits for the context's default stream, finishes its pending host copies, then
    /// `aclrtDestroyContext`; forgets what the library released with the context.
    fn destroy_context(&self, _device: u32, default_stream: BHandle) -> AclResult<()> {
        let info = self.enter_stream(default_stream)?;
        let ctx = info.ctx;
        if !self.state().explicit.contains_key(&ctx) {
            return Err(AclError::new(
                ErrorCode::RtContextNull,
                None,
                format!("hw backend: {default_stream:#x} is not the stream of an explicit context"),
            ));
        }
        // SAFETY: NULL is the current (explicit) context's default stream.
        let synced = acl!(self, aclrtSynchronizeStream(std::ptr::null_mut()));
        if let Err(e) = &synced {
            tracing::debug!("hw backend: synchronising a context before its destruction: {e}");
        }
        // Copies into host buffers are finished while their pinned memory is surely alive.
        let streams: Vec<BHandle> = {
            let st = self.state();
            st.streams
                .iter()
                .filter(|(_, s)| s.ctx == ctx)
                .map(|(h, _)| *h)
                .collect()
        };
        self.finish(|p| streams.contains(&p.stream), true);
        // SAFETY: a live explicit context of the library, destroyed once (it leaves the table
        // below, and the front end forgets it before calling).
        let rc = acl!(self, aclrtDestroyContext(ctx as sys::aclrtContext));
        let mut st = self.state();
        st.explicit.remove(&ctx);
        st.streams.retain(|_, s| s.ctx != ctx);
        st.events.retain(|_, e| e.ctx != ctx);
        st.models.retain(|_, m| m.ctx != ctx);
        st.notifies.retain(|_, n| n.ctx != ctx);
        rc
    }

    fn create_notify(&self, device: u32, flag: u64) -> AclResult<BHandle> {
        let ctx = self.enter(device)?;
        let mut n: sys::aclrtNotify = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtCreateNotify(&mut n, flag))?;
        let h = n as usize as BHandle;
        self.state().notifies.insert(h, NotifyInfo { ctx });
        Ok(h)
    }

    fn destroy_notify(&self, notify: BHandle) -> AclResult<()> {
        self.enter_notify(notify)?;
        // SAFETY: a live notify handle of the library (front-end validated).
        acl!(
            self,
            aclrtDestroyNotify(notify as usize as sys::aclrtNotify)
        )?;
        self.state().notifies.remove(&notify);
        Ok(())
    }

    /// `aclrtEventGetTimestamp`; its "not executed yet" code (107006) is `None`. A timestamp
    /// means the record executed, so the work before it is finished on the host too.
    fn event_timestamp_us(&self, event: BHandle) -> AclResult<Option<u64>> {
        self.enter_event(event)?;
        let f = acl_fn!(self.lib, aclrtEventGetTimestamp).map_err(missing)?;
        let mut ts = 0u64;
        // SAFETY: `f` is the library's aclrtEventGetTimestamp (declared by bindgen from the
        // ACL header); a live event handle of the library and a live out-pointer.
        let rc = unsafe { f(event as usize as sys::aclrtEvent, &mut ts) };
        if rc as i32 == TIMESTAMP_NOT_READY {
            return Ok(None);
        }
        self.check("aclrtEventGetTimestamp", rc)?;
        self.finish_event(event);
        Ok(Some(ts))
    }
}

impl HwBackend {
    /// Finishes the work enqueued before the event's latest record on its stream.
    fn finish_event(&self, event: BHandle) {
        let rec = self.state().events.get(&event).and_then(|e| e.last_record);
        if let Some((stream, seq)) = rec {
            self.finish(|p| p.stream == stream && p.seq <= seq, false);
        }
    }
}

impl Runtime {
    /// A runtime over the real runtime library, found as
    /// [`ascend_rt_sys::library_candidates`] says: `ASCEND_RT_LIB`, then the toolkit
    /// (`ASCEND_TOOLKIT_HOME` / `ASCEND_HOME_PATH`, `lib64/libascendcl.so`), then the loader
    /// path. The chip profile is the built-in one of the SoC the library reports.
    pub fn hw() -> Result<Runtime, HwError> {
        Ok(Runtime::new(Box::new(HwBackend::load()?)))
    }

    /// A runtime over the runtime library at `path`.
    pub fn hw_from(path: impl AsRef<Path>) -> Result<Runtime, HwError> {
        Ok(Runtime::new(Box::new(HwBackend::load_from(path)?)))
    }
}
