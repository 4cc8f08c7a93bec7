//! [`Sim`]'s virtual address ranges (`aclrtReserveMemAddress`, `aclrtMapMem` and their
//! inverses) and the translation of what a task names: a task queued with a virtual address
//! names the memory mapped there when it is queued, so the engine, the caches and the race
//! detector only ever see memory's own addresses.

use std::sync::atomic::Ordering;

use super::Sim;
use crate::memory::VaMap;
use crate::types::*;

/// The memory `[addr, addr+len)` names (`len` 0: one byte).
fn tr(va: &VaMap, addr: DevAddr, len: u64) -> Result<DevAddr, SimError> {
    va.translate(addr, len.max(1))
}

/// `task` with every address it names translated (the task unchanged when no range is
/// reserved).
fn translate_task(va: &VaMap, task: Task) -> Result<Task, SimError> {
    if va.is_empty() {
        return Ok(task);
    }
    let loc = |l: Loc, len: u64| -> Result<Loc, SimError> {
        Ok(match l {
            Loc::Device(a) => Loc::Device(tr(va, a, len)?),
            host => host,
        })
    };
    Ok(match task {
        Task::ValueWrite { addr, value } => Task::ValueWrite {
            addr: tr(va, addr, 8)?,
            value,
        },
        Task::ValueWait { addr, value, mode } => Task::ValueWait {
            addr: tr(va, addr, 8)?,
            value,
            mode,
        },
        Task::Memcpy { dst, src, len } => Task::Memcpy {
            dst: loc(dst, len)?,
            src: loc(src, len)?,
            len,
        },
        Task::Memset { addr, value, len } => Task::Memset {
            addr: tr(va, addr, len)?,
            value,
            len,
        },
        Task::Reduce {
            dst,
            src,
            len,
            op,
            ty,
        } => Task::Reduce {
            dst: tr(va, dst, len)?,
            src: tr(va, src, len)?,
            len,
            op,
            ty,
        },
        Task::LabelSwitch { index, max, labels } => Task::LabelSwitch {
            index: tr(va, index, 4)?,
            max,
            labels,
        },
        Task::RandomNum(mut r) => {
            r.result = tr(va, r.result, 1)?;
            r.counter = tr(va, r.counter, 16)?;
            for p in std::iter::once(&mut r.seed)
                .chain(std::iter::once(&mut r.num))
                .chain(r.params.iter_mut())
            {
                if p.at_addr {
                    p.value = tr(va, p.value, u64::from(p.size))?;
                }
            }
            Task::RandomNum(r)
        }
        Task::Cmo { op, addr, len } => Task::Cmo {
            op,
            addr: tr(va, addr, len)?,
            len,
        },
        Task::CmoWithBarrier {
            op,
            addr,
            len,
            barrier_id,
        } => Task::CmoWithBarrier {
            op,
            addr: tr(va, addr, len)?,
            len,
            barrier_id,
        },
        Task::CmoWithDesc { desc, op } => Task::CmoWithDesc {
            desc: tr(va, desc, 1)?,
            op,
        },
        other => other,
    })
}

impl Sim {
    /// Reserves `len` bytes (non-zero) of virtual addresses on `device`'s window, aligned to
    /// `align`: a range never handed out before.
    pub fn reserve_va(&self, device: u32, len: u64, align: u64) -> Result<DevAddr, SimError> {
        let mut g = self.lock_engine();
        self.va_used.store(true, Ordering::Release);
        g.mem.va_mut().reserve(device, len, align)
    }

    /// Releases the reserved range starting at `va` (nothing may be mapped in it).
    pub fn release_va(&self, va: DevAddr) -> Result<(), SimError> {
        self.lock_engine().mem.va_mut().release(va)
    }

    /// Maps `len` bytes of memory at `pa` (inside one live allocation) at `va`, inside one
    /// reserved range and over nothing mapped.
    pub fn map_va(&self, va: DevAddr, len: u64, pa: DevAddr) -> Result<(), SimError> {
        let mut g = self.lock_engine();
        g.mem.check(pa, len)?;
        g.mem.va_mut().map(va, len, pa)
    }

    /// Unmaps the mapping starting at `va`: its memory and length.
    pub fn unmap_va(&self, va: DevAddr) -> Result<(DevAddr, u64), SimError> {
        self.lock_engine().mem.va_mut().unmap(va)
    }

    /// The memory `[addr, addr+len)` names now (itself unless it is a virtual address).
    pub fn translate(&self, addr: DevAddr, len: u64) -> Result<DevAddr, SimError> {
        if !self.va_in_use() {
            return Ok(addr);
        }
        self.lock_engine().mem.translate(addr, len.max(1))
    }

    /// Whether a virtual range was ever reserved: until then no address needs translating.
    #[inline]
    pub(crate) fn va_in_use(&self) -> bool {
        self.va_used.load(Ordering::Acquire)
    }

    /// `task` with every address it names translated, as [`translate_task`].
    #[cold]
    pub(crate) fn translated_task(&self, task: Task) -> Result<Task, SimError> {
        translate_task(self.lock_engine().mem.va(), task)
    }
}
