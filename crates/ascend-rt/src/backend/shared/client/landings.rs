//! The process's copies into its own host memory on the shared device: asynchronous copies
//! from device memory (or between host buffers) into page-locked or staged host memory, in
//! stream order. The service runs each as a copy into a buffer of its own; the bytes land in
//! the process's memory at the end of the process's next call after the copy ran (any call
//! but a launch), so that a call that tells the host the copy has run (a synchronize, a
//! query, an event) returns with them in place.

use std::collections::HashMap;

use super::SharedDeviceClient;
use crate::backend::shared::wire::{Landed, Reply, Request, WireTask};
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

    /// Launches `task` if it is a copy to device memory reading host bytes that a copy into
    /// host memory is still to fill (its launch would carry the bytes from before that copy):
    /// the service reads them from the buffer that copy lands in, in stream order, as a device
    /// reads the host's memory. `None` when no such bytes are read (the task goes as usual).
    /// Refused when the bytes read are not all in one such copy's destination, or the task
    /// writes host memory.
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
        let overlapping = |l: &Landings| -> Vec<(u64, usize, usize)> {
            l.waiting
                .iter()
                .filter(|(_, d)| {
                    std::sync::Arc::ptr_eq(&d.buf, buf)
                        && d.offset < end
                        && offset < d.offset + d.len
                })
                .map(|(&id, d)| (id, d.offset, d.len))
                .collect()
        };
        if overlapping(&self.landings.lock().unwrap_or_else(|p| p.into_inner())).is_empty() {
            return None;
        }
        // What has run lands now.
        self.take_landings();
        // No take until the launch is booked: the copies it reads from stay the service's.
        let _taking = self.taking.lock().unwrap_or_else(|p| p.into_inner());
        let found = overlapping(&self.landings.lock().unwrap_or_else(|p| p.into_inner()));
        let within_one = match (found.as_slice(), dst) {
            ([], _) => return None,
            ([(id, at, n)], Loc::Device(d)) if *at <= offset && end <= at + n => {
                Some(WireTask::CopyLandingToDevice {
                    landing: *id,
                    offset: (offset - at) as u64,
                    dst: *d,
                    len: *len,
                })
            }
            _ => None,
        };
        let Some(wire) = within_one else {
            return Some(Err(BackendError::Unsupported(
                "a copy that reads host memory earlier copies on the device are still to fill, \
                 across more than one of them or into host memory, is not yet available on a \
                 device shared through the device service (ASCEND_SIM_DEVICE); synchronize the \
                 filling copies' stream, or an event recorded after them, first"
                    .into(),
            )));
        };
        Some(self.u64(Request::Launch {
            stream: stream.0,
            task: wire,
        }))
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
