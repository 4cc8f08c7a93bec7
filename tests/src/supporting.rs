//! Cases of the supporting API the value and CMO calls rely on: devices, memory, streams and
//! their validation rows, invalid handles, and copies through page-locked host buffers.

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};

use crate::helpers::*;
use crate::CaseResult;

pub(crate) fn supporting_api_validation(rt: &Runtime) -> CaseResult {
    // Before any device: no context on this thread.
    let mut dev = -1;
    expect(
        "GetDevice without a device",
        rt.get_device(Some(&mut dev)),
        NO_CONTEXT,
    );
    let mut count = 0u32;
    rt.get_device_count(Some(&mut count))
        .expect("aclrtGetDeviceCount");
    assert!(count >= 1, "at least one device");
    expect("SetDevice -1", rt.set_device(-1), BAD_DEVICE);
    expect("SetDevice count", rt.set_device(count as i32), BAD_DEVICE);
    let _d = Dev::open(rt);
    expect("GetDevice", rt.get_device(Some(&mut dev)), 0);
    assert_eq!(dev, 0);
    if count > 1 {
        expect(
            "ResetDevice of a device not set",
            rt.reset_device(1),
            507_007,
        );
    }
    expect(
        "Malloc devPtr NULL",
        rt.malloc(None, 64, malloc_policy::HUGE_FIRST),
        INVALID_PARAM,
    );
    let mut a = Addr::NULL;
    expect(
        "Malloc size 0",
        rt.malloc(Some(&mut a), 0, malloc_policy::HUGE_FIRST),
        INVALID_PARAM,
    );
    let buf = malloc(rt, 64);
    let mut host = [0u8; 64];
    expect(
        "Memcpy count 0 (before any check)",
        rt.memcpy(MemDst::Addr(Addr::NULL), 0, MemSrc::Addr(Addr::NULL), 0, 99),
        0,
    );
    expect(
        "Memcpy kind 7",
        rt.memcpy(MemDst::Host(&mut host), 64, MemSrc::Addr(buf), 64, 7),
        INVALID_PARAM,
    );
    expect(
        "Memcpy count > destMax",
        rt.memcpy(
            MemDst::Host(&mut host),
            8,
            MemSrc::Addr(buf),
            16,
            memcpy_kind::DEVICE_TO_HOST,
        ),
        RT_PARAM,
    );
    expect(
        "Memset devPtr NULL",
        rt.memset(Addr::NULL, 8, 0, 8),
        INVALID_PARAM,
    );
    expect("CreateStream NULL", rt.create_stream(None), INVALID_PARAM);
    expect(
        "DestroyStream NULL",
        rt.destroy_stream(RawStream::NULL),
        INVALID_PARAM,
    );
    expect(
        "SynchronizeStreamWithTimeout -2",
        rt.synchronize_stream_with_timeout(RawStream::NULL, -2),
        RT_PARAM,
    );
    expect("CreateEvent NULL", rt.create_event(None), INVALID_PARAM);
    expect(
        "RecordEvent NULL",
        rt.record_event(RawEvent::default(), RawStream::NULL),
        INVALID_PARAM,
    );
    let mut m = RawModel::default();
    expect(
        "mdlRIBuildBegin NULL",
        rt.mdl_ri_build_begin(None, 0),
        INVALID_PARAM,
    );
    expect(
        "mdlRIBuildBegin flag 1",
        rt.mdl_ri_build_begin(Some(&mut m), 1),
        RT_PARAM,
    );
    rt.mdl_ri_build_begin(Some(&mut m), 0)
        .expect("aclmdlRIBuildBegin");
    let plain = stream(rt);
    expect(
        "mdlRIBindStream flag 5",
        rt.mdl_ri_bind_stream(m, plain, 5),
        RT_PARAM,
    );
    expect(
        "mdlRIBindStream non-persistent stream",
        rt.mdl_ri_bind_stream(m, plain, 0),
        RT_PARAM,
    );
    let p = persistent_stream(rt);
    rt.mdl_ri_bind_stream(m, p, 0).expect("bind");
    let mut m2 = RawModel::default();
    rt.mdl_ri_build_begin(Some(&mut m2), 0)
        .expect("aclmdlRIBuildBegin");
    expect(
        "mdlRIBindStream stream bound to another model",
        rt.mdl_ri_bind_stream(m2, p, 0),
        STREAM_MODEL,
    );
    expect(
        "mdlRIBuildEnd reserve not NULL",
        rt.mdl_ri_build_end(m, Some(1)),
        INVALID_PARAM,
    );
    drop_model(rt, m, p);
    rt.mdl_ri_destroy(m2).expect("aclmdlRIDestroy");
    rt.destroy_stream(plain).expect("aclrtDestroyStream");
    // A task API on a thread with no current context.
    let f = rt.chip().features;
    std::thread::scope(|sc| {
        sc.spawn(|| {
            expect(
                "ValueWrite on a thread without a context",
                rt.value_write(buf, 1, 0, RawStream::NULL),
                pick(f.task_value_wait, NO_CONTEXT, NOT_SUPPORTED),
            );
            expect(
                "MemsetAsync on a thread without a context",
                rt.memset_async(buf, 64, 0, 64, RawStream::NULL),
                NO_CONTEXT,
            );
        })
        .join()
        .expect("thread");
    });
    Ok(())
}

pub(crate) fn bad_handles(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let f = rt.chip().features;
    let buf = malloc(rt, 64);
    let s = stream(rt);
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    expect(
        "SynchronizeStream destroyed",
        rt.synchronize_stream(s),
        BAD_HANDLE,
    );
    let mut st = 0;
    expect(
        "StreamQuery destroyed",
        rt.stream_query(s, Some(&mut st)),
        BAD_HANDLE,
    );
    expect("DestroyStream twice", rt.destroy_stream(s), BAD_HANDLE);
    expect(
        "MemsetAsync on a destroyed stream",
        rt.memset_async(buf, 64, 0, 64, s),
        BAD_HANDLE,
    );
    expect(
        "SynchronizeStream garbage",
        rt.synchronize_stream(RawStream(0x1234_5678)),
        BAD_HANDLE,
    );
    expect(
        "ValueWait on a garbage stream",
        rt.value_wait(buf, 0, 0, RawStream(0x1234_5678)),
        pick(f.task_value_wait, BAD_HANDLE, NOT_SUPPORTED),
    );
    let mut e = RawEvent::default();
    rt.create_event(Some(&mut e)).expect("aclrtCreateEvent");
    rt.destroy_event(e).expect("aclrtDestroyEvent");
    expect(
        "RecordEvent destroyed",
        rt.record_event(e, RawStream::NULL),
        BAD_HANDLE,
    );
    expect(
        "SynchronizeEvent destroyed",
        rt.synchronize_event(e),
        BAD_HANDLE,
    );
    let mut m = RawModel::default();
    rt.mdl_ri_build_begin(Some(&mut m), 0)
        .expect("aclmdlRIBuildBegin");
    rt.mdl_ri_destroy(m).expect("aclmdlRIDestroy");
    expect(
        "mdlRIExecute destroyed",
        rt.mdl_ri_execute(m, -1),
        BAD_HANDLE,
    );
    let p = persistent_stream(rt);
    expect(
        "mdlRIBindStream destroyed model",
        rt.mdl_ri_bind_stream(m, p, 0),
        BAD_HANDLE,
    );
    rt.destroy_stream(p).expect("destroy");
    // A stream handle used as an event handle.
    let q = stream(rt);
    expect(
        "RecordEvent with a stream handle",
        rt.record_event(RawEvent(q.0), RawStream::NULL),
        BAD_HANDLE,
    );
    rt.destroy_stream(q).expect("destroy");
    Ok(())
}

pub(crate) fn host_buffer_copies(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let n = 512;
    let pattern: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
    let dev = malloc(rt, n);
    let (mut h1, mut h2) = (Addr::NULL, Addr::NULL);
    rt.malloc_host(Some(&mut h1), n).expect("aclrtMallocHost");
    rt.malloc_host(Some(&mut h2), n).expect("aclrtMallocHost");
    let b1 = rt.host_buffer(h1).expect("host buffer");
    let b2 = rt.host_buffer(h2).expect("host buffer");
    b1.write_at(0, &pattern);
    let s = stream(rt);
    // Pinned → device → pinned, asynchronously.
    rt.memcpy_async(
        MemDst::Addr(dev),
        n,
        MemSrc::Addr(h1),
        n,
        memcpy_kind::HOST_TO_DEVICE,
        s,
    )
    .expect("H2D async");
    rt.memcpy_async(
        MemDst::Addr(h2),
        n,
        MemSrc::Addr(dev),
        n,
        memcpy_kind::DEVICE_TO_HOST,
        s,
    )
    .expect("D2H async");
    rt.synchronize_stream(s).expect("sync");
    assert_eq!(b2.to_vec(), pattern, "pinned round trip");
    // Device → pageable, asynchronously (filled before the call returns).
    let mut page = vec![0u8; n];
    rt.memcpy_async(
        MemDst::Host(&mut page),
        n,
        MemSrc::Addr(dev),
        n,
        memcpy_kind::DEVICE_TO_HOST,
        s,
    )
    .expect("D2H async pageable");
    assert_eq!(page, pattern, "pageable destination");
    // A fill of pinned memory through a stream, then a synchronous copy back to the device.
    rt.memset_async(h2, n, 0x11, 64, s)
        .expect("aclrtMemsetAsync on pinned memory");
    rt.synchronize_stream(s).expect("sync");
    assert!(b2.to_vec()[..64].iter().all(|&x| x == 0x11), "pinned fill");
    rt.memcpy(
        MemDst::Addr(dev),
        n,
        MemSrc::Addr(h2),
        n,
        memcpy_kind::HOST_TO_DEVICE,
    )
    .expect("H2D sync from pinned");
    rt.memcpy(
        MemDst::Host(&mut page),
        n,
        MemSrc::Addr(dev),
        n,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .expect("D2H sync");
    assert_eq!(page, b2.to_vec(), "sync round trip");
    rt.destroy_stream(s).expect("destroy");
    rt.free_host(h1).expect("aclrtFreeHost");
    rt.free_host(h2).expect("aclrtFreeHost");
    Ok(())
}
