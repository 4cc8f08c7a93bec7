//! [`Stream`]: a stream and the tasks that go on it.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::device::DeviceGuard;
use super::enums::{CmoType, FailureMode, WaitMode};
use super::event::Event;
use super::kernel::{Block, Gm};
use super::memory::{CmoDesc, DevicePtr};
use crate::error::AclResult;
use crate::raw_types::{
    Addr, RawBarrierCmoInfo, RawBarrierTaskInfo, RawContext, RawStream, CMO_MAX_BARRIER_NUM,
};

/// A stream. Dropping it waits for its tasks and destroys it (`aclrtDestroyStream`), as the C
/// API's destroy does, so no queued work is lost; [`Stream::destroy_force`] destroys it without
/// waiting, discarding what has not run, and says so. A default stream is not destroyed.
#[derive(Debug)]
pub struct Stream {
    pub(super) dev: Arc<DeviceGuard>,
    raw: RawStream,
    owned: bool,
    /// Created persistent: its tasks are a model's once bound.
    persistent: bool,
    /// Capturing ([`Stream::begin_capture`]): its tasks are a model's.
    capturing: AtomicBool,
}

thread_local! {
    /// The stream (with its context) whose host function this thread is running, if any.
    static RUNNING_HOST_FUNC: Cell<Option<(RawContext, RawStream)>> = const { Cell::new(None) };
}

/// The stream whose host function (launched through [`Stream::host_func`]) the calling thread
/// is running.
pub(super) fn running_host_func() -> Option<(RawContext, RawStream)> {
    RUNNING_HOST_FUNC.with(Cell::get)
}

impl Stream {
    pub(super) fn new(dev: Arc<DeviceGuard>, raw: RawStream, persistent: bool) -> Self {
        Stream {
            dev,
            raw,
            owned: true,
            persistent,
            capturing: AtomicBool::new(false),
        }
    }

    pub(super) fn default_of(dev: Arc<DeviceGuard>) -> Self {
        Stream {
            dev,
            raw: RawStream::NULL,
            owned: false,
            persistent: false,
            capturing: AtomicBool::new(false),
        }
    }

    /// The raw handle (NULL for a default stream).
    pub fn raw(&self) -> RawStream {
        self.raw
    }

    pub(super) fn bind(&self) -> AclResult<()> {
        self.dev.rt.set_current_context(self.dev.ctx)
    }

    /// Binds the stream's context and records that a task of this stream names `ptr`, so that
    /// its buffer waits for the stream before it is freed.
    fn uses(&self, ptrs: &[DevicePtr<'_>]) -> AclResult<()> {
        self.bind()?;
        let models = self.persistent || self.capturing.load(Ordering::Acquire);
        for p in ptrs {
            p.used_by(self.dev.ctx, self.raw, models);
        }
        Ok(())
    }

    /// Launches `kernel` on `blocks` blocks (simulator kernels, `aclsimLaunchKernel`).
    /// `touches` names the memory its body reads or writes: each buffer then waits for this
    /// stream before it is freed, as it does for a copy, so dropping a buffer while the kernel
    /// is queued is safe. blocks 0: 100000.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use ascend_rt::{dcci_kind, safe::*, Kernel, KernelOps, Runtime};
    /// let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    /// let dev = Device::open(&rt, 0).unwrap();
    /// let out = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
    /// let at = out.ptr().addr().0;
    /// let s = dev.stream().unwrap();
    /// let k = Kernel::new("seven", move |c: &mut dyn KernelOps| {
    ///     c.store(at, 8, 7);
    ///     c.dcci(at, false, dcci_kind::OUT);
    /// });
    /// s.launch(k, 1, &[out.ptr()]).unwrap();
    /// s.synchronize().unwrap();
    /// assert_eq!(out.read_u64(0).unwrap(), 7);
    /// ```
    pub fn launch(
        &self,
        kernel: crate::Kernel,
        blocks: u32,
        touches: &[DevicePtr<'_>],
    ) -> AclResult<()> {
        self.uses(touches)?;
        self.dev.rt.launch_kernel(kernel, blocks, self.raw)
    }

    /// Launches a kernel written at the safe level on `blocks` blocks: `body` runs in each
    /// block with the [`Block`]'s operations and, in order, a [`Gm`] region for each pointer
    /// of `regions` (from the pointer to its buffer's end). Every access is checked against
    /// its region, and each buffer waits for this stream before it is freed, as for
    /// [`Stream::launch`]. Runs on the simulator and through the `hw` backend over the
    /// project's own library ([`crate::Runtime::runs_sim_kernels`]).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use ascend_rt::{safe::*, Runtime};
    /// let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    /// let dev = Device::open(&rt, 0).unwrap();
    /// let out = dev.malloc(64 * 4, MallocPolicy::NormalOnly).unwrap();
    /// let s = dev.stream().unwrap();
    /// // Each of four blocks writes its index, squared, in a cache line of its own (blocks
    /// // sharing a line would overwrite each other's words at their dcci: false sharing).
    /// s.launch_with("squares", 4, &[out.ptr()], |b: &mut Block, gm: &[Gm]| {
    ///     let i = b.idx() as usize;
    ///     b.store_u64(gm[0], 64 * i, (i * i) as u64);
    ///     b.dcci(gm[0], 64 * i); // out of the data cache, into global memory
    /// })
    /// .unwrap();
    /// s.synchronize().unwrap();
    /// assert_eq!(out.read_u64(64 * 3).unwrap(), 9);
    /// assert!(dev.hazards().is_empty());
    /// ```
    pub fn launch_with(
        &self,
        name: &str,
        blocks: u32,
        regions: &[DevicePtr<'_>],
        body: impl Fn(&mut Block<'_>, &[Gm]) + Send + Sync + 'static,
    ) -> AclResult<()> {
        let gms: Vec<Gm> = regions
            .iter()
            .map(|p| Gm::new(p.addr().0, p.len()))
            .collect();
        let kernel_name: Arc<str> = name.into();
        let kernel = crate::Kernel::new(name, move |ops: &mut dyn crate::KernelOps| {
            body(&mut Block::new(ops, &kernel_name), &gms);
        });
        self.launch(kernel, blocks, regions)
    }

    /// Launches `function` of a loaded binary on `blocks` blocks with `args`
    /// (`aclrtLaunchKernelWithConfig`; the arguments are finalized first). Each pointer
    /// appended to `args` makes its buffer wait for this stream before it is freed.
    pub fn launch_function(
        &self,
        function: &super::Function<'_>,
        blocks: u32,
        args: &mut super::KernelArgs<'_, '_>,
    ) -> AclResult<()> {
        self.uses(&args.ptrs)?;
        let raw_args = args.finalized()?;
        self.dev
            .rt
            .launch_kernel_with_config(function.raw(), blocks, self.raw, raw_args, true)
    }

    /// Enqueues a notify record (`aclrtRecordNotify`): sets `notify` when the stream gets
    /// there.
    pub fn record_notify(&self, notify: &super::Notify) -> AclResult<()> {
        self.bind()?;
        self.dev.rt.record_notify(notify.raw(), self.raw)
    }

    /// Enqueues a wait for `notify` (`aclrtWaitAndResetNotify`): the stream stops until it is
    /// set, then clears it; `timeout` (whole seconds, rounded up) ends the wait with a fault,
    /// `None` waits for ever.
    pub fn wait_notify(&self, notify: &super::Notify, timeout: Option<Duration>) -> AclResult<()> {
        self.bind()?;
        let secs = timeout.map_or(crate::raw_types::notify_timeout::FOREVER, |t| {
            t.as_millis()
                .div_ceil(1000)
                .clamp(1, u128::from(u32::MAX - 1)) as u32
        });
        self.dev
            .rt
            .wait_and_reset_notify(notify.raw(), self.raw, secs)
    }

    /// Enqueues a callback (`aclrtLaunchCallback`): `f` runs on the [`super::ReportThread`]
    /// this stream is subscribed to, when the stream gets there; with `blocking` the stream
    /// waits for it to return. Refused (107015) while no report thread has the stream.
    pub fn callback(&self, blocking: bool, f: impl FnMut() + Send + 'static) -> AclResult<()> {
        use crate::raw_types::callback_block;
        self.bind()?;
        let block = if blocking {
            callback_block::BLOCK
        } else {
            callback_block::NO_BLOCK
        };
        self.dev
            .rt
            .launch_callback(Some(self.marked(f)), block, self.raw)
    }

    /// Begins a capture (`aclmdlRICaptureBegin`): the tasks launched on this stream until
    /// [`super::Capture::end`] become a model's instead of running.
    pub fn begin_capture(&self, mode: super::CaptureMode) -> AclResult<super::Capture<'_>> {
        self.bind()?;
        self.dev.rt.mdl_ri_capture_begin(self.raw, mode.raw())?;
        self.capturing(true);
        Ok(super::Capture::new(self))
    }

    /// Says whether the stream is capturing, so that memory its tasks name is kept as a
    /// model's.
    pub(super) fn capturing(&self, on: bool) {
        self.capturing.store(on, Ordering::Release);
    }

    /// Enqueues `label`'s place in this model-bound stream (`aclrtSetLabel`).
    pub fn set_label(&self, label: &super::Label) -> AclResult<()> {
        self.bind()?;
        self.dev.rt.set_label(label.raw(), self.raw)
    }

    /// Enqueues a switch (`aclrtSwitchLabelByIndex`): when the model runs, it jumps to the
    /// label of `list` at the 32-bit index read from `index` (clamped to `max - 1`).
    pub fn switch_label(
        &self,
        index: DevicePtr<'_>,
        max: u32,
        list: &super::LabelList<'_>,
    ) -> AclResult<()> {
        self.uses(&[index])?;
        self.dev
            .rt
            .switch_label_by_index(index.addr(), max, list.raw(), self.raw)
    }

    /// Enqueues `aclrtValueWrite`: stores `value` at `ptr` when the stream gets there.
    pub fn value_write(&self, ptr: DevicePtr<'_>, value: u64) -> AclResult<()> {
        self.uses(&[ptr])?;
        self.dev.rt.value_write(ptr.addr(), value, 0, self.raw)
    }

    /// Enqueues `aclrtValueWait`: the stream stops until the word at `ptr` satisfies `mode`.
    pub fn value_wait(&self, ptr: DevicePtr<'_>, value: u64, mode: WaitMode) -> AclResult<()> {
        self.uses(&[ptr])?;
        self.dev
            .rt
            .value_wait(ptr.addr(), value, mode.flag(), self.raw)
    }

    /// Enqueues `aclrtCmoAsync` on `len` bytes at `ptr`.
    pub fn cmo(&self, kind: CmoType, ptr: DevicePtr<'_>, len: usize) -> AclResult<()> {
        self.uses(&[ptr])?;
        self.dev.rt.cmo_async(ptr.addr(), len, kind.raw(), self.raw)
    }

    /// Enqueues `aclrtCmoAsyncWithBarrier` (model-bound streams on the 200I/500 A2).
    pub fn cmo_with_barrier(
        &self,
        kind: CmoType,
        ptr: DevicePtr<'_>,
        len: usize,
        barrier_id: u32,
    ) -> AclResult<()> {
        self.uses(&[ptr])?;
        self.dev
            .rt
            .cmo_async_with_barrier(ptr.addr(), len, kind.raw(), barrier_id, self.raw)
    }

    /// Enqueues `aclrtCmoWaitBarrier` for INVALID operations with these barrier ids (1 to 6).
    pub fn cmo_wait_barrier(&self, barrier_ids: &[u32]) -> AclResult<()> {
        self.bind()?;
        let mut info = RawBarrierTaskInfo {
            barrier_num: barrier_ids.len(),
            ..RawBarrierTaskInfo::default()
        };
        for (slot, id) in info
            .cmo_info
            .iter_mut()
            .zip(barrier_ids.iter().take(CMO_MAX_BARRIER_NUM))
        {
            *slot = RawBarrierCmoInfo {
                cmo_type: CmoType::Invalid.raw(),
                barrier_id: *id,
            };
        }
        self.dev.rt.cmo_wait_barrier(Some(&info), self.raw, 0)
    }

    /// Enqueues `aclrtCmoAsyncWithDesc` (model-bound streams).
    pub fn cmo_with_desc(&self, desc: &CmoDesc, kind: CmoType) -> AclResult<()> {
        self.uses(&[desc.ptr()])?;
        self.dev
            .rt
            .cmo_async_with_desc(desc.ptr().addr(), kind.raw(), self.raw, Addr::NULL)
    }

    /// Enqueues a host-to-device copy of `data` to `dst` (`aclrtMemcpyAsync`; the data is read
    /// at once, as for pageable memory).
    pub fn copy_h2d_async(&self, dst: DevicePtr<'_>, data: &[u8]) -> AclResult<()> {
        self.uses(&[dst])?;
        self.dev.rt.memcpy_async(
            crate::MemDst::Addr(dst.addr()),
            data.len(),
            crate::MemSrc::Host(data),
            data.len(),
            crate::raw_types::memcpy_kind::HOST_TO_DEVICE,
            self.raw,
        )
    }

    /// Enqueues a device-to-device copy (`aclrtMemcpyAsync`).
    pub fn copy_d2d_async(
        &self,
        dst: DevicePtr<'_>,
        src: DevicePtr<'_>,
        len: usize,
    ) -> AclResult<()> {
        self.uses(&[dst, src])?;
        self.dev.rt.memcpy_async(
            crate::MemDst::Addr(dst.addr()),
            len,
            crate::MemSrc::Addr(src.addr()),
            len,
            crate::raw_types::memcpy_kind::DEVICE_TO_DEVICE,
            self.raw,
        )
    }

    /// Enqueues a fill of `len` bytes at `dst` (`aclrtMemsetAsync`).
    pub fn fill_async(&self, dst: DevicePtr<'_>, value: u8, len: usize) -> AclResult<()> {
        self.uses(&[dst])?;
        self.dev
            .rt
            .memset_async(dst.addr(), len, value as i32, len, self.raw)
    }

    /// Enqueues an event record (`aclrtRecordEvent`).
    pub fn record(&self, event: &Event) -> AclResult<()> {
        self.bind()?;
        self.dev.rt.record_event(event.raw(), self.raw)
    }

    /// Makes the stream wait for an event (`aclrtStreamWaitEvent`).
    pub fn wait_event(&self, event: &Event) -> AclResult<()> {
        self.bind()?;
        self.dev.rt.stream_wait_event(self.raw, event.raw())
    }

    /// Blocks until the stream's tasks complete (`aclrtSynchronizeStream`).
    pub fn synchronize(&self) -> AclResult<()> {
        self.bind()?;
        self.dev.rt.synchronize_stream(self.raw)
    }

    /// Blocks at most `timeout` (`aclrtSynchronizeStreamWithTimeout`; 507046 on expiry).
    /// The timeout counts in whole milliseconds, rounded up, and at least one.
    pub fn synchronize_timeout(&self, timeout: Duration) -> AclResult<()> {
        self.bind()?;
        let ms = super::timeout_ms(timeout);
        self.dev.rt.synchronize_stream_with_timeout(self.raw, ms)
    }

    /// Enqueues a host function (`aclrtLaunchHostFunc`): `f` runs on the runtime's
    /// host-function thread when the stream reaches it, and the stream's later tasks wait
    /// until it returns.
    ///
    /// ```
    /// use std::sync::{Arc, atomic::{AtomicBool, Ordering}};
    /// use ascend_rt::{Runtime, safe::*};
    /// let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    /// let dev = Device::open(&rt, 0).unwrap();
    /// let s = dev.stream().unwrap();
    /// let ran = Arc::new(AtomicBool::new(false));
    /// let seen = ran.clone();
    /// s.host_func(move || seen.store(true, Ordering::SeqCst)).unwrap();
    /// s.synchronize().unwrap();
    /// assert!(ran.load(Ordering::SeqCst));
    /// ```
    ///
    /// The function is kept until the stream reaches it: a handle it owns (a buffer, a stream,
    /// the device) lives until then, so synchronize the stream before dropping the last
    /// handles of a device whose stream still holds one. A buffer it owns may be dropped in
    /// it; the drop does not wait for this stream. On a stream bound to a model, the function
    /// runs at every run of the model, which keeps it until the stream is unbound.
    pub fn host_func(&self, f: impl FnMut() + Send + 'static) -> AclResult<()> {
        self.bind()?;
        self.dev.rt.launch_host_func(self.raw, Some(self.marked(f)))
    }

    /// `f`, marking while it runs that its thread runs this stream's host function or
    /// callback (so that a handle it drops knows not to wait for this stream).
    fn marked(&self, mut f: impl FnMut() + Send + 'static) -> crate::HostFn {
        let me = (self.dev.ctx, self.raw);
        Box::new(move || {
            struct Restore(Option<(RawContext, RawStream)>);
            impl Drop for Restore {
                fn drop(&mut self) {
                    RUNNING_HOST_FUNC.with(|c| c.set(self.0));
                }
            }
            let _restore = Restore(RUNNING_HOST_FUNC.with(|c| c.replace(Some(me))));
            f();
        })
    }

    /// Sets what the stream does with its later tasks after a task fails
    /// (`aclrtSetStreamFailureMode`).
    pub fn set_failure_mode(&self, mode: FailureMode) -> AclResult<()> {
        self.bind()?;
        self.dev.rt.set_stream_failure_mode(self.raw, mode.raw())
    }

    /// Drops the stream's running and queued tasks; the stream stays usable
    /// (`aclrtStreamAbort`). Refused with 207000 on the chips whose firmware cannot abort a
    /// stream (310B, 310P, 910A).
    pub fn abort(&self) -> AclResult<()> {
        self.bind()?;
        self.dev.rt.stream_abort(self.raw)
    }

    /// Destroys the stream without waiting for its tasks (`aclrtDestroyStreamForce`): the
    /// tasks that have not run are discarded, and a warning says so. A default stream is left
    /// as it is.
    pub fn destroy_force(mut self) -> AclResult<()> {
        if !std::mem::take(&mut self.owned) {
            return Ok(());
        }
        self.force_destroy()
    }

    fn force_destroy(&self) -> AclResult<()> {
        self.bind()?;
        let pending = !self.is_complete().unwrap_or(true);
        self.dev.rt.destroy_stream_force(self.raw)?;
        if pending {
            ascend_types::warn_user!(
                "stream {:#x} destroyed by force: the tasks it had not run are discarded",
                self.raw.0
            );
        }
        Ok(())
    }

    /// True when every task has completed (`aclrtStreamQuery`).
    pub fn is_complete(&self) -> AclResult<bool> {
        self.bind()?;
        let mut status = 0;
        self.dev.rt.stream_query(self.raw, Some(&mut status))?;
        Ok(status == crate::raw_types::stream_status::COMPLETE)
    }
}

impl Drop for Stream {
    /// Waits for the stream's tasks and destroys it. Dropped by its own host function (which
    /// its stream waits for), or when the wait fails (a stall the watchdog ends), it is
    /// destroyed by force instead, with a warning that what had not run is discarded.
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        let own_host_func = running_host_func() == Some((self.dev.ctx, self.raw));
        let waited = if own_host_func {
            Err(None)
        } else {
            self.bind()
                .and_then(|_| self.dev.rt.destroy_stream(self.raw))
                .map_err(Some)
        };
        let Err(why) = waited else {
            return;
        };
        if let Some(e) = &why {
            ascend_types::warn_user!(
                "stream {:#x}: waiting for it on drop failed: {e}",
                self.raw.0
            );
        }
        if let Err(e) = self.force_destroy() {
            ascend_types::warn_user!("destroying stream {:#x} on drop failed: {e}", self.raw.0);
        }
    }
}
