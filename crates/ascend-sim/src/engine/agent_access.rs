//! How device agents reach memory: through the L2 of the device whose memory it is, or around
//! it, as the chip file says (`cache.*_via_l2`); and turning what the L2 saw (clobbers, stale
//! reads, lines changed by write-back or restore) into hazards and wake-ups.

use ascend_chips::L2Agent;

use super::Engine;
use crate::cache::L2Event;
use crate::memory::{Memory, Writer};
use crate::types::HazardKind;

impl Engine {
    /// `agent` (acting for `by`) reads the ranges `reads` and writes the ranges `writes` of
    /// device memory; `f` does the reads and writes on memory, which holds what the agent sees
    /// (the L2's copies for an agent going through it, memory underneath for one going around
    /// it). Call it after the ranges were checked. Returns what `f` returned and the fault of
    /// a hazard whose setting is `fail`.
    pub(crate) fn agent_access<R>(
        &mut self,
        agent: L2Agent,
        reads: &[(u64, u64)],
        writes: &[(u64, u64)],
        by: Writer,
        f: impl FnOnce(&mut Memory) -> R,
    ) -> (R, Option<String>) {
        let ranges = || reads.iter().chain(writes);
        let mut invisible = None;
        if self.dirty_dlines > 0 && agent != L2Agent::AiCore {
            let reader = format!("the {} ({by})", agent.name().replace('_', " "));
            for &(addr, len) in reads {
                invisible = invisible.or(self.check_invisible_writes(addr, len, &reader, None));
            }
        }
        let result = if self.chip.cache.via_l2(agent) {
            for (ranges, write) in [(reads, false), (writes, true)] {
                for &(addr, len) in ranges {
                    if let Some(l2) = self.l2_index(addr).map(|d| &mut self.l2[d]) {
                        l2.access(&mut self.mem, addr, len, write);
                    }
                }
            }
            // A line touched later (a copy's destination) that evicted a stale line the read
            // hit put memory back under it: the read moves memory's newer bytes, so it was no
            // stale read after all.
            for &(addr, _) in reads {
                if let Some(l2) = self.l2_index(addr).map(|d| &mut self.l2[d]) {
                    l2.retract_unseen_stale_reads();
                }
            }
            f(&mut self.mem)
        } else {
            let all: Vec<(u64, u64)> = ranges().copied().collect();
            let mut devices: Vec<usize> = all.iter().filter_map(|r| self.l2_index(r.0)).collect();
            devices.sort_unstable();
            devices.dedup();
            let scopes: Vec<_> = devices
                .into_iter()
                .map(|d| (d, self.l2[d].around_begin(&mut self.mem, &all)))
                .collect();
            let result = f(&mut self.mem);
            for (d, scope) in scopes {
                self.l2[d].around_end(&mut self.mem, scope, writes, agent, by);
            }
            result
        };
        let mut fault = invisible;
        for &(addr, _) in ranges() {
            if let Some(d) = self.l2_index(addr).filter(|&d| self.l2[d].has_news()) {
                fault = fault.or(self.l2_aftermath(d as u32));
            }
        }
        (result, fault)
    }

    /// The index of the L2 in front of the memory `addr` is in.
    fn l2_index(&self, addr: u64) -> Option<usize> {
        self.mem
            .device_of(addr)
            .map(|d| d as usize)
            .filter(|&d| d < self.l2.len())
    }

    /// Reports what device `d`'s L2 saw since the last call (clobbers and stale reads, as
    /// hazards) and wakes the value waits watching lines it wrote back or restored. Returns
    /// the fault of a hazard whose setting is `fail`.
    pub(crate) fn l2_aftermath(&mut self, d: u32) -> Option<String> {
        let l2 = self.l2.get_mut(d as usize)?;
        let line_bytes = l2.line_bytes();
        let events = l2.take_events();
        let changed = l2.take_changed();
        for line in changed {
            self.on_mem_write(line, line_bytes);
        }
        let mut fault = None;
        for event in events {
            let f = match event {
                L2Event::Clobber {
                    line,
                    write,
                    addr,
                    lost,
                    written_back,
                    cause,
                } => {
                    let article = if cause.starts_with('e') { "an" } else { "a" };
                    let detail = format!(
                        "{article} {cause} of the dirty line {line:#x} ({line_bytes} bytes) overwrote \
                         [{:#x}, {:#x}), which the {} had written around the L2 ({}): memory \
                         held {lost:#x} at {addr:#x} and now holds {written_back:#x}, so the \
                         newer data is lost; write the line back or flush it before writing \
                         around the L2",
                        write.lo,
                        write.hi,
                        write.agent.name().replace('_', " "),
                        write.writer,
                    );
                    self.hazard(HazardKind::Clobber, d, line, line_bytes, detail)
                }
                L2Event::StaleRead {
                    line,
                    addr,
                    len,
                    write,
                    at,
                    seen,
                    in_memory,
                } => {
                    let detail = format!(
                        "a read of [{addr:#x}, +{len}) through the L2 saw its older copy of the \
                         line {line:#x}: it read {seen:#x} at {at:#x}, where the {} wrote \
                         {in_memory:#x} around the L2 ({}); INVALID the line after that write \
                         and before the read",
                        write.agent.name().replace('_', " "),
                        write.writer,
                    );
                    self.hazard(HazardKind::StaleRead, d, line, line_bytes, detail)
                }
            };
            fault = fault.or(f);
        }
        fault
    }
}
