//! The race detector's shadow memory: for each byte range, the last write and the reads since
//! it that are not yet known to be ordered before everything later, as a map of disjoint
//! intervals.
//!
//! Granularity is the byte range an access names, not a fixed cell: copies, fills and CMOs
//! name ranges of kilobytes to gigabytes, and a range that one access covers is one interval
//! however long it is, so the cost of an access is the number of intervals it overlaps, not
//! its length over 8 bytes or 64 (a fixed 8-byte shadow would spend 512 Ki cells on one 4 MiB
//! copy). Intervals split where accesses start and end and merge again when a write makes
//! their state the same. The map is bounded ([`MAX_INTERVALS`]); past it the shadow starts
//! afresh, which can miss a race across the restart but never reports a false one.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::clock::{Epoch, VClock};

/// Who made an access, for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accessor {
    /// A stream task (a copy, fill, reduce or CMO).
    Task {
        /// Task number.
        task: u64,
        /// Its stream.
        stream: u64,
        /// Its kind (`Memcpy`, `Cmo`, ...).
        kind: &'static str,
    },
    /// A block of a kernel task.
    Kernel {
        /// The kernel's task number.
        task: u64,
        /// Its stream.
        stream: u64,
        /// The block.
        block: u32,
        /// The AI core it ran on.
        core: u32,
    },
    /// A synchronous call of a host thread.
    Host {
        /// The host thread's number (in the order threads first called).
        thread: u64,
        /// The call (`aclrtMemcpy` and the like, as the simulator names it).
        call: &'static str,
    },
}

/// One access: who, when, what it touched and the epoch it was made in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// The agent's epoch.
    pub epoch: Epoch,
    /// Who.
    pub who: Accessor,
    /// A write (else a read).
    pub write: bool,
    /// The whole range the access named.
    pub lo: u64,
    /// Its end (exclusive).
    pub hi: u64,
    /// Simulated time of the access.
    pub at_ns: u64,
}

/// A prior access that the new one is not ordered with, and the bytes they share.
#[derive(Debug, Clone)]
pub struct Conflict {
    /// The earlier access.
    pub prior: Arc<Access>,
    /// First shared byte.
    pub lo: u64,
    /// End of the shared bytes (exclusive).
    pub hi: u64,
}

/// The most intervals the shadow holds before it starts afresh.
pub const MAX_INTERVALS: usize = 1 << 20;

/// The most unordered reads an interval keeps since its last write (the oldest goes first).
const MAX_READS: usize = 8;

#[derive(Debug, Clone)]
struct Interval {
    hi: u64,
    write: Option<Arc<Access>>,
    reads: Vec<Arc<Access>>,
}

/// Two accesses that race with the same things and read the same in a report but for their
/// ranges: one agent's step, one direction, one accessor (a kernel's tiles, say).
fn alike(a: &Arc<Access>, b: &Arc<Access>) -> bool {
    Arc::ptr_eq(a, b) || (a.epoch == b.epoch && a.write == b.write && a.who == b.who)
}

/// One access standing for two alike ones: their ranges joined.
fn joined(a: &Arc<Access>, b: &Arc<Access>) -> Arc<Access> {
    if Arc::ptr_eq(a, b) {
        return a.clone();
    }
    Arc::new(Access {
        lo: a.lo.min(b.lo),
        hi: a.hi.max(b.hi),
        at_ns: a.at_ns.min(b.at_ns),
        ..(**a).clone()
    })
}

impl Interval {
    fn same_state(&self, other: &Interval) -> bool {
        let same = |a: &Option<Arc<Access>>, b: &Option<Arc<Access>>| match (a, b) {
            (Some(a), Some(b)) => alike(a, b),
            (None, None) => true,
            _ => false,
        };
        same(&self.write, &other.write)
            && self.reads.len() == other.reads.len()
            && self
                .reads
                .iter()
                .zip(&other.reads)
                .all(|(a, b)| alike(a, b))
    }

    /// Takes in its neighbour `next` (in the same state) as one interval.
    fn absorb(&mut self, next: &Interval) {
        self.hi = next.hi;
        if let (Some(a), Some(b)) = (&self.write, &next.write) {
            self.write = Some(joined(a, b));
        }
        for (a, b) in self.reads.iter_mut().zip(&next.reads) {
            *a = joined(a, b);
        }
    }
}

/// Disjoint intervals of memory, each with its last write and unordered reads.
#[derive(Debug, Default)]
pub struct Shadow {
    intervals: BTreeMap<u64, Interval>,
    /// Times the shadow started afresh at [`MAX_INTERVALS`].
    pub restarts: u64,
}

impl Shadow {
    /// Checks `acc` (made by an agent whose clock is `clock`) against what the shadow holds for
    /// its range, then records it. Returns the prior accesses it races with, one entry per
    /// prior access with the union of the bytes they share.
    pub fn access(&mut self, acc: Arc<Access>, clock: &VClock) -> Vec<Conflict> {
        let (lo, hi) = (acc.lo, acc.hi);
        if lo >= hi {
            return Vec::new();
        }
        if self.intervals.len() >= MAX_INTERVALS {
            self.intervals.clear();
            self.restarts += 1;
            tracing::warn!(
                restarts = self.restarts,
                "race detection: the shadow memory reached {MAX_INTERVALS} intervals and starts \
                 afresh (a race between accesses on either side of this point is not seen)"
            );
        }
        let pieces = self.take_range(lo, hi);
        let mut conflicts: Vec<Conflict> = Vec::new();
        let mut note = |prior: &Arc<Access>, a: u64, b: u64| {
            if prior.epoch.agent == acc.epoch.agent || clock.covers(prior.epoch) {
                return;
            }
            match conflicts.iter_mut().find(|c| Arc::ptr_eq(&c.prior, prior)) {
                Some(c) => {
                    c.lo = c.lo.min(a);
                    c.hi = c.hi.max(b);
                }
                None => conflicts.push(Conflict {
                    prior: prior.clone(),
                    lo: a,
                    hi: b,
                }),
            }
        };
        let mut rebuilt: Vec<(u64, Interval)> = Vec::with_capacity(pieces.len() * 2 + 1);
        let mut at = lo;
        for (start, mut iv) in pieces.into_iter().chain(std::iter::once((
            hi,
            Interval {
                hi,
                write: None,
                reads: Vec::new(),
            },
        ))) {
            if start > at {
                // A gap nothing touched yet: the access alone.
                rebuilt.push((at, fresh(&acc, start)));
            }
            if start >= hi {
                break;
            }
            if let Some(w) = &iv.write {
                note(w, start, iv.hi);
            }
            if acc.write {
                for r in &iv.reads {
                    note(r, start, iv.hi);
                }
                iv.write = Some(acc.clone());
                iv.reads.clear();
            } else {
                // A read ordered after an earlier one stands for both from now on: any later
                // write unordered with the earlier read is unordered with this one too.
                iv.reads.retain(|r| !clock.covers(r.epoch));
                if iv.reads.len() == MAX_READS {
                    iv.reads.remove(0);
                }
                iv.reads.push(acc.clone());
            }
            at = iv.hi;
            rebuilt.push((start, iv));
        }
        // Neighbours in the same state become one interval again.
        let mut merged: Vec<(u64, Interval)> = Vec::with_capacity(rebuilt.len());
        for (start, iv) in rebuilt {
            match merged.last_mut() {
                Some((_, prev)) if prev.hi == start && prev.same_state(&iv) => prev.absorb(&iv),
                _ => merged.push((start, iv)),
            }
        }
        // And with the neighbours outside the range (a kernel writing tile after tile leaves
        // one interval, not one a tile).
        if let Some((first_start, first)) = merged.first_mut() {
            let before = self.intervals.range(..*first_start).next_back();
            if let Some((&b, prev)) = before.filter(|(_, p)| p.hi == *first_start) {
                if prev.same_state(first) {
                    let mut prev = self.intervals.remove(&b).expect("present");
                    prev.absorb(first);
                    *first_start = b;
                    *first = prev;
                }
            }
        }
        if let Some((_, last)) = merged.last_mut() {
            let after = self
                .intervals
                .get(&last.hi)
                .filter(|n| last.same_state(n))
                .cloned();
            if let Some(next) = after {
                self.intervals.remove(&last.hi);
                last.absorb(&next);
            }
        }
        self.intervals.extend(merged);
        conflicts
    }

    /// Forgets what the shadow holds for `[lo, hi)` (memory freed: a later allocation there is
    /// new memory).
    pub fn forget(&mut self, lo: u64, hi: u64) {
        if lo < hi {
            drop(self.take_range(lo, hi));
        }
    }

    /// How many intervals the shadow holds.
    #[cfg(test)]
    pub fn intervals(&self) -> usize {
        self.intervals.len()
    }

    /// Splits the interval that starts before `point` and reaches past it into two at `point`
    /// (both keep its state).
    fn split_at(&mut self, point: u64) {
        let Some((&start, iv)) = self.intervals.range(..point).next_back() else {
            return;
        };
        if iv.hi <= point {
            return;
        }
        let right = iv.clone();
        self.intervals.get_mut(&start).expect("present").hi = point;
        self.intervals.insert(point, right);
    }

    /// Removes and returns the intervals inside `[lo, hi)`, splitting those that cross its
    /// ends (their outer parts stay).
    fn take_range(&mut self, lo: u64, hi: u64) -> Vec<(u64, Interval)> {
        self.split_at(lo);
        self.split_at(hi);
        let keys: Vec<u64> = self.intervals.range(lo..hi).map(|(&k, _)| k).collect();
        keys.into_iter()
            .map(|k| (k, self.intervals.remove(&k).expect("present")))
            .collect()
    }
}

/// An interval `[acc.lo.., hi)` that only `acc` touched.
fn fresh(acc: &Arc<Access>, hi: u64) -> Interval {
    if acc.write {
        Interval {
            hi,
            write: Some(acc.clone()),
            reads: Vec::new(),
        }
    } else {
        Interval {
            hi,
            write: None,
            reads: vec![acc.clone()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::races::clock::Agent;

    fn access(agent: Agent, clock: &VClock, write: bool, lo: u64, hi: u64) -> Arc<Access> {
        Arc::new(Access {
            epoch: clock.epoch(agent),
            who: Accessor::Host {
                thread: u64::from(agent),
                call: "test",
            },
            write,
            lo,
            hi,
            at_ns: 0,
        })
    }

    fn ranges(c: &[Conflict]) -> Vec<(u64, u64)> {
        c.iter().map(|c| (c.lo, c.hi)).collect()
    }

    #[test]
    fn unordered_writes_of_overlapping_bytes_conflict_on_the_shared_bytes_only() {
        let mut sh = Shadow::default();
        let (mut a, mut b) = (VClock::default(), VClock::default());
        a.tick(0);
        b.tick(1);
        assert!(sh.access(access(0, &a, true, 100, 200), &a).is_empty());
        let c = sh.access(access(1, &b, true, 150, 300), &b);
        assert_eq!(ranges(&c), [(150, 200)]);
    }

    #[test]
    fn an_access_ordered_after_the_prior_one_does_not_conflict() {
        let mut sh = Shadow::default();
        let (mut a, mut b) = (VClock::default(), VClock::default());
        a.tick(0);
        b.tick(1);
        sh.access(access(0, &a, true, 0, 64), &a);
        b.join(&a);
        assert!(sh.access(access(1, &b, false, 0, 64), &b).is_empty());
        assert!(sh.access(access(1, &b, true, 0, 64), &b).is_empty());
    }

    #[test]
    fn reads_do_not_conflict_with_reads_but_a_later_unordered_write_conflicts_with_each() {
        let mut sh = Shadow::default();
        let clocks: Vec<VClock> = (0..3)
            .map(|i| {
                let mut c = VClock::default();
                c.tick(i);
                c
            })
            .collect();
        assert!(sh
            .access(access(0, &clocks[0], false, 0, 8), &clocks[0])
            .is_empty());
        assert!(sh
            .access(access(1, &clocks[1], false, 0, 8), &clocks[1])
            .is_empty());
        let c = sh.access(access(2, &clocks[2], true, 0, 8), &clocks[2]);
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn one_range_written_whole_is_one_interval_and_freeing_forgets_it() {
        let mut sh = Shadow::default();
        let mut a = VClock::default();
        a.tick(0);
        for (lo, hi) in [(0, 10), (20, 30), (5, 25)] {
            sh.access(access(0, &a, false, lo, hi), &a);
        }
        a.tick(0);
        sh.access(access(0, &a, true, 0, 1 << 30), &a);
        assert_eq!(sh.intervals(), 1);
        sh.forget(0, 1 << 30);
        assert_eq!(sh.intervals(), 0);
        let mut b = VClock::default();
        b.tick(1);
        assert!(sh.access(access(1, &b, true, 0, 8), &b).is_empty());
    }

    #[test]
    fn a_race_spanning_many_intervals_is_one_conflict_with_their_union() {
        let mut sh = Shadow::default();
        let (mut a, mut b) = (VClock::default(), VClock::default());
        a.tick(0);
        b.tick(1);
        let w = access(0, &a, true, 0, 4096);
        sh.access(w, &a);
        // Reads by a split the interval; b's write still races with a's write as one.
        sh.access(access(0, &a, false, 100, 200), &a);
        let c = sh.access(access(1, &b, true, 0, 4096), &b);
        assert_eq!(c.len(), 2, "a's write and a's read");
        assert!(ranges(&c).contains(&(0, 4096)));
        assert!(ranges(&c).contains(&(100, 200)));
    }

    /// One step of a random program: an access, or agent `to` learning `from`'s clock
    /// (a release by `from`, which then takes a new step).
    #[derive(Debug, Clone)]
    enum Op {
        Access {
            agent: Agent,
            write: bool,
            lo: u64,
            len: u64,
        },
        Sync {
            from: Agent,
            to: Agent,
        },
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            (0u32..4, any::<bool>(), 0u64..64, 1u64..24).prop_map(|(agent, write, lo, len)| {
                Op::Access {
                    agent,
                    write,
                    lo,
                    len,
                }
            }),
            (0u32..4, 0u32..4).prop_map(|(from, to)| Op::Sync { from, to }),
        ]
    }

    proptest::proptest! {
        /// Against a byte-by-byte model that keeps every read since each byte's last write:
        /// an access races with something exactly when the model says so.
        #[test]
        fn the_interval_shadow_finds_a_race_exactly_when_a_byte_by_byte_model_does(
            ops in proptest::collection::vec(op(), 1..60)
        ) {
            let mut clocks: Vec<VClock> = (0..4)
                .map(|a| {
                    let mut c = VClock::default();
                    c.tick(a);
                    c
                })
                .collect();
            let mut sh = Shadow::default();
            // Per byte: the last write's epoch, and the reads' epochs since it.
            let mut model: Vec<(Option<Epoch>, Vec<Epoch>)> = vec![(None, Vec::new()); 96];
            for op in ops {
                match op {
                    Op::Sync { from, to } => {
                        let c = clocks[from as usize].clone();
                        clocks[to as usize].join(&c);
                        clocks[from as usize].tick(from);
                    }
                    Op::Access { agent, write, lo, len } => {
                        let clock = clocks[agent as usize].clone();
                        let me = clock.epoch(agent);
                        let unordered = |e: &Epoch| e.agent != agent && !clock.covers(*e);
                        let mut expected = false;
                        for b in &mut model[lo as usize..(lo + len) as usize] {
                            expected |= b.0.as_ref().is_some_and(unordered);
                            if write {
                                expected |= b.1.iter().any(unordered);
                                *b = (Some(me), Vec::new());
                            } else {
                                b.1.push(me);
                            }
                        }
                        let found = sh.access(access(agent, &clock, write, lo, lo + len), &clock);
                        proptest::prop_assert_eq!(!found.is_empty(), expected);
                        for c in &found {
                            proptest::prop_assert!(c.lo >= lo && c.hi <= lo + len && c.lo < c.hi);
                        }
                        // Each access is a step of its own.
                        clocks[agent as usize].tick(agent);
                    }
                }
            }
        }
    }
}
