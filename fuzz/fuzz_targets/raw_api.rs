//! Fuzz target: bytes decoded into a sequence of raw-level API calls (`ascend_rt::Runtime`)
//! with any values, including garbage handles and addresses. No panic, no crash, no hang:
//! the simulator runs with `OnStall::Error` and a 5 ms watchdog, and synchronizes use short
//! timeouts, so a blocked sequence ends with an error code.

#![no_main]

use std::time::Duration;

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};
use ascend_sim::{OnStall, SimConfig};
use libfuzzer_sys::fuzz_target;

const CHIPS: [&str; 3] = ["Ascend910B1", "Ascend950PR_9599", "Ascend310B1"];

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
    /// A small number mostly, sometimes anything.
    fn small(&mut self) -> u64 {
        match self.u8() % 8 {
            0 => self.u64(),
            1 => u64::MAX,
            n => n as u64 * 8,
        }
    }
}

struct Ctx {
    rt: Runtime,
    addrs: Vec<u64>,
    streams: Vec<u64>,
    events: Vec<u64>,
    models: Vec<u64>,
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
    let mut c = Ctx {
        rt,
        addrs: Vec::new(),
        streams: Vec::new(),
        events: Vec::new(),
        models: Vec::new(),
    };
    let mut host = [0u8; 256];
    let mut steps = 0;
    while !b.0.is_empty() && steps < 64 {
        steps += 1;
        let rt = &c.rt;
        match b.u8() % 32 {
            0 => {
                let mut a = Addr::NULL;
                let size = b.small() as usize;
                if rt.malloc(Some(&mut a), size, b.u32() % 9).is_ok() {
                    c.addrs.push(a.0);
                }
            }
            1 => {
                let a = c.addr(&mut b);
                let _ = rt.free(a);
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
            _ => {
                let s = c.stream(&mut b);
                let mut st = 0;
                let _ = rt.stream_query(s, Some(&mut st));
                let _ = rt.reset_device_force(b.u8() as i32 % 3);
                let _ = rt.set_device(0);
            }
        }
    }
    let _ = c.rt.reset_device_force(0);
}

fuzz_target!(|data: &[u8]| run(data));
