//! Physical memory, reserved ranges, mappings and shareable handles in one process: the
//! runtime's checks in its order (docs/validation/physical-memory.md), and what a mapping
//! reaches: two mappings of one allocation are one memory to copies, value waits, kernels and
//! CMOs. Across processes: tests/shared_device_physical.rs.

use ascend_rt::raw_types::*;
use ascend_rt::{AclResult, Kernel, KernelOps, MemDst, MemSrc, MsgCode, Runtime};

const MIB2: usize = 2 << 20;

fn codes(r: AclResult<()>) -> (i32, Option<MsgCode>) {
    let e = r.unwrap_err();
    (e.code(), e.msg_code)
}

fn device_prop(attr: u32) -> PhysicalMemProp {
    PhysicalMemProp {
        mem_attr: attr,
        location: MemLocation {
            id: 0,
            kind: mem_location::DEVICE,
        },
        ..Default::default()
    }
}

/// `ACL_HBM_MEM_NORMAL`.
const HBM_NORMAL: u32 = 5;

/// A runtime on device 0 with 2 MiB of physical memory mapped at a reserved range.
fn mapped(soc: &str) -> (Runtime, RawPhysical, Addr) {
    let rt = Runtime::sim(soc).unwrap();
    rt.set_device(0).unwrap();
    let (h, va) = map_new(&rt);
    (rt, h, va)
}

fn map_new(rt: &Runtime) -> (RawPhysical, Addr) {
    let mut h = RawPhysical::NULL;
    rt.malloc_physical(Some(&mut h), MIB2, Some(&device_prop(HBM_NORMAL)), 0)
        .unwrap();
    let va = reserve(rt);
    rt.map_mem(va, MIB2, 0, h, 0).unwrap();
    (h, va)
}

fn reserve(rt: &Runtime) -> Addr {
    let mut va = Addr::NULL;
    rt.reserve_mem_address(Some(&mut va), MIB2, 0, Addr::NULL, 0)
        .unwrap();
    va
}

fn read_u64(rt: &Runtime, at: Addr) -> u64 {
    let mut b = [0u8; 8];
    rt.memcpy(
        MemDst::Host(&mut b),
        8,
        MemSrc::Addr(at),
        8,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    u64::from_le_bytes(b)
}

#[test]
fn the_granularity_is_2_mib_for_device_pages_and_1_gib_for_giant_ones_in_the_runtimes_order() {
    let rt = Runtime::sim("Ascend910B1").unwrap();
    let mut g = 0usize;
    assert_eq!(
        codes(rt.mem_get_allocation_granularity(None, 0, Some(&mut g))),
        (100000, Some(MsgCode::EH0008))
    );
    let p = device_prop(HBM_NORMAL);
    assert_eq!(
        codes(rt.mem_get_allocation_granularity(Some(&p), 0, None)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(
        codes(rt.mem_get_allocation_granularity(Some(&device_prop(3)), 0, Some(&mut g))),
        (100000, Some(MsgCode::EH0007)),
        "a DDR attribute on a device"
    );
    assert_eq!(
        codes(rt.mem_get_allocation_granularity(Some(&device_prop(9)), 0, Some(&mut g))),
        (100000, Some(MsgCode::EH0009)),
        "an attribute the runtime does not take"
    );
    let mut far = device_prop(HBM_NORMAL);
    far.location.id = 99;
    assert_eq!(
        codes(rt.mem_get_allocation_granularity(Some(&far), 0, Some(&mut g))),
        (107001, Some(MsgCode::EE1003))
    );
    rt.mem_get_allocation_granularity(Some(&p), 0, Some(&mut g))
        .unwrap();
    assert_eq!(g, MIB2);
    rt.mem_get_allocation_granularity(Some(&device_prop(10)), 1, Some(&mut g))
        .unwrap();
    assert_eq!(g, 1 << 30, "HBM 1 GiB pages, recommended = minimum");
    assert_eq!(
        rt.mem_get_allocation_granularity(Some(&p), 0xFFFF, Some(&mut g))
            .unwrap_err()
            .code(),
        107000,
        "an undefined option is the driver's invalid value"
    );
}

#[test]
fn the_physical_allocation_checks_come_in_the_runtimes_order_with_its_codes() {
    let rt = Runtime::sim("Ascend910B1").unwrap();
    let mut h = RawPhysical::NULL;
    let p = device_prop(HBM_NORMAL);
    let c = |h: Option<&mut RawPhysical>, size, p: Option<&PhysicalMemProp>, flags| {
        codes(rt.malloc_physical(h, size, p, flags))
    };
    assert_eq!(c(None, 0, None, 1), (100000, Some(MsgCode::EH0008)));
    assert_eq!(c(Some(&mut h), 0, None, 1), (100000, Some(MsgCode::EH0008)));
    assert_eq!(
        c(Some(&mut h), 0, Some(&p), 1),
        (100000, Some(MsgCode::EH0007))
    );
    assert_eq!(
        c(Some(&mut h), MIB2, Some(&p), 1),
        (100000, Some(MsgCode::EH0009))
    );
    let bad_type = PhysicalMemProp {
        handle_type: 2,
        allocation_type: 7,
        ..p
    };
    assert_eq!(
        c(Some(&mut h), MIB2, Some(&bad_type), 0),
        (100000, Some(MsgCode::EH0007))
    );
    let managed = PhysicalMemProp {
        location: MemLocation {
            id: 0,
            kind: mem_location::MANAGED,
        },
        ..p
    };
    assert_eq!(
        c(Some(&mut h), MIB2, Some(&managed), 0),
        (100000, Some(MsgCode::EH0009))
    );
    assert_eq!(
        c(Some(&mut h), MIB2, Some(&device_prop(2)), 0),
        (100000, Some(MsgCode::EH0007))
    );
    assert_eq!(
        c(Some(&mut h), 4096, Some(&p), 0).0,
        107000,
        "the driver allocates whole 2 MiB pages"
    );
    assert_eq!(h, RawPhysical::NULL, "nothing written on a failure");
    rt.malloc_physical(Some(&mut h), MIB2, Some(&p), 0).unwrap();
    assert_ne!(h, RawPhysical::NULL);
    // No context was needed; 1 GiB pages are A2's, not the 310P's.
    let p310 = Runtime::sim("Ascend310P3").unwrap();
    let e = p310
        .malloc_physical(Some(&mut h), 1 << 30, Some(&device_prop(10)), 0)
        .unwrap_err();
    assert_eq!(e.code(), 207000);
    rt.free_physical(h).unwrap();
    assert_eq!(
        codes(rt.free_physical(RawPhysical::NULL)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(
        rt.free_physical(h).unwrap_err().code(),
        107017,
        "freed twice"
    );
}

#[test]
fn reserve_map_and_their_inverses_check_in_the_runtimes_order_then_the_drivers_rules() {
    let rt = Runtime::sim("Ascend910B1").unwrap();
    rt.set_device(0).unwrap();
    let mut va = Addr::NULL;
    assert_eq!(
        codes(rt.reserve_mem_address(None, 0, 0, Addr::NULL, 9)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(
        codes(rt.reserve_mem_address(Some(&mut va), 0, 0, Addr::NULL, 9)),
        (100000, Some(MsgCode::EH0007))
    );
    assert_eq!(
        codes(rt.reserve_mem_address(Some(&mut va), MIB2, 0, Addr::NULL, 2)),
        (100000, Some(MsgCode::EH0007))
    );
    assert_eq!(
        codes(rt.reserve_mem_address(Some(&mut va), MIB2, 4096, Addr::NULL, 0)).0,
        107000
    );
    let range = reserve(&rt);
    assert_eq!(range.0 % MIB2 as u64, 0);
    let mut h = RawPhysical::NULL;
    rt.malloc_physical(Some(&mut h), MIB2, Some(&device_prop(HBM_NORMAL)), 0)
        .unwrap();
    assert_eq!(
        codes(rt.map_mem(Addr::NULL, 0, 0, RawPhysical::NULL, 1)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(
        codes(rt.map_mem(range, 0, 0, RawPhysical::NULL, 1)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(
        codes(rt.map_mem(range, 0, 0, h, 1)),
        (100000, Some(MsgCode::EH0007))
    );
    assert_eq!(
        codes(rt.map_mem(range, MIB2, 0, h, 1)),
        (100000, Some(MsgCode::EH0007))
    );
    assert_eq!(
        rt.map_mem(range, MIB2, 0, RawPhysical(0x5F_0000_0999), 0)
            .unwrap_err()
            .code(),
        107017
    );
    for (at, size, offset, why) in [
        (Addr(range.0 + 4096), MIB2, 0, "not page aligned"),
        (range, 4096, 0, "not the allocation's size"),
        (range, MIB2, 4096, "offset not 0"),
        (Addr(range.0 + MIB2 as u64), MIB2, 0, "past the range"),
    ] {
        assert_eq!(
            rt.map_mem(at, size, offset, h, 0).unwrap_err().code(),
            107000,
            "{why}"
        );
    }
    // Before the map, the range is no memory of the program's.
    let mut b = [0u8; 8];
    assert_eq!(
        rt.memcpy(
            MemDst::Host(&mut b),
            8,
            MemSrc::Addr(range),
            8,
            memcpy_kind::DEVICE_TO_HOST
        )
        .unwrap_err()
        .code(),
        107000
    );
    rt.map_mem(range, MIB2, 0, h, 0).unwrap();
    assert_eq!(
        rt.map_mem(range, MIB2, 0, h, 0).unwrap_err().code(),
        107000,
        "mapped twice"
    );
    assert_eq!(
        rt.release_mem_address(range).unwrap_err().code(),
        107000,
        "a range holding a mapping"
    );
    assert_eq!(
        codes(rt.unmap_mem(Addr::NULL)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(rt.unmap_mem(Addr(range.0 + 8)).unwrap_err().code(), 107000);
    rt.unmap_mem(range).unwrap();
    assert_eq!(
        rt.unmap_mem(range).unwrap_err().code(),
        107000,
        "unmapped twice"
    );
    assert_eq!(
        codes(rt.release_mem_address(Addr::NULL)),
        (100000, Some(MsgCode::EH0008))
    );
    rt.release_mem_address(range).unwrap();
    assert_eq!(rt.release_mem_address(range).unwrap_err().code(), 107000);
    rt.free_physical(h).unwrap();
}

#[test]
fn two_mappings_of_one_allocation_are_one_memory_to_copies_waits_and_kernels() {
    let (rt, h, a) = mapped("Ascend910B1");
    let b = reserve(&rt);
    rt.map_mem(b, MIB2, 0, h, 0).unwrap();
    assert_ne!(a, b);
    // A copy in through one mapping is read through the other.
    rt.memcpy(
        MemDst::Addr(Addr(a.0 + 64)),
        8,
        MemSrc::Host(&77u64.to_le_bytes()),
        8,
        memcpy_kind::HOST_TO_DEVICE,
    )
    .unwrap();
    assert_eq!(read_u64(&rt, Addr(b.0 + 64)), 77);
    // A stream waiting on one mapping is released by a kernel's store through the other.
    let (mut s1, mut s2) = (RawStream::NULL, RawStream::NULL);
    rt.create_stream(Some(&mut s1)).unwrap();
    rt.create_stream(Some(&mut s2)).unwrap();
    rt.memset(a, 16, 0, 16).unwrap();
    rt.value_wait(a, 5, wait_flag::EQ, s1).unwrap();
    let flag = b.0;
    let k = Kernel::new("store_flag", move |ctx: &mut dyn KernelOps| {
        ctx.store(flag, 8, 5);
        ctx.dcci(flag, false, 0);
    });
    rt.launch_kernel(k, 1, s2).unwrap();
    rt.synchronize_stream(s2).unwrap();
    rt.synchronize_stream(s1).unwrap();
    assert_eq!(read_u64(&rt, a), 5);
    // A value write through the first mapping, read by a kernel through the second.
    rt.value_write(Addr(a.0 + 8), 0xAB, 0, s1).unwrap();
    rt.synchronize_stream(s1).unwrap();
    let out = a.0 + 4096;
    let src = b.0 + 8;
    let k = Kernel::new("copy_word", move |ctx: &mut dyn KernelOps| {
        let v = ctx.load(src, 8);
        ctx.store(out, 8, v + 1);
        ctx.dcci(out, false, 0);
    });
    rt.launch_kernel(k, 1, s2).unwrap();
    rt.synchronize_stream(s2).unwrap();
    assert_eq!(read_u64(&rt, Addr(b.0 + 4096)), 0xAC);
    rt.unmap_mem(b).unwrap();
    rt.unmap_mem(a).unwrap();
    rt.free_physical(h).unwrap();
}

#[test]
fn physical_memory_freed_while_mapped_lives_until_its_last_unmap() {
    let (rt, h, a) = mapped("Ascend910B1");
    rt.memcpy(
        MemDst::Addr(a),
        8,
        MemSrc::Host(&9u64.to_le_bytes()),
        8,
        memcpy_kind::HOST_TO_DEVICE,
    )
    .unwrap();
    rt.free_physical(h).unwrap();
    assert_eq!(read_u64(&rt, a), 9, "still mapped, still there");
    assert_eq!(
        rt.map_mem(reserve(&rt), MIB2, 0, h, 0).unwrap_err().code(),
        107017
    );
    rt.unmap_mem(a).unwrap();
    // Its memory went with the unmap: a new allocation is free to reuse it.
    let (h2, a2) = map_new(&rt);
    rt.unmap_mem(a2).unwrap();
    rt.free_physical(h2).unwrap();
}

#[test]
fn access_rights_are_set_once_per_location_and_read_back() {
    let (rt, _h, a) = mapped("Ascend910B1");
    let rw = MemAccessDesc {
        flags: 0x3,
        location: MemLocation {
            id: 0,
            kind: mem_location::DEVICE,
        },
    };
    assert_eq!(
        codes(rt.mem_set_access(Addr::NULL, MIB2, None)),
        (107000, Some(MsgCode::EE1004))
    );
    assert_eq!(
        codes(rt.mem_set_access(a, MIB2, None)),
        (107000, Some(MsgCode::EE1004))
    );
    assert_eq!(
        rt.mem_set_access(a, 4096, Some(&[rw])).unwrap_err().code(),
        107000
    );
    rt.mem_set_access(a, MIB2, Some(&[rw])).unwrap();
    let read_only = MemAccessDesc { flags: 0x1, ..rw };
    assert_eq!(
        rt.mem_set_access(a, MIB2, Some(&[read_only]))
            .unwrap_err()
            .code(),
        507899,
        "the driver is busy: another right for the same location"
    );
    let host = MemAccessDesc {
        flags: 0x1,
        location: MemLocation {
            id: 0,
            kind: mem_location::HOST,
        },
    };
    rt.mem_set_access(a, MIB2, Some(&[host])).unwrap();
    let mut flag = 0u64;
    rt.mem_get_access(a, Some(&host.location), Some(&mut flag))
        .unwrap();
    assert_eq!(flag, 1);
    let dev1 = MemLocation {
        id: 1,
        kind: mem_location::DEVICE,
    };
    rt.mem_get_access(a, Some(&dev1), Some(&mut flag)).unwrap();
    assert_eq!(flag, 0x7FFF_FFFF, "never set");
    assert_eq!(
        codes(rt.mem_get_access(a, None, Some(&mut flag))),
        (100000, Some(MsgCode::EH0008))
    );
}

#[test]
fn export_and_import_check_in_the_runtimes_order_and_the_exporter_cannot_import() {
    let (rt, h, _a) = mapped("Ascend910B1");
    let mut sh = 0u64;
    assert_eq!(
        codes(rt.mem_export_to_shareable_handle(RawPhysical::NULL, 1, 9, None)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(
        codes(rt.mem_export_to_shareable_handle(h, 1, 9, None)),
        (100000, Some(MsgCode::EH0007))
    );
    assert_eq!(
        codes(rt.mem_export_to_shareable_handle(h, 0, 9, None)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(
        codes(rt.mem_export_to_shareable_handle(h, 0, 2, Some(&mut sh))),
        (107000, Some(MsgCode::EE1003))
    );
    rt.mem_export_to_shareable_handle(h, 0, 0, Some(&mut sh))
        .unwrap();
    assert_ne!(sh, 0);
    assert_eq!(
        rt.mem_export_to_shareable_handle(h, 0, 0, Some(&mut sh))
            .unwrap_err()
            .code(),
        107000,
        "exported twice"
    );
    assert_eq!(
        codes(rt.mem_set_pid_to_shareable_handle(sh, None, 1)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(
        codes(rt.mem_set_pid_to_shareable_handle(sh, Some(&[1]), 0)),
        (100000, Some(MsgCode::EH0007))
    );
    assert_eq!(
        rt.mem_set_pid_to_shareable_handle(sh + 1, Some(&[1]), 1)
            .unwrap_err()
            .code(),
        107000,
        "an unknown handle"
    );
    rt.mem_set_pid_to_shareable_handle(sh, Some(&[4242]), 1)
        .unwrap();
    let mut got = RawPhysical::NULL;
    assert_eq!(
        codes(rt.mem_import_from_shareable_handle(sh, 0, None)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(
        codes(rt.mem_import_from_shareable_handle(sh, 64, Some(&mut got))),
        (107001, Some(MsgCode::EE1003))
    );
    assert_eq!(
        rt.mem_import_from_shareable_handle(sh + 1, 0, Some(&mut got))
            .unwrap_err()
            .code(),
        107000,
        "an unknown handle"
    );
    assert_eq!(
        rt.mem_import_from_shareable_handle(sh, 0, Some(&mut got))
            .unwrap_err()
            .code(),
        107000,
        "the exporter imports its own"
    );
    // A handle exported without a whitelist has no list to set.
    let (h2, _b) = map_new(&rt);
    let mut open = 0u64;
    rt.mem_export_to_shareable_handle(h2, 0, 1, Some(&mut open))
        .unwrap();
    assert_eq!(
        rt.mem_set_pid_to_shareable_handle(open, Some(&[1]), 1)
            .unwrap_err()
            .code(),
        207006
    );
}

#[test]
fn an_import_needs_a_context_after_the_handle_is_known() {
    let (rt, h, _a) = mapped("Ascend910B1");
    let mut sh = 0u64;
    rt.mem_export_to_shareable_handle(h, 0, 1, Some(&mut sh))
        .unwrap();
    let other = std::thread::spawn(move || {
        let mut got = RawPhysical::NULL;
        let unknown = rt
            .mem_import_from_shareable_handle(sh ^ 0xFFFF, 0, Some(&mut got))
            .unwrap_err()
            .code();
        let known = rt
            .mem_import_from_shareable_handle(sh, 0, Some(&mut got))
            .unwrap_err()
            .code();
        (unknown, known)
    })
    .join()
    .unwrap();
    assert_eq!(other, (107000, 107002));
}

#[test]
fn the_v2_forms_write_8_bytes_or_a_fabric_handle_only_on_a3() {
    let (rt, h, _a) = mapped("Ascend910B1");
    let mut out = [0u8; 128];
    assert_eq!(
        codes(rt.mem_export_to_shareable_handle_v2(RawPhysical::NULL, 9, 9, None)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(
        codes(rt.mem_export_to_shareable_handle_v2(h, 9, 9, Some(&mut out))),
        (107000, Some(MsgCode::EE1003)),
        "share type first"
    );
    assert_eq!(
        codes(rt.mem_export_to_shareable_handle_v2(h, 9, 1, Some(&mut out))),
        (107000, Some(MsgCode::EE1003)),
        "then flags"
    );
    let e = rt
        .mem_export_to_shareable_handle_v2(h, 1, mem_share::FABRIC, Some(&mut out))
        .unwrap_err();
    assert_eq!(e.code(), 207000, "a fabric handle is A3's: {e}");
    rt.mem_export_to_shareable_handle_v2(h, 1, mem_share::DEFAULT, Some(&mut out[..8]))
        .unwrap();
    assert_ne!(u64::from_le_bytes(out[..8].try_into().unwrap()), 0);

    let (a3, h3, _b) = mapped("Ascend910_9391");
    let mut fabric = [0u8; 128];
    a3.mem_export_to_shareable_handle_v2(h3, 1, mem_share::FABRIC, Some(&mut fabric))
        .unwrap();
    let mut got = RawPhysical::NULL;
    assert_eq!(
        codes(a3.mem_import_from_shareable_handle_v2(Some(&fabric), 2, 1, Some(&mut got))),
        (100000, Some(MsgCode::EH0009)),
        "flags are reserved"
    );
    assert_eq!(
        codes(a3.mem_import_from_shareable_handle_v2(Some(&fabric), 7, 0, Some(&mut got))),
        (107000, Some(MsgCode::EE1003))
    );
    let mut garbage = fabric;
    garbage[0] ^= 0xFF;
    assert_eq!(
        a3.mem_import_from_shareable_handle_v2(Some(&garbage), 2, 0, Some(&mut got))
            .unwrap_err()
            .code(),
        107000
    );
    assert_eq!(
        a3.mem_import_from_shareable_handle_v2(Some(&fabric), 2, 0, Some(&mut got))
            .unwrap_err()
            .code(),
        107000,
        "the exporter imports its own"
    );
}

#[test]
fn a_range_above_512_mib_starts_at_a_1_gib_page_where_1_gib_pages_map() {
    let rt = Runtime::sim("Ascend910B1").unwrap();
    rt.set_device(0).unwrap();
    let _small = reserve(&rt);
    let mut big = Addr::NULL;
    rt.reserve_mem_address(Some(&mut big), 1 << 30, 0, Addr::NULL, 0)
        .unwrap();
    assert_eq!(big.0 % (1 << 30), 0, "{:#x}", big.0);
    let mut h = RawPhysical::NULL;
    rt.malloc_physical(Some(&mut h), 1 << 30, Some(&device_prop(10)), 0)
        .unwrap();
    rt.map_mem(big, 1 << 30, 0, h, 0).unwrap();
    rt.unmap_mem(big).unwrap();
    rt.free_physical(h).unwrap();
}

#[test]
fn host_numa_memory_asks_for_a_context_before_it_is_refused() {
    let rt = Runtime::sim("Ascend910B1").unwrap();
    let numa = PhysicalMemProp {
        mem_attr: 12,
        location: MemLocation {
            id: 0,
            kind: mem_location::HOST_NUMA,
        },
        ..Default::default()
    };
    let mut h = RawPhysical::NULL;
    assert_eq!(
        rt.malloc_physical(Some(&mut h), MIB2, Some(&numa), 0)
            .unwrap_err()
            .code(),
        107002
    );
    rt.set_device(0).unwrap();
    assert_eq!(
        rt.malloc_physical(Some(&mut h), MIB2, Some(&numa), 0)
            .unwrap_err()
            .code(),
        207000,
        "host memory is not simulated"
    );
}

#[test]
fn allocations_mapped_side_by_side_are_one_buffer_to_copies_fills_and_cmos() {
    let rt = Runtime::sim("Ascend910B1").unwrap();
    rt.set_device(0).unwrap();
    let mut va = Addr::NULL;
    rt.reserve_mem_address(Some(&mut va), 2 * MIB2, 0, Addr::NULL, 0)
        .unwrap();
    let (mut h0, mut h1) = (RawPhysical::NULL, RawPhysical::NULL);
    for h in [&mut h0, &mut h1] {
        rt.malloc_physical(Some(h), MIB2, Some(&device_prop(HBM_NORMAL)), 0)
            .unwrap();
    }
    rt.map_mem(va, MIB2, 0, h0, 0).unwrap();
    rt.map_mem(Addr(va.0 + MIB2 as u64), MIB2, 0, h1, 0)
        .unwrap();
    // A fill of the whole range, synchronous and on a stream.
    rt.memset(va, 2 * MIB2, 0x11, 2 * MIB2).unwrap();
    let seam = Addr(va.0 + MIB2 as u64 - 16);
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    rt.memset_async(seam, 32, 0x22, 32, s).unwrap();
    rt.cmo_async(seam, 32, cmo_type::PREFETCH, s).unwrap();
    rt.synchronize_stream(s).unwrap();
    let mut filled = [0u8; 48];
    rt.memcpy(
        MemDst::Host(&mut filled),
        48,
        MemSrc::Addr(Addr(seam.0 - 8)),
        48,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    assert_eq!(&filled[..8], &[0x11; 8]);
    assert_eq!(
        &filled[8..40],
        &[0x22; 32],
        "the fill task crossed the seam"
    );
    assert_eq!(&filled[40..], &[0x11; 8]);
    // A copy in across the seam, and out of it.
    let data: Vec<u8> = (0..64u8).collect();
    let at = Addr(va.0 + MIB2 as u64 - 32);
    rt.memcpy(
        MemDst::Addr(at),
        64,
        MemSrc::Host(&data),
        64,
        memcpy_kind::HOST_TO_DEVICE,
    )
    .unwrap();
    let mut back = vec![0u8; 96];
    rt.memcpy(
        MemDst::Host(&mut back),
        96,
        MemSrc::Addr(Addr(at.0 - 16)),
        96,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    assert_eq!(&back[..16], &[0x11; 16]);
    assert_eq!(&back[16..80], &data[..]);
    assert_eq!(&back[80..], &[0x11; 16]);
    // Each half is its own allocation's memory: the second, mapped alone elsewhere, holds the
    // bytes after the seam.
    let other = reserve(&rt);
    rt.map_mem(other, MIB2, 0, h1, 0).unwrap();
    let mut head = [0u8; 40];
    rt.memcpy(
        MemDst::Host(&mut head),
        40,
        MemSrc::Addr(other),
        40,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    assert_eq!(&head[..32], &data[32..]);
    assert_eq!(&head[32..], &[0x11; 8]);
    // A copy task across the seam into a plain allocation, in one piece to the caller.
    let mut plain = Addr::NULL;
    rt.malloc(Some(&mut plain), 4096, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memcpy_async(
        MemDst::Addr(plain),
        64,
        MemSrc::Addr(at),
        64,
        memcpy_kind::DEVICE_TO_DEVICE,
        s,
    )
    .unwrap();
    rt.synchronize_stream(s).unwrap();
    let mut copied = vec![0u8; 64];
    rt.memcpy(
        MemDst::Host(&mut copied),
        64,
        MemSrc::Addr(plain),
        64,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    assert_eq!(copied, data);
}
