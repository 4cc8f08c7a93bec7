//! [`SharedDeviceClient`]: the backend of a process whose device is the shared device
//! service's. Each backend call is one [`Request`] on a connection of its own (a pool of them,
//! so that a thread blocked in a synchronize does not hold up another thread's call); the
//! pool's first connection stays open for the runtime's life, so the service knows the
//! process is there and releases what it owns when it goes.

use std::ops::Range;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ascend_chips::ChipProfile;

use super::wire::{self, Reply, Request, WireTask};

mod copy_window;
mod host_calls;
mod landings;
use crate::backend::{
    BResult, BackendError, DeviceCall, Devices, EventId, Events, HostBuf, Inspect, Loc, Memory,
    ModelId, Models, NotifyId, PhysicalImport, StreamId, Streams, SyncCopy, Task, TaskFaultInfo,
    VirtualMemory,
};
use crate::error::{AclError, ErrorCode};

/// A client of the shared device service at a socket path.
#[derive(Debug)]
pub struct SharedDeviceClient {
    path: PathBuf,
    token: u64,
    chip: ChipProfile,
    /// The service's device address window (it does not change).
    window: Option<(u64, u64)>,
    /// The kernels this process launched, and the host that runs their blocks.
    kernels: super::kernels::ClientKernels,
    /// A connection broke: the service is gone, and so is every object this process had.
    dead: std::sync::atomic::AtomicBool,
    /// Connections not in use; the first one made is kept open as the process's presence.
    idle: Mutex<Vec<UnixStream>>,
    /// The window host copies pass their bytes through, made at the first large copy
    /// (`Err`: the service could not take one; copies then carry their bytes in the request).
    copy_window: Mutex<Option<Result<ascend_sim_shm::Window, ()>>>,
    /// Its copies into its host memory whose bytes have not landed.
    landings: Mutex<landings::Landings>,
    /// Held by the thread taking what has landed, from its request to its last landing.
    taking: Mutex<()>,
    /// The functions of its host calls, by its call numbers.
    host_fns: std::sync::Arc<crate::backend::host_call_table::HostCallTable>,
    /// The runtime's host-function thread's stop flag, once it runs.
    host_thread: crate::backend::host_call_table::HostThreadSlot,
    _presence: UnixStream,
}

/// How long a new client waits for the service's first answer.
const FIRST_ANSWER: std::time::Duration = std::time::Duration::from_secs(10);

/// Why the service cannot be reached: every call then ends with this code.
fn gone(path: &Path, e: impl std::fmt::Display) -> BackendError {
    BackendError::Library(AclError::new(
        ErrorCode::RtInternalError,
        None,
        format!(
            "the shared device service at {} is not there (it ended, or never started): {e}",
            path.display()
        ),
    ))
}

thread_local! {
    /// The calling thread makes a copy for the runtime itself ([`Memory::mirror_copy`]).
    static UNTRACKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The calling thread's number in this process (1, 2, ... in the order threads first call):
/// the service sees each program thread's calls as one host thread's.
fn program_thread() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static ID: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    ID.with(|id| *id)
}

fn unsupported(what: &str) -> BackendError {
    BackendError::Unsupported(format!(
        "{what} is not yet available on a device shared through the device service \
         (ASCEND_SIM_DEVICE); run the program on a device of its own"
    ))
}

impl SharedDeviceClient {
    /// Connects to the service at `path`.
    pub fn connect(path: impl AsRef<Path>) -> BResult<SharedDeviceClient> {
        let path = path.as_ref().to_path_buf();
        let token = {
            use std::hash::{BuildHasher, Hasher};
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u32(std::process::id());
            h.finish().max(1) // 0 is an observer's
        };
        let mut presence = Self::open(&path, token)?;
        wire::send(&mut presence, &Request::Presence).map_err(|e| gone(&path, e))?;
        let mut first = Self::open(&path, token)?;
        // Something that accepts connections but never answers is no service: the first
        // answer is awaited for a bounded time (later calls may block as long as the device).
        first
            .set_read_timeout(Some(FIRST_ANSWER))
            .map_err(|e| gone(&path, e))?;
        let (soc, window) = match Self::ask(&path, &mut first, &Request::Chip)?? {
            Reply::Chip { soc, window } => (soc, window),
            other => return Err(gone(&path, format!("an answer out of place: {other:?}"))),
        };
        first.set_read_timeout(None).map_err(|e| gone(&path, e))?;
        let chip = ChipProfile::builtin(&soc).map_err(|e| gone(&path, e))?;
        Ok(SharedDeviceClient {
            path,
            token,
            chip,
            window,
            kernels: Default::default(),
            dead: Default::default(),
            idle: Mutex::new(vec![first]),
            copy_window: Mutex::new(None),
            landings: Mutex::default(),
            taking: Mutex::new(()),
            host_fns: Default::default(),
            host_thread: Default::default(),
            _presence: presence,
        })
    }

    fn open(path: &Path, token: u64) -> BResult<UnixStream> {
        let mut s = UnixStream::connect(path).map_err(|e| gone(path, e))?;
        wire::send(
            &mut s,
            &Request::Hello {
                pid: std::process::id(),
                token,
            },
        )
        .map_err(|e| gone(path, e))?;
        Ok(s)
    }

    /// Sends `req` and reads the answer: the outer error is the connection's (the service is
    /// gone), the inner one the call's.
    fn ask(path: &Path, conn: &mut UnixStream, req: &Request) -> BResult<BResult<Reply>> {
        wire::send(conn, req).map_err(|e| gone(path, e))?;
        match wire::receive::<Reply>(conn).map_err(|e| gone(path, e))? {
            Some(Reply::Err(e)) => Ok(Err(e.into())),
            Some(r) => Ok(Ok(r)),
            None => Err(gone(path, "it closed the connection")),
        }
    }

    /// Sends `req` on an idle connection (or a new one) and returns the answer. Once a
    /// connection broke, the service this process used is gone (a service started again at
    /// the path is another device, which knows nothing of this process's objects): every
    /// later call fails too.
    fn call(&self, req: Request) -> BResult<Reply> {
        if self.dead.load(std::sync::atomic::Ordering::Acquire) {
            return Err(gone(&self.path, "it ended while this process used it"));
        }
        let taken = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let conn = match taken {
            Some(c) => Ok(c),
            None => Self::open(&self.path, self.token),
        };
        // What has landed in host memory is in place before any call but a launch returns.
        let take_landings = !matches!(req, Request::Launch { .. } | Request::TakeLandings);
        // After a call that may drop host calls, their functions go.
        let may_drop_calls = matches!(
            req,
            Request::SynchronizeDevice { .. }
                | Request::SynchronizeStream { .. }
                | Request::DestroyStream { .. }
                | Request::AbortStream { .. }
                | Request::StopStream { .. }
                | Request::TakeTaskFaults
                | Request::BindStream { .. }
                | Request::UnbindStream { .. }
                | Request::DestroyModel { .. }
        );
        let req = if UNTRACKED.with(std::cell::Cell::get) {
            Request::Untracked(Box::new(req))
        } else {
            req
        };
        let req = Request::FromThread {
            thread: program_thread(),
            request: Box::new(req),
        };
        let answer = conn.and_then(|mut conn| {
            let a = Self::ask(&self.path, &mut conn, &req)?;
            Ok((conn, a))
        });
        let (conn, answer) = match answer {
            Ok(x) => x,
            Err(e) => {
                self.dead.store(true, std::sync::atomic::Ordering::Release);
                return Err(e);
            }
        };
        self.idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(conn);
        if take_landings && self.landings_waiting() {
            self.take_landings();
        }
        if may_drop_calls {
            self.release_dropped_host_calls();
        }
        answer
    }

    fn unit(&self, req: Request) -> BResult<()> {
        self.call(req).map(|_| ())
    }

    fn u64(&self, req: Request) -> BResult<u64> {
        match self.call(req)? {
            Reply::U64(v) => Ok(v),
            other => Err(self.misfit(other)),
        }
    }

    fn bool(&self, req: Request) -> BResult<bool> {
        match self.call(req)? {
            Reply::Bool(v) => Ok(v),
            other => Err(self.misfit(other)),
        }
    }

    fn misfit(&self, reply: Reply) -> BackendError {
        gone(&self.path, format!("an answer out of place: {reply:?}"))
    }
}

impl Devices for SharedDeviceClient {
    fn name(&self) -> &'static str {
        "shared"
    }

    fn chip(&self) -> &ChipProfile {
        &self.chip
    }

    fn soc_name(&self) -> BResult<String> {
        match self.call(Request::SocName)? {
            Reply::Str(s) => Ok(s),
            other => Err(self.misfit(other)),
        }
    }

    fn device_count(&self) -> BResult<u32> {
        match self.call(Request::DeviceCount)? {
            Reply::U32(n) => Ok(n),
            other => Err(self.misfit(other)),
        }
    }

    fn open_device(&self, device: u32) -> BResult<StreamId> {
        self.u64(Request::OpenDevice { device }).map(StreamId)
    }

    fn close_device(&self, device: u32, force: bool) -> BResult<()> {
        self.unit(Request::CloseDevice { device, force })
    }

    fn create_context(&self, device: u32) -> BResult<StreamId> {
        // An explicit context's default stream: a stream of the process's own.
        self.create_stream(device, 0, 0)
    }

    fn destroy_context(&self, _device: u32, default_stream: StreamId) -> BResult<()> {
        self.destroy_stream(default_stream, true)
    }

    fn synchronize_device(&self, device: u32, timeout_ms: Option<u64>) -> BResult<()> {
        self.unit(Request::SynchronizeDevice { device, timeout_ms })
    }

    fn device_call(&self, call: DeviceCall) -> BResult<Option<i64>> {
        match self.call(Request::DeviceCall(call.into()))? {
            Reply::OptI64(v) => Ok(v),
            other => Err(self.misfit(other)),
        }
    }
}

impl Memory for SharedDeviceClient {
    fn malloc(&self, device: u32, bytes: u64, policy: u32) -> BResult<u64> {
        self.u64(Request::Malloc {
            device,
            bytes,
            policy,
        })
    }

    fn free(&self, device: u32, addr: u64) -> BResult<()> {
        self.unit(Request::Free { device, addr })
    }

    /// Page-locked host memory is this process's own (the service never reaches it):
    /// synchronous copies stage it through the request, as any host memory.
    fn malloc_host(&self, bytes: usize) -> BResult<HostBuf> {
        crate::backend::memory::new_host_buf(bytes)
    }

    fn free_host(&self, _buf: &HostBuf) -> BResult<()> {
        Ok(())
    }

    fn memcpy(&self, copy: SyncCopy<'_>) -> BResult<()> {
        let copy = match self.memcpy_through_window(copy) {
            Ok(done) => return done,
            Err(copy) => copy,
        };
        match copy {
            // Host bytes travel in frames of at most CHUNK bytes each.
            SyncCopy::HostToDevice { dst, src } => {
                for (i, part) in src.chunks(wire::CHUNK).enumerate() {
                    self.unit(Request::CopyToDevice {
                        dst: dst + (i * wire::CHUNK) as u64,
                        data: part.to_vec(),
                    })?;
                }
                Ok(())
            }
            SyncCopy::DeviceToHost { dst, src } => {
                for (i, part) in dst.chunks_mut(wire::CHUNK).enumerate() {
                    match self.call(Request::CopyFromDevice {
                        src: src + (i * wire::CHUNK) as u64,
                        len: part.len() as u64,
                    })? {
                        Reply::Bytes(b) if b.len() == part.len() => part.copy_from_slice(&b),
                        other => return Err(self.misfit(other)),
                    }
                }
                Ok(())
            }
            SyncCopy::DeviceToDevice { dst, src, len } => {
                self.unit(Request::CopyDeviceToDevice { dst, src, len })
            }
        }
    }

    fn memset(&self, addr: u64, value: u8, count: u64) -> BResult<()> {
        self.unit(Request::Memset { addr, value, count })
    }

    fn mirror_copy(&self, copy: SyncCopy<'_>) -> BResult<()> {
        UNTRACKED.with(|u| u.set(true));
        let r = self.memcpy(copy);
        UNTRACKED.with(|u| u.set(false));
        r
    }

    /// The service's simulator does not see this process's host memory, so it has no task
    /// touching it to check the access against.
    fn host_access(&self, _addr: u64, _len: u64, _write: bool) -> BResult<()> {
        Ok(())
    }

    fn cmo_set_desc(&self, desc: u64, src: u64, size: u64) -> BResult<()> {
        self.unit(Request::CmoSetDesc { desc, src, size })
    }

    fn ipc_export(
        &self,
        device: u32,
        addr: u64,
        len: u64,
        whitelist: bool,
        pid: u32,
    ) -> BResult<String> {
        match self.call(Request::IpcExport {
            device,
            addr,
            len,
            whitelist,
            pid,
        })? {
            Reply::Str(key) => Ok(key),
            other => Err(self.misfit(other)),
        }
    }

    fn ipc_set_import_pids(&self, _device: u32, key: &str, pids: &[i32], pid: u32) -> BResult<()> {
        self.unit(Request::IpcSetImportPids {
            key: key.to_string(),
            pids: pids.to_vec(),
            pid,
        })
    }

    fn ipc_import(&self, _device: u32, key: &str, pid: u32) -> BResult<crate::backend::IpcImport> {
        match self.call(Request::IpcImport {
            key: key.to_string(),
            pid,
        })? {
            Reply::Import { addr, len, device } => {
                Ok(crate::backend::IpcImport { addr, len, device })
            }
            other => Err(self.misfit(other)),
        }
    }

    fn ipc_close(&self, _device: u32, key: &str, imported: bool, pid: u32) -> BResult<()> {
        self.unit(Request::IpcClose {
            key: key.to_string(),
            imported,
            pid,
        })
    }

    fn ipc_forget_process(&self, _pid: u32) {}

    /// The service's simulated device has one link.
    fn ipc_set_link(&self, _key: &str, _attr: u64) -> BResult<()> {
        Ok(())
    }
}

impl VirtualMemory for SharedDeviceClient {
    /// The simulator's memory has one kind: the attribute is not sent.
    fn malloc_physical(&self, device: u32, bytes: u64, _mem_attr: u32) -> BResult<u64> {
        self.u64(Request::MallocPhysical { device, bytes })
    }

    fn free_physical(
        &self,
        device: u32,
        handle: u64,
        import: Option<u64>,
        pid: u32,
    ) -> BResult<()> {
        self.unit(Request::FreePhysical {
            device,
            handle,
            import,
            pid,
        })
    }

    fn reserve_address(&self, device: u32, bytes: u64, align: u64) -> BResult<u64> {
        self.u64(Request::ReserveAddress {
            device,
            bytes,
            align,
        })
    }

    fn release_address(&self, va: u64) -> BResult<()> {
        self.unit(Request::ReleaseAddress { va })
    }

    fn map_memory(
        &self,
        _device: u32,
        va: u64,
        bytes: u64,
        offset: u64,
        handle: u64,
    ) -> BResult<()> {
        self.unit(Request::MapMemory {
            va,
            bytes,
            offset,
            handle,
        })
    }

    fn unmap_memory(&self, va: u64) -> BResult<()> {
        self.unit(Request::UnmapMemory { va })
    }

    fn set_access(&self, _va: u64, _bytes: u64, _device: u32, _flags: u32) -> BResult<()> {
        Ok(())
    }

    fn export_shareable(
        &self,
        device: u32,
        handle: u64,
        len: u64,
        whitelist: bool,
        pid: u32,
    ) -> BResult<u64> {
        self.u64(Request::ExportShareable {
            device,
            handle,
            len,
            whitelist,
            pid,
        })
    }

    fn set_shareable_pids(&self, shareable: u64, pids: &[i32], pid: u32) -> BResult<()> {
        self.unit(Request::SetShareablePids {
            shareable,
            pids: pids.to_vec(),
            pid,
        })
    }

    fn close_shareable(&self, shareable: u64, pid: u32) -> BResult<()> {
        self.unit(Request::CloseShareable { shareable, pid })
    }

    fn shareable_device(&self, shareable: u64) -> BResult<Option<u32>> {
        match self.call(Request::ShareableDevice { shareable })? {
            Reply::OptU64(d) => Ok(d.map(|d| d as u32)),
            other => Err(self.misfit(other)),
        }
    }

    fn import_shareable(&self, shareable: u64, device: u32, pid: u32) -> BResult<PhysicalImport> {
        match self.call(Request::ImportShareable {
            shareable,
            device,
            pid,
        })? {
            Reply::Import { addr, len, device } => Ok(PhysicalImport {
                handle: addr,
                len,
                device,
            }),
            other => Err(self.misfit(other)),
        }
    }
}

impl Streams for SharedDeviceClient {
    fn create_stream(&self, device: u32, priority: u32, flags: u32) -> BResult<StreamId> {
        self.u64(Request::CreateStream {
            device,
            priority,
            flags,
        })
        .map(StreamId)
    }

    fn destroy_stream(&self, stream: StreamId, force: bool) -> BResult<()> {
        self.unit(Request::DestroyStream {
            stream: stream.0,
            force,
        })?;
        self.host_fns.forget_stream(stream);
        Ok(())
    }

    fn launch(&self, stream: StreamId, task: Task) -> BResult<u64> {
        if let Task::Kernel { kernel, blocks } = task {
            let (path, token) = (self.path.clone(), self.token);
            let name = kernel.name().to_string();
            let core = u8::from(kernel.core() == ascend_types::CoreType::AiCore);
            let launch = self
                .kernels
                .register(kernel, move || Self::open(&path, token).ok())
                .ok_or_else(|| gone(&self.path, "the kernel host cannot connect"))?;
            return self.u64(Request::Launch {
                stream: stream.0,
                task: WireTask::Kernel {
                    launch,
                    name,
                    blocks,
                    core,
                },
            });
        }
        // A copy reading host bytes a copy into host memory is still to bring reads them as
        // they land.
        if let Some(launched) = self.launch_reading_unlanded(stream, &task) {
            return launched;
        }
        // An asynchronous copy of more host bytes than a frame holds goes as several, in
        // order on the stream; a copy into host memory lands when it has run.
        if let Task::Memcpy { dst, src, len } = &task {
            let into_host = matches!(dst, Loc::Host { .. });
            let host = into_host || matches!(src, Loc::Host { .. });
            if into_host || (host && *len as usize > wire::CHUNK) {
                let mut done = 0u64;
                loop {
                    let n = (*len - done).min(wire::CHUNK as u64);
                    let part = Task::Memcpy {
                        dst: dst.advanced(done as usize),
                        src: src.advanced(done as usize),
                        len: n,
                    };
                    let id = if into_host {
                        self.launch_landing(stream, &part)?
                    } else {
                        let part = WireTask::from_task(&part).map_err(|what| unsupported(&what))?;
                        self.u64(Request::Launch {
                            stream: stream.0,
                            task: part,
                        })?
                    };
                    done += n;
                    if done >= *len {
                        return Ok(id);
                    }
                }
            }
        }
        let task = WireTask::from_task(&task).map_err(|what| unsupported(&what))?;
        self.u64(Request::Launch {
            stream: stream.0,
            task,
        })
    }

    fn synchronize_stream(&self, stream: StreamId, timeout_ms: Option<u64>) -> BResult<()> {
        self.unit(Request::SynchronizeStream {
            stream: stream.0,
            timeout_ms,
        })
    }

    fn stream_idle(&self, stream: StreamId) -> BResult<bool> {
        self.bool(Request::StreamIdle { stream: stream.0 })
    }

    fn set_stop_on_failure(&self, stream: StreamId, named: bool) -> BResult<()> {
        self.unit(Request::SetStopOnFailure {
            stream: stream.0,
            named,
        })
    }

    fn abort_stream(&self, stream: StreamId) -> BResult<()> {
        self.unit(Request::AbortStream { stream: stream.0 })
    }

    fn stop_stream(&self, stream: StreamId) -> BResult<()> {
        self.unit(Request::StopStream { stream: stream.0 })
    }

    fn take_task_faults(&self) -> Vec<TaskFaultInfo> {
        match self.call(Request::TakeTaskFaults) {
            Ok(Reply::Faults(f)) => f.into_iter().map(Into::into).collect(),
            _ => Vec::new(),
        }
    }
}

impl Events for SharedDeviceClient {
    fn create_event(&self, device: u32, flags: u32) -> BResult<EventId> {
        self.u64(Request::CreateEvent { device, flags })
            .map(EventId)
    }

    fn destroy_event(&self, event: EventId) -> BResult<()> {
        self.unit(Request::DestroyEvent { event: event.0 })
    }

    fn event_complete(&self, event: EventId) -> BResult<bool> {
        self.bool(Request::EventComplete { event: event.0 })
    }

    fn synchronize_event(&self, event: EventId, timeout_ms: Option<u64>) -> BResult<()> {
        self.unit(Request::SynchronizeEvent {
            event: event.0,
            timeout_ms,
        })
    }

    fn event_elapsed_ms(&self, start: EventId, end: EventId) -> BResult<f32> {
        match self.call(Request::EventElapsed {
            start: start.0,
            end: end.0,
        })? {
            Reply::F32(v) => Ok(v),
            other => Err(self.misfit(other)),
        }
    }

    fn event_timestamp_us(&self, event: EventId) -> BResult<Option<u64>> {
        match self.call(Request::EventTimestamp { event: event.0 })? {
            Reply::OptU64(v) => Ok(v),
            other => Err(self.misfit(other)),
        }
    }

    fn create_notify(&self, device: u32, flag: u64) -> BResult<NotifyId> {
        self.u64(Request::CreateNotify { device, flag })
            .map(NotifyId)
    }

    fn destroy_notify(&self, notify: NotifyId) -> BResult<()> {
        self.unit(Request::DestroyNotify { notify: notify.0 })
    }

    fn ipc_notify_export(
        &self,
        device: u32,
        notify: NotifyId,
        whitelist: bool,
        pid: u32,
    ) -> BResult<String> {
        match self.call(Request::IpcNotifyExport {
            device,
            notify: notify.0,
            whitelist,
            pid,
        })? {
            Reply::Str(key) => Ok(key),
            other => Err(self.misfit(other)),
        }
    }

    fn ipc_notify_set_pids(
        &self,
        notify: NotifyId,
        key: &str,
        pids: &[i32],
        pid: u32,
    ) -> BResult<()> {
        self.unit(Request::IpcNotifySetPids {
            notify: notify.0,
            key: key.to_string(),
            pids: pids.to_vec(),
            pid,
        })
    }

    fn ipc_notify_import(&self, _device: u32, key: &str, pid: u32) -> BResult<(NotifyId, u32)> {
        match self.call(Request::IpcNotifyImport {
            key: key.to_string(),
            pid,
        })? {
            Reply::Notify { notify, device } => Ok((NotifyId(notify), device)),
            other => Err(self.misfit(other)),
        }
    }

    /// The service's import is the creator's notify: nothing to close.
    fn ipc_notify_close(&self, _notify: NotifyId) -> BResult<()> {
        Ok(())
    }

    fn ipc_event_handle(&self, event: EventId, pid: u32) -> BResult<u64> {
        self.u64(Request::IpcEventHandle {
            event: event.0,
            pid,
        })
    }

    fn ipc_event_open(&self, _device: u32, handle: u64, pid: u32) -> BResult<EventId> {
        self.u64(Request::IpcEventOpen { handle, pid }).map(EventId)
    }

    fn ipc_event_close(&self, event: EventId, pid: u32) -> BResult<()> {
        self.unit(Request::IpcEventClose {
            event: event.0,
            pid,
        })
    }
}

impl Models for SharedDeviceClient {
    fn create_model(&self, device: u32) -> BResult<ModelId> {
        self.u64(Request::CreateModel { device }).map(ModelId)
    }

    fn bind_stream(&self, model: ModelId, stream: StreamId, flag: u32) -> BResult<()> {
        self.unit(Request::BindStream {
            model: model.0,
            stream: stream.0,
            flag,
        })
    }

    fn unbind_stream(&self, model: ModelId, stream: StreamId) -> BResult<()> {
        self.unit(Request::UnbindStream {
            model: model.0,
            stream: stream.0,
        })
    }

    fn end_task(&self, model: ModelId, stream: StreamId) -> BResult<()> {
        self.unit(Request::EndTask {
            model: model.0,
            stream: stream.0,
        })
    }

    fn build_end(&self, model: ModelId) -> BResult<()> {
        self.unit(Request::BuildEnd { model: model.0 })
    }

    fn execute_model(&self, model: ModelId, timeout_ms: Option<u64>) -> BResult<()> {
        self.unit(Request::ExecuteModel {
            model: model.0,
            timeout_ms,
        })
    }

    fn execute_model_async(&self, model: ModelId, stream: StreamId) -> BResult<()> {
        self.unit(Request::ExecuteModelAsync {
            model: model.0,
            stream: stream.0,
        })
    }

    fn destroy_model(&self, model: ModelId) -> BResult<()> {
        self.unit(Request::DestroyModel { model: model.0 })
    }
}

impl Inspect for SharedDeviceClient {
    fn device_window(&self) -> Option<Range<u64>> {
        self.window.map(|(lo, hi)| lo..hi)
    }

    fn explain_device_address(&self, addr: u64) -> Option<String> {
        match self.call(Request::Explain { addr }) {
            Ok(Reply::OptStr(s)) => s,
            _ => None,
        }
    }

    fn runs_sim_kernels(&self) -> bool {
        true
    }

    #[cfg(feature = "sim")]
    fn simulator(&self) -> Option<&ascend_sim::Sim> {
        None
    }
}
