//! The device-memory allocator: first-fit allocation over an index of each device window's
//! free ranges, the live allocations and the freed ranges remembered to explain later
//! accesses, and the bounds check of an access against them.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

use super::{DEVICE_WINDOW_BASE, DEVICE_WINDOW_BYTES};
use crate::types::{DevAddr, SimError};

/// One live allocation.
#[derive(Debug, Clone, Copy)]
struct Alloc {
    len: u64,
}

/// A freed range, remembered to explain later accesses.
#[derive(Debug, Clone)]
struct Freed {
    len: u64,
    by: String,
}

/// The free ranges of one device window, for first-fit allocation: maximal gaps between the
/// (alignment-rounded) extents of live allocations, by offset, and the same gaps grouped by
/// size class (`floor(log2(len))`) so that a first-fit search looks at few gaps.
#[derive(Debug)]
struct Gaps {
    by_off: BTreeMap<u64, u64>,
    classes: Vec<BTreeSet<u64>>,
    nonempty: u64,
}

fn class_of(len: u64) -> usize {
    (63 - len.max(1).leading_zeros()) as usize
}

impl Gaps {
    fn new(capacity: u64) -> Gaps {
        let mut g = Gaps {
            by_off: BTreeMap::new(),
            classes: (0..64).map(|_| BTreeSet::new()).collect(),
            nonempty: 0,
        };
        g.insert(0, capacity);
        g
    }

    fn insert(&mut self, off: u64, len: u64) {
        if len == 0 {
            return;
        }
        self.by_off.insert(off, len);
        let c = class_of(len);
        self.classes[c].insert(off);
        self.nonempty |= 1 << c;
    }

    fn remove(&mut self, off: u64) -> Option<u64> {
        let len = self.by_off.remove(&off)?;
        let c = class_of(len);
        self.classes[c].remove(&off);
        if self.classes[c].is_empty() {
            self.nonempty &= !(1 << c);
        }
        Some(len)
    }

    /// The lowest-addressed gap of at least `len` bytes (first fit).
    fn first_fit(&self, len: u64) -> Option<u64> {
        let c = class_of(len);
        // Every gap of a higher class fits: the first of each class is a candidate.
        let mut best: Option<u64> = None;
        let mut higher = if c >= 63 {
            0
        } else {
            self.nonempty & !((1u64 << (c + 1)) - 1)
        };
        while higher != 0 {
            let k = higher.trailing_zeros() as usize;
            higher &= higher - 1;
            if let Some(&off) = self.classes[k].first() {
                best = Some(best.map_or(off, |b| b.min(off)));
            }
        }
        // Gaps of the same class may or may not fit: look at those below the best so far.
        let limit = best.unwrap_or(u64::MAX);
        let same = self.classes[c]
            .range(..limit)
            .find(|&&off| self.by_off[&off] >= len)
            .copied();
        same.or(best)
    }

    /// Takes `[off, off+len)` out of the gap that starts at `off`.
    fn take(&mut self, off: u64, len: u64) {
        let gap = self.remove(off).expect("a gap starts there");
        self.insert(off + len, gap - len);
    }

    /// Returns `[off, off+len)` to the free ranges, merging with its neighbours.
    fn give_back(&mut self, off: u64, len: u64) {
        let (mut lo, mut hi) = (off, off + len);
        if let Some((&po, &pl)) = self.by_off.range(..off).next_back() {
            if po + pl == off {
                self.remove(po);
                lo = po;
            }
        }
        if let Some(nl) = self.remove(hi) {
            hi += nl;
        }
        self.insert(lo, hi - lo);
    }
}

/// Per-device memory state.
#[derive(Debug)]
struct DeviceMem {
    base: u64,
    allocs: BTreeMap<u64, Alloc>,
    /// Freed ranges not reallocated since (pairwise disjoint).
    freed: BTreeMap<u64, Freed>,
    gaps: Gaps,
    used: u64,
}

/// The allocations of every device window.
#[derive(Debug)]
pub(super) struct Allocator {
    devices: Vec<DeviceMem>,
    capacity: u64,
    alignment: u64,
    /// The live allocation `[base, end)` that the latest successful [`Allocator::check`]
    /// found: most accesses fall in the same one as the access before, and then need no
    /// range walk. Forgotten by every free (an allocation only goes away there).
    last_hit: Cell<Option<(u64, u64)>>,
}

impl Allocator {
    /// An allocator for `devices` windows of `capacity` bytes each (at most a window), whose
    /// allocations are aligned to `alignment` (a power of two, at least 8).
    pub(super) fn new(devices: u32, capacity: u64, alignment: u64) -> Allocator {
        let capacity = capacity.min(DEVICE_WINDOW_BYTES);
        Allocator {
            devices: (0..devices as u64)
                .map(|d| DeviceMem {
                    base: DEVICE_WINDOW_BASE + d * DEVICE_WINDOW_BYTES,
                    allocs: BTreeMap::new(),
                    freed: BTreeMap::new(),
                    gaps: Gaps::new(capacity),
                    used: 0,
                })
                .collect(),
            capacity,
            alignment: alignment.clamp(8, 1 << 40).next_power_of_two(),
            last_hit: Cell::new(None),
        }
    }

    /// The device whose window contains `addr`, if any.
    pub(super) fn device_of(&self, addr: DevAddr) -> Option<u32> {
        if addr < DEVICE_WINDOW_BASE {
            return None;
        }
        let d = (addr - DEVICE_WINDOW_BASE) / DEVICE_WINDOW_BYTES;
        (d < self.devices.len() as u64).then_some(d as u32)
    }

    fn dev(&mut self, device: u32) -> Result<&mut DeviceMem, SimError> {
        self.devices
            .get_mut(device as usize)
            .ok_or(SimError::Unknown {
                kind: "device",
                id: device as u64,
            })
    }

    /// First-fit allocation of `bytes`, aligned to the base alignment: the lowest-addressed
    /// free range that holds it.
    pub(super) fn malloc(&mut self, device: u32, bytes: u64) -> Result<DevAddr, SimError> {
        let align = self.alignment;
        let capacity = self.capacity;
        let dev = self.dev(device)?;
        let oom = SimError::OutOfMemory { device, bytes };
        let rounded = bytes
            .max(1)
            .checked_add(align - 1)
            .ok_or_else(|| oom.clone())?
            & !(align - 1);
        if rounded > capacity - dev.used.min(capacity) {
            return Err(oom);
        }
        let Some(off) = dev.gaps.first_fit(rounded) else {
            return Err(oom);
        };
        dev.gaps.take(off, rounded);
        let base = dev.base + off;
        dev.allocs.insert(base, Alloc { len: bytes.max(1) });
        dev.used += rounded;
        // Forget freed ranges the new allocation overlaps (they are disjoint: at most one
        // starts before `base`).
        let end = base + rounded;
        let mut stale: Vec<u64> = dev.freed.range(base..end).map(|(&b, _)| b).collect();
        if let Some((&b, f)) = dev.freed.range(..base).next_back() {
            if b + f.len > base {
                stale.push(b);
            }
        }
        for b in stale {
            dev.freed.remove(&b);
        }
        tracing::debug!(device, bytes, addr = format_args!("{base:#x}"), "malloc");
        Ok(base)
    }

    /// Frees the allocation at `addr`, remembering it as freed `by`, and returns its length.
    pub(super) fn free(&mut self, device: u32, addr: DevAddr, by: String) -> Result<u64, SimError> {
        let align = self.alignment;
        self.last_hit.set(None);
        let dev = self.dev(device)?;
        let Some(a) = dev.allocs.remove(&addr) else {
            let reason = match dev.freed.get(&addr) {
                Some(f) => format!("double free (already freed {})", f.by),
                None => "not the base of a live allocation".to_string(),
            };
            return Err(SimError::BadAddress {
                addr,
                len: 0,
                reason,
            });
        };
        let rounded = (a.len + align - 1) & !(align - 1);
        dev.used -= rounded;
        dev.gaps.give_back(addr - dev.base, rounded);
        dev.freed.insert(addr, Freed { len: a.len, by });
        Ok(a.len)
    }

    /// True when some live allocation overlaps `[start, start+len)`, a range inside one
    /// device window.
    pub(super) fn in_use(&self, start: u64, len: u64) -> bool {
        let Some(d) = self.device_of(start) else {
            return false;
        };
        // Allocations are disjoint: the last one starting before the range's end reaches
        // furthest among them.
        self.devices[d as usize]
            .allocs
            .range(..start + len)
            .next_back()
            .is_some_and(|(&b, a)| b + a.len > start)
    }

    /// Checks that `[addr, addr+len)` lies inside one live allocation.
    pub(super) fn check(&self, addr: DevAddr, len: u64) -> Result<(), SimError> {
        if let Some((base, end)) = self.last_hit.get() {
            if addr >= base && addr.checked_add(len).is_some_and(|e| e <= end) {
                return Ok(());
            }
        }
        let bad = |reason: String| SimError::BadAddress { addr, len, reason };
        let Some(d) = self.device_of(addr) else {
            return Err(bad("not a device address".into()));
        };
        let dev = &self.devices[d as usize];
        if let Some((&base, a)) = dev.allocs.range(..=addr).next_back() {
            if addr < base + a.len {
                let end = addr
                    .checked_add(len)
                    .ok_or_else(|| bad("overflow".into()))?;
                if end <= base + a.len {
                    self.last_hit.set(Some((base, base + a.len)));
                    return Ok(());
                }
                return Err(bad(format!(
                    "crosses end of allocation [{base:#x}, {:#x})",
                    base + a.len
                )));
            }
        }
        if let Some((&base, f)) = dev.freed.range(..=addr).next_back() {
            if addr < base + f.len {
                return Err(bad(format!(
                    "freed (allocation [{base:#x}, {:#x}) freed {})",
                    base + f.len,
                    f.by
                )));
            }
        }
        Err(bad("not allocated".into()))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::{Memory, DEVICE_WINDOW_BASE, DEVICE_WINDOW_BYTES};
    use crate::types::SimError;

    fn mem() -> Memory {
        Memory::new(2, 1 << 30, 512, 65536, 0xA5)
    }

    #[test]
    fn devices_do_not_alias() {
        let mut m = mem();
        let a = m.malloc(0, 64).unwrap();
        let b = m.malloc(1, 64).unwrap();
        assert_eq!(m.device_of(a), Some(0));
        assert_eq!(m.device_of(b), Some(1));
        assert!(b >= a + DEVICE_WINDOW_BYTES);
        assert!(b < 1 << 47);
    }

    #[test]
    fn bounds_are_checked() {
        let mut m = mem();
        let a = m.malloc(0, 64).unwrap();
        let e = m.read(a + 60, &mut [0u8; 8]).unwrap_err();
        assert!(e.to_string().contains("crosses end of allocation"), "{e}");
        let e = m.check(a + 4096, 8).unwrap_err();
        assert!(e.to_string().contains("not allocated"), "{e}");
        m.free(0, a, "by free".into()).unwrap();
        let e = m.check(a, 8).unwrap_err();
        assert!(e.to_string().contains("freed"), "{e}");
        assert!(m.free(0, a, "by free".into()).is_err());
        assert!(m.check(0x1234, 8).is_err());
    }

    #[test]
    fn an_access_right_after_one_in_the_same_allocation_is_checked_as_strictly() {
        let mut m = mem();
        let a = m.malloc(0, 64).unwrap();
        let b = m.malloc(0, 64).unwrap();
        m.check(a, 8).unwrap();
        // The same allocation again, in and out of its bounds.
        m.check(a + 56, 8).unwrap();
        let e = m.check(a + 60, 8).unwrap_err();
        assert!(e.to_string().contains("crosses end of allocation"), "{e}");
        assert!(m.check(a + 56, u64::MAX).is_err());
        // A free of the allocation just checked, or of another, is seen at once.
        m.check(a, 8).unwrap();
        m.free(0, a, "by free".into()).unwrap();
        let e = m.check(a, 8).unwrap_err();
        assert!(e.to_string().contains("freed"), "{e}");
        m.check(b, 8).unwrap();
        m.free(0, b, "by free".into()).unwrap();
        assert!(m.check(b + 8, 8).is_err());
    }

    #[test]
    fn out_of_memory_and_reuse() {
        let mut m = mem();
        let a = m.malloc(0, 1 << 29).unwrap();
        let _b = m.malloc(0, 1 << 29).unwrap();
        assert!(matches!(
            m.malloc(0, 512),
            Err(SimError::OutOfMemory { .. })
        ));
        m.free(0, a, "by free".into()).unwrap();
        assert_eq!(m.malloc(0, 1000).unwrap(), a);
    }

    /// The allocator as it was: a first-fit scan over the allocations in address order.
    fn reference_first_fit(live: &BTreeMap<u64, u64>, rounded: u64, cap: u64) -> Option<u64> {
        let mut cursor = 0;
        for (&off, &len) in live {
            if off - cursor >= rounded {
                return Some(cursor);
            }
            cursor = off + len;
        }
        (cap - cursor >= rounded).then_some(cursor)
    }

    proptest::proptest! {
        #[test]
        fn allocation_places_like_a_first_fit_scan(
            ops in proptest::collection::vec((proptest::bool::ANY, 1u64..20_000, 0usize..64), 1..300)
        ) {
            let cap = 1u64 << 20;
            let mut m = Memory::new(1, cap, 512, 65536, 0xA5);
            let mut live: BTreeMap<u64, u64> = BTreeMap::new(); // offset -> rounded length
            for (alloc, bytes, pick) in ops {
                if alloc || live.is_empty() {
                    let rounded = bytes.div_ceil(512) * 512;
                    let want = reference_first_fit(&live, rounded, cap);
                    match m.malloc(0, bytes) {
                        Ok(a) => {
                            let off = a - DEVICE_WINDOW_BASE;
                            proptest::prop_assert_eq!(Some(off), want);
                            live.insert(off, rounded);
                        }
                        Err(_) => proptest::prop_assert_eq!(None, want),
                    }
                } else {
                    let off = *live.keys().nth(pick % live.len()).unwrap();
                    live.remove(&off);
                    m.free(0, DEVICE_WINDOW_BASE + off, "by free".into()).unwrap();
                }
            }
        }
    }
}
