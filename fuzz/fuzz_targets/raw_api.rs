//! Fuzz target: bytes decoded into a sequence of raw-level API calls (`ascend_rt::Runtime`)
//! with any values, including garbage handles and addresses. No panic, no crash, no hang:
//! the simulator runs with `OnStall::Error` and a 5 ms watchdog, and synchronizes use short
//! timeouts, so a blocked sequence ends with an error code.
//!
//! Stale device addresses (freed, past an allocation's reserved end, anywhere else in the
//! device window) are passed to every call that takes an address, with any count, `destMax`
//! and kind, including sizes no memory has (`SIZE_MAX`, 2^40, `isize::MAX + 1`). The target
//! keeps its own model of the live allocations and checks: the runtime classifies every
//! window address as this model does; a stale address with a nonzero count is never a success
//! (`aclrtMemcpy`/`aclrtMemset` return 107000 once the earlier rows pass); a rejected copy
//! never writes its pageable destination.

#![no_main]

use std::time::Duration;

use ascend_rt::raw_types::*;
use ascend_rt::{AddressClass, MemDst, MemSrc, Runtime};
use ascend_sim::memory::{DEVICE_WINDOW_BASE, DEVICE_WINDOW_BYTES};
use ascend_sim::{OnStall, SimConfig};
use libfuzzer_sys::fuzz_target;

#[path = "common/mod.rs"]
mod common;
use common::{stale_copy_code, Bytes, End, RT_CONTEXT_NULL, RT_INVALID_HANDLE, RT_PARAM_INVALID};

const CHIPS: [&str; 3] = ["Ascend910B1", "Ascend950PR_9599", "Ascend310B1"];

/// This target's decoding, on top of the shared primitives.
impl Bytes<'_> {
    /// A small number mostly, sometimes anything.
    fn small(&mut self) -> u64 {
        match self.u8() % 8 {
            0 => self.u64(),
            1 => u64::MAX,
            n => n as u64 * 8,
        }
    }
    /// A count or `destMax`: mostly one the 256-byte buffers can hold, sometimes zero, a size
    /// no memory has, or anything.
    fn count(&mut self) -> usize {
        match self.u8() % 8 {
            0 => 0,
            1 => self.huge(),
            2 => self.u64() as usize,
            _ => self.u8() as usize + 1,
        }
    }
}

struct Ctx {
    rt: Runtime,
    addrs: Vec<u64>,
    streams: Vec<u64>,
    events: Vec<u64>,
    models: Vec<u64>,
    /// The live device allocations: base and the length the runtime reserved for them.
    live: Vec<(u64, u64)>,
    /// Bases of device allocations freed by `aclrtFree` or a device reset.
    freed: Vec<u64>,
    /// Page-locked buffers from `aclrtMallocHost` (not tracked through resets: only ends).
    pinned: Vec<u64>,
    /// Bytes of the device window (all devices).
    window: u64,
}

impl Ctx {
    fn pick(b: &mut Bytes, v: &[u64]) -> u64 {
        let i = b.u8() as usize;
        match i % 8 {
            0 => 0,
            1 => b.u64(),
            _ if v.is_empty() => 0,
            _ => v[i % v.len()],
        }
    }
    fn addr(&self, b: &mut Bytes) -> Addr {
        let base = Self::pick(b, &self.addrs);
        Addr(base.wrapping_add(b.small()))
    }
    fn stream(&self, b: &mut Bytes) -> RawStream {
        RawStream(Self::pick(b, &self.streams))
    }
    fn event(&self, b: &mut Bytes) -> RawEvent {
        RawEvent(Self::pick(b, &self.events))
    }
    fn model(&self, b: &mut Bytes) -> RawModel {
        RawModel(Self::pick(b, &self.models))
    }

    /// The length `aclrtMalloc(size, policy)` reserves: rounded up, plus the chip's padding
    /// except for the two HUGE1G policies.
    fn reserved(&self, size: usize, policy: u32) -> u64 {
        let m = &self.rt.chip().memory;
        let huge1g = matches!(
            policy,
            malloc_policy::HUGE1G_ONLY | malloc_policy::HUGE1G_ONLY_P2P
        );
        let pad = if huge1g { 0 } else { m.malloc_padding };
        (size as u64 + m.malloc_round + pad - 1) / m.malloc_round * m.malloc_round
    }
    fn in_window(&self, a: u64) -> bool {
        a.wrapping_sub(DEVICE_WINDOW_BASE) < self.window
    }
    fn is_live(&self, a: u64) -> bool {
        self.live
            .iter()
            .any(|&(base, len)| a.wrapping_sub(base) < len)
    }
    /// A device-window address in no live allocation, as this target models them.
    fn is_stale(&self, a: u64) -> bool {
        self.in_window(a) && !self.is_live(a)
    }
    /// The runtime classifies a window address as the model does.
    fn check_class(&self, a: u64) {
        if !self.in_window(a) {
            return;
        }
        let want = if self.is_live(a) {
            AddressClass::Device
        } else {
            AddressClass::StaleDevice
        };
        assert_eq!(self.rt.classify_address(Addr(a)), want, "address {a:#x}");
    }
    /// A stale device address mostly (freed, past an allocation's reserved end, anywhere in
    /// the window), sometimes a live one (a freed base allocated again, the padding).
    fn stale(&self, b: &mut Bytes) -> u64 {
        let i = b.u8() as usize;
        let off = match b.u8() % 4 {
            0 => 0,
            1 => b.u8() as u64,
            2 => b.u32() as u64,
            _ => 1,
        };
        let a = match i % 5 {
            0 if !self.freed.is_empty() => self.freed[i % self.freed.len()].wrapping_add(off),
            1 if !self.live.is_empty() => {
                let (base, len) = self.live[i % self.live.len()];
                base + len + off
            }
            2 if !self.live.is_empty() => {
                // Inside the padding or past it, counting from the size asked for.
                let (base, len) = self.live[i % self.live.len()];
                base + len.saturating_sub(64) + off % 128
            }
            3 => DEVICE_WINDOW_BASE + self.window - 1 - off % self.window,
            _ => DEVICE_WINDOW_BASE + b.u64() % self.window,
        };
        self.check_class(a);
        a
    }
    /// An address inside a live allocation, or NULL when there is none.
    fn live_addr(&self, b: &mut Bytes) -> u64 {
        if self.live.is_empty() {
            return 0;
        }
        let (base, len) = self.live[b.u8() as usize % self.live.len()];
        base + b.u32() as u64 % len
    }
    fn end(&self, b: &mut Bytes) -> End {
        match b.u8() % 8 {
            0..=2 => End::Addr(self.stale(b)),
            3 => End::Addr(self.live_addr(b)),
            4 if !self.pinned.is_empty() => {
                let p = self.pinned[b.u8() as usize % self.pinned.len()];
                End::Addr(p + b.u8() as u64 % 16)
            }
            5 => End::Addr(0),
            _ => End::Host(b.u8() as usize % 257),
        }
    }
    fn end_is_stale(&self, e: End) -> bool {
        matches!(e, End::Addr(a) if self.is_stale(a))
    }
    fn has_device(&self) -> bool {
        let mut d = 0;
        self.rt.get_device(Some(&mut d)).is_ok()
    }
    fn note_malloc(&mut self, a: u64, size: usize, policy: u32) {
        let len = self.reserved(size, policy);
        self.addrs.push(a);
        self.live.push((a, len));
        self.check_class(a);
        self.check_class(a + len - 1);
        self.check_class(a + len);
    }
    fn note_free(&mut self, a: u64) {
        if let Some(i) = self.live.iter().position(|&(base, _)| base == a) {
            self.live.swap_remove(i);
            self.freed.push(a);
        }
        self.check_class(a);
    }
}

/// A copy between the ends `dst` and `src` (pageable ends are `host` and `src_host` from
/// their offsets on), synchronous or on `stream`.
#[allow(clippy::too_many_arguments)]
fn copy(
    rt: &Runtime,
    host: &mut [u8],
    src_host: &[u8],
    dst: End,
    dest_max: usize,
    src: End,
    count: usize,
    kind: u32,
    stream: Option<RawStream>,
) -> ascend_rt::AclResult<()> {
    let d = match dst {
        End::Addr(a) => MemDst::Addr(Addr(a)),
        End::Host(o) => MemDst::Host(&mut host[o..]),
    };
    let s = match src {
        End::Addr(a) => MemSrc::Addr(Addr(a)),
        End::Host(o) => MemSrc::Host(&src_host[o..]),
    };
    match stream {
        None => rt.memcpy(d, dest_max, s, count, kind),
        Some(st) => rt.memcpy_async(d, dest_max, s, count, kind, st),
    }
}

fn code(r: ascend_rt::AclResult<()>) -> i32 {
    r.err().map_or(0, |e| e.code())
}

fn run(data: &[u8]) {
    let mut b = Bytes(data);
    let chip = CHIPS[b.u8() as usize % CHIPS.len()];
    let config = SimConfig {
        on_stall: OnStall::Error,
        watchdog_grace: Duration::from_millis(5),
        ..SimConfig::default()
    };
    let rt = Runtime::sim_with(chip, config).expect("builtin chip");
    let _ = rt.set_device(b.u8() as i32 % 2);
    let window = u64::from(rt.chip().limits.device_count.max(1)) * DEVICE_WINDOW_BYTES;
    let mut c = Ctx {
        rt,
        addrs: Vec::new(),
        streams: Vec::new(),
        events: Vec::new(),
        models: Vec::new(),
        live: Vec::new(),
        freed: Vec::new(),
        pinned: Vec::new(),
        window,
    };
    let mut host = [0u8; 256];
    let mut src_host = [0u8; 256];
    for (i, (d, s)) in host.iter_mut().zip(src_host.iter_mut()).enumerate() {
        (*d, *s) = (i as u8, !(i as u8));
    }
    let mut steps = 0;
    while !b.0.is_empty() && steps < 64 {
        steps += 1;
        let rt = &c.rt;
        match b.u8() % 40 {
            0 => {
                let mut a = Addr::NULL;
                let size = b.small() as usize;
                let policy = b.u32() % 9;
                if rt.malloc(Some(&mut a), size, policy).is_ok() {
                    c.note_malloc(a.0, size, policy);
                }
            }
            1 => {
                let a = c.addr(&mut b);
                if rt.free(a).is_ok() {
                    c.note_free(a.0);
                }
            }
            2 => {
                let mut s = RawStream::NULL;
                let (p, f) = (b.u32(), b.u32());
                if rt.create_stream_with_config(Some(&mut s), p, f).is_ok() {
                    c.streams.push(s.0);
                }
            }
            3 => {
                let s = c.stream(&mut b);
                let _ = if b.u8() % 2 == 0 {
                    rt.destroy_stream(s)
                } else {
                    rt.destroy_stream_force(s)
                };
            }
            4 => {
                let mut e = RawEvent(0);
                if rt.create_event(Some(&mut e)).is_ok() {
                    c.events.push(e.0);
                }
            }
            5 => {
                let e = c.event(&mut b);
                let _ = rt.destroy_event(e);
            }
            6 => {
                let (e, s) = (c.event(&mut b), c.stream(&mut b));
                let _ = rt.record_event(e, s);
            }
            7 => {
                let (s, e) = (c.stream(&mut b), c.event(&mut b));
                let _ = rt.stream_wait_event(s, e);
            }
            8 => {
                let e = c.event(&mut b);
                let mut st = 0;
                let _ = rt.query_event_status(e, Some(&mut st));
                let _ = rt.synchronize_event_with_timeout(e, 5);
            }
            9 => {
                let (a, v, f, s) = (c.addr(&mut b), b.u64(), b.u32() % 3, c.stream(&mut b));
                let _ = rt.value_write(a, v, f, s);
            }
            10 => {
                let (a, v, f, s) = (c.addr(&mut b), b.u64(), b.u32() % 6, c.stream(&mut b));
                let _ = rt.value_wait(a, v, f, s);
            }
            11 => {
                let (a, n, t, s) = (
                    c.addr(&mut b),
                    b.small() as usize,
                    b.u32() % 6,
                    c.stream(&mut b),
                );
                let _ = rt.cmo_async(a, n, t, s);
            }
            12 => {
                let (a, n, t, id, s) = (
                    c.addr(&mut b),
                    b.small() as usize,
                    b.u32() % 6,
                    b.u32() % 4,
                    c.stream(&mut b),
                );
                let _ = rt.cmo_async_with_barrier(a, n, t, id, s);
            }
            13 => {
                let mut info = RawBarrierTaskInfo {
                    barrier_num: b.u8() as usize % 9,
                    ..RawBarrierTaskInfo::default()
                };
                for e in info.cmo_info.iter_mut() {
                    e.cmo_type = b.u32() % 4;
                    e.barrier_id = b.u32() % 4;
                }
                let s = c.stream(&mut b);
                let none = b.u8() % 8 == 0;
                let _ = rt.cmo_wait_barrier((!none).then_some(&info), s, b.u32() % 2);
            }
            14 => {
                let mut n = 0usize;
                let _ = rt.cmo_get_desc_size(Some(&mut n));
                let (d, s) = (c.addr(&mut b), c.addr(&mut b));
                let _ = rt.cmo_set_desc(d, s, b.small() as usize);
            }
            15 => {
                let (d, t, s) = (c.addr(&mut b), b.u32() % 6, c.stream(&mut b));
                let r = if b.u8() % 8 == 0 { Addr(1) } else { Addr::NULL };
                let _ = rt.cmo_async_with_desc(d, t, s, r);
            }
            16 => {
                let (a, v, n) = (c.addr(&mut b), b.u32() as i32, b.small() as usize);
                let _ = rt.memset(a, n, v, n);
            }
            17 => {
                let (a, v, n, s) = (
                    c.addr(&mut b),
                    b.u32() as i32,
                    b.small() as usize,
                    c.stream(&mut b),
                );
                let _ = rt.memset_async(a, n, v, n, s);
            }
            18 => {
                let (a, n, k) = (c.addr(&mut b), b.u8() as usize, b.u32() % 9);
                let _ = rt.memcpy(MemDst::Addr(a), n, MemSrc::Host(&host[..n.min(256)]), n, k);
            }
            19 => {
                let (a, n, k) = (c.addr(&mut b), b.u8() as usize, b.u32() % 9);
                let _ = rt.memcpy(
                    MemDst::Host(&mut host[..n.min(256)]),
                    n,
                    MemSrc::Addr(a),
                    n,
                    k,
                );
            }
            20 => {
                let (d, s, n, k) = (
                    c.addr(&mut b),
                    c.addr(&mut b),
                    b.small() as usize,
                    b.u32() % 9,
                );
                let st = c.stream(&mut b);
                if b.u8() % 2 == 0 {
                    let _ = rt.memcpy(MemDst::Addr(d), n, MemSrc::Addr(s), n, k);
                } else {
                    let _ = rt.memcpy_async(MemDst::Addr(d), n, MemSrc::Addr(s), n, k, st);
                }
            }
            21 => {
                let s = c.stream(&mut b);
                let _ = rt.synchronize_stream_with_timeout(s, (b.u8() % 8) as i32 - 1);
            }
            22 => {
                let s = c.stream(&mut b);
                let _ = rt.synchronize_stream(s);
            }
            23 => {
                let _ = rt.synchronize_device();
            }
            24 => {
                let mut m = RawModel(0);
                if rt.mdl_ri_build_begin(Some(&mut m), b.u32() % 2).is_ok() {
                    c.models.push(m.0);
                }
            }
            25 => {
                let (m, s) = (c.model(&mut b), c.stream(&mut b));
                let f = if b.u8() % 2 == 0 { 0 } else { b.u32() };
                let _ = rt.mdl_ri_bind_stream(m, s, f);
            }
            26 => {
                let (m, s) = (c.model(&mut b), c.stream(&mut b));
                let _ = rt.mdl_ri_unbind_stream(m, s);
                let _ = rt.mdl_ri_end_task(m, s);
            }
            27 => {
                let m = c.model(&mut b);
                let _ = rt.mdl_ri_build_end(m, None);
            }
            28 => {
                let m = c.model(&mut b);
                let _ = rt.mdl_ri_execute(m, (b.u8() % 8) as i32 - 1);
            }
            29 => {
                let (m, s) = (c.model(&mut b), c.stream(&mut b));
                let _ = rt.mdl_ri_execute_async(m, s);
            }
            30 => {
                let m = c.model(&mut b);
                let _ = rt.mdl_ri_destroy(m);
            }
            31 => {
                let s = c.stream(&mut b);
                let mut st = 0;
                let _ = rt.stream_query(s, Some(&mut st));
                let dev = b.u8() as u64 % 3;
                if rt.reset_device_force(dev as i32).is_ok() {
                    // The device's memory went with it.
                    let on_dev = |a: u64| (a - DEVICE_WINDOW_BASE) / DEVICE_WINDOW_BYTES == dev;
                    let gone: Vec<u64> = c
                        .live
                        .iter()
                        .map(|&(a, _)| a)
                        .filter(|&a| on_dev(a))
                        .collect();
                    for a in gone {
                        c.note_free(a);
                    }
                }
                let _ = c.rt.set_device(0);
            }
            32 => {
                // A copy with stale ends (or live, page-locked, NULL, pageable ones), any
                // count, destMax and kind, synchronous or not.
                let (dst, src) = (c.end(&mut b), c.end(&mut b));
                let (dest_max, count) = match b.u8() % 4 {
                    0 => (b.count(), b.count()),
                    _ => {
                        let n = b.count();
                        (n, n)
                    }
                };
                let kind = b.u32() % 8;
                let sync = b.u8() % 2 == 0;
                let stream = if b.u8() % 4 == 0 {
                    c.stream(&mut b)
                } else {
                    RawStream::NULL
                };
                let stream_ok = stream.0 == 0 && c.has_device();
                let expect = stale_copy_code(
                    sync,
                    dst,
                    src,
                    dest_max,
                    count,
                    kind,
                    stream_ok,
                    c.has_device(),
                );
                let before = host;
                let st = (!sync).then_some(stream);
                let r = copy(
                    rt, &mut host, &src_host, dst, dest_max, src, count, kind, st,
                );
                let r = code(r);
                if count > 0 && (c.end_is_stale(dst) || c.end_is_stale(src)) {
                    let what = format!("{dst:?} <- {src:?}, count {count}, destMax {dest_max}, kind {kind}, sync {sync}");
                    match expect {
                        Some(e) => assert_eq!(r, e, "stale copy {what}"),
                        None if sync => {}
                        None => assert_ne!(r, 0, "stale copy {what}"),
                    }
                }
                if r != 0 {
                    assert_eq!(
                        host, before,
                        "a rejected copy wrote its pageable destination"
                    );
                }
            }
            33 => {
                let a = if b.u8() % 4 == 0 {
                    c.live_addr(&mut b)
                } else {
                    c.stale(&mut b)
                };
                let (dest_max, count) = match b.u8() % 4 {
                    0 => (b.count(), b.count()),
                    _ => {
                        let n = b.count();
                        (n, n)
                    }
                };
                let v = b.u32() as i32;
                let stale = count > 0 && c.is_stale(a);
                if b.u8() % 2 == 0 {
                    let r = code(rt.memset(Addr(a), dest_max, v, count));
                    if stale {
                        // The synchronous fill needs a current context before anything else
                        // of the runtime's.
                        let want = if c.has_device() {
                            RT_PARAM_INVALID
                        } else {
                            RT_CONTEXT_NULL
                        };
                        assert_eq!(r, want, "memset {a:#x} x{count}");
                    }
                } else {
                    let s = if b.u8() % 4 == 0 {
                        c.stream(&mut b)
                    } else {
                        RawStream::NULL
                    };
                    let decided = count > dest_max || (s.0 == 0 && c.has_device());
                    let r = code(rt.memset_async(Addr(a), dest_max, v, count, s));
                    if stale && decided {
                        // The stream handle is checked before the count and the address.
                        let handle_first = s.0 != 0 && r == RT_INVALID_HANDLE;
                        assert!(
                            r == RT_PARAM_INVALID || handle_first,
                            "memsetAsync {a:#x} x{count}: {r}"
                        );
                    } else if stale {
                        assert_ne!(r, 0, "memsetAsync {a:#x} x{count}");
                    }
                }
            }
            34 => {
                let (a, v, s) = (c.stale(&mut b), b.u64(), c.stream(&mut b));
                let stale = c.is_stale(a);
                let r = if b.u8() % 2 == 0 {
                    code(rt.value_write(Addr(a), v, b.u32() % 3, s))
                } else {
                    code(rt.value_wait(Addr(a), v, b.u32() % 6, s))
                };
                assert!(!stale || r != 0, "value write/wait at stale {a:#x}");
            }
            35 => {
                let (a, n) = (c.stale(&mut b), b.count());
                let stale = c.is_stale(a);
                let t = b.u32() % 6;
                let s = if b.u8() % 2 == 0 {
                    c.stream(&mut b)
                } else {
                    RawStream::NULL
                };
                match b.u8() % 4 {
                    0 => {
                        // Accepted like CANN (the address is the task's); the task fails.
                        let r = code(rt.cmo_async(Addr(a), n, t, s));
                        if r == 0 && stale && s.0 == 0 {
                            let r = code(rt.synchronize_stream(s));
                            assert_ne!(r, 0, "a CMO task at stale {a:#x} succeeded");
                        }
                    }
                    1 => {
                        let _ = rt.cmo_async_with_barrier(Addr(a), n, t, b.u32() % 4, s);
                    }
                    2 => {
                        let src = Addr(c.stale(&mut b));
                        let r = code(rt.cmo_set_desc(Addr(a), src, n));
                        assert!(!stale || r != 0, "cmo descriptor at stale {a:#x}");
                    }
                    _ => {
                        let r = code(rt.cmo_async_with_desc(Addr(a), t, s, Addr::NULL));
                        assert!(!stale || r != 0, "cmo with descriptor at stale {a:#x}");
                    }
                }
            }
            36 => {
                let a = c.stale(&mut b);
                let stale = c.is_stale(a);
                let r = code(rt.free(Addr(a)));
                assert!(!stale || r != 0, "aclrtFree of stale {a:#x}");
                let rh = code(rt.free_host(Addr(a)));
                assert!(!stale || rh != 0, "aclrtFreeHost of stale {a:#x}");
                if r == 0 {
                    c.note_free(a);
                }
            }
            37 => {
                // Two pageable ends, any sizes: nothing is allocated or touched before the
                // sizes are checked.
                let (doff, soff) = (b.u8() as usize % 257, b.u8() as usize % 257);
                let (dest_max, count) = match b.u8() % 4 {
                    0 => {
                        let n = b.count();
                        (n, n)
                    }
                    _ => (b.count(), b.count()),
                };
                let kind = b.u32() % 8;
                let s = if b.u8() % 2 == 0 {
                    c.stream(&mut b)
                } else {
                    RawStream::NULL
                };
                let before = host;
                let (r, room, noop) = match b.u8() % 4 {
                    0 => {
                        let (d, s) = (End::Host(doff), End::Host(soff));
                        let r = copy(rt, &mut host, &src_host, d, dest_max, s, count, kind, None);
                        (r, (256 - doff).min(256 - soff), false)
                    }
                    1 => {
                        let (d, sr) = (End::Host(doff), End::Host(soff));
                        let st = Some(s);
                        let r = copy(rt, &mut host, &src_host, d, dest_max, sr, count, kind, st);
                        (r, (256 - doff).min(256 - soff), false)
                    }
                    2 => {
                        let r = rt.memcpy_within(&mut host, doff, dest_max, soff, count, kind);
                        (r, 256usize.saturating_sub(doff.max(soff)), doff == soff)
                    }
                    _ => {
                        let r =
                            rt.memcpy_async_within(&mut host, doff, dest_max, soff, count, kind, s);
                        (r, 256usize.saturating_sub(doff.max(soff)), false)
                    }
                };
                let r = code(r);
                if r == 0 && count > 0 && !noop {
                    assert!(
                        count <= dest_max && count <= room,
                        "copy of {count} > {room}"
                    );
                }
                if r != 0 {
                    assert_eq!(
                        host, before,
                        "a rejected copy wrote its pageable destination"
                    );
                }
            }
            38 => {
                let mut a = Addr::NULL;
                let size = b.small() as usize % (1 << 16);
                if rt.malloc_host(Some(&mut a), size).is_ok() {
                    c.pinned.push(a.0);
                }
            }
            _ => {
                if !c.pinned.is_empty() {
                    let i = b.u8() as usize % c.pinned.len();
                    if rt.free_host(Addr(c.pinned[i])).is_ok() {
                        c.pinned.swap_remove(i);
                    }
                }
            }
        }
    }
    let _ = c.rt.reset_device_force(0);
}

fuzz_target!(|data: &[u8]| run(data));
