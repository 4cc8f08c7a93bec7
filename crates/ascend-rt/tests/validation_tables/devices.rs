//! Init / finalize (t7_1) and devices (t7_2) (docs/validation/devices-contexts.md).

use super::*;

// =============================================================================================
// docs/validation/devices-contexts.md: init / finalize
// =============================================================================================

#[test]
fn t7_1_init_twice_is_100002_finalize_twice_is_100037() {
    let r = rt(A2);
    ok(r.init(None));
    assert_code(r.init(None), 100002);
    assert_code(r.init(Some("")), 100002);
    ok(r.finalize());
    assert_code(r.finalize(), 100037);
    // After a finalize a new init succeeds.
    ok(r.init(None));
    ok(r.finalize());
}

#[test]
fn t7_1_init_with_a_different_config_than_the_first_is_100000_eh0004() {
    let dir = std::env::temp_dir().join(format!("ascend-rt-vt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.json");
    let b = dir.join("b.json");
    std::fs::write(&a, r#"{"err_msg_mode": "0"}"#).unwrap();
    std::fs::write(&b, r#"{"err_msg_mode": "1"}"#).unwrap();
    let r = rt(A2);
    ok(r.init(Some(a.to_str().unwrap())));
    ok(r.finalize());
    let res = r.init(Some(b.to_str().unwrap()));
    let _ = std::fs::remove_dir_all(&dir);
    assert_err(res, 100000, Some(MsgCode::EH0004));
}

#[test]
fn t7_1_finalize_without_init_runs_the_teardown() {
    let r = rt(A2);
    ok(r.finalize());
    assert_code(r.finalize(), 100037);
}

// =============================================================================================
// docs/validation/devices-contexts.md: devices
// =============================================================================================

#[test]
fn t7_2_set_device_out_of_range_is_107001() {
    for soc in ALL_SOCS {
        let r = rt(soc);
        for d in [99, -1, i32::MAX, i32::MIN] {
            assert_err(r.set_device(d), 107001, Some(MsgCode::EE1003));
        }
    }
    let r = rt(MINI_V3);
    assert_code(r.set_device(1), 107001);
}

#[test]
fn t7_2_reset_device_not_set_is_507007_ee1018() {
    let r = rt(A2);
    assert_err(r.reset_device(0), 507007, Some(MsgCode::EE1018));
    ok(r.set_device(0));
    ok(r.set_device(0));
    ok(r.reset_device(0));
    ok(r.reset_device(0));
    assert_err(r.reset_device(0), 507007, Some(MsgCode::EE1018));
    assert_code(r.reset_device(99), 107001);
    assert_code(r.reset_device_force(99), 107001);
}

#[test]
fn t7_2_get_device_without_set_is_107002_without_message() {
    let r = rt(A2);
    let mut d = -1;
    assert_err(r.get_device(Some(&mut d)), 107002, None);
    assert_no_recent(&r);
    assert_err(r.get_device(None), 100000, Some(MsgCode::EH0008));
    ok(r.set_device(2));
    ok(r.get_device(Some(&mut d)));
    assert_eq!(d, 2);
    on_fresh_thread(|| assert_code(r.get_device(Some(&mut 0)), 107002));
}

#[test]
fn t7_2_get_soc_name_without_a_device() {
    for soc in ALL_SOCS {
        assert_eq!(rt(soc).get_soc_name().as_deref(), Some(soc));
    }
}

#[test]
fn t7_2_reset_releases_the_default_context_and_its_streams() {
    let r = rt0(A2);
    let s = stream(&r);
    ok(r.reset_device(0));
    let mut d = 0;
    assert_code(r.get_device(Some(&mut d)), 107002);
    ok(r.set_device(0));
    // The stream of the released context is gone.
    assert_err(r.synchronize_stream(s), 107017, Some(MsgCode::EE1017));
}
