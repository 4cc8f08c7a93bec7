//! Device buffers, device pointers, page-locked host buffers and CMO descriptors.
//!
//! Device memory is tied to stream order: a [`DevicePtr`] borrows its buffer, every stream
//! task that names one records its stream with the buffer, and dropping a [`DeviceBuffer`]
//! first waits for those streams, so memory a queued task still touches is never freed under
//! it (as cudarc's device slices do with their events).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::device::DeviceGuard;
use crate::error::{AclError, AclResult, ErrorCode};
use crate::raw_types::{Addr, RawContext, RawStream};
use crate::runtime::{HostBuffer, MemDst, MemSrc};

/// The streams that have tasks naming a buffer, not yet known to have finished them, and
/// whether a model recorded such a task.
#[derive(Debug, Default)]
pub(super) struct StreamUsers {
    streams: Mutex<Vec<(RawContext, RawStream)>>,
    /// A task naming the buffer went into a model (a persistent stream's tasks run each time
    /// the model runs, for as long as it lives).
    in_model: AtomicBool,
}

impl StreamUsers {
    /// Records that `stream` of `ctx` has a task naming the buffer; `persistent`: the stream's
    /// tasks are a model's.
    pub(super) fn add(&self, ctx: RawContext, stream: RawStream, persistent: bool) {
        if persistent {
            self.in_model.store(true, Ordering::Release);
            return;
        }
        let mut users = self.streams.lock().unwrap_or_else(|p| p.into_inner());
        if !users.contains(&(ctx, stream)) {
            users.push((ctx, stream));
        }
    }

    fn take(&self) -> Vec<(RawContext, RawStream)> {
        std::mem::take(&mut *self.streams.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn in_model(&self) -> bool {
        self.in_model.load(Ordering::Acquire)
    }

    /// Before the memory at `addr` (`what`) is released: waits for the streams whose tasks
    /// name it. False when a model's task names it: the model may run again, whenever the
    /// program says, so it must stay until the device is released.
    pub(super) fn wait_for(&self, dev: &DeviceGuard, what: &str, addr: Addr) -> bool {
        if self.in_model() {
            tracing::debug!(
                "{what} {:#x} is named by a model's task: kept until the device goes",
                addr.0
            );
            return false;
        }
        // A stream that is gone ran its tasks (a dropped `Stream` waits for them) or abandoned
        // them (destroyed by force), so its error is no concern. The stream whose host
        // function is dropping the memory has run its earlier tasks, and no later one can
        // name it.
        let running = super::stream::running_host_func();
        for (ctx, stream) in self.take() {
            if running == Some((ctx, stream)) {
                continue;
            }
            let waited = dev
                .rt
                .set_current_context(ctx)
                .and_then(|()| dev.rt.synchronize_stream(stream));
            if let Err(e) = waited {
                tracing::debug!("waiting for stream {:#x} before a release: {e}", stream.0);
            }
        }
        true
    }
}

/// 100000 unless `len` bytes at `offset` lie inside a buffer of `size` bytes (`what` names
/// the buffer in the message).
fn check_range(offset: usize, len: usize, size: usize, what: &str) -> AclResult<()> {
    if offset.checked_add(len).is_none_or(|end| end > size) {
        return Err(AclError::new(
            ErrorCode::InvalidParam,
            None,
            format!("{len} bytes at offset {offset} run past a {size}-byte {what}"),
        ));
    }
    Ok(())
}

/// An address in device memory, borrowed from a [`DeviceBuffer`] (or a [`CmoDesc`]): while
/// it exists the buffer cannot be dropped, and a stream task that names it makes the buffer
/// wait for that stream before it is freed.
#[derive(Debug, Clone, Copy)]
pub struct DevicePtr<'a> {
    addr: Addr,
    /// The bytes from `addr` to the end of its buffer.
    len: usize,
    users: &'a StreamUsers,
}

impl PartialEq for DevicePtr<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.addr == other.addr
    }
}

impl Eq for DevicePtr<'_> {}

impl<'a> DevicePtr<'a> {
    /// `len` bytes at `addr` whose stream users are `users`.
    pub(super) fn new(addr: Addr, len: usize, users: &'a StreamUsers) -> Self {
        DevicePtr { addr, len, users }
    }

    /// The raw address.
    pub fn addr(self) -> Addr {
        self.addr
    }

    /// The bytes from this address to the end of its buffer.
    pub fn len(self) -> usize {
        self.len
    }

    /// True when no byte of the buffer lies at or after this address (never: a pointer into
    /// a buffer has at least its own byte).
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// Records that a task on `stream` of `ctx` names this memory; `persistent`: the stream's
    /// tasks are a model's.
    pub(super) fn used_by(self, ctx: RawContext, stream: RawStream, persistent: bool) {
        self.users.add(ctx, stream, persistent);
    }
}

/// Device memory from `aclrtMalloc`. Dropping it waits for every stream that has a task
/// naming it (through a [`DevicePtr`]) to finish its work, then frees it: a buffer is never
/// freed under a queued copy, wait or CMO. A stream blocked forever makes the drop block too;
/// the simulator's watchdog then explains which. Memory a model's task names (a task on a
/// persistent stream) stays allocated until the device is released, as the model may run
/// again. A buffer moved into a host function may be dropped there: the drop does not wait
/// for the stream running that function.
///
/// ```
/// use std::sync::Arc;
/// use ascend_rt::{Runtime, safe::*};
/// let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
/// let dev = Device::open(&rt, 0).unwrap();
/// let stream = dev.stream().unwrap();
/// let buf = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
/// stream.fill_async(buf.ptr(), 7, 64).unwrap();
/// drop(buf); // waits for the fill, then frees
/// ```
#[derive(Debug)]
pub struct DeviceBuffer {
    dev: Arc<DeviceGuard>,
    addr: Addr,
    size: usize,
    users: StreamUsers,
}

impl DeviceBuffer {
    pub(super) fn new(dev: Arc<DeviceGuard>, addr: Addr, size: usize) -> Self {
        DeviceBuffer {
            dev,
            addr,
            size,
            users: StreamUsers::default(),
        }
    }

    /// The size asked for.
    pub fn len(&self) -> usize {
        self.size
    }

    /// True for a zero-length buffer (never: `aclrtMalloc` rejects size 0).
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Its base address.
    pub fn ptr(&self) -> DevicePtr<'_> {
        DevicePtr {
            addr: self.addr,
            len: self.size,
            users: &self.users,
        }
    }

    /// The address `offset` bytes in; `offset` must be inside the buffer.
    pub fn at(&self, offset: usize) -> AclResult<DevicePtr<'_>> {
        check_range(offset, 1, self.size, "device buffer")?;
        Ok(DevicePtr {
            addr: self.addr.offset(offset as u64),
            len: self.size - offset,
            users: &self.users,
        })
    }

    /// Copies host bytes into the buffer's start now (`aclrtMemcpy`, host to device; no
    /// stream order).
    pub fn copy_from_host_sync(&self, data: &[u8]) -> AclResult<()> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        self.dev.rt.memcpy(
            MemDst::Addr(self.addr),
            self.size,
            MemSrc::Host(data),
            data.len(),
            crate::raw_types::memcpy_kind::HOST_TO_DEVICE,
        )
    }

    /// Copies the buffer's first `out.len()` bytes to the host now (`aclrtMemcpy`; no stream
    /// order).
    pub fn copy_to_host_sync(&self, out: &mut [u8]) -> AclResult<()> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        let n = out.len();
        self.dev.rt.memcpy(
            MemDst::Host(out),
            n,
            MemSrc::Addr(self.addr),
            n,
            crate::raw_types::memcpy_kind::DEVICE_TO_HOST,
        )
    }

    /// Reads the 64-bit word at `offset` now (`aclrtMemcpy`; no stream order); the word must
    /// lie inside the buffer.
    pub fn read_u64(&self, offset: usize) -> AclResult<u64> {
        check_range(offset, 8, self.size, "device buffer")?;
        self.dev.rt.set_current_context(self.dev.ctx)?;
        let mut b = [0u8; 8];
        self.dev.rt.memcpy(
            MemDst::Host(&mut b),
            8,
            MemSrc::Addr(self.addr.offset(offset as u64)),
            8,
            crate::raw_types::memcpy_kind::DEVICE_TO_HOST,
        )?;
        Ok(u64::from_le_bytes(b))
    }

    /// Fills the whole buffer with a byte now (`aclrtMemset`; no stream order).
    pub fn fill_sync(&self, value: u8) -> AclResult<()> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        self.dev
            .rt
            .memset(self.addr, self.size, value as i32, self.size)
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if !self.users.wait_for(&self.dev, "device buffer", self.addr) {
            return;
        }
        if let Err(e) = self.dev.rt.free(self.addr) {
            tracing::warn!(
                "freeing device buffer {:#x} on drop failed: {e}",
                self.addr.0
            );
        }
    }
}

/// Page-locked host memory from `aclrtMallocHost`; freed on drop.
#[derive(Debug)]
pub struct PinnedHostBuffer {
    dev: Arc<DeviceGuard>,
    buf: HostBuffer,
}

impl PinnedHostBuffer {
    pub(super) fn new(dev: Arc<DeviceGuard>, addr: Addr) -> Self {
        let buf = dev
            .rt
            .host_buffer(addr)
            .expect("a host buffer just allocated is registered");
        PinnedHostBuffer { dev, buf }
    }

    /// Its address (usable as a copy end).
    pub fn addr(&self) -> Addr {
        self.buf.addr()
    }

    /// Its contents.
    pub fn to_vec(&self) -> Vec<u8> {
        self.buf.to_vec()
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True for a zero-length buffer (never: `aclrtMallocHost` rejects size 0).
    pub fn is_empty(&self) -> bool {
        self.buf.len() == 0
    }

    /// Writes bytes at an offset; a range past the buffer's end is refused (100000).
    pub fn write_at(&self, offset: usize, data: &[u8]) -> AclResult<()> {
        check_range(offset, data.len(), self.buf.len(), "host buffer")?;
        self.buf.write_at(offset, data);
        Ok(())
    }
}

impl Drop for PinnedHostBuffer {
    fn drop(&mut self) {
        if let Err(e) = self.dev.rt.free_host(self.buf.addr()) {
            tracing::warn!("freeing host buffer on drop failed: {e}");
        }
    }
}

/// A CMO descriptor in device memory (`aclrtCmoSetDesc`).
#[derive(Debug)]
pub struct CmoDesc {
    buf: DeviceBuffer,
}

impl CmoDesc {
    pub(super) fn new(buf: DeviceBuffer) -> Self {
        CmoDesc { buf }
    }

    /// The descriptor's device address.
    pub fn ptr(&self) -> DevicePtr<'_> {
        self.buf.ptr()
    }
}
