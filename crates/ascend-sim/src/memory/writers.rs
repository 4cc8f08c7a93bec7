//! Who last wrote device memory, kept for diagnoses: the writer of each 8-byte word for small
//! writes (value writes and the like), and a bounded log of recent large writes.

use std::collections::{BTreeMap, VecDeque};

use crate::types::DevAddr;

/// Who last wrote a range of device memory (for diagnoses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// A block of a kernel task, from an AI core (a data-cache write-back or a copy from a
    /// local buffer).
    Core {
        /// The kernel's task number.
        task: u64,
        /// Its stream.
        stream: u64,
        /// The block.
        block: u32,
        /// The AI core.
        core: u32,
        /// Simulated time.
        at_ns: u64,
    },
}

impl Writer {
    /// When the write happened.
    pub fn at_ns(&self) -> u64 {
        match self {
            Writer::Task { at_ns, .. } | Writer::Host { at_ns } | Writer::Core { at_ns, .. } => {
                *at_ns
            }
        }
    }
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
            Writer::Core {
                task,
                stream,
                block,
                core,
                at_ns,
            } => write!(
                f,
                "kernel task {task} (stream {stream}) block {block} on AI core {core} at {at_ns} ns"
            ),
        }
    }
}

const RANGE_WRITER_LOG: usize = 256;
const SMALL_WRITE: u64 = 64;

/// The record of who last wrote what.
#[derive(Debug, Default)]
pub(super) struct WriterLog {
    /// Last writer per 8-byte word, kept for small writes (value writes and the like).
    word_writers: BTreeMap<u64, Writer>,
    /// Recent large writes (bounded), searched newest first.
    range_writers: VecDeque<(u64, u64, Writer)>,
}

impl WriterLog {
    /// Records that `by` wrote `[addr, addr+len)`.
    pub(super) fn note(&mut self, addr: u64, len: u64, by: Writer) {
        if len == 0 {
            return;
        }
        if len <= SMALL_WRITE {
            let mut w = addr & !7;
            while w < addr + len {
                self.word_writers.insert(w, by);
                w += 8;
            }
        } else {
            if self.range_writers.len() >= RANGE_WRITER_LOG {
                self.range_writers.pop_front();
            }
            self.range_writers.push_back((addr, addr + len, by));
        }
    }

    /// Forgets every writer of `[addr, addr+len)` (the range was freed).
    pub(super) fn forget(&mut self, addr: u64, len: u64) {
        let end = addr + len;
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

    /// The last recorded writer of the 8-byte word at `addr`, if known.
    pub(super) fn last(&self, addr: DevAddr) -> Option<Writer> {
        let word = self.word_writers.get(&(addr & !7));
        let range = self
            .range_writers
            .iter()
            .rev()
            .find(|(s, e, _)| *s < addr + 8 && *e > addr)
            .map(|(_, _, w)| w);
        let at = |w: &Writer| w.at_ns();
        match (word, range) {
            (Some(a), Some(b)) => Some(if at(b) > at(a) { *b } else { *a }),
            (a, b) => a.or(b).cloned(),
        }
    }
}
