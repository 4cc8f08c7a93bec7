//! The shared device's protocol: what a client sends ([`Request`], one per backend call it
//! forwards) and what the service answers ([`Reply`]), each a frame of a 4-byte little-endian
//! length and its bincode encoding, over a Unix socket.
//!
//! Handles and addresses are the service's backend's own numbers; enum values travel as their
//! raw ACL values. A task travels as a [`WireTask`]: the kinds whose arguments are plain data
//! (host bytes a copy reads are sent with it, as the front end's staging of pageable memory
//! already snapshotted them; the bytes a copy into host memory writes come back in
//! [`Reply::Landings`] once it has run).

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

pub use super::mirrors::{WireDeviceCall, WireError, WireFault};
pub(crate) use task::host_bytes;
pub use task::WireTask;

mod task;

/// The largest frame either side accepts (a copy's bytes included).
pub const MAX_FRAME: usize = 1 << 30;

/// The most host bytes one request carries: a longer copy goes as several.
pub const CHUNK: usize = 64 << 20;

/// A call a client makes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Request {
    /// The first frame of every connection: which process it is (its pid, and a token that
    /// names it however many connections it opens).
    Hello {
        /// The client's process id.
        pid: u32,
        /// The client runtime's token.
        token: u64,
    },
    /// `request`, made by the process's thread `thread` (the client's number for it): the
    /// simulator sees that thread's calls as one host thread's, whichever connection carries
    /// them.
    FromThread {
        thread: u64,
        request: Box<Request>,
    },
    /// `request` is a copy the runtime makes for itself (keeping a mapped host registration
    /// and its device mirror alike), not the program's access: hidden from race detection.
    Untracked(Box<Request>),
    /// The service's SoC and address window: answered with [`Reply::Chip`].
    Chip,
    /// The processes the service has, and what each owns: [`Reply::Status`].
    Status,
    /// How many processes the service has had since it started: [`Reply::U64`].
    Served,
    /// This connection is the process's presence: it stays open, and nothing more comes on it,
    /// for as long as the process uses the service; its end is the process's end, however many
    /// of its calls are still blocked.
    Presence,
    /// This connection is the process's kernel host: the service sends it
    /// [`super::kernels::HostMsg`]s, and nothing more comes from the process on it.
    KernelHost,
    /// This connection runs the block with this ticket: [`Request::KernelOp`]s follow.
    BlockAttach {
        block: u64,
    },
    /// One operation of the attached block.
    KernelOp(super::kernels::KernelOp),
    SocName,
    DeviceCount,
    Explain {
        addr: u64,
    },
    OpenDevice {
        device: u32,
    },
    CloseDevice {
        device: u32,
        force: bool,
    },
    SynchronizeDevice {
        device: u32,
        timeout_ms: Option<u64>,
    },
    DeviceCall(WireDeviceCall),
    Malloc {
        device: u32,
        bytes: u64,
        policy: u32,
    },
    Free {
        device: u32,
        addr: u64,
    },
    CopyToDevice {
        dst: u64,
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
    },
    /// The process's copy window: a shared file at `path` of `len` bytes, through which its
    /// host copies pass their bytes (`CopyInWindow`, `CopyOutWindow`).
    Window {
        path: String,
        len: u64,
    },
    /// `len` bytes at the start of the process's window to device memory at `dst`.
    CopyInWindow {
        dst: u64,
        len: u64,
    },
    /// `len` bytes of device memory at `src` to the start of the process's window.
    CopyOutWindow {
        src: u64,
        len: u64,
    },
    CopyFromDevice {
        src: u64,
        len: u64,
    },
    CopyDeviceToDevice {
        dst: u64,
        src: u64,
        len: u64,
    },
    Memset {
        addr: u64,
        value: u8,
        count: u64,
    },
    CmoSetDesc {
        desc: u64,
        src: u64,
        size: u64,
    },
    CreateStream {
        device: u32,
        priority: u32,
        flags: u32,
    },
    DestroyStream {
        stream: u64,
        force: bool,
    },
    Launch {
        stream: u64,
        task: WireTask,
    },
    SynchronizeStream {
        stream: u64,
        timeout_ms: Option<u64>,
    },
    StreamIdle {
        stream: u64,
    },
    SetStopOnFailure {
        stream: u64,
        named: bool,
    },
    AbortStream {
        stream: u64,
    },
    StopStream {
        stream: u64,
    },
    TakeTaskFaults,
    /// The process's copies into host memory that have ended since it last asked:
    /// [`Reply::Landings`].
    TakeLandings,
    /// A host function or callback on `stream`, run by the process's `thread` when the stream
    /// reaches it; `call` is the process's number for its function. Answered with
    /// [`Reply::Calls`]: the process's calls dropped without running since it last heard.
    LaunchHostCall {
        stream: u64,
        call: u64,
        thread: WireHostThread,
        blocking: bool,
    },
    /// The process's host calls dropped without running since it last heard:
    /// [`Reply::Calls`].
    TakeDroppedHostCalls,
    /// The next host call due for the process's `thread`: [`Reply::HostCall`]. The runtime's
    /// thread waits up to `wall_ms` of wall time without driving the device; a report or
    /// host-function thread drives the device for up to `timeout_ms` of simulated time
    /// (`None`: until one is due).
    NextHostCall {
        thread: WireHostThread,
        timeout_ms: Option<u64>,
        wall_ms: u64,
    },
    /// The host call that task `task` reached, which the process's `thread` took, has
    /// returned.
    FinishHostCall {
        task: u64,
        thread: WireHostThread,
    },
    /// The process's report thread `thread` serves `stream`'s callbacks, or no longer does.
    SubscribeReports {
        thread: u64,
        stream: u64,
        subscribe: bool,
    },
    CreateEvent {
        device: u32,
        flags: u32,
    },
    DestroyEvent {
        event: u64,
    },
    EventComplete {
        event: u64,
    },
    SynchronizeEvent {
        event: u64,
        timeout_ms: Option<u64>,
    },
    EventElapsed {
        start: u64,
        end: u64,
    },
    EventTimestamp {
        event: u64,
    },
    CreateNotify {
        device: u32,
        flag: u64,
    },
    DestroyNotify {
        notify: u64,
    },
    CreateModel {
        device: u32,
    },
    IpcExport {
        device: u32,
        addr: u64,
        len: u64,
        whitelist: bool,
        pid: u32,
    },
    IpcSetImportPids {
        key: String,
        pids: Vec<i32>,
        pid: u32,
    },
    IpcImport {
        key: String,
        pid: u32,
    },
    IpcClose {
        key: String,
        imported: bool,
        pid: u32,
    },
    MallocPhysical {
        device: u32,
        bytes: u64,
    },
    FreePhysical {
        device: u32,
        handle: u64,
        import: Option<u64>,
        pid: u32,
    },
    ReserveAddress {
        device: u32,
        bytes: u64,
        align: u64,
    },
    ReleaseAddress {
        va: u64,
    },
    MapMemory {
        va: u64,
        bytes: u64,
        offset: u64,
        handle: u64,
    },
    UnmapMemory {
        va: u64,
    },
    ExportShareable {
        device: u32,
        handle: u64,
        len: u64,
        whitelist: bool,
        pid: u32,
    },
    SetShareablePids {
        shareable: u64,
        pids: Vec<i32>,
        pid: u32,
    },
    ShareableDevice {
        shareable: u64,
    },
    CloseShareable {
        shareable: u64,
        pid: u32,
    },
    ImportShareable {
        shareable: u64,
        device: u32,
        pid: u32,
    },
    IpcNotifyExport {
        device: u32,
        notify: u64,
        whitelist: bool,
        pid: u32,
    },
    IpcNotifySetPids {
        notify: u64,
        key: String,
        pids: Vec<i32>,
        pid: u32,
    },
    IpcNotifyImport {
        key: String,
        pid: u32,
    },
    IpcEventHandle {
        event: u64,
        pid: u32,
    },
    IpcEventOpen {
        handle: u64,
        pid: u32,
    },
    IpcEventClose {
        event: u64,
        pid: u32,
    },
    BindStream {
        model: u64,
        stream: u64,
        flag: u32,
    },
    UnbindStream {
        model: u64,
        stream: u64,
    },
    EndTask {
        model: u64,
        stream: u64,
    },
    BuildEnd {
        model: u64,
    },
    ExecuteModel {
        model: u64,
        timeout_ms: Option<u64>,
    },
    ExecuteModelAsync {
        model: u64,
        stream: u64,
    },
    DestroyModel {
        model: u64,
    },
}

/// Which of a process's host threads runs a host call
/// ([`crate::backend::HostCallThread`] on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum WireHostThread {
    Runtime,
    Reports(u64),
    HostFuncs(u64),
}

impl From<crate::backend::HostCallThread> for WireHostThread {
    fn from(t: crate::backend::HostCallThread) -> Self {
        use crate::backend::HostCallThread as T;
        match t {
            T::Runtime => WireHostThread::Runtime,
            T::Reports(n) => WireHostThread::Reports(n),
            T::HostFuncs(n) => WireHostThread::HostFuncs(n),
        }
    }
}

/// A host call due for a process's thread ([`Reply::HostCall`]).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct DueCall {
    /// The process's number for its function.
    pub call: u64,
    /// The task that reached it, to finish it by.
    pub task: u64,
    /// A model run's copy: the function stays for the model's next run.
    pub repeats: bool,
}

/// A copy into a client's host memory that has ended ([`Reply::Landings`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Landed {
    /// The task number its launch answered.
    pub task: u64,
    /// Its bytes, or `None` where it faulted or was discarded (nothing lands).
    #[serde(with = "serde_bytes")]
    pub bytes: Option<Vec<u8>>,
}

/// What the service answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum Reply {
    Unit,
    U64(u64),
    U32(u32),
    Bool(bool),
    F32(f32),
    OptU64(Option<u64>),
    OptI64(Option<i64>),
    Str(String),
    OptStr(Option<String>),
    Bytes(#[serde(with = "serde_bytes")] Vec<u8>),
    /// An imported notify and its creator's device.
    Notify {
        notify: u64,
        device: u32,
    },
    /// An import: address, length, device.
    Import {
        addr: u64,
        len: Option<u64>,
        device: u32,
    },
    Faults(Vec<WireFault>),
    /// A host call due, or none in time; `warning`: what to tell the program (a host function
    /// waits while nothing drives the device).
    HostCall {
        due: Option<DueCall>,
        warning: Option<String>,
    },
    /// Call numbers (a process's host calls dropped without running).
    Calls(Vec<u64>),
    /// Copies into the client's host memory that have ended; `more`: others have too, for
    /// another answer (one carries at most [`CHUNK`] bytes).
    Landings {
        landed: Vec<Landed>,
        more: bool,
    },
    /// The processes using the service.
    Status(Vec<ProcessStatus>),
    /// The service's chip: its SoC name (a built-in profile) and device address window.
    Chip {
        soc: String,
        window: Option<(u64, u64)>,
    },
    Err(WireError),
}

/// One process using the service, and what it owns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessStatus {
    /// Its process id.
    pub pid: u32,
    /// Its connections.
    pub connections: usize,
    /// Devices it has open.
    pub devices: usize,
    /// Streams it created (beyond its default streams).
    pub streams: usize,
    /// Device allocations it holds.
    pub allocations: usize,
    /// Events it created.
    pub events: usize,
    /// Notifies it created.
    pub notifies: usize,
    /// Models it created.
    pub models: usize,
    /// Virtual ranges it reserved (`aclrtReserveMemAddress`).
    pub reserved_ranges: usize,
    /// Mappings it made (`aclrtMapMem`).
    pub mappings: usize,
}

/// The most bytes a process's copy window may hold.
pub const WINDOW_MAX: u64 = 1 << 30;

/// Writes one frame.
pub fn send<T: Serialize>(w: &mut impl Write, value: &T) -> std::io::Result<()> {
    let body = bincode::serde::encode_to_vec(value, bincode::config::standard())
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    if body.len() > MAX_FRAME {
        return Err(std::io::Error::other(format!(
            "a frame of {} bytes is over the {MAX_FRAME}-byte limit",
            body.len()
        )));
    }
    let mut frame = Vec::with_capacity(4 + body.len());
    frame.extend_from_slice(&(body.len() as u32).to_le_bytes());
    frame.extend_from_slice(&body);
    w.write_all(&frame)
}

/// Reads one frame; `Ok(None)` at a clean end of the stream (the peer closed it).
pub fn receive<T: for<'de> Deserialize<'de>>(r: &mut impl Read) -> std::io::Result<Option<T>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(std::io::Error::other(format!(
            "a frame of {len} bytes is over the {MAX_FRAME}-byte limit"
        )));
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body)?;
    let (v, _) = bincode::serde::decode_from_slice(&body, bincode::config::standard())
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(Some(v))
}
