//! Compiles the C (and C++) programs in `tests/c/` with the system compiler against
//! `include/`, links them to the `libascendcl.so` built from this crate, and runs them.
//!
//! A machine without a C compiler skips these tests with a printed reason.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The directory holding the `libascendcl.so` built for this test run. Cargo builds the
/// library into `<target>/<profile>/deps` (next to this test binary) when it builds the tests;
/// only `cargo build` also copies it up to `<target>/<profile>`, where it may be stale, so the
/// `deps` copy is preferred.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps dir").to_path_buf();
    let profile = deps.parent().expect("target profile dir").to_path_buf();
    [deps.clone(), profile.clone()]
        .into_iter()
        .find(|d| d.join("libascendcl.so").exists())
        .unwrap_or_else(|| {
            panic!(
                "libascendcl.so not found in {} or {}",
                deps.display(),
                profile.display()
            )
        })
        .to_path_buf()
}

fn compiler(name: &str) -> Option<String> {
    let ok = Command::new(name)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    ok.then(|| name.to_string())
}

/// Builds `tests/c/<src>` into a fresh directory; `None` (with a printed reason) if no
/// compiler is installed.
fn build(src: &str, cxx: bool) -> Option<PathBuf> {
    let cc = if cxx {
        compiler("c++").or_else(|| compiler("g++"))
    } else {
        compiler("cc").or_else(|| compiler("gcc"))
    };
    let Some(cc) = cc else {
        println!(
            "SKIPPED: no {} compiler on this machine; cannot build {src}",
            if cxx { "C++" } else { "C" }
        );
        return None;
    };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = lib_dir();
    // One directory per build: tests run in parallel and several build the same source.
    static BUILDS: AtomicUsize = AtomicUsize::new(0);
    let out_dir = std::env::temp_dir().join(format!(
        "ascend-capi-{}-{}-{}",
        std::process::id(),
        BUILDS.fetch_add(1, Ordering::Relaxed),
        src.replace('.', "_")
    ));
    std::fs::create_dir_all(&out_dir).unwrap();
    let exe = out_dir.join("prog");
    let mut cmd = Command::new(cc);
    cmd.arg(if cxx { "-std=c++11" } else { "-std=c99" })
        .args([
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unused-variable",
            "-Wno-unused-const-variable",
        ])
        .arg("-I")
        .arg(manifest.join("include"))
        .arg(manifest.join("tests/c").join(src))
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lascendcl", "-lpthread"]);
    let out = cmd.output().expect("run the compiler");
    assert!(
        out.status.success(),
        "compiling {src} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}

fn run(exe: &Path, envs: &[(&str, &str)]) -> String {
    // Cargo's LD_LIBRARY_PATH for tests lists the profile directory, which may hold a stale
    // copy of the library from an earlier `cargo build`: point the loader at this run's.
    let out = Command::new(exe)
        .env("LD_LIBRARY_PATH", lib_dir())
        .envs(envs.iter().copied())
        .env("ASCEND_SIM_ON_STALL", "error")
        .env("ASCEND_SIM_WATCHDOG_MS", "5000")
        .output()
        .expect("run the program");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && stdout.contains("SUCCESS"),
        "{} failed ({}):\n{stdout}{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn two_thread_wait_write_runs_and_writes_a_report_and_a_trace() {
    let Some(exe) = build("two_thread_wait_write.c", false) else {
        return;
    };
    let report = exe.with_file_name("report.json");
    let trace = exe.with_file_name("trace.json");
    let out = run(
        &exe,
        &[
            ("ASCEND_SIM_SOC", "Ascend910B1"),
            ("ASCEND_SIM_REPORT", report.to_str().unwrap()),
            ("ASCEND_SIM_TRACE", trace.to_str().unwrap()),
        ],
    );
    assert!(out.contains("stream A: released, flag 123"), "{out}");
    let json = std::fs::read_to_string(&report).expect("run report written at aclFinalize");
    assert!(
        json.contains("ValueWait"),
        "report lacks the value wait: {json}"
    );
    let trace = std::fs::read_to_string(&trace).expect("trace written at aclFinalize");
    assert!(
        trace.contains("\"traceEvents\"") && trace.contains("ValueWrite"),
        "trace lacks the tasks: {trace}"
    );
}

#[test]
fn two_thread_wait_write_runs_on_950() {
    let Some(exe) = build("two_thread_wait_write.c", false) else {
        return;
    };
    run(&exe, &[("ASCEND_SIM_SOC", "Ascend950PR_9599")]);
}

#[test]
fn barrier_cmo_on_a_model_bound_stream_of_310b() {
    let Some(exe) = build("barrier_cmo.c", false) else {
        return;
    };
    run(&exe, &[("ASCEND_SIM_SOC", "Ascend310B1")]);
}

#[test]
fn error_paths_return_canns_codes() {
    let Some(exe) = build("error_paths.c", false) else {
        return;
    };
    run(&exe, &[("ASCEND_SIM_SOC", "Ascend910B1")]);
}

#[test]
fn supporting_calls_from_c() {
    let Some(exe) = build("supporting_calls.c", false) else {
        return;
    };
    run(&exe, &[("ASCEND_SIM_SOC", "Ascend910B1")]);
}

#[test]
fn headers_compile_as_cxx() {
    let Some(exe) = build("cxx_compile.cpp", true) else {
        return;
    };
    let status = Command::new(&exe)
        .env("LD_LIBRARY_PATH", lib_dir())
        .status()
        .expect("run");
    assert!(
        status.success(),
        "aclrtBarrierTaskInfo is not 56 bytes in C++"
    );
}

#[test]
fn unknown_soc_fails_cleanly() {
    let Some(exe) = build("error_paths.c", false) else {
        return;
    };
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", lib_dir())
        .env("ASCEND_SIM_SOC", "Ascend9999")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success(),
        "must fail with an unknown SoC: {stdout}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("500000"),
        "calls must return ACL_ERROR_INTERNAL_ERROR"
    );
}

#[test]
fn a_cxx_program_with_std_thread_runs() {
    let Some(exe) = build("multistream_sync.cpp", true) else {
        return;
    };
    run(&exe, &[("ASCEND_SIM_SOC", "Ascend910_9391")]);
}

#[test]
fn stale_device_pointers_and_impossible_sizes_get_canns_codes_without_a_crash() {
    let Some(exe) = build("bad_pointers_and_sizes.c", false) else {
        return;
    };
    run(&exe, &[("ASCEND_SIM_SOC", "Ascend910B1")]);
}

#[test]
fn many_threads_allocate_free_and_copy_without_losing_a_buffer_or_a_byte() {
    let Some(exe) = build("many_threads.c", false) else {
        return;
    };
    run(&exe, &[("ASCEND_SIM_SOC", "Ascend910B1")]);
}

/// Runs `exe` with `envs` (and nothing set by `run`), returning (success, stdout, stderr).
fn run_raw(exe: &Path, envs: &[(&str, &str)]) -> (bool, String, String) {
    let out = Command::new(exe)
        .env("LD_LIBRARY_PATH", lib_dir())
        .env_remove("ASCEND_SIM_SOC")
        .env_remove("ASCEND_SIM_ON_STALL")
        .env_remove("ASCEND_SIM_WATCHDOG_MS")
        .env_remove("ASCEND_SIM_LOG")
        .env_remove("ASCEND_SIM_CHIP_FILE")
        .envs(envs.iter().copied())
        .output()
        .expect("run the program");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (
        out.status.success() && stdout.contains("SUCCESS"),
        stdout,
        stderr,
    )
}

#[test]
fn a_bad_setting_is_named_with_its_value_and_the_accepted_values() {
    let Some(exe) = build("config_errors.c", false) else {
        return;
    };
    let missing = std::env::temp_dir().join("no-such-dir/chip.toml");
    let missing = missing.to_str().unwrap();
    let cases: [(&str, &str, &str); 7] = [
        (
            "ASCEND_SIM_HAZARDS",
            "sometimes",
            "`ignore`, `record` or `fail`",
        ),
        (
            "ASCEND_SIM_HAZARDS",
            "lost_write=maybe",
            "lost_write, partial_line",
        ),
        ("ASCEND_SIM_SOC", "Ascend9999", "Ascend910B1"),
        ("ASCEND_SIM_ON_STALL", "sometimes", "`wait` or `error`"),
        (
            "ASCEND_SIM_WATCHDOG_MS",
            "5s",
            "whole number of milliseconds",
        ),
        ("ASCEND_SIM_WATCHDOG_MS", "0", "at least 1"),
        ("ASCEND_SIM_CHIP_FILE", missing, "readable chip file"),
    ];
    for (var, value, accepted) in cases {
        let (ok, stdout, stderr) = run_raw(&exe, &[(var, value)]);
        assert!(
            ok,
            "{var}={value}: the program's checks failed:\n{stdout}{stderr}"
        );
        for text in [&stdout, &stderr] {
            assert!(
                text.contains(var) && text.contains(value) && text.contains(accepted),
                "{var}={value}: the message names the variable, the value and what is accepted:\n{text}"
            );
        }
    }
}

#[test]
fn a_chip_file_of_ones_own_is_simulated() {
    let Some(exe) = build("two_thread_wait_write.c", false) else {
        return;
    };
    let chip = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sim-models/Ascend910B4.toml");
    let (ok, stdout, stderr) = run_raw(&exe, &[("ASCEND_SIM_CHIP_FILE", chip.to_str().unwrap())]);
    assert!(ok, "{stdout}{stderr}");
}

#[test]
fn after_a_stall_the_recent_error_message_is_the_watchdogs_explanation() {
    let Some(exe) = build("stall_message.c", false) else {
        return;
    };
    let (ok, stdout, stderr) = run_raw(
        &exe,
        &[
            ("ASCEND_SIM_ON_STALL", "error"),
            ("ASCEND_SIM_WATCHDOG_MS", "200"),
        ],
    );
    assert!(ok, "{stdout}{stderr}");
    let recent = stdout.split_once("recent:").map_or("", |(_, r)| r);
    assert!(
        recent.contains("device stalled") && recent.contains("value wait on"),
        "{stdout}"
    );
    assert!(
        recent.contains("host thread waits in a synchronize of stream"),
        "{stdout}"
    );
}

#[test]
fn work_after_acl_finalize_reaches_the_report_written_at_exit() {
    let Some(exe) = build("report_after_finalize.c", false) else {
        return;
    };
    let report = exe.with_file_name("report.json");
    run(&exe, &[("ASCEND_SIM_REPORT", report.to_str().unwrap())]);
    let json = std::fs::read_to_string(&report).expect("report written");
    assert!(
        json.contains("ValueWrite"),
        "the report lacks the work after aclFinalize: {json}"
    );
}

#[test]
fn an_invalid_after_a_value_write_loses_it_and_the_report_says_so_unless_written_back() {
    let Some(exe) = build("cmo_lost_write.c", false) else {
        return;
    };
    for (arg, lost) in [("invalid-only", true), ("writeback", false)] {
        let report = exe.with_file_name(format!("report-{arg}.json"));
        let out = Command::new(&exe)
            .arg(arg)
            .env("LD_LIBRARY_PATH", lib_dir())
            .env("ASCEND_SIM_SOC", "Ascend910B1")
            .env("ASCEND_SIM_REPORT", &report)
            .output()
            .expect("run the program");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(
            out.status.success() && stdout.contains("SUCCESS"),
            "{arg}: {stdout}{stderr}"
        );
        let json = std::fs::read_to_string(&report).expect("report written");
        assert_eq!(json.contains("\"lost_write\""), lost, "{arg}: {json}");
        // The hazard is also said on stderr, through the library's log.
        assert_eq!(stderr.contains("hazard"), lost, "{arg}: {stderr}");
    }
}

#[test]
fn hazards_set_to_fail_fail_the_synchronize_and_appear_in_the_trace_when_recorded() {
    let Some(exe) = build("cmo_lost_write.c", false) else {
        return;
    };
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", lib_dir())
        .env("ASCEND_SIM_HAZARDS", "record,lost_write=fail")
        .output()
        .expect("run the program");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "the lost write fails the program's synchronize"
    );
    assert!(
        stderr.contains("aclrtSynchronizeStream(s) returned 507000"),
        "{stderr}"
    );
    let trace = exe.with_file_name("trace-hazard.json");
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", lib_dir())
        .env("ASCEND_SIM_TRACE", &trace)
        .output()
        .expect("run the program");
    assert!(out.status.success());
    let json = std::fs::read_to_string(&trace).expect("trace written");
    assert!(json.contains("hazard: lost_write"), "{json}");
}
