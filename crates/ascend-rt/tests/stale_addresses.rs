//! Device addresses that are not live: freed, past the end of an allocation, or never
//! allocated inside the device window. Every copy and fill call rejects them with
//! `ACL_ERROR_RT_PARAM_INVALID` (107000), says why, and touches no byte; the runtime classifies
//! them as stale device addresses, never as host memory.

use ascend_rt::raw_types::*;
use ascend_rt::{AddressClass, MemDst, MemSrc, Runtime};

struct Fixture {
    rt: Runtime,
    live: Addr,
    freed: Addr,
    past_end: Addr,
    never: Addr,
    stream: RawStream,
}

const LEN: usize = 256;

fn fixture() -> Fixture {
    let rt = Runtime::sim("Ascend910B1").unwrap();
    rt.set_device(0).unwrap();
    let (mut live, mut freed) = (Addr::NULL, Addr::NULL);
    rt.malloc(Some(&mut live), LEN, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.malloc(Some(&mut freed), LEN, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.free(freed).unwrap();
    // The allocation holds LEN rounded up plus the chip's padding; a few KiB on is past it.
    let past_end = Addr(live.0 + 64 * 1024);
    // Far into the device window, where nothing was ever allocated.
    let never = Addr(live.0 + (1 << 36));
    let mut stream = RawStream::NULL;
    rt.create_stream(Some(&mut stream)).unwrap();
    Fixture {
        rt,
        live,
        freed,
        past_end,
        never,
        stream,
    }
}

fn stale(f: &Fixture) -> [(&'static str, Addr); 3] {
    [
        ("freed", f.freed),
        ("past the end", f.past_end),
        ("never allocated", f.never),
    ]
}

const KINDS: [u32; 6] = [0, 1, 2, 3, 4, 5];

#[track_caller]
fn assert_rejected(r: ascend_rt::AclResult<()>, what: &str) {
    match r {
        Ok(()) => panic!("{what}: succeeded"),
        Err(e) => {
            assert_eq!(e.code(), 107000, "{what}: {e}");
            assert!(
                e.to_string().contains("no live allocation"),
                "{what}: the message says why: {e}"
            );
        }
    }
}

#[test]
fn stale_device_addresses_are_classified_as_such_not_as_host_memory() {
    let f = fixture();
    assert_eq!(f.rt.classify_address(f.live), AddressClass::Device);
    for (what, a) in stale(&f) {
        assert_eq!(
            f.rt.classify_address(a),
            AddressClass::StaleDevice,
            "{what}"
        );
    }
    let host = [0u8; 4];
    assert_eq!(
        f.rt.classify_address(Addr(host.as_ptr() as u64)),
        AddressClass::Host
    );
    assert_eq!(f.rt.classify_address(Addr::NULL), AddressClass::Null);
}

#[test]
fn sync_copies_with_a_stale_device_end_fail_with_107000_for_every_kind() {
    let f = fixture();
    for (what, a) in stale(&f) {
        for kind in KINDS {
            let mut host = [0xAB_u8; 64];
            let r =
                f.rt.memcpy(MemDst::Host(&mut host), 64, MemSrc::Addr(a), 64, kind);
            assert_rejected(r, &format!("{what} source, kind {kind}"));
            assert_eq!(host, [0xAB; 64], "a rejected copy writes nothing");
            let r =
                f.rt.memcpy(MemDst::Addr(a), 64, MemSrc::Host(&host), 64, kind);
            assert_rejected(r, &format!("{what} destination, kind {kind}"));
            let r =
                f.rt.memcpy(MemDst::Addr(f.live), 64, MemSrc::Addr(a), 64, kind);
            assert_rejected(r, &format!("{what} device source, kind {kind}"));
            let r =
                f.rt.memcpy(MemDst::Addr(a), 64, MemSrc::Addr(f.live), 64, kind);
            assert_rejected(r, &format!("{what} device destination, kind {kind}"));
        }
    }
}

#[test]
fn async_copies_and_fills_with_a_stale_device_end_fail_with_107000() {
    let f = fixture();
    for (what, a) in stale(&f) {
        for kind in KINDS {
            let mut host = [0xCD_u8; 64];
            let s = f.stream;
            let r =
                f.rt.memcpy_async(MemDst::Host(&mut host), 64, MemSrc::Addr(a), 64, kind, s);
            assert_rejected(r, &format!("async {what} source, kind {kind}"));
            assert_eq!(host, [0xCD; 64]);
            let r =
                f.rt.memcpy_async(MemDst::Addr(a), 64, MemSrc::Host(&host), 64, kind, s);
            assert_rejected(r, &format!("async {what} destination, kind {kind}"));
            let r =
                f.rt.memcpy_async(MemDst::Addr(a), 64, MemSrc::Addr(f.live), 64, kind, s);
            assert_rejected(r, &format!("async {what} device destination, kind {kind}"));
        }
        assert_rejected(f.rt.memset(a, 64, 0, 64), &format!("memset {what}"));
        assert_rejected(
            f.rt.memset_async(a, 64, 0, 64, f.stream),
            &format!("memsetAsync {what}"),
        );
    }
    // Nothing was enqueued by the rejected calls: the stream is idle and synchronises.
    f.rt.synchronize_stream(f.stream).unwrap();
}

#[test]
fn a_freed_device_address_error_says_when_it_was_freed() {
    let f = fixture();
    let mut host = [0u8; 8];
    let e =
        f.rt.memcpy(MemDst::Host(&mut host), 8, MemSrc::Addr(f.freed), 8, 2)
            .unwrap_err();
    assert!(e.to_string().contains("freed"), "{e}");
    let e =
        f.rt.memcpy(MemDst::Host(&mut host), 8, MemSrc::Addr(f.past_end), 8, 2)
            .unwrap_err();
    assert!(e.to_string().contains("not allocated"), "{e}");
}

#[test]
fn a_copy_running_past_the_end_of_a_live_allocation_is_rejected_before_any_byte_moves() {
    let f = fixture();
    let mut host = vec![0x11_u8; 1 << 20];
    let e =
        f.rt.memcpy(
            MemDst::Host(&mut host),
            1 << 20,
            MemSrc::Addr(f.live),
            1 << 20,
            2,
        )
        .unwrap_err();
    assert_eq!(e.code(), 107000, "{e}");
    assert!(host.iter().all(|&b| b == 0x11));
}
