//! `ascend-sim exec`: runs a program against the project's `libascendcl.so` with the
//! simulator's settings in its environment, passes its output through (watching stderr for
//! the watchdog and hazards) under a progress line on a terminal, then summarises the run report the library wrote at exit.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::progress::Progress;
use crate::summary;

/// What `exec` was asked.
#[derive(Debug)]
pub struct Options {
    /// The SoC to set (`None`: `ASCEND_SIM_SOC` or `ASCEND_SIM_CHIP_FILE` stands, or the
    /// library's default).
    pub soc: Option<String>,
    /// The hazard setting to set (`None`: `ASCEND_SIM_HAZARDS` stands, or `record`).
    pub hazards: Option<String>,
    /// The hazard classes set to fail, whichever setting stands.
    pub failing: Vec<&'static str>,
    /// The status to end with when the program succeeded but hazards were recorded.
    pub error_exitcode: Option<u8>,
    /// `on` or `off`; `None` leaves `ASCEND_SIM_RACES` as it is.
    pub races: Option<&'static str>,
    /// `code` or `documented`; `None` leaves `ASCEND_SIM_RULES` as it is.
    pub rules: Option<&'static str>,
    /// `on` or `off`; `None` leaves `ASCEND_SIM_CALL_SITES` as it is.
    pub call_sites: Option<&'static str>,
    /// Run under the schedule of this seed (`None`: the default schedule, or what
    /// `ASCEND_SIM_SCHEDULE_SEED` says).
    pub schedule_seed: Option<u64>,
    pub on_stall: &'static str,
    pub watchdog_ms: u64,
    pub report: Option<PathBuf>,
    pub trace: Option<PathBuf>,
    pub svg: Option<PathBuf>,
    pub json: bool,
    pub quiet: bool,
    pub program: Vec<String>,
}

/// Exit status when the program itself succeeded but the run did not: a stall the watchdog
/// ended, or a hazard set to fail.
pub const RUN_FAILED: u8 = 3;

/// The SoC and hazard settings a run goes with, checked before the program starts (a
/// program run with a setting the library refuses would see every call fail).
#[derive(Debug)]
pub struct Settings {
    /// The SoC the flag names (`None`: the environment's, or the default, stands).
    pub soc: Option<String>,
    /// The hazard setting the flag names (`None`: the environment's, or `record`, stands).
    pub hazards: Option<String>,
    /// The classes set to fail by whichever hazard setting stands.
    pub failing: Vec<&'static str>,
}

impl Settings {
    /// Checks the flags `--soc` and `--hazards`, or where one is absent the variable that
    /// then stands: an unknown SoC is refused with the simulated ones and the nearest name,
    /// a hazard setting the library would refuse with why.
    pub fn resolve(soc: Option<String>, hazards: Option<String>) -> Result<Settings, String> {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        match (&soc, env(crate::env_names::SOC)) {
            (Some(name), _) => check_soc(name, "--soc")?,
            // A chip file wins over the variable.
            (None, Some(name)) if env(crate::env_names::CHIP_FILE).is_none() => {
                check_soc(&name, crate::env_names::SOC)?
            }
            _ => {}
        }
        let standing = match (&hazards, env(crate::env_names::HAZARDS)) {
            (Some(text), _) => Some((text.clone(), "--hazards")),
            (None, Some(text)) => Some((text, crate::env_names::HAZARDS)),
            (None, None) => None,
        };
        let policy = match &standing {
            Some((text, from)) => ascend_sim::HazardPolicy::parse(text)
                .map_err(|why| format!("{from} {text:?} is not a hazard setting: {why}"))?,
            None => ascend_sim::HazardPolicy::default(),
        };
        let failing = ascend_sim::HazardKind::ALL
            .into_iter()
            .filter(|&k| policy.action(k) == ascend_sim::HazardAction::Fail)
            .map(ascend_sim::HazardKind::name)
            .collect();
        Ok(Settings {
            soc,
            hazards,
            failing,
        })
    }
}

/// Refuses a SoC no built-in chip model has, naming the nearest and every one.
fn check_soc(name: &str, from: &str) -> Result<(), String> {
    if ascend_chips::builtin_names().contains(&name) {
        return Ok(());
    }
    let hint = ascend_chips::nearest_builtin_name(name)
        .map(|n| format!(" Did you mean {n}?"))
        .unwrap_or_default();
    Err(format!(
        "unknown SoC `{name}` ({from}).{hint} The simulated SoCs are {} (`ascend-sim models` \
         describes them)",
        ascend_chips::builtin_names().join(", ")
    ))
}

/// The folder holding the `libascendcl.so` built with this binary: cargo builds it into
/// `deps/` beside the binary on every build of this crate (the copy one folder up is only
/// refreshed by building the library itself, so it comes second). `ASCEND_SIM_LIB_DIR`
/// overrides both.
pub fn library_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(crate::env_names::LIB_DIR) {
        let dir = PathBuf::from(dir);
        return if dir.join("libascendcl.so").is_file() {
            Ok(dir)
        } else {
            Err(format!(
                "ASCEND_SIM_LIB_DIR={} holds no libascendcl.so",
                dir.display()
            ))
        };
    }
    let exe = std::env::current_exe().map_err(|e| format!("where am I: {e}"))?;
    let here = exe.parent().ok_or("the binary has no folder")?;
    [here.join("deps"), here.to_path_buf()]
        .into_iter()
        .find(|d| d.join("libascendcl.so").is_file())
        .ok_or_else(|| {
            format!(
                "libascendcl.so is not beside {} (build it with `cargo build -p ascend-sim-cli`)",
                exe.display()
            )
        })
}

/// Runs the program and summarises; returns the exit status to end with.
pub fn run(o: Options) -> Result<u8, String> {
    let lib = library_dir()?;
    let (report, keep_report) = match &o.report {
        Some(p) => (p.clone(), true),
        None => (
            std::env::temp_dir().join(format!("ascend-sim-report-{}.json", std::process::id())),
            false,
        ),
    };
    let _ = std::fs::remove_file(&report);
    let mut cmd = program_command(&o, &lib, &report);
    cmd.stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped());
    if let Some(t) = &o.trace {
        cmd.env(crate::env_names::TRACE, t);
    }
    let progress = Progress::new(o.quiet);
    if let Some(f) = progress.file() {
        cmd.env(crate::env_names::PROGRESS, f);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", o.program[0]))?;
    // Pass the program's stderr through as it comes, keeping what the simulator said.
    let stderr = child.stderr.take().expect("piped");
    let bar = progress.bar.clone();
    let said = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut in_diagnosis = false;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            bar.suspend(|| {
                let _ = writeln!(std::io::stderr(), "{line}");
            });
            // A diagnosis is a line naming the watchdog and its indented continuation lines.
            in_diagnosis = line.contains("watchdog") || (in_diagnosis && line.starts_with("  "));
            if in_diagnosis {
                kept.push(line);
            }
        }
        kept
    });
    let status = child
        .wait()
        .map_err(|e| format!("waiting for {}: {e}", o.program[0]));
    let watchdog = said.join().unwrap_or_default();
    progress.finish();
    let status = status?;
    let run = summary::Run {
        program: o.program.join(" "),
        exit_code: status.code(),
        signal: signal_of(&status),
        watchdog,
    };
    let text = std::fs::read_to_string(&report).ok();
    if !keep_report {
        let _ = std::fs::remove_file(&report);
    }
    let s = summary::Summary::new(text.as_deref(), &run)?;
    if let (Some(path), Some(text)) = (&o.svg, &text) {
        summary::write_svg(text, path)?;
    }
    if !o.quiet {
        if o.json {
            println!("{}", s.json());
        } else {
            print!("{}", s.text());
        }
        if let Some(t) = &o.trace {
            if Path::new(t).is_file() {
                eprintln!("ascend-sim: trace written to {}", t.display());
            }
        }
    }
    Ok(exit_status(&run, &s, &o))
}

/// The program, to be run against the library in `lib` with the simulator's settings `o` names
/// in its environment, writing its run report to `report`.
pub fn program_command(o: &Options, lib: &Path, report: &Path) -> Command {
    let library_path = match std::env::var_os("LD_LIBRARY_PATH") {
        Some(old) if !old.is_empty() => {
            let mut p = lib.as_os_str().to_owned();
            p.push(":");
            p.push(old);
            p
        }
        _ => lib.as_os_str().to_owned(),
    };
    let mut cmd = Command::new(&o.program[0]);
    cmd.args(&o.program[1..])
        .env("LD_LIBRARY_PATH", library_path)
        .env(crate::env_names::ON_STALL, o.on_stall)
        .env(crate::env_names::WATCHDOG_MS, o.watchdog_ms.to_string())
        .env(crate::env_names::REPORT, report);
    if let Some(soc) = &o.soc {
        // The flag wins over a chip file the environment names.
        cmd.env(crate::env_names::SOC, soc)
            .env_remove(crate::env_names::CHIP_FILE);
    }
    if let Some(h) = &o.hazards {
        cmd.env(crate::env_names::HAZARDS, h);
    }
    if let Some(r) = o.races {
        cmd.env(crate::env_names::RACES, r);
    }
    if let Some(r) = o.rules {
        cmd.env(crate::env_names::RULES, r);
    }
    if let Some(c) = o.call_sites {
        cmd.env(crate::env_names::CALL_SITES, c);
    }
    if let Some(seed) = o.schedule_seed {
        cmd.env(crate::env_names::SCHEDULE_SEED, seed.to_string());
    }
    cmd
}

/// The signal that ended the program, if one did.
pub fn signal_of(status: &std::process::ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal()
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

/// The program's own status, else non-zero for a crash, a stall the watchdog ended, or a
/// hazard of a class set to fail ([`RUN_FAILED`]), or with `--error-exitcode N` any hazard
/// (N).
fn exit_status(run: &summary::Run, s: &summary::Summary, o: &Options) -> u8 {
    if let Some(sig) = run.signal {
        return 128u8.saturating_add(sig as u8);
    }
    match run.exit_code {
        Some(0) | None => {}
        Some(c) => return u8::try_from(c).unwrap_or(1).max(1),
    }
    let failed = s
        .hazard_kinds()
        .iter()
        .any(|k| o.failing.contains(&k.as_str()));
    let any = !run.watchdog.is_empty() || s.hazard_count() > 0;
    match o.error_exitcode {
        Some(n) if any => n,
        _ if !run.watchdog.is_empty() || failed => RUN_FAILED,
        _ => 0,
    }
}
