//! Create/destroy and allocate/free from many host threads at once: the runtime's bookkeeping
//! and the backend's objects change together, so no live buffer or handle is ever lost, and
//! data stays intact under a mixed load. Synchronous and asynchronous copies of one page-locked
//! buffer from several threads never deadlock.

use std::sync::{mpsc, Arc, Barrier};
use std::thread;
use std::time::Duration;

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};
use ascend_sim::{OnStall, SimConfig};

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

/// Runs `f` on a thread and fails (instead of hanging) if it does not finish in time.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .expect("deadlock: the calls did not finish")
}

#[test]
fn a_sync_copy_of_pinned_memory_does_not_deadlock_with_a_queued_async_copy_of_it() {
    let cfg = SimConfig {
        on_stall: OnStall::Error,
        watchdog_grace: Duration::from_secs(2),
        ..SimConfig::default()
    };
    let rt = Arc::new(Runtime::sim_with("Ascend910B1", cfg).unwrap());
    within(30, move || {
        rt.set_device(0).unwrap();
        let mut host = Addr::NULL;
        rt.malloc_host(Some(&mut host), 4096).unwrap();
        let mut dev = Addr::NULL;
        rt.malloc(Some(&mut dev), 4096, malloc_policy::NORMAL_ONLY)
            .unwrap();
        let mut s = RawStream::NULL;
        rt.create_stream(Some(&mut s)).unwrap();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let syncer = {
            let (rt, stop) = (rt.clone(), stop.clone());
            std::thread::spawn(move || {
                rt.set_device(0).unwrap();
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    rt.memcpy_async(
                        MemDst::Addr(dev),
                        4096,
                        MemSrc::Addr(host),
                        4096,
                        memcpy_kind::HOST_TO_DEVICE,
                        s,
                    )
                    .unwrap();
                    rt.synchronize_stream(s).unwrap();
                }
            })
        };
        for _ in 0..300 {
            rt.memcpy(
                MemDst::Addr(dev),
                4096,
                MemSrc::Addr(host),
                4096,
                memcpy_kind::HOST_TO_DEVICE,
            )
            .unwrap();
            rt.memcpy(
                MemDst::Addr(host),
                4096,
                MemSrc::Addr(dev),
                4096,
                memcpy_kind::DEVICE_TO_HOST,
            )
            .unwrap();
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        syncer.join().unwrap();
    });
}

#[test]
fn a_device_set_while_another_thread_releases_it_keeps_a_working_default_stream() {
    let rt = Arc::new(Runtime::sim("Ascend910B1").expect("built-in SoC"));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let churners: Vec<_> = (0..3)
        .map(|_| {
            let (rt, stop) = (rt.clone(), stop.clone());
            thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    rt.set_device(0).unwrap();
                    rt.reset_device(0).unwrap();
                }
            })
        })
        .collect();
    for r in 0..2_000 {
        rt.set_device(0).unwrap();
        let mut p = Addr::NULL;
        rt.malloc(Some(&mut p), 64, malloc_policy::NORMAL_ONLY)
            .unwrap();
        rt.memset_async(p, 64, 1, 64, RawStream::NULL)
            .unwrap_or_else(|e| panic!("round {r}: a task on the default stream: {e}"));
        rt.synchronize_stream(RawStream::NULL)
            .unwrap_or_else(|e| panic!("round {r}: synchronize of the default stream: {e}"));
        rt.free(p).unwrap();
        rt.reset_device(0).unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for c in churners {
        c.join().unwrap();
    }
}

#[test]
fn a_stream_in_a_waiting_destroy_keeps_its_slot_until_the_destroy_ends() {
    use std::time::Duration;
    let cfg = ascend_sim::SimConfig {
        on_stall: ascend_sim::OnStall::Error,
        watchdog_grace: Duration::from_millis(300),
        ..ascend_sim::SimConfig::default()
    };
    let rt = Arc::new(Runtime::sim_with("Ascend910B1", cfg).unwrap());
    rt.set_device(0).unwrap();
    let mut flag = Addr::NULL;
    rt.malloc(Some(&mut flag), 8, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(flag, 8, 0, 8).unwrap();
    let mut blocked = RawStream::NULL;
    rt.create_stream(Some(&mut blocked)).unwrap();
    rt.value_wait(flag, 1, wait_flag::EQ, blocked).unwrap();
    // Fill the device to its stream limit.
    let mut others = Vec::new();
    loop {
        let mut s = RawStream::NULL;
        match rt.create_stream(Some(&mut s)) {
            Ok(()) => others.push(s),
            Err(e) => {
                assert_eq!(e.code(), 207008, "{e}");
                break;
            }
        }
    }
    let destroyer = {
        let rt = rt.clone();
        thread::spawn(move || rt.destroy_stream(blocked))
    };
    // While the destroy waits (and then fails), the slot stays taken.
    for _ in 0..10 {
        let mut s = RawStream::NULL;
        let r = rt.create_stream(Some(&mut s));
        assert_eq!(
            r.map_err(|e| e.code()),
            Err(207008),
            "a stream beyond the limit"
        );
        thread::sleep(Duration::from_millis(20));
    }
    assert!(
        destroyer.join().unwrap().is_err(),
        "the stalled destroy fails"
    );
    let mut s = RawStream::NULL;
    assert_eq!(
        rt.create_stream(Some(&mut s)).map_err(|e| e.code()),
        Err(207008)
    );
    // Released, the stream goes, and its slot is free again.
    rt.value_write(flag, 1, 0, RawStream::NULL).unwrap();
    rt.destroy_stream(blocked).unwrap();
    rt.create_stream(Some(&mut s)).unwrap();
}
