//! Accesses that go around the L2 straight to memory, for the agents the chip file says
//! bypass it, and the two hazards they make possible:
//!
//! - a *clobber*: a dirty line written back overwrites bytes an agent wrote around the L2
//!   after the line was filled (the write-back is of the whole line, tagged assumed in
//!   `docs/l2-cache.md`), so the newer data is lost;
//! - a *stale read*: a read through the L2 hits a line whose copy is older than what an agent
//!   wrote around it, and sees the old bytes.
//!
//! An access around the L2 is bracketed: [`L2::around_begin`] puts what memory underneath
//! holds (HBM) in place of each resident line the ranges touch, the caller reads or writes
//! memory as usual, and [`L2::around_end`] takes the new HBM contents back out and puts the
//! L2's copies back, remembering the writes made under each line.

use std::collections::BTreeSet;

use ascend_chips::L2Agent;

use super::L2;
use crate::memory::{Image, Memory, Writer};

/// A write made around the L2 into memory under a resident line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AroundWrite {
    /// Who wrote.
    pub agent: L2Agent,
    /// The first byte written, inside the line.
    pub lo: u64,
    /// One past the last byte written, inside the line.
    pub hi: u64,
    /// The task or host call that wrote, and when.
    pub writer: Writer,
}

/// Something the L2 saw that the sanitizer reports.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum L2Event {
    /// Writing back the dirty `line` (on `cause`: an eviction, a WRITEBACK or a FLUSH)
    /// overwrote the bytes `write` had put in memory around the L2.
    Clobber {
        /// The line.
        line: u64,
        /// The write whose bytes were overwritten.
        write: AroundWrite,
        /// The first overwritten byte whose value changed.
        addr: u64,
        /// The 64-bit word memory held there before the write-back (the lost data).
        lost: u64,
        /// The word the write-back put there.
        written_back: u64,
        /// What wrote the line back.
        cause: &'static str,
    },
    /// A read of `[addr, addr+len)` through the L2 saw the L2's copy of `line`, older than
    /// what `write` put in memory around it.
    StaleRead {
        /// The line.
        line: u64,
        /// The read range.
        addr: u64,
        /// Its length.
        len: u64,
        /// The write the read did not see.
        write: AroundWrite,
        /// The first byte the read saw stale.
        at: u64,
        /// The word the read saw there.
        seen: u64,
        /// The word memory holds there.
        in_memory: u64,
    },
}

/// What [`L2::around_begin`] set aside: each resident line's L2 copy.
#[derive(Debug, Default)]
pub struct AroundScope {
    saved: Vec<(u64, Image)>,
}

/// The first offset in `[lo, hi)` (relative to `base`) where `a` and `b` differ.
fn first_difference(a: &Image, b: &Image, base: u64, lo: u64, hi: u64) -> Option<u64> {
    (lo..hi).find(|&x| a.byte((x - base) as usize) != b.byte((x - base) as usize))
}

impl L2 {
    /// Starts an access around the L2 to `ranges`: memory under each resident line they
    /// touch shows what HBM holds until [`L2::around_end`].
    pub fn around_begin(&mut self, mem: &mut Memory, ranges: &[(u64, u64)]) -> AroundScope {
        let lb = self.line;
        let mut lines = BTreeSet::new();
        for &(addr, len) in ranges.iter().filter(|r| r.1 > 0) {
            let (first, count) = self.lines_of(addr, len);
            lines.extend(self.resident_in(first, count));
        }
        let saved = lines
            .into_iter()
            .map(|line| {
                let copy = mem.image(line, lb);
                if let Some(hbm) = self.underneath.get(&line) {
                    mem.restore(line, lb, hbm);
                }
                (line, copy)
            })
            .collect();
        AroundScope { saved }
    }

    /// Ends an access around the L2 that wrote `writes` (as `agent`, `writer`): what memory
    /// now holds under each resident line becomes what HBM holds there, and the L2's copies
    /// are put back. A clean line whose HBM now differs becomes stale.
    pub fn around_end(
        &mut self,
        mem: &mut Memory,
        scope: AroundScope,
        writes: &[(u64, u64)],
        agent: L2Agent,
        writer: Writer,
    ) {
        let lb = self.line;
        for (line, copy) in scope.saved {
            let hbm = mem.image(line, lb);
            mem.restore(line, lb, &copy);
            let mut wrote = false;
            for &(addr, len) in writes {
                let (lo, hi) = (addr.max(line), addr.saturating_add(len).min(line + lb));
                if lo < hi {
                    wrote = true;
                    self.around.entry(line).or_default().push(AroundWrite {
                        agent,
                        lo,
                        hi,
                        writer,
                    });
                }
            }
            if wrote {
                self.stats.writes_around += 1;
            }
            let dirty = self.state_of(line) == Some(true);
            if dirty || !hbm.same_bytes(&copy, lb as usize) {
                self.underneath.insert(line, hbm);
            } else {
                self.underneath.remove(&line);
                self.around.remove(&line);
            }
        }
    }

    /// A write through the L2 to `[addr, end)` of `line` is newer than the writes made around
    /// it there: they no longer count as lost or unseen data.
    pub(super) fn supersede_around(&mut self, line: u64, addr: u64, end: u64) {
        let Some(writes) = self.around.get_mut(&line) else {
            return;
        };
        let mut kept = Vec::with_capacity(writes.len());
        for w in writes.drain(..) {
            if w.hi <= addr || w.lo >= end {
                kept.push(w);
                continue;
            }
            if w.lo < addr {
                kept.push(AroundWrite {
                    hi: addr,
                    ..w.clone()
                });
            }
            if w.hi > end {
                kept.push(AroundWrite { lo: end, ..w });
            }
        }
        if kept.is_empty() {
            self.around.remove(&line);
        } else {
            *writes = kept;
        }
    }

    /// Drops the stale reads reported for lines that are no longer stale (evicted since, so
    /// memory holds the newer bytes the read will move).
    pub fn retract_unseen_stale_reads(&mut self) {
        let underneath = &self.underneath;
        self.events.retain(|e| match e {
            L2Event::StaleRead { line, .. } => underneath.contains_key(line),
            _ => true,
        });
    }

    /// A read of `[addr, addr+len)` hit `line`, which has writes around the L2: reports the
    /// first of them whose bytes the read sees differently.
    pub(super) fn check_stale_read(&mut self, mem: &Memory, line: u64, addr: u64, len: u64) {
        let (Some(hbm), Some(writes)) = (self.underneath.get(&line), self.around.get(&line)) else {
            return;
        };
        let copy = mem.image(line, self.line);
        let end = addr.saturating_add(len);
        let event = writes.iter().rev().find_map(|w| {
            let at = first_difference(&copy, hbm, line, w.lo.max(addr), w.hi.min(end))?;
            Some(L2Event::StaleRead {
                line,
                addr,
                len,
                write: w.clone(),
                at,
                seen: copy.word((at - line) as usize),
                in_memory: hbm.word((at - line) as usize),
            })
        });
        self.events.extend(event);
    }

    /// The dirty `line`, whose memory held `hbm`, is being written back over `writes` made
    /// around the L2: reports the first write whose bytes change.
    pub(super) fn check_clobber(
        &mut self,
        mem: &Memory,
        line: u64,
        hbm: &Image,
        writes: Vec<AroundWrite>,
        cause: &'static str,
    ) {
        let copy = mem.image(line, self.line);
        let event = writes.into_iter().rev().find_map(|w| {
            let addr = first_difference(&copy, hbm, line, w.lo, w.hi)?;
            Some(L2Event::Clobber {
                line,
                addr,
                lost: hbm.word((addr - line) as usize),
                written_back: copy.word((addr - line) as usize),
                write: w,
                cause,
            })
        });
        self.events.extend(event);
    }
}
