//! The scalar data cache of one AI core: fully associative, least-recently-used replacement,
//! write-back and write-allocate, whole lines written back (no per-byte dirty mask reaches
//! memory). Each line keeps the bytes this core stored since the line was filled, so the
//! sanitizer can tell the core's own data from bytes it merely cached.
//!
//! The lines live in fixed storage: a table of slots that grows to the cache's capacity and
//! no further, linked in use order, and a pool of line buffers that lines leaving the cache
//! return to ([`DCache::recycle`]). In the steady state a fill, a hit or a write-back
//! allocates nothing.

use rustc_hash::FxHashMap as HashMap;

use crate::memory::Writer;

/// The little-endian 8-byte word of `bytes` holding offset `i` (bytes past the end read 0).
pub fn word_of(bytes: &[u8], i: usize) -> u64 {
    let base = i & !7;
    u64::from_le_bytes(std::array::from_fn(|k| {
        bytes.get(base + k).copied().unwrap_or(0)
    }))
}

/// One line: resident, or taken out of the cache to be written back or dropped.
#[derive(Debug, Clone)]
pub struct DLine {
    /// The cached bytes.
    pub data: Vec<u8>,
    /// Whether the line holds stores not yet written back.
    pub dirty: bool,
    /// Per byte: stored by this core since the fill.
    pub stored: Vec<bool>,
    /// The last store into the line: address, bytes, value, by whom.
    pub last_store: Option<(u64, u32, u64, Writer)>,
    /// A hazard about this line was reported since the fill (said once per line).
    pub reported: bool,
}

impl DLine {
    /// A clean line of `n` bytes (its bytes to be filled).
    fn blank(n: usize) -> DLine {
        DLine {
            data: vec![0; n],
            dirty: false,
            stored: vec![false; n],
            last_store: None,
            reported: false,
        }
    }

    /// An empty placeholder, holding no buffers (no allocation).
    fn none() -> DLine {
        DLine {
            data: Vec::new(),
            dirty: false,
            stored: Vec::new(),
            last_store: None,
            reported: false,
        }
    }
}

/// No slot: the end of the use list.
const NIL: u32 = u32::MAX;

/// A slot of the table: a resident line and its neighbours in use order.
#[derive(Debug)]
struct Slot {
    addr: u64,
    line: DLine,
    /// The next less recently used slot.
    older: u32,
    /// The next more recently used slot.
    newer: u32,
}

/// The data cache of one core.
#[derive(Debug)]
pub struct DCache {
    line: u64,
    capacity: usize,
    slots: Vec<Slot>,
    /// Slots holding no line.
    free: Vec<u32>,
    index: HashMap<u64, u32>,
    /// The least recently used slot, and the most.
    oldest: u32,
    newest: u32,
    /// Line buffers of lines that left the cache, to fill again.
    spare: Vec<DLine>,
}

impl DCache {
    /// An empty cache of `capacity` bytes in lines of `line` bytes (a power of two of at least
    /// 8 bytes; at least one line). Its storage is made as lines arrive, up to the capacity.
    pub fn new(capacity: u64, line: u64) -> DCache {
        let line = line.clamp(8, 4096).next_power_of_two();
        DCache {
            line,
            capacity: (capacity / line).max(1) as usize,
            slots: Vec::new(),
            free: Vec::new(),
            index: HashMap::default(),
            oldest: NIL,
            newest: NIL,
            spare: Vec::new(),
        }
    }

    /// The line size.
    pub fn line_bytes(&self) -> u64 {
        self.line
    }

    /// The line address holding `addr`.
    pub fn line_of(&self, addr: u64) -> u64 {
        addr & !(self.line - 1)
    }

    /// Takes slot `s` out of the use list.
    fn unlink(&mut self, s: u32) {
        let (older, newer) = {
            let slot = &self.slots[s as usize];
            (slot.older, slot.newer)
        };
        match older {
            NIL => self.oldest = newer,
            o => self.slots[o as usize].newer = newer,
        }
        match newer {
            NIL => self.newest = older,
            n => self.slots[n as usize].older = older,
        }
    }

    /// Puts slot `s` at the most recently used end of the list.
    fn push_newest(&mut self, s: u32) {
        let newest = self.newest;
        {
            let slot = &mut self.slots[s as usize];
            slot.older = newest;
            slot.newer = NIL;
        }
        match newest {
            NIL => self.oldest = s,
            n => self.slots[n as usize].newer = s,
        }
        self.newest = s;
    }

    /// The resident line at `line`, marked as just used.
    pub fn touch(&mut self, line: u64) -> Option<&mut DLine> {
        let s = *self.index.get(&line)?;
        if self.newest != s {
            self.unlink(s);
            self.push_newest(s);
        }
        Some(&mut self.slots[s as usize].line)
    }

    /// The resident line at `line`, to change, without marking it used.
    pub fn get_mut(&mut self, line: u64) -> Option<&mut DLine> {
        let s = *self.index.get(&line)?;
        Some(&mut self.slots[s as usize].line)
    }

    /// The resident line at `line`, if any (no change).
    pub fn get(&self, line: u64) -> Option<&DLine> {
        let s = *self.index.get(&line)?;
        Some(&self.slots[s as usize].line)
    }

    /// A clean line buffer to fill (a spare one when there is one): its bytes are then read
    /// into `data` and it is put in with [`DCache::fill`].
    pub fn blank_line(&mut self) -> DLine {
        match self.spare.pop() {
            Some(mut l) => {
                l.stored.fill(false);
                l.dirty = false;
                l.last_store = None;
                l.reported = false;
                l
            }
            None => DLine::blank(self.line as usize),
        }
    }

    /// Gives the buffers of a line that left the cache back for later fills.
    pub fn recycle(&mut self, l: DLine) {
        if l.data.len() == self.line as usize && self.spare.len() < self.capacity {
            self.spare.push(l);
        }
    }

    /// Fills `line` with `l` (a clean line from [`DCache::blank_line`], its bytes read);
    /// returns the line evicted to make room, if any.
    pub fn fill(&mut self, line: u64, mut l: DLine) -> Option<(u64, DLine)> {
        l.dirty = false;
        l.reported = false;
        l.last_store = None;
        if let Some(old) = self.index.get(&line).copied() {
            // Filling a resident line replaces it (not done by the engine; kept sound).
            let was = std::mem::replace(&mut self.slots[old as usize].line, l);
            self.unlink(old);
            self.push_newest(old);
            return Some((line, was));
        }
        let victim = if self.index.len() >= self.capacity {
            let old = self.slots[self.oldest as usize].addr;
            self.remove(old).map(|l| (old, l))
        } else {
            None
        };
        let s = match self.free.pop() {
            Some(s) => {
                let slot = &mut self.slots[s as usize];
                slot.addr = line;
                slot.line = l;
                s
            }
            None => {
                self.slots.push(Slot {
                    addr: line,
                    line: l,
                    older: NIL,
                    newer: NIL,
                });
                (self.slots.len() - 1) as u32
            }
        };
        self.index.insert(line, s);
        self.push_newest(s);
        victim
    }

    /// Takes the line at `line` out of the cache, returning it.
    pub fn remove(&mut self, line: u64) -> Option<DLine> {
        let s = self.index.remove(&line)?;
        self.unlink(s);
        self.free.push(s);
        Some(std::mem::replace(
            &mut self.slots[s as usize].line,
            DLine::none(),
        ))
    }

    /// The resident line addresses, ascending, into `out` (cleared first).
    pub fn lines_into(&self, out: &mut Vec<u64>) {
        out.clear();
        out.extend(self.index.keys().copied());
        out.sort_unstable();
    }

    /// Drops the lines overlapping `[addr, addr+len)` (memory that was freed), returning how
    /// many of them were dirty.
    pub fn discard(&mut self, addr: u64, len: u64) -> u64 {
        let end = addr.saturating_add(len);
        let lines: Vec<u64> = self
            .index
            .keys()
            .copied()
            .filter(|&a| a < end && a.saturating_add(self.line) > addr)
            .collect();
        let mut dirty = 0;
        for a in lines {
            if let Some(l) = self.remove(a) {
                dirty += u64::from(l.dirty);
                self.recycle(l);
            }
        }
        dirty
    }

    /// The dirty lines overlapping `[addr, addr+len)`, by address.
    pub fn dirty_in(&self, addr: u64, len: u64) -> Vec<u64> {
        let end = addr.saturating_add(len);
        let first = self.line_of(addr);
        let count = end.saturating_sub(first).div_ceil(self.line);
        let dirty = |a: &u64| self.get(*a).is_some_and(|l| l.dirty);
        let mut out: Vec<u64> = if count as usize > self.index.len() {
            self.index
                .keys()
                .copied()
                .filter(|&a| a < end && a + self.line > addr)
                .filter(dirty)
                .collect()
        } else {
            (0..count)
                .map(|k| first + k * self.line)
                .filter(dirty)
                .collect()
        };
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(dc: &mut DCache, line: u64, byte: u8) -> Option<(u64, DLine)> {
        let mut l = dc.blank_line();
        l.data.fill(byte);
        dc.fill(line, l)
    }

    #[test]
    fn the_least_recently_used_line_is_evicted() {
        let mut dc = DCache::new(3 * 64, 64);
        for (k, line) in [0u64, 64, 128].into_iter().enumerate() {
            assert!(filled(&mut dc, line, k as u8).is_none());
        }
        dc.touch(0).unwrap();
        let (old, l) = filled(&mut dc, 192, 9).unwrap();
        assert_eq!((old, l.data[0]), (64, 1));
        dc.recycle(l);
        dc.touch(128).unwrap();
        let (old, _) = filled(&mut dc, 256, 9).unwrap();
        assert_eq!(old, 0);
        let mut lines = Vec::new();
        dc.lines_into(&mut lines);
        assert_eq!(lines, [128, 192, 256]);
    }

    #[test]
    fn a_recycled_line_comes_back_clean() {
        let mut dc = DCache::new(64, 64);
        filled(&mut dc, 0, 1);
        let l = dc.touch(0).unwrap();
        l.stored[3] = true;
        l.dirty = true;
        l.reported = true;
        let l = dc.remove(0).unwrap();
        assert!(dc.get(0).is_none());
        dc.recycle(l);
        let l = dc.blank_line();
        assert!(!l.dirty && !l.reported && l.stored.iter().all(|&b| !b));
        assert_eq!(l.data.len(), 64);
    }

    #[test]
    fn removing_and_filling_in_any_order_keeps_the_use_order() {
        let mut dc = DCache::new(4 * 8, 8);
        let mut model: Vec<u64> = Vec::new(); // oldest first
        let mut x = 7u64;
        for _ in 0..2_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let line = ((x >> 33) % 7) * 8;
            match (x >> 20) % 3 {
                0 => {
                    if let Some(l) = dc.remove(line) {
                        dc.recycle(l);
                    }
                    model.retain(|&a| a != line);
                }
                1 => {
                    assert_eq!(dc.touch(line).is_some(), model.contains(&line));
                    if let Some(p) = model.iter().position(|&a| a == line) {
                        model.remove(p);
                        model.push(line);
                    }
                }
                _ => {
                    if dc.get(line).is_none() {
                        let evicted = filled(&mut dc, line, 0).map(|(a, _)| a);
                        let expect = (model.len() == 4).then(|| model.remove(0));
                        assert_eq!(evicted, expect);
                        model.push(line);
                    }
                }
            }
            let mut lines = Vec::new();
            dc.lines_into(&mut lines);
            let mut sorted = model.clone();
            sorted.sort_unstable();
            assert_eq!(lines, sorted);
        }
    }
}
