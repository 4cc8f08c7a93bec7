//! [`Device`]: a device opened with `aclrtSetDevice`, released with `aclrtResetDevice`.

use std::sync::Arc;

use super::enums::{MallocPolicy, StreamConfig};
use super::event::Event;
use super::memory::{CmoDesc, DeviceBuffer, DevicePtr, PinnedHostBuffer};
use super::model::ModelRI;
use super::stream::Stream;
use crate::error::AclResult;
use crate::raw_types::{Addr, RawContext, RawEvent, RawModel, RawStream};
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

impl Drop for DeviceGuard {
    fn drop(&mut self) {
        if let Err(e) = self.rt.reset_device(self.id) {
            tracing::warn!("resetting device {} on drop failed: {e}", self.id);
        }
    }
}
