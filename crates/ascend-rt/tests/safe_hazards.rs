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

/// Set in the environment of the child run of [`hazard_in_a_program_without_a_logger`].
const CHILD: &str = "ASCEND_RT_SAFE_HAZARDS_CHILD";

/// A program that set up no logging: run only as a child of
/// [`a_hazard_is_said_on_stderr_when_the_program_has_no_logger`].
#[test]
fn hazard_in_a_program_without_a_logger() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let (_dev, r) = lost_write("record");
    r.unwrap();
}

#[test]
fn a_hazard_is_said_on_stderr_when_the_program_has_no_logger() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "hazard_in_a_program_without_a_logger",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("ascend-sim: hazard lost_write on device 0 at 0x"),
        "the hazard is said on stderr:\n{stderr}"
    );
}

/// What a `tracing` subscriber writes, shared with the test.
#[derive(Clone, Default)]
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_hazard_is_a_tracing_warning_where_the_program_has_a_logger() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_max_level(tracing::Level::WARN)
        .with_writer(move || writer.clone())
        .finish();
    // Global, since the simulator may say it from a thread of its own.
    tracing::subscriber::set_global_default(subscriber).unwrap();
    let (_dev, r) = lost_write("record");
    r.unwrap();
    let said = String::from_utf8_lossy(&captured.0.lock().unwrap()).into_owned();
    assert!(
        said.contains("WARN") && said.contains("hazard:") && said.contains("kind=lost_write"),
        "the hazard is a warning with its fields:\n{said}"
    );
}
