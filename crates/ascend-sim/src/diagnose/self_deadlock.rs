//! The watchdog's hint for a value wait that waits for itself: the write that would release it
//! is queued behind it on its own stream, or behind an event wait on another stream whose
//! record is queued behind it.

use crate::compare;
use crate::engine::Engine;
use crate::stream::Work;
use crate::types::Task;

impl Engine {
    /// For the value wait at the head of stream `s` on `addr` (waiting for `value` by `mode`):
    /// the queued value writes of that word that can run only after the wait, said as a
    /// sentence, or `None` when there is none.
    pub(super) fn self_deadlock_note(
        &self,
        s: u64,
        addr: u64,
        value: u64,
        mode: crate::types::WaitMode,
    ) -> Option<String> {
        let st = self.streams.get(&s)?;
        let word = addr & !7;
        let releases = |v: u64| compare::satisfied(mode, self.config.geq, v, value);
        let says = |task: u64, v: u64, on: &str| {
            let would = if releases(v) {
                "which would release it"
            } else {
                "which would not release it either"
            };
            format!("task {task} {on} writes {v} to this address ({would}), but runs only after this wait")
        };
        let mut notes = Vec::new();
        // Behind it on its own stream.
        for t in st.queue.iter().skip(1) {
            if let Work::User(Task::ValueWrite { addr: a, value: v }) = t.work {
                if a & !7 == word {
                    notes.push(says(t.id, v, "on this stream"));
                }
            }
        }
        // Behind an event wait on another stream, whose record is queued behind this wait.
        let records_behind: Vec<u64> = st
            .queue
            .iter()
            .skip(1)
            .filter(|t| matches!(t.work, Work::User(Task::EventRecord(_))))
            .filter_map(|t| t.event_seq)
            .collect();
        if !records_behind.is_empty() {
            for (&os, ost) in &self.streams {
                if os == s {
                    continue;
                }
                let mut gated = false;
                for t in &ost.queue {
                    if let Work::User(Task::EventWait(_)) = t.work {
                        gated |= t.event_seq.is_some_and(|q| records_behind.contains(&q));
                    }
                    if let (true, Work::User(Task::ValueWrite { addr: a, value: v })) =
                        (gated, &t.work)
                    {
                        if a & !7 == word {
                            let on = format!(
                                "on stream {os} (behind a wait for an event this stream records after this wait)"
                            );
                            notes.push(says(t.id, *v, &on));
                        }
                    }
                }
            }
        }
        (!notes.is_empty()).then(|| notes.join("; "))
    }
}
