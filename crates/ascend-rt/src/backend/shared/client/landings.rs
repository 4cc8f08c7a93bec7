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

    /// Refuses a task that reads `len` bytes of `buf` from `offset` while a copy into those
    /// bytes has not landed: the task's bytes go with its launch, and they would be the ones
    /// from before the copy, where on a device the stream's order gives it the copy's.
    pub(super) fn refuse_reading_unlanded(
        &self,
        buf: &HostBuf,
        offset: usize,
        len: u64,
    ) -> BResult<()> {
        let end = offset.saturating_add(len as usize);
        let unlanded = || {
            let l = self.landings.lock().unwrap_or_else(|p| p.into_inner());
            l.waiting.values().any(|d| {
                std::sync::Arc::ptr_eq(&d.buf, buf) && d.offset < end && offset < d.offset + d.len
            })
        };
        if !unlanded() {
            return Ok(());
        }
        // What has run lands now; a copy still queued keeps the bytes unready.
        self.take_landings();
        if unlanded() {
            return Err(BackendError::Unsupported(
                "a copy from host memory that an earlier copy on the device is still to fill is \
                 not yet available on a device shared through the device service \
                 (ASCEND_SIM_DEVICE): its bytes go with its launch; synchronize the filling \
                 copy's stream, or an event recorded after it, first"
                    .into(),
            ));
        }
        Ok(())
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
