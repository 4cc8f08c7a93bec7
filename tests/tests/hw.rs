//! Instantiation (b): every conformance case through the `hw` backend.
//!
//! - Over the project's own `libascendcl.so` (built from `crates/ascend-sim-capi` in this
//!   target directory): one child process per SoC, since the library reads `ASCEND_SIM_SOC`
//!   once per process. The child is this test binary itself, running [`hw_child`] with
//!   `ASCEND_RT_LIB` and `ASCEND_SIM_SOC` set.
//! - On a real device ([`hw_on_device`]): when `ASCEND_RT_LIB` is set, or a toolkit root
//!   (`ASCEND_TOOLKIT_HOME` / `ASCEND_HOME_PATH`) has `lib64/libascendcl.so`, or
//!   `ASCEND_CONFORMANCE_DEVICE=1` asks for the loader path; otherwise it prints `SKIPPED`.
//!
//! Both also run the raw probe ([`ascend_conformance::probe`]): invalid and valid calls made
//! on the library directly, compared with the front end's predictions. Over our library it is
//! its own child process per SoC ([`probe_child`]); on a device it follows the suite, and
//! `ASCEND_PROBE_REPORT_ONLY=1` prints its mismatches instead of failing on them.
#![cfg(feature = "hw")]

use std::path::PathBuf;
use std::process::Command;

use ascend_conformance::probe::{probe_library, probe_random, ProbeReport};
use ascend_conformance::{assert_all_passed, run_suite, SIM_SOCS};
use ascend_rt::Runtime;

/// Set in the environment of a child run.
const CHILD: &str = "ASCEND_CONFORMANCE_CHILD";

/// The project's `libascendcl.so` built for this test run: cargo puts it in
/// `<target>/<profile>/deps` beside this test binary; the copy one folder up exists only after
/// `cargo build` and may be stale, so it is the fallback.
fn our_lib() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let deps = exe.parent().ok_or("test binary has no directory")?;
    let profile = deps.parent().ok_or("test binary directory has no parent")?;
    [deps.join("libascendcl.so"), profile.join("libascendcl.so")]
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "libascendcl.so is not built in {} (run `cargo build -p ascend-sim-capi`)",
                profile.display()
            )
        })
}

/// The suite in this process through the hw backend (library from the environment).
#[test]
fn hw_child() {
    let Ok(soc) = std::env::var(CHILD) else {
        return; // only runs as a child
    };
    let label = format!(
        "hw over {}",
        std::env::var("ASCEND_RT_LIB").unwrap_or_default()
    );
    let results = run_suite(
        &format!("{label}, {soc}"),
        &|| Runtime::hw().map_err(|e| e.to_string()),
        None,
    );
    assert_all_passed(&label, &results);
}

/// The raw probe in this process on the library the environment names, its table printed
/// (every row with `ASCEND_PROBE_VERBOSE=1`).
fn run_probe() -> ProbeReport {
    // Never unloaded, like the hw backend's libraries: a runtime library keeps threads and
    // thread-local destructors that must not outlive its code (unloading our own Rust
    // libascendcl.so crashes at thread exit).
    let lib = leaked_library();
    let report = probe_library(lib).unwrap_or_else(|e| panic!("raw probe: {e}"));
    if std::env::var("ASCEND_PROBE_VERBOSE").as_deref() == Ok("1") {
        print!("{}", report.full_table());
    } else {
        print!("{}", report.table());
    }
    report
}

/// Random sequences per run of the probe: `ASCEND_PROBE_SEEDS` (default 3), of
/// [`RANDOM_ROWS`] rows each.
fn random_seeds() -> u64 {
    std::env::var("ASCEND_PROBE_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3)
}

/// Rows in each random sequence.
const RANDOM_ROWS: usize = 300;

/// The library the environment names, loaded once and never unloaded.
fn leaked_library() -> &'static ascend_rt_sys::Library {
    let lib = ascend_rt_sys::Library::load().unwrap_or_else(|e| panic!("raw probe: {e}"));
    Box::leak(Box::new(lib))
}

/// The raw probe in this process (a child run of [`probe_over_our_lib`]): the fixed rows, then
/// random sequences (seeds 1 to [`random_seeds`]).
#[test]
fn probe_child() {
    let Ok(soc) = std::env::var(CHILD) else {
        return; // only runs as a child
    };
    run_probe().assert_agrees(&format!("raw probe over our library, {soc}"));
    let lib = leaked_library();
    for seed in 1..=random_seeds() {
        let report = probe_random(lib, seed, RANDOM_ROWS)
            .unwrap_or_else(|e| panic!("random sequence {seed}: {e}"));
        print!("seed {seed}: {}", report.table());
        report.assert_agrees(&format!("random sequence {seed} over our library, {soc}"));
    }
}

/// Runs `test` of this binary as a child with our library for `soc`, checks that it passed
/// and returns its output, or `None` when not to run it (in a child; the library not built
/// outside CI).
fn child_over_our_lib(test: &str, soc: &str) -> Option<String> {
    if std::env::var_os(CHILD).is_some() {
        return None;
    }
    let lib = match our_lib() {
        Ok(lib) => lib,
        // In CI (`CI` set) the library is always built by the test command: its absence is a
        // failure there, not a reason to skip.
        Err(reason) if std::env::var_os("CI").is_some() => panic!("{reason}"),
        Err(reason) => {
            println!("SKIPPED: {reason}");
            return None;
        }
    };
    let out = Command::new(std::env::current_exe().expect("test binary"))
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, soc)
        .env("ASCEND_RT_LIB", &lib)
        .env("ASCEND_SIM_SOC", soc)
        .env("ASCEND_SIM_ON_STALL", "error")
        .output()
        .expect("run the child");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    print!("{stdout}");
    assert!(
        out.status.success(),
        "{test} over {} failed on {soc}:\n{stdout}\n{stderr}",
        lib.display()
    );
    Some(stdout)
}

fn over_our_lib(soc: &str) {
    if let Some(stdout) = child_over_our_lib("hw_child", soc) {
        assert!(
            stdout.contains(": passed"),
            "the child ran no case:\n{stdout}"
        );
    }
}

fn probe_over_our_lib(soc: &str) {
    if let Some(stdout) = child_over_our_lib("probe_child", soc) {
        assert!(
            stdout.contains("raw probe on"),
            "the child ran no probe:\n{stdout}"
        );
    }
}

macro_rules! per_soc {
    ($([$name:ident, $probe:ident] = $soc:literal),* $(,)?) => {
        $(
            #[test] fn $name() { over_our_lib($soc); }
            #[test] fn $probe() { probe_over_our_lib($soc); }
        )*

        #[test]
        fn every_sim_soc_is_instantiated() {
            assert_eq!([$($soc),*].as_slice(), SIM_SOCS);
        }
    };
}

per_soc!(
    [over_our_lib_ascend910b1, probe_over_our_lib_ascend910b1] = "Ascend910B1",
    [over_our_lib_ascend310b1, probe_over_our_lib_ascend310b1] = "Ascend310B1",
    [
        over_our_lib_ascend950pr_9599,
        probe_over_our_lib_ascend950pr_9599
    ] = "Ascend950PR_9599",
    [over_our_lib_ascend310p3, probe_over_our_lib_ascend310p3] = "Ascend310P3",
);

/// Whether the environment names a real runtime library.
fn device_library() -> Option<String> {
    if let Some(p) = std::env::var_os("ASCEND_RT_LIB").filter(|p| !p.is_empty()) {
        return Some(format!("ASCEND_RT_LIB={}", p.to_string_lossy()));
    }
    for var in ["ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"] {
        if let Some(root) = std::env::var_os(var).filter(|p| !p.is_empty()) {
            if PathBuf::from(&root).join("lib64/libascendcl.so").is_file() {
                return Some(format!("{var}={}", root.to_string_lossy()));
            }
        }
    }
    (std::env::var("ASCEND_CONFORMANCE_DEVICE").as_deref() == Ok("1"))
        .then(|| "libascendcl.so on the loader path".to_string())
}

/// The suite on a real device (the library the environment names).
#[test]
fn hw_on_device() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let Some(which) = device_library() else {
        println!(
            "SKIPPED: no Ascend toolkit (ASCEND_TOOLKIT_HOME / ASCEND_HOME_PATH with \
             lib64/libascendcl.so) and ASCEND_RT_LIB unset: no device run"
        );
        return;
    };
    // Fail loudly if the library cannot be used: the environment says there is one.
    let probe = Runtime::hw().unwrap_or_else(|e| panic!("{which}: {e}"));
    let soc = probe.chip().soc_name.clone();
    drop(probe);
    let label = format!("hw on device ({which}, {soc})");
    let results = run_suite(&label, &|| Runtime::hw().map_err(|e| e.to_string()), None);
    // The raw probe: the real conformance check of the front end's validation.
    let raw_probe = run_probe();
    assert_all_passed(&label, &results);
    if std::env::var("ASCEND_PROBE_REPORT_ONLY").as_deref() == Ok("1") {
        println!("ASCEND_PROBE_REPORT_ONLY=1: the raw probe's mismatches are reported, not failed");
    } else {
        raw_probe.assert_agrees(&format!("raw probe on device ({which}, {soc})"));
    }
}

#[test]
fn a_missing_library_is_a_typed_error() {
    use ascend_rt::HwError;
    match Runtime::hw_from("/nonexistent/dir/libascendcl.so") {
        Err(HwError::Library(e)) => assert!(e.to_string().contains("/nonexistent/dir")),
        other => panic!("expected a library error, got {other:?}"),
    }
}
