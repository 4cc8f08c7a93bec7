//! Cases of physical memory, reserved ranges and mappings within one process: the runtime's
//! checks in order, two mappings of one allocation reaching one memory, a handle exported and
//! its pid list set, and what is dead after a free. Across processes: the shared device's
//! tests (`crates/ascend-rt/tests/shared_device_physical.rs`, the C program `physical_sharing.c`).

use ascend_rt::raw_types::*;
use ascend_rt::Runtime;

use crate::helpers::*;
use crate::CaseResult;

const MIB2: usize = 2 << 20;

/// `ACL_HBM_MEM_NORMAL` on device 0.
fn prop() -> PhysicalMemProp {
    PhysicalMemProp {
        mem_attr: 5,
        location: MemLocation {
            id: 0,
            kind: mem_location::DEVICE,
        },
        ..Default::default()
    }
}

pub(crate) fn physical_memory(rt: &Runtime) -> CaseResult {
    let mut g = 0usize;
    expect(
        "MemGetAllocationGranularity NULL",
        rt.mem_get_allocation_granularity(None, 0, Some(&mut g)),
        INVALID_PARAM,
    );
    expect(
        "MemGetAllocationGranularity",
        rt.mem_get_allocation_granularity(Some(&prop()), 0, Some(&mut g)),
        0,
    );
    if g == 0 || !g.is_multiple_of(4096) {
        return Err(format!("a granularity of {g} bytes"));
    }
    let size = MIB2.div_ceil(g) * g;
    let mut h = RawPhysical::NULL;
    expect(
        "MallocPhysical size 0",
        rt.malloc_physical(Some(&mut h), 0, Some(&prop()), 0),
        INVALID_PARAM,
    );
    expect(
        "MallocPhysical flags 1",
        rt.malloc_physical(Some(&mut h), size, Some(&prop()), 1),
        INVALID_PARAM,
    );
    let _d = Dev::open(rt);
    expect(
        "MallocPhysical",
        rt.malloc_physical(Some(&mut h), size, Some(&prop()), 0),
        0,
    );
    let (mut a, mut b) = (Addr::NULL, Addr::NULL);
    expect(
        "ReserveMemAddress size 0",
        rt.reserve_mem_address(Some(&mut a), 0, 0, Addr::NULL, 0),
        INVALID_PARAM,
    );
    expect(
        "ReserveMemAddress",
        rt.reserve_mem_address(Some(&mut a), size, 0, Addr::NULL, 0),
        0,
    );
    expect(
        "ReserveMemAddress again",
        rt.reserve_mem_address(Some(&mut b), size, 0, Addr::NULL, 0),
        0,
    );
    expect(
        "MapMem flags 1",
        rt.map_mem(a, size, 0, h, 1),
        INVALID_PARAM,
    );
    expect("MapMem", rt.map_mem(a, size, 0, h, 0), 0);
    expect("MapMem a second range", rt.map_mem(b, size, 0, h, 0), 0);
    let rw = MemAccessDesc {
        flags: 0x3,
        location: MemLocation {
            id: 0,
            kind: mem_location::DEVICE,
        },
    };
    expect(
        "MemSetAccess NULL",
        rt.mem_set_access(a, size, None),
        RT_PARAM,
    );
    expect("MemSetAccess", rt.mem_set_access(a, size, Some(&[rw])), 0);
    write_u64(rt, Addr(a.0 + 64), 0xFEED);
    if read_u64(rt, Addr(b.0 + 64)) != 0xFEED {
        return Err("a write through one mapping is not read through the other".into());
    }
    // A stream task through one mapping, read through the other.
    let s = stream(rt);
    expect(
        "MemsetAsync through a mapping",
        rt.memset_async(b, 8, 5, 8, s),
        0,
    );
    expect("SynchronizeStream", rt.synchronize_stream(s), 0);
    if read_u64(rt, a) != 0x0505_0505_0505_0505 {
        return Err("a fill through one mapping is not read through the other".into());
    }
    let mut sh = 0u64;
    expect(
        "MemExportToShareableHandle type 2",
        rt.mem_export_to_shareable_handle(h, 2, 0, Some(&mut sh)),
        INVALID_PARAM,
    );
    expect(
        "MemExportToShareableHandle",
        rt.mem_export_to_shareable_handle(h, 0, 0, Some(&mut sh)),
        0,
    );
    expect(
        "MemSetPidToShareableHandle",
        rt.mem_set_pid_to_shareable_handle(sh, Some(&[std::process::id() as i32]), 1),
        0,
    );
    expect(
        "ReleaseMemAddress a mapped range",
        rt.release_mem_address(a),
        RT_PARAM,
    );
    expect("UnmapMem", rt.unmap_mem(a), 0);
    expect("UnmapMem again", rt.unmap_mem(a), RT_PARAM);
    expect("ReleaseMemAddress", rt.release_mem_address(a), 0);
    // Freed while mapped at b: the memory lives until that unmap.
    expect("FreePhysical", rt.free_physical(h), 0);
    if read_u64(rt, b) != 0x0505_0505_0505_0505 {
        return Err("memory freed while mapped is gone before its unmap".into());
    }
    expect("FreePhysical again", rt.free_physical(h), BAD_HANDLE);
    expect("UnmapMem the last mapping", rt.unmap_mem(b), 0);
    expect("ReleaseMemAddress the second", rt.release_mem_address(b), 0);
    Ok(())
}
