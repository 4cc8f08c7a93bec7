//! [`Device`]: a device opened with `aclrtSetDevice`, released with `aclrtResetDevice`.

use std::sync::Arc;

use super::binary::Binary;
use super::enums::{MallocPolicy, StreamConfig};
use super::event::Event;
use super::event_flags::EventFlags;
use super::host_register::RegisteredHost;
use super::labels::{Label, LabelList};
use super::memory::{CmoDesc, DeviceBuffer, DevicePtr, PinnedHostBuffer};
use super::model::ModelRI;
use super::notify::Notify;
use super::report::ReportThread;
use super::stream::Stream;
use crate::error::AclResult;
use crate::raw_types::{
    notify_flag, Addr, RawBinary, RawContext, RawEvent, RawLabel, RawLabelList, RawModel,
    RawNotify, RawStream,
};
use crate::Runtime;

/// An open device and its default context. The device is reset (one reference) when the
/// `Device` and every buffer, stream, event and model made from it have been dropped.
#[derive(Debug, Clone)]
pub struct Device {
    guard: Arc<DeviceGuard>,
}

/// What keeps a device open; shared by everything made from it.
#[derive(Debug)]
pub(super) struct DeviceGuard {
    pub(super) rt: Arc<Runtime>,
    pub(super) id: i32,
    pub(super) ctx: RawContext,
}

impl Device {
    /// Opens device `id` (`aclrtSetDevice`) on the calling thread.
    pub fn open(rt: &Arc<Runtime>, id: i32) -> AclResult<Device> {
        rt.set_device(id)?;
        let mut ctx = RawContext::default();
        rt.get_current_context(Some(&mut ctx))?;
        Ok(Device {
            guard: Arc::new(DeviceGuard {
                rt: rt.clone(),
                id,
                ctx,
            }),
        })
    }

    /// The device id.
    pub fn id(&self) -> i32 {
        self.guard.id
    }

    /// The runtime.
    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.guard.rt
    }

    /// Makes this device's context current on the calling thread.
    pub fn bind_to_thread(&self) -> AclResult<()> {
        self.guard.rt.set_current_context(self.guard.ctx)
    }

    /// The context handle.
    pub fn context(&self) -> RawContext {
        self.guard.ctx
    }

    /// Allocates device memory (`aclrtMalloc`).
    pub fn malloc(&self, size: usize, policy: MallocPolicy) -> AclResult<DeviceBuffer> {
        self.bind_to_thread()?;
        let mut addr = Addr::NULL;
        self.guard.rt.malloc(Some(&mut addr), size, policy.raw())?;
        Ok(DeviceBuffer::new(self.guard.clone(), addr, size))
    }

    /// Allocates page-locked host memory (`aclrtMallocHost`).
    pub fn malloc_host(&self, size: usize) -> AclResult<PinnedHostBuffer> {
        self.bind_to_thread()?;
        let mut addr = Addr::NULL;
        self.guard.rt.malloc_host(Some(&mut addr), size)?;
        Ok(PinnedHostBuffer::new(self.guard.clone(), addr))
    }

    /// Creates a stream (`aclrtCreateStream`).
    pub fn stream(&self) -> AclResult<Stream> {
        self.bind_to_thread()?;
        let mut raw = RawStream::NULL;
        self.guard.rt.create_stream(Some(&mut raw))?;
        Ok(Stream::new(self.guard.clone(), raw, false))
    }

    /// Creates a stream with settings (`aclrtCreateStreamWithConfig`).
    pub fn stream_with(&self, config: StreamConfig) -> AclResult<Stream> {
        self.bind_to_thread()?;
        let mut raw = RawStream::NULL;
        self.guard
            .rt
            .create_stream_with_config(Some(&mut raw), config.priority, config.flags())?;
        Ok(Stream::new(self.guard.clone(), raw, config.persistent))
    }

    /// The default stream of this device's context (not destroyed on drop).
    pub fn default_stream(&self) -> Stream {
        Stream::default_of(self.guard.clone())
    }

    /// Creates an event (`aclrtCreateEvent`).
    pub fn event(&self) -> AclResult<Event> {
        self.bind_to_thread()?;
        let mut raw = RawEvent::default();
        self.guard.rt.create_event(Some(&mut raw))?;
        Ok(Event::new(self.guard.clone(), raw))
    }

    /// Creates an event with flags (`aclrtCreateEventWithFlag`).
    pub fn event_with_flags(&self, flags: EventFlags) -> AclResult<Event> {
        self.bind_to_thread()?;
        let mut raw = RawEvent::default();
        self.guard
            .rt
            .create_event_with_flag(Some(&mut raw), flags.raw())?;
        Ok(Event::new(self.guard.clone(), raw))
    }

    /// Creates a notify (`aclrtCreateNotify`, default flag).
    pub fn notify(&self) -> AclResult<Notify> {
        self.bind_to_thread()?;
        let mut raw = RawNotify::default();
        self.guard
            .rt
            .create_notify(Some(&mut raw), notify_flag::DEFAULT)?;
        Ok(Notify::new(self.guard.clone(), raw))
    }

    /// Starts a thread that runs the callbacks of the streams subscribed to it.
    pub fn report_thread(&self) -> AclResult<ReportThread> {
        ReportThread::start(self.guard.clone())
    }

    /// Creates a label (`aclrtCreateLabel`).
    pub fn label(&self) -> AclResult<Label> {
        self.bind_to_thread()?;
        let mut raw = RawLabel::default();
        self.guard.rt.create_label(Some(&mut raw))?;
        Ok(Label::new(self.guard.clone(), raw))
    }

    /// A list of labels, each at its index (`aclrtCreateLabelList`); it borrows them.
    pub fn label_list<'l>(&self, labels: &[&'l Label]) -> AclResult<LabelList<'l>> {
        self.bind_to_thread()?;
        let raws: Vec<RawLabel> = labels.iter().map(|l| l.raw()).collect();
        let mut raw = RawLabelList::default();
        self.guard
            .rt
            .create_label_list(Some(&raws), Some(&mut raw))?;
        Ok(LabelList::new(self.guard.clone(), raw))
    }

    /// Loads a kernel binary (`aclrtBinaryLoadFromFile`).
    pub fn load_binary(&self, path: &str) -> AclResult<Binary> {
        self.bind_to_thread()?;
        let mut raw = RawBinary::default();
        self.guard
            .rt
            .binary_load_from_file(Some(path), Some(&mut raw))?;
        Ok(Binary::new(self.guard.clone(), raw))
    }

    /// Registers `len` bytes of host memory the device maps (`aclrtHostRegisterV2`, MAPPED).
    pub fn register_host(&self, len: usize) -> AclResult<RegisteredHost> {
        RegisteredHost::register(self.guard.clone(), len)
    }

    /// Begins building a model running instance (`aclmdlRIBuildBegin`).
    pub fn model(&self) -> AclResult<ModelRI> {
        self.bind_to_thread()?;
        let mut raw = RawModel::default();
        self.guard.rt.mdl_ri_build_begin(Some(&mut raw), 0)?;
        Ok(ModelRI::new(self.guard.clone(), raw))
    }

    /// The CMO descriptor size of the chip (`aclrtCmoGetDescSize`).
    pub fn cmo_desc_size(&self) -> AclResult<usize> {
        let mut size = 0usize;
        self.guard.rt.cmo_get_desc_size(Some(&mut size))?;
        Ok(size)
    }

    /// Allocates and fills a CMO descriptor for `len` bytes at `src` (`aclrtCmoSetDesc`).
    pub fn cmo_desc(&self, src: DevicePtr<'_>, len: usize) -> AclResult<CmoDesc> {
        let size = self.cmo_desc_size()?;
        let buf = self.malloc(size, MallocPolicy::NormalOnly)?;
        self.guard
            .rt
            .cmo_set_desc(buf.ptr().addr(), src.addr(), len)?;
        Ok(CmoDesc::new(buf))
    }

    /// Waits for every stream of the device (`aclrtSynchronizeDevice`).
    pub fn synchronize(&self) -> AclResult<()> {
        self.bind_to_thread()?;
        self.guard.rt.synchronize_device()
    }

    /// The hazards the simulator recorded so far (a missing `dcci`, a lost write, a race...),
    /// each record with how many alike occurrences it stands for; empty where the device is
    /// not simulated. A hazard class set to fail ([`crate::sim::SimBuilder::hazards`]) is an
    /// error at the synchronize that observes it instead.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use ascend_rt::{safe::*, sim::SimBuilder};
    /// let rt = Arc::new(SimBuilder::new("Ascend910B1").build().unwrap());
    /// let dev = Device::open(&rt, 0).unwrap();
    /// let buf = dev.malloc(4096, MallocPolicy::NormalOnly).unwrap();
    /// let s = dev.stream().unwrap();
    /// s.fill_async(buf.ptr(), 7, 4096).unwrap();
    /// s.cmo(CmoType::Invalid, buf.ptr(), 4096).unwrap(); // drops the fill: a lost write
    /// s.synchronize().unwrap();
    /// assert!(dev.hazards().iter().any(|h| h.kind == "lost_write"));
    /// ```
    #[cfg(feature = "sim")]
    pub fn hazards(&self) -> Vec<crate::sim::Hazard> {
        self.guard
            .rt
            .sim_view()
            .map(|v| v.report().hazards.iter().cloned().collect())
            .unwrap_or_default()
    }
}

impl DeviceGuard {
    /// Releases a handle of this device on drop: `release` runs with the device's context
    /// current, and its failure is a warning naming `what` (a drop cannot return it).
    pub(super) fn release(&self, what: &str, release: impl FnOnce(&Runtime) -> AclResult<()>) {
        let done = self
            .rt
            .set_current_context(self.ctx)
            .and_then(|()| release(&self.rt));
        if let Err(e) = done {
            tracing::warn!("{what} on drop failed: {e}");
        }
    }
}

impl Drop for DeviceGuard {
    fn drop(&mut self) {
        if let Err(e) = self.rt.reset_device(self.id) {
            tracing::warn!("resetting device {} on drop failed: {e}", self.id);
        }
    }
}
