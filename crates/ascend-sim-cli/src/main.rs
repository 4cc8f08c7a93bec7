//! `ascend-sim`: run an unmodified ACL program on the simulator and read what happened.
//!
//! - `ascend-sim exec [options] -- <program> [args]` runs the program against the project's
//!   `libascendcl.so` (the copy cargo built with this binary), passing the options to the
//!   library, and prints a summary of the run when it ends;
//! - `ascend-sim report <report.json>` prints the same summary from a saved run report;
//! - `ascend-sim models` lists the simulated SoCs and what each supports.

// The variables' names, written once in the library (shared as a file: the command does not
// link the library, it runs programs on it).
#[path = "../../ascend-sim-capi/src/env_names.rs"]
#[allow(dead_code)]
mod env_names;
mod examples;
mod exec;
mod explore;
mod models;
mod progress;
mod summary;
mod svg;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// Run Ascend ACL programs on a simulated NPU and read what happened.
#[derive(Debug, Parser)]
#[command(name = "ascend-sim", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Happens-before race detection.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Switch {
    /// On.
    On,
    /// Off.
    Off,
}

impl Switch {
    /// The word the library's variables take.
    fn word(self) -> &'static str {
        match self {
            Switch::On => "on",
            Switch::Off => "off",
        }
    }
}

/// Which of CANN's two descriptions calls are checked against.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Rules {
    /// The runtime's code (as on a device).
    Code,
    /// The documentation's stricter rules too.
    Documented,
}

/// What a host thread waiting on a stalled device does.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum OnStall {
    /// Keep waiting, as hardware would (the watchdog explains once).
    Wait,
    /// End the waiting call with an error after the watchdog's grace.
    Error,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a program on the simulator and summarise the run.
    Exec {
        /// The SoC to simulate (see `ascend-sim models`); when absent, `ASCEND_SIM_SOC`
        /// stands (Ascend910B1 when unset).
        #[arg(long)]
        soc: Option<String>,
        /// What hazards do: `ignore`, `record` or `fail` for every class, and/or
        /// comma-separated `class=action` entries (`record,lost_write=fail`), as
        /// `ASCEND_SIM_HAZARDS` takes them; when absent, that variable stands (`record` when
        /// unset).
        #[arg(long, value_name = "SETTING")]
        hazards: Option<String>,
        /// End with this status when the program succeeded but the run recorded a hazard (of
        /// any class) or the watchdog spoke, as compute-sanitizer's option of the name does.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..))]
        error_exitcode: Option<u8>,
        /// Happens-before race detection (`data_race` hazards, docs/races.md); when absent,
        /// `ASCEND_SIM_RACES` stands (off when unset).
        #[arg(long, value_enum)]
        races: Option<Switch>,
        /// Check calls as the vendor's runtime code does (`code`: a warning names each call
        /// site the documentation forbids) or enforce the documented rules too
        /// (`documented`); when absent, `ASCEND_SIM_RULES` stands (`code` when unset).
        #[arg(long, value_enum)]
        rules: Option<Rules>,
        /// Name each task's call site in the program in its hazards, fault and stalled wait
        /// (a walk of the stack per task launch, about 1.2 µs of CPU); on by default here,
        /// where `ASCEND_SIM_CALL_SITES` does not say otherwise.
        #[arg(long, value_enum)]
        call_sites: Option<Switch>,
        /// Run under the schedule of this seed (stream dispatch lags a device may vary; the
        /// same seed, the same schedule); with `--explore`, the first seed.
        #[arg(long)]
        schedule_seed: Option<u64>,
        /// Run the program N times, each under a schedule of its own, and report each distinct
        /// outcome with the seeds that give it; exits non-zero when outcomes differ or one
        /// fails.
        #[arg(long, value_name = "N")]
        explore: Option<u64>,
        /// What a wait on a stalled device does; `error` (the default here) ends a deadlock
        /// instead of hanging.
        #[arg(long, value_enum, default_value = "error")]
        on_stall: OnStall,
        /// Wall-clock milliseconds the watchdog lets a stalled device (or kernels spinning
        /// without effect) be before it speaks.
        #[arg(long, default_value_t = 2000)]
        watchdog_ms: u64,
        /// Also write the run report (JSON) here.
        #[arg(long)]
        report: Option<PathBuf>,
        /// Write the timeline as a Chrome trace (open it in Perfetto).
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Draw the timeline as an SVG picture.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
        /// Print nothing but errors.
        #[arg(long)]
        quiet: bool,
        /// The program and its arguments.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        program: Vec<String>,
    },
    /// Summarise a saved run report.
    Report {
        /// The report (JSON, as `ASCEND_SIM_REPORT` or `exec --report` writes it).
        file: PathBuf,
        /// Draw the timeline as an SVG picture.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the simulated SoCs, their products and which of the eight operations each supports.
    Models,
    /// Serve one simulated device to several processes: each program run with
    /// `ASCEND_SIM_DEVICE=<socket>` uses this device instead of a simulator of its own.
    Device {
        /// The Unix socket to serve at.
        #[arg(long)]
        socket: PathBuf,
        /// The SoC (default: ASCEND_SIM_DEVICE's first user's ASCEND_SIM_SOC, else
        /// Ascend910B1).
        #[arg(long)]
        soc: Option<String>,
        /// End once the processes have gone: when it has had one and has none for a second
        /// (or none came within ten seconds). How a service started on demand ends.
        #[arg(long)]
        until_idle: bool,
        /// Write the run report of every process that used the device here (JSON), each time
        /// one has gone.
        #[arg(long)]
        report: Option<PathBuf>,
        /// Write the trace (Chrome trace format) here, a track group per process, each time
        /// a process has gone.
        #[arg(long)]
        trace: Option<PathBuf>,
    },
    /// Build and run one of the C examples through `exec` (`--list` lists them).
    Example {
        /// The example (see `--list`).
        name: Option<String>,
        /// List the examples.
        #[arg(long)]
        list: bool,
        /// Run it on another SoC than its own.
        #[arg(long)]
        soc: Option<String>,
        /// Draw the timeline as an SVG picture.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Write the run report (JSON) here.
        #[arg(long)]
        report: Option<PathBuf>,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
        /// Arguments for the example instead of its own.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// Builds the example and runs it through `exec`.
fn run_example(
    name: &str,
    soc: Option<String>,
    svg: Option<PathBuf>,
    report: Option<PathBuf>,
    json: bool,
    args: Vec<String>,
) -> Result<u8, String> {
    let example = examples::find(name)?;
    let exe = examples::build(example, &exec::library_dir()?)?;
    let mut program = vec![exe.display().to_string()];
    if args.is_empty() {
        program.extend(example.args.iter().map(|a| a.to_string()));
    } else {
        program.extend(args);
    }
    let set = exec::Settings::resolve(
        Some(soc.unwrap_or_else(|| example.soc.to_string())),
        Some("record".to_string()),
    )?;
    let ran = exec::run(exec::Options {
        soc: set.soc,
        hazards: set.hazards,
        failing: set.failing,
        error_exitcode: None,
        races: None,
        rules: None,
        call_sites: Some("on"),
        schedule_seed: None,
        on_stall: "error",
        watchdog_ms: 500,
        report,
        trace: None,
        svg,
        json,
        quiet: false,
        program,
    });
    // The compiled example and its sources go with the run.
    if let Some(dir) = exe.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
    ran
}

/// How long an idle service started with `--until-idle` lives on: after its last process, and
/// before its first.
const IDLE_AFTER_LAST: std::time::Duration = std::time::Duration::from_secs(1);
const IDLE_BEFORE_FIRST: std::time::Duration = std::time::Duration::from_secs(10);

/// Returns once the service at `socket` has been idle as `--until-idle` says.
fn wait_until_idle(socket: &std::path::Path) {
    let start = std::time::Instant::now();
    let mut idle_since = start;
    loop {
        std::thread::sleep(std::time::Duration::from_millis(100));
        let busy = ascend_rt::device_service::status(socket).is_ok_and(|st| !st.is_empty());
        // A process may come and go between two looks: the service counts them.
        let seen = ascend_rt::device_service::served(socket).is_ok_and(|n| n > 0);
        if busy {
            idle_since = std::time::Instant::now();
        } else if (seen && idle_since.elapsed() >= IDLE_AFTER_LAST)
            || (!seen && start.elapsed() >= IDLE_BEFORE_FIRST)
        {
            return;
        }
    }
}

/// Serves one simulated device at `socket` until killed, or until idle (`until_idle`).
fn serve_device(
    socket: &std::path::Path,
    soc: Option<String>,
    until_idle: bool,
    outputs: ascend_rt::device_service::Outputs,
) -> Result<u8, String> {
    let soc = soc
        .or_else(|| std::env::var(env_names::SOC).ok())
        .unwrap_or_else(|| "Ascend910B1".to_string());
    let chip = ascend_chips::ChipProfile::builtin(&soc).map_err(|e| e.to_string())?;
    // An output that cannot be written is said now, not at the first process's end.
    for (path, what) in [(&outputs.report, "run report"), (&outputs.trace, "trace")] {
        if let Some(path) = path {
            std::fs::write(path, b"")
                .map_err(|e| format!("cannot write the {what} to {}: {e}", path.display()))?;
        }
    }
    // Said once the socket is bound: a path in use is an error, not a service.
    let service =
        ascend_rt::device_service::spawn_writing(socket, chip, Default::default(), outputs)
            .map_err(|e| format!("serving {}: {e}", socket.display()))?;
    eprintln!(
        "ascend-sim device: serving {soc} at {} (run programs with ASCEND_SIM_DEVICE={})",
        socket.display(),
        socket.display()
    );
    if until_idle {
        wait_until_idle(socket);
        let _ = std::fs::remove_file(socket);
        eprintln!(
            "ascend-sim device: {} is idle; the service ends",
            socket.display()
        );
        return Ok(0);
    }
    match service.join() {
        Ok(Ok(())) => Ok(0),
        Ok(Err(e)) => Err(format!("serving {}: {e}", socket.display())),
        Err(_) => Err(format!("serving {}: the service stopped", socket.display())),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Exec {
            soc,
            hazards,
            error_exitcode,
            races,
            rules,
            call_sites,
            schedule_seed,
            explore,
            on_stall,
            watchdog_ms,
            report,
            trace,
            svg,
            json,
            quiet,
            program,
        } => {
            let o = match exec::Settings::resolve(soc, hazards) {
                Ok(set) => exec::Options {
                    soc: set.soc,
                    hazards: set.hazards,
                    failing: set.failing,
                    error_exitcode,
                    races: races.map(Switch::word),
                    rules: rules.map(|r| match r {
                        Rules::Code => "code",
                        Rules::Documented => "documented",
                    }),
                    // On here unless the flag or the variable says otherwise.
                    call_sites: call_sites.map(Switch::word).or_else(|| {
                        std::env::var_os(env_names::CALL_SITES)
                            .is_none()
                            .then_some("on")
                    }),
                    schedule_seed,
                    on_stall: match on_stall {
                        OnStall::Wait => "wait",
                        OnStall::Error => "error",
                    },
                    watchdog_ms: watchdog_ms.max(1),
                    report,
                    trace,
                    svg,
                    json,
                    quiet,
                    program,
                },
                Err(e) => {
                    eprintln!("ascend-sim: {e}");
                    return ExitCode::from(2);
                }
            };
            match explore {
                Some(n) => explore::run(o, n.max(1), schedule_seed.unwrap_or(1)),
                None => exec::run(o),
            }
        }
        Command::Report { file, svg, json } => {
            summary::from_file(&file, svg.as_deref(), json).map(|()| 0)
        }
        Command::Models => {
            print!("{}", models::table());
            Ok(0)
        }
        Command::Device {
            socket,
            soc,
            until_idle,
            report,
            trace,
        } => serve_device(
            &socket,
            soc,
            until_idle,
            ascend_rt::device_service::Outputs { report, trace },
        ),
        Command::Example {
            name,
            list,
            soc,
            svg,
            report,
            json,
            args,
        } => match (name, list) {
            (None, _) | (_, true) => {
                print!("{}", examples::list());
                Ok(0)
            }
            (Some(name), false) => run_example(&name, soc, svg, report, json, args),
        },
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("ascend-sim: {e}");
            ExitCode::from(2)
        }
    }
}
