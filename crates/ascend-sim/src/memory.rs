//! Device memory: one address space per device, lazily backed in pages, bounds-checked against
//! live allocations, with never-written tracking per 8-byte word.
//!
//! Device `d`'s window starts at [`DEVICE_WINDOW_BASE`]` + d * 2^40`, so device addresses never
//! alias host memory or each other and stay below 2^47. Pages are allocated only when written,
//! so a 64 GiB device costs only what is touched; a page a fill (or a copy of such a page)
//! covers entirely is held as one byte, and a page no live allocation overlaps is released. A
//! page that was never written reads as the poison byte. Allocation is first fit, over an
//! index of the free ranges.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::types::{DevAddr, SimError};

/// Start of device 0's address window.
pub const DEVICE_WINDOW_BASE: u64 = 0x1000_0000_0000;
/// Size of each device's address window (2^40 bytes).
pub const DEVICE_WINDOW_BYTES: u64 = 1 << 40;

/// Who last wrote a range of device memory (for diagnoses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Writer {
    /// A stream task.
    Task {
        /// The task number.
        task: u64,
        /// Its stream.
        stream: u64,
        /// Simulated completion time.
        at_ns: u64,
    },
    /// A synchronous host call (`Sim::write`, `fill`, `copy`).
    Host {
        /// Simulated host time.
        at_ns: u64,
    },
}

impl std::fmt::Display for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Writer::Task {
                task,
                stream,
                at_ns,
            } => write!(f, "task {task} on stream {stream} at {at_ns} ns"),
            Writer::Host { at_ns } => write!(f, "a host write at {at_ns} ns"),
        }
    }
}

/// One backing page. A page that a fill covered entirely is held as one byte (no buffer); it
/// becomes a buffer only when a write covers part of it.
#[derive(Debug)]
enum Page {
    /// Every byte is `byte`; every 8-byte word is written (`written`) or none is.
    Uniform { byte: u8, written: bool },
    /// Data plus a bitmap of written 8-byte words.
    Data { data: Vec<u8>, written: Vec<u64> },
}

/// What a write stores: bytes, or one byte repeated.
#[derive(Clone, Copy)]
enum Src<'a> {
    Bytes(&'a [u8]),
    Fill(u8),
}

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

/// The result of a read: whether any byte read had never been written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadInfo {
    /// True when at least one 8-byte word touched had never been written.
    pub never_written: bool,
}

/// All device memory of the simulated host.
#[derive(Debug)]
pub struct Memory {
    devices: Vec<DeviceMem>,
    capacity: u64,
    alignment: u64,
    page_bytes: u64,
    poison: u8,
    pages: BTreeMap<u64, Page>,
    /// Pages held as a buffer (the rest are uniform).
    data_pages: u64,
    /// Last writer per 8-byte word, kept for small writes (value writes and the like).
    word_writers: BTreeMap<u64, Writer>,
    /// Recent large writes (bounded), searched newest first.
    range_writers: VecDeque<(u64, u64, Writer)>,
}

const RANGE_WRITER_LOG: usize = 256;
const SMALL_WRITE: u64 = 64;

impl Memory {
    /// Memory for `devices` devices of `capacity` bytes each.
    pub fn new(devices: u32, capacity: u64, alignment: u64, page_bytes: u64, poison: u8) -> Self {
        let capacity = capacity.min(DEVICE_WINDOW_BYTES);
        let page_bytes = page_bytes.clamp(64, 1 << 30).next_power_of_two();
        Memory {
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
            page_bytes,
            poison,
            pages: BTreeMap::new(),
            data_pages: 0,
            word_writers: BTreeMap::new(),
            range_writers: VecDeque::new(),
        }
    }

    /// The poison byte.
    pub fn poison(&self) -> u8 {
        self.poison
    }

    /// Bytes of backing store actually held: pages that partial writes turned into buffers
    /// (a page a fill covered entirely costs no buffer).
    pub fn backing_bytes(&self) -> u64 {
        self.data_pages * self.page_bytes
    }

    /// The device whose window contains `addr`, if any.
    pub fn device_of(&self, addr: DevAddr) -> Option<u32> {
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
    pub fn malloc(&mut self, device: u32, bytes: u64) -> Result<DevAddr, SimError> {
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

    /// Frees the allocation at `addr` and returns its length; its memory returns to poison
    /// and never-written, and pages no live allocation overlaps any more are released.
    pub fn free(&mut self, device: u32, addr: DevAddr, by: String) -> Result<u64, SimError> {
        let align = self.alignment;
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
        self.reset_range(addr, a.len);
        Ok(a.len)
    }

    /// True when some live allocation overlaps the page starting at `ps`.
    fn page_in_use(&self, ps: u64) -> bool {
        let Some(d) = self.device_of(ps) else {
            return false;
        };
        // Allocations are disjoint: the last one starting before the page's end reaches
        // furthest among them.
        self.devices[d as usize]
            .allocs
            .range(..ps + self.page_bytes)
            .next_back()
            .is_some_and(|(&b, a)| b + a.len > ps)
    }

    fn drop_page(&mut self, k: u64) {
        if let Some(Page::Data { .. }) = self.pages.remove(&k) {
            self.data_pages -= 1;
        }
    }

    /// The page `k` as a buffer (materialising an absent or uniform page).
    fn data_page(&mut self, k: u64) -> (&mut Vec<u8>, &mut Vec<u64>) {
        let pb = self.page_bytes as usize;
        let words = (pb / 8).div_ceil(64);
        let poison = self.poison;
        let page = self.pages.entry(k).or_insert(Page::Uniform {
            byte: poison,
            written: false,
        });
        if let Page::Uniform { byte, written } = *page {
            let mask = if written { u64::MAX } else { 0 };
            *page = Page::Data {
                data: vec![byte; pb],
                written: vec![mask; words],
            };
            self.data_pages += 1;
        }
        match page {
            Page::Data { data, written } => (data, written),
            Page::Uniform { .. } => unreachable!("materialised above"),
        }
    }

    /// Returns the range to poison / never-written and drops the pages it fully covers and
    /// those no live allocation overlaps any more.
    fn reset_range(&mut self, addr: u64, len: u64) {
        let pb = self.page_bytes;
        let end = addr + len;
        let first = addr / pb;
        let last = (end - 1) / pb;
        let keys: Vec<u64> = self.pages.range(first..=last).map(|(&k, _)| k).collect();
        for k in keys {
            let ps = k * pb;
            let (lo, hi) = (addr.max(ps), end.min(ps + pb));
            if (lo == ps && hi == ps + pb) || !self.page_in_use(ps) {
                self.drop_page(k);
            } else {
                let poison = self.poison;
                let (data, written) = self.data_page(k);
                data[(lo - ps) as usize..(hi - ps) as usize].fill(poison);
                for w in (lo - ps) / 8..(hi - ps).div_ceil(8) {
                    written[(w / 64) as usize] &= !(1u64 << (w % 64));
                }
            }
        }
        let stale: Vec<u64> = self
            .word_writers
            .range(addr & !7..end)
            .map(|(&k, _)| k)
            .collect();
        for k in stale {
            self.word_writers.remove(&k);
        }
        self.range_writers
            .retain(|&(s, e, _)| e <= addr || s >= end);
    }

    /// Checks that `[addr, addr+len)` lies inside one live allocation.
    pub fn check(&self, addr: DevAddr, len: u64) -> Result<(), SimError> {
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

    /// Reads device memory (bounds-checked).
    pub fn read(&self, addr: DevAddr, out: &mut [u8]) -> Result<ReadInfo, SimError> {
        self.check(addr, out.len() as u64)?;
        Ok(self.read_unchecked(addr, out))
    }

    fn read_unchecked(&self, addr: u64, out: &mut [u8]) -> ReadInfo {
        let pb = self.page_bytes;
        let mut never_written = false;
        let mut pos = 0usize;
        while pos < out.len() {
            let a = addr + pos as u64;
            let (k, off) = (a / pb, a % pb);
            let n = ((pb - off) as usize).min(out.len() - pos);
            match self.pages.get(&k) {
                Some(Page::Data { data, written }) => {
                    out[pos..pos + n].copy_from_slice(&data[off as usize..off as usize + n]);
                    if !never_written {
                        for w in off / 8..(off + n as u64).div_ceil(8) {
                            if written[(w / 64) as usize] & (1u64 << (w % 64)) == 0 {
                                never_written = true;
                                break;
                            }
                        }
                    }
                }
                Some(&Page::Uniform { byte, written }) => {
                    out[pos..pos + n].fill(byte);
                    never_written |= !written;
                }
                None => {
                    out[pos..pos + n].fill(self.poison);
                    never_written = true;
                }
            }
            pos += n;
        }
        ReadInfo { never_written }
    }

    /// The byte every byte of `[a, a+n)` holds, when every page the range touches is absent
    /// or uniform with that same byte (with whether every one counts as written). A range
    /// need not be page-aligned: copies between buffers at different page offsets read each
    /// destination page from two source pages.
    fn uniform_at(&self, a: u64, n: u64) -> Option<(u8, bool)> {
        let pb = self.page_bytes;
        let mut found: Option<(u8, bool)> = None;
        for k in a / pb..=(a + n - 1) / pb {
            let (byte, written) = match self.pages.get(&k) {
                None => (self.poison, false),
                Some(&Page::Uniform { byte, written }) => (byte, written),
                Some(Page::Data { .. }) => return None,
            };
            found = match found {
                None => Some((byte, written)),
                Some((b, w)) if b == byte => Some((b, w && written)),
                Some(_) => return None,
            };
        }
        found
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
        self.store(addr, Src::Bytes(data), data.len() as u64);
        self.note_writer(addr, data.len() as u64, by);
        Ok(())
    }

    /// Fills device memory with a byte (bounds-checked). Pages the fill covers entirely are
    /// held as that one byte.
    pub fn fill(&mut self, addr: DevAddr, value: u8, len: u64, by: Writer) -> Result<(), SimError> {
        self.check(addr, len)?;
        self.store(addr, Src::Fill(value), len);
        self.note_writer(addr, len, by);
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
        let mut never_written = false;
        if len == 0 {
            return Ok(ReadInfo { never_written });
        }
        let pb = self.page_bytes;
        let mut buf = vec![0u8; len.min(pb) as usize];
        // Pieces follow destination pages; copying backwards when the destination lies above
        // an overlapping source keeps memmove semantics.
        let backwards = dst > src && dst - src < len;
        let mut done = 0u64;
        while done < len {
            let (lo, hi) = if backwards {
                let hi = len - done;
                let a = dst + hi - 1;
                let lo = (a - a % pb).max(dst) - dst;
                (lo, hi)
            } else {
                let a = dst + done;
                (done, (done + pb - a % pb).min(len))
            };
            let n = hi - lo;
            let (d, s) = (dst + lo, src + lo);
            match self.uniform_at(s, n) {
                Some((byte, written)) if d % pb == 0 && n == pb => {
                    never_written |= !written;
                    self.store_piece(d, Src::Fill(byte), n);
                }
                _ => {
                    let b = &mut buf[..n as usize];
                    never_written |= self.read_unchecked(s, b).never_written;
                    let b = std::mem::take(&mut buf);
                    self.store_piece(d, Src::Bytes(&b[..n as usize]), n);
                    buf = b;
                }
            }
            done += n;
        }
        self.note_writer(dst, len, by);
        Ok(ReadInfo { never_written })
    }

    /// Stores `src` at `addr` (already bounds-checked), page by page.
    fn store(&mut self, addr: u64, src: Src<'_>, len: u64) {
        let pb = self.page_bytes;
        let mut pos = 0u64;
        while pos < len {
            let a = addr + pos;
            let n = (pb - a % pb).min(len - pos);
            let piece = match src {
                Src::Bytes(b) => Src::Bytes(&b[pos as usize..(pos + n) as usize]),
                f => f,
            };
            self.store_piece(a, piece, n);
            pos += n;
        }
    }

    /// Stores `n` bytes at `a`, a range inside one page.
    fn store_piece(&mut self, a: u64, src: Src<'_>, n: u64) {
        let pb = self.page_bytes;
        let (k, off) = (a / pb, a % pb);
        if let Src::Fill(byte) = src {
            if n == pb {
                self.drop_page(k);
                self.pages.insert(
                    k,
                    Page::Uniform {
                        byte,
                        written: true,
                    },
                );
                return;
            }
            if let Some(&Page::Uniform {
                byte: b,
                written: true,
            }) = self.pages.get(&k)
            {
                if b == byte {
                    return;
                }
            }
        }
        let (data, written) = self.data_page(k);
        let dst = &mut data[off as usize..(off + n) as usize];
        match src {
            Src::Bytes(b) => dst.copy_from_slice(b),
            Src::Fill(v) => dst.fill(v),
        }
        for w in off / 8..(off + n).div_ceil(8) {
            written[(w / 64) as usize] |= 1u64 << (w % 64);
        }
    }

    fn note_writer(&mut self, addr: u64, len: u64, by: Writer) {
        if len == 0 {
            return;
        }
        if len <= SMALL_WRITE {
            let mut w = addr & !7;
            while w < addr + len {
                self.word_writers.insert(w, by.clone());
                w += 8;
            }
        } else {
            if self.range_writers.len() >= RANGE_WRITER_LOG {
                self.range_writers.pop_front();
            }
            self.range_writers.push_back((addr, addr + len, by));
        }
    }

    /// The last recorded writer of the 8-byte word at `addr`, if known.
    pub fn last_writer(&self, addr: DevAddr) -> Option<Writer> {
        let word = self.word_writers.get(&(addr & !7));
        let range = self
            .range_writers
            .iter()
            .rev()
            .find(|(s, e, _)| *s < addr + 8 && *e > addr)
            .map(|(_, _, w)| w);
        let at = |w: &Writer| match w {
            Writer::Task { at_ns, .. } | Writer::Host { at_ns } => *at_ns,
        };
        match (word, range) {
            (Some(a), Some(b)) => Some(if at(b) > at(a) { b.clone() } else { a.clone() }),
            (a, b) => a.or(b).cloned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem() -> Memory {
        Memory::new(2, 1 << 30, 512, 65536, 0xA5)
    }

    #[test]
    fn fresh_memory_is_poison_and_never_written() {
        let mut m = mem();
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

    #[test]
    fn freed_memory_returns_to_poison() {
        let mut m = mem();
        let a = m.malloc(0, 200_000).unwrap();
        m.fill(a, 1, 200_000, Writer::Host { at_ns: 0 }).unwrap();
        m.free(0, a, "by free".into()).unwrap();
        assert_eq!(m.backing_bytes(), 0); // no live allocation overlaps any page
        let b = m.malloc(0, 200_000).unwrap();
        let mut buf = vec![0u8; 200_000];
        assert!(m.read(b, &mut buf).unwrap().never_written);
        assert!(buf.iter().all(|&x| x == 0xA5));
    }

    #[test]
    fn full_page_fills_hold_no_buffer_and_track_writes() {
        let mut m = mem();
        let a = m.malloc(0, 4 * 65536).unwrap();
        m.fill(a, 7, 4 * 65536, Writer::Host { at_ns: 0 }).unwrap();
        assert_eq!(m.backing_bytes(), 0);
        let (v, info) = m.read_u64(a + 65536).unwrap();
        assert_eq!((v, info.never_written), (0x0707_0707_0707_0707, false));
        // A same-byte partial fill of a uniform page changes nothing.
        m.fill(a + 8, 7, 100, Writer::Host { at_ns: 0 }).unwrap();
        assert_eq!(m.backing_bytes(), 0);
        m.write(a + 8, &[1], Writer::Host { at_ns: 0 }).unwrap();
        assert_eq!(m.backing_bytes(), 65536);
        assert_eq!(m.read_u64(a + 8).unwrap().0, 0x0707_0707_0707_0701);
        assert!(!m.read_u64(a + 16).unwrap().1.never_written);
    }

    #[test]
    fn memmove_overlap() {
        let mut m = mem();
        let a = m.malloc(0, 16).unwrap();
        m.write(a, &[1, 2, 3, 4, 5, 6, 7, 8], Writer::Host { at_ns: 0 })
            .unwrap();
        m.copy(a + 2, a, 8, Writer::Host { at_ns: 0 }).unwrap();
        let mut out = [0u8; 10];
        m.read(a, &mut out).unwrap();
        assert_eq!(out, [1, 2, 1, 2, 3, 4, 5, 6, 7, 8]);
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

        #[test]
        fn fills_and_copies_read_back_like_a_plain_buffer(
            ops in proptest::collection::vec(
                (0u8..3, 0u64..400_000, 0u64..400_000, 1u64..200_000, proptest::num::u8::ANY), 1..16)
        ) {
            let mut m = Memory::new(1, 1 << 30, 512, 65536, 0xA5);
            let len = 400_000u64;
            let a = m.malloc(0, len).unwrap();
            let mut shadow = vec![0xA5u8; len as usize];
            let by = Writer::Host { at_ns: 0 };
            for (kind, x, y, n, v) in ops {
                let n = n.min(len - x.max(y));
                let (x, y, nu) = (x as usize, y as usize, n as usize);
                match kind {
                    0 => {
                        m.fill(a + x as u64, v, n, by.clone()).unwrap();
                        shadow[x..x + nu].fill(v);
                    }
                    1 => {
                        m.copy(a + x as u64, a + y as u64, n, by.clone()).unwrap();
                        shadow.copy_within(y..y + nu, x);
                    }
                    _ => {
                        let data: Vec<u8> = (0..nu).map(|i| v.wrapping_add(i as u8)).collect();
                        m.write(a + x as u64, &data, by.clone()).unwrap();
                        shadow[x..x + nu].copy_from_slice(&data);
                    }
                }
            }
            let mut out = vec![0u8; len as usize];
            m.read(a, &mut out).unwrap();
            proptest::prop_assert!(out == shadow);
            m.free(0, a, "by free".into()).unwrap();
            proptest::prop_assert_eq!(m.backing_bytes(), 0);
        }

        #[test]
        fn writes_read_back_like_a_plain_buffer(
            ops in proptest::collection::vec((0u64..300_000, 1usize..70_000, proptest::num::u8::ANY), 1..20)
        ) {
            let mut m = Memory::new(1, 1 << 30, 512, 65536, 0xA5);
            let len = 400_000u64;
            let a = m.malloc(0, len).unwrap();
            let mut shadow = vec![0xA5u8; len as usize];
            for (off, n, v) in ops {
                let n = n.min((len - off) as usize);
                let data: Vec<u8> = (0..n).map(|i| v.wrapping_add(i as u8)).collect();
                m.write(a + off, &data, Writer::Host { at_ns: 0 }).unwrap();
                shadow[off as usize..off as usize + n].copy_from_slice(&data);
            }
            let mut out = vec![0u8; len as usize];
            m.read(a, &mut out).unwrap();
            proptest::prop_assert!(out == shadow);
        }
    }
}
