//! Unit tests of the facade: objects leave the engine with their handles, and a timed-out
//! model run is forgotten when it ends.

use super::*;

fn sim() -> Sim {
    let chip = ChipProfile::builtin("Ascend910B1").expect("built-in chip");
    Sim::new(chip, SimConfig::default())
}

#[test]
fn destroyed_objects_leave_the_engine() {
    let s = sim();
    let st = s.create_stream(0, 0, false).unwrap();
    let other = s.create_stream(0, 0, false).unwrap();
    for _ in 0..100 {
        let e = s.create_event(0).unwrap();
        s.submit(st, Task::EventRecord(e)).unwrap();
        s.submit(other, Task::EventWait(e)).unwrap();
        s.destroy_event(e).unwrap();
        let n = s.create_notify(0).unwrap();
        s.submit(st, Task::NotifyRecord(n)).unwrap();
        let wait = Task::NotifyWait {
            notify: n,
            timeout_ms: None,
        };
        s.submit(other, wait).unwrap();
        let m = s.create_model(0).unwrap();
        s.destroy_model(m).unwrap();
    }
    s.synchronize_device(0, None).unwrap();
    for n in 0..100 {
        s.destroy_notify(NotifyId(n)).unwrap();
    }
    let g = s.lock();
    assert!(g.events.is_empty());
    assert!(g.notifies.is_empty());
    assert!(g.models.is_empty());
    assert!(g.event_waiters.is_empty());
    assert!(g.notify_waiters.is_empty());
}

#[test]
fn a_timed_out_model_run_is_forgotten_when_it_ends() {
    let s = sim();
    let a = s.malloc(0, 64).unwrap();
    s.write(a, &0u64.to_le_bytes()).unwrap();
    let ps = s.create_stream(0, 0, true).unwrap();
    let m = s.create_model(0).unwrap();
    s.bind_stream(m, ps).unwrap();
    let wait = Task::ValueWait {
        addr: a,
        value: 1,
        mode: WaitMode::Eq,
    };
    s.submit(ps, wait).unwrap();
    for _ in 0..3 {
        assert_eq!(
            s.execute_model(m, Some(1))
                .err()
                .and_then(|e| e.timeout_ms()),
            Some(1)
        );
    }
    assert_eq!(s.lock().instances.len(), 3);
    s.write(a, &1u64.to_le_bytes()).unwrap();
    s.synchronize_device(0, None).unwrap();
    assert!(s.lock().instances.is_empty());
}
