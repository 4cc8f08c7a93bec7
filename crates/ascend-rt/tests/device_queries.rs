//! Device queries, resource limits and peer access: each call's rows in the vendor's order and
//! what it answers per SoC.

mod common;

use ascend_rt::raw_types::{memcpy_kind, RawUtilization};
use ascend_rt::{raw_types::dev_attr, MemDst, MemSrc, MsgCode};
use common::*;

#[test]
fn device_info_answers_the_platform_figures_of_each_soc() {
    let info = |soc: &str, attr: i32| {
        let mut v = -1;
        rt(soc).get_device_info(0, attr, Some(&mut v)).map(|_| v)
    };
    assert_eq!(info(A2, dev_attr::AICORE_CORE_NUM).unwrap(), 24);
    assert_eq!(info(A2, dev_attr::VECTOR_CORE_NUM).unwrap(), 48);
    assert_eq!(info(A2, dev_attr::CUBE_CORE_NUM).unwrap(), 24);
    assert_eq!(info(A2, dev_attr::AICPU_CORE_NUM).unwrap(), 6);
    assert_eq!(info(A2, dev_attr::L2_CACHE_SIZE).unwrap(), 201_326_592);
    assert_eq!(info(A2, dev_attr::TOTAL_GLOBAL_MEM_SIZE).unwrap(), 64 << 30);
    assert_eq!(info(A2, dev_attr::NPU_ARCH).unwrap(), 2201);
    assert_eq!(
        info(A2, dev_attr::WARP_SIZE).unwrap(),
        0,
        "no SIMT before 950"
    );
    assert_eq!(info(DAVID, dev_attr::WARP_SIZE).unwrap(), 32);
    assert_eq!(
        info(DAVID, dev_attr::UBUF_PER_VECTOR_CORE).unwrap(),
        221_184
    );
    assert_eq!(info(DAVID, dev_attr::MAX_GRID_DIM_X + 2).unwrap(), 65_535);
    assert_eq!(info(DAVID, dev_attr::MAX_BLOCK_DIM_Z).unwrap(), 2048);
    assert_eq!(info(MINI_V3, dev_attr::VECTOR_CORE_NUM).unwrap(), 1);
    assert_eq!(info(DC, dev_attr::VECTOR_CORE_NUM).unwrap(), 7);
    for soc in [DC, CLOUD] {
        assert_err(
            info(soc, dev_attr::CUBE_CORE_NUM),
            107000,
            Some(MsgCode::EE9999),
        );
    }
}

#[test]
fn device_info_checks_value_then_device_as_a_value_then_attribute() {
    let r = rt(A2);
    let mut v = 0;
    assert_err(
        r.get_device_info(99, 0, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.get_device_info(8, 101, Some(&mut v)),
        107000,
        Some(MsgCode::EE1003),
    );
    for bad in [0, 100, 213, 303, 410, 999] {
        assert_err(
            r.get_device_info(0, bad, Some(&mut v)),
            107000,
            Some(MsgCode::EE1003),
        );
    }
}

#[test]
fn priority_range_status_and_utilization_answer_without_a_context() {
    let r = rt(A2);
    let (mut least, mut greatest) = (-1, -1);
    ok(r.device_stream_priority_range(Some(&mut least), Some(&mut greatest)));
    assert_eq!((least, greatest), (7, 0));
    ok(r.device_stream_priority_range(None, None));
    let mut status = 9;
    assert_err(
        r.query_device_status(0, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.query_device_status(8, Some(&mut status)),
        107001,
        Some(MsgCode::EE1003),
    );
    ok(r.query_device_status(0, Some(&mut status)));
    assert_eq!(status, 0);
    let mut u = RawUtilization::default();
    assert_err(
        r.get_device_utilization_rate(0, None, true),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.get_device_utilization_rate(0, Some(&mut u), false),
        100000,
        Some(MsgCode::EH0012),
    );
    ok(r.get_device_utilization_rate(0, Some(&mut u), true));
    assert_eq!((u.cube, u.vector, u.aicpu, u.memory), (0, 0, 0, -1));
    // A bad device fails each field, not the call.
    ok(r.get_device_utilization_rate(64, Some(&mut u), true));
    assert_eq!((u.cube, u.vector, u.aicpu, u.memory), (-1, -1, -1, -1));
}

#[test]
fn resource_limits_need_an_open_device_are_process_wide_and_end_with_the_device() {
    let r = rt(A2);
    let mut v = 0;
    assert_err(
        r.get_device_res_limit(0, 1, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.get_device_res_limit(-1, 9, Some(&mut v)),
        107001,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.get_device_res_limit(99, 2, Some(&mut v)),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.get_device_res_limit(99, 1, Some(&mut v)),
        107001,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.get_device_res_limit(0, 1, Some(&mut v)),
        507033,
        Some(MsgCode::EE9999),
    );
    assert_err(
        r.set_device_res_limit(0, 1, 1),
        507033,
        Some(MsgCode::EE9999),
    );
    assert_err(r.reset_device_res_limit(0), 507033, Some(MsgCode::EE9999));
    ok(r.set_device(0));
    ok(r.get_device_res_limit(0, 1, Some(&mut v)));
    assert_eq!(v, 48, "the full vector-core count before any limit");
    assert_err(
        r.set_device_res_limit(0, 0, 25),
        107000,
        Some(MsgCode::EE1003),
    );
    ok(r.set_device_res_limit(0, 0, 0));
    ok(r.set_device_res_limit(0, 1, 1));
    // Another thread, with no context of its own, sees the process-wide limit.
    let seen = on_fresh_thread(|| {
        let mut v = 0;
        r.get_device_res_limit(0, 1, Some(&mut v)).map(|_| v)
    });
    assert_eq!(seen.unwrap(), 1);
    ok(r.reset_device_res_limit(0));
    ok(r.get_device_res_limit(0, 0, Some(&mut v)));
    assert_eq!(v, 24);
    ok(r.set_device_res_limit(0, 1, 2));
    ok(r.reset_device(0));
    ok(r.set_device(0));
    ok(r.get_device_res_limit(0, 1, Some(&mut v)));
    assert_eq!(v, 48, "a released device starts again from its full counts");
}

#[test]
fn peer_access_rows_and_a_copy_across_devices_needs_it() {
    let r = rt(A2);
    let mut can = -1;
    assert_err(
        r.device_can_access_peer(None, 1, 1),
        100000,
        Some(MsgCode::EH0009),
    );
    assert_err(
        r.device_can_access_peer(Some(&mut can), 0, 8),
        107001,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.device_can_access_peer(Some(&mut can), 8, 0),
        107001,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.device_can_access_peer(None, 0, 1),
        107000,
        Some(MsgCode::EE1004),
    );
    ok(r.device_can_access_peer(Some(&mut can), 0, 1));
    assert_eq!(can, 1);
    assert_err(
        r.device_enable_peer_access(1, 1),
        200006,
        Some(MsgCode::EH0009),
    );
    assert_err(r.device_enable_peer_access(1, 0), 107002, None);
    ok(r.set_device(0));
    assert_err(
        r.device_enable_peer_access(0, 0),
        100000,
        Some(MsgCode::EH0009),
    );
    assert_err(
        r.device_enable_peer_access(8, 0),
        107001,
        Some(MsgCode::EE1003),
    );
    let a = malloc(&r, 64);
    ok(r.memset(a, 64, 7, 64));
    ok(r.set_device(1));
    let b = malloc(&r, 64);
    assert_code(copy_64(&r, b, a), 507899);
    ok(r.device_enable_peer_access(0, 0));
    ok(copy_64(&r, b, a));
    let mut host = [0u8; 64];
    ok(r.memcpy(
        MemDst::Host(&mut host),
        64,
        MemSrc::Addr(b),
        64,
        memcpy_kind::DEVICE_TO_HOST,
    ));
    assert_eq!(host, [7u8; 64]);
    ok(r.device_disable_peer_access(0));
    assert_code(copy_64(&r, b, a), 507899);
    ok(r.device_disable_peer_access(0));
}

#[test]
fn a_reduce_between_devices_needs_peer_access_as_a_copy_does() {
    let r = rt0(A2);
    let a = malloc(&r, 64);
    ok(r.memset(a, 64, 7, 64));
    ok(r.set_device(1));
    let b = malloc(&r, 64);
    ok(r.memset(b, 64, 1, 64));
    let s1 = stream(&r);
    const SUM: u32 = 10;
    assert_code(
        r.reduce_async(
            b,
            a,
            64,
            SUM,
            ascend_rt::data_types::data_type::INT8,
            s1,
            true,
        ),
        507899,
    );
    ok(r.device_enable_peer_access(0, 0));
    ok(r.reduce_async(
        b,
        a,
        64,
        SUM,
        ascend_rt::data_types::data_type::INT8,
        s1,
        true,
    ));
    ok(r.synchronize_stream(s1));
}

#[test]
fn peer_access_ends_when_either_device_is_reset() {
    let r = rt0(A2);
    ok(r.set_device(1));
    // Device 1 may reach device 0's memory.
    ok(r.device_enable_peer_access(0, 0));
    let b = malloc(&r, 64);
    // Device 0, the peer, is reset: its mappings go.
    ok(r.set_device(0));
    ok(r.reset_device(0));
    ok(r.reset_device(0));
    ok(r.set_device(0));
    let a = malloc(&r, 64);
    ok(r.set_device(1));
    assert_code(copy_64(&r, b, a), 507899);
}

/// A synchronous 64-byte device-to-device copy from `src` to `dst`.
fn copy_64(
    r: &ascend_rt::Runtime,
    dst: ascend_rt::raw_types::Addr,
    src: ascend_rt::raw_types::Addr,
) -> ascend_rt::AclResult<()> {
    r.memcpy(
        MemDst::Addr(dst),
        64,
        MemSrc::Addr(src),
        64,
        memcpy_kind::DEVICE_TO_DEVICE,
    )
}
