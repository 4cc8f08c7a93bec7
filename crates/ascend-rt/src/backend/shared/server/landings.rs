//! Copies into a client's host memory ([`WireTask::lands_on_host`]): the service runs each as
//! a copy into a buffer of its own, in stream order, and keeps the buffer until the client asks
//! what has landed ([`Request::TakeLandings`](super::Request::TakeLandings)); the simulator
//! says when the copy's tasks have ended, and in which order ([`ascend_sim::Sim::watched_ends`]).

use std::collections::BTreeMap;

use super::{Answer, DeviceService, Reply, WireTask};
use crate::backend::{BackendError, HostBuf, Loc, StreamId, Task};
use ascend_sim::WatchedEnd;
use ascend_types::TaskId;

use super::wire::{Landed, CHUNK};

/// A copy into a client's host memory, not yet taken.
#[derive(Debug)]
pub(super) struct Landing {
    stream: StreamId,
    /// Its tasks (one a mapping its source crosses).
    tasks: Vec<TaskId>,
    /// The service's buffer it lands in.
    buf: HostBuf,
}

/// A process's copies into its host memory not yet taken, by the task number their launch
/// answered.
pub(super) type Landings = BTreeMap<u64, Landing>;

impl DeviceService {
    /// Launches `task`, a copy into `token`'s host memory, on `stream`.
    pub(super) fn launch_landing(&self, token: u64, stream: u64, task: WireTask) -> Answer {
        let sim = self.simulator("a copy into host memory")?;
        let task = task.into_task().map_err(BackendError::Unsupported)?;
        let Task::Memcpy {
            dst: Loc::Host { buf, .. },
            ..
        } = &task
        else {
            return Err(BackendError::Unsupported(
                "a landing that is no copy".into(),
            ));
        };
        let buf = buf.clone();
        let host_ns = self.backend.chip().timing.host_launch_ns;
        let stream = StreamId(stream);
        let tasks = sim
            .submit_watched_after(stream, task, host_ns)
            .map_err(crate::backend::sim::m)?
            .ok_or_else(|| {
                BackendError::Unsupported(
                    "an asynchronous copy into host memory on a stream bound to a model \
                     (captured)"
                        .into(),
                )
            })?;
        for t in &tasks {
            self.note_process(token, t.0);
        }
        let last = tasks.last().map_or(0, |t| t.0);
        self.with_owned(token, |o| {
            o.landings.insert(last, Landing { stream, tasks, buf });
        });
        Ok(Reply::U64(last))
    }

    /// A copy to device memory of `data.len()` bytes from `offset` of the buffer `token`'s
    /// copy `landing` lands in: the task reads the buffer when the stream reaches it. Until
    /// that copy writes, the buffer holds `data` there (the client's bytes now), as host
    /// memory does on a device. `None` where the landing is no longer waiting.
    pub(super) fn launch_from_landing(
        &self,
        token: u64,
        stream: u64,
        landing: u64,
        offset: u64,
        dst: u64,
        data: Vec<u8>,
    ) -> Answer {
        let sim = self.simulator("a copy from host memory")?;
        let found = self.with_owned(token, |o| {
            o.landings
                .get(&landing)
                .map(|l| (l.buf.clone(), l.stream, l.tasks.clone()))
        });
        let Some((buf, landing_stream, tasks)) = found else {
            return Ok(Reply::OptU64(None));
        };
        let len = data.len() as u64;
        let room = buf.lock().unwrap_or_else(|p| p.into_inner()).len();
        let range = usize::try_from(offset)
            .ok()
            .and_then(|at| Some(at..at.checked_add(data.len())?))
            .filter(|r| r.end <= room)
            .ok_or_else(|| {
                BackendError::Unsupported(format!(
                    "a copy of {len} bytes at {offset} of a landing of {room} bytes"
                ))
            })?;
        sim.unless_watched_ran(landing_stream, &tasks, || {
            buf.lock().unwrap_or_else(|p| p.into_inner())[range].copy_from_slice(&data);
        });
        let task = Task::Memcpy {
            dst: Loc::Device(dst),
            src: Loc::Host {
                buf,
                offset: offset as usize,
            },
            len,
        };
        let id = self.backend.launch(StreamId(stream), task)?;
        self.note_process(token, id);
        Ok(Reply::OptU64(Some(id)))
    }

    /// `token`'s copies into host memory that have ended, in the order the device ran them
    /// (a later copy into the same bytes lands after an earlier one), with the bytes of those
    /// that ran; at most [`CHUNK`] bytes an answer, the earliest first. One taker at a time.
    pub(super) fn take_landings(&self, token: u64) -> Answer {
        let Some(sim) = self.backend.simulator() else {
            return Ok(Reply::Landings {
                landed: Vec::new(),
                more: false,
            });
        };
        let _taking = self.taking.lock().unwrap_or_else(|p| p.into_inner());
        let waiting: Vec<(u64, StreamId, Vec<TaskId>)> = self.with_owned(token, |o| {
            o.landings
                .iter()
                .map(|(&id, l)| (id, l.stream, l.tasks.clone()))
                .collect()
        });
        let asked: Vec<(StreamId, &[TaskId])> =
            waiting.iter().map(|(_, s, t)| (*s, t.as_slice())).collect();
        let ends = sim.watched_ends(&asked);
        // Failed ones carry nothing: they go first, then those that ran, in the device's order.
        let mut ended: Vec<(u64, u64, bool)> = waiting
            .iter()
            .zip(ends)
            .filter_map(|((id, _, _), end)| match end {
                WatchedEnd::Pending => None,
                WatchedEnd::Failed => Some((0, *id, false)),
                WatchedEnd::Ran { order } => Some((order, *id, true)),
            })
            .collect();
        ended.sort_unstable();
        let mut landed = Vec::new();
        let mut bytes = 0usize;
        let mut more = false;
        for (_, id, ran) in ended {
            if bytes >= CHUNK {
                more = true;
                break;
            }
            let Some(l) = self.with_owned(token, |o| o.landings.remove(&id)) else {
                continue;
            };
            sim.forget_watched(&l.tasks);
            let data = ran.then(|| {
                let mut b = l.buf.lock().unwrap_or_else(|p| p.into_inner());
                // A queued copy that reads the buffer keeps its bytes.
                if std::sync::Arc::strong_count(&l.buf) > 1 {
                    b.clone()
                } else {
                    std::mem::take(&mut *b)
                }
            });
            bytes += data.as_ref().map_or(0, Vec::len);
            landed.push(Landed {
                task: id,
                bytes: data,
            });
        }
        Ok(Reply::Landings { landed, more })
    }

    /// A process has gone: the simulator forgets its copies into host memory.
    pub(super) fn forget_landings(&self, landings: &Landings) {
        if let Some(sim) = self.backend.simulator() {
            for l in landings.values() {
                sim.forget_watched(&l.tasks);
            }
        }
    }
}
