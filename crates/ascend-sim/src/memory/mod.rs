//! Device memory: one address space per device, lazily backed in pages, bounds-checked against
//! live allocations, with never-written tracking per 8-byte word.
//!
//! Device `d`'s window starts at [`DEVICE_WINDOW_BASE`]` + d * 2^40`, so device addresses never
//! alias host memory or each other and stay below 2^47. Pages are allocated only when written,
//! so a 64 GiB device costs only what is touched; a page a fill (or a copy of such a page)
//! covers entirely is held as one byte, and a page no live allocation overlaps is released. A
//! page that was never written reads as the poison byte. Allocation is first fit, over an
//! index of the free ranges.
//!
//! This file owns the [`Memory`] facade: the address-space layout and the bounds-checked
//! accesses. The allocator (free ranges, live and freed allocations, bounds checks) is in
//! `allocator`, the backing pages in `pages`, the record of last writers in `writers`.

mod allocator;
mod page_buf;
mod pages;
mod va_map;
mod writers;

use allocator::Allocator;
pub use pages::Image;
use pages::{Pages, Src};
pub use va_map::{is_virtual, VaMap};
pub use writers::Writer;
use writers::WriterLog;

use crate::types::{DevAddr, SimError};

/// Start of device 0's address window.
pub const DEVICE_WINDOW_BASE: u64 = 0x1000_0000_0000;
/// Size of each device's address window (2^40 bytes).
pub const DEVICE_WINDOW_BYTES: u64 = 1 << 40;

/// The result of a read: whether any byte read had never been written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadInfo {
    /// True when at least one 8-byte word touched had never been written.
    pub never_written: bool,
}

/// All device memory of the simulated host.
#[derive(Debug)]
pub struct Memory {
    alloc: Allocator,
    pages: Pages,
    writers: WriterLog,
    /// Reserved virtual ranges and the memory mapped into them.
    va: VaMap,
}

impl Memory {
    /// Memory for `devices` devices of `capacity` bytes each.
    pub fn new(devices: u32, capacity: u64, alignment: u64, page_bytes: u64, poison: u8) -> Self {
        Memory {
            alloc: Allocator::new(devices, capacity, alignment),
            pages: Pages::new(page_bytes, poison),
            writers: WriterLog::default(),
            va: VaMap::default(),
        }
    }

    /// The poison byte.
    pub fn poison(&self) -> u8 {
        self.pages.poison()
    }

    /// Bytes of backing store actually held: pages that partial writes turned into buffers
    /// (a page a fill covered entirely costs no buffer).
    pub fn backing_bytes(&self) -> u64 {
        self.pages.backing_bytes()
    }

    /// The device whose window contains `addr`, if any.
    pub fn device_of(&self, addr: DevAddr) -> Option<u32> {
        self.alloc.device_of(addr)
    }

    /// First-fit allocation of `bytes`, aligned to the base alignment: the lowest-addressed
    /// free range that holds it.
    pub fn malloc(&mut self, device: u32, bytes: u64) -> Result<DevAddr, SimError> {
        self.alloc.malloc(device, bytes)
    }

    /// Frees the allocation at `addr` and returns its length; its memory returns to poison
    /// and never-written, and pages no live allocation overlaps any more are released.
    pub fn free(&mut self, device: u32, addr: DevAddr, by: String) -> Result<u64, SimError> {
        let len = self.alloc.free(device, addr, by)?;
        let pb = self.pages.page_bytes();
        let alloc = &self.alloc;
        self.pages.reset(addr, len, |ps| alloc.in_use(ps, pb));
        self.writers.forget(addr, len);
        Ok(len)
    }

    /// The reserved virtual ranges and their mappings.
    pub fn va(&self) -> &VaMap {
        &self.va
    }

    /// The reserved virtual ranges and their mappings, to change.
    pub fn va_mut(&mut self) -> &mut VaMap {
        &mut self.va
    }

    /// The memory `[addr, addr+len)` names: itself, or for a virtual address the memory
    /// mapped there (see [`VaMap::translate`]).
    pub fn translate(&self, addr: DevAddr, len: u64) -> Result<DevAddr, SimError> {
        self.va.translate(addr, len)
    }

    /// Checks that `[addr, addr+len)` lies inside one live allocation.
    pub fn check(&self, addr: DevAddr, len: u64) -> Result<(), SimError> {
        self.alloc.check(addr, len)
    }

    /// Reads device memory (bounds-checked).
    pub fn read(&self, addr: DevAddr, out: &mut [u8]) -> Result<ReadInfo, SimError> {
        self.check(addr, out.len() as u64)?;
        Ok(self.pages.read(addr, out))
    }

    /// Reads the little-endian 64-bit word at `addr` (bounds-checked).
    pub fn read_u64(&self, addr: DevAddr) -> Result<(u64, ReadInfo), SimError> {
        let mut b = [0u8; 8];
        let info = self.read(addr, &mut b)?;
        Ok((u64::from_le_bytes(b), info))
    }

    /// Writes device memory (bounds-checked), recording the writer.
    pub fn write(&mut self, addr: DevAddr, data: &[u8], by: Writer) -> Result<(), SimError> {
        self.check(addr, data.len() as u64)?;
        self.pages.store(addr, Src::Bytes(data), data.len() as u64);
        self.writers.note(addr, data.len() as u64, by);
        Ok(())
    }

    /// Fills device memory with a byte (bounds-checked). Pages the fill covers entirely are
    /// held as that one byte.
    pub fn fill(&mut self, addr: DevAddr, value: u8, len: u64, by: Writer) -> Result<(), SimError> {
        self.check(addr, len)?;
        self.pages.store(addr, Src::Fill(value), len);
        self.writers.note(addr, len, by);
        Ok(())
    }

    /// Device-to-device copy with memmove semantics (bounds-checked, both ranges before any
    /// byte moves), a page at a time: a destination page whose source is one uniform (or
    /// absent) page stays uniform. Returns what reading the source found.
    pub fn copy(
        &mut self,
        dst: DevAddr,
        src: DevAddr,
        len: u64,
        by: Writer,
    ) -> Result<ReadInfo, SimError> {
        self.check(src, len)?;
        self.check(dst, len)?;
        let info = self.pages.copy(dst, src, len);
        self.writers.note(dst, len, by);
        Ok(info)
    }

    /// What `[addr, addr+len)` holds now, with its written flags (`addr` and `len` multiples
    /// of 8; no bounds check: a cache line may reach past an allocation).
    pub fn image(&self, addr: DevAddr, len: u64) -> Image {
        self.pages.image(addr, len)
    }

    /// Puts back what [`Memory::image`] took (no bounds check, no writer recorded: the data
    /// returns to what memory held under a dropped cache line).
    pub fn restore(&mut self, addr: DevAddr, len: u64, image: &Image) {
        self.pages.restore(addr, len, image)
    }

    /// Reads `out.len()` bytes at `addr` with no bounds check (a cache line may reach past an
    /// allocation; what no allocation holds reads as poison).
    pub fn peek(&self, addr: DevAddr, out: &mut [u8]) -> ReadInfo {
        self.pages.read(addr, out)
    }

    /// The little-endian 64-bit word at `addr` (rounded down to a multiple of 8), unchecked.
    pub fn peek_word(&self, addr: DevAddr) -> u64 {
        let mut b = [0u8; 8];
        self.pages.read(addr & !7, &mut b);
        u64::from_le_bytes(b)
    }

    /// Whether the 8-byte word at `addr` (rounded down to a multiple of 8) counts as written.
    pub fn word_written(&self, addr: DevAddr) -> bool {
        self.pages.word_written(addr & !7)
    }

    /// The first offset `i` in `within` where `consider(i)` holds and memory at `addr + i`
    /// holds another byte than `bytes[i]` (unchecked; read a piece at a time, no allocation).
    pub fn first_difference(
        &self,
        addr: DevAddr,
        bytes: &[u8],
        within: std::ops::Range<usize>,
        consider: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let mut piece = [0u8; 256];
        let mut pos = within.start;
        while pos < within.end.min(bytes.len()) {
            let n = (within.end.min(bytes.len()) - pos).min(piece.len());
            self.pages.read(addr + pos as u64, &mut piece[..n]);
            if let Some(k) = (0..n).find(|&k| consider(pos + k) && piece[k] != bytes[pos + k]) {
                return Some(pos + k);
            }
            pos += n;
        }
        None
    }

    /// Puts a cache line's `bytes` back at `addr` (a multiple of 8, whole words), unchecked,
    /// with no writer recorded and every word's written flag left as it was.
    pub fn overwrite_line(&mut self, addr: DevAddr, bytes: &[u8]) {
        self.pages.overwrite(addr, bytes)
    }

    /// The last recorded writer of the 8-byte word at `addr`, if known.
    pub fn last_writer(&self, addr: DevAddr) -> Option<Writer> {
        self.writers.last(addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_memory_is_poison_and_never_written() {
        let mut m = Memory::new(2, 1 << 30, 512, 65536, 0xA5);
        let a = m.malloc(0, 100).unwrap();
        assert_eq!(a % 512, 0);
        let (v, info) = m.read_u64(a).unwrap();
        assert_eq!(v, 0xA5A5_A5A5_A5A5_A5A5);
        assert!(info.never_written);
        m.write(a, &7u64.to_le_bytes(), Writer::Host { at_ns: 0 })
            .unwrap();
        let (v, info) = m.read_u64(a).unwrap();
        assert_eq!((v, info.never_written), (7, false));
        assert!(m.read_u64(a + 8).unwrap().1.never_written);
    }
}
