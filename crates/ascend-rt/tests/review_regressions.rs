//! Regression tests for defects found in review: each test names what used to go wrong.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};
use ascend_sim::{OnStall, SimConfig};

fn rt(soc: &str) -> Arc<Runtime> {
    let cfg = SimConfig {
        on_stall: OnStall::Error,
        watchdog_grace: Duration::from_secs(2),
        ..SimConfig::default()
    };
    Arc::new(Runtime::sim_with(soc, cfg).unwrap())
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
    let rt = rt("Ascend910B1");
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
fn a_wait_barrier_after_its_models_context_is_destroyed_is_an_error_not_a_panic() {
    let rt = rt("Ascend310B1");
    rt.set_device(0).unwrap();
    let mut buf = Addr::NULL;
    rt.malloc(Some(&mut buf), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    let mut s = RawStream::NULL;
    rt.create_stream_with_config(Some(&mut s), 0, stream_flag::PERSISTENT)
        .unwrap();
    let mut ctx = RawContext::default();
    rt.create_context(Some(&mut ctx), 0).unwrap();
    let mut model = RawModel::default();
    rt.mdl_ri_build_begin(Some(&mut model), 0).unwrap();
    rt.mdl_ri_bind_stream(model, s, model_stream_flag::HEAD)
        .unwrap();
    rt.destroy_context(ctx).unwrap();
    // Back in the default context, where the stream lives: its model is gone.
    let mut default_ctx = RawContext::default();
    rt.set_device(0).unwrap();
    rt.get_current_context(Some(&mut default_ctx)).unwrap();
    let mut info = RawBarrierTaskInfo {
        barrier_num: 1,
        ..Default::default()
    };
    info.cmo_info[0] = RawBarrierCmoInfo {
        cmo_type: cmo_type::INVALID,
        barrier_id: 1,
    };
    let err = rt.cmo_wait_barrier(Some(&info), s, 0).unwrap_err();
    assert_eq!(err.code(), 507000, "the stream is no longer bound: {err}");
}

#[test]
fn cmo_async_feature_rejections_are_not_stored_as_the_last_error() {
    let r = rt("Ascend310B1");
    r.set_device(0).unwrap();
    assert_eq!(
        r.cmo_async(Addr(0x1000), 64, cmo_type::PREFETCH, RawStream::NULL)
            .unwrap_err()
            .code(),
        207000
    );
    assert_eq!(r.get_last_error(0).unwrap(), 0, "§5.1 row 3: warning only");
    let a2 = rt("Ascend910B1");
    a2.set_device(0).unwrap();
    assert_eq!(
        a2.cmo_async(Addr(0x1000), 64, 7, RawStream::NULL)
            .unwrap_err()
            .code(),
        207000
    );
    assert_eq!(a2.get_last_error(0).unwrap(), 0, "§5.1 row 4: warning only");
}

#[test]
fn a_forced_reset_abandons_the_default_streams_tasks_for_good() {
    let rt = rt("Ascend910B1");
    rt.set_device(0).unwrap();
    let mut word = Addr::NULL;
    rt.malloc(Some(&mut word), 8, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(word, 8, 0, 8).unwrap();
    rt.value_wait(word, 1, wait_flag::EQ, RawStream::NULL)
        .unwrap();
    rt.reset_device_force(0).unwrap();
    rt.set_device(0).unwrap();
    // The old default stream's wait must not haunt the new session.
    rt.synchronize_device().unwrap();
}

#[test]
fn a_huge_host_allocation_is_207001_not_an_abort() {
    let rt = rt("Ascend910B1");
    rt.set_device(0).unwrap();
    let mut host = Addr::NULL;
    let err = rt.malloc_host(Some(&mut host), usize::MAX / 2).unwrap_err();
    assert_eq!(err.code(), 207001, "{err}");
}

#[test]
fn a_cmo_of_4_gib_or_more_passes_validation_and_wraps_in_the_simulator() {
    let rt = rt("Ascend910B1");
    rt.set_device(0).unwrap();
    let mut buf = Addr::NULL;
    rt.malloc(Some(&mut buf), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    // Exactly 4 GiB narrows to a length of 0 (cann-api-facts §5.1 size handling).
    rt.cmo_async(buf, 1 << 32, cmo_type::PREFETCH, RawStream::NULL)
        .unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
}
