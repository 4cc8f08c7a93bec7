//! Kernels at the safe level: a body sees the memory it was launched with as [`Gm`] regions
//! and reaches it only through [`Block`]'s operations, which check every access against its
//! region, so a kernel written here names no address.

use ascend_types::{dcci_kind, KernelOps};

/// A region of device memory a kernel was launched with ([`super::Stream::launch_with`]):
/// where it starts and how many bytes it has. It is plain data (the kernel keeps a copy, not a
/// borrow); the stream order that keeps its buffer alive comes from the launch naming it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gm {
    addr: u64,
    len: usize,
}

impl Gm {
    pub(super) fn new(addr: u64, len: usize) -> Gm {
        Gm { addr, len }
    }

    /// Its length in bytes.
    pub fn len(self) -> usize {
        self.len
    }

    /// True for a region of no bytes (what [`Gm::at`] gives past the end).
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The region `offset` bytes in (empty at or past the end: any access to it traps).
    pub fn at(self, offset: usize) -> Gm {
        let offset = offset.min(self.len);
        Gm {
            addr: self.addr + offset as u64,
            len: self.len - offset,
        }
    }
}

/// One block of a running kernel: its index, and typed, bounds-checked operations on the
/// kernel's [`Gm`] regions. An access outside its region ends the block with a fault naming
/// the kernel, the offset and the region's length, as a stray access does on a device; so do
/// [`Block::trap`] and a panic.
///
/// Loads and stores go through the core's data cache: a store reaches global memory (and
/// another core or a stream task) only after [`Block::dcci`] of its line, and a load sees
/// another core's store only after `dcci` of the line it reads (as on the hardware).
pub struct Block<'a> {
    ops: &'a mut dyn KernelOps,
    kernel: &'a str,
}

impl<'a> Block<'a> {
    pub(super) fn new(ops: &'a mut dyn KernelOps, kernel: &'a str) -> Self {
        Block { ops, kernel }
    }

    /// This block's index, `0..num()`.
    pub fn idx(&self) -> u32 {
        self.ops.block_idx()
    }

    /// The number of blocks the kernel was launched with.
    pub fn num(&self) -> u32 {
        self.ops.block_num()
    }

    /// The address of `bytes` bytes at `offset` in `gm`, or a fault saying why not.
    fn reach(&mut self, what: &str, gm: Gm, offset: usize, bytes: usize) -> Option<u64> {
        if offset.checked_add(bytes).is_some_and(|end| end <= gm.len) {
            return Some(gm.addr + offset as u64);
        }
        let reason = format!(
            "kernel {}: {what} of {bytes} bytes at offset {offset} of a {}-byte region",
            self.kernel, gm.len
        );
        self.ops.trap(&reason);
        None
    }

    fn load(&mut self, gm: Gm, offset: usize, bytes: u32) -> u64 {
        match self.reach("a load", gm, offset, bytes as usize) {
            Some(at) => self.ops.load(at, bytes),
            None => 0,
        }
    }

    fn store(&mut self, gm: Gm, offset: usize, bytes: u32, value: u64) {
        if let Some(at) = self.reach("a store", gm, offset, bytes as usize) {
            self.ops.store(at, bytes, value);
        }
    }

    /// Loads the little-endian `u64` at `offset` in `gm` (8-byte aligned).
    pub fn load_u64(&mut self, gm: Gm, offset: usize) -> u64 {
        self.load(gm, offset, 8)
    }

    /// Loads the `u32` at `offset` in `gm` (4-byte aligned).
    pub fn load_u32(&mut self, gm: Gm, offset: usize) -> u32 {
        self.load(gm, offset, 4) as u32
    }

    /// Loads the byte at `offset` in `gm`.
    pub fn load_u8(&mut self, gm: Gm, offset: usize) -> u8 {
        self.load(gm, offset, 1) as u8
    }

    /// Stores `value` at `offset` in `gm` (8-byte aligned), into the data cache.
    pub fn store_u64(&mut self, gm: Gm, offset: usize, value: u64) {
        self.store(gm, offset, 8, value);
    }

    /// Stores `value` at `offset` in `gm` (4-byte aligned), into the data cache.
    pub fn store_u32(&mut self, gm: Gm, offset: usize, value: u32) {
        self.store(gm, offset, 4, value.into());
    }

    /// Stores `value` at `offset` in `gm`, into the data cache.
    pub fn store_u8(&mut self, gm: Gm, offset: usize, value: u8) {
        self.store(gm, offset, 1, value.into());
    }

    /// Cleans and invalidates the data-cache line holding `offset` in `gm` (`dcci` of a single
    /// line, cache type OUT): what the line holds dirty goes to global memory, and the next
    /// load of it reads global memory.
    pub fn dcci(&mut self, gm: Gm, offset: usize) {
        if let Some(at) = self.reach("a dcci", gm, offset, 1) {
            self.ops.dcci(at, false, dcci_kind::OUT);
        }
    }

    /// Cleans and invalidates the whole data cache (`dcci` of the entire cache).
    pub fn dcci_all(&mut self) {
        self.ops.dcci(0, true, dcci_kind::ALL);
    }

    /// Invalidates the whole data cache, writing nothing back (`dci`): dirty lines are lost.
    pub fn dci(&mut self) {
        self.ops.dci();
    }

    /// Copies `local.len()` bytes at `offset` in `gm` into a local buffer (around the data
    /// cache, through the L2).
    pub fn copy_in(&mut self, local: &mut [u8], gm: Gm, offset: usize) {
        if let Some(at) = self.reach("a copy in", gm, offset, local.len()) {
            self.ops.copy_gm_to_local(local, at);
        }
    }

    /// Copies a local buffer to `offset` in `gm` (around the data cache, through the L2).
    pub fn copy_out(&mut self, gm: Gm, offset: usize, local: &[u8]) {
        if let Some(at) = self.reach("a copy out", gm, offset, local.len()) {
            self.ops.copy_local_to_gm(at, local);
        }
    }

    /// Spends `cycles` core cycles (a polling loop's pause).
    pub fn spin(&mut self, cycles: u64) {
        self.ops.spin(cycles);
    }

    /// Ends the block with a fault saying `reason`, as a trap instruction does: the kernel's
    /// stream reports it at its next synchronize. Does not return to the kernel.
    pub fn trap(&mut self, reason: &str) {
        self.ops.trap(reason);
    }
}
