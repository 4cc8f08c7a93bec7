//! Labels in a model's streams: a switch reads its index and jumps forward, on its own stream,
//! to the label the index picks, skipping the tasks in between.

use ascend_chips::L2Agent;

use crate::engine::Engine;
use crate::memory::Writer;
use crate::stream::Work;
use crate::types::Task;

impl Engine {
    /// The label switch task `id` on stream `s` jumps to: `labels[i]`, `i` the 32-bit value at
    /// `index` clamped to `max - 1`; a fault when there is none.
    pub(super) fn label_target(
        &mut self,
        s: u64,
        id: u64,
        index: u64,
        max: u32,
        labels: &[u64],
    ) -> Result<u64, String> {
        if max == 0 {
            return Err(format!(
                "task {id}: a label switch with maxValue 0 has no label to go to"
            ));
        }
        let by = Writer::Task {
            task: id,
            stream: s,
            at_ns: self.now,
        };
        let mut b = [0u8; 4];
        if let Some(f) = self.race_ranges(s, id, "LabelSwitch", &[(index, 4)], &[]) {
            return Err(f);
        }
        let (read, fault) = self.agent_access(L2Agent::Scheduler, &[(index, 4)], &[], by, |m| {
            m.read(index, &mut b)
        });
        read.map_err(|e| format!("task {id}: reading the switch index: {e}"))?;
        if let Some(f) = fault {
            return Err(f);
        }
        let i = u32::from_le_bytes(b).min(max - 1) as usize;
        labels.get(i).copied().ok_or_else(|| {
            format!(
                "task {id}: switch index {i} is past the {} labels of the list",
                labels.len()
            )
        })
    }

    /// Where on stream `s` (0 is the head: the switch) the task setting `label` is; `Err` with
    /// the fault when it is not later on the same stream (a backward jump, or one to another
    /// stream of the model, is not modelled).
    pub(super) fn label_position(&self, s: u64, label: u64) -> Result<usize, String> {
        self.streams
            .get(&s)
            .and_then(|st| {
                st.queue.iter().position(
                    |t| matches!(&t.work, Work::User(Task::LabelSet { label: l }) if *l == label),
                )
            })
            .ok_or_else(|| {
                format!(
                    "a label switch to label {label}, which is not set later on this stream: \
                     jumps backwards or to another stream of the model are not modelled"
                )
            })
    }
}
