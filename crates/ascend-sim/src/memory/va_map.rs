//! Virtual address ranges (`aclrtReserveMemAddress`) and what is mapped into them
//! (`aclrtMapMem`): the simulator's page table.
//!
//! Each device's window has two halves: the lower holds the allocations (`aclrtMalloc`,
//! `aclrtMallocPhysical`: their addresses are the memory's own), the upper the reserved
//! ranges. An address in a reserved range means the memory mapped there: every address a task,
//! a kernel or a host call names is translated here once, where it enters the simulator, so
//! caches, value waits, the race detector and the sanitizer all see the memory's own address
//! and two mappings of one physical allocation (in one process or two) are one memory.
//!
//! [`VaMap::pieces`] cuts a range across mappings side by side into a piece per mapping, so a
//! copy, a fill or a CMO crosses the seam a piece at a time; [`VaMap::translate`] wants the
//! range within one mapping (a single access: a word, a local copy of a kernel).

use std::collections::BTreeMap;

use super::{DEVICE_WINDOW_BASE, DEVICE_WINDOW_BYTES};
use crate::types::{DevAddr, SimError};

/// Where in a device's window the reserved ranges begin.
const VA_HALF: u64 = DEVICE_WINDOW_BYTES / 2;

/// One reserved range.
#[derive(Debug, Clone, Copy)]
struct Reservation {
    device: u32,
    len: u64,
}

/// One mapping: `len` bytes of memory at `pa` seen at the map's key.
#[derive(Debug, Clone, Copy)]
struct Mapping {
    len: u64,
    pa: DevAddr,
}

/// The reserved ranges and their mappings of every device.
#[derive(Debug, Default)]
pub struct VaMap {
    reserved: BTreeMap<DevAddr, Reservation>,
    maps: BTreeMap<DevAddr, Mapping>,
    /// Per device, the next never-used offset of its reserved half.
    next: Vec<u64>,
}

fn bad(addr: DevAddr, len: u64, reason: impl Into<String>) -> SimError {
    SimError::BadAddress {
        addr,
        len,
        reason: reason.into(),
    }
}

/// Whether `addr` lies in the reserved half of some device's window.
pub fn is_virtual(addr: DevAddr) -> bool {
    addr >= DEVICE_WINDOW_BASE && (addr - DEVICE_WINDOW_BASE) % DEVICE_WINDOW_BYTES >= VA_HALF
}

impl VaMap {
    /// Reserves `len` bytes (non-zero) of `device`'s virtual half aligned to `align` (a
    /// power of two): a range never reserved before, so a stale address never becomes live
    /// again.
    pub fn reserve(&mut self, device: u32, len: u64, align: u64) -> Result<DevAddr, SimError> {
        let d = device as usize;
        if self.next.len() <= d {
            self.next.resize(d + 1, 0);
        }
        let align = align.max(1);
        let start = self.next[d].div_ceil(align).saturating_mul(align);
        let end = start.checked_add(len).filter(|&e| e <= VA_HALF);
        let Some(end) = end else {
            return Err(SimError::OutOfMemory { device, bytes: len });
        };
        self.next[d] = end;
        let va = DEVICE_WINDOW_BASE + u64::from(device) * DEVICE_WINDOW_BYTES + VA_HALF + start;
        self.reserved.insert(va, Reservation { device, len });
        Ok(va)
    }

    /// The reservation holding `addr`: its start, length and device.
    pub fn reservation_of(&self, addr: DevAddr) -> Option<(DevAddr, u64, u32)> {
        let (&va, r) = self.reserved.range(..=addr).next_back()?;
        (addr - va < r.len).then_some((va, r.len, r.device))
    }

    /// Releases the reservation starting at `va`; it must hold no mapping.
    pub fn release(&mut self, va: DevAddr) -> Result<(), SimError> {
        let r = *self
            .reserved
            .get(&va)
            .ok_or_else(|| bad(va, 0, "not the start of a reserved range"))?;
        if let Some((&m, _)) = self.maps.range(va..va + r.len).next() {
            return Err(bad(
                va,
                r.len,
                format!("the range still maps memory at {m:#x} (unmap it first)"),
            ));
        }
        self.reserved.remove(&va);
        Ok(())
    }

    /// Maps `len` bytes of memory at `pa` at `va`, inside one reservation and over nothing
    /// mapped.
    pub fn map(&mut self, va: DevAddr, len: u64, pa: DevAddr) -> Result<(), SimError> {
        let (start, rlen, _) = self
            .reservation_of(va)
            .ok_or_else(|| bad(va, len, "in no reserved range"))?;
        if len == 0 || va - start + len > rlen {
            return Err(bad(va, len, "runs past the end of its reserved range"));
        }
        let before = self.maps.range(..va + len).next_back();
        if let Some((&m, mp)) = before.filter(|(&m, mp)| m + mp.len > va) {
            return Err(bad(
                va,
                len,
                format!("overlaps the mapping at {m:#x} ({} bytes)", mp.len),
            ));
        }
        self.maps.insert(va, Mapping { len, pa });
        Ok(())
    }

    /// Unmaps the mapping starting at `va`; returns its memory and length.
    pub fn unmap(&mut self, va: DevAddr) -> Result<(DevAddr, u64), SimError> {
        let m = self
            .maps
            .remove(&va)
            .ok_or_else(|| bad(va, 0, "not the start of a mapping"))?;
        Ok((m.pa, m.len))
    }

    /// The memory `[addr, addr+len)` names: itself outside the reserved halves, else the
    /// memory mapped there (the range within one mapping).
    pub fn translate(&self, addr: DevAddr, len: u64) -> Result<DevAddr, SimError> {
        if self.is_empty() || !is_virtual(addr) {
            return Ok(addr);
        }
        if let Some((&va, m)) = self.maps.range(..=addr).next_back() {
            let off = addr - va;
            if off < m.len {
                if len > m.len - off {
                    return Err(bad(
                        addr,
                        len,
                        format!(
                            "runs past the end of the {}-byte mapping at {va:#x} (a range must \
                             lie within one mapping)",
                            m.len
                        ),
                    ));
                }
                return Ok(m.pa + off);
            }
        }
        Err(bad(
            addr,
            len,
            match self.reservation_of(addr) {
                Some((va, _, _)) => format!(
                    "reserved (range at {va:#x}, aclrtReserveMemAddress) but nothing is mapped \
                     there"
                ),
                None => "a virtual address in no reserved range".to_string(),
            },
        ))
    }

    /// The memory `[addr, addr+len)` names, a piece per mapping it crosses: mappings side by
    /// side in the virtual addresses are one range, whatever memory each maps. Outside the
    /// reserved halves, the range itself.
    pub fn pieces(&self, addr: DevAddr, len: u64) -> Result<Vec<(DevAddr, u64)>, SimError> {
        if self.is_empty() || !is_virtual(addr) {
            return Ok(vec![(addr, len)]);
        }
        let mut out = Vec::new();
        let (mut at, mut left) = (addr, len.max(1));
        while left > 0 {
            let Some((va, m)) = self
                .maps
                .range(..=at)
                .next_back()
                .filter(|(&va, m)| at - va < m.len)
            else {
                // The first byte's own error says why; past it, the gap's.
                return Err(match out.is_empty() {
                    true => self.translate(at, left).unwrap_err(),
                    false => bad(
                        addr,
                        len,
                        format!("nothing is mapped at {at:#x}, inside the range"),
                    ),
                });
            };
            let off = at - va;
            let n = left.min(m.len - off);
            out.push((m.pa + off, n));
            at += n;
            left -= n;
        }
        if len == 0 {
            out[0].1 = 0;
        }
        Ok(out)
    }

    /// Whether no range was ever reserved (the translation's fast path: no address names
    /// a range, live or released).
    pub fn is_empty(&self) -> bool {
        self.next.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapped_range_reaches_its_memory_and_nothing_else() {
        let mut v = VaMap::default();
        let va = v.reserve(0, 4 << 20, 2 << 20).unwrap();
        assert!(is_virtual(va) && va.is_multiple_of(2 << 20));
        let pa = DEVICE_WINDOW_BASE + 0x20_0000;
        assert!(v.translate(va, 8).is_err());
        v.map(va, 2 << 20, pa).unwrap();
        assert_eq!(v.translate(va + 16, 8).unwrap(), pa + 16);
        assert!(v.translate(va + (2 << 20) - 4, 8).is_err());
        assert!(v.map(va + 4096, 4096, pa).is_err());
        assert!(v.release(va).is_err());
        assert_eq!(v.unmap(va).unwrap(), (pa, 2 << 20));
        v.release(va).unwrap();
        assert!(v.translate(va, 8).is_err());
        assert_eq!(v.translate(pa, 8).unwrap(), pa);
        let again = v.reserve(0, 4096, 0).unwrap();
        assert!(again >= va + (4 << 20));
    }
}
