//! The waiter sets: the streams whose head task is blocked on an 8-byte word (value waits),
//! an event record, a notify or a barrier, and adding streams to them, removing them and
//! waking them when what they wait for happens. The sets themselves are fields of [`Engine`].

use std::collections::{BTreeMap, BTreeSet};

use super::{Engine, Ev};
use crate::stream::{Head, Work};
use crate::types::Task;

/// Removes stream `s` from every set of `waiters`, and the sets it leaves empty.
fn remove_everywhere(waiters: &mut BTreeMap<u64, BTreeSet<u64>>, s: u64) {
    for set in waiters.values_mut() {
        set.remove(&s);
    }
    waiters.retain(|_, set| !set.is_empty());
}

impl Engine {
    // ----- value waits -----

    /// Stream `s`'s head value wait watches the 8-byte word holding `addr`.
    pub(crate) fn watch(&mut self, addr: u64, s: u64) {
        self.watchers.add(addr, s);
    }

    /// Stream `s` no longer watches the word holding `addr`.
    pub(crate) fn unwatch(&mut self, addr: u64, s: u64) {
        self.watchers.remove(addr, s);
    }

    /// Device memory `[addr, addr+len)` changed now: schedule the next poll read of every
    /// value wait watching a word in it.
    pub(crate) fn on_mem_write(&mut self, addr: u64, len: u64) {
        self.effects += 1;
        if self.watchers.is_empty() {
            return;
        }
        let mut hits = std::mem::take(&mut self.wake_scratch);
        hits.clear();
        hits.extend(self.watchers.touching(addr, len).map(|(_, s)| s));
        let now = self.now;
        for &s in &hits {
            let Some(st) = self.streams.get_mut(&s) else {
                continue;
            };
            let gen = st.gen;
            if let Head::Wait(w) = &mut st.head {
                let next = w.clock.next_read_at_or_after(now).at_ns;
                if w.next_check.is_none_or(|c| c > next) {
                    w.check_gen += 1;
                    w.next_check = Some(next);
                    let check = w.check_gen;
                    self.schedule(next, Ev::Poll { s, gen, check });
                }
            }
        }
        self.wake_scratch = hits;
    }

    // ----- event waits -----

    /// Stream `s`'s head event wait is blocked on event `e`.
    pub(crate) fn add_event_waiter(&mut self, e: u64, s: u64) {
        self.event_waiters.entry(e).or_default().insert(s);
    }

    /// A record of event `e` (a known event) settled: release the waits on `e` whose record
    /// is now done.
    pub(crate) fn wake_event_waiters(&mut self, e: u64) {
        let waiters: Vec<u64> = self
            .event_waiters
            .get(&e)
            .map(|w| w.iter().copied().collect())
            .unwrap_or_default();
        let event_ns = self.chip.timing.event_ns;
        for s in waiters {
            let ready = self.streams.get(&s).is_some_and(|st| {
                matches!(st.head, Head::WaitEvent)
                    && st
                        .queue
                        .front()
                        .and_then(|t| t.event_seq)
                        .is_none_or(|q| self.events[&e].done(q))
            });
            if ready {
                if let Some(w) = self.event_waiters.get_mut(&e) {
                    w.remove(&s);
                }
                self.run_for(s, event_ns);
            }
        }
        if self.event_waiters.get(&e).is_some_and(|w| w.is_empty()) {
            self.event_waiters.remove(&e);
        }
    }

    // ----- notify waits -----

    /// Stream `s`'s head notify wait is blocked on notify `n`.
    pub(crate) fn add_notify_waiter(&mut self, n: u64, s: u64) {
        self.notify_waiters.entry(n).or_default().insert(s);
    }

    /// Stream `s` no longer waits on notify `n`.
    pub(crate) fn remove_notify_waiter(&mut self, n: u64, s: u64) {
        if let Some(w) = self.notify_waiters.get_mut(&n) {
            w.remove(&s);
            if w.is_empty() {
                self.notify_waiters.remove(&n);
            }
        }
    }

    /// Takes the waiter that a set notify `n` releases (the lowest stream number), if any.
    pub(crate) fn take_notify_waiter(&mut self, n: u64) -> Option<u64> {
        let s = self
            .notify_waiters
            .get(&n)
            .and_then(|w| w.iter().next().copied())?;
        self.remove_notify_waiter(n, s);
        Some(s)
    }

    // ----- barrier waits -----

    /// Stream `s`'s head barrier wait is blocked.
    pub(crate) fn add_barrier_waiter(&mut self, s: u64) {
        self.barrier_waiters.insert(s);
    }

    /// A barrier counter went down: release the barrier waits whose barriers are all clear.
    pub(crate) fn wake_barrier_waiters(&mut self) {
        let waiters: Vec<u64> = self.barrier_waiters.iter().copied().collect();
        for s in waiters {
            let Some(st) = self.streams.get(&s) else {
                continue;
            };
            let Some(t) = st.queue.front() else { continue };
            if let Work::User(Task::CmoWaitBarrier { barrier_ids }) = &t.work {
                if self.barriers_clear(t.model, barrier_ids) {
                    self.barrier_waiters.remove(&s);
                    self.run_for(s, 0);
                }
            }
        }
    }

    // ----- all -----

    /// Stream `s`, whose head is in state `head`, goes (force destroy): take it out of the
    /// waiter set that head is blocked in.
    pub(super) fn forget_waiter(&mut self, s: u64, head: &Head) {
        match head {
            Head::Wait(w) => self.unwatch(w.addr, s),
            Head::WaitEvent => remove_everywhere(&mut self.event_waiters, s),
            Head::WaitBarrier => {
                self.barrier_waiters.remove(&s);
            }
            Head::WaitNotify => remove_everywhere(&mut self.notify_waiters, s),
            _ => {}
        }
    }
}
