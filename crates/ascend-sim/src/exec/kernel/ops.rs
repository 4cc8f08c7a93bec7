//! What each operation of a kernel block does, and costs: loads and stores through the core's
//! data cache, copies between global memory and local buffers, `dcci`, `spin` and the rest
//! (see the parent module for the costs' sources).

use ascend_chips::L2Agent;

use super::LineEnd;
use crate::engine::{Engine, Ev};
use crate::kernel::{Reply, Request};

impl Engine {
    /// Executes one operation of the block on `core`: its answer and how long it takes, or
    /// the fault that ends the block.
    pub(super) fn kernel_op(
        &mut self,
        dev: usize,
        core: usize,
        op: Request,
    ) -> Result<(Reply, u64), String> {
        let t = self.chip.timing;
        match op {
            Request::Load { addr, bytes } => {
                self.check_scalar(addr, bytes, "load")?;
                if self.races.on {
                    let key = self.kernel_agent(dev, core);
                    self.races.word_read(key, addr, u64::from(bytes));
                }
                let fill_ns = self.dcache_fill(dev, core, addr)?;
                let dc = &mut self.cores[dev][core].dcache;
                let line = dc.line_of(addr);
                let off = (addr - line) as usize;
                let l = dc.touch(line).expect("filled");
                let mut word = [0u8; 8];
                word[..bytes as usize].copy_from_slice(&l.data[off..off + bytes as usize]);
                let value = u64::from_le_bytes(word);
                if let Some(fault) = self.check_dcache_stale(dev, core, addr, bytes) {
                    return Err(fault);
                }
                Ok((Reply::Value(value), t.dcache_hit_ns.saturating_add(fill_ns)))
            }
            Request::Store { addr, bytes, value } => {
                self.check_scalar(addr, bytes, "store")?;
                let fill_ns = self.dcache_fill(dev, core, addr)?;
                let by = self.core_writer(dev, core);
                if self.races.on {
                    let who = self.kernel_accessor(dev, core);
                    if let Some(f) = self.race_store(who, addr, u64::from(bytes), value) {
                        return Err(f);
                    }
                }
                let dc = &mut self.cores[dev][core].dcache;
                let line = dc.line_of(addr);
                let off = (addr - line) as usize;
                let l = dc.touch(line).expect("filled");
                let n = bytes as usize;
                l.data[off..off + n].copy_from_slice(&value.to_le_bytes()[..n]);
                l.stored[off..off + n].iter_mut().for_each(|b| *b = true);
                l.last_store = Some((addr, bytes, value, by));
                l.reported = false;
                if !l.dirty {
                    l.dirty = true;
                    self.dirty_dlines += 1;
                }
                self.effects += 1;
                // A value wait polling the word reads memory on every pass: it cannot see
                // this store until a dcci writes it back.
                if self.watcher_of(addr, u64::from(bytes)).is_some() {
                    // Look again after one polling pass: still dirty then, the wait has read
                    // memory without seeing it.
                    let len = u64::from(bytes);
                    self.schedule(
                        self.now.saturating_add(self.poll_pass_ns()),
                        Ev::InvisibleCheck { addr, len },
                    );
                }
                Ok((Reply::Go, t.dcache_hit_ns.saturating_add(fill_ns)))
            }
            Request::Dcci { addr, entire, .. } => {
                let mut ns = t.dcache_hit_ns;
                if entire {
                    let mut r = Ok(());
                    self.each_dline_taken(dev, core, |e, line, l| {
                        if l.dirty && r.is_ok() {
                            ns = ns.saturating_add(t.l2_hit_ns);
                            r = e.write_back_dline(dev, core, line, l, LineEnd::Dcci);
                        } else if l.dirty {
                            e.dirty_dlines = e.dirty_dlines.saturating_sub(1);
                        }
                    });
                    r?;
                } else {
                    self.mem.check(addr, 1).map_err(|e| format!("dcci: {e}"))?;
                    let dc = &mut self.cores[dev][core].dcache;
                    let line = dc.line_of(addr);
                    if let Some(l) = dc.remove(line) {
                        let r = if l.dirty {
                            ns = ns.saturating_add(t.l2_hit_ns);
                            self.write_back_dline(dev, core, line, &l, LineEnd::Dcci)
                        } else {
                            Ok(())
                        };
                        self.cores[dev][core].dcache.recycle(l);
                        r?;
                    }
                }
                Ok((Reply::Go, ns))
            }
            Request::Dci => {
                self.drop_dcache(dev, core, "a dci")?;
                Ok((Reply::Go, t.dcache_hit_ns))
            }
            Request::GmToLocal { gm, len } => {
                self.mem
                    .check(gm, len)
                    .map_err(|e| format!("copy to a local buffer: {e}"))?;
                let by = self.core_writer(dev, core);
                let what = format!("the copy to a local buffer by {by}");
                let mut fault = self.check_invisible_writes(gm, len, &what, None);
                if self.races.on {
                    let who = self.kernel_accessor(dev, core);
                    fault = fault.or(self.race_access(who, false, gm, len));
                }
                let mut data = vec![0u8; len as usize];
                let (read, f) = self.agent_access(L2Agent::AiCore, &[(gm, len)], &[], by, |m| {
                    m.read(gm, &mut data)
                });
                let info = read.map_err(|e| e.to_string())?;
                fault = fault.or(f);
                fault = fault.or(self.note_read(gm, len, info.never_written, &what));
                if let Some(f) = fault {
                    return Err(f);
                }
                Ok((Reply::Data(data), self.transfer_ns(len)))
            }
            Request::LocalToGm { gm, data } => {
                let len = data.len() as u64;
                self.mem
                    .check(gm, len)
                    .map_err(|e| format!("copy from a local buffer: {e}"))?;
                let by = self.core_writer(dev, core);
                let (written, fault) =
                    self.agent_access(L2Agent::AiCore, &[], &[(gm, len)], by, |m| {
                        m.write(gm, &data, by)
                    });
                written.map_err(|e| e.to_string())?;
                self.on_mem_write(gm, len);
                let fault = if self.races.on {
                    let who = self.kernel_accessor(dev, core);
                    fault.or(self.race_access(who, true, gm, len))
                } else {
                    fault
                };
                if let Some(f) = fault {
                    return Err(f);
                }
                Ok((Reply::Go, self.transfer_ns(len)))
            }
            Request::Spin { cycles } => {
                let mhz = t.core_mhz.max(1);
                let ns = cycles.saturating_mul(1000).div_ceil(mhz);
                Ok((Reply::Go, ns))
            }
            Request::Done
            | Request::Panicked(_)
            | Request::Trap(_)
            | Request::Abandoned
            | Request::StackOverflow => Ok((Reply::Go, 0)),
        }
    }

    /// The time of one polling pass of a value wait (its dispatch and its reads): how long a
    /// store may sit in a data cache while a poll reads memory before it is a hazard.
    pub(super) fn poll_pass_ns(&self) -> u64 {
        let t = self.chip.timing;
        t.sqe_dispatch_ns.saturating_add(
            t.poll_read_ns
                .saturating_mul(u64::from(t.poll_reads_per_pass)),
        )
    }

    /// The time of a copy of `len` bytes between global memory and a local buffer.
    pub(super) fn transfer_ns(&self, len: u64) -> u64 {
        let t = self.chip.timing;
        let bw = if t.l2_gbps > 0.0 { t.l2_gbps } else { 1.0 };
        t.l2_hit_ns.saturating_add((len as f64 / bw).ceil() as u64)
    }

    /// Checks a scalar access: 1, 2, 4 or 8 bytes, naturally aligned, in live memory.
    pub(super) fn check_scalar(&self, addr: u64, bytes: u32, what: &str) -> Result<(), String> {
        if !matches!(bytes, 1 | 2 | 4 | 8) {
            return Err(format!(
                "a {what} of {bytes} bytes (1, 2, 4 or 8 are possible)"
            ));
        }
        if !addr.is_multiple_of(u64::from(bytes)) {
            return Err(format!(
                "a {what} of {bytes} bytes at {addr:#x}, which is not aligned to {bytes}"
            ));
        }
        self.mem
            .check(addr, u64::from(bytes))
            .map_err(|e| format!("a {what} at {addr:#x}: {e}"))
    }
}
