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

/// Two piece lists of one length cut at every boundary of either: `(dst, src, len)` runs.
pub(crate) fn paired(d: &[(DevAddr, u64)], s: &[(DevAddr, u64)]) -> Vec<(DevAddr, DevAddr, u64)> {
    let mut out = Vec::new();
    let (mut i, mut j, mut di, mut sj) = (0, 0, 0u64, 0u64);
    while i < d.len() && j < s.len() {
        let n = (d[i].1 - di).min(s[j].1 - sj);
        out.push((d[i].0 + di, s[j].0 + sj, n));
        di += n;
        sj += n;
        if di == d[i].1 {
            i += 1;
            di = 0;
        }
        if sj == s[j].1 {
            j += 1;
            sj = 0;
        }
        if n == 0 {
            break;
        }
    }
    out
}

/// Where offset `off` of a range lies: a host range's own place further on, or the memory of
/// the device piece holding it (`pieces` of the range, first to last).
fn loc_at(loc: &Loc, pieces: &[(DevAddr, u64)], off: u64) -> Loc {
    match loc {
        Loc::Host { .. } => loc.advanced(off as usize),
        Loc::Device(_) => {
            let mut start = 0;
            for &(pa, n) in pieces {
                if off < start + n {
                    return Loc::Device(pa + (off - start));
                }
                start += n;
            }
            Loc::Device(pieces.last().map_or(0, |&(pa, n)| pa + n))
        }
    }
}

/// The pieces of one end of a copy: a device range's, by mapping; a host range whole.
fn loc_pieces(va: &VaMap, loc: &Loc, len: u64) -> Result<Vec<(DevAddr, u64)>, SimError> {
    match loc {
        Loc::Device(a) => va.pieces(*a, len),
        Loc::Host { .. } => Ok(vec![(0, len)]),
    }
}

/// The offsets where a piece of `pieces` ends, but the last.
fn cuts(pieces: &[(DevAddr, u64)]) -> impl Iterator<Item = u64> + '_ {
    pieces
        .iter()
        .scan(0u64, |end, &(_, n)| {
            *end += n;
            Some(*end)
        })
        .take(pieces.len().saturating_sub(1))
}

/// `task` as the tasks the memory it names makes of it: one, translated, or for a copy, a fill
/// or a CMO across mappings side by side, one per piece, first to last (a task of another kind
/// must lie within one mapping).
fn split_task(va: &VaMap, task: Task) -> Result<Vec<Task>, SimError> {
    match task {
        Task::Memcpy { dst, src, len } => {
            let (dp, sp) = (loc_pieces(va, &dst, len)?, loc_pieces(va, &src, len)?);
            let mut at: Vec<u64> = cuts(&dp).chain(cuts(&sp)).collect();
            at.sort_unstable();
            at.dedup();
            at.push(len);
            let mut start = 0;
            Ok(at
                .into_iter()
                .map(|end| {
                    let t = Task::Memcpy {
                        dst: loc_at(&dst, &dp, start),
                        src: loc_at(&src, &sp, start),
                        len: end - start,
                    };
                    start = end;
                    t
                })
                .collect())
        }
        Task::Memset { addr, value, len } => Ok(va
            .pieces(addr, len)?
            .into_iter()
            .map(|(addr, len)| Task::Memset { addr, value, len })
            .collect()),
        Task::Cmo { op, addr, len } => Ok(va
            .pieces(addr, len)?
            .into_iter()
            .map(|(addr, len)| Task::Cmo { op, addr, len })
            .collect()),
        other => Ok(vec![translate_task(va, other)?]),
    }
}

impl Sim {
    /// `task` as the tasks its memory makes of it (see `split_task`).
    pub(crate) fn split_task(&self, task: Task) -> Result<Vec<Task>, SimError> {
        split_task(self.lock_engine().mem.va(), task)
    }

    /// The memory `[addr, addr+len)` names, a piece per mapping it crosses (itself while no
    /// range was ever reserved).
    pub(crate) fn pieces(&self, addr: DevAddr, len: u64) -> Result<Vec<(DevAddr, u64)>, SimError> {
        if !self.va_in_use() {
            return Ok(vec![(addr, len)]);
        }
        self.lock_engine().mem.va().pieces(addr, len)
    }

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
}
