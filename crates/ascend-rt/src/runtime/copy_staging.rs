//! How copies move bytes once validated: the resolved ends of a copy, the synchronous copy of
//! two ends, and the staging of pageable and page-locked host memory through bounded chunks
//! (docs/memory-addresses.md). No temporary the runtime makes for a copy grows with the
//! caller's count, except the one staged copy of a pageable source, which is as large as the
//! caller's own buffer.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use super::state::StreamRec;
use super::Runtime;
use crate::backend::{HostBuf, Loc, SyncCopy, Task};
use crate::error::{fail, AclResult};

/// A resolved, range-checked end of a copy.
pub(super) enum Side<'a> {
    Device(u64),
    Pinned(HostBuf, usize),
    Slice(&'a [u8]),
}

pub(super) enum DSide<'a> {
    Device(u64),
    Pinned(HostBuf, usize),
    Slice(&'a mut [u8]),
}

/// Bytes staged at a time between pageable host memory and runtime memory: no temporary the
/// runtime makes for a copy is larger, whatever count the caller names.
pub(super) const STAGING_CHUNK: usize = 8 << 20;

/// The byte ranges of a `len`-byte copy staged a chunk at a time, in the order that keeps
/// memmove semantics when the destination lies above an overlapping source (`backwards`).
pub(super) fn staging_ranges(len: usize, backwards: bool) -> impl Iterator<Item = Range<usize>> {
    let n = len.div_ceil(STAGING_CHUNK);
    (0..n).map(move |i| {
        let i = if backwards { n - 1 - i } else { i };
        let lo = i * STAGING_CHUNK;
        lo..(lo + STAGING_CHUNK).min(len)
    })
}

pub(super) fn locked(buf: &HostBuf) -> std::sync::MutexGuard<'_, Vec<u8>> {
    buf.lock().unwrap_or_else(|p| p.into_inner())
}

/// A page-locked copy of pageable bytes for a task to read when it executes; a copy the host
/// cannot hold is `ACL_ERROR_RT_MEMORY_ALLOCATION` (207001), not an abort.
fn staged_copy(bytes: &[u8]) -> AclResult<HostBuf> {
    let mut v = Vec::new();
    v.try_reserve_exact(bytes.len()).map_err(|e| {
        fail::plain(
            crate::error::ErrorCode::RtMemoryAllocation,
            format!(
                "aclrtMemcpyAsync: cannot stage {} bytes of pageable host memory: {e}",
                bytes.len()
            ),
        )
    })?;
    v.extend_from_slice(bytes);
    Ok(Arc::new(Mutex::new(v)))
}

/// The ends of an asynchronous copy, as the staging loop moves them.
pub(super) enum AsyncEnds<'a> {
    /// Both ends are runtime memory: one task, nothing staged.
    Locs { dst: Loc, src: Loc },
    /// A pageable source: staged a chunk at a time, each chunk read before the call returns.
    FromPageable { dst: Loc, src: &'a [u8] },
    /// A pageable destination: filled a chunk at a time before the call returns.
    ToPageable { dst: &'a mut [u8], src: Loc },
    /// Two disjoint pageable ranges.
    BothPageable { dst: &'a mut [u8], src: &'a [u8] },
    /// Two possibly overlapping pageable ranges of one buffer (memmove semantics).
    Within {
        buf: &'a mut [u8],
        dst: usize,
        src: usize,
    },
}

impl Runtime {
    /// The synchronous copy of two resolved, range-checked ends. The backend is never called
    /// while a host buffer's lock is held (a queued copy of the same buffer may be running
    /// inside it), and page-locked memory is staged a bounded chunk at a time.
    pub(super) fn copy_now(&self, dst: DSide<'_>, src: Side<'_>, c: usize) -> AclResult<()> {
        let n = c as u64;
        // Page-locked ends are memory tasks can touch too: the backend hears of the host's
        // access (the simulator checks it for races).
        if let Side::Pinned(b, o) = &src {
            let addr = locked(b).as_ptr() as u64 + *o as u64;
            self.backend.host_access(addr, n, false)?;
        }
        if let DSide::Pinned(b, o) = &dst {
            let addr = locked(b).as_ptr() as u64 + *o as u64;
            self.backend.host_access(addr, n, true)?;
        }
        let chunk = || vec![0u8; c.min(STAGING_CHUNK)];
        match (dst, src) {
            (DSide::Device(d), Side::Device(s)) => self
                .backend
                .memcpy(SyncCopy::DeviceToDevice {
                    dst: d,
                    src: s,
                    len: n,
                })
                .map_err(crate::AclError::from),
            (DSide::Device(d), Side::Slice(s)) => self
                .backend
                .memcpy(SyncCopy::HostToDevice {
                    dst: d,
                    src: &s[..c],
                })
                .map_err(crate::AclError::from),
            (DSide::Slice(d), Side::Device(s)) => self
                .backend
                .memcpy(SyncCopy::DeviceToHost {
                    dst: &mut d[..c],
                    src: s,
                })
                .map_err(crate::AclError::from),
            (DSide::Device(d), Side::Pinned(b, o)) => {
                let mut tmp = chunk();
                for r in staging_ranges(c, false) {
                    let t = &mut tmp[..r.len()];
                    t.copy_from_slice(&locked(&b)[o + r.start..o + r.end]);
                    let dst = d + r.start as u64;
                    self.backend
                        .memcpy(SyncCopy::HostToDevice { dst, src: t })?;
                }
                Ok(())
            }
            (DSide::Pinned(b, o), Side::Device(s)) => {
                let mut tmp = chunk();
                for r in staging_ranges(c, false) {
                    let t = &mut tmp[..r.len()];
                    let src = s + r.start as u64;
                    self.backend
                        .memcpy(SyncCopy::DeviceToHost { dst: t, src })?;
                    locked(&b)[o + r.start..o + r.end].copy_from_slice(t);
                }
                Ok(())
            }
            (DSide::Slice(d), Side::Slice(s)) => {
                d[..c].copy_from_slice(&s[..c]);
                Ok(())
            }
            (DSide::Slice(d), Side::Pinned(b, o)) => {
                d[..c].copy_from_slice(&locked(&b)[o..o + c]);
                Ok(())
            }
            (DSide::Pinned(b, o), Side::Slice(s)) => {
                locked(&b)[o..o + c].copy_from_slice(&s[..c]);
                Ok(())
            }
            (DSide::Pinned(db, doff), Side::Pinned(sb, so)) => {
                if Arc::ptr_eq(&db, &sb) {
                    locked(&db).copy_within(so..so + c, doff);
                } else {
                    // One lock at a time: two threads copying between the same two buffers
                    // in opposite directions never wait on each other.
                    let mut tmp = chunk();
                    for r in staging_ranges(c, false) {
                        let t = &mut tmp[..r.len()];
                        t.copy_from_slice(&locked(&sb)[so + r.start..so + r.end]);
                        locked(&db)[doff + r.start..doff + r.end].copy_from_slice(t);
                    }
                }
                Ok(())
            }
        }
    }

    /// Enqueues a validated asynchronous copy of `len` bytes.
    ///
    /// Runtime memory at both ends is one task. A pageable source is read completely before
    /// the call returns, into one staged copy the task reads when the stream reaches it (as
    /// CANN stages pageable sources); the call does not wait for the stream, and a staged copy
    /// the host cannot hold is `ACL_ERROR_RT_MEMORY_ALLOCATION` (207001), not an abort. A
    /// pageable destination is filled before the call returns: it is moved through page-locked
    /// chunks of at most [`STAGING_CHUNK`] bytes, one task each, the stream synchronised after
    /// each, so that no temporary grows with the count.
    pub(super) fn launch_copy(
        &self,
        rec: &StreamRec,
        mut ends: AsyncEnds<'_>,
        len: usize,
    ) -> AclResult<()> {
        let copy = |dst, src, n: usize| Task::Memcpy {
            dst,
            src,
            len: n as u64,
        };
        match ends {
            AsyncEnds::Locs { dst, src } => {
                return self.launch(rec, copy(dst, src, len));
            }
            AsyncEnds::FromPageable { dst, src } => {
                let staged = Loc::Host {
                    buf: staged_copy(src)?,
                    offset: 0,
                };
                return self.launch(rec, copy(dst, staged, len));
            }
            _ => {}
        }
        let staging: HostBuf = Arc::new(Mutex::new(vec![0u8; len.min(STAGING_CHUNK)]));
        let backwards = matches!(ends, AsyncEnds::Within { dst, src, .. } if dst > src);
        for r in staging_ranges(len, backwards) {
            let n = r.len();
            let into_staging = Loc::Host {
                buf: staging.clone(),
                offset: 0,
            };
            let (src, out) = match &mut ends {
                AsyncEnds::ToPageable { dst, src } => (src.advanced(r.start), &mut dst[r]),
                AsyncEnds::BothPageable { dst, src } => (
                    Loc::Host {
                        buf: staged_copy(&src[r.clone()])?,
                        offset: 0,
                    },
                    &mut dst[r],
                ),
                AsyncEnds::Within { buf, dst, src } => {
                    let from = staged_copy(&buf[*src + r.start..*src + r.end])?;
                    (
                        Loc::Host {
                            buf: from,
                            offset: 0,
                        },
                        &mut buf[*dst + r.start..*dst + r.end],
                    )
                }
                AsyncEnds::Locs { .. } | AsyncEnds::FromPageable { .. } => {
                    unreachable!("launched above")
                }
            };
            self.launch(rec, copy(into_staging, src, n))?;
            self.backend.synchronize_stream(rec.backend, None)?;
            out.copy_from_slice(&locked(&staging)[..n]);
        }
        Ok(())
    }
}
