//! `ascend-sim exec --explore N`: runs the program N times, each under the schedule of its
//! own seed (the library's `ASCEND_SIM_SCHEDULE_SEED`), and reports each distinct outcome with
//! the seeds that give it, so that a synchronisation bug the default schedule hides shows as a
//! second outcome with a seed that replays it (`exec --schedule-seed S`).
//!
//! An outcome is the program's exit (status or signal), a digest of its standard output, the
//! hazard classes of its run report, and whether the watchdog spoke. The runs are separate
//! processes; seed ranges can be spread over machines (`--schedule-seed` gives the first).

use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::process::Stdio;

use indicatif::{ProgressBar, ProgressStyle};

use crate::exec::{self, Options};

/// What one run came to.
#[derive(Debug, Clone)]
struct Outcome {
    exit: String,
    stdout_digest: u64,
    hazards: BTreeSet<String>,
    watchdog: bool,
    /// The first line of standard error that is not the simulator's log (the program's own
    /// complaint), to show with the outcome; not part of what makes outcomes differ.
    said: String,
}

impl Outcome {
    fn key(&self) -> (&str, u64, &BTreeSet<String>, bool) {
        (&self.exit, self.stdout_digest, &self.hazards, self.watchdog)
    }

    fn passed(&self) -> bool {
        self.exit == "exit 0" && !self.watchdog
    }

    fn line(&self) -> String {
        let hazards = if self.hazards.is_empty() {
            "no hazards".to_string()
        } else {
            format!(
                "hazards {}",
                self.hazards.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        };
        let watchdog = if self.watchdog {
            ", the watchdog spoke (a hang)"
        } else {
            ""
        };
        let said = if self.said.is_empty() {
            String::new()
        } else {
            format!("\n      stderr: {}", self.said)
        };
        format!(
            "{}, stdout {:016x}, {hazards}{watchdog}{said}",
            self.exit, self.stdout_digest
        )
    }
}

/// Runs the program under `runs` schedules, seeds `first..first + runs`; returns the exit
/// status: 0 when every schedule gave one outcome and it passed.
pub fn run(o: Options, runs: u64, first: u64) -> Result<u8, String> {
    let lib = exec::library_dir()?;
    let bar = ProgressBar::new(runs);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} schedules {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // Each distinct outcome with its seeds, in the order first seen.
    let mut outcomes: Vec<(Outcome, Vec<u64>)> = Vec::new();
    for seed in first..first.saturating_add(runs) {
        let outcome = one(&o, &lib, seed)?;
        match outcomes.iter_mut().find(|(k, _)| k.key() == outcome.key()) {
            Some((_, seeds)) => seeds.push(seed),
            None => outcomes.push((outcome, vec![seed])),
        }
        bar.set_message(format!("{} outcome(s)", outcomes.len()));
        bar.inc(1);
    }
    bar.finish_and_clear();
    let last = first.saturating_add(runs).saturating_sub(1);
    println!(
        "ascend-sim explore: {runs} schedule(s) of {} (seeds {first}..={last}): {} outcome(s)",
        o.program.join(" "),
        outcomes.len()
    );
    outcomes.sort_by_key(|(_, seeds)| std::cmp::Reverse(seeds.len()));
    for (i, (outcome, seeds)) in outcomes.iter().enumerate() {
        let shown: Vec<String> = seeds.iter().take(8).map(u64::to_string).collect();
        let more = if seeds.len() > 8 { ", ..." } else { "" };
        println!(
            "  outcome {} ({} schedule(s), seeds {}{more}): {}",
            i + 1,
            seeds.len(),
            shown.join(", "),
            outcome.line()
        );
    }
    let failing = outcomes.iter().find(|(o, _)| !o.passed());
    if outcomes.len() > 1 || failing.is_some() {
        let (_, seeds) = failing.unwrap_or(&outcomes[outcomes.len() - 1]);
        println!(
            "replay one: ascend-sim exec --schedule-seed {} -- {}",
            seeds[0],
            o.program.join(" ")
        );
        return Ok(exec::RUN_FAILED);
    }
    Ok(0)
}

/// One run under the schedule of `seed`.
fn one(o: &Options, lib: &std::path::Path, seed: u64) -> Result<Outcome, String> {
    let report = std::env::temp_dir().join(format!(
        "ascend-sim-explore-{}-{seed}.json",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&report);
    let seeded = Options {
        schedule_seed: Some(seed),
        program: o.program.clone(),
        soc: o.soc.clone(),
        hazards: o.hazards.clone(),
        failing: o.failing.clone(),
        report: None,
        trace: None,
        svg: None,
        ..*o
    };
    let out = exec::program_command(&seeded, lib, &report)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", o.program[0]))?;
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    let _ = std::fs::remove_file(&report);
    let hazards = serde_json::from_str::<ascend_sim::RunReport>(&text)
        .map(|r| {
            let kept = r.hazards.iter().map(|h| h.kind.clone());
            r.hazard_counts.keys().cloned().chain(kept).collect()
        })
        .unwrap_or_default();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let watchdog = stderr.contains("watchdog");
    let said = stderr
        .lines()
        .find(|l| !l.contains(" WARN ") && !l.contains(" INFO ") && !l.trim().is_empty())
        .unwrap_or("")
        .chars()
        .take(160)
        .collect();
    let exit = match (out.status.code(), exec::signal_of(&out.status)) {
        (_, Some(sig)) => format!("signal {sig}"),
        (Some(c), None) => format!("exit {c}"),
        (None, None) => "no status".to_string(),
    };
    let mut h = DefaultHasher::new();
    out.stdout.hash(&mut h);
    Ok(Outcome {
        exit,
        stdout_digest: h.finish(),
        hazards,
        watchdog,
        said,
    })
}
