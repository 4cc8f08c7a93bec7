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
    build_with(src, cxx, &[])
}

/// As [`build`], compiling the crate-relative sources `extra` (and their folders as include
/// paths) into the program too.
fn build_with(src: &str, cxx: bool, extra: &[&str]) -> Option<PathBuf> {
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
        .arg(manifest.join("tests/c").join(src));
    for e in extra {
        let path = manifest.join(e);
        cmd.arg("-I")
            .arg(path.parent().expect("a file in a folder"))
            .arg(path);
    }
    cmd.arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        // Exported symbols, so that reports name kernels by their functions.
        .arg("-rdynamic")
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

/// What a run of a test program printed, and how it ended.
struct Ran {
    status: std::process::ExitStatus,
    stdout: String,
    stderr: String,
}

impl Ran {
    /// Exited 0 having printed its SUCCESS line.
    fn passed(&self) -> bool {
        self.status.success() && self.stdout.contains("SUCCESS")
    }
}

/// Runs `exe` with `args` against this run's library, with the simulator's variables of the
/// test process removed and `envs` set.
fn launch(exe: &Path, args: &[&str], envs: &[(&str, &str)]) -> Ran {
    // Cargo's LD_LIBRARY_PATH for tests lists the profile directory, which may hold a stale
    // copy of the library from an earlier `cargo build`: point the loader at this run's.
    let mut cmd = Command::new(exe);
    cmd.args(args).env("LD_LIBRARY_PATH", lib_dir());
    for var in [
        "ASCEND_SIM_SOC",
        "ASCEND_SIM_ON_STALL",
        "ASCEND_SIM_WATCHDOG_MS",
        "ASCEND_SIM_LOG",
        "ASCEND_SIM_CHIP_FILE",
        "ASCEND_SIM_HAZARDS",
        "ASCEND_SIM_PACING",
    ] {
        cmd.env_remove(var);
    }
    let out = cmd
        .envs(envs.iter().copied())
        .output()
        .expect("run the program");
    Ran {
        status: out.status,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `exe` with `envs`, a stall ending in an error after 5 s, and asserts it passed.
fn run(exe: &Path, envs: &[(&str, &str)]) -> String {
    let mut all = envs.to_vec();
    all.extend([
        ("ASCEND_SIM_ON_STALL", "error"),
        ("ASCEND_SIM_WATCHDOG_MS", "5000"),
    ]);
    let ran = launch(exe, &[], &all);
    assert!(
        ran.passed(),
        "{} failed ({}):\n{}{}",
        exe.display(),
        ran.status,
        ran.stdout,
        ran.stderr
    );
    ran.stdout
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
fn each_api_call_is_a_slice_on_its_threads_host_track_with_an_arrow_to_its_task() {
    let Some(exe) = build("two_thread_wait_write.c", false) else {
        return;
    };
    let report = exe.with_file_name("report.json");
    let trace = exe.with_file_name("trace.json");
    run(
        &exe,
        &[
            ("ASCEND_SIM_REPORT", report.to_str().unwrap()),
            ("ASCEND_SIM_TRACE", trace.to_str().unwrap()),
        ],
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let calls = r["host_calls"].as_array().expect("host calls");
    let write = calls
        .iter()
        .find(|c| c["name"] == "aclrtValueWrite")
        .expect("the value write's call");
    assert_eq!(write["code"], 0);
    assert!(
        write["args"]
            .as_str()
            .is_some_and(|a| a.contains("value=100")),
        "the call's arguments: {write}"
    );
    assert_eq!(write["tasks"].as_array().map(Vec::len), Some(1));
    assert!(
        write["end_ns"].as_u64() > write["start_ns"].as_u64(),
        "{write}"
    );
    let threads = r["host_threads"].as_array().expect("host threads");
    assert!(
        threads.len() >= 2,
        "the main thread and the two workers: {threads:?}"
    );
    let sync = calls
        .iter()
        .find(|c| c["name"] == "aclrtSynchronizeStream" && c["wait_ns"].as_u64() > Some(0))
        .expect("a synchronize that waited for the device");
    assert!(
        sync["end_ns"].as_u64().unwrap() - sync["start_ns"].as_u64().unwrap()
            >= sync["wait_ns"].as_u64().unwrap()
    );
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    assert!(events
        .iter()
        .any(|e| e["name"] == "process_name" && e["args"]["name"] == "host"));
    assert!(events
        .iter()
        .any(|e| e["ph"] == "X" && e["name"] == "aclrtValueWrite"));
    let launches = events
        .iter()
        .filter(|e| e["name"] == "launch" && (e["ph"] == "s" || e["ph"] == "f"))
        .count();
    assert!(
        launches >= 4,
        "an arrow from each launching call to its task"
    );
}

#[test]
fn the_progress_file_holds_the_tasks_completed_and_the_time_reached_at_exit() {
    let Some(exe) = build("two_thread_wait_write.c", false) else {
        return;
    };
    let progress = exe.with_file_name("progress");
    let report = exe.with_file_name("progress-report.json");
    run(
        &exe,
        &[
            ("ASCEND_SIM_PROGRESS", progress.to_str().unwrap()),
            ("ASCEND_SIM_REPORT", report.to_str().unwrap()),
        ],
    );
    let line = std::fs::read_to_string(&progress).expect("the progress file");
    let figures: Vec<u64> = line
        .split_whitespace()
        .map(|n| n.parse().expect("numbers"))
        .collect();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let tasks: u64 = report["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["tasks"].as_u64().unwrap())
        .sum();
    assert!(tasks > 0);
    assert_eq!(
        figures,
        [tasks, report["end_ns"].as_u64().unwrap()],
        "{line}"
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
fn the_api_families_of_the_vendor_samples_answer_from_c() {
    let Some(exe) = build("api_breadth.c", false) else {
        return;
    };
    run(&exe, &[]);
}

#[test]
fn the_api_families_of_the_vendor_samples_answer_from_c_on_a_shared_device() {
    // Host functions and callbacks, registered memory, reduce, random-number and label tasks,
    // copies into host memory: each through the device service as in a process of its own.
    let Some(exe) = build("api_breadth.c", false) else {
        return;
    };
    let socket = exe.with_file_name("breadth.sock");
    let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
    ascend_rt::device_service::spawn(&socket, chip, Default::default()).unwrap();
    run(&exe, &[("ASCEND_SIM_DEVICE", socket.to_str().unwrap())]);
}

#[test]
fn headers_compile_as_cxx() {
    let Some(exe) = build("cxx_compile.cpp", true) else {
        return;
    };
    assert!(
        launch(&exe, &[], &[]).status.success(),
        "aclrtBarrierTaskInfo is not 56 bytes in C++"
    );
}

#[test]
fn unknown_soc_fails_cleanly() {
    let Some(exe) = build("error_paths.c", false) else {
        return;
    };
    let ran = launch(&exe, &[], &[("ASCEND_SIM_SOC", "Ascend9999")]);
    assert!(
        !ran.status.success(),
        "must fail with an unknown SoC: {}",
        ran.stdout
    );
    assert!(
        ran.stderr.contains("500000"),
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

#[test]
fn a_bad_setting_is_named_with_its_value_and_the_accepted_values() {
    let Some(exe) = build("config_errors.c", false) else {
        return;
    };
    let missing = std::env::temp_dir().join("no-such-dir/chip.toml");
    let missing = missing.to_str().unwrap();
    let cases: [(&str, &str, &str); 11] = [
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
        ("ASCEND_SIM_SOC", "ascend310b1", "did you mean Ascend310B1?"),
        (
            "ASCEND_SIM_HAZARDS",
            "record,lost_writes=fail",
            "`lost_writes` is not a hazard class",
        ),
        ("ASCEND_SIM_ON_STALL", "sometimes", "`wait` or `error`"),
        (
            "ASCEND_SIM_WATCHDOG_MS",
            "5s",
            "whole number of milliseconds",
        ),
        ("ASCEND_SIM_WATCHDOG_MS", "0", "at least 1"),
        ("ASCEND_SIM_CHIP_FILE", missing, "readable chip file"),
        (
            "ASCEND_SIM_PACING",
            "sometimes",
            "`calls`, `wall` or `wall:RATIO`",
        ),
        (
            "ASCEND_SIM_PACING",
            "wall:0",
            "`calls`, `wall` or `wall:RATIO`",
        ),
    ];
    for (var, value, accepted) in cases {
        let ran = launch(&exe, &[], &[(var, value)]);
        let (stdout, stderr) = (&ran.stdout, &ran.stderr);
        assert!(
            ran.passed(),
            "{var}={value}: the program's checks failed:\n{stdout}{stderr}"
        );
        for text in [stdout, stderr] {
            assert!(
                text.contains(var) && text.contains(value) && text.contains(accepted),
                "{var}={value}: the message names the variable, the value and what is accepted:\n{text}"
            );
        }
    }
}

#[test]
fn a_write_back_over_a_memset_made_around_the_l2_is_a_clobber_unless_flushed_first() {
    let Some(exe) = build("cmo_clobber.c", false) else {
        return;
    };
    // The built-in Ascend910B1 file with the copy engine going around the L2.
    let builtin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sim-models/Ascend910B1.toml");
    let text = std::fs::read_to_string(builtin).unwrap();
    let key = "copy_engine_via_l2 = { value = true";
    assert!(text.contains(key));
    let chip = exe.with_file_name("copy-engine-around-l2.toml");
    std::fs::write(
        &chip,
        text.replace(key, "copy_engine_via_l2 = { value = false"),
    )
    .unwrap();
    for (arg, clobbered) in [("writeback-only", true), ("flush-first", false)] {
        let report = exe.with_file_name(format!("report-clobber-{arg}.json"));
        let ran = launch(
            &exe,
            &[arg],
            &[
                ("ASCEND_SIM_CHIP_FILE", chip.to_str().unwrap()),
                ("ASCEND_SIM_REPORT", report.to_str().unwrap()),
            ],
        );
        let (stdout, stderr) = (&ran.stdout, &ran.stderr);
        assert!(ran.passed(), "{arg}: {stdout}{stderr}");
        let json = std::fs::read_to_string(&report).expect("report written");
        assert_eq!(json.contains("\"clobber\""), clobbered, "{arg}: {json}");
        assert_eq!(stderr.contains("hazard"), clobbered, "{arg}: {stderr}");
    }
    let ran = launch(
        &exe,
        &[],
        &[
            ("ASCEND_SIM_CHIP_FILE", chip.to_str().unwrap()),
            ("ASCEND_SIM_HAZARDS", "record,clobber=fail"),
        ],
    );
    assert!(!ran.status.success(), "the clobber fails the synchronize");
    assert!(
        ran.stderr
            .contains("aclrtSynchronizeStream(s) returned 507000"),
        "{}",
        ran.stderr
    );
}

#[test]
fn the_developer_guide_kernels_synchronise_with_stream_tasks_and_each_missing_dcci_is_said() {
    let Some(exe) = build("kernel_memory_sync.c", false) else {
        return;
    };
    let report = exe.with_file_name("report-kernels.json");
    let ran = launch(
        &exe,
        &["ok"],
        &[("ASCEND_SIM_REPORT", report.to_str().unwrap())],
    );
    assert!(ran.passed(), "{}{}", ran.stdout, ran.stderr);
    let json = std::fs::read_to_string(&report).expect("report written");
    for part in [
        "\"myKernel1\"",
        "\"myKernel2\"",
        "\"value_waits\"",
        "\"hazards\": []",
    ] {
        assert!(json.contains(part), "{part} in {json}");
    }
    // The wait was released by myKernel1's store; myKernel2 by the value write.
    let released = json.split("\"released_by\": ").nth(1).unwrap_or_default();
    assert!(released.starts_with("\"kernel myKernel1"), "{json}");
    let polled = json
        .split("\"last_polled_writer\": ")
        .filter(|p| p.starts_with("\"task"))
        .count();
    assert_eq!(polled, 1, "myKernel2 polled the value write's word: {json}");

    // Without the writer's dcci: on the A2 the store reaches memory only at the kernel's end
    // (said as a hazard); on the 950 the kernel's tail drops it and the wait never ends.
    let ran = launch(&exe, &["no-writer-dcci"], &[]);
    assert!(ran.passed(), "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stderr.contains("invisible_write"), "{}", ran.stderr);
    let ran = launch(
        &exe,
        &["no-writer-dcci"],
        &[
            ("ASCEND_SIM_SOC", "Ascend950PR_9599"),
            ("ASCEND_SIM_ON_STALL", "error"),
            ("ASCEND_SIM_WATCHDOG_MS", "200"),
        ],
    );
    assert!(ran.passed(), "{}{}", ran.stdout, ran.stderr);
    let recent = ran.stdout.split_once("recent:").map_or("", |(_, r)| r);
    for part in ["value wait on", "tail", "dropped", "dcci"] {
        assert!(recent.contains(part), "{part} in {}", ran.stdout);
    }

    // Without the poller's dcci: myKernel2 spins on its stale cached line; the watchdog ends
    // the synchronize and says so.
    let ran = launch(
        &exe,
        &["no-poller-dcci"],
        &[
            ("ASCEND_SIM_ON_STALL", "error"),
            ("ASCEND_SIM_WATCHDOG_MS", "200"),
        ],
    );
    assert!(ran.passed(), "{}{}", ran.stdout, ran.stderr);
    let recent = ran.stdout.split_once("recent:").map_or("", |(_, r)| r);
    for part in ["myKernel2", "stale", "dcci"] {
        assert!(recent.contains(part), "{part} in {}", ran.stdout);
    }
    assert!(ran.stderr.contains("watchdog"), "{}", ran.stderr);
}

#[test]
fn the_sample_kernels_compute_take_their_time_and_trap_as_the_vendor_samples_expect() {
    const KERNELS: [&str; 8] = [
        "easy_OP.cpp",
        "error_OP.cpp",
        "long_OP.cpp",
        "short_OP.cpp",
        "write_read_value.cpp",
        "kernel_print.cpp",
        "kernel_add.cpp",
        "vector_add_kernel.cpp",
    ];
    let extra: Vec<String> = KERNELS
        .iter()
        .map(|k| format!("sample-kernels/{k}"))
        .collect();
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let Some(exe) = build_with("sample_kernels.cpp", true, &extra) else {
        return;
    };
    let out = run(&exe, &[]);
    assert!(out.contains("Destination data: 123"), "{out}");
    assert_eq!(out.matches("Hello World").count(), 2, "{out}");
    let recent = out.split_once("recent:").map_or("", |(_, r)| r);
    assert!(recent.contains("trap"), "{out}");
}

#[test]
fn a_binary_function_runs_the_simulator_kernel_of_its_name_and_a_missing_one_is_named() {
    let Some(exe) = build_with(
        "binary_kernels.cpp",
        true,
        &["sample-kernels/add_custom.cpp"],
    ) else {
        return;
    };
    let out = run(&exe, &[]);
    assert!(out.contains("no_such_kernel"), "{out}");
}

#[test]
fn a_kernel_that_calls_the_acl_api_is_faulted_and_a_dead_context_is_refused() {
    let Some(exe) = build("kernel_misuse.c", false) else {
        return;
    };
    let ran = launch(&exe, &[], &[("ASCEND_SIM_WATCHDOG_MS", "5000")]);
    assert!(ran.passed(), "{}{}", ran.stdout, ran.stderr);
    assert!(
        !ran.stderr.contains("panicked") && !ran.stderr.contains("RUST_BACKTRACE"),
        "no panic text: {}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("aclsimLoad32") && ran.stderr.contains("returned"),
        "the refused context is said on the log: {}",
        ran.stderr
    );
}

#[test]
fn a_c_kernel_that_overflows_its_stack_faults_its_block_and_the_program_goes_on() {
    if !ascend_sim_stack_guard::SUPPORTED {
        eprintln!("SKIPPED: stack overflows are caught only on Linux x86-64 and AArch64");
        return;
    }
    let Some(exe) = build("kernel_stack_overflow.c", false) else {
        return;
    };
    let ran = launch(&exe, &[], &[("ASCEND_SIM_KERNEL_STACK", "131072")]);
    assert!(ran.passed(), "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("overflowed its stack of 131072 bytes"),
        "{}",
        ran.stdout
    );
}

#[test]
fn a_bad_kernel_launch_gets_its_error_and_a_faulting_kernel_fails_its_stream_only() {
    let Some(exe) = build("kernel_bad_launch.c", false) else {
        return;
    };
    let ran = launch(&exe, &[], &[]);
    assert!(ran.passed(), "{}{}", ran.stdout, ran.stderr);
    let recent = ran.stdout.split_once("recent:").map_or("", |(_, r)| r);
    assert!(
        recent.contains("wild") || recent.contains("kernel"),
        "{}",
        ran.stdout
    );
    assert!(recent.contains("0x8"), "{}", ran.stdout);
}

#[test]
fn a_chip_file_of_ones_own_is_simulated() {
    let Some(exe) = build("two_thread_wait_write.c", false) else {
        return;
    };
    let chip = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sim-models/Ascend910B4.toml");
    let ran = launch(
        &exe,
        &[],
        &[("ASCEND_SIM_CHIP_FILE", chip.to_str().unwrap())],
    );
    assert!(ran.passed(), "{}{}", ran.stdout, ran.stderr);
}

#[test]
fn after_a_stall_the_recent_error_message_is_the_watchdogs_explanation() {
    let Some(exe) = build("stall_message.c", false) else {
        return;
    };
    let ran = launch(
        &exe,
        &[],
        &[
            ("ASCEND_SIM_ON_STALL", "error"),
            ("ASCEND_SIM_WATCHDOG_MS", "200"),
        ],
    );
    let stdout = &ran.stdout;
    assert!(ran.passed(), "{stdout}{}", ran.stderr);
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
        let report_path = report.to_str().unwrap();
        let ran = launch(
            &exe,
            &[arg],
            &[
                ("ASCEND_SIM_SOC", "Ascend910B1"),
                ("ASCEND_SIM_REPORT", report_path),
            ],
        );
        let (stdout, stderr) = (&ran.stdout, &ran.stderr);
        assert!(ran.passed(), "{arg}: {stdout}{stderr}");
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
    let ran = launch(
        &exe,
        &[],
        &[("ASCEND_SIM_HAZARDS", "record,lost_write=fail")],
    );
    assert!(
        !ran.status.success(),
        "the lost write fails the program's synchronize"
    );
    assert!(
        ran.stderr
            .contains("aclrtSynchronizeStream(s) returned 507000"),
        "{}",
        ran.stderr
    );
    let trace = exe.with_file_name("trace-hazard.json");
    let ran = launch(&exe, &[], &[("ASCEND_SIM_TRACE", trace.to_str().unwrap())]);
    assert!(ran.status.success());
    let json = std::fs::read_to_string(&trace).expect("trace written");
    assert!(json.contains("hazard: lost_write"), "{json}");
}

/// Runs one scenario of `host_clock.c` (a stall ends in an error after 5 s) and returns what it
/// printed, asserting it passed.
fn host_clock(scenario: &str) -> String {
    host_clock_with(scenario, &[])
}

/// As [`host_clock`], with `extra` variables set.
fn host_clock_with(scenario: &str, extra: &[(&str, &str)]) -> String {
    let Some(exe) = build("host_clock.c", false) else {
        return String::new();
    };
    let mut envs = vec![
        ("ASCEND_SIM_ON_STALL", "error"),
        ("ASCEND_SIM_WATCHDOG_MS", "5000"),
    ];
    envs.extend_from_slice(extra);
    let ran = launch(&exe, &[scenario], &envs);
    assert!(
        ran.passed(),
        "host_clock {scenario} failed ({}):\n{}{}",
        ran.status,
        ran.stdout,
        ran.stderr
    );
    ran.stdout
}

#[test]
fn event_and_stream_query_loops_end_after_a_bounded_number_of_queries() {
    let out = host_clock("poll");
    assert!(
        out.is_empty() || out.contains("event queries") && out.contains("(complete)"),
        "{out}"
    );
}

#[test]
fn an_async_copy_queued_before_a_synchronous_copy_lands_while_it_runs() {
    host_clock("sync-copy");
}

#[test]
fn a_kernel_launched_before_a_force_destroy_has_run_when_it_returns() {
    host_clock("force-destroy");
}

#[test]
fn a_host_function_runs_while_the_host_only_makes_cheap_calls() {
    host_clock("host-func");
}

#[test]
fn a_pending_host_call_holds_its_own_stream_only() {
    host_clock("held-stream");
}

#[test]
fn a_timed_wait_behind_a_spinning_kernel_ends_at_once_and_says_what_blocks() {
    let out = host_clock("spin-timeout");
    assert!(
        out.is_empty() || out.contains("recent:") && out.contains("dcci"),
        "{out}"
    );
}

#[test]
fn in_the_paced_mode_a_host_spinning_on_pinned_memory_sees_a_copy_land() {
    let out = host_clock_with("paced", &[("ASCEND_SIM_PACING", "wall")]);
    assert!(out.is_empty() || out.contains("0x77"), "{out}");
}

#[test]
fn a_single_threaded_program_with_a_host_function_gives_the_same_run_every_time() {
    let Some(exe) = build("host_clock.c", false) else {
        return;
    };
    let runs: Vec<(String, String)> = (0..4)
        .map(|i| {
            let report = exe.with_file_name(format!("report-{i}.json"));
            let ran = launch(
                &exe,
                &["host-func-poll"],
                &[("ASCEND_SIM_REPORT", report.to_str().unwrap())],
            );
            assert!(ran.passed(), "{}{}", ran.stdout, ran.stderr);
            (ran.stdout, std::fs::read_to_string(&report).unwrap())
        })
        .collect();
    for (i, run) in runs.iter().enumerate().skip(1) {
        assert_eq!(run.0, runs[0].0, "run {i} printed otherwise");
        assert!(run.1 == runs[0].1, "run {i} gave another report");
    }
}

#[test]
fn each_missing_ordering_edge_is_a_race_and_its_twin_with_the_edge_is_silent() {
    let Some(exe) = build("races.c", false) else {
        return;
    };
    let shapes = [
        ("copy", "data_race"),
        ("flag", "data_race"),
        ("fills", "data_race"),
        ("invalid", "data_race"),
        ("host-read", "data_race"),
        ("pinned", "data_race"),
        ("eq", "sync_word_race"),
        ("writers", "sync_word_race"),
        ("kernel", "data_race"),
        ("blocks", "data_race"),
    ];
    for (shape, class) in shapes {
        for ordered in [false, true] {
            let arg = if ordered {
                format!("{shape}-ordered")
            } else {
                shape.to_string()
            };
            let report = exe.with_file_name(format!("report-races-{arg}.json"));
            let ran = launch(
                &exe,
                &[&arg],
                &[
                    ("ASCEND_SIM_RACES", "on"),
                    ("ASCEND_SIM_REPORT", report.to_str().unwrap()),
                ],
            );
            // The data is right either way: only the detector tells.
            assert!(ran.passed(), "{arg}: {}{}", ran.stdout, ran.stderr);
            let json = std::fs::read_to_string(&report).expect("report written");
            let said = format!("\"{class}\"");
            assert_eq!(json.contains(&said), !ordered, "{arg}: {json}");
            if !ordered && class == "data_race" {
                assert!(
                    json.contains("neither is ordered before the other"),
                    "{arg}: {json}"
                );
            }
            assert!(
                !json.contains("\"data_race\"") || class == "data_race",
                "{arg}: {json}"
            );
            // Off (the default), nothing is said.
            let quiet = launch(
                &exe,
                &[&arg],
                &[("ASCEND_SIM_REPORT", report.to_str().unwrap())],
            );
            assert!(quiet.passed(), "{arg}: {}{}", quiet.stdout, quiet.stderr);
            let json = std::fs::read_to_string(&report).expect("report written");
            assert!(!json.contains(&said), "{arg}: {json}");
        }
    }
}

#[test]
fn a_hazard_flood_counts_every_occurrence_and_says_a_few_of_each_class_on_stderr() {
    let Some(exe) = build("hazard_flood.c", false) else {
        return;
    };
    let report = exe.with_file_name("report-flood.json");
    let ran = launch(
        &exe,
        &[],
        &[("ASCEND_SIM_REPORT", report.to_str().unwrap())],
    );
    assert!(ran.passed(), "{}{}", ran.stdout, ran.stderr);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let counts = &json["hazard_counts"];
    assert_eq!(counts["lost_write"], 8192 + 20, "{counts}");
    assert_eq!(counts["never_written_read"], 1, "{counts}");
    // The 4 MiB INVALID is one record of 8,192.
    let records = json["hazards"].as_array().unwrap();
    assert!(records.iter().any(|h| h["count"] == 8192), "{records:?}");
    let said = |class: &str| {
        ran.stderr
            .lines()
            .filter(|l| l.contains("hazard:") && l.contains(&format!("kind={class}")))
            .count()
    };
    assert_eq!(said("lost_write"), 5, "{}", ran.stderr);
    assert_eq!(said("never_written_read"), 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("5 lost_write hazards said"),
        "{}",
        ran.stderr
    );
}

#[test]
fn inputs_only_the_code_accepts_are_warned_of_once_per_call_site_and_refused_under_documented_rules(
) {
    let Some(exe) = build("code_rules.c", false) else {
        return;
    };
    let warnings = |text: &str, rule: &str| {
        text.lines()
            .filter(|l| l.contains("WARN") && l.contains(&format!("rule=\"{rule}\"")))
            .count()
    };
    let code = launch(&exe, &["code"], &[]);
    assert!(code.passed(), "{}{}", code.stdout, code.stderr);
    assert_eq!(
        warnings(&code.stderr, "prefetch-only"),
        1,
        "{}",
        code.stderr
    );
    assert_eq!(
        warnings(&code.stderr, "8-byte-aligned"),
        1,
        "{}",
        code.stderr
    );
    assert_eq!(
        warnings(&code.stderr, "size-narrowed"),
        1,
        "{}",
        code.stderr
    );
    assert!(
        code.stderr.contains(
            "size 8589934592 is narrowed to 32 bits by the runtime: the task acts on 0 bytes"
        ),
        "{}",
        code.stderr
    );
    // The warning names the call site: the program's own function.
    assert!(code.stderr.contains("(at main"), "{}", code.stderr);
    let documented = launch(&exe, &["documented"], &[("ASCEND_SIM_RULES", "documented")]);
    assert!(
        documented.passed(),
        "{}{}",
        documented.stdout,
        documented.stderr
    );
    assert_eq!(warnings(&documented.stderr, "prefetch-only"), 0);
    assert_eq!(warnings(&documented.stderr, "size-narrowed"), 1);
    let bad = launch(&exe, &["code"], &[("ASCEND_SIM_RULES", "strict")]);
    assert!(
        bad.stderr.contains("ASCEND_SIM_RULES") && bad.stderr.contains("`code` or `documented`"),
        "{}",
        bad.stderr
    );
}

/// Reads lines of `from` until one starts with `tag`; returns the rest of it.
fn line_after(from: &mut impl std::io::BufRead, tag: &str, who: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        let n = from.read_line(&mut line).unwrap();
        assert!(n > 0, "{who} ended before saying {tag}");
        if let Some(rest) = line.strip_prefix(tag) {
            return rest.trim().to_string();
        }
    }
}

#[test]
fn two_processes_on_one_shared_device_synchronise_through_ipc_memory() {
    use std::io::{BufReader, Write};
    use std::process::Stdio;
    let Some(exe) = build("shared_device.c", false) else {
        return;
    };
    let socket = exe.with_file_name("device.sock");
    let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
    ascend_rt::device_service::spawn(&socket, chip, Default::default()).unwrap();
    let start = |args: &[&str]| {
        Command::new(&exe)
            .args(args)
            .env("LD_LIBRARY_PATH", lib_dir())
            .env("ASCEND_SIM_DEVICE", &socket)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut exporter = start(&[]);
    let mut exp_out = BufReader::new(exporter.stdout.take().unwrap());
    let key = line_after(&mut exp_out, "KEY ", "the exporter");
    let mut importer = start(&["import", &key]);
    let mut imp_out = BufReader::new(importer.stdout.take().unwrap());
    let pid = line_after(&mut imp_out, "PID ", "the importer");
    assert_eq!(
        pid,
        importer.id().to_string(),
        "the bare tgid is the process id"
    );
    let mut exp_in = exporter.stdin.take().unwrap();
    writeln!(exp_in, "{pid}").unwrap();
    line_after(&mut exp_out, "WAITING", "the exporter");
    writeln!(importer.stdin.take().unwrap(), "go").unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut imp_out, &mut rest).unwrap();
    let imp = importer.wait_with_output().unwrap();
    assert!(
        imp.status.success() && rest.contains("SUCCESS"),
        "the importer: {rest}{}",
        String::from_utf8_lossy(&imp.stderr)
    );
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut exp_out, &mut rest).unwrap();
    let exp = exporter.wait_with_output().unwrap();
    assert!(
        exp.status.success()
            && rest.contains("released by the importer: 123")
            && rest.contains("SUCCESS"),
        "the exporter: {rest}{}",
        String::from_utf8_lossy(&exp.stderr)
    );
}

/// A process of `physical_sharing.c` on the service at `socket`.
fn physical_role(exe: &Path, socket: &Path, args: &[&str]) -> std::process::Child {
    use std::process::Stdio;
    Command::new(exe)
        .args(args)
        .env("LD_LIBRARY_PATH", lib_dir())
        .env("ASCEND_SIM_DEVICE", socket)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The rest of a child's stdout and its end; asserts it succeeded saying `want`.
fn finished(mut child: std::process::Child, out: impl std::io::Read, want: &str, who: &str) {
    let mut rest = String::new();
    let mut out = out;
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    child.stdin.take();
    let end = child.wait_with_output().unwrap();
    assert!(
        end.status.success() && rest.contains(want) && rest.contains("SUCCESS"),
        "{who}: {rest}{}",
        String::from_utf8_lossy(&end.stderr)
    );
}

#[test]
fn four_processes_share_physical_memory_and_a_killed_one_leaves_the_others_going() {
    use std::io::{BufReader, Write};
    let Some(exe) = build("physical_sharing.c", false) else {
        return;
    };
    let socket = exe.with_file_name("device.sock");
    let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
    ascend_rt::device_service::spawn(&socket, chip, Default::default()).unwrap();
    let writers = 3;
    let mut exporter = physical_role(&exe, &socket, &["exporter", "4", "3"]);
    let mut exp_out = BufReader::new(exporter.stdout.take().unwrap());
    let handle = line_after(&mut exp_out, "HANDLE ", "the exporter");

    // A process not on the whitelist is refused.
    let outsider = physical_role(&exe, &socket, &["refused", &handle]);
    let out = outsider.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("SUCCESS"),
        "the outsider: {text}"
    );

    // Three importers and a holder, whitelisted by the pids they report.
    let mut children = Vec::new();
    for i in 1..=writers {
        let idx = i.to_string();
        let mut c = physical_role(&exe, &socket, &["importer", &idx, &handle]);
        let mut out = BufReader::new(c.stdout.take().unwrap());
        let pid = line_after(&mut out, "PID ", "an importer");
        children.push((c, out, pid));
    }
    let mut holder = physical_role(&exe, &socket, &["holder", &handle]);
    let mut hold_out = BufReader::new(holder.stdout.take().unwrap());
    let holder_pid = line_after(&mut hold_out, "PID ", "the holder");
    let mut exp_in = exporter.stdin.take().unwrap();
    for (_, _, pid) in &children {
        writeln!(exp_in, "{pid}").unwrap();
    }
    writeln!(exp_in, "{holder_pid}").unwrap();
    line_after(&mut exp_out, "WAITING", "the exporter");

    // The holder maps the memory and is killed holding it; the others go on.
    writeln!(holder.stdin.take().unwrap(), "go").unwrap();
    line_after(&mut hold_out, "MAPPED", "the holder");
    holder.kill().unwrap();
    holder.wait().unwrap();
    for (c, out, _) in children.iter_mut() {
        writeln!(c.stdin.as_mut().unwrap(), "go").unwrap();
        let _ = out;
    }
    for (i, (c, out, _)) in children.into_iter().enumerate() {
        finished(
            c,
            out,
            &format!("importer {} wrote its slot", i + 1),
            "an importer",
        );
    }
    finished(exporter, exp_out, "all 3 importers wrote", "the exporter");

    // The exporter freed the memory: its shareable handle imports no more.
    let late = physical_role(&exe, &socket, &["late", &handle]);
    let out = late.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("SUCCESS"),
        "a late import: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let st = ascend_rt::device_service::status(&socket).unwrap();
    assert!(
        st.iter()
            .all(|p| (p.allocations, p.reserved_ranges, p.mappings) == (0, 0, 0)),
        "nothing is left booked: {st:?}"
    );
}

#[test]
fn two_processes_are_ordered_by_an_ipc_notify_one_way_and_an_ipc_event_the_other() {
    use std::io::{BufReader, Write};
    let Some(exe) = build("ipc_sync.c", false) else {
        return;
    };
    let socket = exe.with_file_name("device.sock");
    let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
    ascend_rt::device_service::spawn(&socket, chip, Default::default()).unwrap();
    let mut creator = physical_role(&exe, &socket, &[]);
    let mut out = BufReader::new(creator.stdout.take().unwrap());
    let keys = line_after(&mut out, "KEYS ", "the creator");
    line_after(&mut out, "QUEUED", "the creator");
    let mut args = vec!["opener"];
    args.extend(keys.split_whitespace());
    let opener = physical_role(&exe, &socket, &args);
    let end = opener.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&end.stdout);
    assert!(
        end.status.success() && text.contains("read 42 after the creator's event"),
        "the opener: {text}{}",
        String::from_utf8_lossy(&end.stderr)
    );
    line_after(&mut out, "released by the opener", "the creator");
    writeln!(creator.stdin.as_mut().unwrap(), "done").unwrap();
    finished(creator, out, "SUCCESS", "the creator");
}
