//! Criterion benchmarks live in `benches/`; this library holds what the example programs
//! share.

/// The simulator's settings for a timed run: `ASCEND_SIM_RACES=on` turns race detection on
/// (as it does for `libascendcl.so`), so that a run can be timed with and without it.
pub fn timed_config(max_timeline_entries: usize) -> ascend_sim::SimConfig {
    ascend_sim::SimConfig {
        max_timeline_entries,
        races: std::env::var("ASCEND_SIM_RACES").is_ok_and(|v| v.eq_ignore_ascii_case("on")),
        ..ascend_sim::SimConfig::default()
    }
}
