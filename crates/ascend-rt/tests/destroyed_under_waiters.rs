//! A thread synchronizing a stream that another thread destroys by force, or whose device it
//! resets by force, is told that the tasks it waited for were discarded (107023,
//! `ACL_ERROR_RT_STREAM_ABORT`, with the simulator's explanation), never 0; a plain destroy
//! runs the tasks first, so its waiters get 0 (docs/validation/streams-events.md).

mod common;

use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use ascend_rt::raw_types::RawStream;
use ascend_rt::{AclResult, Runtime};
use common::*;

const WAITERS: usize = 8;

/// Starts one thread per stream, each synchronizing its stream (blocked behind a value wait
/// on `gate`), and returns once all of them wait in the simulator; their results come on the
/// channel.
fn waiters(
    r: &Arc<Runtime>,
    gate: ascend_rt::raw_types::Addr,
    n: usize,
) -> (Vec<RawStream>, mpsc::Receiver<AclResult<()>>) {
    let (tx, rx) = mpsc::channel();
    let mut streams = Vec::new();
    let scratch = malloc(r, 8);
    for _ in 0..n {
        let s = stream(r);
        ok(r.value_wait(gate, 1, 0, s));
        ok(r.memset_async(scratch, 8, 1, 8, s));
        streams.push(s);
        let (r, tx) = (r.clone(), tx.clone());
        std::thread::spawn(move || {
            r.set_device(0).unwrap();
            let _ = tx.send(r.synchronize_stream(s));
        });
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let waiting = r
            .sim_view()
            .and_then(|v| v.diagnose())
            .map_or(0, |d| d.host_waits.len());
        if waiting >= n {
            break;
        }
        assert!(Instant::now() < deadline, "the waiters never waited");
        std::thread::sleep(Duration::from_millis(5));
    }
    (streams, rx)
}

/// The waiters' results, each within a bound.
fn results(rx: &mpsc::Receiver<AclResult<()>>, n: usize) -> Vec<AclResult<()>> {
    (0..n)
        .map(|_| {
            rx.recv_timeout(Duration::from_secs(20))
                .expect("a waiter hung")
        })
        .collect()
}

#[track_caller]
fn assert_discarded(results: Vec<AclResult<()>>) {
    for r in results {
        let e = r.expect_err("the waited-for tasks were discarded");
        assert_eq!(e.code(), 107023, "{e}");
        assert!(e.message.contains("discarded"), "{e}");
    }
}

#[test]
fn threads_whose_streams_are_destroyed_by_force_learn_their_tasks_were_discarded() {
    let r = Arc::new(rt0(A2));
    let gate = malloc(&r, 8);
    ok(r.memset(gate, 8, 0, 8));
    let (streams, rx) = waiters(&r, gate, WAITERS);
    for s in streams {
        ok(r.destroy_stream_force(s));
    }
    assert_discarded(results(&rx, WAITERS));
}

#[test]
fn threads_whose_device_is_reset_by_force_learn_their_tasks_were_discarded() {
    let r = Arc::new(rt0(A2));
    let gate = malloc(&r, 8);
    ok(r.memset(gate, 8, 0, 8));
    let (_streams, rx) = waiters(&r, gate, WAITERS);
    ok(r.reset_device_force(0));
    assert_discarded(results(&rx, WAITERS));
}

#[test]
fn threads_whose_streams_are_destroyed_after_their_tasks_ran_get_success() {
    let r = Arc::new(rt0(A2));
    let gate = malloc(&r, 8);
    ok(r.memset(gate, 8, 0, 8));
    let (streams, rx) = waiters(&r, gate, WAITERS);
    let destroyer = {
        let r = r.clone();
        std::thread::spawn(move || {
            r.set_device(0).unwrap();
            for s in streams {
                ok(r.destroy_stream(s));
            }
        })
    };
    ok(r.value_write(gate, 1, 0, RawStream::NULL));
    for res in results(&rx, WAITERS) {
        // A waiter that woke after the destroy finds the stream gone only once its tasks ran.
        assert!(res.is_ok(), "{res:?}");
    }
    destroyer.join().unwrap();
}
