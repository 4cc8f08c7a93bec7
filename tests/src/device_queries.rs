//! Cases of device queries and settings: device information, status and priority range,
//! peer access between two devices, architecture compatibility, and the overflow status.

use ascend_rt::raw_types::*;
use ascend_rt::{raw_types::dev_attr, Runtime};

use crate::helpers::*;
use crate::CaseResult;

/// A reserved argument that is not 0 (200006).
const RESERVED_NOT_ZERO: i32 = 200_006;

pub(crate) fn device_queries_and_peer_access(rt: &Runtime) -> CaseResult {
    // Queries that need no context.
    let mut v = -1i64;
    expect(
        "GetDeviceInfo value NULL",
        rt.get_device_info(0, dev_attr::AICORE_CORE_NUM, None),
        INVALID_PARAM,
    );
    expect(
        "GetDeviceInfo AI cores",
        rt.get_device_info(0, dev_attr::AICORE_CORE_NUM, Some(&mut v)),
        0,
    );
    assert!(v > 0, "a device has AI cores: {v}");
    expect(
        "GetDeviceInfo unknown attribute",
        rt.get_device_info(0, 999, Some(&mut v)),
        RT_PARAM,
    );
    let mut status = 99u32;
    expect(
        "QueryDeviceStatus NULL",
        rt.query_device_status(0, None),
        INVALID_PARAM,
    );
    expect(
        "QueryDeviceStatus",
        rt.query_device_status(0, Some(&mut status)),
        0,
    );
    assert_eq!(status, 0, "device 0 is normal");
    expect(
        "QueryDeviceStatus device 4096",
        rt.query_device_status(4096, Some(&mut status)),
        BAD_DEVICE,
    );
    let (mut least, mut greatest) = (-1, -1);
    expect(
        "DeviceGetStreamPriorityRange",
        rt.device_stream_priority_range(Some(&mut least), Some(&mut greatest)),
        0,
    );
    assert_eq!((least, greatest), (7, 0), "priorities 7 (least) to 0");
    let mut same = -1;
    let soc = rt.chip().soc_name.clone();
    expect(
        "CheckArchCompatibility NULL",
        rt.check_arch_compatibility(None, Some(&mut same)),
        RT_PARAM,
    );
    expect(
        "CheckArchCompatibility own SoC",
        rt.check_arch_compatibility(Some(&soc), Some(&mut same)),
        0,
    );
    assert_eq!(same, 1, "a SoC is compatible with itself");

    // Peer access between two devices.
    let mut can = -1;
    expect(
        "DeviceCanAccessPeer same device",
        rt.device_can_access_peer(Some(&mut can), 0, 0),
        INVALID_PARAM,
    );
    expect(
        "DeviceEnablePeerAccess without a context",
        rt.device_enable_peer_access(1, 0),
        NO_CONTEXT,
    );
    let mut count = 0u32;
    rt.get_device_count(Some(&mut count))
        .expect("aclrtGetDeviceCount");
    {
        let _d = Dev::open(rt);
        expect(
            "DeviceEnablePeerAccess flags 1",
            rt.device_enable_peer_access(1, 1),
            RESERVED_NOT_ZERO,
        );
        expect(
            "DeviceEnablePeerAccess to itself",
            rt.device_enable_peer_access(0, 0),
            INVALID_PARAM,
        );
        if count >= 2 {
            expect(
                "DeviceCanAccessPeer 0 -> 1",
                rt.device_can_access_peer(Some(&mut can), 0, 1),
                0,
            );
            assert_eq!(can, 1, "two devices of one machine reach each other");
            expect(
                "DeviceEnablePeerAccess",
                rt.device_enable_peer_access(1, 0),
                0,
            );
            expect(
                "DeviceDisablePeerAccess",
                rt.device_disable_peer_access(1),
                0,
            );
        }
        expect(
            "DeviceCanAccessPeer peer out of range",
            rt.device_can_access_peer(Some(&mut can), 0, count as i32 + 64),
            BAD_DEVICE,
        );

        // The overflow status: 64 bytes, copied in stream order.
        let s = stream(rt);
        let out = malloc(rt, 64);
        expect(
            "GetOverflowStatus NULL",
            rt.get_overflow_status(Addr::NULL, 64, s),
            INVALID_PARAM,
        );
        expect(
            "GetOverflowStatus size 32",
            rt.get_overflow_status(out, 32, s),
            RT_PARAM,
        );
        rt.memset(out, 64, 0xEE, 64).expect("aclrtMemset");
        expect("GetOverflowStatus", rt.get_overflow_status(out, 64, s), 0);
        expect("ResetOverflowStatus", rt.reset_overflow_status(s), 0);
        rt.synchronize_stream(s).expect("aclrtSynchronizeStream");
        assert!(
            read_bytes(rt, out, 64).iter().all(|&b| b == 0),
            "nothing overflowed: the status is clear"
        );
    }
    Ok(())
}
