//! Launching tasks: each [`Task`] the front end enqueues on a stream becomes its ACL call
//! (value write/wait, memset, the CMO family, event and notify records and waits,
//! asynchronous copies, whose host ends are staged through `host_staging`).

use ascend_rt_sys as sys;

use super::handles::{ptr, raw_stream};
use super::state::StreamInfo;
use super::HwBackend;
use super::RawHandle;
use crate::backend::{CmoType, Loc, Task, WaitMode};
use crate::error::AclResult;

// The vocabulary's raw values are the header's: checked at compile time, so the library
// receives each value as the vocabulary names it.
const _: () = {
    assert!(CmoType::Prefetch as u32 == sys::aclrtCmoType_ACL_RT_CMO_TYPE_PREFETCH as u32);
    assert!(CmoType::Writeback as u32 == sys::aclrtCmoType_ACL_RT_CMO_TYPE_WRITEBACK as u32);
    assert!(CmoType::Invalid as u32 == sys::aclrtCmoType_ACL_RT_CMO_TYPE_INVALID as u32);
    assert!(CmoType::Flush as u32 == sys::aclrtCmoType_ACL_RT_CMO_TYPE_FLUSH as u32);
    assert!(WaitMode::Geq as u32 == sys::ACL_STREAM_WAIT_VALUE_GEQ as u32);
    assert!(WaitMode::Eq as u32 == sys::ACL_STREAM_WAIT_VALUE_EQ as u32);
    assert!(WaitMode::And as u32 == sys::ACL_STREAM_WAIT_VALUE_AND as u32);
    assert!(WaitMode::Nor as u32 == sys::ACL_STREAM_WAIT_VALUE_NOR as u32);
    use crate::raw_types::host_reg_flag as reg;
    assert!(reg::MAPPED == sys::ACL_HOST_REG_MAPPED);
    assert!(reg::IOMEMORY == sys::ACL_HOST_REG_IOMEMORY);
    assert!(reg::READONLY == sys::ACL_HOST_REG_READONLY);
    assert!(reg::PINNED == sys::ACL_HOST_REG_PINNED);
    assert!(crate::runtime::MEM_ATTACH_GLOBAL == sys::ACL_RT_MEM_ATTACH_GLOBAL);
};

/// The library's CMO type of an operation.
fn cmo_type(op: CmoType) -> sys::aclrtCmoType {
    op.raw() as _
}

impl HwBackend {
    /// Enqueues `task` on `stream` (whose context the caller has made current).
    pub(super) fn launch_inner(
        &self,
        stream: RawHandle,
        info: StreamInfo,
        task: Task,
    ) -> AclResult<()> {
        let s = raw_stream(stream);
        match task {
            // Simulator kernels run over the project's own library; a real device runs
            // compiled kernels (the front end asks `runs_sim_kernels` first).
            Task::Kernel { kernel, blocks } => self.launch_sim_kernel(kernel, blocks, s),
            // A real device's random-number task takes the program's own structure: the front
            // end does not rebuild it yet.
            Task::LabelSet { .. } | Task::LabelSwitch { .. } => Err(crate::error::AclError::new(
                crate::error::ErrorCode::RtFeatureNotSupport,
                None,
                "labels are not yet passed to a real device".to_string(),
            )),
            Task::RandomNum(_) => Err(crate::error::AclError::new(
                crate::error::ErrorCode::RtFeatureNotSupport,
                None,
                "random-number tasks are not yet passed to a real device".to_string(),
            )),
            Task::Reduce {
                dst,
                src,
                len,
                op,
                ty,
            } => acl!(
                self,
                aclrtReduceAsync(
                    ptr(dst),
                    ptr(src),
                    len,
                    crate::runtime::reduce::kind_of(op) as _,
                    crate::runtime::reduce::data_type_of(ty) as _,
                    s,
                    std::ptr::null_mut()
                )
            ),
            // SAFETY (all value and CMO tasks): addresses are device addresses the front end
            // validated; the library does not dereference them on the host.
            Task::ValueWrite { addr, value } => acl!(self, aclrtValueWrite(ptr(addr), value, 0, s)),
            Task::ValueWait { addr, value, mode } => {
                acl!(self, aclrtValueWait(ptr(addr), value, mode.flag(), s))
            }
            Task::Memset { addr, value, len } => acl!(
                self,
                aclrtMemsetAsync(ptr(addr), len as usize, value as i32, len as usize, s)
            ),
            Task::Cmo { op, addr, len } => acl!(
                self,
                aclrtCmoAsync(ptr(addr), len as usize, cmo_type(op), s)
            ),
            Task::CmoWithBarrier {
                op,
                addr,
                len,
                barrier_id,
            } => acl!(
                self,
                aclrtCmoAsyncWithBarrier(ptr(addr), len as usize, cmo_type(op), barrier_id, s)
            ),
            Task::CmoWaitBarrier { barrier_ids } => {
                let mut info = sys::aclrtBarrierTaskInfo {
                    barrierNum: barrier_ids.len() as _,
                    ..Default::default()
                };
                for (slot, id) in info.cmoInfo.iter_mut().zip(&barrier_ids) {
                    slot.cmoType = cmo_type(CmoType::Invalid);
                    slot.barrierId = *id;
                }
                // SAFETY: `info` is a live local the call only reads.
                acl!(self, aclrtCmoWaitBarrier(&mut info, s, 0))
            }
            Task::CmoWithDesc { desc, op } => acl!(
                self,
                aclrtCmoAsyncWithDesc(ptr(desc), cmo_type(op), s, std::ptr::null())
            ),
            Task::EventRecord(e) => {
                // SAFETY: `e` is a live event handle of the library (front-end validated).
                acl!(self, aclrtRecordEvent(e.0 as usize as sys::aclrtEvent, s))?;
                let mut st = self.state();
                st.seq += 1;
                let seq = st.seq;
                if let Some(ev) = st.events.get_mut(&e.0) {
                    ev.last_record = Some((stream, seq));
                }
                Ok(())
            }
            // SAFETY: `e` is a live event handle of the library (front-end validated).
            Task::EventWait(e) => {
                acl!(
                    self,
                    aclrtStreamWaitEvent(s, e.0 as usize as sys::aclrtEvent)
                )
            }
            // SAFETY: as above.
            Task::EventReset(e) => acl!(self, aclrtResetEvent(e.0 as usize as sys::aclrtEvent, s)),
            // SAFETY: `n` is a live notify handle of the library (front-end validated).
            Task::NotifyRecord(n) => {
                acl!(self, aclrtRecordNotify(n.0 as usize as sys::aclrtNotify, s))
            }
            Task::NotifyWait { notify, timeout_ms } => {
                // The API takes whole seconds; its 0 waits forever.
                let timeout =
                    timeout_ms.map_or(0, |ms| (ms / 1000).clamp(1, u64::from(u32::MAX)) as u32);
                // SAFETY: as above.
                acl!(
                    self,
                    aclrtWaitAndResetNotify(notify.0 as usize as sys::aclrtNotify, s, timeout)
                )
            }
            Task::Memcpy { dst, src, len } => {
                let n = len as usize;
                let (d, finish, dtemp) = self.async_end(&dst, n, true)?;
                let (sp, _, stemp) = match self.async_end(&src, n, false) {
                    Ok(v) => v,
                    Err(e) => {
                        if let Some(t) = dtemp {
                            self.free_pinned(t);
                        }
                        return Err(e);
                    }
                };
                let kind = match (&dst, &src) {
                    (Loc::Device(_), Loc::Host { .. }) => {
                        sys::aclrtMemcpyKind_ACL_MEMCPY_HOST_TO_DEVICE
                    }
                    (Loc::Host { .. }, Loc::Device(_)) => {
                        sys::aclrtMemcpyKind_ACL_MEMCPY_DEVICE_TO_HOST
                    }
                    (Loc::Device(_), Loc::Device(_)) => {
                        sys::aclrtMemcpyKind_ACL_MEMCPY_DEVICE_TO_DEVICE
                    }
                    (Loc::Host { .. }, Loc::Host { .. }) => {
                        sys::aclrtMemcpyKind_ACL_MEMCPY_HOST_TO_HOST
                    }
                };
                // SAFETY: host ends are pinned memory of at least `n` bytes that stays
                // allocated until the copy's completion is observed (see `finish`); device
                // ends are front-end validated device ranges.
                let rc = acl!(self, aclrtMemcpyAsync(d, n, sp, n, kind as _, s));
                if rc.is_err() {
                    for t in [stemp, dtemp].into_iter().flatten() {
                        self.free_pinned(t);
                    }
                    return rc;
                }
                self.push_pending(stream, info.persistent, None, stemp);
                self.push_pending(stream, info.persistent, finish, dtemp);
                Ok(())
            }
        }
    }
}
