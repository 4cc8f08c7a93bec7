//! The library's side of the probe: each [`Call`] made on the loaded runtime library itself,
//! through the function pointers of `ascend-rt-sys`, on the library's own handles.
//!
//! The conformance crate's only `unsafe` is in this module (its submodule `exec` makes the
//! calls), in two blocks: the `acl!` macro's call of a library function, and the copy of the
//! SoC name. What makes every call sound is the same for every row:
//!
//! - each pointer argument is NULL, a value the library itself returned (a handle, a device
//!   address, its page-locked memory, all still live unless the row is about a destroyed
//!   handle), or memory of this side that outlives the call: the pageable buffer (locked for
//!   the call), the zero-filled block used as the garbage stream handle (readable, never
//!   written), or a local out-parameter or barrier struct of the calling frame;
//! - every length the library may use to touch host memory is within that memory (the
//!   pageable buffer has 512 bytes, the page-locked one 64; no row copies more);
//! - the function's signature is bindgen's declaration from the ACL header.
//!
//! Passing a destroyed or garbage handle is what the probe is for: the ACL contract makes the
//! library validate handles (107017) before it uses them, and a garbage handle points at
//! readable memory in case it does not.
#![allow(unsafe_code)]
// The declarations come from the vendor's headers or from the project's own, whose enum types
// may differ (`c_uint`, `c_int`): the casts keep this module compiling on both.
#![allow(clippy::unnecessary_cast)]

use std::ffi::{c_void, CStr};
use std::ptr::null_mut;
use std::sync::{Mutex, MutexGuard};

use ascend_rt_sys::{self as sys, acl_fn, Library};

use super::call::{Barrier, Call, Evt, Mdl, Ptr, Strm};
use super::{host_range, Fixture, Outcome, Side, FLAGGED, REGISTERED_AT, REGISTERED_LEN};

/// Calls the library's function `name`; the code it returns, or `Err` if the library lacks it.
macro_rules! acl {
    ($lib:expr, $name:ident ( $($arg:expr),* $(,)? )) => {{
        let f = acl_fn!($lib, $name).map_err(|e| e.to_string())?;
        // SAFETY: `f` is the library's `$name` with bindgen's signature; every pointer argument
        // is NULL, the library's own value, or memory of the caller that outlives the call
        // with room for what the call may touch (module documentation).
        unsafe { f($($arg),*) }
    }};
}

mod exec;

/// A stored address or handle (kept as an integer so that the side is `Sync`).
fn p(v: usize) -> *mut c_void {
    v as *mut c_void
}

/// The library and the objects of the probe's state, by the library's handles.
pub(crate) struct RawSide<'l> {
    lib: &'l Library,
    soc: String,
    fx: Fixture<usize, usize, usize, usize>,
    /// The pageable host buffer (512 bytes, then the 256 registered ones), locked for each
    /// call.
    pageable: Mutex<Vec<u8>>,
    /// The zero-filled block whose address is the garbage stream handle.
    garbage: Box<[u64; 64]>,
}

/// Fails a setup step that did not return 0.
fn step(what: &str, rc: i32) -> Result<(), String> {
    match rc {
        0 => Ok(()),
        rc => Err(format!("library: {what} returned {rc}")),
    }
}

impl<'l> RawSide<'l> {
    /// Initialises the library (`aclInit(NULL)`; 100002 is fine), reads its SoC name and
    /// builds the probe's state.
    pub(crate) fn new(lib: &'l Library) -> Result<RawSide<'l>, String> {
        let rc = acl!(lib, aclInit(std::ptr::null()));
        if rc != 0 && rc != ascend_rt::ErrorCode::RepeatInitialize.number() {
            return Err(format!("library: aclInit(NULL) returned {rc}"));
        }
        let name = acl!(lib, aclrtGetSocName());
        if name.is_null() {
            return Err("library: aclrtGetSocName returned NULL".into());
        }
        // SAFETY: non-NULL and NUL-terminated, owned by the library for the process's life;
        // copied out at once.
        let soc = unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned();
        step("aclrtSetDevice(0)", acl!(lib, aclrtSetDevice(0)))?;
        let malloc = |size: usize| -> Result<usize, String> {
            let mut a = null_mut();
            step("aclrtMalloc", acl!(lib, aclrtMalloc(&mut a, size, 0 as _)))?;
            step("aclrtMemset", acl!(lib, aclrtMemset(a, size, 0, size)))?;
            Ok(a as usize)
        };
        let (dev, desc) = (malloc(256)?, malloc(128)?);
        let mut pinned = null_mut();
        step(
            "aclrtMallocHost",
            acl!(lib, aclrtMallocHost(&mut pinned, 64)),
        )?;
        let stream = |flag: u32| -> Result<usize, String> {
            let mut s = null_mut();
            step(
                "aclrtCreateStreamWithConfig",
                acl!(lib, aclrtCreateStreamWithConfig(&mut s, 0, flag)),
            )?;
            Ok(s as usize)
        };
        let persistent_flag = sys::ACL_STREAM_PERSISTENT as u32;
        let (plain, persistent, bound) = (
            stream(0)?,
            stream(persistent_flag)?,
            stream(persistent_flag)?,
        );
        let mut model = null_mut();
        step(
            "aclmdlRIBuildBegin",
            acl!(lib, aclmdlRIBuildBegin(&mut model, 0)),
        )?;
        step(
            "aclmdlRIBindStream",
            acl!(lib, aclmdlRIBindStream(model, p(bound), 0)),
        )?;
        let mut event = null_mut();
        step("aclrtCreateEvent", acl!(lib, aclrtCreateEvent(&mut event)))?;
        // The flagged events: one a library refuses to create is passed as NULL.
        let mut flagged = [0usize; 3];
        for (slot, e) in flagged.iter_mut().zip(FLAGGED) {
            let mut h = null_mut();
            let flag = e.flag().expect("a flagged event");
            if acl!(lib, aclrtCreateEventWithFlag(&mut h, flag)) == 0 {
                *slot = h as usize;
            }
        }
        let destroyed = stream(0)?;
        step(
            "aclrtDestroyStream",
            acl!(lib, aclrtDestroyStream(p(destroyed))),
        )?;
        let fx = Fixture {
            dev,
            desc,
            pinned: pinned as usize,
            plain,
            persistent,
            bound,
            destroyed,
            event: event as usize,
            flagged,
            model: model as usize,
        };
        let side = RawSide {
            lib,
            soc,
            fx,
            pageable: Mutex::new(vec![0; REGISTERED_AT + REGISTERED_LEN]),
            garbage: Box::new([0; 64]),
        };
        {
            let mut page = side.lock();
            let reg = page[REGISTERED_AT..].as_mut_ptr().cast::<c_void>();
            let mut dev = null_mut();
            // A chip without host registration (Ascend310B1 refuses it with 207000) leaves
            // the range ordinary host memory: the rows then compare that.
            let _ = acl!(
                lib,
                aclrtHostRegister(reg, REGISTERED_LEN as u64, 0 as _, &mut dev)
            );
        }
        Ok(side)
    }

    /// The SoC the library reported.
    pub(crate) fn soc(&self) -> &str {
        &self.soc
    }

    fn lock(&self) -> MutexGuard<'_, Vec<u8>> {
        self.pageable.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A pointer argument; `page` is the locked pageable buffer.
    fn ptr(&self, x: Ptr, page: &mut [u8]) -> *mut c_void {
        match x {
            Ptr::Null => null_mut(),
            Ptr::Dev => p(self.fx.dev),
            Ptr::Desc => p(self.fx.desc),
            Ptr::Pinned => p(self.fx.pinned),
            Ptr::Pageable | Ptr::Registered => {
                let r = host_range(x).expect("a host range");
                page[r].as_mut_ptr().cast()
            }
        }
    }

    fn stream(&self, s: Strm) -> *mut c_void {
        p(self.fx.stream(s, 0, self.garbage.as_ptr() as usize))
    }

    fn event(&self, e: Evt) -> *mut c_void {
        p(self.fx.event_of(e, 0))
    }

    fn model(&self, m: Mdl) -> *mut c_void {
        match m {
            Mdl::Null => null_mut(),
            Mdl::Live => p(self.fx.model),
        }
    }

    fn barrier(b: &Barrier) -> sys::aclrtBarrierTaskInfo {
        let mut info = sys::aclrtBarrierTaskInfo {
            barrierNum: b.num as _,
            ..Default::default()
        };
        for (slot, &(cmo, id)) in info.cmoInfo.iter_mut().zip(&b.entries) {
            slot.cmoType = cmo as _;
            slot.barrierId = id;
        }
        info
    }

    /// An out-parameter: the local, or NULL.
    fn out<T>(valid: bool, local: &mut T) -> *mut T {
        if valid {
            local
        } else {
            null_mut()
        }
    }
}

impl Side for RawSide<'_> {
    fn exec(&self, call: &Call) -> Result<Outcome, String> {
        self.exec_call(call)
    }

    fn teardown(&self) -> Vec<String> {
        let (lib, fx) = (self.lib, &self.fx);
        let registered = self.lock()[REGISTERED_AT..].as_mut_ptr().cast::<c_void>();
        let trace = super::tracing();
        let say = |step: &'static str| {
            if trace {
                eprintln!("probe teardown: {step}");
            }
            step
        };
        let run = || -> Result<Vec<(&str, i32)>, String> {
            for &e in fx.flagged.iter().filter(|&&e| e != 0) {
                acl!(lib, aclrtDestroyEvent(p(e)));
            }
            Ok(vec![
                (
                    say("aclrtHostUnregister"),
                    acl!(lib, aclrtHostUnregister(registered)),
                ),
                (
                    say("aclrtDestroyEvent"),
                    acl!(lib, aclrtDestroyEvent(p(fx.event))),
                ),
                (
                    say("aclmdlRIUnbindStream"),
                    acl!(lib, aclmdlRIUnbindStream(p(fx.model), p(fx.bound))),
                ),
                (
                    say("aclmdlRIDestroy"),
                    acl!(lib, aclmdlRIDestroy(p(fx.model))),
                ),
                (
                    say("aclrtDestroyStream(bound)"),
                    acl!(lib, aclrtDestroyStream(p(fx.bound))),
                ),
                // By force: the tasks of a persistent stream bound to no model never run,
                // and the oracle's plain destroy waits for them without end (both sides do
                // the same; teardown is not compared).
                (
                    say("aclrtDestroyStreamForce(persistent)"),
                    acl!(lib, aclrtDestroyStreamForce(p(fx.persistent))),
                ),
                (
                    say("aclrtDestroyStream(plain)"),
                    acl!(lib, aclrtDestroyStream(p(fx.plain))),
                ),
                (say("aclrtFreeHost"), acl!(lib, aclrtFreeHost(p(fx.pinned)))),
                (say("aclrtFree(desc)"), acl!(lib, aclrtFree(p(fx.desc)))),
                (say("aclrtFree(dev)"), acl!(lib, aclrtFree(p(fx.dev)))),
                (say("aclrtResetDevice(0)"), acl!(lib, aclrtResetDevice(0))),
            ])
        };
        match run() {
            Ok(steps) => steps
                .into_iter()
                .filter(|(_, rc)| *rc != 0)
                .map(|(what, rc)| format!("{what} returned {rc}"))
                .collect(),
            Err(e) => vec![e],
        }
    }
}
