//! Fuzz target: drives the C ABI exports of `ascend-sim-capi` (linked as an rlib; the
//! `extern "C"` functions are called directly) with handles and addresses decoded from the
//! input: runtime allocations, NULLs and garbage values, and pointers only to memory this
//! target owns. No panic may cross the ABI, nothing may crash or hang: the process-wide
//! runtime is configured through the environment with `ASCEND_SIM_ON_STALL=error` and a 5 ms
//! watchdog before its first use.
//!
//! Stale device addresses (freed, past an allocation's reserved end, anywhere else in the
//! device window) are passed as the ends of copies, to memset, the value and CMO calls and
//! `aclrtFree`, with any count, `destMax` and kind, and copies between this target's own
//! buffers are passed sizes no memory has (`SIZE_MAX`, 2^40, `isize::MAX + 1`) wherever the
//! ACL contract allows (the pointers are valid for `min(count, destMax)` bytes, or that is
//! over `isize::MAX`, which the front end refuses before touching anything). Checked: the
//! runtime classifies window addresses as this target's model of the live allocations does; a
//! stale address with a nonzero count is never a success (107000 for copies and memsets once
//! the earlier rows pass); a call never writes this target's buffer outside the destination
//! range it names, nor at all when it fails.

#![no_main]

use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::Once;

use ascend_rt::raw_types::Addr;
use ascend_rt::AddressClass;
use ascend_sim::memory::{DEVICE_WINDOW_BASE, DEVICE_WINDOW_BYTES};
use libfuzzer_sys::fuzz_target;

#[path = "common/mod.rs"]
mod common;
use common::{stale_copy_code, Bytes, End, RT_CONTEXT_NULL, RT_INVALID_HANDLE, RT_PARAM_INVALID};

type AclError = i32;

/// Bytes of the target's pageable buffer.
const HOST: usize = 512;

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
    fn aclrtFreeHost(p: *mut c_void) -> AclError;
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
    fn aclrtCreateLabel(l: *mut *mut c_void) -> AclError;
    fn aclrtDestroyLabel(l: *mut c_void) -> AclError;
    fn aclrtCreateLabelList(l: *mut *mut c_void, n: usize, out: *mut *mut c_void) -> AclError;
    fn aclrtDestroyLabelList(l: *mut c_void) -> AclError;
    fn aclGetRecentErrMsg() -> *const std::ffi::c_char;
}

/// This target's decoding, on top of the shared primitives.
impl Bytes<'_> {
    fn small(&mut self) -> usize {
        match self.u8() % 8 {
            // Up to 1 MiB: bigger sizes only make memsets slow, not more interesting.
            0 => (self.u32() % (1 << 20)) as usize,
            1 => usize::MAX,
            n => n as usize * 8,
        }
    }
    /// A count or `destMax`: mostly one the buffer can hold, sometimes zero, a size no memory
    /// has, or anything.
    fn count(&mut self) -> usize {
        match self.u8() % 8 {
            0 => 0,
            1 => self.huge(),
            2 => self.u64() as usize,
            3 => (self.u32() % (HOST as u32 + 1)) as usize,
            _ => self.u8() as usize + 1,
        }
    }
    fn sizes(&mut self) -> (usize, usize) {
        match self.u8() % 4 {
            0 => (self.count(), self.count()),
            _ => {
                let n = self.count();
                (n, n)
            }
        }
    }
}

/// A live device allocation: its base, the size asked for, the length the runtime reserved.
#[derive(Clone, Copy)]
struct Alloc {
    base: usize,
    size: usize,
    reserved: usize,
}

/// This target's model of the device memory, and the checks against it.
struct Model {
    live: Vec<Alloc>,
    /// Bases of device allocations freed.
    freed: Vec<usize>,
    window: usize,
    round: usize,
    padding: usize,
}

impl Model {
    fn new() -> Model {
        let chip = ascendcl::runtime().expect("the runtime").chip();
        let devices = chip.limits.device_count.max(1) as usize;
        Model {
            live: Vec::new(),
            freed: Vec::new(),
            window: devices * DEVICE_WINDOW_BYTES as usize,
            round: chip.memory.malloc_round as usize,
            padding: chip.memory.malloc_padding as usize,
        }
    }
    /// The length `aclrtMalloc(size, policy)` reserves (no padding for the HUGE1G policies).
    fn reserved(&self, size: usize, policy: u32) -> usize {
        let pad = if matches!(policy, 6 | 7) {
            0
        } else {
            self.padding
        };
        (size + self.round + pad - 1) / self.round * self.round
    }
    fn in_window(&self, a: usize) -> bool {
        a.wrapping_sub(DEVICE_WINDOW_BASE as usize) < self.window
    }
    fn is_live(&self, a: usize) -> bool {
        self.live
            .iter()
            .any(|l| a.wrapping_sub(l.base) < l.reserved)
    }
    fn is_stale(&self, a: usize) -> bool {
        self.in_window(a) && !self.is_live(a)
    }
    fn end_is_stale(&self, e: End) -> bool {
        matches!(e, End::Addr(a) if self.is_stale(a as usize))
    }
    /// The runtime classifies a window address as the model does.
    fn check_class(&self, a: usize) {
        if !self.in_window(a) {
            return;
        }
        let want = if self.is_live(a) {
            AddressClass::Device
        } else {
            AddressClass::StaleDevice
        };
        let rt = ascendcl::runtime().expect("the runtime");
        assert_eq!(rt.classify_address(Addr(a as u64)), want, "address {a:#x}");
    }
    fn note_malloc(&mut self, base: usize, size: usize, policy: u32) {
        let reserved = self.reserved(size, policy);
        self.live.push(Alloc {
            base,
            size,
            reserved,
        });
        for a in [base, base + reserved - 1, base + reserved] {
            self.check_class(a);
        }
    }
    fn note_free(&mut self, base: usize) {
        if let Some(i) = self.live.iter().position(|l| l.base == base) {
            self.live.swap_remove(i);
            self.freed.push(base);
        }
        self.check_class(base);
    }
    /// A stale device address mostly (freed, past an allocation's reserved end, anywhere in
    /// the window), sometimes a live one (a freed base allocated again, the padding).
    fn stale(&self, b: &mut Bytes) -> usize {
        let i = b.u8() as usize;
        let off = match b.u8() % 4 {
            0 => 0,
            1 => b.u8() as usize,
            2 => b.u32() as usize,
            _ => 1,
        };
        let a = match i % 5 {
            0 if !self.freed.is_empty() => self.freed[i % self.freed.len()].wrapping_add(off),
            1 if !self.live.is_empty() => {
                let l = self.live[i % self.live.len()];
                l.base + l.reserved + off
            }
            2 if !self.live.is_empty() => {
                // Inside the padding or past it, counting from the size asked for.
                let l = self.live[i % self.live.len()];
                l.base + l.size + off % 128
            }
            3 => DEVICE_WINDOW_BASE as usize + self.window - 1 - off % self.window,
            _ => DEVICE_WINDOW_BASE as usize + b.u64() as usize % self.window,
        };
        self.check_class(a);
        a
    }
    fn end(&self, b: &mut Bytes) -> End {
        match b.u8() % 8 {
            0..=2 => End::Addr(self.stale(b) as u64),
            3 => End::Addr(dev(b, &self.live).map_or(0, |p| p as usize as u64)),
            4 => End::Addr(0),
            _ => End::Host(b.u32() as usize % (HOST + 1)),
        }
    }
}

/// Whether an end may be passed with `count` and `destMax` under the ACL contract: the C
/// front end makes a slice of `min(count, destMax)` bytes of a pageable end (none when that
/// is over `isize::MAX`), so a pageable end must be valid for that many bytes.
fn within_contract(e: End, dest_max: usize, count: usize) -> bool {
    let len = count.min(dest_max);
    match e {
        End::Host(off) => len > isize::MAX as usize || off + len <= HOST,
        End::Addr(_) => true,
    }
}

fn has_device() -> bool {
    let mut d = 0i32;
    // SAFETY: a valid out-pointer.
    unsafe { aclrtGetDevice(&mut d) == 0 }
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

/// The destination and count of a fill (`aclrtMemset`, `aclrtMemsetAsync`): both write host
/// memory at the call, as CANN's runtime and driver do, so a host destination is this
/// target's buffer with a count that fits it, never a garbage address; the others are a stale
/// device address, NULL, or one `aclrtMalloc` gave out.
fn fill_destination(
    b: &mut Bytes,
    host: &mut [u8; HOST],
    m: &Model,
    addrs: &[usize],
) -> (*mut c_void, usize) {
    match b.u8() % 4 {
        0 => {
            let o = b.u32() as usize % (HOST + 1);
            let n = b.small().min(HOST - o);
            // In bounds: `o <= HOST`.
            (host[o..].as_mut_ptr() as *mut c_void, n)
        }
        1 => (m.stale(b) as *mut c_void, b.small()),
        _ => (pick_device(b, addrs), b.small()),
    }
}

/// NULL or a value `aclrtMalloc` gave out (live or freed since): never a garbage address
/// outside the device window, which a call that fills host memory would dereference.
fn pick_device(b: &mut Bytes, v: &[usize]) -> *mut c_void {
    let i = b.u8() as usize;
    if i % 8 == 0 || v.is_empty() {
        null_mut()
    } else {
        v[i % v.len()] as *mut c_void
    }
}

/// An address inside a live allocation (never a garbage pointer outside the device window:
/// the C API takes such an address for a host pointer and dereferences it, as C callers
/// expect; stale device-window addresses come from [`Model::stale`]).
fn dev(b: &mut Bytes, live: &[Alloc]) -> Option<*mut c_void> {
    if live.is_empty() {
        return None;
    }
    let l = live[b.u8() as usize % live.len()];
    Some((l.base + b.u8() as usize % l.size.max(1)) as *mut c_void)
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
    let mut m = Model::new();
    let mut streams: Vec<usize> = Vec::new();
    let mut events: Vec<usize> = Vec::new();
    let mut models: Vec<usize> = Vec::new();
    let mut host = [0u8; HOST];
    for (i, h) in host.iter_mut().enumerate() {
        *h = (i * 7) as u8;
    }
    let mut steps = 0;
    // Every pointer passed below is NULL, a value the runtime gave out, a garbage
    // handle/address value the API validates without dereferencing, or points into `host` or
    // a local of this frame with the length passed (or a length over `isize::MAX`, which the
    // front end refuses before it makes a slice), or is in the device window (which the front
    // end never dereferences).
    // SAFETY: (whole loop) the pointer contract just stated holds for every call.
    unsafe {
        aclrtSetDevice(0);
        while !b.0.is_empty() && steps < 64 {
            steps += 1;
            let op = b.u8() % 31;
            match op {
                0 => {
                    let mut p: *mut c_void = null_mut();
                    let out = if b.u8() % 8 == 0 {
                        null_mut()
                    } else {
                        &mut p as *mut _
                    };
                    let size = b.small();
                    let policy = b.u32() % 9;
                    if aclrtMalloc(out, size, policy) == 0 && !p.is_null() {
                        addrs.push(p as usize);
                        m.note_malloc(p as usize, size, policy);
                    }
                }
                1 => {
                    let p = pick(&mut b, &addrs);
                    if aclrtFree(p) == 0 {
                        m.note_free(p as usize);
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
                    let v = b.u32() as i32;
                    let (a, n) = fill_destination(&mut b, &mut host, &m, &addrs);
                    aclrtMemset(a, n, v, n);
                }
                15 => {
                    let (v, s) = (b.u32() as i32, pick(&mut b, &streams));
                    let (a, n) = fill_destination(&mut b, &mut host, &m, &addrs);
                    aclrtMemsetAsync(a, n, v, n, s);
                }
                16 => {
                    // Host to device and back, from and into `host`.
                    let Some(d) = dev(&mut b, &m.live) else {
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
                    let (Some(d), Some(s)) = (dev(&mut b, &m.live), dev(&mut b, &m.live)) else {
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
                23 => {
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
                24 | 29 => {
                    // A copy with stale ends (or live, NULL, pageable ones), any count, destMax
                    // and kind, synchronous or not; 29: two pageable ends.
                    let (dst, src) = if op == 24 {
                        (m.end(&mut b), m.end(&mut b))
                    } else {
                        let n = HOST as u32 + 1;
                        (
                            End::Host((b.u32() % n) as usize),
                            End::Host((b.u32() % n) as usize),
                        )
                    };
                    let (dest_max, count) = b.sizes();
                    if !within_contract(dst, dest_max, count)
                        || !within_contract(src, dest_max, count)
                    {
                        continue;
                    }
                    let kind = b.u32() % 8;
                    let sync = b.u8() % 2 == 0;
                    let st = if b.u8() % 4 == 0 {
                        pick(&mut b, &streams)
                    } else {
                        null_mut()
                    };
                    let has_context = has_device();
                    let default_stream = st.is_null() && has_context;
                    let expect = stale_copy_code(
                        sync,
                        dst,
                        src,
                        dest_max,
                        count,
                        kind,
                        default_stream,
                        has_context,
                    );
                    let before = host;
                    let base = host.as_mut_ptr();
                    let ptr = |e: End| match e {
                        End::Addr(a) => a as usize as *mut c_void,
                        End::Host(o) => base.add(o).cast(),
                    };
                    let (d, s) = (ptr(dst), ptr(src));
                    let r = if sync {
                        aclrtMemcpy(d, dest_max, s, count, kind)
                    } else {
                        aclrtMemcpyAsync(d, dest_max, s, count, kind, st)
                    };
                    let what = format!(
                        "{dst:?} <- {src:?}, count {count}, destMax {dest_max}, kind {kind}, \
                         sync {sync}"
                    );
                    if count > 0 && (m.end_is_stale(dst) || m.end_is_stale(src)) {
                        match expect {
                            Some(e) => assert_eq!(r, e, "stale copy {what}"),
                            None if sync => {}
                            None => assert_ne!(r, 0, "stale copy {what}"),
                        }
                    }
                    // Nothing outside the destination range is written, nothing at all by a
                    // rejected call.
                    let written = match dst {
                        End::Host(o) if r == 0 => o..o + count.min(HOST - o),
                        _ => 0..0,
                    };
                    for (i, (x, y)) in host.iter().zip(before.iter()).enumerate() {
                        if x != y {
                            assert!(written.contains(&i), "{what}: returned {r}, wrote byte {i}");
                        }
                    }
                }
                25 => {
                    let p = if b.u8() % 4 == 0 {
                        dev(&mut b, &m.live).map_or(0, |p| p as usize)
                    } else {
                        m.stale(&mut b)
                    };
                    let (max, n) = b.sizes();
                    let v = b.u32() as i32;
                    let stale = n > 0 && m.is_stale(p);
                    if b.u8() % 2 == 0 {
                        let r = aclrtMemset(p as *mut c_void, max, v, n);
                        if stale {
                            // The synchronous fill needs a current context first.
                            let want = if has_device() {
                                RT_PARAM_INVALID
                            } else {
                                RT_CONTEXT_NULL
                            };
                            assert_eq!(r, want, "memset {p:#x} x{n}");
                        }
                    } else {
                        let st = if b.u8() % 4 == 0 {
                            pick(&mut b, &streams)
                        } else {
                            null_mut()
                        };
                        let decided = n > max || (st.is_null() && has_device());
                        let r = aclrtMemsetAsync(p as *mut c_void, max, v, n, st);
                        if stale && decided {
                            // The stream handle is checked before the count and the address.
                            let handle_first = !st.is_null() && r == RT_INVALID_HANDLE;
                            assert!(
                                r == RT_PARAM_INVALID || handle_first,
                                "memsetAsync {p:#x} x{n}: {r}"
                            );
                        } else if stale {
                            assert_ne!(r, 0, "memsetAsync {p:#x} x{n}");
                        }
                    }
                }
                26 => {
                    let p = m.stale(&mut b);
                    let (v, s) = (b.u64(), pick(&mut b, &streams));
                    let r = if b.u8() % 2 == 0 {
                        aclrtValueWrite(p as *mut c_void, v, b.u32() % 3, s)
                    } else {
                        aclrtValueWait(p as *mut c_void, v, b.u32() % 6, s)
                    };
                    assert!(!m.is_stale(p) || r != 0, "value write/wait at stale {p:#x}");
                }
                27 => {
                    let p = m.stale(&mut b);
                    let stale = m.is_stale(p);
                    let (n, t) = (b.count(), b.u32() % 6);
                    let s = if b.u8() % 2 == 0 {
                        pick(&mut b, &streams)
                    } else {
                        null_mut()
                    };
                    match b.u8() % 4 {
                        0 => {
                            // Accepted like CANN (the address is the task's); the task fails.
                            let r = aclrtCmoAsync(p as *mut c_void, n, t, s);
                            if r == 0 && stale && s.is_null() {
                                let r = aclrtSynchronizeStream(s);
                                assert_ne!(r, 0, "a CMO task at stale {p:#x} succeeded");
                            }
                        }
                        1 => {
                            aclrtCmoAsyncWithBarrier(p as *mut c_void, n, t, b.u32() % 4, s);
                        }
                        2 => {
                            let src = m.stale(&mut b) as *mut c_void;
                            let r = aclrtCmoSetDesc(p as *mut c_void, src, n);
                            assert!(!stale || r != 0, "cmo descriptor at stale {p:#x}");
                        }
                        _ => {
                            let r = aclrtCmoAsyncWithDesc(p as *mut c_void, t, s, null());
                            assert!(!stale || r != 0, "cmo with descriptor at stale {p:#x}");
                        }
                    }
                }
                30 => {
                    // A label list over a two-entry array with any count: a count past the
                    // limit is refused before the array is read; every failure is explained.
                    let mut labels = [null_mut::<c_void>(); 2];
                    for l in labels.iter_mut() {
                        aclrtCreateLabel(l);
                    }
                    let n = match b.u8() % 4 {
                        0 => 1 + b.u8() as usize % 2,
                        1 => 65_536 + b.u32() as usize,
                        2 => b.huge(),
                        _ => 0,
                    };
                    let mut list: *mut c_void = null_mut();
                    let r = aclrtCreateLabelList(labels.as_mut_ptr(), n, &mut list);
                    if n == 0 || n > 65_535 {
                        assert_eq!(r, RT_PARAM_INVALID, "label list of {n}");
                    }
                    if r != 0 {
                        assert!(
                            !aclGetRecentErrMsg().is_null(),
                            "label list {r}: no message"
                        );
                    } else {
                        aclrtDestroyLabelList(list);
                    }
                    for l in labels {
                        aclrtDestroyLabel(l);
                    }
                }
                _ => {
                    let p = m.stale(&mut b);
                    let stale = m.is_stale(p);
                    let r = aclrtFree(p as *mut c_void);
                    assert!(!stale || r != 0, "aclrtFree of stale {p:#x}");
                    let rh = aclrtFreeHost(p as *mut c_void);
                    assert!(!stale || rh != 0, "aclrtFreeHost of stale {p:#x}");
                    if r == 0 {
                        m.note_free(p);
                    }
                }
            }
        }
        // The runtime is process-wide: drop what this input created.
        aclrtResetDeviceForce(0);
    }
    let _ = &mut host;
}

fuzz_target!(|data: &[u8]| run(data));
