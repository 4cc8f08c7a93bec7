//! A core's data cache under a kernel: filling a line on a miss, writing dirty lines back
//! (evicted, by `dcci`, at the kernel's end) and dropping the cache.

use ascend_chips::L2Agent;

use crate::engine::{Engine, Ev, PendingFill};
use crate::kernel::DLine;

/// What ends a data-cache line without a `dcci` of the kernel's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineEnd {
    /// Evicted to make room.
    Eviction,
    /// Written back by `dcci`.
    Dcci,
    /// Written back at the kernel's end.
    KernelEnd,
}

impl LineEnd {
    fn says(self) -> &'static str {
        match self {
            LineEnd::Eviction => "an eviction",
            LineEnd::Dcci => "a dcci",
            LineEnd::KernelEnd => "the kernel's end",
        }
    }
}

impl Engine {
    /// Makes the line holding `addr` resident in the data cache of `core` (filling it
    /// through the AI cores' memory path on a miss, and writing back what that evicts).
    /// Returns the time of the fill (0 on a hit).
    pub(super) fn dcache_fill(
        &mut self,
        dev: usize,
        core: usize,
        addr: u64,
    ) -> Result<u64, String> {
        let dc = &self.cores[dev][core].dcache;
        let line = dc.line_of(addr);
        if dc.get(line).is_some() {
            return Ok(0);
        }
        let lb = dc.line_bytes();
        let t = self.chip.timing;
        let in_l2 = self
            .l2_of(line)
            .is_some_and(|l2| l2.state_of(line).is_some());
        let by = self.core_writer(dev, core);
        if self.dirty_dlines > 0 && self.dirty_elsewhere(dev, core, line) {
            // Another core holds a store here not written back: looked at again after one
            // polling pass, when a dcci that was on its way has written it back (a poll
            // that read just before it is no hazard) and one that is missing has not.
            let fill = PendingFill {
                dev: dev as u32,
                core: core as u32,
                line,
                block: self.cores[dev][core].slot.as_ref().map_or(0, |s| s.id),
                at_ns: self.now,
            };
            self.pending_fill_checks.push(fill);
            self.schedule(
                self.now.saturating_add(self.poll_pass_ns()),
                Ev::FillCheck(fill),
            );
        }
        let mut l = self.cores[dev][core].dcache.blank_line();
        let (_, fault) = self.agent_access(L2Agent::AiCore, &[(line, lb)], &[], by, |m| {
            m.peek(line, &mut l.data)
        });
        let evicted = self.cores[dev][core].dcache.fill(line, l);
        if let Some(slot) = self.cores[dev][core].slot.as_mut() {
            if !slot.recent_fills.contains(line) {
                // Reading through new memory is progress; a poll refilling its line is not.
                self.effects += 1;
                slot.recent_fills.push(line);
            }
        }
        if let Some((old, l)) = evicted {
            let r = if l.dirty {
                self.write_back_dline(dev, core, old, &l, LineEnd::Eviction)
            } else {
                Ok(())
            };
            self.cores[dev][core].dcache.recycle(l);
            r?;
        }
        if let Some(f) = fault {
            return Err(f);
        }
        Ok(if in_l2 { t.l2_hit_ns } else { t.hbm_latency_ns })
    }

    /// Some core of device `dev` other than `core` holds `line` dirty (and not yet reported).
    fn dirty_elsewhere(&self, dev: usize, core: usize, line: u64) -> bool {
        self.cores[dev]
            .iter()
            .enumerate()
            .any(|(c, x)| c != core && x.dcache.get(line).is_some_and(|l| l.dirty && !l.reported))
    }

    /// One polling pass after a block filled a line while another core held a store there
    /// not written back: if that store is still not in memory, the fill read memory without
    /// it (`invisible_write`); a hazard set to fail ends the block, if it still runs. A fill
    /// already looked at (its writer's kernel ended first) is not looked at again.
    pub(crate) fn on_fill_check(&mut self, fill: PendingFill) {
        let Some(i) = self.pending_fill_checks.iter().position(|p| *p == fill) else {
            return;
        };
        self.pending_fill_checks.swap_remove(i);
        let (dev, core) = (fill.dev as usize, fill.core as usize);
        if let Some(f) = self.fill_check_hazard(fill) {
            let running = self.cores[dev][core]
                .slot
                .as_ref()
                .is_some_and(|s| s.id == fill.block);
            if running {
                self.block_end(dev, core, Some(f));
            }
        }
    }

    /// Before the block on `core` of `dev` ends and its kernel's tail writes back (or drops)
    /// its dirty lines: the fills other blocks made of those lines, still waiting for their
    /// second look, take it now, since no dcci of the writer can come any more. Returns the
    /// fault of a hazard set to fail.
    pub(crate) fn fill_checks_before_tail(&mut self, dev: usize, core: usize) -> Option<String> {
        let mut fault = None;
        let mut i = 0;
        while i < self.pending_fill_checks.len() {
            let fill = self.pending_fill_checks[i];
            let dirty_here = fill.dev as usize == dev
                && self.cores[dev][core]
                    .dcache
                    .get(fill.line)
                    .is_some_and(|l| l.dirty);
            if !dirty_here {
                i += 1;
                continue;
            }
            self.pending_fill_checks.swap_remove(i);
            if let Some(f) = self.fill_check_hazard(fill) {
                fault.get_or_insert(f);
            }
        }
        fault
    }

    /// The second look at `fill`: an `invisible_write` if a store another core held there is
    /// still not in memory. Returns the fault of a hazard set to fail.
    fn fill_check_hazard(&mut self, fill: PendingFill) -> Option<String> {
        let PendingFill {
            dev,
            core,
            line,
            block,
            at_ns,
        } = fill;
        let (dev, core) = (dev as usize, core as usize);
        let lb = self.cores[dev][core].dcache.line_bytes();
        let running = self.cores[dev][core]
            .slot
            .as_ref()
            .is_some_and(|s| s.id == block);
        let by = if running {
            // The block as it was at the fill.
            let mut w = self.core_writer(dev, core);
            if let crate::memory::Writer::Core { at_ns: t, .. } = &mut w {
                *t = at_ns;
            }
            w.to_string()
        } else {
            format!("a kernel block on AI core {core} at {at_ns} ns")
        };
        let reader = format!("a data-cache fill by {by}");
        self.check_invisible_writes(line, lb, reader, Some((dev, core)))
    }

    /// Writes the dirty data-cache line `line` (taken out of `core`'s cache) back to memory,
    /// whole: bytes the core did not store but memory changed since the fill are overwritten
    /// with the core's stale copy (reported as false sharing).
    pub(crate) fn write_back_dline(
        &mut self,
        dev: usize,
        core: usize,
        line: u64,
        l: &DLine,
        end: LineEnd,
    ) -> Result<(), String> {
        self.dirty_dlines = self.dirty_dlines.saturating_sub(1);
        let lb = l.data.len() as u64;
        let by = self.core_writer(dev, core);
        let fault = self.check_false_sharing(dev, core, line, l, end.says());
        let (_, f) = self.agent_access(L2Agent::AiCore, &[], &[(line, lb)], by, |m| {
            // The whole line goes back; each word keeps whether it counts as written ...
            m.overwrite_line(line, &l.data);
            // ... and the words the core stored are its own writes: it is their writer.
            let mut i = 0;
            while i < l.stored.len() {
                if !l.stored[i] {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < l.stored.len() && l.stored[i] {
                    i += 1;
                }
                let _ = m.write(line + start as u64, &l.data[start..i], by);
            }
        });
        self.on_mem_write(line, lb);
        match fault.or(f) {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    /// Takes every line out of `core`'s data cache, lowest address first, handing each to
    /// `each` (then recycling its buffers): no allocation.
    pub(super) fn each_dline_taken(
        &mut self,
        dev: usize,
        core: usize,
        mut each: impl FnMut(&mut Self, u64, &DLine),
    ) {
        let mut lines = std::mem::take(&mut self.line_scratch);
        self.cores[dev][core].dcache.lines_into(&mut lines);
        for &line in &lines {
            if let Some(l) = self.cores[dev][core].dcache.remove(line) {
                each(self, line, &l);
                self.cores[dev][core].dcache.recycle(l);
            }
        }
        self.line_scratch = lines;
    }

    /// Drops every line of `core`'s data cache without writing anything back (`why`: a `dci`,
    /// or a kernel's tail invalidate); stores never written back are reported as dropped.
    pub(super) fn drop_dcache(&mut self, dev: usize, core: usize, why: &str) -> Result<(), String> {
        let mut fault = None;
        self.each_dline_taken(dev, core, |e, line, l| {
            if l.dirty {
                e.dirty_dlines = e.dirty_dlines.saturating_sub(1);
                fault = fault
                    .take()
                    .or(e.check_dropped_store(dev, core, line, l, why));
            }
        });
        fault.map_or(Ok(()), Err)
    }
}
