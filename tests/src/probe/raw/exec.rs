//! The library side's calls: each [`Call`] on the library's function of the same name, on
//! the library's handles; an object a call creates unexpectedly is released at once.

use std::ffi::c_void;
use std::ptr::null_mut;

use ascend_rt_sys::{self as sys, acl_fn};

use super::RawSide;
use crate::probe::call::Call;
use crate::probe::Outcome;

impl RawSide<'_> {
    /// Makes `call` on the library (see [`Side::exec`](crate::probe::Side::exec)).
    pub(super) fn exec_call(&self, call: &Call) -> Result<Outcome, String> {
        use Call::*;
        let lib = self.lib;
        let mut guard = self.lock();
        let page = guard.as_mut_slice();
        let mut value = None;
        let (mut h, mut n, mut id, mut status) = (
            null_mut::<c_void>(),
            0usize,
            0i32,
            0 as sys::aclrtStreamStatus,
        );
        let code = match call {
            CmoAsync {
                src,
                size,
                cmo,
                stream,
            } => acl!(
                lib,
                aclrtCmoAsync(self.ptr(*src, page), *size, *cmo as _, self.stream(*stream))
            ),
            CmoAsyncWithBarrier {
                src,
                size,
                cmo,
                id,
                stream,
            } => acl!(
                lib,
                aclrtCmoAsyncWithBarrier(
                    self.ptr(*src, page),
                    *size,
                    *cmo as _,
                    *id,
                    self.stream(*stream)
                )
            ),
            CmoWaitBarrier { info, stream, flag } => {
                let mut b = info.as_ref().map(Self::barrier);
                let info = b.as_mut().map_or(null_mut(), |b| b as *mut _);
                acl!(lib, aclrtCmoWaitBarrier(info, self.stream(*stream), *flag))
            }
            CmoGetDescSize { out } => {
                let c = acl!(lib, aclrtCmoGetDescSize(Self::out(*out, &mut n)));
                value = (*out && c == 0).then_some(n as u64);
                c
            }
            CmoSetDesc { desc, src, size } => acl!(
                lib,
                aclrtCmoSetDesc(self.ptr(*desc, page), self.ptr(*src, page), *size)
            ),
            CmoAsyncWithDesc {
                desc,
                cmo,
                stream,
                reserve,
            } => acl!(
                lib,
                aclrtCmoAsyncWithDesc(
                    self.ptr(*desc, page),
                    *cmo as _,
                    self.stream(*stream),
                    self.ptr(*reserve, page)
                )
            ),
            ValueWrite {
                addr,
                value: v,
                flag,
                stream,
            } => acl!(
                lib,
                aclrtValueWrite(self.ptr(*addr, page), *v, *flag, self.stream(*stream))
            ),
            ValueWait {
                addr,
                value: v,
                flag,
                stream,
            } => acl!(
                lib,
                aclrtValueWait(self.ptr(*addr, page), *v, *flag, self.stream(*stream))
            ),
            SetDevice { id } => {
                let c = acl!(lib, aclrtSetDevice(*id));
                if c == 0 {
                    acl!(lib, aclrtResetDevice(*id));
                }
                c
            }
            GetDevice { out } => acl!(lib, aclrtGetDevice(Self::out(*out, &mut id))),
            Malloc { out, size, policy } => {
                let c = acl!(
                    lib,
                    aclrtMalloc(Self::out(*out, &mut h), *size, *policy as _)
                );
                if c == 0 && !h.is_null() {
                    acl!(lib, aclrtFree(h));
                }
                c
            }
            Free { ptr } => acl!(lib, aclrtFree(self.ptr(*ptr, page))),
            MallocHost { out, size } => {
                let c = acl!(lib, aclrtMallocHost(Self::out(*out, &mut h), *size));
                if c == 0 && !h.is_null() {
                    acl!(lib, aclrtFreeHost(h));
                }
                c
            }
            FreeHost { ptr } => acl!(lib, aclrtFreeHost(self.ptr(*ptr, page))),
            Memcpy {
                dst,
                dest_max,
                src,
                count,
                kind,
            } => acl!(
                lib,
                aclrtMemcpy(
                    self.ptr(*dst, page),
                    *dest_max,
                    self.ptr(*src, page),
                    *count,
                    *kind as _
                )
            ),
            MemcpyAsync {
                dst,
                dest_max,
                src,
                count,
                kind,
                stream,
            } => acl!(
                lib,
                aclrtMemcpyAsync(
                    self.ptr(*dst, page),
                    *dest_max,
                    self.ptr(*src, page),
                    *count,
                    *kind as _,
                    self.stream(*stream)
                )
            ),
            Memset {
                ptr,
                max,
                value: v,
                count,
            } => acl!(lib, aclrtMemset(self.ptr(*ptr, page), *max, *v, *count)),
            MemsetAsync {
                ptr,
                max,
                value: v,
                count,
                stream,
            } => acl!(
                lib,
                aclrtMemsetAsync(self.ptr(*ptr, page), *max, *v, *count, self.stream(*stream))
            ),
            CreateStream { out } => {
                let c = acl!(lib, aclrtCreateStream(Self::out(*out, &mut h)));
                if c == 0 && !h.is_null() {
                    acl!(lib, aclrtDestroyStream(h));
                }
                c
            }
            CreateStreamWithConfig {
                out,
                priority,
                flag,
            } => {
                let c = acl!(
                    lib,
                    aclrtCreateStreamWithConfig(Self::out(*out, &mut h), *priority, *flag)
                );
                if c == 0 && !h.is_null() {
                    acl!(lib, aclrtDestroyStream(h));
                }
                c
            }
            DestroyStream { stream } => acl!(lib, aclrtDestroyStream(self.stream(*stream))),
            SynchronizeStream { stream } => acl!(lib, aclrtSynchronizeStream(self.stream(*stream))),
            SynchronizeStreamWithTimeout { stream, timeout } => acl!(
                lib,
                aclrtSynchronizeStreamWithTimeout(self.stream(*stream), *timeout)
            ),
            StreamQuery { stream, out } => acl!(
                lib,
                aclrtStreamQuery(self.stream(*stream), Self::out(*out, &mut status))
            ),
            CreateEvent { out } => {
                let c = acl!(lib, aclrtCreateEvent(Self::out(*out, &mut h)));
                if c == 0 && !h.is_null() {
                    acl!(lib, aclrtDestroyEvent(h));
                }
                c
            }
            CreateEventWithFlag { out, flag } => {
                let c = acl!(
                    lib,
                    aclrtCreateEventWithFlag(Self::out(*out, &mut h), *flag)
                );
                if c == 0 && !h.is_null() {
                    acl!(lib, aclrtDestroyEvent(h));
                }
                c
            }
            RecordEvent { event, stream } => acl!(
                lib,
                aclrtRecordEvent(self.event(*event), self.stream(*stream))
            ),
            StreamWaitEvent { stream, event } => acl!(
                lib,
                aclrtStreamWaitEvent(self.stream(*stream), self.event(*event))
            ),
            SynchronizeEvent { event } => acl!(lib, aclrtSynchronizeEvent(self.event(*event))),
            SynchronizeEventWithTimeout { event, timeout } => acl!(
                lib,
                aclrtSynchronizeEventWithTimeout(self.event(*event), *timeout)
            ),
            QueryEventStatus { event, out } => {
                let mut st = 0 as sys::aclrtEventRecordedStatus;
                acl!(
                    lib,
                    aclrtQueryEventStatus(self.event(*event), Self::out(*out, &mut st))
                )
            }
            DestroyEvent { event } => acl!(lib, aclrtDestroyEvent(self.event(*event))),
            MdlBuildBegin { out, flag } => {
                let c = acl!(lib, aclmdlRIBuildBegin(Self::out(*out, &mut h), *flag));
                if c == 0 && !h.is_null() {
                    acl!(lib, aclmdlRIDestroy(h));
                }
                c
            }
            MdlBindStream {
                model,
                stream,
                flag,
            } => acl!(
                lib,
                aclmdlRIBindStream(self.model(*model), self.stream(*stream), *flag)
            ),
            MdlEndTask { model, stream } => acl!(
                lib,
                aclmdlRIEndTask(self.model(*model), self.stream(*stream))
            ),
            MdlBuildEnd { model, reserve } => acl!(
                lib,
                aclmdlRIBuildEnd(self.model(*model), self.ptr(*reserve, page))
            ),
            MdlExecute { model, timeout } => {
                acl!(lib, aclmdlRIExecute(self.model(*model), *timeout))
            }
            MdlExecuteAsync { model, stream } => acl!(
                lib,
                aclmdlRIExecuteAsync(self.model(*model), self.stream(*stream))
            ),
            MdlUnbindStream { model, stream } => acl!(
                lib,
                aclmdlRIUnbindStream(self.model(*model), self.stream(*stream))
            ),
            MdlDestroy { model } => acl!(lib, aclmdlRIDestroy(self.model(*model))),
        };
        Ok(Outcome {
            code: code as i32,
            value,
        })
    }
}
