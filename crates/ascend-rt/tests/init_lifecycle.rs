//! `aclInit` / `aclFinalize` and what they gate, as the vendor's runtime does it
//! (docs/runtime-lifecycle.md): no runtime call checks initialisation, `aclFinalize` releases
//! no device, context, stream or memory, and the only gate is the calling thread's context.

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};

fn runtime() -> Runtime {
    Runtime::sim("Ascend910B1").expect("built-in SoC")
}

#[test]
fn runtime_calls_before_acl_init_work_as_cann_does_not_gate_them() {
    let rt = runtime();
    rt.set_device(0).unwrap();
    let mut p = Addr::NULL;
    rt.malloc(Some(&mut p), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    rt.value_write(p, 3, 0, s).unwrap();
    rt.synchronize_stream(s).unwrap();
    rt.destroy_stream(s).unwrap();
    rt.free(p).unwrap();
    rt.reset_device(0).unwrap();
}

#[test]
fn acl_finalize_without_acl_init_succeeds_once_then_is_a_repeat() {
    let rt = runtime();
    rt.finalize().unwrap();
    assert_eq!(rt.finalize().unwrap_err().code(), 100037);
    // A later aclInit starts over.
    rt.init(None).unwrap();
    rt.finalize().unwrap();
}

#[test]
fn acl_finalize_releases_nothing_the_program_created() {
    let rt = runtime();
    rt.init(None).unwrap();
    rt.set_device(0).unwrap();
    let mut p = Addr::NULL;
    rt.malloc(Some(&mut p), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memcpy(MemDst::Addr(p), 8, MemSrc::Host(&[7; 8]), 8, 1)
        .unwrap();
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    rt.finalize().unwrap();
    // The thread keeps its context; memory keeps its contents; handles stay live.
    let mut dev = -1;
    rt.get_device(Some(&mut dev)).unwrap();
    assert_eq!(dev, 0);
    let mut back = [0u8; 8];
    rt.memcpy(MemDst::Host(&mut back), 8, MemSrc::Addr(p), 8, 2)
        .unwrap();
    assert_eq!(back, [7; 8]);
    let mut q = Addr::NULL;
    rt.malloc(Some(&mut q), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    let mut s2 = RawStream::NULL;
    rt.create_stream(Some(&mut s2)).unwrap();
    rt.value_write(q, 1, 0, s).unwrap();
    rt.synchronize_stream(s).unwrap();
    for stream in [s, s2] {
        rt.destroy_stream(stream).unwrap();
    }
    rt.free(p).unwrap();
    rt.free(q).unwrap();
    rt.reset_device(0).unwrap();
}

#[test]
fn the_gate_is_the_threads_context_not_initialisation() {
    let rt = std::sync::Arc::new(runtime());
    rt.init(None).unwrap();
    rt.set_device(0).unwrap();
    let mut p = Addr::NULL;
    rt.malloc(Some(&mut p), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    let other = {
        let rt = rt.clone();
        std::thread::spawn(move || {
            // A thread with no context: allocation and streams need one (107002) ...
            let mut q = Addr::NULL;
            let malloc = rt.malloc(Some(&mut q), 64, malloc_policy::NORMAL_ONLY);
            let mut s = RawStream::NULL;
            let stream = rt.create_stream(Some(&mut s));
            // ... freeing does not: CANN's free goes straight to the driver.
            let free = rt.free(p);
            (
                malloc.map_err(|e| e.code()),
                stream.map_err(|e| e.code()),
                free,
            )
        })
    };
    let (malloc, stream, free) = other.join().unwrap();
    assert_eq!(malloc, Err(107002));
    assert_eq!(stream, Err(107002));
    free.unwrap();
    rt.reset_device(0).unwrap();
    rt.finalize().unwrap();
}
