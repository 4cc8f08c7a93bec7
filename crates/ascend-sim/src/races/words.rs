//! Synchronisation words: the 8-byte words that value writes, kernels' scalar stores and the
//! host's small writes write, and that value waits and kernels' scalar loads read. A read
//! acquires what the word's latest write released. Two kinds of `sync_word_race` are found
//! here: two writes of one word that nothing orders (which value a wait sees depends on the
//! timing), and a write that nothing orders after an EQ, AND or NOR wait's observation of the
//! word (in another timing it lands first, the value the wait needs is gone, and the wait
//! waits on).

use std::sync::Arc;

use super::clock::{Epoch, Released};
use super::shadow::Accessor;
use super::{words_of, AgentKey, Races};
use crate::types::WaitMode;

/// A write or a passing wait of a synchronisation word, for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncAccess {
    /// Who.
    pub who: Accessor,
    /// The word (or the bytes of it written).
    pub addr: u64,
    /// Bytes written (8 for a wait).
    pub len: u64,
    /// The value written, or the value the wait compared with (unknown for a host write).
    pub value: Option<u64>,
    /// For a wait: its compare mode.
    pub mode: Option<WaitMode>,
    /// Simulated time.
    pub at_ns: u64,
}

impl SyncAccess {
    /// The bytes it wrote (or a wait read), `[lo, hi)`.
    fn bytes(&self) -> (u64, u64) {
        (self.addr, self.addr.saturating_add(self.len.max(1)))
    }
}

/// A race on a synchronisation word, found at a write.
#[derive(Debug, Clone)]
pub enum SyncConflict {
    /// The word's previous write is not ordered before this one.
    TwoWriters {
        /// The previous write.
        prior: Arc<SyncAccess>,
    },
    /// This write is not ordered after a wait's observation of the word.
    Overwritten {
        /// The wait.
        wait: Arc<SyncAccess>,
    },
}

/// The most EQ, AND or NOR observations of one word kept since its latest write.
const OBSERVATIONS_KEPT: usize = 8;

/// What the detector keeps of one word.
#[derive(Debug, Clone, Default)]
pub(super) struct Word {
    /// The latest write of each byte range of the word: what it released, and what it was
    /// (two writers of different bytes of one word do not race).
    writes: Vec<(Released, Arc<SyncAccess>)>,
    /// The EQ, AND or NOR waits that passed on the word since its latest write, with the
    /// waiting stream's epoch then.
    observed: Vec<(Epoch, Arc<SyncAccess>)>,
}

impl Word {
    /// `acc` (which released `r`) is the latest write of its bytes: writes of bytes it covers
    /// are superseded.
    fn record_write(&mut self, r: &Released, acc: &Arc<SyncAccess>) {
        let (lo, hi) = acc.bytes();
        self.writes.retain(|(_, p)| {
            let (plo, phi) = p.bytes();
            !(lo <= plo && phi <= hi)
        });
        self.writes.push((r.clone(), acc.clone()));
    }

    /// What a reader of the word acquires: every write it holds.
    fn releases(&self) -> impl Iterator<Item = &Released> {
        self.writes.iter().map(|(r, _)| r)
    }
}

impl Races {
    /// `key` wrote `acc.len` bytes at `acc.addr` of synchronisation memory (`acc` says what):
    /// checked against the previous writes of the same bytes and the word's observations
    /// since, then released.
    pub fn word_written(&mut self, key: AgentKey, acc: SyncAccess) -> Vec<SyncConflict> {
        let a = self.agent(key);
        // A write after a release is a new step: whoever got the release is not ordered after
        // this write.
        self.step_if_released(a);
        let (lo, hi) = acc.bytes();
        let acc = Arc::new(acc);
        let mut found = Vec::new();
        let clock = &self.states[a as usize].clock;
        let unordered = |e: Epoch| e.agent != a && !clock.covers(e);
        for w in words_of(lo, hi - lo) {
            let Some(word) = self.words.get(&w) else {
                continue;
            };
            for (r, prior) in &word.writes {
                let (plo, phi) = prior.bytes();
                let overlaps = plo < hi && lo < phi;
                if overlaps && unordered(r.own) && !found.iter().any(|f| same_prior(f, prior)) {
                    found.push(SyncConflict::TwoWriters {
                        prior: prior.clone(),
                    });
                }
            }
            for (e, wait) in &word.observed {
                if unordered(*e) {
                    found.push(SyncConflict::Overwritten { wait: wait.clone() });
                }
            }
        }
        let r = self.hand_out(a);
        for w in words_of(lo, hi - lo) {
            let word = self.words.entry(w).or_default();
            word.record_write(&r, &acc);
            word.observed.clear();
        }
        found
    }

    /// `key` read synchronisation memory `[addr, addr+len)` (a value wait that passed, a
    /// kernel's scalar load, a small host read): it acquires what the latest writes of those
    /// words released.
    pub fn word_read(&mut self, key: AgentKey, addr: u64, len: u64) {
        let a = self.agent(key);
        for w in words_of(addr, len) {
            let releases: Vec<Released> = self
                .words
                .get(&w)
                .map(|x| x.releases().cloned().collect())
                .unwrap_or_default();
            for r in releases {
                self.learn_released(a, &r);
            }
        }
    }

    /// A data write of at most 8 bytes by `key` (a small copy or fill, a kernel's copy from a
    /// local buffer): a flag may be raised this way, so it releases like a synchronisation
    /// write, without the synchronisation checks (the data checks apply).
    pub fn small_data_write(&mut self, key: AgentKey, who: Accessor, addr: u64, len: u64) {
        let a = self.agent(key);
        let r = self.hand_out(a);
        let acc = Arc::new(SyncAccess {
            who,
            addr,
            len,
            value: None,
            mode: None,
            at_ns: 0,
        });
        for w in words_of(addr, len) {
            self.words.entry(w).or_default().record_write(&r, &acc);
        }
    }

    /// The value wait `acc` of stream `s` passed on its word: an EQ, AND or NOR wait needs
    /// the value it saw, so a later write not ordered after this point is a race.
    pub fn wait_observed(&mut self, s: u64, acc: SyncAccess) {
        if !matches!(acc.mode, Some(WaitMode::Eq | WaitMode::And | WaitMode::Nor)) {
            return;
        }
        let a = self.agent(AgentKey::Stream(s));
        let e = self.states[a as usize].clock.epoch(a);
        let w = acc.addr & !7;
        let word = self.words.entry(w).or_default();
        if word.observed.len() == OBSERVATIONS_KEPT {
            word.observed.remove(0);
        }
        word.observed.push((e, Arc::new(acc)));
    }
}

fn same_prior(f: &SyncConflict, prior: &Arc<SyncAccess>) -> bool {
    matches!(f, SyncConflict::TwoWriters { prior: p } if Arc::ptr_eq(p, prior))
}
