//! How much of the validation tables (`docs/validation/*.md`) the probe's rows reach, on the
//! front end of three SoCs (docs/validation/vendor-oracle.md, Row coverage).
//!
//! `ASCEND_PROBE_COVERAGE_SEEDS` (default 20) random sequences of 300 rows per SoC, after
//! the fixed rows. The test prints the measure and every row of a probed call that no row
//! reached, and fails if fewer rows are reached than when the measure was recorded.
#![cfg(feature = "hw")]

use ascend_conformance::probe::coverage::front_coverage;

/// Rows reached with the default seeds when the measure was recorded: a change that loses
/// one fails here.
const REACHED_AT_LEAST: usize = 66;

#[test]
fn the_probe_reaches_the_validation_rows_it_reached_when_measured() {
    let seeds = std::env::var("ASCEND_PROBE_COVERAGE_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let socs = ["Ascend910B1", "Ascend310B1", "Ascend950PR_9599"];
    let cov = front_coverage(&socs, seeds, 300).expect("the front end runs the probe");
    println!(
        "validation rows: {} listed, {} of calls the probe makes, {} reached ({} seeds x 300 rows on {})",
        cov.listed,
        cov.of_probed_calls,
        cov.reached,
        seeds,
        socs.join(", ")
    );
    for r in &cov.unreached {
        println!("  not reached: {r}");
    }
    println!(
        "  calls with rows the probe never makes: {:?}",
        cov.calls_not_probed
    );
    assert!(
        cov.reached >= REACHED_AT_LEAST,
        "{} rows reached, fewer than the {REACHED_AT_LEAST} recorded",
        cov.reached
    );
}
