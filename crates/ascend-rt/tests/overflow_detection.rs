//! Float overflow detection: the saturation mode per chip, the per-stream switch and the status
//! copy, each row in the vendor's order.

mod common;

use ascend_rt::raw_types::{Addr, RawStream};
use ascend_rt::{raw_types::overflow_mode, MsgCode};
use common::*;

#[test]
fn the_saturation_mode_starts_per_chip_and_only_supported_modes_are_set() {
    use overflow_mode::*;
    for (soc, start, sat_ok, infnan_ok) in [
        (A2, INFNAN, true, true),
        (DAVID, INFNAN, false, true),
        (MINI_V3, SATURATION, true, false),
        (DC, SATURATION, true, false),
        (CLOUD, SATURATION, true, false),
    ] {
        let r = rt(soc);
        let mut m = 9;
        ok(r.get_device_sat_mode(Some(&mut m)));
        assert_eq!(m, start, "{soc}");
        assert_eq!(
            code(r.set_device_sat_mode(SATURATION)),
            if sat_ok { 0 } else { 207000 },
            "{soc}"
        );
        assert_eq!(
            code(r.set_device_sat_mode(INFNAN)),
            if infnan_ok { 0 } else { 207000 },
            "{soc}"
        );
        assert_err(r.set_device_sat_mode(UNDEF), 107000, Some(MsgCode::EE1003));
    }
    let r = rt(A2);
    assert_err(r.get_device_sat_mode(None), 100000, Some(MsgCode::EH0008));
    ok(r.set_device_sat_mode(SATURATION));
    let mut m = 9;
    ok(r.get_device_sat_mode(Some(&mut m)));
    assert_eq!(
        m, SATURATION,
        "the mode is the process's, with no context needed"
    );
}

#[test]
fn the_stream_switch_is_kept_on_stars_chips_and_ignored_elsewhere() {
    let r = rt0(A2);
    let s = stream(&r);
    let mut f = 9;
    assert_err(
        r.set_stream_overflow_switch(s, 2),
        100000,
        Some(MsgCode::EH0007),
    );
    assert_err(
        r.set_stream_overflow_switch(GARBAGE, 1),
        107017,
        Some(MsgCode::EE1017),
    );
    assert_err(
        r.get_stream_overflow_switch(s, None),
        100000,
        Some(MsgCode::EH0008),
    );
    ok(r.get_stream_overflow_switch(s, Some(&mut f)));
    assert_eq!(f, 0);
    ok(r.set_stream_overflow_switch(s, 1));
    ok(r.get_stream_overflow_switch(s, Some(&mut f)));
    assert_eq!(f, 1);
    assert_err(
        r.set_stream_overflow_switch(other_ctx_stream(&r), 1),
        107003,
        Some(MsgCode::EE1010),
    );
    // Without the feature: success before the handle is even looked at.
    let r = rt0(DC);
    ok(r.set_stream_overflow_switch(GARBAGE, 1));
    ok(r.get_stream_overflow_switch(RawStream(0), Some(&mut f)));
    assert_eq!(f, 1, "310P reports the switch always on");
    let r = rt0(MINI_V3);
    let s = stream(&r);
    ok(r.set_stream_overflow_switch(s, 1));
    ok(r.get_stream_overflow_switch(s, Some(&mut f)));
    assert_eq!(f, 0, "310B has STARS but no switch to set");
}

#[test]
fn the_overflow_status_is_a_stream_ordered_copy_of_64_zero_bytes() {
    let r = rt0(A2);
    let s = stream(&r);
    let out = malloc(&r, 64);
    ok(r.memset(out, 64, 0xff, 64));
    assert_err(
        r.get_overflow_status(Addr(0), 64, s),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.get_overflow_status(out, 64, GARBAGE),
        107017,
        Some(MsgCode::EE1017),
    );
    assert_err(r.get_overflow_status(out, 32, s), 107000, None);
    assert_err(
        r.get_overflow_status(UNREGISTERED, 64, s),
        107000,
        Some(MsgCode::EE1003),
    );
    ok(r.get_overflow_status(out, 64, s));
    ok(r.synchronize_stream(s));
    let mut host = [0xaau8; 64];
    ok(r.memcpy(
        ascend_rt::MemDst::Host(&mut host),
        64,
        ascend_rt::MemSrc::Addr(out),
        64,
        ascend_rt::raw_types::memcpy_kind::DEVICE_TO_HOST,
    ));
    assert_eq!(host, [0u8; 64]);
    ok(r.reset_overflow_status(s));
    assert_err(
        r.reset_overflow_status(GARBAGE),
        107017,
        Some(MsgCode::EE1017),
    );
    let r2 = rt(A2);
    assert_err(
        r2.reset_overflow_status(RawStream(0)),
        107002,
        Some(MsgCode::EE1018),
    );
}
