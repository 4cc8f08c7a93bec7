//! The `null` backend validates as the simulator does: the same script of valid and invalid
//! calls gets the same codes on both, on chips with and without the features it uses.

use ascend_rt::raw_types::*;
use ascend_rt::{AclResult, Runtime};

fn code<T>(r: AclResult<T>) -> i32 {
    r.map_or_else(|e| e.code(), |_| 0)
}

/// A mixed script: what each call returned, in order.
fn script(rt: &Runtime) -> Vec<i32> {
    let mut codes = Vec::new();
    let mut flag = Addr::NULL;
    codes.push(code(rt.malloc(
        Some(&mut flag),
        8,
        malloc_policy::NORMAL_ONLY,
    )));
    codes.push(code(rt.set_device(0)));
    codes.push(code(rt.malloc(
        Some(&mut flag),
        64,
        malloc_policy::NORMAL_ONLY,
    )));
    let mut s = RawStream::NULL;
    codes.push(code(rt.create_stream(Some(&mut s))));
    codes.push(code(rt.value_write(flag, 1, 0, s)));
    codes.push(code(rt.value_write(flag, 1, 7, s)));
    codes.push(code(rt.value_wait(flag, 1, 9, s)));
    codes.push(code(rt.value_wait(Addr::NULL, 1, 0, s)));
    codes.push(code(rt.value_write(flag, 1, 0, RawStream(0xdead))));
    codes.push(code(rt.cmo_async(flag, 64, 0, s)));
    codes.push(code(rt.cmo_async(flag, 64, 9, s)));
    codes.push(code(rt.synchronize_stream(s)));
    codes.push(code(rt.free(flag)));
    codes.push(code(rt.value_write(flag, 1, 0, s)));
    codes.push(code(rt.free(flag)));
    codes.push(code(rt.destroy_stream(s)));
    codes.push(code(rt.value_write(flag, 1, 0, s)));
    codes.push(code(rt.reset_device(0)));
    codes
}

#[test]
fn the_null_backend_returns_the_simulators_codes_for_the_same_calls() {
    for soc in [
        "Ascend910B1",
        "Ascend310P3",
        "Ascend950PR_9599",
        "Ascend310B1",
    ] {
        let sim = script(&Runtime::sim(soc).unwrap());
        let null = script(&Runtime::null(soc).unwrap());
        assert_eq!(null, sim, "{soc}");
        assert!(
            sim.iter().any(|&c| c != 0),
            "{soc}: the script has failing calls"
        );
        assert!(sim.contains(&0), "{soc}: the script has succeeding calls");
    }
}

#[test]
fn the_null_backend_runs_nothing_and_says_so() {
    let rt = Runtime::null("Ascend910B1").unwrap();
    assert_eq!(rt.backend_name(), "null");
    rt.set_device(0).unwrap();
    // A wait nothing releases does not hang: nothing runs.
    let mut flag = Addr::NULL;
    rt.malloc(Some(&mut flag), 8, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.value_wait(flag, 42, 1, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    assert!(rt.sim_view().is_none());
}
