//! The scalar data cache of one AI core: fully associative, least-recently-used replacement,
//! write-back and write-allocate, whole lines written back (no per-byte dirty mask reaches
//! memory). Each line keeps the bytes this core stored since the line was filled, so the
//! sanitizer can tell the core's own data from bytes it merely cached.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;

use crate::memory::Writer;

/// The little-endian 8-byte word of `bytes` holding offset `i` (bytes past the end read 0).
pub fn word_of(bytes: &[u8], i: usize) -> u64 {
    let base = i & !7;
    u64::from_le_bytes(std::array::from_fn(|k| {
        bytes.get(base + k).copied().unwrap_or(0)
    }))
}

/// One resident line.
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
    last_use: u64,
}

/// The data cache of one core.
#[derive(Debug)]
pub struct DCache {
    line: u64,
    capacity: usize,
    lines: HashMap<u64, DLine>,
    by_use: BTreeMap<u64, u64>,
    clock: u64,
}

impl DCache {
    /// An empty cache of `capacity` bytes in lines of `line` bytes (a power of two of at least
    /// 8 bytes; at least one line).
    pub fn new(capacity: u64, line: u64) -> DCache {
        let line = line.clamp(8, 4096).next_power_of_two();
        DCache {
            line,
            capacity: (capacity / line).max(1) as usize,
            lines: HashMap::default(),
            by_use: BTreeMap::new(),
            clock: 0,
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

    /// The resident line at `line`, marked as just used.
    pub fn touch(&mut self, line: u64) -> Option<&mut DLine> {
        self.clock += 1;
        let clock = self.clock;
        let l = self.lines.get_mut(&line)?;
        self.by_use.remove(&l.last_use);
        l.last_use = clock;
        self.by_use.insert(clock, line);
        Some(l)
    }

    /// The resident line at `line`, to change, without marking it used.
    pub fn get_mut(&mut self, line: u64) -> Option<&mut DLine> {
        self.lines.get_mut(&line)
    }

    /// The resident line at `line`, if any (no change).
    pub fn get(&self, line: u64) -> Option<&DLine> {
        self.lines.get(&line)
    }

    /// Fills `line` with `data` (clean); returns the line evicted to make room, if any.
    pub fn fill(&mut self, line: u64, data: Vec<u8>) -> Option<(u64, DLine)> {
        let victim = if self.lines.len() >= self.capacity {
            let (_, &old) = self.by_use.iter().next().expect("a full cache has a line");
            self.remove(old).map(|l| (old, l))
        } else {
            None
        };
        self.clock += 1;
        let n = self.line as usize;
        self.lines.insert(
            line,
            DLine {
                data,
                dirty: false,
                stored: vec![false; n],
                last_store: None,
                reported: false,
                last_use: self.clock,
            },
        );
        self.by_use.insert(self.clock, line);
        victim
    }

    /// Drops the line at `line`, returning it.
    pub fn remove(&mut self, line: u64) -> Option<DLine> {
        let l = self.lines.remove(&line)?;
        self.by_use.remove(&l.last_use);
        Some(l)
    }

    /// Drops every line, returning them by address.
    pub fn take_all(&mut self) -> Vec<(u64, DLine)> {
        self.by_use.clear();
        let mut all: Vec<(u64, DLine)> = self.lines.drain().collect();
        all.sort_unstable_by_key(|(a, _)| *a);
        all
    }

    /// Drops the lines overlapping `[addr, addr+len)` (memory that was freed), returning how
    /// many of them were dirty.
    pub fn discard(&mut self, addr: u64, len: u64) -> u64 {
        let end = addr.saturating_add(len);
        let lines: Vec<u64> = self
            .lines
            .keys()
            .copied()
            .filter(|&a| a < end && a.saturating_add(self.line) > addr)
            .collect();
        lines
            .into_iter()
            .filter_map(|a| self.remove(a))
            .filter(|l| l.dirty)
            .count() as u64
    }

    /// The dirty lines overlapping `[addr, addr+len)`, by address.
    pub fn dirty_in(&self, addr: u64, len: u64) -> Vec<u64> {
        let end = addr.saturating_add(len);
        let first = self.line_of(addr);
        let count = end.saturating_sub(first).div_ceil(self.line);
        let mut out: Vec<u64> = if count as usize > self.lines.len() {
            self.lines
                .iter()
                .filter(|(&a, l)| l.dirty && a < end && a + self.line > addr)
                .map(|(&a, _)| a)
                .collect()
        } else {
            (0..count)
                .map(|k| first + k * self.line)
                .filter(|a| self.lines.get(a).is_some_and(|l| l.dirty))
                .collect()
        };
        out.sort_unstable();
        out
    }
}
