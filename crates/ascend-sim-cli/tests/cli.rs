//! The `ascend-sim` command end to end: `models`, `report`, and `exec` on C programs (a
//! correct one, one whose kernel spins on a stale line, one that crashes). Programs are built
//! with the C compiler against the `libascendcl.so` cargo built beside the binary; without a
//! compiler those tests are skipped with a printed reason.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ascend-sim"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Builds `src` (a C file) into a fresh folder, or `None` (printed) without a compiler.
fn build_c(name: &str, src: &str) -> Option<PathBuf> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    if Command::new(&cc).arg("--version").output().is_err() {
        println!("SKIPPED: no C compiler ({cc}) to build {name}");
        return None;
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = Path::new(env!("CARGO_BIN_EXE_ascend-sim"))
        .parent()
        .unwrap()
        .join("deps");
    let out = std::env::temp_dir().join(format!("ascend-sim-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let c = out.join(format!("{name}.c"));
    std::fs::write(&c, src).unwrap();
    let exe = out.join(name);
    let built = Command::new(&cc)
        .arg("-std=c99")
        .arg("-I")
        .arg(manifest.join("../ascend-sim-capi/include"))
        .arg("-I")
        .arg(manifest.join("../ascend-sim-capi/tests/c"))
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&lib)
        .args(["-rdynamic", "-lascendcl", "-lpthread"])
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", text(&built));
    Some(exe)
}

fn kernel_sample() -> Option<PathBuf> {
    let src = include_str!("../../ascend-sim-capi/tests/c/kernel_memory_sync.c");
    build_c("kernel_memory_sync", src)
}

#[test]
fn models_lists_every_soc_with_its_operations() {
    let out = cli().arg("models").output().unwrap();
    assert!(out.status.success());
    let t = text(&out);
    for soc in ascend_chips::builtin_names() {
        assert!(t.contains(soc), "{soc} in {t}");
    }
    assert!(t.contains("aclrtCmoWaitBarrier"), "{t}");
}

#[test]
fn exec_summarises_a_correct_run_and_keeps_the_programs_status() {
    let Some(exe) = kernel_sample() else {
        return;
    };
    let report = exe.with_file_name("report.json");
    let out = cli()
        .args(["exec", "--report"])
        .arg(&report)
        .arg("--")
        .arg(&exe)
        .arg("ok")
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    for part in [
        "== ascend-sim summary",
        "exit code 0",
        "released by kernel myKernel1",
        "kernel myKernel2",
        "hazards: none",
        "host (host clock at ",
        "ns waiting on the device",
    ] {
        assert!(t.contains(part), "{part:?} in {t}");
    }
    assert!(
        !t.contains("tasks done"),
        "no progress line when piped: {t}"
    );
    // The timeline picture: lanes, boxes and the arrow of the release.
    let svg = exe.with_file_name("run.svg");
    let drawn = cli()
        .arg("report")
        .arg(&report)
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    assert!(drawn.status.success(), "{}", text(&drawn));
    let picture = std::fs::read_to_string(&svg).unwrap();
    for part in [
        "<svg",
        "host thread 1",
        "stream 1",
        "AI core 0",
        "marker-end",
        "ValueWait",
    ] {
        assert!(picture.contains(part), "{part:?} in the SVG");
    }
    // The saved report gives the same summary.
    let again = cli().arg("report").arg(&report).output().unwrap();
    assert!(again.status.success());
    assert!(text(&again).contains("released by kernel myKernel1"));
    let json = cli()
        .args(["report", "--json"])
        .arg(&report)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["chip"], "Ascend910B1");
}

#[test]
fn exec_ends_a_spinning_kernel_with_the_watchdog_and_a_non_zero_status() {
    let Some(exe) = kernel_sample() else {
        return;
    };
    let out = cli()
        .args(["exec", "--watchdog-ms", "200", "--"])
        .arg(&exe)
        .arg("no-poller-dcci")
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(3), "{t}");
    for part in [
        "the watchdog said",
        "myKernel2",
        "stale",
        "dcache_stale_read",
    ] {
        assert!(t.contains(part), "{part:?} in {t}");
    }
}

#[test]
fn exec_lists_the_api_errors_the_program_received_by_call_and_code() {
    let src = "#include \"acl/acl.h\"\n\
               int main(void) {\n\
                 aclInit(NULL); aclrtSetDevice(0);\n\
                 void *p = NULL;\n\
                 aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST);\n\
                 aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST);\n\
                 aclrtFree(NULL);\n\
                 aclrtResetDevice(0); aclFinalize(); return 0; }\n";
    let Some(exe) = build_c("bad_calls", src) else {
        return;
    };
    let out = cli().args(["exec", "--"]).arg(&exe).output().unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("API errors the program received: 3"), "{t}");
    assert!(t.contains("aclrtMalloc returned 100000 x2 (first: "), "{t}");
    assert!(t.contains("aclrtFree returned 100000 x1"), "{t}");
}

#[test]
fn exec_says_a_crash_and_ends_with_its_signal() {
    let src = "#include \"acl/acl.h\"\n#include <stdlib.h>\n\
               int main(void) { aclInit(NULL); aclrtSetDevice(0); abort(); }\n";
    let Some(exe) = build_c("crash", src) else {
        return;
    };
    let out = cli().args(["exec", "--"]).arg(&exe).output().unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(128 + 6), "{t}");
    assert!(t.contains("a crash") && t.contains("no run report"), "{t}");
    // The library said, from its signal handler, how far the run had got.
    assert!(
        t.contains("killed by signal 6 (SIGABRT) before the run report and trace were written"),
        "{t}"
    );
}

#[test]
fn a_program_dying_of_a_fault_says_where_the_run_had_got_to() {
    let src = "#include \"acl/acl.h\"\n\
               int main(void) {\n\
                 aclInit(NULL); aclrtSetDevice(0);\n\
                 void *p = NULL; aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);\n\
                 aclrtStream s; aclrtCreateStream(&s);\n\
                 aclrtValueWrite(p, 1, 0, s); aclrtSynchronizeStream(s);\n\
                 volatile int *bad = (int *)0; return *bad; }\n";
    let Some(exe) = build_c("segv", src) else {
        return;
    };
    let out = cli().args(["exec", "--"]).arg(&exe).output().unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(128 + 11), "{t}");
    assert!(t.contains("killed by signal 11 (SIGSEGV)"), "{t}");
    assert!(t.contains("the run had got to 1 task(s) completed"), "{t}");
}

#[test]
fn every_example_runs_by_name_and_the_deadlock_ends_with_the_watchdog() {
    if Command::new("cc").arg("--version").output().is_err() {
        println!("SKIPPED: no C compiler to build the examples");
        return;
    }
    let list = cli().args(["example", "--list"]).output().unwrap();
    let names: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(names.len() >= 5, "{names:?}");
    for name in &names {
        let out = cli().args(["example", name]).output().unwrap();
        let t = text(&out);
        assert!(t.contains("== ascend-sim summary"), "{name}: {t}");
        if name == "deadlock" {
            assert_eq!(out.status.code(), Some(3), "{name}: {t}");
            assert!(t.contains("the watchdog said"), "{name}: {t}");
            // exec names each task's call site: the stalled wait says where it was launched.
            assert!(t.contains("was submitted at main"), "{name}: {t}");
        } else {
            assert!(out.status.success(), "{name}: {t}");
        }
    }
    let svg =
        std::env::temp_dir().join(format!("ascend-sim-two-thread-{}.svg", std::process::id()));
    let out = cli()
        .args(["example", "two_thread_wait_write", "--svg"])
        .arg(&svg)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.contains("ValueWait") && picture.contains("marker-end"));
}

#[test]
fn explore_finds_a_failing_schedule_for_a_missing_edge_and_none_for_its_twin() {
    let src = include_str!("../../ascend-sim-capi/tests/c/races.c");
    let Some(exe) = build_c("races", src) else {
        return;
    };
    for (shape, buggy) in [
        ("copy", true),
        ("copy-ordered", false),
        ("eq", true),
        ("eq-ordered", false),
        ("blocks", true),
        ("blocks-ordered", false),
    ] {
        let out = cli()
            .args(["exec", "--explore", "20", "--"])
            .arg(&exe)
            .arg(shape)
            .output()
            .unwrap();
        let said = text(&out);
        assert_eq!(!out.status.success(), buggy, "{shape}: {said}");
        assert_eq!(said.contains("1 outcome(s)"), !buggy, "{shape}: {said}");
        if buggy {
            // The seed it names replays a failing schedule exactly.
            let seed = said
                .split("--schedule-seed ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .expect("a seed to replay");
            for _ in 0..2 {
                let replay = cli()
                    .args(["exec", "--quiet", "--schedule-seed", seed, "--"])
                    .arg(&exe)
                    .arg(shape)
                    .output()
                    .unwrap();
                assert!(
                    !replay.status.success(),
                    "{shape} seed {seed}: {}",
                    text(&replay)
                );
            }
        }
    }
}

#[test]
fn exec_with_races_on_names_the_race_in_its_summary() {
    let src = include_str!("../../ascend-sim-capi/tests/c/races.c");
    let Some(exe) = build_c("races_summary", src) else {
        return;
    };
    let out = cli()
        .args(["exec", "--races", "on", "--"])
        .arg(&exe)
        .arg("fills")
        .output()
        .unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("data_race"), "{said}");
}

#[test]
fn exec_refuses_an_unknown_soc_before_starting_the_program_and_names_the_nearest() {
    let marker = std::env::temp_dir().join(format!("ascend-sim-cli-ran-{}", std::process::id()));
    let _ = std::fs::remove_file(&marker);
    let touch = format!("touch {}", marker.display());
    for (flag, env, nearest) in [
        (Some("ascend910b1"), None, Some("Ascend910B1")),
        (Some("Ascend910B7"), None, Some("Ascend910B1")),
        (None, Some("tpu"), None),
    ] {
        let mut cmd = cli();
        cmd.arg("exec");
        if let Some(f) = flag {
            cmd.args(["--soc", f]);
        }
        cmd.env_remove("ASCEND_SIM_CHIP_FILE");
        match env {
            Some(v) => cmd.env("ASCEND_SIM_SOC", v),
            None => cmd.env_remove("ASCEND_SIM_SOC"),
        };
        let out = cmd.args(["--", "sh", "-c", &touch]).output().unwrap();
        let said = text(&out);
        assert_eq!(out.status.code(), Some(2), "{said}");
        assert!(!marker.exists(), "the program did not start: {said}");
        assert!(said.contains("Ascend310B1"), "lists the SoCs: {said}");
        if let Some(n) = nearest {
            assert!(said.contains(&format!("Did you mean {n}?")), "{said}");
        } else {
            assert!(
                said.contains("(ASCEND_SIM_SOC)"),
                "names the variable: {said}"
            );
        }
    }
    // A known one runs.
    let out = cli()
        .args([
            "exec",
            "--quiet",
            "--soc",
            "Ascend310B1",
            "--",
            "sh",
            "-c",
            &touch,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(marker.exists());
    let _ = std::fs::remove_file(&marker);
}

#[test]
fn exec_takes_per_class_hazard_settings_from_the_flag_or_the_variable_and_an_error_exitcode() {
    let src = include_str!("../../ascend-sim-capi/tests/c/races.c");
    let Some(exe) = build_c("races_settings", src) else {
        return;
    };
    let run = |flags: &[&str], env: Option<&str>, shape: &str| {
        let mut cmd = cli();
        cmd.args(["exec", "--quiet", "--races", "on"]).args(flags);
        match env {
            Some(v) => cmd.env("ASCEND_SIM_HAZARDS", v),
            None => cmd.env_remove("ASCEND_SIM_HAZARDS"),
        };
        let out = cmd.arg("--").arg(&exe).arg(shape).output().unwrap();
        (out.status.code(), text(&out))
    };
    // The race recorded: the program's data is right, it succeeds.
    assert_eq!(run(&[], None, "copy").0, Some(0));
    // Set to fail for its class, by the flag or the variable: the racing copy faults.
    let (code, said) = run(&["--hazards", "record,data_race=fail"], None, "copy");
    assert_eq!(code, Some(1), "{said}");
    let (code, said) = run(&[], Some("record,data_race=fail"), "copy");
    assert_eq!(
        code,
        Some(1),
        "the variable stands without the flag: {said}"
    );
    // Failing another class leaves this one recorded.
    assert_eq!(
        run(&["--hazards", "record,lost_write=fail"], None, "copy").0,
        Some(0)
    );
    // A setting the library would refuse is refused before the program starts.
    let (code, said) = run(&["--hazards", "record,lost_writes=fail"], None, "copy");
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("`lost_writes` is not a hazard class"),
        "{said}"
    );
    // --error-exitcode: any hazard ends the run with N; a clean run with 0.
    assert_eq!(run(&["--error-exitcode", "42"], None, "copy").0, Some(42));
    assert_eq!(
        run(&["--error-exitcode", "42"], None, "copy-ordered").0,
        Some(0)
    );
}

#[test]
fn example_list_names_each_examples_soc_once() {
    let list = cli().args(["example", "--list"]).output().unwrap();
    let said = String::from_utf8_lossy(&list.stdout);
    for line in said.lines() {
        assert_eq!(line.matches("Ascend").count(), 1, "{line}");
    }
}

#[test]
fn the_summary_says_the_bit_mask_of_an_and_or_nor_wait_in_hexadecimal() {
    use ascend_sim::{Sim, SimConfig, Task, WaitMode};
    let sim = Sim::new(
        ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap(),
        SimConfig::default(),
    );
    let flag = sim.malloc(0, 64).unwrap();
    sim.write(flag, &0x10u64.to_le_bytes()).unwrap();
    let s = sim.create_stream(0, 0, false).unwrap();
    for (mode, value) in [(WaitMode::And, 0xf0), (WaitMode::Geq, 16)] {
        let wait = Task::ValueWait {
            addr: flag,
            value,
            mode,
        };
        sim.submit(s, wait).unwrap();
    }
    sim.synchronize_stream(s, None).unwrap();
    let file = std::env::temp_dir().join(format!("ascend-sim-cli-and-{}.json", std::process::id()));
    std::fs::write(&file, serde_json::to_string(&sim.report()).unwrap()).unwrap();
    let out = cli().arg("report").arg(&file).output().unwrap();
    let said = text(&out);
    assert!(said.contains("for AND 0xf0 at"), "{said}");
    assert!(said.contains("for GEQ 16 at"), "{said}");
    // The stream did nothing but wait: its busy time is said to be waiting.
    assert!(said.contains("ns waiting, last at"), "{said}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn device_refuses_a_path_in_use_and_does_not_say_it_serves() {
    let dir = std::env::temp_dir().join(format!("cli-device-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let taken = dir.join("not-a-socket");
    std::fs::write(&taken, b"precious").unwrap();
    let out = cli()
        .args(["device", "--socket"])
        .arg(&taken)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("serving Ascend"), "{stderr}");
    assert!(stderr.contains("Address already in use"), "{stderr}");
    assert_eq!(
        std::fs::read(&taken).unwrap(),
        b"precious",
        "the file is left as it was"
    );
}

/// The first line of `from` that starts with `tag`, without it.
fn line_after(from: &mut impl std::io::BufRead, tag: &str, who: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        let n = from.read_line(&mut line).unwrap();
        assert!(n > 0, "{who} ended before saying {tag:?}");
        if let Some(rest) = line.strip_prefix(tag) {
            return rest.trim().to_string();
        }
    }
}

#[test]
fn the_first_program_naming_a_device_starts_it_and_it_ends_after_the_last() {
    use std::io::{BufReader, Read, Write};
    use std::process::Stdio;
    let src = include_str!("../../ascend-sim-capi/tests/c/shared_device.c");
    let Some(exe) = build_c("shared_device", src) else {
        return;
    };
    let socket = exe.with_file_name("on-demand.sock");
    let lib = Path::new(env!("CARGO_BIN_EXE_ascend-sim"))
        .parent()
        .unwrap()
        .join("deps");
    let start = |args: &[&str]| {
        Command::new(&exe)
            .args(args)
            .env("LD_LIBRARY_PATH", &lib)
            .env("ASCEND_SIM_DEVICE", &socket)
            .env("ASCEND_SIM_BIN", env!("CARGO_BIN_EXE_ascend-sim"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // No service runs at the path: the exporter's first call starts one.
    assert!(!socket.exists());
    let mut exporter = start(&[]);
    let mut exp_out = BufReader::new(exporter.stdout.take().unwrap());
    let key = line_after(&mut exp_out, "KEY ", "the exporter");
    assert!(socket.exists(), "the service's socket");
    // The importer finds it running: both use one device.
    let mut importer = start(&["import", &key]);
    let mut imp_out = BufReader::new(importer.stdout.take().unwrap());
    let pid = line_after(&mut imp_out, "PID ", "the importer");
    writeln!(exporter.stdin.take().unwrap(), "{pid}").unwrap();
    line_after(&mut exp_out, "WAITING", "the exporter");
    writeln!(importer.stdin.take().unwrap(), "go").unwrap();
    for (child, mut out, want) in [
        (importer, imp_out, "SUCCESS"),
        (exporter, exp_out, "released by the importer: 123"),
    ] {
        let mut rest = String::new();
        out.read_to_string(&mut rest).unwrap();
        let end = child.wait_with_output().unwrap();
        assert!(
            end.status.success() && rest.contains(want),
            "{rest}{}",
            String::from_utf8_lossy(&end.stderr)
        );
    }
    // Idle once both have gone, the service ends and takes its socket with it.
    let t = std::time::Instant::now();

    while socket.exists() {
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "the service is still there after its last process"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn device_refuses_an_output_it_cannot_write_before_it_serves() {
    let dir = std::env::temp_dir().join(format!("cli-device-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = cli()
        .args(["device", "--socket"])
        .arg(dir.join("d.sock"))
        .arg("--report")
        .arg(dir.join("no-such-folder/report.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot write the run report"), "{stderr}");
    assert!(!dir.join("d.sock").exists(), "it did not serve");
}

#[test]
fn a_program_whose_device_cannot_start_says_why() {
    let src = include_str!("../../ascend-sim-capi/tests/c/shared_device.c");
    let Some(exe) = build_c("shared_device_nostart", src) else {
        return;
    };
    // A file that is not a socket stands at the path: the service cannot serve there.
    let taken = exe.with_file_name("taken.sock");
    std::fs::write(&taken, b"not a socket").unwrap();
    let lib = Path::new(env!("CARGO_BIN_EXE_ascend-sim"))
        .parent()
        .unwrap()
        .join("deps");
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", &lib)
        .env("ASCEND_SIM_DEVICE", &taken)
        .env("ASCEND_SIM_BIN", env!("CARGO_BIN_EXE_ascend-sim"))
        .output()
        .unwrap();
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("500000") && said.contains("Address already in use"),
        "the service's own reason reaches the program: {said}"
    );
}
