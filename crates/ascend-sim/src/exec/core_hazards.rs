//! The sanitizer's core-side hazards, each found where it happens:
//!
//! - *invisible write* (`invisible_write`): an agent (a value wait's poll, a copy, another
//!   core's fill, a core's copy to a local buffer) read memory while a core's data cache held
//!   a newer store there that no `dcci` had written back;
//! - *stale read* (`dcache_stale_read`): a core loaded from a line of its data cache older than
//!   memory (another agent wrote memory after the fill);
//! - *false sharing* (`false_sharing`): a whole-line write-back of a data-cache line put the
//!   core's stale copy over words another agent had written since the fill;
//! - *dropped store* (`dropped_store`): `dci`, or a kernel's tail invalidate, discarded stores
//!   never written back.
//!
//! Each is said once per line and fill (a poll loop does not repeat it).

use crate::engine::Engine;
use crate::kernel::{word_of, DLine};
use crate::memory::Writer;
use crate::report::WriterName;
use crate::types::HazardKind;

impl Engine {
    /// A writer with its kernel's name when it is a kernel block (formatted when said).
    pub(crate) fn writer_name(&self, w: &Writer) -> WriterName {
        let kernel = match w {
            Writer::Core { task, .. } => self
                .kernel_runs
                .get(task)
                .map(|r| r.kernel.shared_name())
                .or_else(|| self.kernel_names.get(task).cloned()),
            _ => None,
        };
        WriterName::Recorded { writer: *w, kernel }
    }

    /// A writer said with its kernel's name when it is a kernel block.
    pub(crate) fn writer_text(&self, w: &Writer) -> String {
        self.writer_name(w).to_string()
    }

    /// `reader` reads `[addr, addr+len)`: reports the first store sitting dirty in a core's
    /// data cache there (other than `except`'s) that memory does not hold yet.
    pub(crate) fn check_invisible_writes(
        &mut self,
        addr: u64,
        len: u64,
        reader: impl std::fmt::Display,
        except: Option<(usize, usize)>,
    ) -> Option<String> {
        if self.dirty_dlines == 0 || len == 0 {
            return None;
        }
        let dev = self.mem.device_of(addr)? as usize;
        let end = addr.saturating_add(len);
        let mut fault = None;
        for core in 0..self.cores.get(dev).map_or(0, Vec::len) {
            if except == Some((dev, core)) {
                continue;
            }
            for line in self.cores[dev][core].dcache.dirty_in(addr, len) {
                let lb = self.cores[dev][core].dcache.line_bytes();
                let l = self.cores[dev][core]
                    .dcache
                    .get(line)
                    .expect("a dirty line");
                if l.reported {
                    continue;
                }
                let (lo, hi) = (
                    (addr.max(line) - line) as usize,
                    (end.min(line + lb) - line) as usize,
                );
                let Some(i) = self
                    .mem
                    .first_difference(line, &l.data, lo..hi, |i| l.stored[i])
                else {
                    continue;
                };
                let l = self.cores[dev][core]
                    .dcache
                    .get_mut(line)
                    .expect("a dirty line");
                l.reported = true;
                let (last, cached) = (l.last_store, word_of(&l.data, i));
                let at = line + (i as u64 & !7);
                let store = match last {
                    Some((a, n, v, w)) => format!(
                        "its last store there was {v:#x} ({n} bytes) to {a:#x} by {}",
                        self.writer_text(&w)
                    ),
                    None => "stored by the core".into(),
                };
                let detail = format!(
                    "{reader} read [{addr:#x}, +{len}) while AI core {core}'s data cache held a \
                     newer store there that no dcci had written back: at {at:#x} the cache holds \
                     {cached:#x}, memory {:#x}; {store}. A dcci of the line (dcci(addr, 0, 2)) \
                     after the store makes it visible",
                    self.mem.peek_word(at),
                );
                let f = self.hazard(HazardKind::InvisibleWrite, dev as u32, line, lb, detail);
                fault = fault.or(f);
            }
        }
        fault
    }

    /// `core` loaded `[addr, addr+bytes)` from its data cache: reports the line once if memory
    /// holds other bytes there that the core did not store (its copy is stale).
    pub(crate) fn check_dcache_stale(
        &mut self,
        dev: usize,
        core: usize,
        addr: u64,
        bytes: u32,
    ) -> Option<String> {
        let dc = &self.cores[dev][core].dcache;
        let line = dc.line_of(addr);
        let lb = dc.line_bytes();
        let l = dc.get(line)?;
        if l.reported {
            return None;
        }
        let off = (addr - line) as usize;
        let mut memory = [0u8; 8];
        let n = bytes as usize;
        self.mem.read(addr, &mut memory[..n]).ok()?;
        let stale = (0..n).any(|k| !l.stored[off + k] && l.data[off + k] != memory[k]);
        if !stale {
            return None;
        }
        let seen = word_of(&l.data[off..off + n], 0);
        let now = u64::from_le_bytes(memory) & (u64::MAX >> (64 - 8 * n as u32));
        let writer = self
            .mem
            .last_writer(addr & !7)
            .map_or("an unknown writer".to_string(), |w| self.writer_text(&w));
        let who = self.writer_text(&self.core_writer(dev, core));
        if let Some(l) = self.cores[dev][core].dcache.get_mut(line) {
            l.reported = true;
        }
        let detail = format!(
            "{who} loaded {seen:#x} from {addr:#x} out of its data cache, but memory holds \
             {now:#x} there (written by {writer} after the line was cached): the line is \
             stale. A dcci of the line before the load (dcci(addr, 0, 2), on every poll) \
             reads memory"
        );
        self.hazard(HazardKind::DcacheStaleRead, dev as u32, line, lb, detail)
    }

    /// The dirty line `l` of `core` is being written back whole (`cause`): reports the first
    /// word it did not store whose memory bytes changed since the fill (they are overwritten
    /// with the core's stale copy).
    pub(crate) fn check_false_sharing(
        &mut self,
        dev: usize,
        core: usize,
        line: u64,
        l: &DLine,
        cause: &str,
    ) -> Option<String> {
        let i = self
            .mem
            .first_difference(line, &l.data, 0..l.data.len(), |i| !l.stored[i])?;
        let at = line + (i as u64 & !7);
        let writer = self
            .mem
            .last_writer(at)
            .map_or("another agent".to_string(), |w| self.writer_text(&w));
        let who = self.writer_text(&self.core_writer(dev, core));
        let detail = format!(
            "{cause} of AI core {core}'s data-cache line {line:#x} ({} bytes, {who}) wrote the \
             whole line back: at {at:#x} its stale copy {:#x} overwrote {:#x}, written by \
             {writer} after the core cached the line. Keep data written by different agents \
             in different lines, or dcci the line before the other agent writes",
            l.data.len(),
            word_of(&l.data, i),
            self.mem.peek_word(at),
        );
        self.hazard(
            HazardKind::FalseSharing,
            dev as u32,
            line,
            l.data.len() as u64,
            detail,
        )
    }

    /// The dirty line `l` of `core` is dropped without write-back (`why`): reports the stores
    /// it held that memory does not.
    pub(crate) fn check_dropped_store(
        &mut self,
        dev: usize,
        core: usize,
        line: u64,
        l: &DLine,
        why: &str,
    ) -> Option<String> {
        let lb = l.data.len() as u64;
        let i = self
            .mem
            .first_difference(line, &l.data, 0..l.data.len(), |i| l.stored[i])?;
        let store = match l.last_store {
            Some((a, n, v, w)) => format!(
                "the last, {v:#x} ({n} bytes) to {a:#x} by {}",
                self.writer_text(&w)
            ),
            None => "stored by the core".into(),
        };
        let at = line + (i as u64 & !7);
        if self.dropped_stores.len() >= 64 {
            self.dropped_stores.pop_front();
        }
        let said = format!("{why} on AI core {core} dropped {store}");
        self.dropped_stores.push_back((line, said));
        let detail = format!(
            "{why} discarded AI core {core}'s dirty data-cache line {line:#x} with stores never \
             written back ({store}): at {at:#x} memory keeps {:#x} instead of {:#x}. A dcci \
             (dcci(addr, 0, 2), or of the whole cache) after the stores writes them back",
            self.mem.peek_word(at),
            word_of(&l.data, i),
        );
        self.hazard(HazardKind::DroppedStore, dev as u32, line, lb, detail)
    }
}
