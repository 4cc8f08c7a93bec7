//! The L2 cache of one device: set-associative, least-recently-used replacement, write-back
//! and write-allocate, lines invalid (absent), clean or dirty.
//!
//! Memory ([`Memory`]) always holds what an agent reading through the L2 sees. Where the L2's
//! copy of a line differs from the memory underneath (HBM), the L2 keeps an [`Image`] of what
//! HBM holds: a dirty line always has one; a clean line has one when an agent wrote around the
//! L2 after the line was filled (the line is *stale*). Writing a dirty line back (eviction,
//! WRITEBACK, FLUSH) drops the image; dropping a line without write-back (INVALID, or evicting
//! or flushing a stale clean line) puts the image back into memory. So an INVALID of a dirty
//! line loses its writes, as on hardware, and an INVALID of a stale line makes the bytes
//! written around the L2 visible. Accesses around the L2 are in `around.rs`.
//!
//! A range larger than the whole L2 is modelled as streaming through it: what was resident is
//! evicted (dirty lines written back) and the range's last lines, as many as the L2 holds,
//! stay resident. This keeps a multi-GiB copy or fill proportional to the L2, not the range.

use rustc_hash::FxHashMap as HashMap;

use super::around::{AroundWrite, L2Event};
use crate::memory::{Image, Memory};
use crate::types::CmoType;

/// One resident line.
#[derive(Debug, Clone, Copy)]
struct Way {
    line: u64,
    dirty: bool,
    last_use: u64,
}

/// Counters of one L2.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct L2Stats {
    /// Line accesses that found the line resident.
    pub hits: u64,
    /// Line accesses that had to fill the line from memory.
    pub misses: u64,
    /// Dirty lines written back because they were evicted.
    pub dirty_evictions: u64,
    /// Bytes written back to memory (evictions, WRITEBACK, FLUSH).
    pub bytes_written_back: u64,
    /// Dirty lines an INVALID dropped without write-back.
    pub dirty_lines_dropped: u64,
    /// Writes an agent made around the L2 to memory under a resident line.
    pub writes_around: u64,
}

/// What a CMO did to the L2.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CmoOutcome {
    /// Lines the operation acted on (filled, written back or dropped).
    pub lines: u64,
    /// Bytes written back to memory.
    pub bytes_written_back: u64,
    /// Bytes read from memory to fill lines (PREFETCH).
    pub bytes_filled: u64,
    /// Start addresses of the dirty lines an INVALID dropped (their writes are lost).
    pub lost_lines: Vec<u64>,
    /// True when the range was not aligned to lines, so whole lines beyond it were acted on.
    pub partial: bool,
}

/// The L2 of one device.
#[derive(Debug)]
pub struct L2 {
    pub(super) line: u64,
    ways: usize,
    sets: u64,
    resident: HashMap<u64, Vec<Way>>,
    /// Lines in `resident`, kept so that asking costs nothing.
    resident_count: u64,
    /// What memory underneath holds, for each line whose L2 copy differs from it (every
    /// dirty line, and stale clean ones).
    pub(super) underneath: HashMap<u64, Image>,
    /// The writes made around the L2 under each resident line since it was filled.
    pub(super) around: HashMap<u64, Vec<AroundWrite>>,
    /// What the sanitizer should hear of, drained by [`L2::take_events`].
    pub(super) events: Vec<L2Event>,
    /// Lines whose memory or L2 copy changed without an agent's write (restored or written
    /// back), drained by [`L2::take_changed`]; watchers of those words must look again.
    changed: Vec<u64>,
    clock: u64,
    pub(super) stats: L2Stats,
}

impl L2 {
    /// An empty L2 of `capacity` bytes in lines of `line` bytes, `ways`-way associative. The
    /// line is rounded to a power of two of at least 8 bytes; there is at least one set.
    pub fn new(capacity: u64, line: u64, ways: u32) -> L2 {
        let line = line.clamp(8, 1 << 20).next_power_of_two();
        let ways = ways.max(1) as usize;
        let sets = (capacity / line / ways as u64).max(1);
        L2 {
            line,
            ways,
            sets,
            resident: HashMap::default(),
            resident_count: 0,
            underneath: HashMap::default(),
            around: HashMap::default(),
            events: Vec::new(),
            changed: Vec::new(),
            clock: 0,
            stats: L2Stats::default(),
        }
    }

    /// The line size.
    pub fn line_bytes(&self) -> u64 {
        self.line
    }

    /// How many lines the L2 holds.
    pub fn capacity_lines(&self) -> u64 {
        self.sets * self.ways as u64
    }

    /// The counters so far.
    pub fn stats(&self) -> L2Stats {
        self.stats
    }

    /// Whether the line holding `addr` is resident, and dirty.
    pub fn state_of(&self, addr: u64) -> Option<bool> {
        let line = addr & !(self.line - 1);
        self.resident
            .get(&self.set_of(line))?
            .iter()
            .find(|w| w.line == line)
            .map(|w| w.dirty)
    }

    /// Resident lines.
    pub fn resident_lines(&self) -> u64 {
        self.resident_count
    }

    /// What happened since the last call that the sanitizer reports (clobbers, stale reads).
    pub fn take_events(&mut self) -> Vec<L2Event> {
        std::mem::take(&mut self.events)
    }

    /// True when events or changed lines wait to be taken.
    pub fn has_news(&self) -> bool {
        !self.events.is_empty() || !self.changed.is_empty()
    }

    /// The lines whose data changed by write-back or restore since the last call.
    pub fn take_changed(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.changed)
    }

    fn set_of(&self, line: u64) -> u64 {
        (line / self.line) % self.sets
    }

    /// The lines `[addr, addr+len)` touches: first line address and count.
    pub(super) fn lines_of(&self, addr: u64, len: u64) -> (u64, u64) {
        let first = addr & !(self.line - 1);
        let end = addr.saturating_add(len.max(1));
        let last = (end - 1) & !(self.line - 1);
        (first, (last - first) / self.line + 1)
    }

    /// An agent reads (`write` false) or writes `[addr, addr+len)` through the L2; call it
    /// before a write reaches `mem`. Returns the hits and misses, in lines.
    /// A read that hits a line holding bytes written around the L2 sees the L2's older copy:
    /// that is reported as a stale read ([`L2::take_events`]).
    pub fn access(&mut self, mem: &mut Memory, addr: u64, len: u64, write: bool) -> (u64, u64) {
        self.lines_through(mem, addr, len, write, true)
    }

    /// [`L2::access`], reporting stale reads only when `agent_read`.
    fn lines_through(
        &mut self,
        mem: &mut Memory,
        addr: u64,
        len: u64,
        write: bool,
        agent_read: bool,
    ) -> (u64, u64) {
        if len == 0 {
            return (0, 0);
        }
        let (mut first, mut count) = self.lines_of(addr, len);
        if write && !self.around.is_empty() {
            // A write through the L2 is newer than the writes around it under its lines.
            let end = addr.saturating_add(len);
            for line in self.resident_in(first, count) {
                self.supersede_around(line, addr, end);
            }
        }
        let mut streamed = 0;
        if count > self.capacity_lines() {
            // Streaming through: everything resident goes, the range's tail stays.
            self.evict_all(mem);
            streamed = count - self.capacity_lines();
            first += streamed * self.line;
            count = self.capacity_lines();
        }
        let (mut hits, mut misses) = (0, streamed);
        for i in 0..count {
            let line = first + i * self.line;
            if self.touch(mem, line, write) {
                hits += 1;
                if agent_read && !write && self.around.contains_key(&line) {
                    self.check_stale_read(mem, line, addr, len);
                }
            } else {
                misses += 1;
            }
        }
        self.stats.hits += hits;
        self.stats.misses += misses;
        (hits, misses)
    }

    /// Touches one line; true on a hit.
    fn touch(&mut self, mem: &mut Memory, line: u64, write: bool) -> bool {
        self.clock += 1;
        let clock = self.clock;
        let set = self.set_of(line);
        let ways = self.ways;
        let lb = self.line;
        let slots = self.resident.entry(set).or_default();
        if let Some(w) = slots.iter_mut().find(|w| w.line == line) {
            w.last_use = clock;
            if write && !w.dirty {
                w.dirty = true;
                // A stale line keeps the image it has: memory still differs from it.
                self.underneath
                    .entry(line)
                    .or_insert_with(|| mem.image(line, lb));
            }
            return true;
        }
        if slots.len() >= ways {
            let (i, _) = slots
                .iter()
                .enumerate()
                .min_by_key(|(_, w)| w.last_use)
                .expect("a full set has a way");
            let victim = slots.swap_remove(i);
            self.resident_count -= 1;
            self.retire(mem, victim.line, victim.dirty, "eviction");
            if victim.dirty {
                self.stats.dirty_evictions += 1;
            }
        }
        let slots = self.resident.entry(set).or_default();
        slots.push(Way {
            line,
            dirty: write,
            last_use: clock,
        });
        self.resident_count += 1;
        if write {
            self.underneath.insert(line, mem.image(line, lb));
        }
        false
    }

    /// A line leaves the L2 (`cause` names why, for reports): a dirty one is written back,
    /// a stale clean one leaves memory as the writes around the L2 made it.
    fn retire(&mut self, mem: &mut Memory, line: u64, dirty: bool, cause: &'static str) {
        if dirty {
            self.write_back(mem, line, cause);
        } else if let Some(image) = self.underneath.remove(&line) {
            mem.restore(line, self.line, &image);
            self.around.remove(&line);
            self.changed.push(line);
        }
    }

    /// Writes the dirty line `line` back: memory underneath takes the L2's copy. Bytes an
    /// agent wrote around the L2 since the line was filled are overwritten (a clobber, reported
    /// where the data differed).
    fn write_back(&mut self, mem: &Memory, line: u64, cause: &'static str) {
        let image = self.underneath.remove(&line);
        let writes = self.around.remove(&line);
        if let (Some(image), Some(writes)) = (image, writes) {
            self.check_clobber(mem, line, &image, writes, cause);
        }
        self.stats.bytes_written_back += self.line;
        self.changed.push(line);
    }

    /// Evicts every line, writing dirty ones back.
    fn evict_all(&mut self, mem: &mut Memory) {
        let mut ways: Vec<Way> = self.resident.drain().flat_map(|(_, w)| w).collect();
        // In address order, so that write-backs, their reports and wake-ups are deterministic.
        ways.sort_unstable_by_key(|w| w.line);
        self.resident_count = 0;
        for w in ways {
            self.retire(mem, w.line, w.dirty, "eviction");
            if w.dirty {
                self.stats.dirty_evictions += 1;
            }
        }
    }

    /// The resident lines inside `[first, first + count lines)`, by address.
    pub(super) fn resident_in(&self, first: u64, count: u64) -> Vec<u64> {
        let end = first.saturating_add(count.saturating_mul(self.line));
        let mut lines: Vec<u64> = if count > self.resident_lines() {
            self.resident
                .values()
                .flatten()
                .map(|w| w.line)
                .filter(|l| (first..end).contains(l))
                .collect()
        } else {
            (0..count)
                .map(|i| first.saturating_add(i * self.line))
                .filter(|&l| self.state_of(l).is_some())
                .collect()
        };
        lines.sort_unstable();
        lines
    }

    fn remove(&mut self, line: u64) {
        let set = self.set_of(line);
        if let Some(slots) = self.resident.get_mut(&set) {
            let before = slots.len();
            slots.retain(|w| w.line != line);
            self.resident_count -= (before - slots.len()) as u64;
            if slots.is_empty() {
                self.resident.remove(&set);
            }
        }
    }

    fn mark_clean(&mut self, line: u64) {
        let set = self.set_of(line);
        if let Some(w) = self
            .resident
            .get_mut(&set)
            .and_then(|s| s.iter_mut().find(|w| w.line == line))
        {
            w.dirty = false;
        }
    }

    /// The lines `[addr, addr+len)` touches: how many in all, how many are resident, and how
    /// many of those are dirty (without changing anything; proportional to the lines resident,
    /// not to the range).
    pub fn census(&self, addr: u64, len: u64) -> (u64, u64, u64) {
        if len == 0 {
            return (0, 0, 0);
        }
        let (first, count) = self.lines_of(addr, len);
        let resident = self.resident_in(first, count);
        let dirty = resident
            .iter()
            .filter(|&&l| self.state_of(l) == Some(true))
            .count() as u64;
        (count, resident.len() as u64, dirty)
    }

    /// Applies a cache-maintenance operation to the lines `[addr, addr+len)` touches. The
    /// time it costs is proportional to the lines resident in the range (PREFETCH: to the
    /// lines it fills, at most the L2's capacity), not to the range.
    pub fn cmo(&mut self, mem: &mut Memory, op: CmoType, addr: u64, len: u64) -> CmoOutcome {
        let mut out = CmoOutcome {
            partial: len > 0
                && (!addr.is_multiple_of(self.line)
                    || !addr.saturating_add(len).is_multiple_of(self.line)),
            ..CmoOutcome::default()
        };
        if len == 0 {
            return out;
        }
        let (first, count) = self.lines_of(addr, len);
        let lb = self.line;
        match op {
            CmoType::Prefetch => {
                // A fill is no agent's read: it reports no stale data.
                let (hits, misses) = self.lines_through(mem, addr, len, false, false);
                out.lines = hits + misses.min(self.capacity_lines());
                out.bytes_filled = misses.min(self.capacity_lines()) * lb;
            }
            CmoType::Writeback | CmoType::Flush => {
                let cause = op.name();
                for line in self.resident_in(first, count) {
                    let dirty = self.state_of(line) == Some(true);
                    if dirty {
                        self.write_back(mem, line, cause);
                        out.bytes_written_back += lb;
                    }
                    if op == CmoType::Flush {
                        self.retire(mem, line, false, cause);
                        self.remove(line);
                    } else {
                        self.mark_clean(line);
                    }
                    out.lines += 1;
                }
            }
            CmoType::Invalid => {
                for (line, dirty) in self.take_lines_in(first, count) {
                    if let Some(image) = self.underneath.remove(&line) {
                        // A dirty line holding what memory holds loses nothing.
                        if dirty && !mem.image(line, lb).same_bytes(&image, lb as usize) {
                            out.lost_lines.push(line);
                        }
                        mem.restore(line, lb, &image);
                        self.changed.push(line);
                    }
                    if !self.around.is_empty() {
                        self.around.remove(&line);
                    }
                    out.lines += 1;
                }
                self.stats.dirty_lines_dropped += out.lost_lines.len() as u64;
            }
        }
        out
    }

    /// Forgets the lines `[addr, addr+len)` touches without writing anything (the memory was
    /// freed: neither what the lines hold nor what is underneath matters any more).
    pub fn discard(&mut self, addr: u64, len: u64) {
        if len == 0 {
            return;
        }
        let (first, count) = self.lines_of(addr, len);
        for (line, _) in self.take_lines_in(first, count) {
            self.underneath.remove(&line);
            self.around.remove(&line);
        }
    }

    /// Removes the resident lines inside `[first, first + count lines)` and returns them with
    /// their dirty flags, by address. Proportional to the lines resident: a range of more
    /// lines than are resident is one pass over the sets.
    fn take_lines_in(&mut self, first: u64, count: u64) -> Vec<(u64, bool)> {
        let end = first.saturating_add(count.saturating_mul(self.line));
        let mut taken = Vec::new();
        if count > self.resident_count {
            self.resident.retain(|_, ways| {
                ways.retain(|w| {
                    let inside = (first..end).contains(&w.line);
                    if inside {
                        taken.push((w.line, w.dirty));
                    }
                    !inside
                });
                !ways.is_empty()
            });
            self.resident_count -= taken.len() as u64;
            taken.sort_unstable();
        } else {
            for line in self.resident_in(first, count) {
                let dirty = self.state_of(line) == Some(true);
                self.remove(line);
                taken.push((line, dirty));
            }
        }
        taken
    }
}
