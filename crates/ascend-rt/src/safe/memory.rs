//! Device buffers, device pointers, page-locked host buffers and CMO descriptors.

use std::sync::Arc;

use super::device::DeviceGuard;
use crate::error::{AclError, AclResult, ErrorCode};
use crate::raw_types::Addr;
use crate::runtime::{HostBuffer, MemDst, MemSrc};

/// An address in device memory (no ownership). Obtained from a [`DeviceBuffer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DevicePtr(Addr);

impl DevicePtr {
    /// The raw address.
    pub fn addr(self) -> Addr {
        self.0
    }
}

/// Device memory from `aclrtMalloc`; freed on drop.
#[derive(Debug)]
pub struct DeviceBuffer {
    dev: Arc<DeviceGuard>,
    addr: Addr,
    size: usize,
}

impl DeviceBuffer {
    pub(super) fn new(dev: Arc<DeviceGuard>, addr: Addr, size: usize) -> Self {
        DeviceBuffer { dev, addr, size }
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
    pub fn ptr(&self) -> DevicePtr {
        DevicePtr(self.addr)
    }

    /// The address `offset` bytes in; `offset` must be inside the buffer.
    pub fn at(&self, offset: usize) -> AclResult<DevicePtr> {
        if offset >= self.size {
            return Err(AclError::new(
                ErrorCode::InvalidParam,
                None,
                format!("offset {offset} is outside a {}-byte buffer", self.size),
            ));
        }
        Ok(DevicePtr(self.addr.offset(offset as u64)))
    }

    /// Copies host bytes into the buffer's start (`aclrtMemcpy`, host to device).
    pub fn copy_from_host(&self, data: &[u8]) -> AclResult<()> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        self.dev.rt.memcpy(
            MemDst::Addr(self.addr),
            self.size,
            MemSrc::Host(data),
            data.len(),
            crate::raw_types::memcpy_kind::HOST_TO_DEVICE,
        )
    }

    /// Copies the buffer's first `out.len()` bytes to the host (`aclrtMemcpy`).
    pub fn copy_to_host(&self, out: &mut [u8]) -> AclResult<()> {
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

    /// Reads the 64-bit word at `offset` (synchronously).
    pub fn read_u64(&self, offset: usize) -> AclResult<u64> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        let mut b = [0u8; 8];
        self.dev.rt.memcpy(
            MemDst::Host(&mut b),
            8,
            MemSrc::Addr(self.at(offset)?.addr()),
            8,
            crate::raw_types::memcpy_kind::DEVICE_TO_HOST,
        )?;
        Ok(u64::from_le_bytes(b))
    }

    /// Fills the whole buffer with a byte (`aclrtMemset`).
    pub fn fill(&self, value: u8) -> AclResult<()> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        self.dev
            .rt
            .memset(self.addr, self.size, value as i32, self.size)
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
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

    /// Writes bytes at an offset.
    pub fn write_at(&self, offset: usize, data: &[u8]) {
        self.buf.write_at(offset, data)
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
    pub fn ptr(&self) -> DevicePtr {
        self.buf.ptr()
    }
}
