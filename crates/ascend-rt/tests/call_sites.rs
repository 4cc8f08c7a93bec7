//! Where in the program a task was launched: with `RuntimeOptions::call_sites`, the
//! simulator's words about a task (its fault, its hazards, a stalled wait at its head) name
//! the program's frame that launched it; without, they do not.

mod common;

use ascend_rt::raw_types::{cmo_type, malloc_policy, Addr};
use ascend_rt::{Kernel, KernelOps, Runtime, RuntimeOptions};
use common::*;

fn runtime(call_sites: bool) -> Runtime {
    let r = Runtime::sim(A2).unwrap().with_options(RuntimeOptions {
        call_sites,
        ..RuntimeOptions::default()
    });
    r.set_device(0).unwrap();
    r
}

#[test]
fn a_task_fault_names_where_the_task_was_launched() {
    for on in [true, false] {
        let r = runtime(on);
        let s = stream(&r);
        let trap = Kernel::new("trap", |c: &mut dyn KernelOps| c.trap("on purpose"));
        ok(r.launch_kernel(trap, 1, s));
        let said = r.synchronize_stream(s).unwrap_err().to_string()
            + &r.get_recent_err_msg().unwrap_or_default();
        let named = said.contains(
            "was submitted at call_sites::a_task_fault_names_where_the_task_was_launched",
        );
        assert_eq!(named, on, "{said}");
        if on {
            assert!(said.contains("call_sites.rs:"), "the file and line: {said}");
        }
    }
}

#[test]
fn a_hazard_names_where_each_task_it_involves_was_launched() {
    let r = runtime(true);
    let s = stream(&r);
    let mut buf = Addr::NULL;
    ok(r.malloc(Some(&mut buf), 4096, malloc_policy::NORMAL_ONLY));
    ok(r.memset(buf, 4096, 0, 4096));
    ok(r.value_write(buf, 7, 0, s));
    ok(r.cmo_async(buf, 512, cmo_type::INVALID, s));
    ok(r.synchronize_stream(s));
    let report = r.sim_view().unwrap().report();
    let lost = report
        .hazards
        .iter()
        .find(|h| h.kind == "lost_write")
        .expect("a lost write");
    assert_eq!(
        lost.detail
            .matches("was submitted at call_sites::a_hazard_names")
            .count(),
        2,
        "the INVALID and the write it lost: {}",
        lost.detail
    );
}

#[test]
fn a_stalled_wait_names_where_it_was_launched() {
    let cfg = ascend_sim::SimConfig {
        on_stall: ascend_sim::OnStall::Error,
        watchdog_grace: std::time::Duration::from_millis(100),
        ..ascend_sim::SimConfig::default()
    };
    let r = Runtime::sim_with(A2, cfg)
        .unwrap()
        .with_options(RuntimeOptions {
            call_sites: true,
            ..RuntimeOptions::default()
        });
    r.set_device(0).unwrap();
    let s = stream(&r);
    let mut flag = Addr::NULL;
    ok(r.malloc(Some(&mut flag), 64, malloc_policy::NORMAL_ONLY));
    ok(r.memset(flag, 64, 0, 64));
    ok(r.value_wait(flag, 1, 0, s));
    let said = r.synchronize_stream(s).unwrap_err().to_string()
        + &r.get_recent_err_msg().unwrap_or_default();
    assert!(
        said.contains("was submitted at call_sites::a_stalled_wait_names_where_it_was_launched"),
        "{said}"
    );
}
