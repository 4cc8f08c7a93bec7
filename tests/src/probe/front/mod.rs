//! The front end's side of the probe: each [`Call`] made through the raw Rust API of a
//! [`Runtime`] over the simulator of the library's SoC, on state built like the library's
//! (device 0 set, the same buffers, streams, event and model). Its result is the front end's
//! prediction of the library's return code.

use std::sync::{Mutex, MutexGuard};

use ascend_rt::raw_types::*;
use ascend_rt::{AclResult, MemDst, MemSrc, MsgCode, Runtime};

mod exec;

use super::call::{Barrier, Call, Evt, Mdl, Ptr, Strm};
use super::{host_range, Fixture, Outcome, Side, FLAGGED, REGISTERED_AT, REGISTERED_LEN};

/// The front end and the objects of the probe's state, by their front-end handles.
pub(crate) struct FrontSide {
    rt: Runtime,
    fx: Fixture<Addr, RawStream, RawEvent, RawModel>,
    /// The pageable host buffer (512 bytes, then the 256 registered ones).
    pageable: Mutex<Vec<u8>>,
    /// The zero-filled block whose address is the garbage stream handle.
    garbage: Box<[u64; 64]>,
    /// The registered host range as the front end reaches it (`Ptr::Registered` by address);
    /// where the C library passes it as a slice, the side's pageable buffer stands in.
    registered: std::sync::Arc<ascend_rt::SharedBytes>,
}

thread_local! {
    /// The message code of the calling thread's last front-end failure (for coverage).
    static LAST_MSG: std::cell::Cell<Option<MsgCode>> = const { std::cell::Cell::new(None) };
}

/// The code of a result; a failure's message code is kept for [`FrontSide::exec_with_msg`].
fn code<T>(r: AclResult<T>) -> i32 {
    match r {
        Ok(_) => 0,
        Err(e) => {
            LAST_MSG.with(|m| m.set(e.msg_code));
            e.code()
        }
    }
}

/// Unwraps a setup step, naming it.
fn step(what: &str, r: AclResult<()>) -> Result<(), String> {
    r.map_err(|e| format!("front end: {what}: {e}"))
}

impl FrontSide {
    /// A runtime over the simulator of `soc`, with the probe's state built on it.
    pub(crate) fn new(soc: &str) -> Result<FrontSide, String> {
        let rt = Runtime::sim(soc).map_err(|e| format!("front end for {soc}: {e}"))?;
        if let Err(e) = rt.init(None) {
            if e.code() != ascend_rt::ErrorCode::RepeatInitialize.number() {
                return Err(format!("front end: aclInit: {e}"));
            }
        }
        step("aclrtSetDevice(0)", rt.set_device(0))?;
        let malloc = |size| -> Result<Addr, String> {
            let mut a = Addr::NULL;
            step(
                "aclrtMalloc",
                rt.malloc(Some(&mut a), size, malloc_policy::HUGE_FIRST),
            )?;
            step("aclrtMemset", rt.memset(a, size, 0, size))?;
            Ok(a)
        };
        let (dev, desc) = (malloc(256)?, malloc(128)?);
        let mut pinned = Addr::NULL;
        step("aclrtMallocHost", rt.malloc_host(Some(&mut pinned), 64))?;
        let stream = |flag| -> Result<RawStream, String> {
            let mut s = RawStream::NULL;
            step(
                "aclrtCreateStreamWithConfig",
                rt.create_stream_with_config(Some(&mut s), 0, flag),
            )?;
            Ok(s)
        };
        let (plain, persistent, bound) = (
            stream(0)?,
            stream(stream_flag::PERSISTENT)?,
            stream(stream_flag::PERSISTENT)?,
        );
        let mut model = RawModel::default();
        step(
            "aclmdlRIBuildBegin",
            rt.mdl_ri_build_begin(Some(&mut model), 0),
        )?;
        step("aclmdlRIBindStream", rt.mdl_ri_bind_stream(model, bound, 0))?;
        let mut event = RawEvent::default();
        step("aclrtCreateEvent", rt.create_event(Some(&mut event)))?;
        // The flagged events: one the front end refuses to create is passed as NULL.
        let mut flagged = [RawEvent::default(); 3];
        for (slot, e) in flagged.iter_mut().zip(FLAGGED) {
            let flag = e.flag().expect("a flagged event");
            let _ = rt.create_event_with_flag(Some(slot), flag);
        }
        let destroyed = stream(0)?;
        step("aclrtDestroyStream", rt.destroy_stream(destroyed))?;
        let fx = Fixture {
            dev,
            desc,
            pinned,
            plain,
            persistent,
            bound,
            destroyed,
            event,
            flagged,
            model,
        };
        let side = FrontSide {
            rt,
            fx,
            pageable: Mutex::new(vec![0; REGISTERED_AT + REGISTERED_LEN]),
            garbage: Box::new([0; 64]),
            registered: ascend_rt::SharedBytes::new(REGISTERED_LEN),
        };
        let mem: std::sync::Arc<dyn ascend_rt::HostMemory> = side.registered.clone();
        // As on the library's side, a refused registration leaves ordinary host memory.
        let _ = with_out(|o| {
            side.rt.host_register(
                side.addr(Ptr::Registered),
                REGISTERED_LEN as u64,
                0,
                Some(o),
                Some(mem),
            )
        });
        Ok(side)
    }

    fn pageable(&self) -> MutexGuard<'_, Vec<u8>> {
        self.pageable.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// An address argument (pageable memory by its real host address).
    fn addr(&self, p: Ptr) -> Addr {
        match p {
            Ptr::Null => Addr::NULL,
            Ptr::Dev => self.fx.dev,
            Ptr::Desc => self.fx.desc,
            Ptr::Pinned => self.fx.pinned,
            Ptr::Pageable => Addr(self.pageable().as_ptr() as u64),
            Ptr::Registered => self.registered.addr(),
        }
    }

    fn stream(&self, s: Strm) -> RawStream {
        self.fx
            .stream(s, RawStream::NULL, RawStream(self.garbage.as_ptr() as u64))
    }

    fn event(&self, e: Evt) -> RawEvent {
        self.fx.event_of(e, RawEvent::default())
    }

    fn model(&self, m: Mdl) -> RawModel {
        match m {
            Mdl::Null => RawModel::default(),
            Mdl::Live => self.fx.model,
        }
    }

    /// A copy of `len` bytes (`min(count, destMax)`): host ends that overlap as offsets into
    /// the whole buffer (`within`); otherwise host ends as slices (the source's from a copy of
    /// the buffer, so a source and destination never coexist as `&` and `&mut`), others as
    /// addresses (`split`).
    fn copy(
        &self,
        (dst, src): (Ptr, Ptr),
        len: usize,
        split: impl FnOnce(MemDst<'_>, MemSrc<'_>) -> AclResult<()>,
        within: impl FnOnce(&mut [u8], usize, usize) -> AclResult<()>,
    ) -> i32 {
        let mut page = self.pageable();
        // Two host ends that share bytes are one buffer to the C library, which passes them
        // as offsets into it (so that dst == src is seen): the same here.
        if let (Some(d), Some(s)) = (host_range(dst), host_range(src)) {
            if len > 0 && d.start < s.start + len && s.start < d.start + len {
                return code(within(&mut page, d.start, s.start));
            }
        }
        let staged = page.clone();
        let s = match host_range(src) {
            Some(r) => MemSrc::Host(&staged[r]),
            None => MemSrc::Addr(self.addr(src)),
        };
        let d = match host_range(dst) {
            Some(r) => MemDst::Host(&mut page[r]),
            None => MemDst::Addr(self.addr(dst)),
        };
        code(split(d, s))
    }

    /// A fill, synchronous or not: host memory the C library passes as a slice (pageable and
    /// registered ranges, by their host addresses) goes as a slice, others as addresses.
    fn fill_or_slice(&self, ptr: Ptr, f: impl FnOnce(MemDst<'_>) -> AclResult<()>) -> i32 {
        match host_range(ptr) {
            Some(r) => code(f(MemDst::Host(&mut self.pageable()[r]))),
            None => code(f(MemDst::Addr(self.addr(ptr)))),
        }
    }

    fn barrier(b: &Barrier) -> RawBarrierTaskInfo {
        let mut info = RawBarrierTaskInfo {
            barrier_num: b.num,
            ..Default::default()
        };
        for (slot, &(cmo_type, barrier_id)) in info.cmo_info.iter_mut().zip(&b.entries) {
            *slot = RawBarrierCmoInfo {
                cmo_type,
                barrier_id,
            };
        }
        info
    }

    /// Releases what a call created (it was expected to fail).
    fn release<T: Default + PartialEq>(
        &self,
        r: AclResult<()>,
        obj: T,
        drop: impl FnOnce(T) -> AclResult<()>,
    ) -> i32 {
        let c = code(r);
        if c == 0 && obj != T::default() {
            let _ = drop(obj);
        }
        c
    }
}

impl FrontSide {
    /// Makes `call` and also returns the message code of its failure (None on success or
    /// when the failure has none).
    pub(crate) fn exec_with_msg(&self, call: &Call) -> (Result<Outcome, String>, Option<MsgCode>) {
        LAST_MSG.with(|m| m.set(None));
        let r = self.exec_call(call);
        let failed = matches!(&r, Ok(o) if o.code != 0);
        (r, LAST_MSG.with(|m| m.get()).filter(|_| failed))
    }
}

impl Side for FrontSide {
    fn exec(&self, call: &Call) -> Result<Outcome, String> {
        self.exec_call(call)
    }

    fn teardown(&self) -> Vec<String> {
        let (rt, fx) = (&self.rt, &self.fx);
        for &e in fx.flagged.iter().filter(|&&e| e != RawEvent::default()) {
            let _ = rt.destroy_event(e);
        }
        let registered = self.addr(Ptr::Registered);
        let steps: [(&str, AclResult<()>); 11] = [
            ("aclrtHostUnregister", rt.host_unregister(registered)),
            ("aclrtDestroyEvent", rt.destroy_event(fx.event)),
            (
                "aclmdlRIUnbindStream",
                rt.mdl_ri_unbind_stream(fx.model, fx.bound),
            ),
            ("aclmdlRIDestroy", rt.mdl_ri_destroy(fx.model)),
            ("aclrtDestroyStream(bound)", rt.destroy_stream(fx.bound)),
            (
                "aclrtDestroyStreamForce(persistent)",
                rt.destroy_stream_force(fx.persistent),
            ),
            ("aclrtDestroyStream(plain)", rt.destroy_stream(fx.plain)),
            ("aclrtFreeHost", rt.free_host(fx.pinned)),
            ("aclrtFree(desc)", rt.free(fx.desc)),
            ("aclrtFree(dev)", rt.free(fx.dev)),
            ("aclrtResetDevice(0)", rt.reset_device(0)),
        ];
        steps
            .into_iter()
            .filter_map(|(what, r)| r.err().map(|e| format!("{what}: {e}")))
            .collect()
    }
}
