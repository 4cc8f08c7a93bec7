//! Hazards reach a user of the safe level: as records (`Device::hazards`), and as an error at
//! the synchronize that observes one of a class set to fail; the simulator is configured from
//! `ascend-rt` alone (`ascend_rt::sim`).

use std::sync::Arc;

use ascend_rt::safe::*;
use ascend_rt::sim::{OnStall, SimBuilder};

/// A fill of 4 KiB dropped by an INVALID on the same stream (a lost write), under `hazards`.
fn lost_write(hazards: &str) -> (Device, ascend_rt::AclResult<()>) {
    let rt = Arc::new(
        SimBuilder::new("Ascend910B1")
            .hazards(hazards)
            .unwrap()
            .on_stall(OnStall::Error)
            .build()
            .unwrap(),
    );
    let dev = Device::open(&rt, 0).unwrap();
    let buf = dev.malloc(4096, MallocPolicy::NormalOnly).unwrap();
    let s = dev.stream().unwrap();
    s.fill_async(buf.ptr(), 7, 4096).unwrap();
    s.cmo(CmoType::Invalid, buf.ptr(), 4096).unwrap();
    let r = s.synchronize();
    (dev, r)
}

#[test]
fn a_recorded_hazard_is_listed_by_the_device() {
    let (dev, r) = lost_write("record");
    assert!(r.is_ok(), "{r:?}");
    let lost: Vec<_> = dev
        .hazards()
        .into_iter()
        .filter(|h| h.kind == "lost_write")
        .collect();
    assert_eq!(lost.len(), 1, "one record for the one INVALID");
    assert!(lost[0].count >= 1 && lost[0].detail.contains("INVALID"));
}

#[test]
fn a_hazard_of_a_class_set_to_fail_is_the_synchronizes_error() {
    let (_dev, r) = lost_write("record,lost_write=fail");
    let e = r.unwrap_err();
    assert!(e.to_string().contains("lost_write hazard"), "{e}");
}

#[test]
fn a_hazard_setting_that_is_not_one_is_refused_with_why() {
    let e = SimBuilder::new("Ascend910B1")
        .hazards("record,lost_writes=fail")
        .unwrap_err();
    assert!(e.contains("`lost_writes` is not a hazard class"), "{e}");
}
