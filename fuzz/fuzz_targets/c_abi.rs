//! Fuzz target: drives the C ABI exports of `ascend-sim-capi` (linked as an rlib; the
//! `extern "C"` functions are called directly) with handles and addresses decoded from the
//! input: runtime allocations, NULLs and garbage values, and pointers only to memory this
//! target owns. No panic may cross the ABI, nothing may crash or hang: the process-wide
//! runtime is configured through the environment with `ASCEND_SIM_ON_STALL=error` and a 5 ms
//! watchdog before its first use.

#![no_main]

use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::Once;

use libfuzzer_sys::fuzz_target;

// Links the crate; its `#[no_mangle]` exports resolve the declarations below.
use ascendcl as _;

type AclError = i32;

/// `aclrtBarrierTaskInfo`.
#[repr(C)]
struct BarrierTaskInfo {
    barrier_num: usize,
    /// (cmoType, barrierId) pairs.
    cmo_info: [[u32; 2]; 6],
}

extern "C" {
    fn aclInit(config: *const std::ffi::c_char) -> AclError;
    fn aclrtSetDevice(device: i32) -> AclError;
    fn aclrtResetDeviceForce(device: i32) -> AclError;
    fn aclrtGetDevice(device: *mut i32) -> AclError;
    fn aclrtGetCurrentContext(ctx: *mut *mut c_void) -> AclError;
    fn aclrtSetCurrentContext(ctx: *mut c_void) -> AclError;
    fn aclrtSynchronizeDevice() -> AclError;
    fn aclrtMalloc(p: *mut *mut c_void, size: usize, policy: u32) -> AclError;
    fn aclrtFree(p: *mut c_void) -> AclError;
    fn aclrtMemcpy(d: *mut c_void, max: usize, s: *const c_void, n: usize, k: u32) -> AclError;
    fn aclrtMemcpyAsync(
        d: *mut c_void,
        max: usize,
        s: *const c_void,
        n: usize,
        k: u32,
        st: *mut c_void,
    ) -> AclError;
    fn aclrtMemset(p: *mut c_void, max: usize, v: i32, n: usize) -> AclError;
    fn aclrtMemsetAsync(p: *mut c_void, max: usize, v: i32, n: usize, s: *mut c_void) -> AclError;
    fn aclrtCreateStreamWithConfig(s: *mut *mut c_void, prio: u32, flag: u32) -> AclError;
    fn aclrtDestroyStream(s: *mut c_void) -> AclError;
    fn aclrtDestroyStreamForce(s: *mut c_void) -> AclError;
    fn aclrtSynchronizeStream(s: *mut c_void) -> AclError;
    fn aclrtSynchronizeStreamWithTimeout(s: *mut c_void, t: i32) -> AclError;
    fn aclrtStreamQuery(s: *mut c_void, status: *mut u32) -> AclError;
    fn aclrtCreateEvent(e: *mut *mut c_void) -> AclError;
    fn aclrtRecordEvent(e: *mut c_void, s: *mut c_void) -> AclError;
    fn aclrtResetEvent(e: *mut c_void, s: *mut c_void) -> AclError;
    fn aclrtStreamWaitEvent(s: *mut c_void, e: *mut c_void) -> AclError;
    fn aclrtSynchronizeEventWithTimeout(e: *mut c_void, t: i32) -> AclError;
    fn aclrtQueryEventStatus(e: *mut c_void, status: *mut u32) -> AclError;
    fn aclrtDestroyEvent(e: *mut c_void) -> AclError;
    fn aclrtValueWrite(a: *mut c_void, v: u64, f: u32, s: *mut c_void) -> AclError;
    fn aclrtValueWait(a: *mut c_void, v: u64, f: u32, s: *mut c_void) -> AclError;
    fn aclrtCmoAsync(a: *mut c_void, n: usize, t: u32, s: *mut c_void) -> AclError;
    fn aclrtCmoAsyncWithBarrier(
        a: *mut c_void,
        n: usize,
        t: u32,
        id: u32,
        s: *mut c_void,
    ) -> AclError;
    fn aclrtCmoWaitBarrier(info: *mut BarrierTaskInfo, s: *mut c_void, flag: u32) -> AclError;
    fn aclrtCmoGetDescSize(n: *mut usize) -> AclError;
    fn aclrtCmoSetDesc(d: *mut c_void, src: *mut c_void, n: usize) -> AclError;
    fn aclrtCmoAsyncWithDesc(d: *mut c_void, t: u32, s: *mut c_void, r: *const c_void) -> AclError;
    fn aclmdlRIBuildBegin(m: *mut *mut c_void, flag: u32) -> AclError;
    fn aclmdlRIBindStream(m: *mut c_void, s: *mut c_void, flag: u32) -> AclError;
    fn aclmdlRIUnbindStream(m: *mut c_void, s: *mut c_void) -> AclError;
    fn aclmdlRIEndTask(m: *mut c_void, s: *mut c_void) -> AclError;
    fn aclmdlRIBuildEnd(m: *mut c_void, r: *mut c_void) -> AclError;
    fn aclmdlRIExecute(m: *mut c_void, t: i32) -> AclError;
    fn aclmdlRIExecuteAsync(m: *mut c_void, s: *mut c_void) -> AclError;
    fn aclmdlRIDestroy(m: *mut c_void) -> AclError;
}

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let (b, rest) = self
            .0
            .split_first()
            .map(|(b, r)| (*b, r))
            .unwrap_or((0, &[]));
        self.0 = rest;
        b
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn u64(&mut self) -> u64 {
        (self.u32() as u64) | ((self.u32() as u64) << 32)
    }
    fn small(&mut self) -> usize {
        match self.u8() % 8 {
            // Up to 1 MiB: bigger sizes only make memsets slow, not more interesting.
            0 => (self.u32() % (1 << 20)) as usize,
            1 => usize::MAX,
            n => n as usize * 8,
        }
    }
}

/// A handle or device address: NULL, garbage, or one the runtime gave out.
fn pick(b: &mut Bytes, v: &[usize]) -> *mut c_void {
    let i = b.u8() as usize;
    match i % 8 {
        0 => null_mut(),
        1 => (b.u64() | 1) as usize as *mut c_void,
        _ if v.is_empty() => null_mut(),
        _ => v[i % v.len()] as *mut c_void,
    }
}

/// An address inside a live allocation (never a garbage or stale pointer: the C API takes an
/// address in no allocation for a host pointer and dereferences it, as C callers expect).
fn dev(b: &mut Bytes, live: &[(usize, usize)]) -> Option<*mut c_void> {
    if live.is_empty() {
        return None;
    }
    let (base, size) = live[b.u8() as usize % live.len()];
    Some((base + b.u8() as usize % size.max(1)) as *mut c_void)
}

static INIT: Once = Once::new();

fn run(data: &[u8]) {
    INIT.call_once(|| {
        std::env::set_var("ASCEND_SIM_ON_STALL", "error");
        std::env::set_var("ASCEND_SIM_WATCHDOG_MS", "5");
        // SAFETY: NULL config path is allowed.
        unsafe { aclInit(null()) };
    });
    let mut b = Bytes(data);
    let mut addrs: Vec<usize> = Vec::new();
    let mut live: Vec<(usize, usize)> = Vec::new();
    let mut streams: Vec<usize> = Vec::new();
    let mut events: Vec<usize> = Vec::new();
    let mut models: Vec<usize> = Vec::new();
    let mut host = [0u8; 512];
    let mut steps = 0;
    // SAFETY (whole loop): every pointer passed is NULL, a value the runtime gave out, a
    // garbage handle/address value the API validates without dereferencing, or points into
    // `host` or a local of this frame with the length passed.
    unsafe {
        aclrtSetDevice(0);
        while !b.0.is_empty() && steps < 64 {
            steps += 1;
            match b.u8() % 24 {
                0 => {
                    let mut p: *mut c_void = null_mut();
                    let out = if b.u8() % 8 == 0 {
                        null_mut()
                    } else {
                        &mut p as *mut _
                    };
                    let size = b.small();
                    if aclrtMalloc(out, size, b.u32() % 9) == 0 && !p.is_null() {
                        addrs.push(p as usize);
                        live.push((p as usize, size));
                    }
                }
                1 => {
                    let p = pick(&mut b, &addrs);
                    if aclrtFree(p) == 0 {
                        live.retain(|&(a, _)| a != p as usize);
                    }
                }
                2 => {
                    let mut s = null_mut();
                    if aclrtCreateStreamWithConfig(&mut s, b.u32() % 8, b.u32() % 64) == 0 {
                        streams.push(s as usize);
                    }
                }
                3 => {
                    let s = pick(&mut b, &streams);
                    if b.u8() % 2 == 0 {
                        aclrtDestroyStream(s);
                    } else {
                        aclrtDestroyStreamForce(s);
                    }
                }
                4 => {
                    let mut e = null_mut();
                    if aclrtCreateEvent(&mut e) == 0 {
                        events.push(e as usize);
                    }
                }
                5 => {
                    let (e, s) = (pick(&mut b, &events), pick(&mut b, &streams));
                    match b.u8() % 4 {
                        0 => aclrtRecordEvent(e, s),
                        1 => aclrtStreamWaitEvent(s, e),
                        2 => aclrtResetEvent(e, s),
                        _ => aclrtDestroyEvent(e),
                    };
                }
                6 => {
                    let e = pick(&mut b, &events);
                    let mut st = 0u32;
                    let out = if b.u8() % 8 == 0 {
                        null_mut()
                    } else {
                        &mut st as *mut u32
                    };
                    aclrtQueryEventStatus(e, out);
                    aclrtSynchronizeEventWithTimeout(e, (b.u8() % 8) as i32 - 1);
                }
                7 => {
                    let (a, v, f, s) = (
                        pick(&mut b, &addrs),
                        b.u64(),
                        b.u32() % 3,
                        pick(&mut b, &streams),
                    );
                    aclrtValueWrite(a, v, f, s);
                }
                8 => {
                    let (a, v, f, s) = (
                        pick(&mut b, &addrs),
                        b.u64(),
                        b.u32() % 6,
                        pick(&mut b, &streams),
                    );
                    aclrtValueWait(a, v, f, s);
                }
                9 => {
                    let (a, n, t, s) = (
                        pick(&mut b, &addrs),
                        b.small(),
                        b.u32() % 6,
                        pick(&mut b, &streams),
                    );
                    aclrtCmoAsync(a, n, t, s);
                }
                10 => {
                    let (a, n, t, id, s) = (
                        pick(&mut b, &addrs),
                        b.small(),
                        b.u32() % 6,
                        b.u32() % 4,
                        pick(&mut b, &streams),
                    );
                    aclrtCmoAsyncWithBarrier(a, n, t, id, s);
                }
                11 => {
                    let mut info = BarrierTaskInfo {
                        barrier_num: b.u8() as usize % 9,
                        cmo_info: [[0; 2]; 6],
                    };
                    for e in info.cmo_info.iter_mut() {
                        *e = [b.u32() % 4, b.u32() % 4];
                    }
                    let p = if b.u8() % 8 == 0 {
                        null_mut()
                    } else {
                        &mut info as *mut _
                    };
                    aclrtCmoWaitBarrier(p, pick(&mut b, &streams), b.u32() % 2);
                }
                12 => {
                    let mut n = 0usize;
                    let out = if b.u8() % 8 == 0 {
                        null_mut()
                    } else {
                        &mut n as *mut usize
                    };
                    aclrtCmoGetDescSize(out);
                    aclrtCmoSetDesc(pick(&mut b, &addrs), pick(&mut b, &addrs), b.small());
                }
                13 => {
                    let (d, t, s) = (pick(&mut b, &addrs), b.u32() % 6, pick(&mut b, &streams));
                    aclrtCmoAsyncWithDesc(d, t, s, null());
                }
                14 => {
                    let (a, v, n) = (pick(&mut b, &addrs), b.u32() as i32, b.small());
                    aclrtMemset(a, n, v, n);
                }
                15 => {
                    let (a, v, n, s) = (
                        pick(&mut b, &addrs),
                        b.u32() as i32,
                        b.small(),
                        pick(&mut b, &streams),
                    );
                    aclrtMemsetAsync(a, n, v, n, s);
                }
                16 => {
                    // Host to device and back, from and into `host`.
                    let Some(d) = dev(&mut b, &live) else {
                        continue;
                    };
                    let n = b.u8() as usize;
                    let k = b.u32() % 9;
                    if b.u8() % 2 == 0 {
                        aclrtMemcpy(d, n, host.as_ptr().cast(), n, k);
                    } else {
                        aclrtMemcpy(host.as_mut_ptr().cast(), n, d, n, k);
                    }
                }
                17 => {
                    let (Some(d), Some(s)) = (dev(&mut b, &live), dev(&mut b, &live)) else {
                        continue;
                    };
                    let (n, k, st) = (b.u8() as usize, b.u32() % 9, pick(&mut b, &streams));
                    if b.u8() % 2 == 0 {
                        aclrtMemcpy(d, n, s, n, k);
                    } else {
                        aclrtMemcpyAsync(d, n, s, n, k, st);
                    }
                }
                18 => {
                    let s = pick(&mut b, &streams);
                    let mut st = 0u32;
                    aclrtStreamQuery(s, &mut st);
                    aclrtSynchronizeStreamWithTimeout(s, (b.u8() % 8) as i32 - 1);
                }
                19 => {
                    if b.u8() % 2 == 0 {
                        aclrtSynchronizeStream(pick(&mut b, &streams));
                    } else {
                        aclrtSynchronizeDevice();
                    }
                }
                20 => {
                    let mut m = null_mut();
                    if aclmdlRIBuildBegin(&mut m, b.u32() % 2) == 0 {
                        models.push(m as usize);
                    }
                }
                21 => {
                    let (m, s) = (pick(&mut b, &models), pick(&mut b, &streams));
                    match b.u8() % 4 {
                        0 => aclmdlRIBindStream(m, s, 0),
                        1 => aclmdlRIUnbindStream(m, s),
                        2 => aclmdlRIEndTask(m, s),
                        _ => aclmdlRIBuildEnd(m, null_mut()),
                    };
                }
                22 => {
                    let (m, s) = (pick(&mut b, &models), pick(&mut b, &streams));
                    match b.u8() % 3 {
                        0 => aclmdlRIExecute(m, (b.u8() % 8) as i32 - 1),
                        1 => aclmdlRIExecuteAsync(m, s),
                        _ => aclmdlRIDestroy(m),
                    };
                }
                _ => {
                    let mut d = 0i32;
                    aclrtGetDevice(&mut d);
                    let mut c = null_mut();
                    aclrtGetCurrentContext(&mut c);
                    aclrtSetCurrentContext(if b.u8() % 2 == 0 {
                        c
                    } else {
                        pick(&mut b, &streams)
                    });
                    aclrtSetDevice(0);
                }
            }
        }
        // The runtime is process-wide: drop what this input created.
        aclrtResetDeviceForce(0);
    }
    let _ = &mut host;
}

fuzz_target!(|data: &[u8]| run(data));
