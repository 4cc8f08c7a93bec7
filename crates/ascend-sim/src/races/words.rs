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

/// What the detector keeps of one word.
#[derive(Debug, Clone, Default)]
pub(super) struct Word {
    /// The latest write: what it released, and what it was.
    write: Option<(Released, Arc<SyncAccess>)>,
    /// The latest EQ, AND or NOR wait that passed on the word since that write, with the
    /// waiting stream's epoch then.
    observed: Option<(Epoch, Arc<SyncAccess>)>,
}

impl Races {
    /// `key` wrote the word(s) of `[addr, addr+len)` (`acc` says what): checked against the
    /// word's previous write and its latest observation, then released.
    pub fn word_written(&mut self, key: AgentKey, acc: SyncAccess) -> Vec<SyncConflict> {
        let a = self.agent(key);
        let len = acc.len;
        let acc = Arc::new(acc);
        let mut found = Vec::new();
        let clock = self.states[a as usize].clock.clone();
        let unordered = |e: Epoch| e.agent != a && !clock.covers(e);
        for w in words_of(acc.addr, len) {
            let Some(word) = self.words.get(&w) else {
                continue;
            };
            if let Some((r, prior)) = &word.write {
                if unordered(r.own) && !found.iter().any(|f| same_prior(f, prior)) {
                    found.push(SyncConflict::TwoWriters {
                        prior: prior.clone(),
                    });
                }
            }
            if let Some((e, wait)) = &word.observed {
                if unordered(*e) {
                    found.push(SyncConflict::Overwritten { wait: wait.clone() });
                }
            }
        }
        let r = self.hand_out(a);
        for w in words_of(acc.addr, len) {
            self.words.insert(
                w,
                Word {
                    write: Some((r.clone(), acc.clone())),
                    observed: None,
                },
            );
        }
        found
    }

    /// `key` read the word at `addr` (a value wait that passed, a kernel's scalar load): it
    /// acquires what the word's latest write released.
    pub fn word_read(&mut self, key: AgentKey, addr: u64, len: u64) {
        let a = self.agent(key);
        for w in words_of(addr, len) {
            if let Some((r, _)) = self.words.get(&w).and_then(|x| x.write.clone()) {
                self.learn_released(a, &r);
            }
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
        let acc = Arc::new(acc);
        self.words.entry(w).or_default().observed = Some((e, acc));
    }
}

fn same_prior(f: &SyncConflict, prior: &Arc<SyncAccess>) -> bool {
    matches!(f, SyncConflict::TwoWriters { prior: p } if Arc::ptr_eq(p, prior))
}
