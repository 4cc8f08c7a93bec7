//! Asynchronous copies into host memory on a device shared through the device service: the
//! service copies into a buffer of its own in stream order, and the bytes land in the
//! process's memory before any later call of the process returns (a synchronize, a query, an
//! event's synchronize); a copy that faults or is discarded lands nothing.

mod common;

use std::sync::Arc;

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};
use common::on_new_service;

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// Device memory holding `data`.
fn device_with(rt: &Runtime, data: &[u8]) -> Addr {
    let mut dev = Addr::NULL;
    rt.malloc(Some(&mut dev), data.len(), malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memcpy(
        MemDst::Addr(dev),
        data.len(),
        MemSrc::Host(data),
        data.len(),
        memcpy_kind::HOST_TO_DEVICE,
    )
    .unwrap();
    dev
}

fn page_locked(rt: &Runtime, n: usize) -> Addr {
    let mut p = Addr::NULL;
    rt.malloc_host(Some(&mut p), n).unwrap();
    p
}

fn stream(rt: &Runtime) -> RawStream {
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    s
}

/// Queues a copy of `n` bytes from device memory into page-locked memory on `s`.
fn copy_back(rt: &Runtime, pinned: Addr, dev: Addr, n: usize, s: RawStream) {
    rt.memcpy_async(
        MemDst::Addr(pinned),
        n,
        MemSrc::Addr(dev),
        n,
        memcpy_kind::DEVICE_TO_HOST,
        s,
    )
    .unwrap();
}

#[test]
fn a_copy_into_page_locked_memory_is_there_when_its_stream_is_synchronized() {
    let rt = on_new_service("pinned");
    let data = pattern(4096, 1);
    let dev = device_with(&rt, &data);
    let pinned = page_locked(&rt, 4096);
    let s = stream(&rt);
    copy_back(&rt, pinned, dev, 4096, s);
    rt.synchronize_stream(s).unwrap();
    assert!(rt.host_buffer(pinned).unwrap().to_vec() == data);
}

#[test]
fn a_copy_queued_behind_a_wait_lands_only_once_the_wait_is_released() {
    let rt = on_new_service("behind-wait");
    let data = pattern(4096, 2);
    let dev = device_with(&rt, &data);
    let flag = device_with(&rt, &[0u8; 64]);
    let pinned = page_locked(&rt, 4096);
    let (s, writer) = (stream(&rt), stream(&rt));
    rt.value_wait(flag, 1, 0, s).unwrap();
    copy_back(&rt, pinned, dev, 4096, s);
    let mut status = 0;
    rt.stream_query(s, Some(&mut status)).unwrap();
    assert_eq!(status, 1, "the stream waits (ACL_STREAM_STATUS_NOT_READY)");
    rt.synchronize_stream(writer).unwrap();
    assert!(
        rt.host_buffer(pinned)
            .unwrap()
            .to_vec()
            .iter()
            .all(|&b| b == 0),
        "nothing lands before the copy runs"
    );
    rt.value_write(flag, 1, 0, writer).unwrap();
    rt.synchronize_stream(s).unwrap();
    assert!(rt.host_buffer(pinned).unwrap().to_vec() == data);
}

#[test]
fn an_event_synchronize_finds_the_copy_recorded_before_it_in_place() {
    let rt = on_new_service("event");
    let data = pattern(8192, 3);
    let dev = device_with(&rt, &data);
    let pinned = page_locked(&rt, 8192);
    let s = stream(&rt);
    let mut e = RawEvent::default();
    rt.create_event(Some(&mut e)).unwrap();
    copy_back(&rt, pinned, dev, 8192, s);
    rt.record_event(e, s).unwrap();
    rt.synchronize_event(e).unwrap();
    assert!(rt.host_buffer(pinned).unwrap().to_vec() == data);
}

#[test]
fn pageable_destinations_and_host_to_host_copies_arrive_in_stream_order() {
    let rt = on_new_service("pageable");
    let data = pattern(10_000, 4);
    let dev = device_with(&rt, &data);
    let s = stream(&rt);
    // Device to pageable memory: filled before the call returns.
    let mut out = vec![0u8; 10_000];
    rt.memcpy_async(
        MemDst::Host(&mut out),
        10_000,
        MemSrc::Addr(dev),
        10_000,
        memcpy_kind::DEVICE_TO_HOST,
        s,
    )
    .unwrap();
    assert!(out == data, "device to pageable");
    // Pageable to pageable, on the stream.
    let mut other = vec![0u8; 10_000];
    rt.memcpy_async(
        MemDst::Host(&mut other),
        10_000,
        MemSrc::Host(&out),
        10_000,
        memcpy_kind::HOST_TO_HOST,
        s,
    )
    .unwrap();
    assert!(other == data, "pageable to pageable");
    // Page-locked to page-locked, on the stream.
    let (a, b) = (page_locked(&rt, 10_000), page_locked(&rt, 10_000));
    rt.host_buffer(a).unwrap().write_at(0, &data);
    rt.memcpy_async(
        MemDst::Addr(b),
        10_000,
        MemSrc::Addr(a),
        10_000,
        memcpy_kind::HOST_TO_HOST,
        s,
    )
    .unwrap();
    rt.synchronize_stream(s).unwrap();
    assert!(rt.host_buffer(b).unwrap().to_vec() == data, "page-locked");
}

#[test]
fn a_copy_of_more_bytes_than_a_frame_holds_lands_whole_and_in_place() {
    let rt = on_new_service("large");
    let n = (64 << 20) + 4096 + 7;
    let data = pattern(n, 5);
    let dev = device_with(&rt, &data);
    // At an offset into the page-locked buffer: each part lands where it belongs.
    let pinned = page_locked(&rt, n + 100);
    let s = stream(&rt);
    copy_back(&rt, Addr(pinned.0 + 100), dev, n, s);
    rt.synchronize_device().unwrap();
    let got = rt.host_buffer(pinned).unwrap().to_vec();
    assert!(got[..100].iter().all(|&b| b == 0));
    assert!(got[100..] == data[..]);
}

#[test]
fn a_copy_discarded_by_an_abort_lands_nothing_and_later_copies_land() {
    let rt = on_new_service("abort");
    let data = pattern(4096, 6);
    let dev = device_with(&rt, &data);
    let flag = device_with(&rt, &[0u8; 64]);
    let pinned = page_locked(&rt, 4096);
    let s = stream(&rt);
    rt.value_wait(flag, 1, 0, s).unwrap();
    copy_back(&rt, pinned, dev, 4096, s);
    rt.stream_abort(s).unwrap();
    rt.synchronize_stream(s).unwrap();
    let buf = rt.host_buffer(pinned).unwrap();
    assert!(buf.to_vec().iter().all(|&b| b == 0), "a discarded copy");
    copy_back(&rt, pinned, dev, 4096, s);
    rt.synchronize_stream(s).unwrap();
    assert!(buf.to_vec() == data, "the next copy on the stream");
}

#[test]
fn a_copy_into_host_memory_on_a_captured_stream_is_refused_with_207000() {
    let rt = on_new_service("capture");
    let dev = device_with(&rt, &[7u8; 64]);
    let pinned = page_locked(&rt, 64);
    let s = stream(&rt);
    rt.mdl_ri_capture_begin(s, 0).unwrap();
    let e = rt
        .memcpy_async(
            MemDst::Addr(pinned),
            64,
            MemSrc::Addr(dev),
            64,
            memcpy_kind::DEVICE_TO_HOST,
            s,
        )
        .unwrap_err();
    assert_eq!(e.code(), 207000, "{e}");
    assert!(e.to_string().contains("bound to a model"), "{e}");
}

#[test]
fn a_copy_back_to_the_device_reads_the_bytes_a_queued_copy_is_still_to_bring_in_stream_order() {
    let rt = on_new_service("bounce");
    let data = pattern(4096, 7);
    let dev = device_with(&rt, &data);
    let other = device_with(&rt, &[0u8; 4096]);
    let flag = device_with(&rt, &[0u8; 64]);
    let pinned = page_locked(&rt, 8192);
    let (s, writer) = (stream(&rt), stream(&rt));
    // A bounce through page-locked memory on one stream, queued behind a wait: the copy back
    // reads what the first copy brings, not what the buffer held at its launch.
    rt.value_wait(flag, 1, 0, s).unwrap();
    copy_back(&rt, pinned, dev, 4096, s);
    rt.memcpy_async(
        MemDst::Addr(other),
        4000,
        MemSrc::Addr(Addr(pinned.0 + 96)),
        4000,
        memcpy_kind::HOST_TO_DEVICE,
        s,
    )
    .unwrap();
    // Bytes across the end of what the first copy brings: its part from the copy, the rest
    // as the buffer holds it (0xAB).
    rt.host_buffer(pinned)
        .unwrap()
        .write_at(4096, &[0xAB; 4096]);
    let straddle = device_with(&rt, &[0u8; 16]);
    rt.memcpy_async(
        MemDst::Addr(straddle),
        16,
        MemSrc::Addr(Addr(pinned.0 + 4090)),
        16,
        memcpy_kind::HOST_TO_DEVICE,
        s,
    )
    .unwrap();
    rt.value_write(flag, 1, 0, writer).unwrap();
    rt.synchronize_stream(s).unwrap();
    let mut back = vec![0u8; 4000];
    rt.memcpy(
        MemDst::Host(&mut back),
        4000,
        MemSrc::Addr(other),
        4000,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    assert!(back[..] == data[96..]);
    // And the page-locked buffer has what the first copy brought.
    assert!(rt.host_buffer(pinned).unwrap().to_vec()[..4096] == data[..]);
    let mut across = [0u8; 16];
    rt.memcpy(
        MemDst::Host(&mut across),
        16,
        MemSrc::Addr(straddle),
        16,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    assert_eq!(across[..6], data[4090..]);
    assert_eq!(across[6..], [0xAB; 10]);
}

#[test]
fn a_copy_back_from_bytes_an_aborted_copy_was_to_bring_reads_what_host_memory_held() {
    let rt = on_new_service("bounce-aborted");
    let (old, new) = (pattern(4096, 3), pattern(4096, 4));
    let dev = device_with(&rt, &new);
    let other = device_with(&rt, &[0xEE; 4096]);
    let (held, reader_flag) = (device_with(&rt, &[0u8; 64]), device_with(&rt, &[0u8; 64]));
    let pinned = page_locked(&rt, 4096);
    rt.host_buffer(pinned).unwrap().write_at(0, &old);
    let (filler, reader, writer) = (stream(&rt), stream(&rt), stream(&rt));
    rt.value_wait(held, 1, 0, filler).unwrap();
    copy_back(&rt, pinned, dev, 4096, filler);
    rt.value_wait(reader_flag, 1, 0, reader).unwrap();
    rt.memcpy_async(
        MemDst::Addr(other),
        4096,
        MemSrc::Addr(pinned),
        4096,
        memcpy_kind::HOST_TO_DEVICE,
        reader,
    )
    .unwrap();
    // The filling copy never runs: the device reads what the host's memory holds.
    rt.stream_abort(filler).unwrap();
    rt.value_write(reader_flag, 1, 0, writer).unwrap();
    rt.synchronize_stream(reader).unwrap();
    let mut got = vec![0u8; 4096];
    rt.memcpy(
        MemDst::Host(&mut got),
        4096,
        MemSrc::Addr(other),
        4096,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    assert!(got == old, "the device read other bytes than the host's");
    assert!(rt.host_buffer(pinned).unwrap().to_vec() == old);
}

#[test]
fn a_bounce_of_more_bytes_than_a_frame_holds_arrives_whole() {
    let rt = on_new_service("bounce-large");
    let n = (64 << 20) + 4096;
    let data = pattern(n, 5);
    let dev = device_with(&rt, &data);
    let other = device_with(&rt, &vec![0u8; n]);
    let flag = device_with(&rt, &[0u8; 64]);
    let pinned = page_locked(&rt, n);
    let (s, writer) = (stream(&rt), stream(&rt));
    rt.value_wait(flag, 1, 0, s).unwrap();
    copy_back(&rt, pinned, dev, n, s);
    rt.memcpy_async(
        MemDst::Addr(other),
        n,
        MemSrc::Addr(pinned),
        n,
        memcpy_kind::HOST_TO_DEVICE,
        s,
    )
    .unwrap();
    rt.value_write(flag, 1, 0, writer).unwrap();
    rt.synchronize_device().unwrap();
    let mut got = vec![0u8; n];
    rt.memcpy(
        MemDst::Host(&mut got),
        n,
        MemSrc::Addr(other),
        n,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    assert!(got == data);
}

#[test]
fn a_bounce_waiting_for_room_in_a_full_queue_holds_up_no_other_thread_s_call() {
    let rt = Arc::new(on_new_service("bounce-full-queue"));
    let data = pattern(4096, 11);
    let dev = device_with(&rt, &data);
    let other = device_with(&rt, &[0u8; 4096]);
    let flag = device_with(&rt, &[0u8; 64]);
    let pinned = page_locked(&rt, 4096);
    let (s, writer, idle) = (stream(&rt), stream(&rt), stream(&rt));
    let cap = rt.chip().limits.max_tasks_per_stream() as usize;
    let wait_slots = rt.chip().limits.value_wait_slots.max(1) as usize;
    rt.value_wait(flag, 1, 0, s).unwrap();
    copy_back(&rt, pinned, dev, 4096, s);
    for _ in 0..cap - wait_slots - 1 {
        rt.memset_async(Addr(other.0 + 2048), 8, 0, 8, s).unwrap();
    }
    // Another thread makes a call, then releases the wait that holds the queue.
    let rt2 = rt.clone();
    let helper = std::thread::spawn(move || {
        rt2.set_device(0).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        rt2.synchronize_stream(idle).unwrap();
        rt2.value_write(flag, 1, 0, writer).unwrap();
    });
    let (tx, rx) = std::sync::mpsc::channel();
    let rt3 = rt.clone();
    std::thread::spawn(move || {
        rt3.set_device(0).unwrap();
        let r = rt3.memcpy_async(
            MemDst::Addr(other),
            2048,
            MemSrc::Addr(pinned),
            2048,
            memcpy_kind::HOST_TO_DEVICE,
            s,
        );
        let _ = tx.send(r.map_err(|e| e.code()));
    });
    let launched = rx.recv_timeout(std::time::Duration::from_secs(30));
    assert_eq!(launched, Ok(Ok(())), "the bounce waited for room and went");
    helper.join().unwrap();
    rt.synchronize_device().unwrap();
    let mut got = vec![0u8; 2048];
    rt.memcpy(
        MemDst::Host(&mut got),
        2048,
        MemSrc::Addr(other),
        2048,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    assert!(got[..] == data[..2048]);
}

#[test]
fn copies_into_one_buffer_from_two_streams_land_in_the_order_the_device_ran_them() {
    let rt = on_new_service("order");
    let (early, late) = (pattern(4096, 8), pattern(4096, 9));
    let (held_src, free_src) = (device_with(&rt, &late), device_with(&rt, &early));
    let flag = device_with(&rt, &[0u8; 64]);
    let pinned = page_locked(&rt, 4096);
    let (held, free) = (stream(&rt), stream(&rt));
    // Submitted first, run last: it waits for the flag the other stream writes after its copy.
    rt.value_wait(flag, 1, 0, held).unwrap();
    copy_back(&rt, pinned, held_src, 4096, held);
    copy_back(&rt, pinned, free_src, 4096, free);
    rt.value_write(flag, 1, 0, free).unwrap();
    rt.synchronize_device().unwrap();
    assert!(rt.host_buffer(pinned).unwrap().to_vec() == late);
}

#[test]
fn eight_threads_each_find_their_copy_in_place_when_their_synchronize_returns() {
    let rt = Arc::new(on_new_service("threads"));
    let size = 1 << 20;
    let threads: Vec<_> = (0..8u8)
        .map(|t| {
            let rt = rt.clone();
            std::thread::spawn(move || {
                rt.set_device(0).unwrap();
                let s = stream(&rt);
                let pinned = page_locked(&rt, size);
                let staged_from = device_with(&rt, &vec![0u8; size]);
                let mut wrong = Vec::new();
                for round in 0..8u8 {
                    let data = pattern(size, t * 16 + round);
                    let dev = device_with(&rt, &data);
                    copy_back(&rt, pinned, dev, size, s);
                    rt.synchronize_stream(s).unwrap();
                    if rt.host_buffer(pinned).unwrap().to_vec() != data {
                        wrong.push(format!("thread {t} round {round}: page-locked"));
                    }
                    // Landed, so a copy from it is not refused.
                    let back = rt.memcpy_async(
                        MemDst::Addr(staged_from),
                        size,
                        MemSrc::Addr(pinned),
                        size,
                        memcpy_kind::HOST_TO_DEVICE,
                        s,
                    );
                    if let Err(e) = back {
                        wrong.push(format!("thread {t} round {round}: {e}"));
                    }
                    // A pageable destination: filled when the call returns.
                    let mut out = vec![0u8; size];
                    rt.memcpy_async(
                        MemDst::Host(&mut out),
                        size,
                        MemSrc::Addr(dev),
                        size,
                        memcpy_kind::DEVICE_TO_HOST,
                        s,
                    )
                    .unwrap();
                    if out != data {
                        wrong.push(format!("thread {t} round {round}: pageable"));
                    }
                    rt.synchronize_stream(s).unwrap();
                    rt.free(dev).unwrap();
                }
                wrong
            })
        })
        .collect();
    let wrong: Vec<String> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}
