//! The vendor's unit tests as conformance vectors (docs/validation/vendor-vectors.md), run
//! through the public raw API on the chips they name.
//!
//! Chip mapping: MINI → Ascend310P3 / Ascend910A (chips without the features), MINI_V3 →
//! Ascend310B1, 910B / 910_B_93 → Ascend910B1, DAVID → Ascend950PR_9599, DC → Ascend310P3,
//! CLOUD → Ascend910A. The ACL-layer tests (vendor-vectors.md, ACL layer) name no chip; they
//! run on the default chip Ascend910B1 unless the API only exists on 310B.
//!
//! The vendor's ACL tests run against a stubbed runtime. Where a vector relied on the stub (an
//! RT mock forcing a code, a fake pointer such as 0x1, a fake stream 0x1), the test checks the
//! real behaviour the docs give for the same inputs instead, and says so in a comment
//! ("substitution"). The RT-level vectors (vendor-vectors.md, Runtime layer) call `rt*`
//! functions below the ACL layer; where the ACL layer answers first, the test checks the ACL
//! answer and says so.
//!
//! Not applicable (cannot be produced through the public API; listed here with why):
//! - ACL layer: `aclrtMalloc_DeviceTest` / `memory_free_device` / `memory_malloc_host` mock
//!   `rtMalloc`/`rtFree`/`rtMallocHost` → 107000: needs a failing driver allocation.
//! - ACL layer: `aclrtCreateStreamTest` / `aclrtSynchronizeStreamTest` mocks forcing 107000 /
//!   507005 (END_OF_SEQUENCE): no public input makes the runtime return these.
//! - Runtime layer: `api_rtCmoAddrTaskLaunch_destMax` (DAVID, destMax 65 / 0): destMax is
//!   internal (the descriptor size), the ACL call does not take it.
//! - Runtime layer: `test_cmo_task_launch_on_david` second half, `rtsValueWait_failed`,
//!   `MemWriteValue_{CheckTaskCanSendFail, AllocTaskInfoFail, TaskInitFail, SendTaskFail,
//!   PostProcFail}`, `cmo_addr_test_submit_01/02`, `allocTaskInfo_*`,
//!   `davidSendTask_addTaskToPublicQueue_fail`, `davidSendTask_halSqTaskSend`: internal
//!   driver / task-allocation failures forced by mocks (send failed, alloc failed, queue full
//!   with a stored device failure, device down).
//! - Runtime layer: `capture_mode_api_normal`, `rt_utest_capture_mode_update`: stream capture
//!   is not part of this API.
//! - Runtime layer: `rt_utest_tiny_stub` (`api_c_stub`, `easy_model_stub`): a "tiny" runtime
//!   build in which every CMO entry is stubbed to 207000; not a chip.
//! - ACL layer, compatibility checks on C struct sizes (`aclrtBarrierCmoInfo` 8 bytes, the RT
//!   struct 19 bytes smaller, …): C layout, not observable through the Rust API. The value
//!   checks among them are in `compatibility_constants`.

#![allow(non_snake_case)]

mod common;

use ascend_rt::raw_types::{
    cmo_type, event_recorded_status, malloc_policy, memcpy_kind, stream_flag, stream_status,
    wait_flag, Addr, RawBarrierCmoInfo, RawBarrierTaskInfo, RawEvent, RawModel, RawStream,
    CMO_MAX_BARRIER_NUM,
};
use ascend_rt::{MemDst, MemSrc, MsgCode};
use common::*;

/// The vendor's fake stream 0x1: not a live handle here.
const FAKE_STREAM: RawStream = RawStream(0x1);

fn barrier_info(n: usize, entries: &[(u32, u32)]) -> RawBarrierTaskInfo {
    let mut info = RawBarrierTaskInfo {
        barrier_num: n,
        ..Default::default()
    };
    for (i, &(t, id)) in entries.iter().enumerate() {
        info.cmo_info[i] = RawBarrierCmoInfo {
            cmo_type: t,
            barrier_id: id,
        };
    }
    info
}

// ---------------------------------------------------------------------------------------------
// docs/validation/vendor-vectors.md, ACL layer
// ---------------------------------------------------------------------------------------------

#[test]
fn cmo_success() {
    // CmoAsync(0x1, 1024, PREFETCH, NULL) → 0: the runtime does not check that src is device
    // memory (docs/validation/cmo.md, aclrtCmoAsync), so the vendor's fake pointer is accepted
    // by the real runtime too.
    let r = rt0(A2);
    ok(r.cmo_async(Addr(0x1), 1024, cmo_type::PREFETCH, RawStream::NULL));
}

#[test]
fn cmo_failed_with_null_address() {
    let r = rt0(A2);
    assert_err(
        r.cmo_async(Addr::NULL, 1024, cmo_type::PREFETCH, RawStream::NULL),
        100000,
        Some(MsgCode::EH0008),
    );
}

#[test]
fn cmo_failed_with_zero_size() {
    let r = rt0(A2);
    assert_err(
        r.cmo_async(Addr(0x1), 0, cmo_type::PREFETCH, RawStream::NULL),
        100000,
        Some(MsgCode::EH0007),
    );
}

#[test]
fn cmo_failed_with_rts_error() {
    // Substitution: the mock forced rtCmoAsync to fail and the ACL layer passed the code
    // through. A real RT failure is passed through the same way: on a chip without
    // RT_FEATURE_TASK_CMO (310P, "MINI") rtCmoAsync returns 207000
    // (docs/validation/cmo.md, aclrtCmoAsync row 3).
    for soc in [DC, CLOUD, MINI_V3] {
        let r = rt0(soc);
        assert_err(
            r.cmo_async(Addr(0x1), 1024, cmo_type::PREFETCH, RawStream::NULL),
            207000,
            None,
        );
    }
}

#[test]
fn aclrtCmoAsyncWithBarrier_failed_with_invalid_args() {
    // (NULL, 1, PREFETCH, 1, 0x1) → 100000: the ACL NULL check comes before everything,
    // on every chip.
    for soc in [MINI_V3, A2] {
        let r = rt0(soc);
        assert_err(
            r.cmo_async_with_barrier(Addr::NULL, 1, cmo_type::PREFETCH, 1, FAKE_STREAM),
            100000,
            Some(MsgCode::EH0008),
        );
    }
    // Substitution for "mock rtsCmoAsyncWithBarrier → 107000; (0xff, 1, PREFETCH, 1, 0x1)":
    // the real runtime rejects PREFETCH with barrier id 1 on 310B with 107000 (EE1011,
    // docs/validation/cmo.md, aclrtCmoAsyncWithBarrier row 6), before it looks at the (fake)
    // stream.
    let r = rt0(MINI_V3);
    assert_err(
        r.cmo_async_with_barrier(Addr(0xff), 1, cmo_type::PREFETCH, 1, FAKE_STREAM),
        107000,
        Some(MsgCode::EE1011),
    );
}

#[test]
fn aclrtCmoAsyncWithBarrier_success() {
    // Substitution: the stub returned 0; the real runtime rejects PREFETCH with id 1:
    // 107000 (EE1011) on 310B, 207000 (feature gate,
    // docs/validation/cmo.md, aclrtCmoAsyncWithBarrier row 2) elsewhere.
    let r = rt0(MINI_V3);
    assert_err(
        r.cmo_async_with_barrier(Addr(0xff), 1, cmo_type::PREFETCH, 1, FAKE_STREAM),
        107000,
        Some(MsgCode::EE1011),
    );
    for soc in [A2, A3, DAVID, DC, CLOUD] {
        let r = rt0(soc);
        assert_err(
            r.cmo_async_with_barrier(Addr(0xff), 1, cmo_type::PREFETCH, 1, FAKE_STREAM),
            207000,
            None,
        );
    }
}

#[test]
fn aclrtCmoWaitBarrier_failed_with_invalid_args() {
    for soc in [MINI_V3, A2] {
        let r = rt0(soc);
        assert_err(
            r.cmo_wait_barrier(None, FAKE_STREAM, 0),
            100000,
            Some(MsgCode::EH0008),
        );
        for n in [0, 7] {
            assert_err(
                r.cmo_wait_barrier(Some(&barrier_info(n, &[])), FAKE_STREAM, 0),
                100000,
                Some(MsgCode::EH0007),
            );
        }
        // Substitution for "barrierNum 1, mock rtsLaunchBarrierTask → 107000": the
        // (zero-initialised) entry is {PREFETCH, 0}, which the real runtime rejects with
        // 107000 (EE1003, docs/validation/cmo.md, aclrtCmoWaitBarrier row 5), before the feature
        // gate, so on every chip.
        assert_err(
            r.cmo_wait_barrier(Some(&barrier_info(1, &[])), FAKE_STREAM, 0),
            107000,
            Some(MsgCode::EE1003),
        );
    }
}

#[test]
fn aclrtCmoWaitBarrier_success() {
    // Substitution: barrierNum 1 with an uninitialised entry and stream 0x1 succeeded on the
    // stub. With a zeroed entry the real runtime says 107000 (entry type PREFETCH ≠ INVALID,
    // before the gate). With a well-formed entry it reaches the gate (207000 + EE1005 off
    // 310B) and on 310B the fake stream handle (107017).
    for soc in [MINI_V3, A2, DAVID, DC] {
        let r = rt0(soc);
        assert_err(
            r.cmo_wait_barrier(Some(&barrier_info(1, &[])), FAKE_STREAM, 0),
            107000,
            Some(MsgCode::EE1003),
        );
    }
    let good = barrier_info(1, &[(cmo_type::INVALID, 1)]);
    let r = rt0(MINI_V3);
    assert_err(
        r.cmo_wait_barrier(Some(&good), FAKE_STREAM, 0),
        107017,
        Some(MsgCode::EE1017),
    );
    let r = rt0(A2);
    assert_err(
        r.cmo_wait_barrier(Some(&good), FAKE_STREAM, 0),
        207000,
        Some(MsgCode::EE1005),
    );
}

#[test]
fn aclrtCmoGetDescSizeTest() {
    // Substitution: the stub reported size 0; the real size is the chip's descriptor size.
    for (soc, size) in [(A2, 32), (A3, 32), (DAVID, 64), (DAVID_DT, 64)] {
        let r = rt(soc);
        let mut s = 0usize;
        ok(r.cmo_get_desc_size(Some(&mut s)));
        assert_eq!(s, size, "{soc}");
    }
    // Substitution for "mock rtsGetCmoDescSize → 107000": a NULL size is the real 107000
    // (EE1004, docs/validation/cmo.md, aclrtCmoGetDescSize row 2).
    let r = rt(A2);
    assert_err(r.cmo_get_desc_size(None), 107000, Some(MsgCode::EE1004));
}

#[test]
fn aclrtCmoSetDescTest() {
    // (0x1, src NULL, 64): the ACL layer does not check src, the stub said 0; the real
    // runtime says 107000 (EE1004, docs/validation/cmo.md, aclrtCmoSetDesc row 3). This also
    // covers the "mock → 107000" case.
    let r = rt0(A2);
    assert_err(
        r.cmo_set_desc(Addr(0x1), Addr::NULL, 64),
        107000,
        Some(MsgCode::EE1004),
    );
    // The successful form with real buffers.
    let desc = malloc(&r, 64);
    let src = malloc(&r, 4096);
    ok(r.cmo_set_desc(desc, src, 64));
}

#[test]
fn aclrtCmoAsyncWithDescTest() {
    // (0x1, PREFETCH, NULL, NULL) succeeded on the stub. Substitution: the real runtime
    // resolves the NULL stream to the default stream, which is never model-bound: 507000
    // (docs/validation/cmo.md, aclrtCmoAsyncWithDesc row 8).
    let r = rt0(A2);
    assert_err(
        r.cmo_async_with_desc(Addr(0x1), cmo_type::PREFETCH, RawStream::NULL, Addr::NULL),
        507000,
        Some(MsgCode::EE9999),
    );
    // Substitution for "mock rtsLaunchCmoAddrTask → 107000": a real 107000 comes from a
    // cmoType outside 0..3 (EE1003, row 5).
    assert_err(
        r.cmo_async_with_desc(Addr(0x1), 4, RawStream::NULL, Addr::NULL),
        107000,
        Some(MsgCode::EE1003),
    );
}

#[test]
fn aclrtValueWrite_failed_with_invalid_args() {
    let r = rt0(A2);
    assert_err(
        r.value_write(Addr::NULL, 100, 0, RawStream::NULL),
        100000,
        Some(MsgCode::EH0008),
    );
    // Substitution for "mock rtsValueWrite → 107000; (0x1000, 100, 0, NULL)": 0x1000 is not
    // device memory, which the real runtime rejects with 107000 (EE1003,
    // docs/validation/value-write-wait.md, aclrtValueWrite row 7).
    assert_err(
        r.value_write(Addr(0x1000), 100, 0, RawStream::NULL),
        107000,
        Some(MsgCode::EE1003),
    );
}

#[test]
fn aclrtValueWrite_success() {
    // Substitution: (0x1000, 100, 0, NULL) succeeded on the stub; 0x1000 is not device
    // memory, so the real runtime says 107000. The success case uses real device memory.
    let r = rt0(A2);
    assert_err(
        r.value_write(Addr(0x1000), 100, 0, RawStream::NULL),
        107000,
        Some(MsgCode::EE1003),
    );
    let p = malloc(&r, 8);
    ok(r.value_write(p, 100, 0, RawStream::NULL));
    ok(r.synchronize_stream(RawStream::NULL));
}

#[test]
fn aclrtValueWait_failed_with_invalid_args() {
    let r = rt0(A2);
    assert_err(
        r.value_wait(Addr::NULL, 100, wait_flag::GEQ, RawStream::NULL),
        100000,
        Some(MsgCode::EH0008),
    );
    // Substitution as for ValueWrite: 0x1000 is not device memory → 107000
    // (docs/validation/value-write-wait.md, aclrtValueWait row 7).
    assert_err(
        r.value_wait(Addr(0x1000), 100, wait_flag::GEQ, RawStream::NULL),
        107000,
        Some(MsgCode::EE1003),
    );
}

#[test]
fn aclrtValueWait_success() {
    // Substitution: 0x1000 → 107000 on the real runtime; device memory → 0.
    let r = rt0(A2);
    assert_err(
        r.value_wait(Addr(0x1000), 100, wait_flag::GEQ, RawStream::NULL),
        107000,
        Some(MsgCode::EE1003),
    );
    let p = malloc(&r, 8);
    ok(r.value_write(p, 100, 0, RawStream::NULL));
    ok(r.value_wait(p, 100, wait_flag::GEQ, RawStream::NULL));
    ok(r.synchronize_stream(RawStream::NULL));
}

#[test]
fn aclrtMemFlushTest() {
    let r = rt0(A2);
    assert_err(r.mem_flush(Addr::NULL, 1), 100000, Some(MsgCode::EH0008));
    assert_err(r.mem_flush(Addr(0x11), 0), 100000, Some(MsgCode::EH0007));
    // Substitution for "mock rtFlushCache → 107000 with (0x11, 1)": on host-driven SoCs the
    // real runtime returns success for a non-zero address with a context
    // (docs/validation/memory.md, aclrtMemFlush and aclrtMemInvalidate), and 107002 without one.
    ok(r.mem_flush(Addr(0x11), 1));
    on_fresh_thread(|| assert_err(r.mem_flush(Addr(0x11), 1), 107002, Some(MsgCode::EE1018)));
}

#[test]
fn aclrtMemInvalidateTest() {
    let r = rt0(A2);
    assert_err(
        r.mem_invalidate(Addr::NULL, 1),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_code(r.mem_invalidate(Addr(0x11), 0), 100000);
    // Substitution as for aclrtMemFlushTest.
    ok(r.mem_invalidate(Addr(0x11), 1));
    on_fresh_thread(|| {
        assert_err(
            r.mem_invalidate(Addr(0x11), 1),
            107002,
            Some(MsgCode::EE1018),
        )
    });
}

#[test]
fn aclrtMalloc_DeviceTest() {
    let r = rt0(A2);
    for policy in [
        malloc_policy::HUGE_FIRST,
        malloc_policy::HUGE_ONLY,
        malloc_policy::NORMAL_ONLY,
        malloc_policy::HUGE_FIRST_P2P,
        malloc_policy::HUGE_ONLY_P2P,
        malloc_policy::NORMAL_ONLY_P2P,
    ] {
        let mut p = Addr::NULL;
        ok(r.malloc(Some(&mut p), 1, policy));
        assert!(!p.is_null());
        ok(r.free(p));
    }
    assert_err(
        r.malloc(None, 1, malloc_policy::HUGE_FIRST),
        100000,
        Some(MsgCode::EH0008),
    );
    let mut p = Addr::NULL;
    assert_code(
        r.malloc(Some(&mut p), usize::MAX, malloc_policy::HUGE_FIRST),
        100000,
    );
    assert_err(
        r.malloc(Some(&mut p), 0, malloc_policy::HUGE_FIRST),
        100000,
        Some(MsgCode::EH0007),
    );
}

#[test]
fn memory_free_device() {
    let r = rt0(A2);
    assert_err(r.free(Addr::NULL), 100000, Some(MsgCode::EH0008));
}

#[test]
fn memory_malloc_host() {
    let r = rt0(A2);
    let mut p = Addr::NULL;
    assert_code(r.malloc_host(Some(&mut p), 0), 100000);
    ok(r.malloc_host(Some(&mut p), 1));
    assert!(!p.is_null());
    assert_code(r.malloc_host(None, 1), 100000);
    ok(r.free_host(p));
}

#[test]
fn memoryFreeHostTest() {
    let r = rt0(A2);
    assert_err(r.free_host(Addr::NULL), 100000, Some(MsgCode::EH0008));
}

#[test]
fn memory_memcpy() {
    let r = rt0(A2);
    let src = [7u8; 4];
    let mut dst = [0u8; 4];
    ok(r.memcpy(
        MemDst::Host(&mut dst),
        1,
        MemSrc::Host(&src),
        1,
        memcpy_kind::HOST_TO_HOST,
    ));
    assert_eq!(dst[0], 7);
    ok(r.memcpy(
        MemDst::Addr(Addr::NULL),
        0,
        MemSrc::Addr(Addr::NULL),
        0,
        memcpy_kind::HOST_TO_HOST,
    ));
    ok(r.memcpy(
        MemDst::Addr(Addr::NULL),
        0,
        MemSrc::Addr(Addr::NULL),
        0,
        0x7FFF_FFFF,
    ));
    assert_err(
        r.memcpy(MemDst::Addr(Addr::NULL), 1, MemSrc::Host(&src), 1, 0),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.memcpy(MemDst::Host(&mut dst), 1, MemSrc::Addr(Addr::NULL), 1, 0),
        100000,
        Some(MsgCode::EH0008),
    );
    // The kind is advisory (docs/validation/memory.md, aclrtMemcpy): every valid kind works
    // between host buffers.
    for kind in [
        memcpy_kind::HOST_TO_DEVICE,
        memcpy_kind::DEVICE_TO_HOST,
        memcpy_kind::DEVICE_TO_DEVICE,
        memcpy_kind::DEFAULT,
        memcpy_kind::HOST_TO_BUF_TO_DEVICE,
    ] {
        ok(r.memcpy(MemDst::Host(&mut dst), 1, MemSrc::Host(&src), 1, kind));
    }
    assert_code(
        r.memcpy(
            MemDst::Host(&mut dst),
            1,
            MemSrc::Host(&src),
            1,
            0x7FFF_FFFF,
        ),
        100000,
    );
    // Substitution for "mock rtMemcpy → 107000": count > destMax is the real 107000 (EE1003).
    assert_err(
        r.memcpy(MemDst::Host(&mut dst), 1, MemSrc::Host(&src), 2, 0),
        107000,
        Some(MsgCode::EE1003),
    );
}

#[test]
fn memory_memcpyAsync() {
    let r = rt0(A2);
    let s = stream(&r);
    let dev = malloc(&r, 64);
    let src = [7u8; 4];
    let mut dst = [0u8; 4];
    ok(r.memcpy_async(
        MemDst::Addr(dev),
        4,
        MemSrc::Host(&src),
        4,
        memcpy_kind::HOST_TO_DEVICE,
        s,
    ));
    ok(r.memcpy_async(
        MemDst::Host(&mut dst),
        4,
        MemSrc::Addr(dev),
        4,
        memcpy_kind::DEVICE_TO_HOST,
        s,
    ));
    ok(r.synchronize_stream(s));
    assert_eq!(dst, [7; 4]);
    // count 0 with NULL pointers, bad kind and a NULL stream: 0.
    ok(r.memcpy_async(
        MemDst::Addr(Addr::NULL),
        0,
        MemSrc::Addr(Addr::NULL),
        0,
        0x7FFF_FFFF,
        RawStream::NULL,
    ));
    assert_err(
        r.memcpy_async(MemDst::Addr(Addr::NULL), 4, MemSrc::Addr(dev), 4, 3, s),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.memcpy_async(MemDst::Addr(dev), 4, MemSrc::Addr(Addr::NULL), 4, 3, s),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_code(
        r.memcpy_async(MemDst::Addr(dev), 4, MemSrc::Host(&src), 4, 0x7FFF_FFFF, s),
        100000,
    );
    // Substitution for the RT mock: count > destMax → 107000 (EE1003).
    assert_err(
        r.memcpy_async(MemDst::Addr(dev), 2, MemSrc::Host(&src), 4, 1, s),
        107000,
        Some(MsgCode::EE1003),
    );
}

#[test]
fn zero_size_memory_ops_return_before_runtime_call() {
    // "RT never called": shown by calling from a runtime where no device was ever set (any
    // RT call would need a context) with NULL pointers and a bad kind.
    let r = rt(A2);
    let n = Addr::NULL;
    ok(r.memcpy(MemDst::Addr(n), 0, MemSrc::Addr(n), 0, 0x7FFF_FFFF));
    ok(r.memcpy_async(MemDst::Addr(n), 0, MemSrc::Addr(n), 0, 99, GARBAGE));
    ok(r.memset(n, 0, 1, 0));
    ok(r.memset_async(n, 0, 1, 0, GARBAGE));
}

#[test]
fn memory_memset() {
    let r = rt0(A2);
    assert_code(r.memset(Addr::NULL, 1, 1, 1), 100000);
    ok(r.memset(Addr::NULL, 0, 1, 0));
    // "host buffer = 0": page-locked host memory from aclrtMallocHost.
    let h = malloc_host(&r, 16);
    ok(r.memset(h, 16, 0x5a, 16));
    assert_eq!(r.host_buffer(h).unwrap().to_vec(), vec![0x5a; 16]);
    // Substitution for "mock → 107000": count > maxCount → 107000 (EE1003).
    let d = malloc(&r, 64);
    assert_err(r.memset(d, 8, 0, 16), 107000, Some(MsgCode::EE1003));
}

#[test]
fn aclrtSetDeviceFailedTest() {
    // Substitution for "mock rtSetDevice → 107001": an id out of range.
    let r = rt(A2);
    assert_code(r.set_device(99), 107001);
    assert_code(r.set_device(-1), 107001);
}

#[test]
fn aclrtResetDeviceTest() {
    // The stub reset device 0 without a set; the real runtime needs the set first.
    let r = rt(A2);
    ok(r.set_device(0));
    ok(r.reset_device(0));
    // Substitution for the mock → 107000: a reset of a device not set is 507007 (EE1018),
    // an id out of range 107001 (docs/validation/devices-contexts.md).
    assert_err(r.reset_device(0), 507007, Some(MsgCode::EE1018));
    assert_code(r.reset_device(99), 107001);
}

#[test]
fn aclrtResetDeviceForceTest() {
    let r = rt(A2);
    ok(r.set_device(0));
    ok(r.set_device(0));
    ok(r.reset_device_force(0));
    // Force released both references: the device is no longer current.
    assert_code(r.get_device(Some(&mut 0)), 107002);
    assert_code(r.reset_device_force(99), 107001);
}

#[test]
fn aclrtGetDeviceTest() {
    let r = rt(A2);
    let mut d = -1;
    // Substitution for the mock → 107000: no device set → 107002, without a message.
    assert_err(r.get_device(Some(&mut d)), 107002, None);
    ok(r.set_device(3));
    assert_code(r.get_device(None), 100000);
    ok(r.get_device(Some(&mut d)));
    assert_eq!(d, 3);
}

#[test]
fn aclrtCreateStreamTest() {
    let r = rt0(A2);
    let mut s = RawStream::NULL;
    ok(r.create_stream(Some(&mut s)));
    assert_ne!(s, RawStream::NULL);
    assert_err(r.create_stream(None), 100000, Some(MsgCode::EH0008));
}

#[test]
fn aclrtCreateStreamWithConfigTest() {
    let r = rt0(A2);
    for flag in [
        stream_flag::FAST_LAUNCH,
        stream_flag::FAST_LAUNCH | stream_flag::FAST_SYNC,
        stream_flag::PERSISTENT,
        stream_flag::HUGE,
        stream_flag::CPU_SCHEDULE,
        stream_flag::DEVICE_USE_ONLY,
    ] {
        let mut s = RawStream::NULL;
        ok(r.create_stream_with_config(Some(&mut s), 0, flag));
        assert_ne!(s, RawStream::NULL, "flag {flag:#x}");
    }
    assert_err(
        r.create_stream_with_config(None, 0, 0),
        100000,
        Some(MsgCode::EH0008),
    );
    for priority in [1, 8] {
        let mut s = RawStream::NULL;
        ok(r.create_stream_with_config(Some(&mut s), priority, 0));
    }
}

#[test]
fn aclrtDestroyStreamTest() {
    let r = rt0(A2);
    let s = stream(&r);
    ok(r.destroy_stream(s));
    assert_code(r.destroy_stream(RawStream::NULL), 100000);
    // Substitution for the mock → 107000: the destroyed handle → 107017
    // (docs/validation/streams-events.md).
    assert_err(r.destroy_stream(s), 107017, Some(MsgCode::EE1017));
}

#[test]
fn aclrtDestroyStreamForceTest() {
    let r = rt0(A2);
    let s = stream(&r);
    ok(r.destroy_stream_force(s));
    assert_code(r.destroy_stream_force(RawStream::NULL), 100000);
    assert_err(r.destroy_stream_force(s), 107017, Some(MsgCode::EE1017));
}

#[test]
fn aclrtSynchronizeStreamTest() {
    let r = rt0(A2);
    let s = stream(&r);
    ok(r.synchronize_stream(s));
    ok(r.synchronize_stream(RawStream::NULL));
}

#[test]
fn aclrtSynchronizeStreamWithTimeoutTest() {
    let r = rt0(A2);
    let s = stream(&r);
    ok(r.synchronize_stream_with_timeout(s, 100));
    ok(r.synchronize_stream_with_timeout(RawStream::NULL, 100));
    assert_err(
        r.synchronize_stream_with_timeout(s, -2),
        107000,
        Some(MsgCode::EH0007),
    );
    // Substitution for "mock → 507046": a stream blocked by a value wait that nothing
    // releases really times out.
    let p = malloc(&r, 8);
    ok(r.memset(p, 8, 0, 8));
    ok(r.value_wait(p, 1, wait_flag::EQ, s));
    assert_code(r.synchronize_stream_with_timeout(s, 10), 507046);
    // Release it so the runtime can be dropped cleanly.
    ok(r.value_write(p, 1, 0, RawStream::NULL));
    ok(r.synchronize_stream(s));
}

#[test]
fn aclrtStreamQueryTest() {
    let r = rt0(A2);
    let s = stream(&r);
    assert_err(r.stream_query(s, None), 100000, Some(MsgCode::EH0008));
    let mut status = u32::MAX;
    ok(r.stream_query(s, Some(&mut status)));
    assert_eq!(status, stream_status::COMPLETE);
    // Substitution for "RT 507004 → 0 with NOT_READY": a stream blocked on a value wait.
    let p = malloc(&r, 8);
    ok(r.memset(p, 8, 0, 8));
    ok(r.value_wait(p, 1, wait_flag::EQ, s));
    ok(r.stream_query(s, Some(&mut status)));
    assert_eq!(status, stream_status::NOT_READY);
    ok(r.value_write(p, 1, 0, RawStream::NULL));
    ok(r.synchronize_stream(s));
    ok(r.stream_query(s, Some(&mut status)));
    assert_eq!(status, stream_status::COMPLETE);
}

#[test]
fn aclrtStreamWaitEventTest() {
    let r = rt0(A2);
    let s = stream(&r);
    let e = event(&r);
    ok(r.record_event(e, s));
    ok(r.stream_wait_event(s, e));
    ok(r.stream_wait_event(RawStream::NULL, e));
    // Substitution for the mock → 107000: a destroyed event handle → 107017
    // (docs/validation/common-rules.md, the handle rule).
    ok(r.synchronize_stream(RawStream::NULL));
    ok(r.destroy_event(e));
    assert_err(r.stream_wait_event(s, e), 107017, Some(MsgCode::EE1017));
}

#[test]
fn aclrtCreateEventTest() {
    let r = rt0(A2);
    let mut e = RawEvent::default();
    ok(r.create_event(Some(&mut e)));
    assert_ne!(e, RawEvent::default());
    assert_code(r.create_event(None), 100000);
}

#[test]
fn aclrtDestroyEventTest() {
    let r = rt0(A2);
    let e = event(&r);
    ok(r.destroy_event(e));
    assert_code(r.destroy_event(RawEvent::default()), 100000);
    assert_err(r.destroy_event(e), 107017, Some(MsgCode::EE1017));
}

#[test]
fn aclrtRecordEventTest() {
    let r = rt0(A2);
    let e = event(&r);
    ok(r.record_event(e, RawStream::NULL));
    assert_code(r.record_event(RawEvent::default(), RawStream::NULL), 100000);
    let gone = event(&r);
    ok(r.destroy_event(gone));
    assert_err(
        r.record_event(gone, RawStream::NULL),
        107017,
        Some(MsgCode::EE1017),
    );
}

#[test]
fn aclrtSynchronizeEventTest() {
    let r = rt0(A2);
    let e = event(&r);
    ok(r.record_event(e, RawStream::NULL));
    ok(r.synchronize_event(e));
    assert_code(r.synchronize_event(RawEvent::default()), 100000);
}

#[test]
fn aclrtQueryEventStatusTest() {
    let r = rt0(A2);
    let e = event(&r);
    let mut status = u32::MAX;
    assert_code(
        r.query_event_status(RawEvent::default(), Some(&mut status)),
        100000,
    );
    assert_code(r.query_event_status(e, None), 100000);
    ok(r.query_event_status(e, Some(&mut status)));
    assert_eq!(status, event_recorded_status::NOT_READY);
    ok(r.record_event(e, RawStream::NULL));
    ok(r.synchronize_stream(RawStream::NULL));
    ok(r.query_event_status(e, Some(&mut status)));
    assert_eq!(status, event_recorded_status::COMPLETE);
}

#[test]
fn aclmdlRIBuildBegin_failed_with_invalid_args() {
    let r = rt0(A2);
    assert_err(r.mdl_ri_build_begin(None, 0), 100000, Some(MsgCode::EH0008));
    // Substitution for "mock rtsModelCreate → 107000": flag ≠ 0 (EE1003,
    // docs/validation/models.md).
    let mut m = RawModel::default();
    assert_err(
        r.mdl_ri_build_begin(Some(&mut m), 1),
        107000,
        Some(MsgCode::EE1003),
    );
}

#[test]
fn aclmdlRIBindStream_failed_with_invalid_args() {
    let r = rt0(A2);
    assert_code(
        r.mdl_ri_bind_stream(RawModel::default(), RawStream::NULL, 0),
        100000,
    );
    // Substitution for the mock → 107000: a stream without ACL_STREAM_PERSISTENT (EE1017).
    let m = model(&r);
    let s = stream(&r);
    assert_err(r.mdl_ri_bind_stream(m, s, 0), 107000, Some(MsgCode::EE1017));
}

#[test]
fn aclmdlRI_EndTask_BuildEnd_UnbindStream_Execute_failure_tests() {
    let r = rt0(A2);
    let null = RawModel::default();
    let (m, s) = bound(&r);
    assert_code(r.mdl_ri_end_task(null, s), 100000);
    assert_code(r.mdl_ri_build_end(null, None), 100000);
    assert_code(r.mdl_ri_unbind_stream(null, s), 100000);
    assert_code(r.mdl_ri_execute(null, -1), 100000);
    assert_err(
        r.mdl_ri_build_end(m, Some(0x1)),
        100000,
        Some(MsgCode::EH0012),
    );
    // Substitution for the mocks → 107000: a destroyed model handle → 107017.
    ok(r.mdl_ri_destroy(m));
    assert_err(r.mdl_ri_execute(m, -1), 107017, Some(MsgCode::EE1017));
}

#[test]
fn compatibility_constants() {
    assert_eq!(
        [
            wait_flag::GEQ,
            wait_flag::EQ,
            wait_flag::AND,
            wait_flag::NOR
        ],
        [0, 1, 2, 3]
    );
    assert_eq!(CMO_MAX_BARRIER_NUM, 6);
    // ACL cmoType + 6 is the RT opcode (RT_CMO_PREFETCH 6 … RT_CMO_FLUSH 9, RESERVED 10).
    for (t, op) in [
        (cmo_type::PREFETCH, 6),
        (cmo_type::WRITEBACK, 7),
        (cmo_type::INVALID, 8),
        (cmo_type::FLUSH, 9),
    ] {
        assert_eq!(t + cmo_type::RT_OPCODE_OFFSET, op);
    }
    assert_eq!(cmo_type::RT_OPCODE_RESERVED, 10);
}

// ---------------------------------------------------------------------------------------------
// docs/validation/vendor-vectors.md, Runtime layer
// ---------------------------------------------------------------------------------------------

#[test]
fn rt_utest_api_api_rtCmoTaskLaunch_mini() {
    // rtCmoTaskLaunch / rtsLaunchCmoTask on MINI → 207000; through ACL: aclrtCmoAsync with
    // PREFETCH / WRITEBACK / INVALID / RESERVED(4) on chips without the feature.
    for soc in [DC, CLOUD] {
        let r = rt0(soc);
        let p = malloc(&r, 64);
        for t in [
            cmo_type::PREFETCH,
            cmo_type::WRITEBACK,
            cmo_type::INVALID,
            4,
        ] {
            assert_err(r.cmo_async(p, 64, t, RawStream::NULL), 207000, None);
        }
    }
}

#[test]
fn rt_utest_api_api_rtCmoAsync_mini_v3() {
    // rtCmoAsync(NULL, 5, PREFETCH) on MINI_V3 → 207000 at the RT (gate before the RT NULL
    // check). Through ACL the ACL NULL check answers first (100000); with a non-NULL src the
    // gate gives 207000.
    let r = rt0(MINI_V3);
    let s = stream(&r);
    assert_err(
        r.cmo_async(Addr::NULL, 5, cmo_type::PREFETCH, s),
        100000,
        Some(MsgCode::EH0008),
    );
    let p = malloc(&r, 64);
    assert_err(r.cmo_async(p, 5, cmo_type::PREFETCH, s), 207000, None);
}

#[test]
fn rt_utest_api_api_rtsGetCmoDescSize_dc() {
    let r = rt(DC);
    let mut size = 0usize;
    assert_err(r.cmo_get_desc_size(Some(&mut size)), 207000, None);
}

#[test]
fn rt_utest_api_api_rtBarrierTaskLaunch_mini_v3() {
    // logicIdNum 0 / 7 → 107000 at the RT; through ACL the count check answers (100000).
    let r = rt0(MINI_V3);
    for n in [0, 7] {
        assert_err(
            r.cmo_wait_barrier(Some(&barrier_info(n, &[])), RawStream::NULL, 0),
            100000,
            Some(MsgCode::EH0007),
        );
    }
}

#[test]
fn rt_utest_api_api_rtsLaunchBarrierTask() {
    // 910_B_93: one entry {INVALID, 1}, NULL stream → 207000 (EE1005).
    let r = rt0(A2);
    let good = barrier_info(1, &[(cmo_type::INVALID, 1)]);
    assert_err(
        r.cmo_wait_barrier(Some(&good), RawStream::NULL, 0),
        207000,
        Some(MsgCode::EE1005),
    );
    // MINI_V3: NULL taskInfo / count 0 / count 7 are 107000 at the RT, 100000 through ACL;
    // {INVALID, id 0} and {PREFETCH, …} → 107000 (EE1003).
    let r = rt0(MINI_V3);
    let s = stream(&r);
    assert_code(r.cmo_wait_barrier(None, s, 0), 100000);
    assert_code(
        r.cmo_wait_barrier(Some(&barrier_info(0, &[])), s, 0),
        100000,
    );
    assert_code(
        r.cmo_wait_barrier(Some(&barrier_info(7, &[])), s, 0),
        100000,
    );
    for entry in [(cmo_type::INVALID, 0), (cmo_type::PREFETCH, 1)] {
        assert_err(
            r.cmo_wait_barrier(Some(&barrier_info(1, &[entry])), s, 0),
            107000,
            Some(MsgCode::EE1003),
        );
    }
}

#[test]
fn platform_910B_mem_wait_record_task_01_03_04() {
    // Device memory, ValueWrite(p, 0, 0, stream_) and ValueWait(p, 0, flag, stream_) → 0;
    // _04 uses flag 1 (EQ).
    let r = rt0(A2);
    let s = stream(&r);
    let p = malloc(&r, 8);
    ok(r.value_write(p, 0, 0, s));
    ok(r.value_wait(p, 0, wait_flag::GEQ, s));
    ok(r.value_wait(p, 0, wait_flag::EQ, s));
    ok(r.synchronize_stream(s));
}

#[test]
fn platform_910B_mem_wait_record_task_05() {
    let r = rt0(A2);
    let p = malloc(&r, 8);
    ok(r.value_write(p, 0, 0, RawStream::NULL));
    ok(r.value_wait(p, 0, wait_flag::GEQ, RawStream::NULL));
    ok(r.synchronize_stream(RawStream::NULL));
}

#[test]
fn platform_910B_rtsCmoAsyn_testCmoType() {
    // rtsCmoAsync(&x, 5, PREFETCH) → 0; size 0 with WRITEBACK / INVALID / FLUSH → 107000 at
    // the RT. Through ACL size 0 is caught first: 100000 (EH0007).
    let r = rt0(A2);
    let x = malloc(&r, 64);
    ok(r.cmo_async(x, 5, cmo_type::PREFETCH, RawStream::NULL));
    for t in [cmo_type::WRITEBACK, cmo_type::INVALID, cmo_type::FLUSH] {
        assert_err(
            r.cmo_async(x, 0, t, RawStream::NULL),
            100000,
            Some(MsgCode::EH0007),
        );
    }
}

#[test]
fn platform_910B_rtsCmoAsyncWithBarrier_test() {
    let r = rt0(A2);
    let s = stream(&r);
    let x = malloc(&r, 64);
    assert_err(
        r.cmo_async_with_barrier(x, 4, cmo_type::PREFETCH, 1, s),
        207000,
        None,
    );
}

#[test]
fn platform_910B_rtBarrierTaskLaunchNotSupport() {
    // A zeroed task reaches the RT gate (207000) below ACL; through ACL a zeroed taskInfo has
    // barrierNum 0 (100000), so a well-formed one shows the gate.
    let r = rt0(A2);
    assert_code(
        r.cmo_wait_barrier(Some(&RawBarrierTaskInfo::default()), RawStream::NULL, 0),
        100000,
    );
    let good = barrier_info(1, &[(cmo_type::INVALID, 1)]);
    assert_err(
        r.cmo_wait_barrier(Some(&good), RawStream::NULL, 0),
        207000,
        Some(MsgCode::EE1005),
    );
}

#[test]
fn platform_910B_rtBarrierTaskLaunchSuccess() {
    // MINI_V3, the BarrierTaskLaunch mocked to succeed. Substitution: the barrier
    // recipe of docs/validation/models.md on 310B.
    let r = rt0(MINI_V3);
    let buf = malloc(&r, 4096);
    let (m, s) = bound(&r);
    ok(r.cmo_async_with_barrier(buf, 4096, cmo_type::INVALID, 1, s));
    ok(r.cmo_async_with_barrier(buf, 4096, cmo_type::PREFETCH, 0, s));
    let info = barrier_info(1, &[(cmo_type::INVALID, 1)]);
    ok(r.cmo_wait_barrier(Some(&info), s, 0));
    ok(r.mdl_ri_end_task(m, s));
    ok(r.mdl_ri_build_end(m, None));
    ok(r.mdl_ri_execute(m, -1));
    ok(r.mdl_ri_unbind_stream(m, s));
    ok(r.destroy_stream(s));
    ok(r.mdl_ri_destroy(m));
    ok(r.reset_device(0));
}

#[test]
fn platform_910B_rt_utest_api_test_rtCmoAddrTaskLaunch() {
    // 64 B device descriptor, PREFETCH, non-model stream → 507000.
    let r = rt0(A2);
    let desc = malloc(&r, 64);
    let src = malloc(&r, 4096);
    ok(r.cmo_set_desc(desc, src, 4096));
    let s = stream(&r);
    assert_err(
        r.cmo_async_with_desc(desc, cmo_type::PREFETCH, s, Addr::NULL),
        507000,
        Some(MsgCode::EE9999),
    );
}

#[test]
fn platform_910B_rt_utest_api_test_api_rtCmoTaskLaunch() {
    // A zeroed task has opcode 0, which the RT decorator rejects (107000). Through ACL the
    // opcode is cmoType + 6; opcode 0 is cmoType 0xFFFFFFFA, which rtCmoAsync's own opcode
    // check (row 4, before the decorator) rejects with 207000.
    let r = rt0(A2);
    let x = malloc(&r, 64);
    assert_err(
        r.cmo_async(x, 64, 0u32.wrapping_sub(6), RawStream::NULL),
        207000,
        None,
    );
}

#[test]
fn platform_910B_rtCmoTaskLaunch_NotSupportChip() {
    for soc in [DC, CLOUD] {
        let r = rt0(soc);
        assert_err(
            r.cmo_async(Addr(0x1), 64, cmo_type::PREFETCH, RawStream::NULL),
            207000,
            None,
        );
    }
}

#[test]
fn platform_910B_rt_utest_api_test_api_rtCmoAsync() {
    let r = rt0(A2);
    let x = malloc(&r, 64);
    ok(r.cmo_async(x, 5, cmo_type::WRITEBACK, RawStream::NULL));
    // PREFETCH size 0 / NULL src → 107000 at the RT; 100000 through ACL.
    assert_code(
        r.cmo_async(x, 0, cmo_type::PREFETCH, RawStream::NULL),
        100000,
    );
    assert_code(
        r.cmo_async(Addr::NULL, 5, cmo_type::PREFETCH, RawStream::NULL),
        100000,
    );
    ok(r.cmo_async(x, 5, cmo_type::PREFETCH, RawStream::NULL));
}

#[test]
fn platform_910B_rt_utest_api_test_api_rtsGetCmoDescSize() {
    let r = rt(A2);
    let mut size = 0usize;
    ok(r.cmo_get_desc_size(Some(&mut size)));
    assert_ne!(size, 0);
}

#[test]
fn platform_910B_rt_utest_api_test_api_rtsLaunchCmoAddrTask() {
    // (&hostDesc, NULL stream, PREFETCH, NULL) → non-zero: the NULL stream is the default
    // stream, never model-bound (507000).
    let r = rt0(A2);
    let host_desc = malloc_host(&r, 64);
    assert_err(
        r.cmo_async_with_desc(host_desc, cmo_type::PREFETCH, RawStream::NULL, Addr::NULL),
        507000,
        Some(MsgCode::EE9999),
    );
}

#[test]
fn platform_910B_cloudv2_api_rtsSetCmoDesc() {
    // The descriptor was on the stack with a stub driver; substitution: a device descriptor
    // from aclrtMalloc (the docs require device memory, docs/validation/cmo.md, aclrtCmoSetDesc)
    // with a device src, size 64.
    let r = rt0(A2);
    let desc = malloc(&r, 64);
    let src = malloc(&r, 64);
    ok(r.cmo_set_desc(desc, src, 64));
}

#[test]
fn platform_910B_others_api_rtsSetCmoDesc() {
    let r = rt0(A2);
    let desc = malloc(&r, 64);
    assert_err(
        r.cmo_set_desc(desc, Addr::NULL, 64),
        107000,
        Some(MsgCode::EE1004),
    );
}

#[test]
fn platform_others_api_rtsSetCmoDesc_dc() {
    let r = rt0(DC);
    let desc = malloc(&r, 64);
    assert_err(r.cmo_set_desc(desc, Addr::NULL, 64), 207000, None);
}

#[test]
fn platform_others_mem_wait_record_task_02_cloud() {
    let r = rt0(CLOUD);
    let p = malloc(&r, 8);
    assert_err(r.value_write(p, 0, 0, RawStream::NULL), 207000, None);
    assert_err(
        r.value_wait(p, 0, wait_flag::GEQ, RawStream::NULL),
        207000,
        None,
    );
}

#[test]
fn platform_others_rtsCmoAsyncWithBarrier_test_mini_v3() {
    let r = rt0(MINI_V3);
    let s = stream(&r);
    let x = malloc(&r, 64);
    // NULL src → 107000 at the RT; through ACL 100000.
    assert_code(
        r.cmo_async_with_barrier(Addr::NULL, 4, cmo_type::INVALID, 1, s),
        100000,
    );
    assert_err(
        r.cmo_async_with_barrier(x, 0, cmo_type::INVALID, 1, s),
        107000,
        Some(MsgCode::EE1003),
    );
    for t in [cmo_type::PREFETCH, cmo_type::FLUSH, cmo_type::WRITEBACK] {
        assert_err(
            r.cmo_async_with_barrier(x, 4, t, 1, s),
            107000,
            Some(MsgCode::EE1011),
        );
    }
    // RESERVED (ACL 4 → opcode 10), id 1 → 207000.
    assert_err(r.cmo_async_with_barrier(x, 4, 4, 1, s), 207000, None);
    assert_err(
        r.cmo_async_with_barrier(x, 4, cmo_type::INVALID, 0, s),
        107000,
        Some(MsgCode::EE1011),
    );
    assert_err(
        r.cmo_async_with_barrier(x, 4, cmo_type::PREFETCH, 0, s),
        507000,
        Some(MsgCode::EE9999),
    );
    assert_err(
        r.cmo_async_with_barrier(x, 4, cmo_type::INVALID, 1, s),
        507000,
        Some(MsgCode::EE9999),
    );
}

#[test]
fn platform_950_test_cmo_task_on_david() {
    let r = rt0(DAVID);
    let desc = malloc(&r, 64);
    let src = malloc(&r, 4096);
    ok(r.cmo_set_desc(desc, src, 4096));
    let s = stream(&r);
    assert_err(
        r.cmo_async_with_desc(desc, cmo_type::PREFETCH, s, Addr::NULL),
        507000,
        Some(MsgCode::EE9999),
    );
    let (_m, b) = bound(&r);
    ok(r.cmo_async_with_desc(desc, cmo_type::PREFETCH, b, Addr::NULL));
}

#[test]
fn platform_950_test_cmo_task_launch_on_david() {
    // rtCmoTaskLaunch(PREFETCH, qos 1, partId 1, NULL stream) → 0 (qos/partId are not
    // parameters of aclrtCmoAsync).
    let r = rt0(DAVID);
    let x = malloc(&r, 4096);
    ok(r.cmo_async(x, 4096, cmo_type::PREFETCH, RawStream::NULL));
    ok(r.synchronize_stream(RawStream::NULL));
}

#[test]
fn platform_950_MemWriteValue_ContextMismatch() {
    // A stream whose context is not the current one → RT_ERROR_STREAM_CONTEXT → 107003.
    let r = rt0(DAVID);
    let p = malloc(&r, 8);
    let other = other_ctx_stream(&r);
    assert_err(r.value_write(p, 1, 0, other), 107003, Some(MsgCode::EE1010));
}

#[test]
fn platform_950_MemWriteValue_Success() {
    let r = rt0(DAVID);
    let p = malloc(&r, 8);
    let s = stream(&r);
    ok(r.value_write(p, 1, 0, s));
    ok(r.synchronize_stream(s));
}

#[test]
fn platform_950_ub_api_cmo_addr_send_test_submit() {
    // NULL desc, RESERVED → 107000 (desc NULL check first, EE1004).
    let r = rt0(DAVID);
    let (_m, b) = bound(&r);
    assert_err(
        r.cmo_async_with_desc(Addr::NULL, 4, b, Addr::NULL),
        107000,
        Some(MsgCode::EE1004),
    );
}

#[test]
fn platform_950_ub_api_cmo_addr_cmotype_isinValid() {
    let r = rt0(DAVID);
    let desc = malloc(&r, 64);
    let (_m, b) = bound(&r);
    assert_err(
        r.cmo_async_with_desc(desc, 4, b, Addr::NULL),
        107000,
        Some(MsgCode::EE1003),
    );
}
