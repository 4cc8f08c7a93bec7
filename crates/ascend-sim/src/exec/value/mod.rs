//! Value write and value wait tasks: the write of a 64-bit word, and a wait's polling of
//! its word, pass by pass (in closed form, see [`polling`]), until the compare is
//! satisfied.

use ascend_chips::L2Agent;

use crate::compare;
use crate::engine::{Engine, Ev};
use crate::memory::Writer;
use crate::report::ValueWaitRecord;
use crate::stream::{Head, WaitState, Work};
use crate::types::Task;

mod polling;

pub(crate) use polling::PassClock;

impl Engine {
    /// A value write executed: store the word. Returns the task's fault, if any.
    pub(super) fn value_write(&mut self, s: u64, id: u64, addr: u64, value: u64) -> Option<String> {
        let now = self.now;
        let by = Writer::Task {
            task: id,
            stream: s,
            at_ns: now,
        };
        if let Err(e) = self.mem.check(addr, 8) {
            return Some(format!("task {id}: value write: {e}"));
        }
        let (written, fault) = self.agent_access(L2Agent::Scheduler, &[], &[(addr, 8)], by, |m| {
            m.write(addr, &value.to_le_bytes(), by)
        });
        match written {
            Ok(()) => {
                let who = crate::races::shadow::Accessor::Task {
                    task: id,
                    stream: s,
                    kind: "ValueWrite",
                };
                let fault = fault.or(self.race_word_write(who, addr, 8, Some(value)));
                self.on_mem_write(addr, 8);
                fault.map(|f| format!("task {id}: {f}"))
            }
            Err(e) => Some(format!("task {id}: value write: {e}")),
        }
    }

    /// A value wait reaches the scheduler: it starts polling `addr`.
    pub(super) fn dispatch_value_wait(&mut self, s: u64, addr: u64) {
        let t = self.chip.timing;
        let clock = PassClock {
            t0: self.now,
            dispatch_ns: t.sqe_dispatch_ns,
            read_ns: t.poll_read_ns,
            reads: t.poll_reads_per_pass,
        };
        let first = clock.first_read().at_ns;
        let gen = self.gen(s);
        self.streams.get_mut(&s).expect("stream").head = Head::Wait(WaitState {
            clock,
            addr,
            check_gen: 1,
            next_check: Some(first),
            warned_never_written: false,
        });
        self.watch(addr, s);
        self.schedule(first, Ev::Poll { s, gen, check: 1 });
    }

    /// A poll read of the value wait at the head of `s` returns.
    pub(super) fn on_poll(&mut self, s: u64) {
        let front = self.streams[&s].queue.front().expect("a head task");
        let id = front.id;
        let Work::User(Task::ValueWait { addr, value, mode }) = front.work else {
            return;
        };
        let geq = self.config.geq;
        let reader = Writer::Task {
            task: id,
            stream: s,
            at_ns: self.now,
        };
        let read = match self.mem.check(addr, 8) {
            Err(e) => Err(e),
            Ok(()) => {
                let (read, fault) =
                    self.agent_access(L2Agent::Scheduler, &[(addr, 8)], &[], reader, |m| {
                        m.read_u64(addr)
                    });
                if let Some(f) = fault {
                    self.unwatch(addr, s);
                    self.complete(s, Some(format!("task {id}: {f}")));
                    return;
                }
                read
            }
        };
        match read {
            Err(e) => {
                self.unwatch(addr, s);
                self.complete(s, Some(format!("task {id}: value wait poll read: {e}")));
            }
            Ok((m, info)) => {
                let Some(Head::Wait(w)) = self.streams.get_mut(&s).map(|st| &mut st.head) else {
                    return;
                };
                let first_warning = info.never_written && !w.warned_never_written;
                w.warned_never_written |= info.never_written;
                let clock = w.clock;
                if first_warning {
                    let what = format!("value wait task {id} poll");
                    if let Some(fault) = self.note_read(addr, 8, true, &what) {
                        self.unwatch(addr, s);
                        self.complete(s, Some(format!("task {id}: {fault}")));
                        return;
                    }
                }
                if compare::satisfied(mode, geq, m, value) {
                    let passes = clock.next_read_at_or_after(self.now).pass + 1;
                    let start = self.streams[&s].head_start;
                    let record = ValueWaitRecord {
                        task: id,
                        stream: s,
                        addr,
                        mode: compare::mode_name(mode).into(),
                        value,
                        start_ns: start,
                        end_ns: self.now,
                        duration_ns: self.now - start,
                        passes,
                        released_by: self.mem.last_writer(addr).map(|w| self.writer_name(&w)),
                    };
                    let limit = self.config.max_timeline_entries;
                    self.report.note_value_wait(record, limit);
                    self.race_wait_passed(s, id, addr, value, mode);
                    self.unwatch(addr, s);
                    self.complete(s, None);
                } else if let Some(Head::Wait(w)) = self.streams.get_mut(&s).map(|st| &mut st.head)
                {
                    w.next_check = None; // parked until a write to the word
                }
            }
        }
    }
}
