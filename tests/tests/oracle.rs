//! The differential run against the vendor's own runtime: the raw probe's fixed rows and its
//! random sequences, made on a `libascendcl.so` built from the vendor's public runtime source
//! with the driver stubbed (the oracle, docs/validation/vendor-oracle.md) and predicted by the
//! front end, compared row by row.
//!
//! - `ASCEND_ORACLE_LIB`: the oracle built for the 910B/310B runtime (it serves Ascend910B1
//!   and Ascend310B1); `ASCEND_ORACLE_LIB_950`: the one built for the 950 runtime (it serves
//!   Ascend950PR_9599). The oracle takes its SoC from `ORACLE_SOC`.
//! - `ASCEND_ORACLE_SEEDS` (default 100) random sequences of 300 rows per SoC, from seed
//!   `ASCEND_ORACLE_FIRST_SEED` (default 1);
//!   `ASCEND_ORACLE_SHOW_SEED=N` prints every row of sequence N (to study a difference in the
//!   state that led to it).
//!
//! Each SoC runs in a child process of this test binary (the oracle reads its SoC once), with
//! a time limit: a row the oracle cannot answer (its stubbed driver spinning) ends the child,
//! and the last row it started is named. A difference passes only when the table of known
//! differences ([`ascend_conformance::probe::oracle_known`]) explains it; anything else fails
//! with the call, its arguments, both codes and the seed that reproduces it. Without an
//! oracle library the test prints `SKIPPED` and why.
#![cfg(feature = "hw")]

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ascend_conformance::probe::{oracle_known, probe_library, probe_random, ProbeReport};

/// Set in the environment of a child run: the SoC it probes.
const CHILD: &str = "ASCEND_ORACLE_CHILD";
/// Rows in each random sequence.
const RANDOM_ROWS: usize = 300;

/// The oracle library for `soc`, from the environment.
fn oracle_for(soc: &str) -> Option<String> {
    let var = if soc.starts_with("Ascend950") {
        "ASCEND_ORACLE_LIB_950"
    } else {
        "ASCEND_ORACLE_LIB"
    };
    std::env::var(var).ok().filter(|p| !p.is_empty())
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The seeds of a run: `ASCEND_ORACLE_SEEDS` (default 100) from `ASCEND_ORACLE_FIRST_SEED`
/// (default 1). The oracle's stubbed driver runs out of room after some 160 sequences in one
/// process, so a long run is made as several ranges.
fn seeds() -> std::ops::RangeInclusive<u64> {
    let first = env_u64("ASCEND_ORACLE_FIRST_SEED", 1);
    first..=first + env_u64("ASCEND_ORACLE_SEEDS", 100) - 1
}

/// One child's comparison: totals, and the differences nothing explains.
#[derive(Default)]
struct Tally {
    rows: usize,
    agreeing: usize,
    explained: usize,
    unexplained: Vec<String>,
}

impl Tally {
    fn add(&mut self, label: &str, report: &ProbeReport) {
        for r in &report.rows {
            self.rows += 1;
            if r.agrees() {
                self.agreeing += 1;
                continue;
            }
            match oracle_known::explain(&report.soc, r) {
                Some(_) => self.explained += 1,
                None => self
                    .unexplained
                    .push(format!("{label}: {}", oracle_known::line(r))),
            }
        }
    }
}

/// The comparison in this process, on the oracle `ASCEND_RT_LIB` names.
#[test]
fn oracle_child() {
    let Ok(soc) = std::env::var(CHILD) else {
        return; // only runs as a child
    };
    let lib = ascend_rt_sys::Library::load().unwrap_or_else(|e| panic!("the oracle: {e}"));
    // Never unloaded: the vendor runtime keeps threads and thread-local destructors.
    let lib: &'static ascend_rt_sys::Library = Box::leak(Box::new(lib));
    let mut tally = Tally::default();
    let fixed = probe_library(lib).unwrap_or_else(|e| panic!("fixed rows: {e}"));
    assert_eq!(
        fixed.soc, soc,
        "the oracle reports the SoC it was asked for"
    );
    tally.add("fixed rows", &fixed);
    for seed in seeds() {
        eprintln!("oracle on {soc}: random sequence {seed}");
        let report = probe_random(lib, seed, RANDOM_ROWS)
            .unwrap_or_else(|e| panic!("random sequence {seed}: {e}"));
        tally.add(&format!("seed {seed}"), &report);
        if std::env::var("ASCEND_ORACLE_SHOW_SEED").ok() == Some(seed.to_string()) {
            print!("{}", report.full_table());
        }
    }
    println!(
        "oracle on {soc}: {} rows ({} fixed, seeds {:?} x {RANDOM_ROWS}), {} agree, {} differ as \
         explained in the table of known differences, {} unexplained",
        tally.rows,
        fixed.rows.len(),
        seeds(),
        tally.agreeing,
        tally.explained,
        tally.unexplained.len()
    );
    for u in &tally.unexplained {
        println!("  UNEXPLAINED {u}");
    }
    assert!(
        tally.unexplained.is_empty(),
        "unexplained differences on {soc}"
    );
}

/// Runs [`oracle_child`] for `soc` over `lib`, within `limit`; its output, or why it failed.
fn child(soc: &str, lib: &str, limit: Duration) -> Result<String, String> {
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args(["oracle_child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, soc)
        .env("ASCEND_RT_LIB", lib)
        .env("ORACLE_SOC", soc)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the child: {e}"))?;
    // Both pipes are drained while the child runs: a child blocked on a full pipe would look
    // like an oracle that never answers.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut text);
            }
            text
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    match status {
        Some(s) if s.success() => Ok(out),
        Some(s) => Err(format!("{soc}: the child failed ({s}):\n{out}\n{err}")),
        None => {
            // The last lines say where it stopped (with ASCEND_PROBE_TRACE=1, the row), and
            // the last sequence begun names the seed.
            let tail: Vec<&str> = err.lines().rev().take(5).collect();
            let sequence = err
                .lines()
                .rev()
                .find(|l| l.contains("random sequence"))
                .unwrap_or("in the fixed rows");
            Err(format!(
                "{soc}: the oracle did not answer within {limit:?} (a row its stubbed driver \
                 cannot complete), {sequence}; it had said:\n{}",
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            ))
        }
    }
}

#[test]
fn the_front_end_agrees_with_the_vendor_runtime_or_the_difference_is_explained() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let limit = Duration::from_secs(
        std::env::var("ASCEND_ORACLE_TIMEOUT_S")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(900),
    );
    let mut ran = 0;
    let mut failures = Vec::new();
    for soc in ["Ascend910B1", "Ascend310B1", "Ascend950PR_9599"] {
        let Some(lib) = oracle_for(soc) else {
            println!(
                "SKIPPED {soc}: no oracle library (ASCEND_ORACLE_LIB / ASCEND_ORACLE_LIB_950 \
                 name the vendor runtime built from source; docs/validation/vendor-oracle.md)"
            );
            continue;
        };
        ran += 1;
        match child(soc, &lib, limit) {
            Ok(out) => print!("{out}"),
            Err(e) => failures.push(e),
        }
    }
    if ran == 0 {
        return;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
