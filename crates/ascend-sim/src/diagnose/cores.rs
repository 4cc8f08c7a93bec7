//! What the watchdog says about AI cores: a running kernel's blocks (what each did last, and
//! whether the line it polls is stale in its data cache), and for a value wait, a store to
//! its word that sits dirty in a data cache or that a `dci` dropped.

use crate::engine::Engine;
use crate::kernel::word_of;

impl Engine {
    /// The blocks of kernel task `run` that are running, one line each.
    pub(crate) fn describe_kernel(&self, run: u64) -> String {
        let Some(r) = self.kernel_runs.get(&run) else {
            return "a kernel that is gone".into();
        };
        let mut lines = Vec::new();
        for (dev, cores) in self.cores.iter().enumerate() {
            for (core, c) in cores.iter().enumerate() {
                let Some(slot) = c.slot.as_ref().filter(|s| s.run == run) else {
                    continue;
                };
                let mut line = format!(
                    "block {} on AI core {core} of device {dev} keeps running ({} operations \
                     since {} ns; the last: {})",
                    slot.block, slot.ops, slot.start_ns, slot.last_op
                );
                if let Some(addr) = slot.polling {
                    line.push_str(&self.polled_line(dev, core, addr));
                }
                lines.push(line);
            }
        }
        let waiting = r.blocks - r.next_block;
        format!(
            "kernel {} ({} block(s), {waiting} waiting for a core): {}",
            r.kernel.name(),
            r.blocks,
            if lines.is_empty() {
                "no block running".to_string()
            } else {
                lines.join("; ")
            }
        )
    }

    /// What the data cache of `core` holds for the word at `addr` a block keeps loading.
    fn polled_line(&self, dev: usize, core: usize, addr: u64) -> String {
        let dc = &self.cores[dev][core].dcache;
        let line = dc.line_of(addr);
        let Some(l) = dc.get(line) else {
            return format!("; it polls {addr:#x}, not cached now");
        };
        let off = ((addr - line) & !7) as usize;
        let cached = word_of(&l.data, off);
        let Ok((memory, _)) = self.mem.read_u64(addr & !7) else {
            return String::new();
        };
        if cached == memory {
            format!("; it polls {addr:#x}, which holds {memory:#x}")
        } else {
            format!(
                "; it polls {addr:#x} out of its data cache, which holds a stale {cached:#x} \
                 while memory holds {memory:#x}: it will never see the change. A dcci of the \
                 line (dcci(addr, 0, 2)) before each load reads memory"
            )
        }
    }

    /// A store to the word at `addr` that a value wait cannot see: sitting dirty in a core's
    /// data cache, or dropped by a `dci`.
    pub(crate) fn cached_store_note(&self, addr: u64) -> Option<String> {
        for (dev, cores) in self.cores.iter().enumerate() {
            for (core, c) in cores.iter().enumerate() {
                let line = c.dcache.line_of(addr);
                let Some(l) = c.dcache.get(line).filter(|l| l.dirty) else {
                    continue;
                };
                let off = ((addr - line) & !7) as usize;
                if !l.stored[off..off + 8].iter().any(|&b| b) {
                    continue;
                }
                let value = word_of(&l.data, off);
                let by = l
                    .last_store
                    .map(|(_, _, _, w)| format!(" by {}", self.writer_text(&w)))
                    .unwrap_or_default();
                return Some(format!(
                    "AI core {core} of device {dev} holds a store of {value:#x} to this word{by} \
                     in its data cache, never written back: the wait cannot see it. A dcci of \
                     the line (dcci(addr, 0, 2)) after the store makes it visible"
                ));
            }
        }
        let lb = self.chip.cache.dcache_line_bytes.max(8);
        self.dropped_stores
            .iter()
            .rev()
            .find(|(l, _)| addr >= *l && addr < l.saturating_add(lb))
            .map(|(_, said)| {
                format!(
                    "{said}, never written back, so the wait cannot see it; a dcci after the \
                     store (before the kernel ends) writes it back"
                )
            })
    }
}
