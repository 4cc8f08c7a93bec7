//! Cases of registered host memory: the device reaches the program's own memory through the
//! pointer `aclrtHostGetDevicePointer` gives, each side seeing what the other wrote by the
//! next call; and managed memory, which no simulated chip has.

use ascend_rt::raw_types::*;
use ascend_rt::{
    raw_types::host_reg_flag, MemDst, MemSrc, Runtime, SharedBytes, MEM_ATTACH_GLOBAL,
};

use crate::helpers::*;
use crate::CaseResult;

/// The range overlaps a registered one (507910).
const ALREADY_REGISTERED: i32 = 507_910;
/// No registration has that base (507911).
const NOT_REGISTERED: i32 = 507_911;

pub(crate) fn registered_host_memory(rt: &Runtime) -> CaseResult {
    let mine = SharedBytes::new(4096);
    mine.fill(7);
    let host = mine.addr();
    let mapped = host_reg_flag::MAPPED;
    expect(
        "HostRegisterV2 without a device",
        rt.host_register_v2(host, 4096, mapped, Some(mine.clone())),
        NO_CONTEXT,
    );
    let _d = Dev::open(rt);
    let s = stream(rt);
    expect(
        "HostRegisterV2 NULL",
        rt.host_register_v2(Addr::NULL, 4096, mapped, None),
        INVALID_PARAM,
    );
    expect(
        "HostRegisterV2 flag 0",
        rt.host_register_v2(host, 4096, 0, Some(mine.clone())),
        RT_PARAM,
    );
    if rt.chip().features.host_register {
        mapped_round_trip(rt, &mine, s)?;
    } else {
        // A chip without host registration refuses it after the arguments and the context.
        expect(
            "HostRegisterV2 on a chip without it",
            rt.host_register_v2(host, 4096, mapped, Some(mine.clone())),
            NOT_SUPPORTED,
        );
        expect(
            "HostUnregister on a chip without it",
            rt.host_unregister(host),
            NOT_SUPPORTED,
        );
    }
    expect(
        "MemAllocManaged flag 2",
        with_out(|o| rt.mem_alloc_managed(Some(o), 64, 2)),
        INVALID_PARAM,
    );
    expect(
        "MemAllocManaged",
        with_out(|o| rt.mem_alloc_managed(Some(o), 64, MEM_ATTACH_GLOBAL)),
        NOT_SUPPORTED,
    );
    Ok(())
}

/// Registers `mine` mapped, reads and writes it from both sides, and unregisters it.
fn mapped_round_trip(rt: &Runtime, mine: &std::sync::Arc<SharedBytes>, s: RawStream) -> CaseResult {
    let host = mine.addr();
    let mapped = host_reg_flag::MAPPED;
    expect(
        "HostRegisterV2",
        rt.host_register_v2(host, 4096, mapped, Some(mine.clone())),
        0,
    );
    expect(
        "HostRegisterV2 overlapping",
        rt.host_register_v2(Addr(host.0 + 8), 8, mapped, Some(mine.clone())),
        ALREADY_REGISTERED,
    );
    let dev = with_out(|o| rt.host_get_device_pointer(host, Some(o), 0))
        .expect("aclrtHostGetDevicePointer");
    expect(
        "HostGetDevicePointer inside the range",
        with_out(|o| rt.host_get_device_pointer(Addr(host.0 + 1), Some(o), 0)),
        RT_PARAM,
    );
    // The device writes; the host sees it after the synchronize, and keeps the rest.
    rt.memset_async(dev, 16, 3, 16, s)
        .expect("aclrtMemsetAsync on the device pointer");
    rt.synchronize_stream(s).expect("aclrtSynchronizeStream");
    let at = |i: usize| mine.get(i);
    assert_eq!(
        (at(0), at(15), at(16)),
        (3, 3, 7),
        "the device's fill, only"
    );
    // The host writes; a copy launched afterwards reads it.
    mine.set(100, 42);
    let copy = malloc(rt, 4096);
    rt.memcpy_async(
        MemDst::Addr(copy),
        4096,
        MemSrc::Addr(dev),
        4096,
        memcpy_kind::DEVICE_TO_DEVICE,
        s,
    )
    .expect("aclrtMemcpyAsync from the device pointer");
    rt.synchronize_stream(s).expect("aclrtSynchronizeStream");
    let back = read_bytes(rt, copy, 4096);
    assert_eq!((back[0], back[100], back[101]), (3, 42, 7));
    expect(
        "HostUnregister inside the range",
        rt.host_unregister(Addr(host.0 + 1)),
        NOT_REGISTERED,
    );
    expect("HostUnregister", rt.host_unregister(host), 0);
    expect(
        "HostUnregister twice",
        rt.host_unregister(host),
        NOT_REGISTERED,
    );
    Ok(())
}
