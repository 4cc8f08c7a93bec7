//! [`Sim`]'s device memory calls: allocation, synchronous host reads, writes, fills and
//! copies (no stream ordering), and the checks and figures of the address space.

use ascend_chips::{ChipProfile, L2Agent};

use super::Sim;
use crate::engine::HORIZON_NS;
use crate::memory::{Memory, Writer};
use crate::types::*;

/// Which way a synchronous transfer goes: its bandwidth is the chip's for that link.
#[derive(Debug, Clone, Copy)]
enum Link {
    H2D,
    D2H,
    /// Within device memory (a copy or a fill).
    D2D,
}

/// The host time a synchronous copy or fill of `bytes` takes: what a copy task launched and
/// synchronized takes — the launch, the DMA job's setup, the transfer at the link's bandwidth
/// (bytes per ns) and the host's observation of its completion — as the chip file gives them.
fn sync_copy_ns(chip: &ChipProfile, link: Link, bytes: u64) -> u64 {
    let t = &chip.timing;
    let gbps = match link {
        Link::H2D => t.h2d_gbps,
        Link::D2H => t.d2h_gbps,
        Link::D2D => t.hbm_gbps,
    };
    let transfer = (bytes as f64 / gbps.max(f64::MIN_POSITIVE)).ceil();
    let transfer = if transfer.is_finite() && transfer < HORIZON_NS as f64 {
        transfer as u64
    } else {
        HORIZON_NS
    };
    t.host_launch_ns
        .saturating_add(t.dma_setup_ns)
        .saturating_add(transfer)
        .saturating_add(t.host_sync_ns)
}

impl Sim {
    /// Allocates `bytes` of device memory on `device`, aligned to the chip's base alignment;
    /// the bytes are filled with the poison byte and tracked as never written.
    pub fn malloc(&self, device: u32, bytes: u64) -> Result<DevAddr, SimError> {
        self.with_charge_on(device, self.chip.timing.host_alloc_ns, |e| {
            e.mem.malloc(device, bytes)
        })
    }

    /// Frees an allocation by its base address. A value wait watching the freed memory reads
    /// it at its next poll and faults (reported at the next synchronize of its stream).
    pub fn free(&self, device: u32, addr: DevAddr) -> Result<(), SimError> {
        self.with_charge_on(device, self.chip.timing.host_alloc_ns, |e| {
            let now = e.now;
            let by = format!("by free at {now} ns");
            let len = e.mem.free(device, addr, by)?;
            if e.races.on {
                e.races.freed(addr, addr.saturating_add(len));
            }
            // Cached lines of freed memory are forgotten, neither written back nor restored.
            if let Some(l2) = e.l2.get_mut(device as usize) {
                l2.discard(addr, len);
            }
            // So are the AI cores' data-cache lines of it: no late write-back brings it back.
            let mut dirty = 0;
            for core in e.cores.get_mut(device as usize).into_iter().flatten() {
                dirty += core.dcache.discard(addr, len);
            }
            e.dirty_dlines = e.dirty_dlines.saturating_sub(dirty);
            e.progress += 1;
            e.on_mem_write(addr, len);
            Ok(())
        })
    }

    /// Synchronous host read of device memory (no stream ordering), bounds-checked; a range
    /// across mappings side by side is read a mapping at a time.
    pub fn read(&self, addr: DevAddr, out: &mut [u8]) -> Result<(), SimError> {
        if !self.va_in_use() {
            return self.read_one(addr, out);
        }
        let mut done = 0usize;
        for (pa, n) in self.pieces(addr, out.len() as u64)? {
            let n = n as usize;
            self.read_one(pa, &mut out[done..done + n])?;
            done += n;
        }
        Ok(())
    }

    fn read_one(&self, addr: DevAddr, out: &mut [u8]) -> Result<(), SimError> {
        let len = out.len() as u64;
        self.with_charge(sync_copy_ns(&self.chip, Link::D2H, len), |e| {
            e.mem.check(addr, len)?;
            let now = e.now;
            let by = Writer::Host { at_ns: now };
            let (read, fault) = e.agent_access(L2Agent::CopyEngine, &[(addr, len)], &[], by, |m| {
                m.read(addr, out)
            });
            let info = read?;
            let fault =
                fault.or(e.race_host_access("synchronous copy to the host", false, addr, len));
            if let Some(fault) = fault {
                return Err(SimError::TaskFault(fault));
            }
            match e.note_read(addr, len, info.never_written, "host read") {
                Some(fault) => Err(SimError::TaskFault(fault)),
                None => Ok(()),
            }
        })
    }

    /// Synchronous host write of device memory (no stream ordering), bounds-checked.
    pub fn write(&self, addr: DevAddr, data: &[u8]) -> Result<(), SimError> {
        if !self.va_in_use() {
            return self.write_one(addr, data);
        }
        let mut done = 0usize;
        for (pa, n) in self.pieces(addr, data.len() as u64)? {
            let n = n as usize;
            self.write_one(pa, &data[done..done + n])?;
            done += n;
        }
        Ok(())
    }

    fn write_one(&self, addr: DevAddr, data: &[u8]) -> Result<(), SimError> {
        let what = "synchronous copy from the host";
        self.host_store(what, addr, data.len() as u64, None, Link::H2D, |m, by| {
            m.write(addr, data, by)
        })
    }

    /// Synchronous fill of device memory.
    pub fn fill(&self, addr: DevAddr, value: u8, len: u64) -> Result<(), SimError> {
        if !self.va_in_use() {
            return self.fill_one(addr, value, len);
        }
        for (pa, n) in self.pieces(addr, len)? {
            self.fill_one(pa, value, n)?;
        }
        Ok(())
    }

    fn fill_one(&self, addr: DevAddr, value: u8, len: u64) -> Result<(), SimError> {
        let what = "synchronous fill";
        self.host_store(what, addr, len, None, Link::D2D, |m, by| {
            m.fill(addr, value, len, by)
        })
    }

    /// Synchronous device-to-device copy (overlap allowed, behaves as memmove within one
    /// mapping; across mappings side by side, a piece at a time, first to last).
    pub fn copy(&self, dst: DevAddr, src: DevAddr, len: u64) -> Result<(), SimError> {
        if !self.va_in_use() {
            return self.copy_one(dst, src, len);
        }
        let (d, s) = (self.pieces(dst, len)?, self.pieces(src, len)?);
        for (dp, sp, n) in super::virtual_memory::paired(&d, &s) {
            self.copy_one(dp, sp, n)?;
        }
        Ok(())
    }

    fn copy_one(&self, dst: DevAddr, src: DevAddr, len: u64) -> Result<(), SimError> {
        let what = "synchronous copy";
        self.host_store(what, dst, len, Some(src), Link::D2D, |m, by| {
            m.copy(dst, src, len, by)
        })
    }

    /// A synchronous host store into `[addr, addr+len)` (reading `source` too, for a copy):
    /// the host spends the transfer's time over `link` while the device runs, then the ranges
    /// pass through the device's L2 (the copy engine's path), `store` changes memory as the
    /// host, and the progress is counted and the value waits watching the range woken.
    fn host_store<R>(
        &self,
        what: &'static str,
        addr: DevAddr,
        len: u64,
        source: Option<DevAddr>,
        link: Link,
        store: impl FnOnce(&mut Memory, Writer) -> Result<R, SimError>,
    ) -> Result<(), SimError> {
        self.with_charge(sync_copy_ns(&self.chip, link, len), |e| {
            e.mem.check(addr, len)?;
            let reads: Vec<(u64, u64)> = source.map(|src| (src, len)).into_iter().collect();
            if let Some(src) = source {
                e.mem.check(src, len)?;
            }
            let now = e.now;
            let by = Writer::Host { at_ns: now };
            let (stored, fault) =
                e.agent_access(L2Agent::CopyEngine, &reads, &[(addr, len)], by, |m| {
                    store(m, by)
                });
            stored?;
            e.progress += 1;
            e.on_mem_write(addr, len);
            let mut fault = fault;
            if let Some(src) = source {
                fault = fault.or(e.race_host_access(what, false, src, len));
            }
            fault = fault.or(e.race_host_access(what, true, addr, len));
            match fault {
                Some(fault) => Err(SimError::TaskFault(fault)),
                None => Ok(()),
            }
        })
    }

    /// The host read (`write`: wrote) `len` bytes of host memory at `addr` that tasks can
    /// touch too (page-locked memory a copy task reads or fills) in a synchronous call: the
    /// device first runs to the host's time (what its tasks did to the memory by then is
    /// there, as on a device that runs beside the host), and with race detection on the
    /// access is checked against those tasks (docs/races.md); a race set to `fail` is the
    /// call's error.
    pub fn host_accessed(&self, addr: u64, len: u64, write: bool) -> Result<(), SimError> {
        self.with_charge(0, |e| {
            if !e.races.on {
                return Ok(());
            }
            let call = "synchronous copy of page-locked memory";
            match e.race_host_access(call, write, addr, len) {
                Some(fault) => Err(SimError::TaskFault(fault)),
                None => Ok(()),
            }
        })
    }

    /// Host memory `[addr, addr+len)` that tasks could touch was freed: the race detector
    /// forgets it (a new buffer there is new memory).
    pub fn host_memory_freed(&self, addr: u64, len: u64) {
        if self.config.races {
            let _ = self.with(|e| {
                e.races.freed(addr, addr.saturating_add(len));
                Ok::<(), SimError>(())
            });
        }
    }

    /// The address window of all devices' memory: every device address lies in it and no
    /// host memory does.
    pub fn device_window(&self) -> std::ops::Range<DevAddr> {
        let devices = u64::from(self.chip.limits.device_count.max(1));
        let base = crate::memory::DEVICE_WINDOW_BASE;
        base..base + devices * crate::memory::DEVICE_WINDOW_BYTES
    }

    /// Checks that `[addr, addr+len)` lies inside one live allocation; the error says why not
    /// (freed when and by what, past which allocation's end, never allocated).
    pub fn check_range(&self, addr: DevAddr, len: u64) -> Result<(), SimError> {
        let addr = self.translate(addr, len)?;
        self.lock().mem.check(addr, len)
    }

    /// Bytes of host memory backing the simulated device memory (pages touched so far).
    pub fn backing_bytes(&self) -> u64 {
        self.lock().mem.backing_bytes()
    }
}
