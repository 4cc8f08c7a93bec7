//! CMO tasks (cache maintenance operations, with or without a barrier id or a descriptor),
//! barrier waits and the barrier counters INVALID CMOs hold, and the reading of CMO
//! descriptors from device memory.

use ascend_chips::L2Agent;

use crate::copy_pool::Link;
use crate::engine::Engine;
use crate::report::{BarrierSample, CmoRecord};
use crate::stream::Head;
use crate::types::{CmoType, HazardKind, SimError, Task};

/// Most blocks one descriptor may describe (outer × inner); beyond, the task faults rather
/// than the simulator walking billions of blocks.
const MAX_DESC_BLOCKS: u64 = 1 << 20;

impl Engine {
    /// A CMO reaches the scheduler: check its range, count it against its barrier (an
    /// INVALID CMO carrying `barrier`, the model and barrier id), then start the engine job.
    pub(super) fn dispatch_cmo(
        &mut self,
        s: u64,
        id: u64,
        op: CmoType,
        addr: u64,
        len: u64,
        barrier: Option<(Option<u64>, u32)>,
    ) {
        if let Err(e) = self.mem.check(addr, len) {
            self.complete(s, Some(format!("task {id}: {e}")));
            return;
        }
        if let Some(key) = barrier {
            if op == CmoType::Invalid {
                let count = self.barriers.entry(key).or_default();
                *count += 1;
                let (count, device) = (*count, self.streams[&s].device);
                self.note_barrier_count(key, device, count);
            }
        }
        let (engine, link) = self.cmo_route(op);
        let bytes = self.cmo_bytes(op, addr, len);
        self.start_copy(s, engine, link, bytes, self.chip.timing.dma_setup_ns);
    }

    /// The bytes a CMO moves, from the device's L2 as it is now: PREFETCH reads the lines not
    /// resident (at most the L2's capacity), WRITEBACK and FLUSH write the dirty lines, INVALID
    /// walks the resident lines' tags. So its time follows the lines it acts on, not the range.
    fn cmo_bytes(&self, op: CmoType, addr: u64, len: u64) -> u64 {
        let Some(l2) = self.l2_of(addr) else {
            return len;
        };
        let (lines, resident, dirty) = l2.census(addr, len);
        let line = l2.line_bytes();
        match op {
            CmoType::Prefetch => (lines - resident).min(l2.capacity_lines()) * line,
            CmoType::Writeback | CmoType::Flush => dirty * line,
            CmoType::Invalid => resident * line,
        }
    }

    /// A CMO with a descriptor reaches the scheduler: read the descriptor now (what it holds
    /// when the task executes, not when it was launched), check every block it names, then
    /// start the engine job (whose setup includes the descriptor read).
    pub(super) fn dispatch_cmo_desc(&mut self, s: u64, id: u64, desc: u64, op: CmoType) {
        let t = self.chip.timing;
        let blocks = match self.read_desc(desc, id, s) {
            Ok(b) => b,
            Err(e) => {
                let msg = format!("task {id}: CMO descriptor read: {e}");
                self.complete(s, Some(msg));
                return;
            }
        };
        let mut bytes = 0u64;
        for &(addr, len) in &blocks {
            if let Err(e) = self.mem.check(addr, len) {
                self.complete(s, Some(format!("task {id}: {e}")));
                return;
            }
            bytes = bytes.saturating_add(self.cmo_bytes(op, addr, len));
        }
        // The hardware reads the descriptor once: its effect acts on these same blocks.
        self.desc_blocks.insert(id, blocks);
        let (engine, link) = self.cmo_route(op);
        let setup = t.dma_setup_ns + t.hbm_latency_ns;
        self.start_copy(s, engine, link, bytes, setup);
    }

    /// A barrier wait reaches the scheduler: pass at once if its barriers are clear, else
    /// block.
    pub(super) fn dispatch_barrier_wait(&mut self, s: u64, model: Option<u64>, ids: &[u32]) {
        if self.barriers_clear(model, ids) {
            self.run_for(s, 0);
        } else {
            self.streams.get_mut(&s).expect("stream").head = Head::WaitBarrier;
            self.add_barrier_waiter(s);
        }
    }

    fn cmo_route(&self, op: CmoType) -> (usize, Link) {
        let engine = match op {
            CmoType::Prefetch | CmoType::Writeback if self.has_cmo_engine() => 1,
            _ => 0,
        };
        let link = if op == CmoType::Invalid {
            Link::L2
        } else {
            Link::Hbm
        };
        (engine, link)
    }

    /// Reads a CMO descriptor: the blocks it names, `num_outer × num_inner` blocks of
    /// `len_inner` bytes at `src + o × stride_outer + i × stride_inner` (a count of 0 is
    /// taken as 1, as what hardware does with it is not known). Blocks that follow each other
    /// are merged.
    fn read_desc(
        &mut self,
        desc: u64,
        task: u64,
        stream: u64,
    ) -> Result<Vec<(u64, u64)>, SimError> {
        let size = self.chip.cmo.desc_size.max(32);
        let mut buf = vec![0u8; size as usize];
        self.mem.check(desc, size as u64)?;
        let reader = crate::memory::Writer::Task {
            task,
            stream,
            at_ns: self.now,
        };
        let (info, fault) = self.agent_access(
            L2Agent::Scheduler,
            &[(desc, size as u64)],
            &[],
            reader,
            |m| m.read(desc, &mut buf),
        );
        let info = info?;
        if let Some(fault) = fault {
            return Err(SimError::TaskFault(fault));
        }
        if let Some(fault) =
            self.note_read(desc, size as u64, info.never_written, "CMO descriptor read")
        {
            return Err(SimError::TaskFault(fault));
        }
        // The buffer holds at least the layout (a layout is never larger than its size).
        let f = ascend_types::CmoDescLayout::for_size(size)
            .fields(&buf)
            .ok_or_else(|| SimError::TaskFault(format!("the descriptor at {desc:#x} is short")))?;
        let (src, len) = (f.src, u64::from(f.len_inner));
        let outer = u64::from(f.num_outer).max(1);
        let inner = u64::from(f.num_inner).max(1);
        let (so, si) = (u64::from(f.stride_outer), u64::from(f.stride_inner));
        if outer * inner > MAX_DESC_BLOCKS {
            return Err(SimError::TaskFault(format!(
                "the descriptor at {desc:#x} names {outer} x {inner} blocks; the simulator \
                 handles at most {MAX_DESC_BLOCKS}"
            )));
        }
        let mut blocks: Vec<(u64, u64)> = Vec::new();
        for o in 0..outer {
            for i in 0..inner {
                let addr = src
                    .checked_add(o * so)
                    .and_then(|a| a.checked_add(i * si))
                    .ok_or_else(|| {
                        SimError::TaskFault(format!(
                            "the descriptor at {desc:#x} names a block beyond the address space"
                        ))
                    })?;
                // A virtual address names the memory mapped there.
                let addr = self.mem.translate(addr, len.max(1))?;
                match blocks.last_mut() {
                    Some((a, l)) if a.checked_add(*l) == Some(addr) => *l = l.saturating_add(len),
                    _ => blocks.push((addr, len)),
                }
            }
        }
        Ok(blocks)
    }

    /// Writes the header the runtime puts over the head of a descriptor when its CMO is
    /// launched: the operation's opcode in the first word, the rest of the header zero.
    pub(crate) fn write_desc_header(&mut self, desc: u64, op: CmoType, task: u64, stream: u64) {
        let size = self.chip.cmo.desc_size.max(32);
        let header = ascend_types::CmoDescLayout::for_size(size).header;
        if self.mem.check(desc, header as u64).is_err() {
            return; // the task faults on its descriptor when it executes
        }
        let mut bytes = vec![0u8; header];
        bytes[..4].copy_from_slice(&op.opcode().to_le_bytes());
        let by = crate::memory::Writer::Task {
            task,
            stream,
            at_ns: self.now,
        };
        // The runtime writes the header with a copy from the host.
        let (_, fault) = self.agent_access(
            L2Agent::CopyEngine,
            &[],
            &[(desc, header as u64)],
            by,
            |m| m.write(desc, &bytes, by),
        );
        if let Some(fault) = fault {
            tracing::warn!(task, stream, "descriptor header write: {fault}");
        }
    }

    /// A CMO task's engine job finished (`kind` is task `id` on stream `s`, a CMO task of
    /// model `model`): release its barrier and apply its effect (a descriptor's blocks as
    /// read at dispatch).
    pub(super) fn finish_cmo(
        &mut self,
        s: u64,
        id: u64,
        model: Option<u64>,
        kind: Task,
    ) -> Result<(), String> {
        match kind {
            Task::Cmo { op, addr, len } | Task::CmoWithBarrier { op, addr, len, .. } => {
                if let Task::CmoWithBarrier {
                    op: CmoType::Invalid,
                    barrier_id,
                    ..
                } = kind
                {
                    let device = self.streams.get(&s).map_or(0, |st| st.device);
                    if self.races.on {
                        self.races.barrier_done(s, model, barrier_id);
                    }
                    self.barrier_done(model, barrier_id, device);
                }
                self.cmo_effect(id, op, addr, len)
            }
            Task::CmoWithDesc { op, .. } => self
                .desc_blocks
                .remove(&id)
                .unwrap_or_default()
                .into_iter()
                .try_for_each(|(addr, len)| self.cmo_effect(id, op, addr, len)),
            _ => Ok(()),
        }
    }

    /// What a CMO does to the data: the device's L2 acts on the lines the range touches; a
    /// dirty line an INVALID drops loses its writes, which the report records.
    fn cmo_effect(&mut self, task: u64, op: CmoType, addr: u64, len: u64) -> Result<(), String> {
        self.mem.check(addr, len).map_err(|e| e.to_string())?;
        // The L2 in front of the memory the range lies in, whichever device's stream ran it.
        let Some(dev) = self.mem.device_of(addr) else {
            return Ok(());
        };
        let Some(l2) = self.l2.get_mut(dev as usize) else {
            return Ok(());
        };
        let line = l2.line_bytes();
        let outcome = l2.cmo(&mut self.mem, op, addr, len);
        let now = self.now;
        // Clobbers of writes around the L2 by a write-back, and wake-ups of the value waits
        // on lines whose data changed.
        let mut fault = self.l2_aftermath(dev);
        for &lost in &outcome.lost_lines {
            let writer = match self.last_writer_of_line(lost, line) {
                Some(w) => format!("last written by {w}"),
                None => "writer unknown".to_string(),
            };
            let detail = format!(
                "an INVALID (task {task}) of [{addr:#x}, +{len}) dropped the dirty line {lost:#x} ({line} \
                 bytes) without writing it back: its data is lost and the line reads as memory \
                 held it before ({writer}); a WRITEBACK or FLUSH first would keep it"
            );
            let f = self.hazard(HazardKind::LostWrite, dev, lost, line, detail);
            fault = fault.or(f);
        }
        if outcome.partial && op == CmoType::Invalid {
            let first = addr & !(line - 1);
            let end = addr.saturating_add(len).next_multiple_of(line);
            let last = end - line;
            // Live data outside the range lost with a dirty line the INVALID dropped.
            let lost_outside = |a: u64, b: u64, l: u64| {
                a < b
                    && outcome.lost_lines.contains(&l)
                    && (self.mem.check(a, 1).is_ok() || self.mem.check(b - 1, 1).is_ok())
            };
            if lost_outside(first, addr, first) || lost_outside(addr.saturating_add(len), end, last)
            {
                let detail = format!(
                    "an INVALID (task {task}) of [{addr:#x}, +{len}) is not aligned to {line}-byte lines: it \
                     dropped the whole dirty lines it touches in [{first:#x}, {end:#x}), losing \
                     writes to live data outside the range"
                );
                let f = self.hazard(HazardKind::PartialLine, dev, first, end - first, detail);
                fault = fault.or(f);
            }
        }
        self.report.note_cmo(CmoRecord {
            op: op.name().to_string(),
            addr,
            len,
            lines: outcome.lines,
            bytes_written_back: outcome.bytes_written_back,
            bytes_filled: outcome.bytes_filled,
            lines_lost: outcome.lost_lines.len() as u64,
            partial_lines: outcome.partial,
            at_ns: now,
        });
        if let Some(f) = fault {
            return Err(f);
        }
        Ok(())
    }

    /// The most recent recorded writer of any word of the line at `line`.
    fn last_writer_of_line(&self, line: u64, bytes: u64) -> Option<crate::memory::Writer> {
        let at = |w: &crate::memory::Writer| w.at_ns();
        (0..bytes / 8)
            .filter_map(|k| self.mem.last_writer(line + 8 * k))
            .max_by_key(at)
    }

    /// True when every barrier of `ids` (in `model`'s barrier-id map) has no outstanding
    /// INVALID CMO.
    pub(crate) fn barriers_clear(&self, model: Option<u64>, ids: &[u32]) -> bool {
        ids.iter()
            .all(|&id| self.barriers.get(&(model, id)).copied().unwrap_or(0) == 0)
    }

    /// An INVALID CMO carrying `id` completed (or was cancelled) on `device`: decrement and
    /// release barrier waits.
    pub(crate) fn barrier_done(&mut self, model: Option<u64>, id: u32, device: u32) {
        if let Some(c) = self.barriers.get_mut(&(model, id)) {
            *c = c.saturating_sub(1);
            let count = *c;
            if count == 0 {
                self.barriers.remove(&(model, id));
            }
            self.note_barrier_count((model, id), device, count);
        }
        self.wake_barrier_waiters();
    }

    /// Samples a barrier counter for the timeline.
    fn note_barrier_count(&mut self, (model, id): (Option<u64>, u32), device: u32, count: u32) {
        let limit = self.config.max_timeline_entries;
        let sample = BarrierSample {
            device,
            model,
            barrier_id: id,
            at_ns: self.now,
            outstanding: count,
        };
        self.report.note_barrier(sample, limit);
    }
}
