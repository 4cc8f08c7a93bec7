//! The compatibility queries a program makes before it relies on a feature: CANN attributes,
//! architecture compatibility and device capabilities, each row in the vendor's order.

mod common;

use ascend_rt::{npu_arch, raw_types::cann_attr, raw_types::dev_feature, MsgCode};
use common::*;

#[test]
fn cann_attributes_are_all_three_on_a2_and_950_and_only_jit_elsewhere() {
    for (soc, want) in [
        (A2, &[0, 1, 2][..]),
        ("Ascend950PR_9599", &[0, 1, 2][..]),
        ("Ascend310B1", &[2][..]),
        ("Ascend310P3", &[2][..]),
        ("Ascend910A", &[2][..]),
    ] {
        let r = rt(soc);
        let (mut list, mut num): (&[i32], usize) = (&[], 0);
        ok(r.get_cann_attribute_list(Some(&mut list), Some(&mut num)));
        assert_eq!(list, want, "{soc}");
        assert_eq!(num, want.len(), "{soc}");
        let mut v = -1;
        ok(r.get_cann_attribute(cann_attr::BF16, Some(&mut v)));
        assert_eq!(v, i32::from(want.contains(&cann_attr::BF16)), "{soc}");
        ok(r.get_cann_attribute(cann_attr::JIT_COMPILE, Some(&mut v)));
        assert_eq!(v, 1, "{soc}");
    }
}

#[test]
fn cann_attribute_calls_check_their_pointers_then_the_attribute() {
    let r = rt(A2);
    assert_err(
        r.get_cann_attribute_list(None, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.get_cann_attribute_list(Some(&mut &[][..]), None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(r.get_cann_attribute(7, None), 100000, Some(MsgCode::EH0008));
    let mut v = 0;
    assert_err(r.get_cann_attribute(-1, Some(&mut v)), 100000, None);
    assert_err(r.get_cann_attribute(3, Some(&mut v)), 100000, None);
}

#[test]
fn arch_compatibility_compares_npu_architectures_and_rejects_unknown_names() {
    let r = rt(A2);
    let mut c = -1;
    assert_err(
        r.check_arch_compatibility(None, None),
        107000,
        Some(MsgCode::EE1004),
    );
    assert_err(
        r.check_arch_compatibility(Some("Ascend910B1"), None),
        107000,
        Some(MsgCode::EE1004),
    );
    assert_err(
        r.check_arch_compatibility(Some(""), Some(&mut c)),
        107000,
        None,
    );
    assert_err(
        r.check_arch_compatibility(Some("Ascend999"), Some(&mut c)),
        107000,
        Some(MsgCode::EE1011),
    );
    ok(r.check_arch_compatibility(Some("Ascend910_9391"), Some(&mut c)));
    assert_eq!(c, 1, "A2 and A3 share architecture 2201");
    ok(r.check_arch_compatibility(Some("Ascend310P3"), Some(&mut c)));
    assert_eq!(c, 0);
    assert_eq!(npu_arch("Ascend950DT_9591"), Some(3510));
    assert_eq!(npu_arch("Ascend310B4"), Some(3002));
}

#[test]
fn device_capability_checks_value_feature_device_then_context() {
    let r = rt(A2);
    let f = dev_feature::TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV;
    let mut v = -1;
    assert_err(
        r.get_device_capability(0, f, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.get_device_capability(0, -1, Some(&mut v)),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.get_device_capability(0, 20002, Some(&mut v)),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.get_device_capability(0, 2, Some(&mut v)),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.get_device_capability(99, f, Some(&mut v)),
        107001,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.get_device_capability(0, f, Some(&mut v)),
        107002,
        Some(MsgCode::EE1018),
    );
    // The driver's query needs no context.
    ok(r.get_device_capability(0, dev_feature::SYSTEM_MEMQ_EVENT_CROSS_DEV, Some(&mut v)));
    assert_eq!(v, 0);
    for (soc, want) in [
        (A2, 1),
        ("Ascend950PR_9599", 1),
        ("Ascend310P3", 1),
        ("Ascend310B1", 0),
        ("Ascend910A", 0),
    ] {
        let r = rt0(soc);
        ok(r.get_device_capability(0, f, Some(&mut v)));
        assert_eq!(v, want, "{soc}");
    }
}
