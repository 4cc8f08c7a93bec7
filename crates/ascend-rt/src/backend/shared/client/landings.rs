//! The process's copies into its own host memory on the shared device: asynchronous copies
//! from device memory (or between host buffers) into page-locked or staged host memory, in
//! stream order. The service runs each as a copy into a buffer of its own; the bytes land in
//! the process's memory at the end of the process's next call after the copy ran (any call
//! but a launch), so that a call that tells the host the copy has run (a synchronize, a
//! query, an event) returns with them in place.

use std::collections::HashMap;

use super::SharedDeviceClient;
use crate::backend::shared::wire::{host_bytes, Landed, Reply, Request, WireTask, CHUNK};
use crate::backend::{BResult, BackendError, HostBuf, Loc, StreamId, Task};

/// Where a copy into host memory lands.
#[derive(Debug)]
struct Destination {
    buf: HostBuf,
    offset: usize,
    len: usize,
}

/// The process's copies into its host memory whose bytes have not landed yet.
#[derive(Debug, Default)]
pub(super) struct Landings {
    /// By the task number their launch answered.
    waiting: HashMap<u64, Destination>,
    /// Copies that ended before their launch's answer was booked (another thread took them
    /// first): what they brought, until the launch books them.
    early: HashMap<u64, Option<Vec<u8>>>,
}

impl SharedDeviceClient {
    /// Launches one copy into host memory (`dst` is host memory, at most a frame's bytes).
    pub(super) fn launch_landing(&self, stream: StreamId, part: &Task) -> BResult<u64> {
        let Task::Memcpy {
            dst: Loc::Host { buf, offset },
            len,
            ..
        } = part
        else {
            return Err(super::unsupported(
                "a landing that is no copy into host memory",
            ));
        };
        let wire = WireTask::from_task(part).map_err(|what| super::unsupported(&what))?;
        let id = self.u64(Request::Launch {
            stream: stream.0,
            task: wire,
        })?;
        let dst = Destination {
            buf: buf.clone(),
            offset: *offset,
            len: *len as usize,
        };
        let mut l = self.landings.lock().unwrap_or_else(|p| p.into_inner());
        match l.early.remove(&id) {
            Some(bytes) => land(&dst, bytes),
            None => {
                l.waiting.insert(id, dst);
            }
        }
        Ok(id)
    }

    /// Launches `task` if it is a copy to device memory reading host bytes that copies into
    /// host memory are still to fill (its launch would carry the bytes from before them): the
    /// bytes each such copy brings are read from the buffer it lands in, in stream order, as a
    /// device reads the host's memory, the others go with the launch, a part at a time, in
    /// order on the stream. `None` when no such bytes are read (the task goes as usual).
    /// Refused when the task writes host memory.
    pub(super) fn launch_reading_unlanded(
        &self,
        stream: StreamId,
        task: &Task,
    ) -> Option<BResult<u64>> {
        let Task::Memcpy {
            dst,
            src: Loc::Host { buf, offset },
            len,
        } = task
        else {
            return None;
        };
        let (offset, end) = (*offset, offset.saturating_add(*len as usize));
        if self.unlanded_parts(buf, offset, end).is_empty() {
            return None;
        }
        // What has run lands now.
        self.take_landings();
        let parts = self.unlanded_parts(buf, offset, end);
        if parts.is_empty() {
            return None;
        }
        let Loc::Device(dst) = *dst else {
            return Some(Err(BackendError::Unsupported(
                "a copy into host memory from host bytes an earlier copy on the device is still \
                 to fill is not yet available on a device shared through the device service \
                 (ASCEND_SIM_DEVICE); synchronize the filling copy's stream, or an event \
                 recorded after it, first"
                    .into(),
            )));
        };
        Some(self.launch_parts(stream, buf, offset, dst, &parts))
    }

    /// The parts of `[offset, end)` of `buf` that copies still to land fill: `(start, end,
    /// landing, where the landing's destination starts)`, in order; where two fill the same
    /// bytes, the one launched later (whose bytes a stream ends with).
    fn unlanded_parts(&self, buf: &HostBuf, offset: usize, end: usize) -> Vec<Part> {
        let l = self.landings.lock().unwrap_or_else(|p| p.into_inner());
        let mut fills: Vec<(u64, usize, usize)> = l
            .waiting
            .iter()
            .filter(|(_, d)| {
                std::sync::Arc::ptr_eq(&d.buf, buf) && d.offset < end && offset < d.offset + d.len
            })
            .map(|(&id, d)| (id, d.offset, d.offset + d.len))
            .collect();
        drop(l);
        if fills.is_empty() {
            return Vec::new();
        }
        fills.sort_unstable();
        let mut cuts: Vec<usize> = fills
            .iter()
            .flat_map(|&(_, a, b)| [a.clamp(offset, end), b.clamp(offset, end)])
            .chain([offset, end])
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut parts: Vec<Part> = Vec::new();
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            // The latest launched of the copies that fill [a, b).
            let by = fills
                .iter()
                .rev()
                .find(|&&(_, s, e)| s <= a && b <= e)
                .map(|&(id, s, _)| (id, s));
            match parts.last_mut() {
                Some(p) if p.end == a && p.by == by => p.end = b,
                _ => parts.push(Part {
                    start: a,
                    end: b,
                    by,
                }),
            }
        }
        if parts.iter().all(|p| p.by.is_none()) {
            return Vec::new();
        }
        parts
    }

    /// Launches the parts of a copy from `offset` of `buf` to `dst`, in order on
    /// `stream`: a landing's part read from its buffer, the rest carrying the bytes.
    fn launch_parts(
        &self,
        stream: StreamId,
        buf: &HostBuf,
        offset: usize,
        dst: u64,
        parts: &[Part],
    ) -> BResult<u64> {
        let bytes = |a: usize, b: usize| host_bytes(buf, a, (b - a) as u64);
        let mut last = 0;
        for p in parts {
            let at = dst + (p.start - offset) as u64;
            if let Some((landing, from)) = p.by {
                let task = WireTask::CopyLandingToDevice {
                    landing,
                    offset: (p.start - from) as u64,
                    dst: at,
                    data: bytes(p.start, p.end),
                };
                match self.call(Request::Launch {
                    stream: stream.0,
                    task,
                })? {
                    Reply::OptU64(Some(id)) => {
                        last = id;
                        continue;
                    }
                    // Taken meanwhile by another thread: once its take has put the bytes in
                    // place, they go with the launch.
                    Reply::OptU64(None) => {
                        drop(self.taking.lock().unwrap_or_else(|p| p.into_inner()));
                    }
                    other => return Err(self.misfit(other)),
                }
            }
            for a in (p.start..p.end).step_by(CHUNK) {
                let b = (a + CHUNK).min(p.end);
                last = self.u64(Request::Launch {
                    stream: stream.0,
                    task: WireTask::CopyHostToDevice {
                        dst: dst + (a - offset) as u64,
                        data: bytes(a, b),
                    },
                })?;
            }
        }
        Ok(last)
    }

    /// True while some copy into host memory has not landed.
    pub(super) fn landings_waiting(&self) -> bool {
        !self
            .landings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .waiting
            .is_empty()
    }

    /// Takes the bytes of the copies into host memory that have run and puts them in place;
    /// a copy that faulted or was discarded lands nothing. A service that cannot be asked
    /// leaves them waiting (the call that found it gone has said so).
    pub(super) fn take_landings(&self) {
        // One taker at a time, from its request to its last landing: a thread whose take
        // finds nothing left returns after another thread's take has put the bytes in place,
        // and answers land in the order they were given.
        let _taking = self.taking.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let (landed, more) = match self.call(Request::TakeLandings) {
                Ok(Reply::Landings { landed, more }) => (landed, more),
                _ => return,
            };
            let mut l = self.landings.lock().unwrap_or_else(|p| p.into_inner());
            for Landed { task, bytes } in landed {
                match l.waiting.remove(&task) {
                    Some(dst) => land(&dst, bytes),
                    None => {
                        l.early.insert(task, bytes);
                    }
                }
            }
            if !more {
                return;
            }
        }
    }
}

/// Puts a copy's bytes at its destination.
fn land(dst: &Destination, bytes: Option<Vec<u8>>) {
    let Some(bytes) = bytes else {
        return;
    };
    let mut b = dst.buf.lock().unwrap_or_else(|p| p.into_inner());
    let start = dst.offset.min(b.len());
    let end = start.saturating_add(bytes.len()).min(b.len());
    b[start..end].copy_from_slice(&bytes[..end - start]);
}

/// A part of a copy from host memory: `[start, end)` of the buffer, and the copy still to land
/// that fills it (its launch's task number, and where its destination starts), if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Part {
    start: usize,
    end: usize,
    by: Option<(u64, usize)>,
}
