//! Kernels at the safe level (`Stream::launch_with`): a body reaches only the regions it was
//! launched with, each access checked against its region.

use std::sync::Arc;

use ascend_rt::safe::*;
use ascend_rt::Runtime;

fn device() -> Device {
    let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
    Device::open(&rt, 0).unwrap()
}

#[test]
fn a_store_past_its_region_faults_the_stream_naming_the_kernel_and_the_offset() {
    let dev = device();
    let buf = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
    let s = dev.stream().unwrap();
    s.launch_with("past_the_end", 1, &[buf.at(32).unwrap()], |b, gm| {
        b.store_u64(gm[0], 32, 1); // 32 bytes in: the region has 32
    })
    .unwrap();
    let e = s.synchronize().unwrap_err();
    assert!(
        e.to_string()
            .contains("kernel past_the_end: a store of 8 bytes at offset 32 of a 32-byte region"),
        "{e}"
    );
}

#[test]
fn a_kernels_regions_are_its_pointers_to_their_buffers_ends_in_order() {
    let dev = device();
    let (a, b) = (
        dev.malloc(128, MallocPolicy::NormalOnly).unwrap(),
        dev.malloc(64, MallocPolicy::NormalOnly).unwrap(),
    );
    a.fill_sync(3).unwrap();
    let s = dev.stream().unwrap();
    // Copies the byte 64 bytes into `a` to `b`, and says the regions' lengths.
    s.launch_with("lengths", 1, &[a.at(64).unwrap(), b.ptr()], |blk, gm| {
        let v = blk.load_u8(gm[0], 0);
        blk.store_u64(gm[1], 0, v as u64);
        blk.store_u64(gm[1], 8, gm[0].len() as u64);
        blk.store_u64(gm[1], 16, gm[1].at(100).len() as u64);
        blk.dcci(gm[1], 0);
    })
    .unwrap();
    s.synchronize().unwrap();
    assert_eq!(b.read_u64(0).unwrap(), 3);
    assert_eq!(b.read_u64(8).unwrap(), 64);
    assert_eq!(b.read_u64(16).unwrap(), 0, "past the end: an empty region");
}
