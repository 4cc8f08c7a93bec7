//! The shared device service: one simulator whose devices several processes use at once.
//! Each connection is served by a thread of its own (a client's blocking call blocks only that
//! thread, as a host thread blocks on a device); connections carrying the same token are one
//! process, and what a process created (memory, streams, events, notifies, models, its opening
//! of a device) is its own: when its last connection closes (it ended, or was killed), the
//! service releases all of it and the other processes go on.
//!
//! A device is opened in the simulator once, by its first process, and closed when its last
//! process closes it; each process gets a default stream of its own. A process's device
//! synchronize waits for its own streams, as on a device each process waits for its own work.

use std::collections::{HashMap, HashSet};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::wire::{self, Reply, Request, WireError, WireFault, WireTask};

mod copy_window;
mod host_calls;
mod landings;
mod outputs;
mod processes;

use crate::backend::{Backend, BackendError, EventId, ModelId, NotifyId, StreamId, SyncCopy, Task};
pub use outputs::Outputs;

/// What one process owns.
#[derive(Debug, Default)]
struct Owned {
    pid: u32,
    connections: usize,
    /// Devices it opened, with its default stream on each.
    devices: HashMap<u32, StreamId>,
    streams: HashMap<u64, u32>,
    allocations: HashSet<(u32, u64)>,
    /// Virtual ranges it reserved, and where it mapped memory.
    reserved: HashSet<u64>,
    mapped: HashSet<u64>,
    events: HashSet<u64>,
    notifies: HashSet<u64>,
    models: HashSet<u64>,
    faults: Vec<WireFault>,
    /// How the simulator names the process in what it says of a task.
    site: Option<std::sync::Arc<str>>,
    /// The window its host copies pass their bytes through, once it gave one.
    window: Option<Arc<ascend_sim_shm::Window>>,
    /// Its copies into its host memory whose bytes it has not taken.
    landings: landings::Landings,
    /// The simulator's host thread for each of its threads that called.
    threads: HashMap<u64, u64>,
}

impl Owned {
    /// How the simulator names the process ("process 1234"), made once.
    fn name(&mut self) -> std::sync::Arc<str> {
        let pid = self.pid;
        self.site
            .get_or_insert_with(|| format!("process {pid}").into())
            .clone()
    }
}

/// The service's books: the processes, and how many of them have each device open.
#[derive(Debug, Default)]
struct Books {
    processes: HashMap<u64, Owned>,
    open_count: HashMap<u32, usize>,
    /// Processes served since the start.
    served: u64,
}

/// The service over `backend` (a simulator).
pub(crate) struct DeviceService {
    backend: Arc<dyn Backend>,
    kernels: Arc<super::kernels::ServiceKernels>,
    soc: String,
    books: Mutex<Books>,
    outputs: Outputs,
    /// Held while a process takes what landed in its host memory.
    taking: Mutex<()>,
    /// The processes' host calls.
    host_calls: Mutex<host_calls::HostCallBooks>,
}

impl std::fmt::Debug for DeviceService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceService")
            .field("soc", &self.soc)
            .finish_non_exhaustive()
    }
}

type Answer = Result<Reply, BackendError>;

/// Binds `path`, replacing a socket no service answers at; any other file there is left as
/// it is (the bind then fails: the path is in use).
pub(crate) fn bind(path: &Path) -> std::io::Result<UnixListener> {
    use std::os::unix::fs::FileTypeExt;
    let stale = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_socket())
        && UnixStream::connect(path).is_err();
    if stale {
        std::fs::remove_file(path)?;
    }
    UnixListener::bind(path)
}

impl DeviceService {
    /// A service over `backend`.
    pub fn new(backend: Arc<dyn Backend>) -> Arc<DeviceService> {
        Self::writing(backend, Outputs::default())
    }

    /// A service that writes `outputs` each time a process has gone.
    pub fn writing(backend: Arc<dyn Backend>, outputs: Outputs) -> Arc<DeviceService> {
        let soc = backend.chip().soc_name.clone();
        Arc::new(DeviceService {
            backend,
            kernels: Arc::default(),
            soc,
            books: Mutex::new(Books::default()),
            outputs,
            taking: Mutex::new(()),
            host_calls: Mutex::default(),
        })
    }

    /// Stream `stream` is `token`'s process's: the run report and the trace say so.
    fn label_stream(&self, token: u64, stream: StreamId) {
        if let Some(sim) = self.backend.simulator() {
            sim.label_stream(stream, &self.process_name(token));
        }
    }

    /// The service's simulator, for `what` (the service runs over one; an error otherwise).
    fn simulator(&self, what: &str) -> Result<&ascend_sim::Sim, BackendError> {
        self.backend.simulator().ok_or_else(|| {
            BackendError::Unsupported(format!("{what} on a device without a simulator"))
        })
    }

    /// How the simulator names `token`'s process ("process 1234").
    fn process_name(&self, token: u64) -> std::sync::Arc<str> {
        self.with_owned(token, Owned::name)
    }

    fn books(&self) -> std::sync::MutexGuard<'_, Books> {
        self.books.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Serves the clients that connect to `listener`, each connection on a thread of its own,
    /// until the listener fails.
    pub fn serve(self: &Arc<Self>, listener: UnixListener) -> std::io::Result<()> {
        for conn in listener.incoming() {
            // A connection that cannot be taken (too many open files, no thread) is refused,
            // and the service goes on for the others.
            let conn = match conn {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!("device service: a connection could not be accepted: {e}");
                    std::thread::sleep(std::time::Duration::from_millis(10));
                    continue;
                }
            };
            let me = self.clone();
            if let Err(e) = std::thread::Builder::new()
                .name("ascend-sim-client".into())
                .spawn(move || me.serve_connection(conn))
            {
                tracing::warn!("device service: no thread for a connection: {e}");
            }
        }
        Ok(())
    }

    /// Binds `path` (replacing a socket file no service answers at) and serves it.
    pub fn serve_at(self: &Arc<Self>, path: &Path) -> std::io::Result<()> {
        self.serve(bind(path)?)
    }

    fn serve_connection(&self, mut conn: UnixStream) {
        // The connection thread's own host thread, between the program threads' calls it takes.
        let own = ascend_sim::new_host_thread();
        let token = match wire::receive::<Request>(&mut conn) {
            // An observer (token 0): answered, never a process.
            Ok(Some(Request::Hello { token: 0, .. })) => {
                while let Ok(Some(req)) = wire::receive::<Request>(&mut conn) {
                    let reply = match req {
                        Request::Status => Reply::Status(self.status()),
                        Request::Served => Reply::U64(self.books().served),
                        _ => Reply::Err(WireError::Unsupported(
                            "an observer connection asks only for the status".into(),
                        )),
                    };
                    if wire::send(&mut conn, &reply).is_err() {
                        break;
                    }
                }
                return;
            }
            Ok(Some(Request::Hello { pid, token })) => {
                let name = {
                    let mut b = self.books();
                    if !b.processes.contains_key(&token) {
                        b.served += 1;
                    }
                    let p = b.processes.entry(token).or_default();
                    p.pid = pid;
                    p.connections += 1;
                    p.name()
                };
                // What this thread does to the device is the process's.
                ascend_sim::act_as_host_thread(own);
                ascend_sim::label_host_thread(Some(&name));
                token
            }
            _ => return,
        };
        while let Ok(Some(req)) = wire::receive::<Request>(&mut conn) {
            match req {
                // The process's presence: when it ends, so has the process, even while other
                // connections of its are blocked in calls.
                Request::Presence => {
                    while let Ok(Some(_)) = wire::receive::<Request>(&mut conn) {}
                    self.release_process(token);
                    return;
                }
                // The process's kernel host: the service writes to it; its end is the
                // process's.
                Request::KernelHost => {
                    if let Ok(writer) = conn.try_clone() {
                        self.kernels.set_host(token, writer);
                    }
                    // Registered before the process launches on it.
                    if wire::send(&mut conn, &Reply::Unit).is_err() {
                        self.kernels.forget_host(token);
                        break;
                    }
                    while let Ok(Some(_)) = wire::receive::<Request>(&mut conn) {}
                    self.kernels.forget_host(token);
                    break;
                }
                Request::BlockAttach { block } => {
                    self.kernels.serve_block(block, &mut conn);
                    break;
                }
                _ => {}
            }
            // A program thread's call is that thread's to the simulator, whichever connection
            // carried it.
            let req = match req {
                Request::FromThread { thread, request } => {
                    match self.program_thread(token, thread) {
                        Some(key) => ascend_sim::act_as_host_thread(key),
                        None => {
                            let gone = Reply::Err(WireError::from(BackendError::Unsupported(
                                "a call of a process the service has released (it ended)".into(),
                            )));
                            if wire::send(&mut conn, &gone).is_err() {
                                break;
                            }
                            continue;
                        }
                    }
                    *request
                }
                other => other,
            };
            let reply = match self.answer(token, req) {
                Ok(r) => r,
                Err(e) => Reply::Err(WireError::from(e)),
            };
            ascend_sim::act_as_host_thread(own);
            if wire::send(&mut conn, &reply).is_err() {
                break;
            }
        }
        ascend_sim::act_as_host_thread(own);
        ascend_sim::label_host_thread(None);
        // A process released already (its presence ended) is not booked again.
        let last = {
            let mut b = self.books();
            match b.processes.get_mut(&token) {
                Some(p) => {
                    p.connections = p.connections.saturating_sub(1);
                    p.connections == 0
                }
                None => false,
            }
        };
        if last {
            self.release_process(token);
        }
    }

    /// `f` on what `token` owns; a process released already (a call that ended after its
    /// process) books into a scratch entry that is dropped.
    fn with_owned<R>(&self, token: u64, f: impl FnOnce(&mut Owned) -> R) -> R {
        let mut b = self.books();
        match b.processes.get_mut(&token) {
            Some(o) => f(o),
            None => f(&mut Owned::default()),
        }
    }

    /// Task `task` was launched by `token`'s process: what the simulator says of it (a hazard,
    /// a race, a fault, a stalled wait) names the process ("task 3 was submitted at process
    /// 1234").
    fn note_process(&self, token: u64, task: u64) {
        let Some(sim) = self.backend.simulator() else {
            return;
        };
        sim.note_task_site(ascend_types::TaskId(task), self.process_name(token));
    }

    fn answer(&self, token: u64, req: Request) -> Answer {
        let be = &self.backend;
        let unit = |r: crate::backend::BResult<()>| r.map(|()| Reply::Unit);
        Ok(match req {
            Request::Hello { .. } => Reply::Unit,
            Request::Chip => Reply::Chip {
                soc: self.soc.clone(),
                window: be.device_window().map(|w| (w.start, w.end)),
            },
            Request::Status => Reply::Status(self.status()),
            Request::Served => Reply::U64(self.books().served),
            Request::SocName => Reply::Str(be.soc_name()?),
            Request::DeviceCount => Reply::U32(be.device_count()?),
            Request::Explain { addr } => Reply::OptStr(be.explain_device_address(addr)),
            Request::OpenDevice { device } => {
                let first = {
                    let mut b = self.books();
                    let n = b.open_count.entry(device).or_default();
                    *n += 1;
                    *n == 1
                };
                if first {
                    if let Err(e) = be.open_device(device) {
                        self.books().open_count.insert(device, 0);
                        return Err(e);
                    }
                }
                let default = be.create_stream(device, 0, 0)?;
                self.with_owned(token, |o| o.devices.insert(device, default));
                self.label_stream(token, default);
                Reply::U64(default.0)
            }
            Request::CloseDevice { device, force } => {
                let (default, streams) = self.with_owned(token, |o| {
                    let streams: Vec<u64> = o
                        .streams
                        .iter()
                        .filter(|(_, &d)| d == device)
                        .map(|(&s, _)| s)
                        .collect();
                    (o.devices.remove(&device), streams)
                });
                if let Some(default) = default {
                    if !force {
                        for &s in streams.iter().chain(std::iter::once(&default.0)) {
                            be.synchronize_stream(StreamId(s), None)?;
                        }
                    }
                    let _ = be.destroy_stream(default, true);
                    self.close_shared(device, force);
                }
                Reply::Unit
            }
            Request::SynchronizeDevice { device, timeout_ms } => {
                let streams: Vec<u64> = self.with_owned(token, |o| {
                    o.streams
                        .iter()
                        .filter(|(_, &d)| d == device)
                        .map(|(&s, _)| s)
                        .chain(o.devices.get(&device).map(|s| s.0))
                        .collect()
                });
                for s in streams {
                    match be.synchronize_stream(StreamId(s), timeout_ms) {
                        // Destroyed by another of the process's threads since it was listed.
                        Ok(()) | Err(BackendError::UnknownHandle(_)) => {}
                        Err(e) => return Err(e),
                    }
                }
                Reply::Unit
            }
            Request::DeviceCall(c) => Reply::OptI64(be.device_call(c.into())?),
            Request::Malloc {
                device,
                bytes,
                policy,
            } => {
                let addr = be.malloc(device, bytes, policy)?;
                self.with_owned(token, |o| o.allocations.insert((device, addr)));
                Reply::U64(addr)
            }
            Request::Free { device, addr } => {
                be.free(device, addr)?;
                self.with_owned(token, |o| o.allocations.remove(&(device, addr)));
                Reply::Unit
            }
            Request::CopyToDevice { dst, data } => {
                unit(be.memcpy(SyncCopy::HostToDevice { dst, src: &data }))?
            }
            Request::Window { path, len } => {
                self.take_window(token, &path, len)?;
                Reply::Unit
            }
            Request::CopyInWindow { dst, len } => {
                self.copy_in_window(token, dst, len)?;
                Reply::Unit
            }
            Request::CopyOutWindow { src, len } => {
                self.copy_out_window(token, src, len)?;
                Reply::Unit
            }
            Request::CopyFromDevice { src, len } => {
                if len > wire::CHUNK as u64 {
                    return Err(BackendError::Unsupported(format!(
                        "a copy of {len} bytes in one request (at most {} go in one)",
                        wire::CHUNK
                    )));
                }
                let mut out = vec![0u8; len as usize];
                be.memcpy(SyncCopy::DeviceToHost { dst: &mut out, src })?;
                Reply::Bytes(out)
            }
            Request::CopyDeviceToDevice { dst, src, len } => {
                unit(be.memcpy(SyncCopy::DeviceToDevice { dst, src, len }))?
            }
            Request::Memset { addr, value, count } => unit(be.memset(addr, value, count))?,
            Request::CmoSetDesc { desc, src, size } => unit(be.cmo_set_desc(desc, src, size))?,
            Request::CreateStream {
                device,
                priority,
                flags,
            } => {
                let s = be.create_stream(device, priority, flags)?;
                self.with_owned(token, |o| o.streams.insert(s.0, device));
                self.label_stream(token, s);
                Reply::U64(s.0)
            }
            Request::DestroyStream { stream, force } => {
                be.destroy_stream(StreamId(stream), force)?;
                self.with_owned(token, |o| o.streams.remove(&stream));
                Reply::Unit
            }
            Request::Launch {
                stream,
                task:
                    WireTask::Kernel {
                        launch,
                        name,
                        blocks,
                        core,
                    },
            } => {
                let kernel = self.kernels.kernel(token, launch, name, core);
                let id = be.launch(StreamId(stream), Task::Kernel { kernel, blocks })?;
                self.note_process(token, id);
                Reply::U64(id)
            }
            Request::Launch { stream, task } if task.lands_on_host() => {
                self.launch_landing(token, stream, task)?
            }
            Request::Launch {
                stream,
                task:
                    WireTask::CopyLandingToDevice {
                        landing,
                        offset,
                        dst,
                        data,
                    },
            } => self.launch_from_landing(token, stream, landing, offset, dst, data)?,
            Request::TakeLandings => self.take_landings(token)?,
            Request::TakeDroppedHostCalls => self.dropped_host_calls(token)?,
            Request::LaunchHostCall {
                stream,
                call,
                thread,
                blocking,
            } => self.launch_host_call(token, stream, call, thread, blocking)?,
            Request::NextHostCall {
                thread,
                timeout_ms,
                wall_ms,
            } => self.next_host_call(token, thread, timeout_ms, wall_ms)?,
            Request::FinishHostCall { task, thread } => self.finish_host_call(task, thread)?,
            Request::SubscribeReports {
                thread,
                stream,
                subscribe,
            } => self.subscribe_reports(token, thread, stream, subscribe)?,
            Request::Launch { stream, task } => {
                let task = task.into_task().map_err(BackendError::Unsupported)?;
                let id = be.launch(StreamId(stream), task)?;
                self.note_process(token, id);
                Reply::U64(id)
            }
            Request::Presence
            | Request::KernelHost
            | Request::BlockAttach { .. }
            | Request::KernelOp(_) => {
                return Err(BackendError::Unsupported(
                    "a kernel's request out of place".into(),
                ))
            }
            Request::FromThread { .. } => {
                return Err(BackendError::Unsupported(
                    "a thread's request inside another's".into(),
                ))
            }
            Request::Untracked(request) => {
                return ascend_sim::untracked(|| self.answer(token, *request))
            }
            Request::SynchronizeStream { stream, timeout_ms } => {
                unit(be.synchronize_stream(StreamId(stream), timeout_ms))?
            }
            Request::StreamIdle { stream } => Reply::Bool(be.stream_idle(StreamId(stream))?),
            Request::SetStopOnFailure { stream, named } => {
                unit(be.set_stop_on_failure(StreamId(stream), named))?
            }
            Request::AbortStream { stream } => unit(be.abort_stream(StreamId(stream)))?,
            Request::StopStream { stream } => unit(be.stop_stream(StreamId(stream)))?,
            Request::TakeTaskFaults => Reply::Faults(self.faults_of(token)),
            Request::CreateEvent { device, flags } => {
                let e = be.create_event(device, flags)?;
                self.with_owned(token, |o| o.events.insert(e.0));
                Reply::U64(e.0)
            }
            Request::DestroyEvent { event } => {
                be.destroy_event(EventId(event))?;
                self.with_owned(token, |o| o.events.remove(&event));
                Reply::Unit
            }
            Request::EventComplete { event } => Reply::Bool(be.event_complete(EventId(event))?),
            Request::SynchronizeEvent { event, timeout_ms } => {
                unit(be.synchronize_event(EventId(event), timeout_ms))?
            }
            Request::EventElapsed { start, end } => {
                Reply::F32(be.event_elapsed_ms(EventId(start), EventId(end))?)
            }
            Request::EventTimestamp { event } => {
                Reply::OptU64(be.event_timestamp_us(EventId(event))?)
            }
            Request::CreateNotify { device, flag } => {
                let n = be.create_notify(device, flag)?;
                self.with_owned(token, |o| o.notifies.insert(n.0));
                Reply::U64(n.0)
            }
            Request::DestroyNotify { notify } => {
                be.destroy_notify(NotifyId(notify))?;
                self.with_owned(token, |o| o.notifies.remove(&notify));
                Reply::Unit
            }
            Request::IpcExport {
                device,
                addr,
                len,
                whitelist,
                pid,
            } => Reply::Str(be.ipc_export(device, addr, len, whitelist, pid)?),
            Request::IpcSetImportPids { key, pids, pid } => {
                unit(be.ipc_set_import_pids(0, &key, &pids, pid))?
            }
            Request::IpcImport { key, pid } => {
                let i = be.ipc_import(0, &key, pid)?;
                Reply::Import {
                    addr: i.addr,
                    len: i.len,
                    device: i.device,
                }
            }
            Request::IpcClose { key, imported, pid } => unit(be.ipc_close(0, &key, imported, pid))?,
            Request::MallocPhysical { device, bytes } => {
                let addr = be.malloc_physical(device, bytes, 0)?;
                self.with_owned(token, |o| o.allocations.insert((device, addr)));
                Reply::U64(addr)
            }
            Request::FreePhysical {
                device,
                handle,
                import,
                pid,
            } => {
                be.free_physical(device, handle, import, pid)?;
                if import.is_none() {
                    self.with_owned(token, |o| o.allocations.remove(&(device, handle)));
                }
                Reply::Unit
            }
            Request::ReserveAddress {
                device,
                bytes,
                align,
            } => {
                let va = be.reserve_address(device, bytes, align)?;
                self.with_owned(token, |o| o.reserved.insert(va));
                Reply::U64(va)
            }
            Request::ReleaseAddress { va } => {
                be.release_address(va)?;
                self.with_owned(token, |o| o.reserved.remove(&va));
                Reply::Unit
            }
            Request::MapMemory {
                va,
                bytes,
                offset,
                handle,
            } => {
                be.map_memory(0, va, bytes, offset, handle)?;
                self.with_owned(token, |o| o.mapped.insert(va));
                Reply::Unit
            }
            Request::UnmapMemory { va } => {
                be.unmap_memory(va)?;
                self.with_owned(token, |o| o.mapped.remove(&va));
                Reply::Unit
            }
            Request::ExportShareable {
                device,
                handle,
                len,
                whitelist,
                pid,
            } => Reply::U64(be.export_shareable(device, handle, len, whitelist, pid)?),
            Request::SetShareablePids {
                shareable,
                pids,
                pid,
            } => unit(be.set_shareable_pids(shareable, &pids, pid))?,
            Request::CloseShareable { shareable, pid } => unit(be.close_shareable(shareable, pid))?,
            Request::ShareableDevice { shareable } => {
                Reply::OptU64(be.shareable_device(shareable)?.map(u64::from))
            }
            Request::ImportShareable {
                shareable,
                device,
                pid,
            } => {
                let i = be.import_shareable(shareable, device, pid)?;
                Reply::Import {
                    addr: i.handle,
                    len: i.len,
                    device: i.device,
                }
            }
            Request::IpcNotifyExport {
                device,
                notify,
                whitelist,
                pid,
            } => Reply::Str(be.ipc_notify_export(device, NotifyId(notify), whitelist, pid)?),
            Request::IpcNotifySetPids {
                notify,
                key,
                pids,
                pid,
            } => unit(be.ipc_notify_set_pids(NotifyId(notify), &key, &pids, pid))?,
            Request::IpcNotifyImport { key, pid } => {
                let (n, device) = be.ipc_notify_import(0, &key, pid)?;
                Reply::Notify {
                    notify: n.0,
                    device,
                }
            }
            Request::IpcEventHandle { event, pid } => {
                Reply::U64(be.ipc_event_handle(EventId(event), pid)?)
            }
            Request::IpcEventClose { event, pid } => unit(be.ipc_event_close(EventId(event), pid))?,
            Request::IpcEventOpen { handle, pid } => {
                Reply::U64(be.ipc_event_open(0, handle, pid)?.0)
            }
            Request::CreateModel { device } => {
                let m = be.create_model(device)?;
                self.with_owned(token, |o| o.models.insert(m.0));
                Reply::U64(m.0)
            }
            Request::BindStream {
                model,
                stream,
                flag,
            } => unit(be.bind_stream(ModelId(model), StreamId(stream), flag))?,
            Request::UnbindStream { model, stream } => {
                unit(be.unbind_stream(ModelId(model), StreamId(stream)))?
            }
            Request::EndTask { model, stream } => {
                unit(be.end_task(ModelId(model), StreamId(stream)))?
            }
            Request::BuildEnd { model } => unit(be.build_end(ModelId(model)))?,
            Request::ExecuteModel { model, timeout_ms } => {
                unit(be.execute_model(ModelId(model), timeout_ms))?
            }
            Request::ExecuteModelAsync { model, stream } => {
                unit(be.execute_model_async(ModelId(model), StreamId(stream)))?
            }
            Request::DestroyModel { model } => {
                be.destroy_model(ModelId(model))?;
                self.with_owned(token, |o| o.models.remove(&model));
                Reply::Unit
            }
        })
    }
}

#[cfg(all(test, feature = "sim"))]
mod tests;
