//! The watchdog's explanation of a stalled device: every blocked stream, its head task and
//! what that task waits for, with addresses, values, predicates and the last writers.

mod cores;
mod self_deadlock;

use crate::compare;
use crate::engine::Engine;
use crate::stream::{work_name, Head, Work};
use crate::types::{BlockedStream, Diagnosis, Task};

impl Engine {
    /// The diagnosis, when nothing is scheduled and some stream is blocked.
    pub fn diagnose(&self) -> Option<Diagnosis> {
        if self.has_pending() {
            return None;
        }
        self.diagnose_now("device stalled")
    }

    /// The diagnosis while kernels keep running without changing anything another agent or
    /// they themselves could see (spinning), if some stream is blocked or running a kernel.
    pub fn diagnose_spinning(&self) -> Option<Diagnosis> {
        self.diagnose_now("kernels spin without progress")
    }

    fn diagnose_now(&self, what: &str) -> Option<Diagnosis> {
        let mut blocked = Vec::new();
        for (&s, st) in &self.streams {
            let Some(task) = st.queue.front() else {
                continue;
            };
            let waiting_for = self.describe_head(s);
            blocked.push(BlockedStream {
                stream: s,
                task: task.id,
                waiting_for,
            });
        }
        if blocked.is_empty() {
            return None;
        }
        let mut text = format!(
            "{what} at {} ns: no scheduled work can release {} blocked stream(s)",
            self.now,
            blocked.len()
        );
        let host_waits = self.host_wait_lines();
        for w in &host_waits {
            text.push_str(&format!("\n  host thread waits in {w}"));
        }
        for b in &blocked {
            let line = format!(
                "stream {} head task {} ({}): {}",
                b.stream,
                b.task,
                self.streams[&b.stream]
                    .queue
                    .front()
                    .map(|t| work_name(&t.work))
                    .unwrap_or("?"),
                b.waiting_for
            );
            text.push_str("\n  ");
            text.push_str(&self.task_sites.said_for_task(&line, b.task));
        }
        Some(Diagnosis {
            at_ns: self.now,
            blocked,
            host_waits,
            text,
        })
    }

    /// What each host thread waiting on the device waits in, and which thread it is, one line
    /// each.
    pub fn host_wait_lines(&self) -> Vec<String> {
        self.host_waits
            .values()
            .map(|(w, thread)| format!("{w} (on {thread})"))
            .collect()
    }

    fn describe_head(&self, s: u64) -> String {
        let st = &self.streams[&s];
        let task = st.queue.front().expect("non-empty");
        match (&st.head, &task.work) {
            (Head::Wait(w), Work::User(Task::ValueWait { addr, value, mode })) => {
                let (m, info) = match self.mem.read_u64(*addr) {
                    Ok(x) => x,
                    Err(e) => return format!("value wait on a bad address: {e}"),
                };
                let pred = compare::describe(*mode, self.config.geq, m, *value);
                let writer = if info.never_written {
                    format!(
                        "never written, poison {:#018x}",
                        u64::from_le_bytes([self.mem.poison(); 8])
                    )
                } else {
                    match self.mem.last_writer(*addr) {
                        Some(w) => format!("last written by {w}"),
                        None => "writer unknown".to_string(),
                    }
                };
                let passes = w.clock.next_read_at_or_after(self.now).pass;
                let cached = self
                    .cached_store_note(*addr)
                    .map(|n| format!("; {n}"))
                    .unwrap_or_default();
                let itself = self
                    .self_deadlock_note(s, *addr, *value, *mode)
                    .map(|n| format!("; it waits for itself: {n}"))
                    .unwrap_or_default();
                format!(
                    "value wait on {addr:#x} (current value {m:#x}): {pred}; {writer}; \
                     polling since {} ns (~{passes} passes){cached}{itself}",
                    st.head_start
                )
            }
            (Head::WaitEvent, Work::User(Task::EventWait(e))) => {
                let seq = task.event_seq.unwrap_or(0);
                let mut where_ = format!("record #{seq} is not queued on any stream");
                for (&os, ost) in &self.streams {
                    if let Some(t) = ost.queue.iter().find(|t| {
                        matches!(t.work, Work::User(Task::EventRecord(_)))
                            && t.event_seq == Some(seq)
                    }) {
                        let state = if ost.queue.front().map(|h| h.id) == Some(t.id) {
                            "at its head"
                        } else {
                            "behind blocked tasks"
                        };
                        where_ = format!("record #{seq} is task {} on stream {os}, {state}", t.id);
                    }
                }
                format!("event {} record not yet executed: {where_}", e.0)
            }
            (Head::WaitBarrier, Work::User(Task::CmoWaitBarrier { barrier_ids })) => {
                let counts: Vec<String> = barrier_ids
                    .iter()
                    .map(|&id| {
                        let c = self.barriers.get(&(task.model, id)).copied().unwrap_or(0);
                        format!("id {id}: {c} outstanding INVALID")
                    })
                    .collect();
                format!("barrier wait: {}", counts.join(", "))
            }
            (Head::WaitNotify, Work::User(Task::NotifyWait { notify, .. })) => {
                let recorders: Vec<String> = self
                    .streams
                    .iter()
                    .filter(|(_, o)| {
                        o.queue.iter().any(
                            |t| matches!(&t.work, Work::User(Task::NotifyRecord(x)) if x == notify),
                        )
                    })
                    .map(|(os, _)| os.to_string())
                    .collect();
                let by = if recorders.is_empty() {
                    "no record of it is queued on any stream".to_string()
                } else {
                    format!(
                        "records queued behind blocked tasks on stream(s) {}",
                        recorders.join(", ")
                    )
                };
                format!("notify {} not set: {by}", notify.0)
            }
            (Head::WaitModel(i), _) => {
                let (m, rem) = self
                    .instances
                    .get(i)
                    .map(|x| (x.model, x.remaining))
                    .unwrap_or((0, 0));
                format!("run of model {m}: {rem} task(s) of the instance outstanding")
            }
            (Head::Kernel, _) => self.describe_kernel(task.id),
            (Head::HostCall(call), _) => self.describe_host_call(*call),
            (h, _) => format!("head in state {h:?}"),
        }
    }
}
