//! Submission: the queue slots a task takes, enqueueing tasks on plain streams, recording
//! them on model-bound streams, and putting a model instance's tasks on their streams.

use super::Engine;
use crate::objects::Instance;
use crate::stream::{QueuedTask, Work};
use crate::types::{ModelId, SimError, Task};

impl Engine {
    /// Slots a task takes in its stream's queue.
    pub fn slots_of(&self, work: &Work) -> u32 {
        match work {
            Work::User(Task::ValueWait { .. }) => self.chip.limits.value_wait_slots.max(1),
            _ => 1,
        }
    }

    /// Queue capacity of a plain stream, in slots.
    pub fn queue_capacity(&self) -> u32 {
        self.chip.limits.max_tasks_per_stream().max(1)
    }

    /// Records a task on a model-bound stream.
    pub fn record(&mut self, s: u64, work: Work) -> Result<u64, SimError> {
        let slots = self.slots_of(&work);
        let cap = self.queue_capacity();
        let st = self.streams.get_mut(&s).expect("checked");
        if st.recorded_slots + slots > cap {
            return Err(SimError::QueueFull(s));
        }
        st.recorded_slots += slots;
        self.next_task += 1;
        let id = self.next_task;
        if let Work::User(Task::CmoWithDesc { desc, op }) = work {
            self.write_desc_header(desc, op, id, s);
        }
        let st = self.streams.get_mut(&s).expect("checked");
        st.recorded.push((work, slots, id));
        self.progress += 1;
        Ok(id)
    }

    /// The record number an event task carries, numbered as the host submits it: a new
    /// record number for a record, the number of the latest record submitted for a wait.
    fn event_seq_of(&mut self, work: &Work) -> Option<u64> {
        match work {
            Work::User(Task::EventRecord(e)) => self.new_record(e.0),
            Work::User(Task::EventWait(e)) => {
                let seq = self.events.get(&e.0).and_then(|ev| ev.latest);
                if let (true, Some(q)) = (self.races.on, seq) {
                    self.races.event_wait_queued(e.0, q);
                }
                seq
            }
            _ => None,
        }
    }

    /// Enqueues a task on a plain stream (room has been checked).
    pub fn enqueue(&mut self, s: u64, work: Work) -> u64 {
        let slots = self.slots_of(&work);
        let id = self.new_task_id();
        crate::host_track::note_task(id);
        let after = self
            .races
            .on
            .then(|| self.races.submitted(crate::facade::caller_key()));
        let event_seq = self.event_seq_of(&work);
        // The runtime writes its DMA header over the descriptor's head at launch.
        if let Work::User(Task::CmoWithDesc { desc, op }) = work {
            self.write_desc_header(desc, op, id, s);
        }
        let task = QueuedTask {
            id,
            work,
            slots,
            submit_ns: self.now,
            instance: None,
            model: None,
            event_seq,
            after,
        };
        self.push_task(s, task);
        id
    }

    /// Appends a task to a stream's queue and starts it if the stream was idle.
    pub fn push_task(&mut self, s: u64, task: QueuedTask) {
        let st = self.streams.get_mut(&s).expect("checked");
        st.slots_used += task.slots;
        st.queue.push_back(task);
        self.progress += 1;
        if st.queue.len() == 1 {
            let device = st.device;
            self.note_stream_busy(device, true);
            self.start_head(s);
        }
    }

    /// Enqueues `execute_model_async`'s marker task on `s`. The instance's event records and
    /// waits are numbered now, in the host's order (as the vendor's runtime commits a model
    /// run's event records when the host makes the call): a wait the host submits after this
    /// call waits for this run's record, however late the run starts on the device.
    pub fn enqueue_model_run(&mut self, s: u64, model: u64) -> u64 {
        let plan = self.instance_plan(model);
        let numbering = self.number_plan(&plan);
        let id = self.new_task_id();
        self.run_numbering.insert(id, numbering);
        crate::host_track::note_task(id);
        let after = self
            .races
            .on
            .then(|| self.races.submitted(crate::facade::caller_key()));
        let task = QueuedTask {
            id,
            work: Work::ModelRun(ModelId(model)),
            slots: 1,
            submit_ns: self.now,
            instance: None,
            model: None,
            event_seq: None,
            after,
        };
        self.push_task(s, task);
        id
    }

    /// The tasks an instance of `model` runs: each stream's recorded tasks, with their stream
    /// and recording number.
    fn instance_plan(&self, model: u64) -> Vec<(u64, Work, u64)> {
        let streams = self
            .models
            .get(&model)
            .map(|m| m.streams.clone())
            .unwrap_or_default();
        let mut plan: Vec<(u64, Work, u64)> = Vec::new();
        for &s in &streams {
            if let Some(st) = self.streams.get(&s) {
                plan.extend(st.recorded.iter().map(|(k, _, id)| (s, k.clone(), *id)));
            }
        }
        plan
    }

    /// Numbers the event records and waits of one instance's `plan` now. They are numbered
    /// in the host's submission order across the model's streams: a wait waits for the latest
    /// record submitted before it (one of this instance, or an earlier one), never for a
    /// record submitted after it.
    fn number_plan(&mut self, plan: &[(u64, Work, u64)]) -> RunNumbering {
        let mut order: Vec<usize> = (0..plan.len()).collect();
        order.sort_by_key(|&i| plan[i].2);
        let mut seqs: Vec<Option<u64>> = vec![None; plan.len()];
        for i in order {
            seqs[i] = self.event_seq_of(&plan[i].1);
        }
        let events = plan
            .iter()
            .zip(&seqs)
            .filter_map(|((_, w, _), seq)| match (w, seq) {
                (Work::User(Task::EventRecord(e)), Some(q)) => Some((e.0, *q, true)),
                (Work::User(Task::EventWait(e)), Some(q)) => Some((e.0, *q, false)),
                _ => None,
            })
            .collect();
        RunNumbering { seqs, events }
    }

    /// A queued model run (marker task `task`) will not start: its numbered records count as
    /// done (nothing waits on them for ever) and its waits as gone.
    pub(crate) fn drop_run_numbering(&mut self, task: u64) {
        let Some(n) = self.run_numbering.remove(&task) else {
            return;
        };
        for (e, seq, record) in n.events {
            if record {
                self.record_done(e, seq, None);
            } else if self.races.on {
                self.races.event_wait_gone(e, seq);
            }
        }
    }

    /// Starts one instance of `model`: copies of all recorded tasks go to their streams, with
    /// the event numbering made when the run was queued (`numbering`), or made now.
    pub fn spawn_instance(
        &mut self,
        model: u64,
        run_stream: Option<u64>,
        numbering: Option<RunNumbering>,
    ) -> u64 {
        let id = self.next_instance;
        self.next_instance += 1;
        let plan = self.instance_plan(model);
        let seqs = match numbering {
            Some(n) => n.seqs,
            None => self.number_plan(&plan).seqs,
        };
        self.instances.insert(
            id,
            Instance {
                model,
                remaining: plan.len() as u64,
                run_stream,
                fault: None,
                abandoned: false,
            },
        );
        // The instance's tasks are ordered after the run that starts it: the marker task on
        // its stream, or the host thread that executes the model.
        let base = self.races.on.then(|| {
            let key = match run_stream {
                Some(rs) => crate::races::AgentKey::Stream(rs),
                None => crate::races::AgentKey::Host(crate::facade::caller_key()),
            };
            self.races.run_base(key)
        });
        let seqs = seqs.into_iter().chain(std::iter::repeat(None));
        for ((s, work, _), event_seq) in plan.into_iter().zip(seqs) {
            let task = QueuedTask {
                id: self.new_task_id(),
                work,
                slots: 0,
                submit_ns: self.now,
                instance: Some(id),
                model: Some(model),
                event_seq,
                after: base.clone(),
            };
            self.push_task(s, task);
        }
        id
    }
}

/// The event numbering of a queued model run's instance (see [`Engine::enqueue_model_run`]).
#[derive(Debug, Clone)]
pub(crate) struct RunNumbering {
    /// The record number of each planned task (in [`Engine::instance_plan`]'s order).
    seqs: Vec<Option<u64>>,
    /// Each numbered record and wait: (event, record number, a record).
    events: Vec<(u64, u64, bool)>,
}
