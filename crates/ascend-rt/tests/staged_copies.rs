//! Copies that move pageable or page-locked host memory through bounded staging chunks: the
//! bytes arrive exactly as with one big copy, in stream order, whatever the length (several
//! chunks here), and overlapping pageable ranges move with memmove semantics.

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};

const BIG: usize = (8 << 20) * 2 + 12_345; // more than two staging chunks

fn pattern(n: usize, seed: usize) -> Vec<u8> {
    (0..n).map(|k| ((k / 7) * 13 + k + seed) as u8).collect()
}

fn setup() -> (Runtime, Addr, RawStream) {
    let rt = Runtime::sim("Ascend910B1").unwrap();
    rt.set_device(0).unwrap();
    let mut dev = Addr::NULL;
    rt.malloc(Some(&mut dev), BIG, malloc_policy::HUGE_FIRST)
        .unwrap();
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    (rt, dev, s)
}

#[test]
fn large_pageable_async_copies_arrive_whole_in_stream_order() {
    let (rt, dev, s) = setup();
    let data = pattern(BIG, 1);
    // The stream first fills the buffer; the pageable copy lands after the fill.
    rt.memset_async(dev, BIG, 0xEE, BIG, s).unwrap();
    rt.memcpy_async(MemDst::Addr(dev), BIG, MemSrc::Host(&data), BIG, 1, s)
        .unwrap();
    let mut back = vec![0u8; BIG];
    rt.memcpy_async(MemDst::Host(&mut back), BIG, MemSrc::Addr(dev), BIG, 2, s)
        .unwrap();
    assert!(
        back == data,
        "device-to-pageable copy of the pageable upload"
    );
    // Pageable to pageable through the stream.
    let mut other = vec![0u8; BIG];
    rt.memcpy_async(
        MemDst::Host(&mut other),
        BIG,
        MemSrc::Host(&data),
        BIG,
        0,
        s,
    )
    .unwrap();
    assert!(other == data, "pageable-to-pageable async copy");
}

#[test]
fn large_page_locked_copies_and_fills_arrive_whole() {
    let (rt, dev, s) = setup();
    let mut pinned = Addr::NULL;
    rt.malloc_host(Some(&mut pinned), BIG).unwrap();
    let buf = rt.host_buffer(pinned).unwrap();
    let data = pattern(BIG, 2);
    buf.write_at(0, &data);
    rt.memcpy(MemDst::Addr(dev), BIG, MemSrc::Addr(pinned), BIG, 1)
        .unwrap();
    buf.write_at(0, &vec![0u8; BIG]);
    rt.memcpy(MemDst::Addr(pinned), BIG, MemSrc::Addr(dev), BIG, 2)
        .unwrap();
    assert!(buf.to_vec() == data, "page-locked round trip");
    // A large fill of page-locked memory on a stream.
    rt.memset_async(pinned, BIG, 0x3C, BIG - 1, s).unwrap();
    rt.synchronize_stream(s).unwrap();
    let after = buf.to_vec();
    assert!(after[..BIG - 1].iter().all(|&b| b == 0x3C));
    assert_eq!(after[BIG - 1], data[BIG - 1]);
    // Page-locked to page-locked, within one buffer, overlapping.
    buf.write_at(0, &data);
    let shift = 1000;
    let n = BIG - shift;
    rt.memcpy(
        MemDst::Addr(Addr(pinned.0 + shift as u64)),
        n,
        MemSrc::Addr(pinned),
        n,
        0,
    )
    .unwrap();
    assert!(buf.to_vec()[shift..] == data[..n]);
    rt.free_host(pinned).unwrap();
}

#[test]
fn overlapping_pageable_ranges_copy_like_memmove_on_a_stream() {
    let (rt, _, s) = setup();
    let data = pattern(BIG, 3);
    let shift = 3 << 20;
    let n = BIG - shift;
    for (dst, src) in [(shift, 0), (0, shift)] {
        let mut buf = data.clone();
        rt.memcpy_async_within(&mut buf, dst, n, src, n, 0, s)
            .unwrap();
        let mut want = data.clone();
        want.copy_within(src..src + n, dst);
        assert!(buf == want, "async within, dst {dst} src {src}");
        let mut buf = data.clone();
        rt.memcpy_within(&mut buf, dst, n, src, n, 0).unwrap();
        assert!(buf == want, "sync within, dst {dst} src {src}");
    }
}

#[test]
fn copies_within_one_buffer_are_validated_like_any_copy() {
    let (rt, _, s) = setup();
    let mut buf = vec![1u8; 64];
    // The kind first, then destMax, then the ranges.
    assert_eq!(
        rt.memcpy_within(&mut buf, 0, 64, 8, 32, 9)
            .unwrap_err()
            .code(),
        100000
    );
    assert_eq!(
        rt.memcpy_within(&mut buf, 0, 16, 8, 32, 0)
            .unwrap_err()
            .code(),
        107000
    );
    assert_eq!(
        rt.memcpy_within(&mut buf, 0, 64, 40, 32, 0)
            .unwrap_err()
            .code(),
        107000
    );
    assert_eq!(
        rt.memcpy_async_within(&mut buf, 40, 64, 0, 32, 0, RawStream(0xDEAD))
            .unwrap_err()
            .code(),
        107017
    );
    assert_eq!(
        rt.memcpy_async_within(&mut buf, 40, 64, 0, 32, 0, s)
            .unwrap_err()
            .code(),
        107000
    );
    rt.memcpy_within(&mut buf, 0, 64, 0, 0, 99).unwrap();
    assert!(buf.iter().all(|&b| b == 1), "rejected copies wrote nothing");
}

#[test]
fn a_large_pageable_upload_returns_without_waiting_for_earlier_tasks() {
    let (rt, dev, s) = setup();
    let mut flag = Addr::NULL;
    rt.malloc(Some(&mut flag), 8, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(flag, 8, 0, 8).unwrap();
    // The stream is blocked until the host releases it, after the copy call.
    rt.value_wait(flag, 1, wait_flag::EQ, s).unwrap();
    let data = pattern(BIG, 4);
    rt.memcpy_async(MemDst::Addr(dev), BIG, MemSrc::Host(&data), BIG, 1, s)
        .unwrap();
    drop(data); // the source was read at the call
    let mut state = 0;
    rt.stream_query(s, Some(&mut state)).unwrap();
    assert_eq!(
        state,
        stream_status::NOT_READY,
        "the copy waits behind the value wait"
    );
    rt.value_write(flag, 1, 0, RawStream::NULL).unwrap();
    rt.synchronize_stream(s).unwrap();
    let mut back = vec![0u8; BIG];
    rt.memcpy(MemDst::Host(&mut back), BIG, MemSrc::Addr(dev), BIG, 2)
        .unwrap();
    assert!(back == pattern(BIG, 4));
}

#[test]
fn pageable_memory_on_a_persistent_stream_is_rejected() {
    let (rt, dev, _) = setup();
    let mut s = RawStream::NULL;
    rt.create_stream_with_config(Some(&mut s), 0, stream_flag::PERSISTENT)
        .unwrap();
    let mut host = vec![0u8; 64];
    let e = rt
        .memcpy_async(MemDst::Host(&mut host), 64, MemSrc::Addr(dev), 64, 2, s)
        .unwrap_err();
    assert_eq!(e.code(), 107000, "{e}");
    let e = rt
        .memcpy_async(MemDst::Addr(dev), 64, MemSrc::Host(&host), 64, 1, s)
        .unwrap_err();
    assert_eq!(e.code(), 107000, "{e}");
    assert_eq!(
        rt.memcpy_async_within(&mut host, 0, 32, 8, 32, 0, s)
            .unwrap_err()
            .code(),
        107000
    );
    // Page-locked memory is fine there.
    let mut pinned = Addr::NULL;
    rt.malloc_host(Some(&mut pinned), 64).unwrap();
    rt.memcpy_async(MemDst::Addr(pinned), 64, MemSrc::Addr(dev), 64, 2, s)
        .unwrap();
}
