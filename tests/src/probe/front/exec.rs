//! The front end's calls: each [`Call`] through the raw method of [`ascend_rt::Runtime`] of
//! the same name; an object a call creates unexpectedly is released at once.

use ascend_rt::raw_types::*;

use super::{code, FrontSide};
use crate::probe::call::Call;
use crate::probe::Outcome;

impl FrontSide {
    /// Makes `call` through the front end (see [`Side::exec`](crate::probe::Side::exec)).
    pub(super) fn exec_call(&self, call: &Call) -> Result<Outcome, String> {
        use Call::*;
        let rt = &self.rt;
        let mut value = None;
        let c = match call {
            CmoAsync {
                src,
                size,
                cmo,
                stream,
            } => code(rt.cmo_async(self.addr(*src), *size, *cmo, self.stream(*stream))),
            CmoAsyncWithBarrier {
                src,
                size,
                cmo,
                id,
                stream,
            } => code(rt.cmo_async_with_barrier(
                self.addr(*src),
                *size,
                *cmo,
                *id,
                self.stream(*stream),
            )),
            CmoWaitBarrier { info, stream, flag } => code(rt.cmo_wait_barrier(
                info.as_ref().map(Self::barrier).as_ref(),
                self.stream(*stream),
                *flag,
            )),
            CmoGetDescSize { out } => {
                let mut size = 0usize;
                let c = code(rt.cmo_get_desc_size(out.then_some(&mut size)));
                value = (*out && c == 0).then_some(size as u64);
                c
            }
            CmoSetDesc { desc, src, size } => {
                code(rt.cmo_set_desc(self.addr(*desc), self.addr(*src), *size))
            }
            CmoAsyncWithDesc {
                desc,
                cmo,
                stream,
                reserve,
            } => code(rt.cmo_async_with_desc(
                self.addr(*desc),
                *cmo,
                self.stream(*stream),
                self.addr(*reserve),
            )),
            ValueWrite {
                addr,
                value: v,
                flag,
                stream,
            } => code(rt.value_write(self.addr(*addr), *v, *flag, self.stream(*stream))),
            ValueWait {
                addr,
                value: v,
                flag,
                stream,
            } => code(rt.value_wait(self.addr(*addr), *v, *flag, self.stream(*stream))),
            SetDevice { id } => {
                let c = code(rt.set_device(*id));
                if c == 0 {
                    let _ = rt.reset_device(*id);
                }
                c
            }
            GetDevice { out } => {
                let mut id = 0;
                code(rt.get_device(out.then_some(&mut id)))
            }
            Malloc { out, size, policy } => {
                let mut a = Addr::NULL;
                self.release(rt.malloc(out.then_some(&mut a), *size, *policy), a, |a| {
                    rt.free(a)
                })
            }
            Free { ptr } => code(rt.free(self.addr(*ptr))),
            MallocHost { out, size } => {
                let mut a = Addr::NULL;
                self.release(rt.malloc_host(out.then_some(&mut a), *size), a, |a| {
                    rt.free_host(a)
                })
            }
            FreeHost { ptr } => code(rt.free_host(self.addr(*ptr))),
            Memcpy {
                dst,
                dest_max,
                src,
                count,
                kind,
            } => self.copy(
                (*dst, *src),
                (*count).min(*dest_max),
                |d, s| rt.memcpy(d, *dest_max, s, *count, *kind),
                |buf, d, s| rt.memcpy_within(buf, d, *dest_max, s, *count, *kind),
            ),
            MemcpyAsync {
                dst,
                dest_max,
                src,
                count,
                kind,
                stream,
            } => self.copy(
                (*dst, *src),
                (*count).min(*dest_max),
                |d, s| rt.memcpy_async(d, *dest_max, s, *count, *kind, self.stream(*stream)),
                |buf, d, s| {
                    let st = self.stream(*stream);
                    rt.memcpy_async_within(buf, d, *dest_max, s, *count, *kind, st)
                },
            ),
            Memset {
                ptr,
                max,
                value: v,
                count,
            } => self.fill_or_slice(*ptr, |d| rt.memset(d, *max, *v, *count)),
            MemsetAsync {
                ptr,
                max,
                value: v,
                count,
                stream,
            } => self.fill_or_slice(*ptr, |d| {
                rt.memset_async(d, *max, *v, *count, self.stream(*stream))
            }),
            CreateStream { out } => {
                let mut s = RawStream::NULL;
                self.release(rt.create_stream(out.then_some(&mut s)), s, |s| {
                    rt.destroy_stream(s)
                })
            }
            CreateStreamWithConfig {
                out,
                priority,
                flag,
            } => {
                let mut s = RawStream::NULL;
                self.release(
                    rt.create_stream_with_config(out.then_some(&mut s), *priority, *flag),
                    s,
                    |s| rt.destroy_stream(s),
                )
            }
            DestroyStream { stream } => code(rt.destroy_stream(self.stream(*stream))),
            SynchronizeStream { stream } => code(rt.synchronize_stream(self.stream(*stream))),
            SynchronizeStreamWithTimeout { stream, timeout } => {
                code(rt.synchronize_stream_with_timeout(self.stream(*stream), *timeout))
            }
            StreamQuery { stream, out } => {
                let mut status = 0;
                code(rt.stream_query(self.stream(*stream), out.then_some(&mut status)))
            }
            CreateEvent { out } => {
                let mut e = RawEvent::default();
                self.release(rt.create_event(out.then_some(&mut e)), e, |e| {
                    rt.destroy_event(e)
                })
            }
            CreateEventWithFlag { out, flag } => {
                let mut e = RawEvent::default();
                self.release(
                    rt.create_event_with_flag(out.then_some(&mut e), *flag),
                    e,
                    |e| rt.destroy_event(e),
                )
            }
            RecordEvent { event, stream } => {
                code(rt.record_event(self.event(*event), self.stream(*stream)))
            }
            StreamWaitEvent { stream, event } => {
                code(rt.stream_wait_event(self.stream(*stream), self.event(*event)))
            }
            SynchronizeEvent { event } => code(rt.synchronize_event(self.event(*event))),
            SynchronizeEventWithTimeout { event, timeout } => {
                code(rt.synchronize_event_with_timeout(self.event(*event), *timeout))
            }
            QueryEventStatus { event, out } => {
                let mut status = 0;
                code(rt.query_event_status(self.event(*event), out.then_some(&mut status)))
            }
            DestroyEvent { event } => code(rt.destroy_event(self.event(*event))),
            MdlBuildBegin { out, flag } => {
                let mut m = RawModel::default();
                self.release(
                    rt.mdl_ri_build_begin(out.then_some(&mut m), *flag),
                    m,
                    |m| rt.mdl_ri_destroy(m),
                )
            }
            MdlBindStream {
                model,
                stream,
                flag,
            } => code(rt.mdl_ri_bind_stream(self.model(*model), self.stream(*stream), *flag)),
            MdlEndTask { model, stream } => {
                code(rt.mdl_ri_end_task(self.model(*model), self.stream(*stream)))
            }
            MdlBuildEnd { model, reserve } => {
                code(rt.mdl_ri_build_end(self.model(*model), Some(self.addr(*reserve).0)))
            }
            MdlExecute { model, timeout } => code(rt.mdl_ri_execute(self.model(*model), *timeout)),
            MdlExecuteAsync { model, stream } => {
                code(rt.mdl_ri_execute_async(self.model(*model), self.stream(*stream)))
            }
            MdlUnbindStream { model, stream } => {
                code(rt.mdl_ri_unbind_stream(self.model(*model), self.stream(*stream)))
            }
            MdlDestroy { model } => code(rt.mdl_ri_destroy(self.model(*model))),
        };
        Ok(Outcome { code: c, value })
    }
}
