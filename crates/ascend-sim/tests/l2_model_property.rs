//! The L2 against a reference model, by property test.
//!
//! The reference keeps, per byte of one small buffer, what memory underneath (HBM) holds, and
//! per resident line its state (clean or dirty), its own copy of the line's bytes, the time of
//! its last use and which of its bytes an agent wrote around the L2 since it was filled (and no
//! write through the L2 has superseded). Set indexing, least-recently-used replacement by last
//! use, write-allocate, streaming of ranges larger than the L2 and the order in which an access
//! touches lines (reads before writes) follow `docs/l2-cache.md` and `src/cache/l2.rs`.
//!
//! Each case picks a tiny L2 (so that evictions happen), whether the scheduler and the copy
//! engine go through the L2 or around it, and a random sequence of value writes, value waits
//! (on the value the reference predicts, so that the first poll releases them), memsets and
//! device-to-device memcpys on one stream, host writes, fills, copies and reads, and the four
//! CMOs, on random, possibly unaligned ranges. It compares every host read and, at the end,
//! what an agent reads before and after a FLUSH of the whole buffer, the hazards of each class
//! (`clobber`, `stale_read`, `lost_write`, `partial_line`, and no `never_written_read`), the
//! L2's counters and each CMO's record.
//!
//! Cases: 64 by default; `PROPTEST_CASES` overrides it.
//!
//! The tests at the end pin down cases the property test found: a streaming write, a copy
//! whose destination evicts its source, and the order of a streaming eviction's reports.

mod common;

use std::collections::BTreeMap;

use ascend_sim::cache::L2Stats;
use ascend_sim::*;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// The buffer the operations act on: 8 lines.
const BUF: u64 = 4096;
/// The L2's line (set explicitly in the chip).
const LINE: u64 = 512;
/// (l2_bytes, l2_ways): 1 to 4 sets, 1 to 4 ways, 2 to 4 lines in all.
const GEOMETRIES: [(u64, u32); 5] = [(2048, 2), (1024, 2), (2048, 1), (2048, 4), (1024, 1)];

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

// ----- operations -----

/// One step of a sequence; offsets are relative to the buffer.
#[derive(Debug, Clone)]
enum Op {
    /// A value write task (scheduler).
    ValueWrite { off: u64, value: u64 },
    /// A value wait task (scheduler) on the value the reference predicts.
    ValueWait { off: u64 },
    /// A memset task (copy engine).
    Memset { off: u64, len: u64, value: u8 },
    /// A device-to-device memcpy task (copy engine).
    Memcpy { dst: u64, src: u64, len: u64 },
    /// `Sim::write` of bytes `seed, seed+1, ...` (copy engine).
    HostWrite { off: u64, len: u64, seed: u8 },
    /// `Sim::fill` (copy engine).
    HostFill { off: u64, len: u64, value: u8 },
    /// `Sim::copy` (copy engine).
    HostCopy { dst: u64, src: u64, len: u64 },
    /// `Sim::read` (copy engine), compared with the reference.
    HostRead { off: u64, len: u64 },
    /// A CMO task.
    Cmo { op: CmoType, off: u64, len: u64 },
}

impl Op {
    fn is_task(&self) -> bool {
        matches!(
            self,
            Op::ValueWrite { .. }
                | Op::ValueWait { .. }
                | Op::Memset { .. }
                | Op::Memcpy { .. }
                | Op::Cmo { .. }
        )
    }
}

/// A range inside the buffer: small and unaligned, up to a little more than the L2, or whole
/// lines.
fn range() -> impl Strategy<Value = (u64, u64)> {
    prop_oneof![
        3 => (0..BUF, 1..=600u64),
        2 => (0..BUF, 1..=2600u64),
        2 => (0..BUF / LINE, 1..=5u64).prop_map(|(l, n)| (l * LINE, n * LINE)),
    ]
    .prop_map(|(off, len)| (off, len.min(BUF - off)))
}

/// Destination, source and length of a copy inside the buffer (they may overlap).
fn copy_range() -> impl Strategy<Value = (u64, u64, u64)> {
    (0..BUF, 0..BUF, 1..=1200u64).prop_map(|(d, s, l)| (d, s, l.min(BUF - d.max(s))))
}

fn cmo_type() -> impl Strategy<Value = CmoType> {
    prop_oneof![
        Just(CmoType::Prefetch),
        Just(CmoType::Writeback),
        Just(CmoType::Invalid),
        Just(CmoType::Flush),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..=BUF - 8, any::<u64>()).prop_map(|(off, value)| Op::ValueWrite { off, value }),
        1 => (0..BUF / 8).prop_map(|w| Op::ValueWait { off: w * 8 }),
        3 => (range(), any::<u8>()).prop_map(|((off, len), value)| Op::Memset { off, len, value }),
        1 => copy_range().prop_map(|(dst, src, len)| Op::Memcpy { dst, src, len }),
        2 => (range(), any::<u8>()).prop_map(|((off, len), seed)| Op::HostWrite { off, len, seed }),
        1 => (range(), any::<u8>()).prop_map(|((off, len), value)| Op::HostFill { off, len, value }),
        1 => copy_range().prop_map(|(dst, src, len)| Op::HostCopy { dst, src, len }),
        2 => range().prop_map(|(off, len)| Op::HostRead { off, len }),
        5 => (cmo_type(), range()).prop_map(|(op, (off, len))| Op::Cmo { op, off, len }),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    scheduler_via_l2: bool,
    copy_engine_via_l2: bool,
    geometry: (u64, u32),
    ops: Vec<Op>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(GEOMETRIES.to_vec()),
        prop::collection::vec(op(), 1..40),
    )
        .prop_map(
            |(scheduler_via_l2, copy_engine_via_l2, geometry, ops)| Case {
                scheduler_via_l2,
                copy_engine_via_l2,
                geometry,
                ops,
            },
        )
}

// ----- the reference model -----

/// One resident line.
#[derive(Debug, Clone)]
struct Line {
    dirty: bool,
    /// The L2's copy of the line.
    data: Vec<u8>,
    /// Bytes written around the L2 since the line was filled and not written through it since.
    around: Vec<bool>,
    last_use: u64,
}

/// Hazards by class.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Hazards {
    clobber: u64,
    stale_read: u64,
    lost_write: u64,
    partial_line: u64,
    never_written_read: u64,
}

/// What the run report says of one CMO task.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cmo {
    op: String,
    lines: u64,
    bytes_written_back: u64,
    bytes_filled: u64,
    lines_lost: u64,
    partial: bool,
}

struct Model {
    base: u64,
    lb: u64,
    sets: u64,
    ways: usize,
    /// Memory underneath, one byte per byte of the buffer.
    hbm: Vec<u8>,
    /// Resident lines by address.
    lines: BTreeMap<u64, Line>,
    clock: u64,
    hazards: Hazards,
    /// The lines the current access saw stale (reported unless evicted before the data moves).
    stale_lines: Vec<u64>,
    stats: L2Stats,
    cmos: Vec<Cmo>,
}

impl Model {
    fn new(base: u64, (l2_bytes, ways): (u64, u32), poison: u8) -> Model {
        Model {
            base,
            lb: LINE,
            sets: (l2_bytes / LINE / u64::from(ways)).max(1),
            ways: ways as usize,
            hbm: vec![poison; BUF as usize],
            lines: BTreeMap::new(),
            clock: 0,
            hazards: Hazards::default(),
            stale_lines: Vec::new(),
            stats: L2Stats::default(),
            cmos: Vec::new(),
        }
    }

    fn capacity(&self) -> u64 {
        self.sets * self.ways as u64
    }

    fn set_of(&self, line: u64) -> u64 {
        (line / self.lb) % self.sets
    }

    fn line_of(&self, addr: u64) -> u64 {
        addr / self.lb * self.lb
    }

    /// First line and number of lines `[addr, addr+len)` touches (`len` > 0).
    fn lines_of(&self, addr: u64, len: u64) -> (u64, u64) {
        let first = self.line_of(addr);
        let last = self.line_of(addr + len - 1);
        (first, (last - first) / self.lb + 1)
    }

    fn hbm_index(&self, addr: u64) -> usize {
        (addr - self.base) as usize
    }

    /// The byte at `addr` as an agent sees it: through the L2 (`via`) or in memory underneath.
    fn get(&self, via: bool, addr: u64) -> u8 {
        if via {
            if let Some(l) = self.lines.get(&self.line_of(addr)) {
                return l.data[(addr % self.lb) as usize];
            }
        }
        self.hbm[self.hbm_index(addr)]
    }

    /// An agent stores a byte: into the L2's copy of a resident line when it goes through the
    /// L2, else into memory underneath.
    fn put(&mut self, via: bool, addr: u64, value: u8) {
        let line = self.line_of(addr);
        let lb = self.lb;
        if via {
            if let Some(l) = self.lines.get_mut(&line) {
                l.data[(addr % lb) as usize] = value;
                return;
            }
        }
        let i = self.hbm_index(addr);
        self.hbm[i] = value;
    }

    /// The resident `line` is written back: memory takes its copy; a clobber if a byte
    /// written around the L2 since the fill had a different value.
    fn write_back(&mut self, line: u64) {
        let i0 = self.hbm_index(line);
        let lb = self.lb as usize;
        let l = self.lines.get_mut(&line).expect("resident");
        let clobber = (0..lb).any(|i| l.around[i] && l.data[i] != self.hbm[i0 + i]);
        self.hbm[i0..i0 + lb].copy_from_slice(&l.data);
        l.around.iter_mut().for_each(|b| *b = false);
        if clobber {
            self.hazards.clobber += 1;
        }
        self.stats.bytes_written_back += self.lb;
    }

    /// The line leaves the L2 by eviction: written back if dirty.
    fn evict(&mut self, line: u64) {
        if self.lines[&line].dirty {
            self.write_back(line);
            self.stats.dirty_evictions += 1;
        }
        self.lines.remove(&line);
    }

    /// One line access through the L2; true on a hit.
    fn touch(&mut self, line: u64, write: bool) -> bool {
        self.clock += 1;
        let clock = self.clock;
        if let Some(l) = self.lines.get_mut(&line) {
            l.last_use = clock;
            l.dirty |= write;
            return true;
        }
        let set = self.set_of(line);
        let in_set: Vec<(u64, u64)> = self
            .lines
            .iter()
            .filter(|(&a, _)| self.set_of(a) == set)
            .map(|(&a, l)| (l.last_use, a))
            .collect();
        if in_set.len() >= self.ways {
            let (_, victim) = in_set.into_iter().min().expect("a full set");
            self.evict(victim);
        }
        let i0 = self.hbm_index(line);
        let data = self.hbm[i0..i0 + self.lb as usize].to_vec();
        self.lines.insert(
            line,
            Line {
                dirty: write,
                data,
                around: vec![false; self.lb as usize],
                last_use: clock,
            },
        );
        false
    }

    /// A range accessed through the L2 (before the data moves); `agent_read` when an agent's
    /// read, which can be stale. Returns hits and misses.
    ///
    /// A range of more lines than the L2 holds evicts everything before its reads (so a
    /// streaming read sees a stale line's memory underneath, and reports no stale read:
    /// `docs/l2-cache.md`), after its writes superseded the writes around the L2.
    fn through(&mut self, addr: u64, len: u64, write: bool, agent_read: bool) -> (u64, u64) {
        let (mut first, mut count) = self.lines_of(addr, len);
        if write {
            let (lb, end) = (self.lb, addr + len);
            for (&line, l) in self.lines.range_mut(first..first + count * lb) {
                let (lo, hi) = (addr.max(line) - line, end.min(line + lb) - line);
                l.around[lo as usize..hi as usize]
                    .iter_mut()
                    .for_each(|b| *b = false);
            }
        }
        let mut streamed = 0;
        if count > self.capacity() {
            let all: Vec<u64> = self.lines.keys().copied().collect();
            for line in all {
                self.evict(line);
            }
            streamed = count - self.capacity();
            first += streamed * self.lb;
            count = self.capacity();
        }
        let (mut hits, mut misses) = (0, streamed);
        let end = addr + len;
        for k in 0..count {
            let line = first + k * self.lb;
            let (lo, hi) = (addr.max(line) - line, end.min(line + self.lb) - line);
            if write {
                // A write through the L2 is newer than the writes around it.
                if let Some(l) = self.lines.get_mut(&line) {
                    l.around[lo as usize..hi as usize]
                        .iter_mut()
                        .for_each(|b| *b = false);
                }
            }
            if self.touch(line, write) {
                hits += 1;
                if agent_read && !write {
                    let l = &self.lines[&line];
                    let i0 = self.hbm_index(line);
                    let stale = (lo as usize..hi as usize)
                        .any(|i| l.around[i] && l.data[i] != self.hbm[i0 + i]);
                    if stale {
                        self.hazards.stale_read += 1;
                        self.stale_lines.push(line);
                    }
                }
            } else {
                misses += 1;
            }
        }
        self.stats.hits += hits;
        self.stats.misses += misses;
        (hits, misses)
    }

    /// An agent's access to the L2 before its data moves: through it, reads then writes; or
    /// around it, counting the resident lines written under.
    ///
    /// Like the simulator (`engine/agent_access.rs`), every line is touched before any data
    /// moves, reads then writes: a copy's destination can evict a stale source line, and the
    /// copy then moves memory's newer data, so that stale read is not reported.
    fn access(&mut self, via: bool, reads: &[(u64, u64)], writes: &[(u64, u64)]) {
        if via {
            let before = self.hazards.stale_read;
            self.stale_lines.clear();
            for &(a, l) in reads {
                self.through(a, l, false, true);
            }
            for &(a, l) in writes {
                self.through(a, l, true, true);
            }
            let still = self
                .stale_lines
                .iter()
                .filter(|line| self.lines.contains_key(line))
                .count() as u64;
            self.hazards.stale_read = before + still;
        } else {
            let lb = self.lb;
            let under = self
                .lines
                .keys()
                .filter(|&&line| writes.iter().any(|&(a, l)| a < line + lb && line < a + l))
                .count();
            self.stats.writes_around += under as u64;
        }
    }

    /// After a write around the L2: the bytes under resident lines are marked.
    fn mark_around(&mut self, addr: u64, len: u64) {
        let lb = self.lb;
        for (&line, l) in self.lines.range_mut(self.line_of(addr)..addr + len) {
            let (lo, hi) = (addr.max(line) - line, (addr + len).min(line + lb) - line);
            l.around[lo as usize..hi as usize]
                .iter_mut()
                .for_each(|b| *b = true);
        }
    }

    fn store(&mut self, via: bool, addr: u64, bytes: &[u8]) {
        self.access(via, &[], &[(addr, bytes.len() as u64)]);
        for (k, &b) in bytes.iter().enumerate() {
            self.put(via, addr + k as u64, b);
        }
        if !via {
            self.mark_around(addr, bytes.len() as u64);
        }
    }

    fn copy(&mut self, via: bool, dst: u64, src: u64, len: u64) {
        self.access(via, &[(src, len)], &[(dst, len)]);
        let bytes: Vec<u8> = (src..src + len).map(|a| self.get(via, a)).collect();
        for (k, &b) in bytes.iter().enumerate() {
            self.put(via, dst + k as u64, b);
        }
        if !via {
            self.mark_around(dst, len);
        }
    }

    fn read(&mut self, via: bool, addr: u64, len: u64) -> Vec<u8> {
        self.access(via, &[(addr, len)], &[]);
        (addr..addr + len).map(|a| self.get(via, a)).collect()
    }

    fn cmo(&mut self, op: CmoType, addr: u64, len: u64) {
        let lb = self.lb;
        let mut rec = Cmo {
            op: op.name().to_string(),
            lines: 0,
            bytes_written_back: 0,
            bytes_filled: 0,
            lines_lost: 0,
            partial: !addr.is_multiple_of(lb) || !(addr + len).is_multiple_of(lb),
        };
        let (first, count) = self.lines_of(addr, len);
        let resident: Vec<u64> = self
            .lines
            .range(first..first + count * lb)
            .map(|(&a, _)| a)
            .collect();
        match op {
            CmoType::Prefetch => {
                let (hits, misses) = self.through(addr, len, false, false);
                let filled = misses.min(self.capacity());
                rec.lines = hits + filled;
                rec.bytes_filled = filled * lb;
            }
            CmoType::Writeback | CmoType::Flush => {
                for line in resident {
                    if self.lines[&line].dirty {
                        self.write_back(line);
                        rec.bytes_written_back += lb;
                    }
                    if op == CmoType::Flush {
                        self.lines.remove(&line);
                    } else {
                        self.lines.get_mut(&line).expect("resident").dirty = false;
                    }
                    rec.lines += 1;
                }
            }
            CmoType::Invalid => {
                let mut lost = Vec::new();
                for line in resident {
                    let l = self.lines.remove(&line).expect("resident");
                    let i0 = self.hbm_index(line);
                    // A dirty line holding what memory holds loses nothing.
                    if l.dirty && l.data[..] != self.hbm[i0..i0 + lb as usize] {
                        lost.push(line);
                    }
                    rec.lines += 1;
                }
                rec.lines_lost = lost.len() as u64;
                self.stats.dirty_lines_dropped += rec.lines_lost;
                self.hazards.lost_write += rec.lines_lost;
                // The buffer is whole lines: bytes of a touched line outside the range are live.
                let last = first + (count - 1) * lb;
                if (!addr.is_multiple_of(lb) && lost.contains(&first))
                    || (!(addr + len).is_multiple_of(lb) && lost.contains(&last))
                {
                    self.hazards.partial_line += 1;
                }
            }
        }
        self.cmos.push(rec);
    }
}

// ----- running a case on the simulator and on the model -----

/// Where two byte strings first differ, said for a failure message.
fn compare(what: &str, addr: u64, got: &[u8], want: &[u8]) -> Result<(), TestCaseError> {
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => {
            let to = (i + 8).min(got.len());
            Err(TestCaseError::fail(format!(
                "{what}: first difference at buffer offset {:#x}: simulator {:02x?}, reference \
                 {:02x?}",
                addr + i as u64,
                &got[i..to],
                &want[i..to]
            )))
        }
    }
}

fn hazards_of(report: &RunReport) -> Hazards {
    let mut h = Hazards::default();
    for (kind, &n) in &report.hazard_counts {
        match kind.as_str() {
            "clobber" => h.clobber += n,
            "stale_read" => h.stale_read += n,
            "lost_write" => h.lost_write += n,
            "partial_line" => h.partial_line += n,
            "never_written_read" => h.never_written_read += n,
            other => panic!("unexpected hazard class {other}"),
        }
    }
    h
}

fn run_case(case: &Case) -> Result<(), TestCaseError> {
    let mut chip = common::chip();
    chip.cache.l2_line_bytes = LINE;
    chip.cache.l2_bytes = case.geometry.0;
    chip.cache.l2_ways = case.geometry.1;
    chip.cache.scheduler_via_l2 = case.scheduler_via_l2;
    chip.cache.copy_engine_via_l2 = case.copy_engine_via_l2;
    let config = SimConfig::default();
    let s = Sim::new(chip, config.clone());
    let a = s.malloc(0, BUF).unwrap();
    prop_assert_eq!(a % LINE, 0, "the buffer is line-aligned");
    let (sched, ce) = (case.scheduler_via_l2, case.copy_engine_via_l2);
    let mut m = Model::new(a, case.geometry, config.poison_byte);
    let st = s.create_stream(0, 0, false).unwrap();
    let sync = |what: &str| -> Result<(), TestCaseError> {
        s.synchronize_stream(st, Some(10_000))
            .map_err(|e| TestCaseError::fail(format!("synchronize after {what}: {e}")))
    };

    // Every byte defined, in memory underneath, and the L2 empty.
    let pattern: Vec<u8> = (0..BUF).map(|i| (i * 7 + 3) as u8).collect();
    s.write(a, &pattern).unwrap();
    m.store(ce, a, &pattern);
    s.submit(
        st,
        Task::Cmo {
            op: CmoType::Flush,
            addr: a,
            len: BUF,
        },
    )
    .unwrap();
    m.cmo(CmoType::Flush, a, BUF);
    sync("the initial flush")?;

    let mut pending = false;
    for (n, op) in case.ops.iter().enumerate() {
        if !op.is_task() && pending {
            sync(&format!("the tasks before op {n}"))?;
            pending = false;
        }
        match *op {
            Op::ValueWrite { off, value } => {
                let addr = a + off;
                s.submit(st, Task::ValueWrite { addr, value }).unwrap();
                m.store(sched, addr, &value.to_le_bytes());
            }
            Op::ValueWait { off } => {
                let addr = a + off;
                let word = m.read(sched, addr, 8);
                let value = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                s.submit(
                    st,
                    Task::ValueWait {
                        addr,
                        value,
                        mode: WaitMode::Eq,
                    },
                )
                .unwrap();
                // A wait that does not release shows here as a timeout.
                sync(&format!("op {n}, a value wait for {value:#x} at {off:#x}"))?;
            }
            Op::Memset { off, len, value } => {
                let addr = a + off;
                s.submit(st, Task::Memset { addr, value, len }).unwrap();
                m.store(ce, addr, &vec![value; len as usize]);
            }
            Op::Memcpy { dst, src, len } => {
                s.submit(
                    st,
                    Task::Memcpy {
                        dst: Loc::Device(a + dst),
                        src: Loc::Device(a + src),
                        len,
                    },
                )
                .unwrap();
                m.copy(ce, a + dst, a + src, len);
            }
            Op::HostWrite { off, len, seed } => {
                let data: Vec<u8> = (0..len).map(|i| seed.wrapping_add(i as u8)).collect();
                s.write(a + off, &data).unwrap();
                m.store(ce, a + off, &data);
            }
            Op::HostFill { off, len, value } => {
                s.fill(a + off, value, len).unwrap();
                m.store(ce, a + off, &vec![value; len as usize]);
            }
            Op::HostCopy { dst, src, len } => {
                s.copy(a + dst, a + src, len).unwrap();
                m.copy(ce, a + dst, a + src, len);
            }
            Op::HostRead { off, len } => {
                let mut got = vec![0u8; len as usize];
                s.read(a + off, &mut got).unwrap();
                let want = m.read(ce, a + off, len);
                compare(&format!("op {n}, a host read"), off, &got, &want)?;
            }
            Op::Cmo { op, off, len } => {
                s.submit(
                    st,
                    Task::Cmo {
                        op,
                        addr: a + off,
                        len,
                    },
                )
                .unwrap();
                m.cmo(op, a + off, len);
            }
        }
        pending |= op.is_task();
    }
    sync("the last task")?;

    // What an agent reads now; then after a FLUSH, what memory underneath holds.
    let mut got = vec![0u8; BUF as usize];
    s.read(a, &mut got).unwrap();
    let want = m.read(ce, a, BUF);
    compare("the final read", 0, &got, &want)?;
    s.submit(
        st,
        Task::Cmo {
            op: CmoType::Flush,
            addr: a,
            len: BUF,
        },
    )
    .unwrap();
    m.cmo(CmoType::Flush, a, BUF);
    sync("the final flush")?;
    s.read(a, &mut got).unwrap();
    let want = m.read(ce, a, BUF);
    compare("the read after the final flush", 0, &got, &want)?;
    compare("memory underneath after the final flush", 0, &got, &m.hbm)?;

    let r = s.report();
    prop_assert_eq!(hazards_of(&r), m.hazards, "hazards: {:#?}", r.hazards);
    prop_assert_eq!(r.caches[0].l2, m.stats, "the L2's counters");
    prop_assert_eq!(r.caches[0].resident_lines, m.lines.len() as u64);
    let cmos: Vec<Cmo> = r
        .cmos
        .iter()
        .map(|c| Cmo {
            op: c.op.clone(),
            lines: c.lines,
            bytes_written_back: c.bytes_written_back,
            bytes_filled: c.bytes_filled,
            lines_lost: c.lines_lost,
            partial: c.partial_lines,
        })
        .collect();
    prop_assert_eq!(cmos, m.cmos.clone(), "the CMO records");
    Ok(())
}

proptest! {
    #![proptest_config(Config {
        cases: cases(),
        max_shrink_iters: 4096,
        failure_persistence: None,
        .. Config::default()
    })]

    #[test]
    fn the_l2_matches_a_reference_model(case in case()) {
        run_case(&case)?;
    }
}

// ----- cases the property test found -----

/// A chip with a 2-set, 2-way L2 of 512-byte lines; a buffer of `BUF` bytes defined in memory
/// underneath and not resident; a stream.
fn small_l2(scheduler_via_l2: bool, copy_engine_via_l2: bool) -> (Sim, u64, StreamId) {
    let mut chip = common::chip();
    chip.cache.l2_line_bytes = LINE;
    chip.cache.l2_bytes = 2048;
    chip.cache.l2_ways = 2;
    chip.cache.scheduler_via_l2 = scheduler_via_l2;
    chip.cache.copy_engine_via_l2 = copy_engine_via_l2;
    let s = Sim::new(chip, SimConfig::default());
    let a = s.malloc(0, BUF).unwrap();
    s.fill(a, 0, BUF).unwrap();
    let st = s.create_stream(0, 0, false).unwrap();
    let flush = Task::Cmo {
        op: CmoType::Flush,
        addr: a,
        len: BUF,
    };
    s.submit(st, flush).unwrap();
    s.synchronize_stream(st, None).unwrap();
    (s, a, st)
}

/// A write through the L2 to the same bytes after the write around it is newer, and its
/// write-back is no clobber: for a fill of one line and for one larger than the L2, whose
/// streaming writes back the dirty line only after superseding the write around it.
#[test]
fn a_streaming_write_over_bytes_written_around_the_l2_is_no_clobber() {
    for len in [LINE, BUF] {
        // The scheduler goes around the L2, the copy engine through it.
        let (s, a, st) = small_l2(false, true);
        s.fill(a, 1, LINE).unwrap();
        s.submit(
            st,
            Task::ValueWrite {
                addr: a + 8,
                value: 0x77,
            },
        )
        .unwrap();
        s.synchronize_stream(st, None).unwrap();
        // Through the L2, over the word written around it.
        s.fill(a, 2, len).unwrap();
        assert_eq!(
            common::hazard_kinds(&s),
            Vec::<String>::new(),
            "a fill of {len} bytes"
        );
    }
}

/// A copy through the L2 whose destination evicts its (stale) source line: the eviction puts
/// memory's newer data back under the source before the data moves, so the copy moves the
/// newer data and the stale read its source hit is not reported: what is reported is what
/// moved.
#[test]
fn a_copy_whose_destination_evicts_its_stale_source_moves_what_it_reports() {
    let mut chip = common::chip();
    chip.cache.l2_line_bytes = LINE;
    // Two sets of one way: lines 0 and 2 of the buffer share a set.
    chip.cache.l2_bytes = 1024;
    chip.cache.l2_ways = 1;
    chip.cache.scheduler_via_l2 = false;
    let s = Sim::new(chip, SimConfig::default());
    let a = s.malloc(0, BUF).unwrap();
    s.fill(a, 0, BUF).unwrap();
    let st = s.create_stream(0, 0, false).unwrap();
    for t in [
        Task::Cmo {
            op: CmoType::Flush,
            addr: a,
            len: BUF,
        },
        Task::Cmo {
            op: CmoType::Prefetch,
            addr: a,
            len: LINE,
        },
        Task::ValueWrite {
            addr: a + 8,
            value: 0x77,
        },
    ] {
        s.submit(st, t).unwrap();
    }
    s.synchronize_stream(st, None).unwrap();
    s.copy(a + 2 * LINE + 8, a + 8, 8).unwrap();
    assert_eq!(common::hazard_kinds(&s), Vec::<String>::new());
    let mut b = [0u8; 8];
    s.read(a + 2 * LINE + 8, &mut b).unwrap();
    assert_eq!(
        u64::from_le_bytes(b),
        0x77,
        "the copy moved memory's newer word"
    );
}

/// The same program gives the same report, also when an access streams through the L2 and
/// evicts several dirty lines: their write-backs (and clobbers, and wake-ups) come in address
/// order.
#[test]
fn the_clobbers_of_one_streaming_eviction_come_in_a_fixed_order() {
    let order = || {
        // The scheduler through the L2, the copy engine around it.
        let (s, a, st) = small_l2(true, false);
        for k in 0..4 {
            let line = a + k * LINE;
            s.submit(
                st,
                Task::ValueWrite {
                    addr: line,
                    value: 1,
                },
            )
            .unwrap();
            let around = Task::Memset {
                addr: line + 8,
                value: 9,
                len: 8,
            };
            s.submit(st, around).unwrap();
        }
        // More lines than the L2 holds: everything resident is evicted.
        let prefetch = Task::Cmo {
            op: CmoType::Prefetch,
            addr: a,
            len: BUF,
        };
        s.submit(st, prefetch).unwrap();
        s.synchronize_stream(st, None).unwrap();
        let r = s.report();
        r.hazards.iter().map(|h| h.addr - a).collect::<Vec<_>>()
    };
    let first = order();
    assert_eq!(first.len(), 4);
    for _ in 0..16 {
        assert_eq!(order(), first);
    }
}
