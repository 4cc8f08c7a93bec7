//! The runtime bookkeeping validation needs: devices, contexts and the thread each is current
//! on, handle registries (streams, events, models), allocations and their extents, which
//! streams are persistent or bound to which model, which barrier ids a model has used.
//!
//! Handles given out are tagged with their kind, so a handle of the wrong kind, a destroyed
//! one or garbage is recognised and rejected with `ACL_ERROR_RT_INVALID_HANDLE`.

use std::collections::{BTreeMap, BTreeSet};

// Handles, device numbers and thread ids: a fast deterministic hash (the front end's hot path).
use rustc_hash::FxHashMap as HashMap;
use std::thread::ThreadId;

use crate::backend::{EventId, HostBuf, ModelId, NotifyId, StreamId};

/// The kind of object a handle names; stored in the handle's top bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HandleKind {
    Context = 0xC7,
    Stream = 0x57,
    Event = 0xE7,
    Model = 0x3D,
    Notify = 0x4F,
    AllocatorDesc = 0xA1,
    Binary = 0xB1,
    Function = 0xF1,
    Args = 0xA7,
    Param = 0x9A,
    Label = 0x1B,
    LabelList = 0x1C,
    Physical = 0x5F,
}

pub(crate) const KIND_SHIFT: u32 = 40;

/// True when `v` has the shape of a handle the runtime hands out: a kind's tag in the top bits
/// of a 48-bit value.
pub(crate) fn has_handle_shape(v: u64) -> bool {
    const KINDS: [HandleKind; 13] = [
        HandleKind::Context,
        HandleKind::Stream,
        HandleKind::Event,
        HandleKind::Model,
        HandleKind::Notify,
        HandleKind::AllocatorDesc,
        HandleKind::Binary,
        HandleKind::Function,
        HandleKind::Args,
        HandleKind::Param,
        HandleKind::Label,
        HandleKind::LabelList,
        HandleKind::Physical,
    ];
    v >> 48 == 0 && KINDS.iter().any(|&k| (v >> KIND_SHIFT) == k as u64)
}

/// Makes a handle value of `kind` with serial `serial`.
pub(crate) fn make_handle(kind: HandleKind, serial: u64) -> u64 {
    ((kind as u64) << KIND_SHIFT) | (serial & ((1 << KIND_SHIFT) - 1))
}

/// A context: a device and its default stream.
#[derive(Debug, Clone)]
pub(crate) struct ContextRec {
    pub device: u32,
    pub default_stream: u64,
    /// Created by `aclrtCreateContext` (only these may be destroyed explicitly); the default
    /// (primary) context of `aclrtSetDevice` is not.
    pub explicit: bool,
}

/// A stream.
#[derive(Debug, Clone)]
pub(crate) struct StreamRec {
    pub ctx: u64,
    pub device: u32,
    pub backend: StreamId,
    pub flags: u32,
    pub priority: u32,
    pub model: Option<u64>,
    pub is_default: bool,
    /// Its failure mode (`aclrtSetStreamFailureMode`, or aborted by a failure), once set.
    pub failure_mode: Option<u64>,
    /// How its host calls run, once it was subscribed or given a host function.
    pub subscription: Option<Subscription>,
    /// The thread that runs its host functions (`aclrtSubscribeHostFunc`).
    pub hostfunc_thread: Option<u64>,
    /// Its overflow switch (`aclrtSetStreamOverflowSwitch`), once set.
    pub overflow_switch: Option<u32>,
}

impl StreamRec {
    /// A new stream's record: nothing set on it yet.
    pub fn new(
        ctx: u64,
        device: u32,
        backend: StreamId,
        flags: u32,
        priority: u32,
        is_default: bool,
    ) -> StreamRec {
        StreamRec {
            ctx,
            device,
            backend,
            flags,
            priority,
            model: None,
            is_default,
            failure_mode: None,
            subscription: None,
            hostfunc_thread: None,
            overflow_switch: None,
        }
    }
}

/// An event.
#[derive(Debug, Clone)]
pub(crate) struct EventRec {
    pub ctx: u64,
    pub backend: EventId,
    /// The runtime flag word (`aclrtCreateEvent` is `RT_EVENT_DEFAULT`, 0x0E).
    pub flags: u32,
    /// Created by `aclrtCreateEventExWithFlag` (CANN's "new mode").
    pub ex_mode: bool,
    /// Recorded at least once.
    pub recorded: bool,
    /// The stream (handle) its latest record went to: a synchronize of the event is refused
    /// while that stream is bound to a model, and on 950 while it is a persistent stream
    /// bound to none, where the record never executes.
    pub last_record_on: Option<u64>,
    /// Opened from another process's IPC event handle (`aclrtIpcOpenEventHandle`): its
    /// destroy closes only this process's view.
    pub imported: bool,
}

/// A notify.
#[derive(Debug, Clone)]
pub(crate) struct NotifyRec {
    pub device: u32,
    pub backend: NotifyId,
    /// Its part in IPC: exported under a key, or imported from another process.
    pub ipc: NotifyIpc,
}

/// A notify's part in IPC.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum NotifyIpc {
    /// Neither exported nor imported.
    #[default]
    None,
    /// Exported under this key (`aclrtNotifyGetExportKey`).
    Exported(String),
    /// Imported (`aclrtNotifyImportByKey`) from a notify created on this device.
    Imported { creator_device: u32 },
}

/// A model running instance.
#[derive(Debug, Clone)]
pub(crate) struct ModelRec {
    pub ctx: u64,
    pub backend: ModelId,
    pub streams: BTreeSet<u64>,
    /// Logical barrier ids used by `aclrtCmoAsyncWithBarrier` on this model's streams.
    pub barrier_ids: BTreeSet<u32>,
    pub built: bool,
    /// `aclmdlRIEndTask` has marked the end of a bound stream's tasks at least once.
    pub end_marked: bool,
}

/// What an allocation is.
#[derive(Debug, Clone)]
pub(crate) enum AllocKind {
    /// Device memory of a device.
    Device(u32),
    /// Page-locked host memory.
    Host(HostBuf),
    /// The device mirror of registered host memory on a device (`aclrtHostRegister`): device
    /// memory, but not the program's to free.
    Mapped(u32),
    /// Device memory of another process's allocation on a device, imported by IPC key
    /// (`aclrtIpcMemImportByKey`): usable, closed with `aclrtIpcMemClose`, never freed here.
    Imported(u32),
    /// Physical memory of a device mapped at a reserved virtual address (`aclrtMapMem`):
    /// usable, unmapped with `aclrtUnmapMem`, never freed by `aclrtFree`.
    Virtual(u32),
}

/// One allocation: its extent and kind.
#[derive(Debug, Clone)]
pub(crate) struct Alloc {
    pub len: u64,
    pub kind: AllocKind,
}

/// Where an address lies.
#[derive(Debug, Clone)]
pub(crate) enum Location {
    /// In device memory of `device`: base of the allocation and bytes left to its end.
    #[allow(dead_code)] // device and base are for diagnostics
    Device { device: u32, base: u64, room: u64 },
    /// In page-locked host memory: the buffer, the offset into it and bytes left.
    Host {
        buf: HostBuf,
        offset: usize,
        room: u64,
    },
    /// Not in any live allocation.
    Unregistered,
}

/// How a stream's host calls are run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Subscription {
    /// Callbacks run on this thread's `aclrtProcessReport` (`aclrtSubscribeReport`).
    Reports(u64),
    /// The stream took a host function: the runtime's own thread runs it.
    Runtime,
}

/// Per-device state.
#[derive(Debug, Clone)]
pub(crate) struct DeviceRec {
    pub refcount: u32,
    pub ctx: u64,
}

/// All bookkeeping, behind the runtime's mutex.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub init_count: u32,
    /// Path and content of the first-ever `aclInit` configuration (empty for none).
    pub first_config: Option<(Option<String>, String)>,
    pub finalized: bool,
    pub devices: HashMap<u32, DeviceRec>,
    pub contexts: HashMap<u64, ContextRec>,
    pub current: HashMap<ThreadId, u64>,
    pub streams: HashMap<u64, StreamRec>,
    /// Streams in a destroy that waits for their tasks, by handle: out of `streams`, but
    /// still holding their device's stream slot and what is set on them (their subscription
    /// serves the host calls they still run; a failed destroy restores them).
    pub streams_leaving: HashMap<u64, StreamRec>,
    pub events: HashMap<u64, EventRec>,
    pub notifies: HashMap<u64, NotifyRec>,
    pub models: HashMap<u64, ModelRec>,
    pub allocs: BTreeMap<u64, Alloc>,
    /// Physical memory, reserved ranges and mappings (`aclrtMallocPhysical`,
    /// `aclrtReserveMemAddress`, `aclrtMapMem`).
    pub vmm: super::physical_memory::VmmBooks,
    /// The addresses this process imported by each IPC key, oldest first.
    pub ipc_imports: HashMap<String, Vec<u64>>,
    /// On 950, the backend streams bound to a model when its build ended: they take no more
    /// tasks until unbound. Keyed by the backend's stream, as a launch's target is (a
    /// capturing stream's tasks go to its capture's stream).
    pub sealed: std::collections::HashSet<StreamId>,
    /// Labels and label lists, by handle.
    pub labels: HashMap<u64, super::labels::LabelRec>,
    pub label_lists: HashMap<u64, Vec<u64>>,
    /// Streams capturing into a model, by handle, and each captured model's own stream.
    pub captures: HashMap<u64, super::capture::Capture>,
    pub capture_streams: HashMap<u64, u64>,
    /// Loaded binaries, their functions and argument lists, by handle.
    pub binaries: HashMap<u64, super::binaries::BinaryRec>,
    pub functions: HashMap<u64, super::binaries::FunctionRec>,
    pub kernel_args: HashMap<u64, super::binaries::ArgsRec>,
    /// Device memory holding a launch's placeholder arguments, with the stream the launch went
    /// to: freed once that stream has gone idle (the kernel read it).
    pub placeholder_memory: Vec<super::binaries::PlaceholderMemory>,
    /// Simulator kernels by function name.
    pub sim_functions: super::binaries::SimFunctions,
    /// Custom allocator descriptors, by handle.
    pub allocator_descs: HashMap<u64, super::allocator::AllocatorFields>,
    /// Allocators registered per stream handle value: the descriptor and its fields as they
    /// were at registration. Not in the stream's record: CANN takes any non-NULL stream
    /// value here, live or not.
    pub allocators: HashMap<u64, (u64, super::allocator::AllocatorFields)>,
    /// Contexts that stop on failure (`aclrtSetStreamFailureMode(ACL_STOP_ON_FAILURE)`).
    pub stop_ctxs: std::collections::HashSet<u64>,
    /// The failure each such context stopped on, once the host saw it.
    pub ctx_failures: HashMap<u64, crate::error::AclError>,
    /// Stream state callbacks (`aclrtRegStreamStateCallback`).
    pub stream_state_cbs: super::stream_failure::StreamStateCallbacks,
    /// Threads that process reports (`aclrtSubscribeReport`), with the device they serve.
    pub report_threads: HashMap<u64, u32>,
    /// The operating-system thread that last launched on each backend stream, kept while an
    /// exception callback is registered. Keyed by the backend's stream, as the faults it
    /// explains name it (the records of `streams` are keyed by handle).
    pub launchers: HashMap<StreamId, u32>,
    /// The process's float overflow mode, once set (`aclrtSetDeviceSatMode`).
    pub sat_mode: Option<u32>,
    /// Resource limits set per device (cube, vector cores), until the device is released.
    pub res_limits: HashMap<u32, [u32; 2]>,
    /// Peer access enabled, as (device, peer): `device` may reach `peer`'s memory.
    pub peer_access: std::collections::HashSet<(u32, u32)>,
    next_serial: u64,
}

impl State {
    /// Forgets what is kept about stream `rec`, gone, outside its record (which the caller
    /// has removed): the thread that last launched on it, and its report thread if it served
    /// no other stream.
    pub fn forget_stream_extras(&mut self, rec: &StreamRec) {
        self.launchers.remove(&rec.backend);
        if let Some(Subscription::Reports(thread)) = rec.subscription {
            self.forget_idle_report_thread(thread);
        }
    }

    /// The record of stream `h`, live or leaving (in a destroy that waits for its tasks).
    pub fn stream_any_mut(&mut self, h: u64) -> Option<&mut StreamRec> {
        match self.streams.get_mut(&h) {
            Some(r) => Some(r),
            None => self.streams_leaving.get_mut(&h),
        }
    }

    /// The record of stream `h`, live or leaving.
    pub fn stream_any(&self, h: u64) -> Option<&StreamRec> {
        self.streams
            .get(&h)
            .or_else(|| self.streams_leaving.get(&h))
    }

    /// Every stream's record, live or leaving.
    pub fn all_streams(&self) -> impl Iterator<Item = &StreamRec> {
        self.streams.values().chain(self.streams_leaving.values())
    }

    /// Forgets `thread` as a report thread once no stream is subscribed to it.
    pub fn forget_idle_report_thread(&mut self, thread: u64) {
        let busy = self
            .all_streams()
            .any(|s| s.subscription == Some(Subscription::Reports(thread)));
        if !busy {
            self.report_threads.remove(&thread);
        }
    }

    pub fn new_handle(&mut self, kind: HandleKind) -> u64 {
        self.next_serial += 1;
        make_handle(kind, self.next_serial)
    }

    /// Records a new context of `device` whose default stream is the backend's
    /// `default_stream`; returns the context handle.
    pub fn register_context(
        &mut self,
        device: u32,
        default_stream: StreamId,
        explicit: bool,
    ) -> u64 {
        let ctx = self.new_handle(HandleKind::Context);
        let stream = self.new_handle(HandleKind::Stream);
        self.streams.insert(
            stream,
            StreamRec::new(ctx, device, default_stream, 0, 0, true),
        );
        self.contexts.insert(
            ctx,
            ContextRec {
                device,
                default_stream: stream,
                explicit,
            },
        );
        ctx
    }

    /// Where `addr` lies among live allocations.
    pub fn locate(&self, addr: u64) -> Location {
        if let Some((&base, alloc)) = self.allocs.range(..=addr).next_back() {
            if addr - base < alloc.len {
                let mut room = alloc.len - (addr - base);
                // Mappings side by side in the virtual addresses are one range to a call.
                if let AllocKind::Virtual(device) = alloc.kind {
                    let mut next = base + alloc.len;
                    while let Some(a) = self
                        .allocs
                        .get(&next)
                        .filter(|a| matches!(a.kind, AllocKind::Virtual(d) if d == device))
                    {
                        room += a.len;
                        next += a.len;
                    }
                }
                return match &alloc.kind {
                    AllocKind::Device(device)
                    | AllocKind::Mapped(device)
                    | AllocKind::Imported(device)
                    | AllocKind::Virtual(device) => Location::Device {
                        device: *device,
                        base,
                        room,
                    },
                    AllocKind::Host(buf) => Location::Host {
                        buf: buf.clone(),
                        offset: (addr - base) as usize,
                        room,
                    },
                };
            }
        }
        Location::Unregistered
    }

    /// The current context of `thread`, if it is still live.
    pub fn current_ctx(&self, thread: ThreadId) -> Option<u64> {
        self.current
            .get(&thread)
            .copied()
            .filter(|c| self.contexts.contains_key(c))
    }

    /// Removes the streams, events and models of a context from the registries and returns
    /// their backend handles, for the caller to release outside the lock.
    pub fn take_ctx_objects(&mut self, ctx: u64) -> CtxObjects {
        self.stop_ctxs.remove(&ctx);
        self.ctx_failures.remove(&ctx);
        let mut objs = CtxObjects::default();
        let streams: Vec<u64> = self
            .streams
            .iter()
            .filter(|(_, s)| s.ctx == ctx)
            .map(|(h, _)| *h)
            .collect();
        for h in streams {
            if let Some(rec) = self.streams.remove(&h) {
                self.forget_stream_extras(&rec);
                if rec.is_default {
                    objs.default_stream = Some(rec.backend);
                } else {
                    objs.streams.push(rec.backend);
                }
            }
        }
        self.events.retain(|_, e| {
            let keep = e.ctx != ctx;
            if !keep {
                objs.events.push(e.backend);
            }
            keep
        });
        let models: Vec<u64> = self
            .models
            .iter()
            .filter(|(_, m)| m.ctx == ctx)
            .map(|(h, _)| *h)
            .collect();
        for h in models {
            if let Some(m) = self.forget_model(h) {
                objs.models.push(m.backend);
            }
        }
        // Captures of the context's streams end with it (their models and streams went above).
        let streams = &self.streams;
        self.captures.retain(|h, _| streams.contains_key(h));
        let models = &self.models;
        self.capture_streams.retain(|m, _| models.contains_key(m));
        // Labels are the context's, and so are the lists made of them.
        let gone: std::collections::HashSet<u64> = self
            .labels
            .iter()
            .filter(|(_, l)| l.ctx == ctx)
            .map(|(h, _)| *h)
            .collect();
        if !gone.is_empty() {
            self.labels.retain(|h, _| !gone.contains(h));
            self.label_lists
                .retain(|_, list| !list.iter().any(|l| gone.contains(l)));
        }
        self.current.retain(|_, c| *c != ctx);
        self.contexts.remove(&ctx);
        objs
    }

    /// Removes a model and unbinds every stream that names it (streams of any context).
    pub fn forget_model(&mut self, model: u64) -> Option<ModelRec> {
        let rec = self.models.remove(&model)?;
        for s in self.streams.values_mut() {
            if s.model == Some(model) {
                s.model = None;
                self.sealed.remove(&s.backend);
            }
        }
        Some(rec)
    }

    /// Removes the device allocations and notifies of a device, returning what the backend
    /// must free.
    pub fn take_device_objects(&mut self, device: u32) -> (Vec<u64>, Vec<NotifyId>) {
        // Placeholder memory is among the device's allocations, freed with them below.
        self.placeholder_memory.retain(|p| p.device != device);
        let allocs: Vec<u64> = self
            .allocs
            .iter()
            .filter(|(_, a)| {
                matches!(a.kind, AllocKind::Device(d) | AllocKind::Mapped(d) if d == device)
            })
            .map(|(base, _)| *base)
            .collect();
        for base in &allocs {
            self.allocs.remove(base);
        }
        // Imported memory goes with the device, and is not the backend's to free.
        self.allocs
            .retain(|_, a| !matches!(a.kind, AllocKind::Imported(d) if d == device));
        let mut notifies = Vec::new();
        self.notifies.retain(|_, n| {
            let keep = n.device != device;
            // An imported notify is the creator's: only its view goes.
            if !keep && !matches!(n.ipc, NotifyIpc::Imported { .. }) {
                notifies.push(n.backend);
            }
            keep
        });
        (allocs, notifies)
    }
}

/// Backend handles of a released context's objects.
#[derive(Debug, Default)]
pub(crate) struct CtxObjects {
    /// The context's default stream.
    pub default_stream: Option<StreamId>,
    /// Streams created in the context.
    pub streams: Vec<StreamId>,
    /// Events created in the context.
    pub events: Vec<EventId>,
    /// Models created in the context.
    pub models: Vec<ModelId>,
}
