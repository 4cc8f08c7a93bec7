//! Device memory: one address space per device, lazily backed in pages, bounds-checked against
//! live allocations, with never-written tracking per 8-byte word.
//!
//! Device `d`'s window starts at [`DEVICE_WINDOW_BASE`]` + d * 2^40`, so device addresses never
//! alias host memory or each other and stay below 2^47. Pages are allocated only when written,
//! so a 64 GiB device costs only what is touched. A page that was never written reads as the
//! poison byte.

use std::collections::BTreeMap;

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
        stream: u32,
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

/// One backing page: data plus a bitmap of written 8-byte words.
#[derive(Debug)]
struct Page {
    data: Vec<u8>,
    written: Vec<u64>,
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

/// Per-device memory state.
#[derive(Debug)]
struct DeviceMem {
    base: u64,
    allocs: BTreeMap<u64, Alloc>,
    freed: BTreeMap<u64, Freed>,
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
    /// Last writer per 8-byte word, kept for small writes (value writes and the like).
    word_writers: BTreeMap<u64, Writer>,
    /// Recent large writes (bounded), searched newest first.
    range_writers: Vec<(u64, u64, Writer)>,
}

const RANGE_WRITER_LOG: usize = 256;
const SMALL_WRITE: u64 = 64;

impl Memory {
    /// Memory for `devices` devices of `capacity` bytes each.
    pub fn new(devices: u32, capacity: u64, alignment: u64, page_bytes: u64, poison: u8) -> Self {
        let capacity = capacity.min(DEVICE_WINDOW_BYTES);
        let page_bytes = page_bytes.max(64).next_power_of_two();
        Memory {
            devices: (0..devices as u64)
                .map(|d| DeviceMem {
                    base: DEVICE_WINDOW_BASE + d * DEVICE_WINDOW_BYTES,
                    allocs: BTreeMap::new(),
                    freed: BTreeMap::new(),
                    used: 0,
                })
                .collect(),
            capacity,
            alignment: alignment.max(8).next_power_of_two(),
            page_bytes,
            poison,
            pages: BTreeMap::new(),
            word_writers: BTreeMap::new(),
            range_writers: Vec::new(),
        }
    }

    /// The poison byte.
    pub fn poison(&self) -> u8 {
        self.poison
    }

    /// Bytes of backing store actually held (pages touched by writes).
    pub fn backing_bytes(&self) -> u64 {
        self.pages.len() as u64 * self.page_bytes
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

    /// First-fit allocation of `bytes`, aligned to the base alignment.
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
        let mut cursor = 0u64;
        let mut found = None;
        for (&base, a) in &dev.allocs {
            let off = base - dev.base;
            if off >= cursor && off - cursor >= rounded {
                found = Some(cursor);
                break;
            }
            let end = (off + a.len + align - 1) & !(align - 1);
            cursor = cursor.max(end);
        }
        let off = match found {
            Some(o) => o,
            None if capacity.saturating_sub(cursor) >= rounded => cursor,
            None => return Err(oom),
        };
        let base = dev.base + off;
        dev.allocs.insert(base, Alloc { len: bytes.max(1) });
        dev.used += rounded;
        // Forget freed ranges the new allocation overlaps.
        let stale: Vec<u64> = dev
            .freed
            .range(..base + rounded)
            .filter(|(&b, f)| b + f.len > base)
            .map(|(&b, _)| b)
            .collect();
        for b in stale {
            dev.freed.remove(&b);
        }
        tracing::debug!(device, bytes, addr = format_args!("{base:#x}"), "malloc");
        Ok(base)
    }

    /// Frees the allocation at `addr`; its memory returns to poison and never-written.
    pub fn free(&mut self, device: u32, addr: DevAddr, by: String) -> Result<(), SimError> {
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
        dev.used -= (a.len + align - 1) & !(align - 1);
        dev.freed.insert(addr, Freed { len: a.len, by });
        self.reset_range(addr, a.len);
        Ok(())
    }

    /// Returns the range to poison / never-written and drops pages it fully covers.
    fn reset_range(&mut self, addr: u64, len: u64) {
        let pb = self.page_bytes;
        let end = addr + len;
        let first = addr / pb;
        let last = (end - 1) / pb;
        let keys: Vec<u64> = self.pages.range(first..=last).map(|(&k, _)| k).collect();
        for k in keys {
            let ps = k * pb;
            let (lo, hi) = (addr.max(ps), end.min(ps + pb));
            if lo == ps && hi == ps + pb {
                self.pages.remove(&k);
            } else if let Some(p) = self.pages.get_mut(&k) {
                p.data[(lo - ps) as usize..(hi - ps) as usize].fill(self.poison);
                for w in (lo - ps) / 8..(hi - ps).div_ceil(8) {
                    p.written[(w / 64) as usize] &= !(1u64 << (w % 64));
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
                Some(p) => {
                    out[pos..pos + n].copy_from_slice(&p.data[off as usize..off as usize + n]);
                    if !never_written {
                        for w in off / 8..(off + n as u64).div_ceil(8) {
                            if p.written[(w / 64) as usize] & (1u64 << (w % 64)) == 0 {
                                never_written = true;
                                break;
                            }
                        }
                    }
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

    /// Reads the little-endian 64-bit word at `addr` (bounds-checked).
    pub fn read_u64(&self, addr: DevAddr) -> Result<(u64, ReadInfo), SimError> {
        let mut b = [0u8; 8];
        let info = self.read(addr, &mut b)?;
        Ok((u64::from_le_bytes(b), info))
    }

    /// Writes device memory (bounds-checked), recording the writer.
    pub fn write(&mut self, addr: DevAddr, data: &[u8], by: Writer) -> Result<(), SimError> {
        self.check(addr, data.len() as u64)?;
        self.write_with(addr, data.len() as u64, by, |dst, pos| {
            dst.copy_from_slice(&data[pos..pos + dst.len()])
        });
        Ok(())
    }

    /// Fills device memory with a byte (bounds-checked).
    pub fn fill(&mut self, addr: DevAddr, value: u8, len: u64, by: Writer) -> Result<(), SimError> {
        self.check(addr, len)?;
        self.write_with(addr, len, by, |dst, _| dst.fill(value));
        Ok(())
    }

    /// Device-to-device copy with memmove semantics (bounds-checked).
    pub fn copy(
        &mut self,
        dst: DevAddr,
        src: DevAddr,
        len: u64,
        by: Writer,
    ) -> Result<(), SimError> {
        self.check(src, len)?;
        self.check(dst, len)?;
        let mut buf = vec![0u8; len as usize];
        self.read_unchecked(src, &mut buf);
        self.write_with(dst, len, by, |d, pos| {
            d.copy_from_slice(&buf[pos..pos + d.len()])
        });
        Ok(())
    }

    fn write_with(&mut self, addr: u64, len: u64, by: Writer, mut f: impl FnMut(&mut [u8], usize)) {
        if len == 0 {
            return;
        }
        let pb = self.page_bytes;
        let mut pos = 0u64;
        while pos < len {
            let a = addr + pos;
            let (k, off) = (a / pb, a % pb);
            let n = (pb - off).min(len - pos);
            let poison = self.poison;
            let p = self.pages.entry(k).or_insert_with(|| Page {
                data: vec![poison; pb as usize],
                written: vec![0; (pb / 8).div_ceil(64) as usize],
            });
            f(&mut p.data[off as usize..(off + n) as usize], pos as usize);
            for w in off / 8..(off + n).div_ceil(8) {
                p.written[(w / 64) as usize] |= 1u64 << (w % 64);
            }
            pos += n;
        }
        if len <= SMALL_WRITE {
            let mut w = addr & !7;
            while w < addr + len {
                self.word_writers.insert(w, by.clone());
                w += 8;
            }
        } else {
            if self.range_writers.len() >= RANGE_WRITER_LOG {
                self.range_writers.remove(0);
            }
            self.range_writers.push((addr, addr + len, by));
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
        assert_eq!(m.backing_bytes(), 65536); // only the partial last page is kept
        let b = m.malloc(0, 200_000).unwrap();
        let mut buf = vec![0u8; 200_000];
        assert!(m.read(b, &mut buf).unwrap().never_written);
        assert!(buf.iter().all(|&x| x == 0xA5));
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

    proptest::proptest! {
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
