//! The harness: the SoCs the simulator runs on, what a case is and what it found, and running
//! one case or the whole suite on runtimes a caller makes.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ascend_rt::Runtime;

use crate::cases;

/// The SoCs the simulator instantiation runs every case on: an A2 chip (value wait, CMO,
/// 32-byte descriptors), the 200I/500 A2 chip (barrier CMO only), a 950 chip (64-byte
/// descriptors) and a chip with none of these features.
pub const SIM_SOCS: &[&str] = &[
    "Ascend910B1",
    "Ascend310B1",
    "Ascend950PR_9599",
    "Ascend310P3",
];

/// What a case found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every check held.
    Passed,
    /// The case does not apply to this chip or machine.
    Skipped(String),
    /// A check failed (the panic message).
    Failed(String),
}

/// A case's own result: `Err` skips with a reason; failed checks panic.
pub type CaseResult = Result<(), String>;

/// One conformance case.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Its name.
    pub name: &'static str,
    /// Runs it on a fresh runtime.
    pub run: fn(&Runtime) -> CaseResult,
}

/// Runs one case on a runtime from `make`, catching a failed check.
pub fn run_case(case: Case, make: &dyn Fn() -> Result<Runtime, String>) -> Outcome {
    let rt = match make() {
        Ok(rt) => rt,
        Err(e) => return Outcome::Failed(format!("cannot create the runtime: {e}")),
    };
    match catch_unwind(AssertUnwindSafe(|| (case.run)(&rt))) {
        Ok(Ok(())) => Outcome::Passed,
        Ok(Err(reason)) => Outcome::Skipped(reason),
        Err(panic) => Outcome::Failed(
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into()),
        ),
    }
}

/// Runs every case (or those whose name contains `filter`), prints one line per case
/// (`SKIPPED: <reason>` for skips) and returns the results.
pub fn run_suite(
    label: &str,
    make: &dyn Fn() -> Result<Runtime, String>,
    filter: Option<&str>,
) -> Vec<(&'static str, Outcome)> {
    let mut out = Vec::new();
    for c in cases() {
        if filter.is_some_and(|f| !c.name.contains(f)) {
            continue;
        }
        let outcome = run_case(*c, make);
        match &outcome {
            Outcome::Passed => println!("[{label}] {}: passed", c.name),
            Outcome::Skipped(r) => println!("[{label}] {}: SKIPPED: {r}", c.name),
            Outcome::Failed(m) => println!("[{label}] {}: FAILED: {m}", c.name),
        }
        out.push((c.name, outcome));
    }
    out
}

/// Panics naming every failed case of a suite run.
pub fn assert_all_passed(label: &str, results: &[(&'static str, Outcome)]) {
    let failed: Vec<String> = results
        .iter()
        .filter_map(|(n, o)| match o {
            Outcome::Failed(m) => Some(format!("{n}: {m}")),
            _ => None,
        })
        .collect();
    assert!(
        failed.is_empty(),
        "[{label}] {} case(s) failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
