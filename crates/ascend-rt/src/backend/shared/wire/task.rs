//! [`WireTask`]: a stream task on the wire, and its conversions from the front end's task (on
//! the client's side) and back (on the service's). Host bytes a copy reads go with it; a copy
//! into the client's host memory gets a buffer of the service's to land in.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use ascend_types::{CmoType, EventId, Loc, NotifyId, Task, WaitMode};

use super::CHUNK;

/// A stream task whose arguments are plain data.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum WireTask {
    ValueWrite {
        addr: u64,
        value: u64,
    },
    ValueWait {
        addr: u64,
        value: u64,
        mode: u32,
    },
    CopyDeviceToDevice {
        dst: u64,
        src: u64,
        len: u64,
    },
    /// A copy from host bytes (sent with the task) to device memory.
    CopyHostToDevice {
        dst: u64,
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
    },
    /// A copy from device memory into the client's host memory: the service copies into a
    /// buffer of its own, whose bytes the client takes once the copy has run
    /// ([`Request::TakeLandings`](super::Request::TakeLandings)).
    CopyDeviceToHost {
        src: u64,
        len: u64,
    },
    /// A copy from host bytes (sent with the task) into the client's host memory, in stream
    /// order, taken as [`WireTask::CopyDeviceToHost`]'s bytes are.
    CopyHostToHost {
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
    },
    /// A copy to device memory of `data.len()` bytes from `offset` in the buffer a copy into
    /// the client's host memory lands in (`landing`: the task number its launch answered),
    /// which has not landed yet: read in stream order, as the device reads the host's memory.
    /// `data` is what the client's memory holds there now, which the buffer holds until that
    /// copy writes it (for good, where it faults or is discarded). Answered with
    /// [`Reply::OptU64`](super::Reply::OptU64): the task's number, or `None` where the
    /// landing is not waiting (it was taken meanwhile: its bytes are the client's now).
    CopyLandingToDevice {
        landing: u64,
        offset: u64,
        dst: u64,
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
    },
    Memset {
        addr: u64,
        value: u8,
        len: u64,
    },
    Cmo {
        op: u32,
        addr: u64,
        len: u64,
    },
    CmoWithBarrier {
        op: u32,
        addr: u64,
        len: u64,
        barrier_id: u32,
    },
    CmoWaitBarrier {
        barrier_ids: Vec<u32>,
    },
    CmoWithDesc {
        desc: u64,
        op: u32,
    },
    EventRecord(u64),
    EventWait(u64),
    EventReset(u64),
    NotifyRecord(u64),
    NotifyWait {
        notify: u64,
        timeout_ms: Option<u64>,
    },
    /// `aclrtReduceAsync`'s reduce-copy.
    Reduce {
        dst: u64,
        src: u64,
        len: u64,
        op: ascend_types::ReduceOp,
        ty: ascend_types::ReduceType,
    },
    /// `aclrtSetLabel`'s mark (labels are a stream's own).
    LabelSet {
        label: u64,
    },
    /// `aclrtSwitchLabelByIndex`'s jump.
    LabelSwitch {
        index: u64,
        max: u32,
        labels: Vec<u64>,
    },
    /// `aclrtRandomNumAsync`'s generation.
    RandomNum(Box<ascend_types::RandomTask>),
    /// A simulator kernel whose body the launching process runs: `launch` is its number there.
    Kernel {
        launch: u64,
        name: String,
        blocks: u32,
        core: u8,
    },
}

impl WireTask {
    /// The task on the wire, or why it cannot go there yet.
    pub fn from_task(task: &Task) -> Result<WireTask, String> {
        Ok(match task {
            Task::ValueWrite { addr, value } => WireTask::ValueWrite {
                addr: *addr,
                value: *value,
            },
            Task::ValueWait { addr, value, mode } => WireTask::ValueWait {
                addr: *addr,
                value: *value,
                mode: mode.flag(),
            },
            Task::Memcpy { dst, src, len } => match (dst, src) {
                (Loc::Device(d), Loc::Device(s)) => WireTask::CopyDeviceToDevice {
                    dst: *d,
                    src: *s,
                    len: *len,
                },
                (Loc::Device(d), Loc::Host { buf, offset }) => WireTask::CopyHostToDevice {
                    dst: *d,
                    data: host_bytes(buf, *offset, *len),
                },
                (Loc::Host { .. }, Loc::Device(s)) => {
                    WireTask::CopyDeviceToHost { src: *s, len: *len }
                }
                (Loc::Host { .. }, Loc::Host { buf, offset }) => WireTask::CopyHostToHost {
                    data: host_bytes(buf, *offset, *len),
                },
            },
            Task::Memset { addr, value, len } => WireTask::Memset {
                addr: *addr,
                value: *value,
                len: *len,
            },
            Task::Cmo { op, addr, len } => WireTask::Cmo {
                op: op.raw(),
                addr: *addr,
                len: *len,
            },
            Task::CmoWithBarrier {
                op,
                addr,
                len,
                barrier_id,
            } => WireTask::CmoWithBarrier {
                op: op.raw(),
                addr: *addr,
                len: *len,
                barrier_id: *barrier_id,
            },
            Task::CmoWaitBarrier { barrier_ids } => WireTask::CmoWaitBarrier {
                barrier_ids: barrier_ids.clone(),
            },
            Task::CmoWithDesc { desc, op } => WireTask::CmoWithDesc {
                desc: *desc,
                op: op.raw(),
            },
            Task::EventRecord(e) => WireTask::EventRecord(e.0),
            Task::EventWait(e) => WireTask::EventWait(e.0),
            Task::EventReset(e) => WireTask::EventReset(e.0),
            Task::NotifyRecord(n) => WireTask::NotifyRecord(n.0),
            Task::NotifyWait { notify, timeout_ms } => WireTask::NotifyWait {
                notify: notify.0,
                timeout_ms: *timeout_ms,
            },
            Task::Reduce {
                dst,
                src,
                len,
                op,
                ty,
            } => WireTask::Reduce {
                dst: *dst,
                src: *src,
                len: *len,
                op: *op,
                ty: *ty,
            },
            Task::LabelSet { label } => WireTask::LabelSet { label: *label },
            Task::LabelSwitch { index, max, labels } => WireTask::LabelSwitch {
                index: *index,
                max: *max,
                labels: labels.clone(),
            },
            Task::RandomNum(r) => WireTask::RandomNum(r.clone()),
            Task::Kernel { .. } => return Err("a simulator kernel".into()),
        })
    }

    /// The task again, on the service's side.
    pub fn into_task(self) -> Result<Task, String> {
        let cmo = |op: u32| CmoType::from_raw(op).ok_or_else(|| format!("CMO type {op}"));
        Ok(match self {
            WireTask::ValueWrite { addr, value } => Task::ValueWrite { addr, value },
            WireTask::ValueWait { addr, value, mode } => Task::ValueWait {
                addr,
                value,
                mode: WaitMode::from_flag(mode).ok_or_else(|| format!("wait mode {mode}"))?,
            },
            WireTask::CopyDeviceToDevice { dst, src, len } => Task::Memcpy {
                dst: Loc::Device(dst),
                src: Loc::Device(src),
                len,
            },
            WireTask::CopyHostToDevice { dst, data } => Task::Memcpy {
                dst: Loc::Device(dst),
                len: data.len() as u64,
                src: Loc::Host {
                    buf: Arc::new(std::sync::Mutex::new(data)),
                    offset: 0,
                },
            },
            WireTask::CopyDeviceToHost { src, len } => Task::Memcpy {
                dst: landing(len)?,
                src: Loc::Device(src),
                len,
            },
            WireTask::CopyHostToHost { data } => Task::Memcpy {
                dst: landing(data.len() as u64)?,
                len: data.len() as u64,
                src: Loc::Host {
                    buf: Arc::new(std::sync::Mutex::new(data)),
                    offset: 0,
                },
            },
            WireTask::Memset { addr, value, len } => Task::Memset { addr, value, len },
            WireTask::Cmo { op, addr, len } => Task::Cmo {
                op: cmo(op)?,
                addr,
                len,
            },
            WireTask::CmoWithBarrier {
                op,
                addr,
                len,
                barrier_id,
            } => Task::CmoWithBarrier {
                op: cmo(op)?,
                addr,
                len,
                barrier_id,
            },
            WireTask::CmoWaitBarrier { barrier_ids } => Task::CmoWaitBarrier { barrier_ids },
            WireTask::CmoWithDesc { desc, op } => Task::CmoWithDesc { desc, op: cmo(op)? },
            WireTask::EventRecord(e) => Task::EventRecord(EventId(e)),
            WireTask::EventWait(e) => Task::EventWait(EventId(e)),
            WireTask::EventReset(e) => Task::EventReset(EventId(e)),
            WireTask::NotifyRecord(n) => Task::NotifyRecord(NotifyId(n)),
            WireTask::NotifyWait { notify, timeout_ms } => Task::NotifyWait {
                notify: NotifyId(notify),
                timeout_ms,
            },
            WireTask::Reduce {
                dst,
                src,
                len,
                op,
                ty,
            } => Task::Reduce {
                dst,
                src,
                len,
                op,
                ty,
            },
            WireTask::LabelSet { label } => Task::LabelSet { label },
            WireTask::LabelSwitch { index, max, labels } => {
                Task::LabelSwitch { index, max, labels }
            }
            WireTask::RandomNum(r) => Task::RandomNum(r),
            WireTask::Kernel { .. } => return Err("a kernel needs its process".into()),
            WireTask::CopyLandingToDevice { .. } => {
                return Err("a copy from a landing needs its process's books".into())
            }
        })
    }
}

impl WireTask {
    /// A copy into the client's host memory: its bytes go back once it has run.
    pub fn lands_on_host(&self) -> bool {
        matches!(
            self,
            WireTask::CopyDeviceToHost { .. } | WireTask::CopyHostToHost { .. }
        )
    }
}

/// The `len` bytes of `buf` from `offset` (fewer where it ends first).
pub(crate) fn host_bytes(buf: &ascend_types::HostBuf, offset: usize, len: u64) -> Vec<u8> {
    let b = buf.lock().unwrap_or_else(|p| p.into_inner());
    let end = offset.saturating_add(len as usize).min(b.len());
    b[offset.min(end)..end].to_vec()
}

/// The service's buffer a copy into a client's host memory lands in.
fn landing(len: u64) -> Result<Loc, String> {
    if len > CHUNK as u64 {
        return Err(format!(
            "a copy of {len} bytes into host memory in one task (at most {CHUNK} go in one)"
        ));
    }
    Ok(Loc::Host {
        buf: Arc::new(std::sync::Mutex::new(vec![0u8; len as usize])),
        offset: 0,
    })
}
