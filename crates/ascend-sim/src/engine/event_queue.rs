//! The event queue: what is scheduled to happen, ordered by simulated time and then by the
//! order it was scheduled in (a sequence number), so that the timeline is deterministic.
//! Both parts of the order live in one 128-bit key, so that ordering two entries is one
//! comparison, whatever the event carries.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::Ev;

/// One scheduled event.
#[derive(Debug)]
struct Scheduled {
    /// The time in the high 64 bits, the sequence number in the low ones.
    key: u128,
    ev: Ev,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Scheduled {}

impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scheduled {
    /// Reversed, so that the max-heap hands out the earliest key first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Events by (time, scheduling order), earliest first.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Scheduled>,
    seq: u64,
}

impl EventQueue {
    /// Schedules `ev` at `at`, after everything already scheduled at `at`.
    pub fn push(&mut self, at: u64, ev: Ev) {
        self.seq += 1;
        let key = (u128::from(at) << 64) | u128::from(self.seq);
        self.heap.push(Scheduled { key, ev });
    }

    /// The time of the earliest event.
    pub fn next_time(&self) -> Option<u64> {
        self.heap.peek().map(|s| (s.key >> 64) as u64)
    }

    /// The earliest event.
    pub fn peek(&self) -> Option<&Ev> {
        self.heap.peek().map(|s| &s.ev)
    }

    /// True when an event other than a kernel block's step is scheduled before `t`.
    pub fn other_than_kernel_steps_before(&self, t: u64) -> bool {
        self.heap
            .iter()
            .any(|e| !matches!(e.ev, Ev::KernelStep { .. }) && ((e.key >> 64) as u64) < t)
    }

    /// Moves every kernel block's step scheduled before `t` to `t`, in the order they had.
    pub fn delay_kernel_steps_to(&mut self, t: u64) {
        let mut all = std::mem::take(&mut self.heap).into_vec();
        all.sort_by_key(|e| e.key);
        for e in all {
            let at = (e.key >> 64) as u64;
            if matches!(e.ev, Ev::KernelStep { .. }) && at < t {
                self.push(t, e.ev);
            } else {
                self.heap.push(e);
            }
        }
    }

    /// Takes the earliest event, with its time.
    pub fn pop(&mut self) -> Option<(u64, Ev)> {
        self.heap.pop().map(|s| ((s.key >> 64) as u64, s.ev))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_times_first_and_equal_times_in_scheduling_order() {
        let mut q = EventQueue::default();
        let ev = |dev| Ev::KernelPlace { dev };
        q.push(5, ev(0));
        q.push(3, ev(1));
        q.push(5, ev(2));
        q.push(u64::MAX >> 2, ev(3));
        q.push(3, ev(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop())
            .map(|(t, e)| match e {
                Ev::KernelPlace { dev } => (t, dev),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(order, [(3, 1), (3, 4), (5, 0), (5, 2), (u64::MAX >> 2, 3)]);
        assert!(q.next_time().is_none());
    }

    #[test]
    fn delayed_kernel_steps_keep_their_order_and_other_events_their_times() {
        let mut q = EventQueue::default();
        let step = |core| Ev::KernelStep {
            dev: 0,
            core,
            gen: 0,
        };
        q.push(4, step(1));
        q.push(2, step(0));
        q.push(3, Ev::KernelPlace { dev: 0 });
        q.push(20, step(2));
        assert!(q.other_than_kernel_steps_before(4));
        assert!(!q.other_than_kernel_steps_before(3));
        q.delay_kernel_steps_to(10);
        let order: Vec<_> = std::iter::from_fn(|| q.pop())
            .map(|(t, e)| match e {
                Ev::KernelStep { core, .. } => (t, core),
                Ev::KernelPlace { .. } => (t, 99),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(order, [(3, 99), (10, 0), (10, 1), (20, 2)]);
    }
}
