//! The safe-level examples (`examples/safe_*.rs`: the two seed scenarios and a CMO pipeline)
//! run and check their own data, on the simulator (default and seeded schedules, race
//! detection on) and through the `hw` backend over the project's own `libascendcl.so`.
//!
//! The examples are the binaries `cargo test` builds beside this test (`<target>/<profile>/
//! examples/`). A run through hw needs them built with `--features hw` (as `cargo test
//! --workspace` builds them) and the library built (`crates/ascend-sim-capi`); where either
//! is missing, that run prints `SKIPPED` with the reason.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Each example, and a line its output must have (the data it checked).
const EXAMPLES: &[(&str, &str)] = &[
    ("safe_two_streams", "65536 of 65536 bytes are 0x42"),
    (
        "safe_kernel_handoff",
        "sums of the consumer blocks: [840, 840, 840, 840]",
    ),
    ("safe_cmo_pipeline", "result: 131072 bytes, 0 wrong"),
];

/// `<target>/<profile>`, from this test binary's place in `<target>/<profile>/deps`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

fn example(name: &str) -> Option<PathBuf> {
    Some(profile_dir().join("examples").join(name)).filter(|p| p.is_file())
}

fn run(bin: &PathBuf, args: &[&str], env: &[(&str, String)]) -> Output {
    let mut cmd = Command::new(bin);
    cmd.args(args).env_remove("ASCEND_RT_LIB");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn check(name: &str, how: &str, out: &Output, want: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{name} {how} failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains(want),
        "{name} {how} did not say `{want}`:\n{stdout}"
    );
    assert!(
        !stderr.contains("hazard"),
        "{name} {how} met a hazard:\n{stderr}"
    );
}

#[test]
fn each_safe_example_checks_its_data_on_the_simulator_under_several_schedules() {
    for (name, want) in EXAMPLES {
        let Some(bin) = example(name) else {
            println!("SKIPPED: {name} is not built (cargo test builds the examples)");
            continue;
        };
        for args in [
            &["--races"][..],
            &["--races", "--seed", "3"],
            &["--races", "--seed", "11"],
            &["Ascend950PR_9599", "--races"],
        ] {
            let out = run(&bin, args, &[]);
            check(name, &format!("on sim {args:?}"), &out, want);
        }
    }
}

#[test]
fn each_safe_example_runs_through_the_hw_backend_over_the_projects_own_library() {
    let lib = [
        profile_dir().join("deps").join("libascendcl.so"),
        profile_dir().join("libascendcl.so"),
    ]
    .into_iter()
    .find(|p| p.is_file());
    let Some(lib) = lib else {
        println!("SKIPPED: libascendcl.so is not built (cargo build -p ascend-sim-capi)");
        return;
    };
    for (name, want) in EXAMPLES {
        let Some(bin) = example(name) else {
            println!("SKIPPED: {name} is not built (cargo test builds the examples)");
            continue;
        };
        let env = [
            ("ASCEND_RT_LIB", lib.display().to_string()),
            ("ASCEND_SIM_SOC", "Ascend910B1".to_string()),
        ];
        let out = run(&bin, &["--hw"], &env);
        if String::from_utf8_lossy(&out.stdout).is_empty()
            && String::from_utf8_lossy(&out.stderr).contains("--features hw")
        {
            println!("SKIPPED: {name} was built without the hw feature");
            continue;
        }
        check(name, "through hw over our library", &out, want);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("backend: hw (Ascend910B1)"), "{stdout}");
    }
}
