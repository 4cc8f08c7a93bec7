//! What happens to a stream's tasks when one faults in stop-on-failure mode, when the stream
//! is aborted (`aclrtStreamAbort`) and when its running task is stopped (`aclrtStreamStop`).

mod common;

use ascend_sim::*;
use common::*;

fn trap_kernel() -> Task {
    Task::Kernel {
        kernel: Kernel::new("trap", |ctx: &mut dyn KernelOps| ctx.trap("on purpose")),
        blocks: 1,
    }
}

#[test]
fn after_a_fault_a_stop_on_failure_stream_discards_its_later_tasks_and_triggers_its_records() {
    for stop in [false, true] {
        let sim = sim();
        let a = sim.malloc(0, 64).unwrap();
        write_u64(&sim, a, 0);
        let st = sim.create_stream(0, 0, false).unwrap();
        let other = sim.create_stream(0, 0, false).unwrap();
        let ev = sim.create_event(0).unwrap();
        if stop {
            sim.set_stop_on_failure(st).unwrap();
        }
        sim.submit(st, trap_kernel()).unwrap();
        sim.submit(st, Task::ValueWrite { addr: a, value: 7 })
            .unwrap();
        sim.submit(st, Task::EventRecord(ev)).unwrap();
        sim.submit(other, Task::EventWait(ev)).unwrap();
        assert!(
            sim.synchronize_stream(st, None).is_err(),
            "the fault is reported"
        );
        sim.synchronize_stream(other, None).unwrap();
        assert_eq!(read_u64(&sim, a), if stop { 0 } else { 7 }, "stop: {stop}");
    }
}

#[test]
fn an_aborted_stream_drops_its_running_and_queued_tasks_and_stays_usable() {
    let sim = sim();
    let a = sim.malloc(0, 64).unwrap();
    write_u64(&sim, a, 0);
    let st = sim.create_stream(0, 0, false).unwrap();
    sim.submit(
        st,
        Task::ValueWait {
            addr: a,
            value: 1,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    sim.submit(st, Task::ValueWrite { addr: a, value: 9 })
        .unwrap();
    sim.abort_stream(st).unwrap();
    sim.synchronize_stream(st, None).unwrap();
    assert_eq!(read_u64(&sim, a), 0);
    sim.submit(st, Task::ValueWrite { addr: a, value: 5 })
        .unwrap();
    sim.synchronize_stream(st, None).unwrap();
    assert_eq!(read_u64(&sim, a), 5);
}

#[test]
fn a_stopped_stream_fails_its_running_task_and_runs_the_rest() {
    let sim = sim();
    let a = sim.malloc(0, 64).unwrap();
    write_u64(&sim, a, 0);
    let st = sim.create_stream(0, 0, false).unwrap();
    sim.submit(
        st,
        Task::ValueWait {
            addr: a,
            value: 1,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    sim.submit(st, Task::ValueWrite { addr: a, value: 9 })
        .unwrap();
    // Let the wait start polling, then stop it.
    assert!(sim.synchronize_stream(st, Some(1)).is_err());
    sim.stop_stream(st, "stopped by aclrtStreamStop").unwrap();
    let err = sim.synchronize_stream(st, None).unwrap_err().to_string();
    assert!(err.contains("stopped"), "{err}");
    assert_eq!(read_u64(&sim, a), 9);
}
