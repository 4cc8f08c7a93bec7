//! Memory (t7_3, docs/validation/memory.md), with `aclrtMemsetAsync` on host memory.

use super::*;

// =============================================================================================
// docs/validation/memory.md
// =============================================================================================

/// Whether `len` bytes from `a` can be filled (the extent the allocation really has).
fn fillable(r: &Runtime, a: Addr, len: usize) -> bool {
    r.memset(a, len, 0, len).is_ok()
}

#[test]
fn t7_3_malloc_rounds_up_to_32_plus_padding() {
    // A2 / 310B / 310P / 910 pad 32, 950 pads 0; HUGE1G policies never pad.
    for (soc, pad) in [
        ("Ascend910B1", 32usize),
        ("Ascend310B1", 32),
        ("Ascend310P3", 32),
        ("Ascend910A", 32),
        ("Ascend950PR_9599", 0),
    ] {
        let r = rt0(soc);
        for (size, policy, len) in [
            (1usize, malloc_policy::HUGE_FIRST, 32 + pad),
            (32, malloc_policy::NORMAL_ONLY, 32 + pad),
            (33, malloc_policy::HUGE_FIRST, 64 + pad),
            (1, malloc_policy::HUGE1G_ONLY, 32),
            (33, malloc_policy::HUGE1G_ONLY_P2P, 64),
        ] {
            let mut a = Addr::NULL;
            ok(r.malloc(Some(&mut a), size, policy));
            assert!(fillable(&r, a, len), "{soc}: size {size} policy {policy}");
            // The front end tracks the extent; beyond it the fill is refused.
            assert!(
                !fillable(&r, a, len + 1),
                "{soc}: size {size} policy {policy}"
            );
            ok(r.free(a));
        }
    }
}

#[test]
fn t7_3_malloc_base_is_64_byte_aligned() {
    let r = rt0(A2);
    for size in [1, 7, 100, 4096] {
        let a = malloc(&r, size);
        assert_eq!(a.0 % 64, 0);
    }
}

#[test]
fn t7_3_malloc_null_zero_and_overflow_are_100000() {
    let r = rt0(A2);
    let mut a = Addr::NULL;
    assert_err(r.malloc(None, 64, 0), 100000, Some(MsgCode::EH0008));
    assert_err(r.malloc(Some(&mut a), 0, 0), 100000, Some(MsgCode::EH0007));
    // Overflow of the padded length: 100000 (the docs name no message code for it).
    assert_code(r.malloc(Some(&mut a), usize::MAX, 0), 100000);
    assert_code(r.malloc(Some(&mut a), usize::MAX - 31, 0), 100000);
    // Out-of-range or OR-ed policies fall back to the default.
    for policy in [8, 0x0100 | 1, 0xFFFF_FFFF] {
        ok(r.malloc(Some(&mut a), 64, policy));
    }
}

#[test]
fn t7_3_free_null_is_100000_and_host_malloc_rules() {
    let r = rt0(A2);
    assert_err(r.free(Addr::NULL), 100000, Some(MsgCode::EH0008));
    let mut h = Addr::NULL;
    assert_err(r.malloc_host(None, 8), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.malloc_host(Some(&mut h), 0),
        100000,
        Some(MsgCode::EH0007),
    );
    assert_err(r.free_host(Addr::NULL), 100000, Some(MsgCode::EH0008));
}

#[test]
fn a_huge_host_allocation_is_207001_not_an_abort() {
    let rt = rt_failing_stalls("Ascend910B1");
    rt.set_device(0).unwrap();
    let mut host = Addr::NULL;
    let err = rt.malloc_host(Some(&mut host), usize::MAX / 2).unwrap_err();
    assert_eq!(err.code(), 207001, "{err}");
}

#[test]
fn t7_3_memcpy_count_zero_succeeds_before_any_check() {
    let r = rt(A2); // no device, no context
    let n = Addr::NULL;
    for kind in [0, 6, 7, u32::MAX] {
        ok(r.memcpy(MemDst::Addr(n), 0, MemSrc::Addr(n), 0, kind));
        ok(r.memcpy_async(MemDst::Addr(n), 0, MemSrc::Addr(n), 0, kind, GARBAGE));
    }
}

#[test]
fn t7_3_memcpy_null_pointers_are_100000_eh0008() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    assert_err(
        r.memcpy(MemDst::Addr(Addr::NULL), 8, MemSrc::Addr(p), 8, 3),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.memcpy(MemDst::Addr(p), 8, MemSrc::Addr(Addr::NULL), 8, 3),
        100000,
        Some(MsgCode::EH0008),
    );
}

#[test]
fn t7_3_memcpy_kind_above_5_is_100000_eh0007() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    let q = malloc(&r, 64);
    for kind in [
        memcpy_kind::INNER_DEVICE_TO_DEVICE,
        memcpy_kind::INTER_DEVICE_TO_DEVICE,
        8,
        0x7FFF_FFFF,
    ] {
        assert_err(
            r.memcpy(MemDst::Addr(p), 8, MemSrc::Addr(q), 8, kind),
            100000,
            Some(MsgCode::EH0007),
        );
        assert_err(
            r.memcpy_async(
                MemDst::Addr(p),
                8,
                MemSrc::Addr(q),
                8,
                kind,
                RawStream::NULL,
            ),
            100000,
            Some(MsgCode::EH0007),
        );
    }
}

#[test]
fn t7_3_memcpy_dest_max_zero_and_count_above_dest_max_are_107000() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    let q = malloc(&r, 64);
    assert_code(r.memcpy(MemDst::Addr(p), 0, MemSrc::Addr(q), 8, 3), 107000);
    assert_err(
        r.memcpy(MemDst::Addr(p), 4, MemSrc::Addr(q), 8, 3),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.memcpy_async(MemDst::Addr(p), 4, MemSrc::Addr(q), 8, 3, RawStream::NULL),
        107000,
        Some(MsgCode::EE1003),
    );
    // The runtime's entry checks the stream handle before the count against destMax.
    assert_err(
        r.memcpy_async(
            MemDst::Addr(p),
            4,
            MemSrc::Addr(q),
            8,
            3,
            destroyed_stream(&r),
        ),
        107017,
        Some(MsgCode::EE1017),
    );
}

#[test]
fn t7_3_memcpy_dst_equal_src_succeeds_and_kind_is_advisory() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    ok(r.memcpy(MemDst::Addr(p), 64, MemSrc::Addr(p), 64, 3));
    // A device → host copy with kind HOST_TO_DEVICE: the direction comes from the addresses.
    ok(r.memset(p, 64, 0x11, 64));
    let mut out = [0u8; 8];
    ok(r.memcpy(
        MemDst::Host(&mut out),
        8,
        MemSrc::Addr(p),
        8,
        memcpy_kind::HOST_TO_DEVICE,
    ));
    assert_eq!(out, [0x11; 8]);
}

#[test]
fn t7_3_memset_rules() {
    let r = rt0(A2);
    let p = malloc(&r, 64);
    ok(r.memset(Addr::NULL, 0, 0, 0));
    ok(r.memset_async(Addr::NULL, 0, 0, 0, GARBAGE));
    assert_err(r.memset(Addr::NULL, 8, 0, 8), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.memset_async(Addr::NULL, 8, 0, 8, RawStream::NULL),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.memset_async(p, 4, 0, 8, RawStream::NULL),
        107000,
        Some(MsgCode::EE1003),
    );
    // The runtime's entry checks the stream handle before the count against maxCount.
    assert_err(
        r.memset_async(p, 4, 0, 8, destroyed_stream(&r)),
        107017,
        Some(MsgCode::EE1017),
    );
    // The value is passed on as a 32-bit unsigned; its low byte fills.
    ok(r.memset(p, 64, 0x1234_56ab, 64));
    let mut out = [0u8; 4];
    ok(r.memcpy(MemDst::Host(&mut out), 4, MemSrc::Addr(p), 4, 2));
    assert_eq!(out, [0xab; 4]);
}

#[test]
fn t7_3_mem_flush_and_invalidate() {
    let r = rt0(A2);
    for f in [Runtime::mem_flush, Runtime::mem_invalidate] {
        assert_err(f(&r, Addr::NULL, 1), 100000, Some(MsgCode::EH0008));
        assert_err(f(&r, Addr(0x11), 0), 100000, Some(MsgCode::EH0007));
        ok(f(&r, Addr(0x11), 1));
        on_fresh_thread(|| assert_err(f(&r, Addr(0x11), 1), 107002, Some(MsgCode::EE1018)));
    }
}

// =============================================================================================
// docs/validation/memory.md: aclrtMemsetAsync on host memory
// =============================================================================================

#[test]
fn memset_async_fills_host_memory_never_registered_before_it_returns() {
    for soc in [A2, MINI_V3, DAVID] {
        let r = rt0(soc);
        let mut host = vec![0u8; 96];
        ok(r.memset_async(&mut host[..], 96, 0x1a7, 64, RawStream::NULL));
        assert_eq!(&host[..64], &[0xa7; 64][..], "{soc}: the low byte, at once");
        assert_eq!(&host[64..], &[0; 32][..], "{soc}: only count bytes");
        // Any stream of the context will do; the host fill never reaches it.
        ok(r.memset_async(&mut host[..], 96, 3, 96, persistent(&r)));
        assert_eq!(host, vec![3; 96], "{soc}");
        // The rows before the fill still apply.
        assert_code(
            r.memset_async(&mut host[..], 8, 0, 9, RawStream::NULL),
            107000,
        );
        if soc != MINI_V3 {
            // (Ascend310B1 has one device.)
            let theirs = other_ctx_stream(&r);
            assert_code(r.memset_async(&mut host[..], 8, 0, 8, theirs), 107003);
        }
        on_fresh_thread(|| {
            let mut h = [0u8; 8];
            assert_code(r.memset_async(&mut h[..], 8, 1, 8, RawStream::NULL), 107002);
            assert_eq!(h, [0; 8]);
        });
    }
}

#[test]
fn memset_async_fills_page_locked_memory_at_the_call_not_in_stream_order() {
    let r = rt0(A2);
    let s = stream(&r);
    let word = malloc(&r, 8);
    ok(r.memset(word, 8, 0, 8));
    let pinned = malloc_host(&r, 64);
    // The stream is held by a wait nothing has satisfied yet.
    ok(r.value_wait(word, 1, wait_flag::GEQ, s));
    ok(r.memset_async(pinned, 64, 0x5c, 64, s));
    let buf = r.host_buffer(pinned).unwrap();
    assert_eq!(
        buf.to_vec(),
        vec![0x5c; 64],
        "filled while the stream waits"
    );
    ok(r.value_write(word, 1, 0, RawStream::NULL));
    ok(r.synchronize_stream(s));
    assert_eq!(buf.to_vec(), vec![0x5c; 64]);
}

#[test]
fn memset_async_on_host_memory_with_max_count_over_2_pow_31_is_507000_and_fills_nothing() {
    let r = rt0(A2);
    let big = 0x8000_0000usize;
    let mut host = vec![0u8; 16];
    assert_err(
        r.memset_async(&mut host[..], big, 1, 16, RawStream::NULL),
        507000,
        Some(MsgCode::EE9999),
    );
    assert_eq!(host, vec![0; 16]);
    ok(r.memset_async(&mut host[..], big - 1, 1, 16, RawStream::NULL));
    assert_eq!(host, vec![1; 16]);
    let pinned = malloc_host(&r, 16);
    assert_code(r.memset_async(pinned, big, 2, 16, RawStream::NULL), 507000);
    assert_eq!(r.host_buffer(pinned).unwrap().to_vec(), vec![0; 16]);
    // Device memory has no such bound: its fill is a task.
    let dev = malloc(&r, 16);
    ok(r.memset_async(dev, big, 4, 16, RawStream::NULL));
    ok(r.synchronize_stream(RawStream::NULL));
    assert_eq!(read_bytes(&r, dev, 16), vec![4; 16]);
}
