//! Instantiation (a): every conformance case directly on the simulator backend
//! (`Runtime::sim`), on each SoC of `SIM_SOCS`.

use ascend_conformance::{case, run_case, Outcome, SIM_SOCS};
use ascend_rt::Runtime;

fn on_sim(name: &str) {
    let c = case(name).expect("a case of the suite");
    let mut failed = Vec::new();
    for soc in SIM_SOCS {
        match run_case(c, &|| Runtime::sim(soc).map_err(|e| e.to_string())) {
            Outcome::Passed => println!("[sim {soc}] {name}: passed"),
            Outcome::Skipped(r) => println!("[sim {soc}] {name}: SKIPPED: {r}"),
            Outcome::Failed(m) => failed.push(format!("{soc}: {m}")),
        }
    }
    assert!(
        failed.is_empty(),
        "{name} failed on:\n{}",
        failed.join("\n")
    );
}

macro_rules! sim_cases {
    ($($name:ident),* $(,)?) => {
        $( #[test] fn $name() { on_sim(stringify!($name)); } )*

        #[test]
        fn every_case_is_instantiated() {
            let listed = [$(stringify!($name)),*];
            for c in ascend_conformance::cases() {
                assert!(listed.contains(&c.name), "case {} has no sim test", c.name);
            }
        }
    };
}

sim_cases!(
    value_api_validation,
    cmo_async_validation,
    cmo_barrier_validation,
    cmo_desc_validation,
    supporting_api_validation,
    compare_modes,
    wait_released_by_host_thread,
    event_ordering,
    model_execution_repeatable,
    barrier_cmo_on_model_stream,
    desc_cmo_on_model_stream,
    bad_handles,
    host_buffer_copies,
    explicit_contexts,
    notify_record_and_wait,
    event_timestamps,
    simulator_kernels,
    host_functions_and_reports,
    stream_control,
    device_queries_and_peer_access,
    built_in_tasks_and_labels,
    stream_capture,
    kernel_binaries,
    ipc_memory,
    physical_memory,
    registered_host_memory,
);
