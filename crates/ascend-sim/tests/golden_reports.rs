//! Fixed programs whose run reports are committed (`tests/golden/*.json`): speed work must not
//! change simulated behaviour, so every figure of the report (times, spans, value waits, L2
//! figures, CMO records, barrier samples, kernel blocks, hazards) must stay as it is. Only a
//! deliberate change of the model updates them, in a commit of its own: run with
//! `ASCEND_UPDATE_GOLDEN=1` to rewrite the files, then review the diff.
//!
//! Left out of the comparison: `backing_bytes` (how the simulator stores memory, not what it
//! simulates).

mod common;

use std::path::PathBuf;

use ascend_chips::ChipProfile;
use ascend_sim::*;
use common::*;

/// The report's JSON read into a `RunReport` and written again is the same JSON.
fn reads_back_as_it_was(name: &str, json: &str) {
    let read: RunReport = serde_json::from_str(json)
        .unwrap_or_else(|e| panic!("{name}: the report does not read back: {e}"));
    let again = serde_json::to_string_pretty(&read).unwrap();
    assert!(
        again == json,
        "{name}: the report read back differs from the one written"
    );
}

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.json"))
}

/// Compares the report of `sim` with the committed one (or rewrites it when asked), after
/// checking that the report reads back from its JSON as it was.
fn check(name: &str, sim: &Sim) {
    reads_back_as_it_was(name, &sim.report_json());
    let mut report: serde_json::Value = serde_json::from_str(&sim.report_json()).unwrap();
    report
        .as_object_mut()
        .expect("a report is an object")
        .remove("backing_bytes");
    let got = serde_json::to_string_pretty(&report).unwrap() + "\n";
    let path = golden_path(name);
    if std::env::var_os("ASCEND_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with ASCEND_UPDATE_GOLDEN=1 to create it)",
            path.display()
        )
    });
    if got != want {
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(g, w)| g != w)
            .unwrap_or_else(|| got.lines().count().min(want.lines().count()));
        let show = |s: &str| {
            s.lines()
                .skip(line.saturating_sub(3))
                .take(7)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "{name}: the report differs from {} from line {}:\n--- now\n{}\n--- committed\n{}\n\
             (a deliberate model change: rerun with ASCEND_UPDATE_GOLDEN=1 and commit the diff \
             on its own)",
            path.display(),
            line + 1,
            show(&got),
            show(&want)
        );
    }
}

#[test]
fn a_value_ping_pong_between_two_streams_reports_as_committed() {
    let sim = sim();
    let (ping, pong) = (sim.malloc(0, 8).unwrap(), sim.malloc(0, 8).unwrap());
    sim.fill(ping, 0, 8).unwrap();
    sim.fill(pong, 0, 8).unwrap();
    let (a, b) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    for round in 1..=50u64 {
        sim.submit(
            a,
            Task::ValueWrite {
                addr: ping,
                value: round,
            },
        )
        .unwrap();
        sim.submit(
            b,
            Task::ValueWait {
                addr: ping,
                value: round,
                mode: WaitMode::Geq,
            },
        )
        .unwrap();
        sim.submit(
            b,
            Task::ValueWrite {
                addr: pong,
                value: round,
            },
        )
        .unwrap();
        sim.submit(
            a,
            Task::ValueWait {
                addr: pong,
                value: round,
                mode: WaitMode::Eq,
            },
        )
        .unwrap();
    }
    sim.synchronize_stream(a, None).unwrap();
    sim.synchronize_stream(b, None).unwrap();
    check("value_ping_pong", &sim);
}

#[test]
fn copies_fills_events_and_cmos_report_as_committed() {
    let sim = sim();
    let n = 1 << 20;
    let (src, dst) = (sim.malloc(0, n).unwrap(), sim.malloc(0, n).unwrap());
    let s = sim.create_stream(0, 0, false).unwrap();
    let e = sim.create_event(0).unwrap();
    let host = host_buf((0..n).map(|i| i as u8).collect());
    let back = host_buf(vec![0; n as usize]);
    let tasks = vec![
        Task::Memcpy {
            dst: Loc::Device(src),
            src: Loc::Host {
                buf: host,
                offset: 0,
            },
            len: n,
        },
        cmo(CmoType::Writeback, src, n),
        cmo(CmoType::Invalid, src, n / 2),
        cmo(CmoType::Prefetch, src, n),
        Task::Memcpy {
            dst: Loc::Device(dst),
            src: Loc::Device(src),
            len: n,
        },
        Task::EventRecord(e),
        memset(dst + 4096, 0x5A, 8192),
        cmo(CmoType::Flush, dst, n),
        Task::ValueWrite {
            addr: dst,
            value: 7,
        },
        cmo(CmoType::Invalid, dst + 3, 100),
        Task::Memcpy {
            dst: Loc::Host {
                buf: back,
                offset: 0,
            },
            src: Loc::Device(dst),
            len: n,
        },
    ];
    for t in tasks {
        sim.submit(s, t).unwrap();
    }
    sim.synchronize_stream(s, None).unwrap();
    check("copies_cmos", &sim);
}

#[test]
fn the_barrier_flow_on_310b1_reports_as_committed() {
    let sim = Sim::new(
        ChipProfile::builtin("Ascend310B1").unwrap(),
        SimConfig::default(),
    );
    let a = sim.malloc(0, 1 << 20).unwrap();
    sim.fill(a, 1, 1 << 20).unwrap();
    // Written back and then partly resident again, so that the INVALIDs lose nothing and walk
    // resident lines.
    run_tasks(
        &sim,
        vec![
            cmo(CmoType::Flush, a, 1 << 20),
            cmo(CmoType::Prefetch, a, 1 << 19),
        ],
    );
    let streams: Vec<StreamId> = (0..2)
        .map(|_| sim.create_stream(0, 0, true).unwrap())
        .collect();
    let m = sim.create_model(0).unwrap();
    for &s in &streams {
        sim.bind_stream(m, s).unwrap();
    }
    let invalid = |addr, len, barrier_id| Task::CmoWithBarrier {
        op: CmoType::Invalid,
        addr,
        len,
        barrier_id,
    };
    sim.submit(streams[0], invalid(a, 1 << 19, 2)).unwrap();
    sim.submit(streams[0], invalid(a + (1 << 19), 1 << 19, 2))
        .unwrap();
    sim.submit(
        streams[1],
        Task::CmoWaitBarrier {
            barrier_ids: vec![2],
        },
    )
    .unwrap();
    sim.execute_model(m, None).unwrap();
    check("barrier_310b1", &sim);
}

#[test]
fn kernels_and_their_hazards_report_as_committed() {
    let sim = sim();
    let flag = sim.malloc(0, 256).unwrap();
    sim.fill(flag, 0, 256).unwrap();
    let (s1, s2) = (
        sim.create_stream(0, 0, false).unwrap(),
        sim.create_stream(0, 0, false).unwrap(),
    );
    sim.submit(
        s1,
        Task::ValueWait {
            addr: flag,
            value: 1,
            mode: WaitMode::Eq,
        },
    )
    .unwrap();
    let signal = Kernel::new("signal", move |ctx: &mut dyn KernelOps| {
        ctx.store(flag, 8, 1);
        ctx.dcci(flag, false, 2);
    });
    let poll = Kernel::new("poll", move |ctx: &mut dyn KernelOps| loop {
        ctx.dcci(flag, false, 2);
        if ctx.load(flag, 8) == 2 {
            break;
        }
        ctx.spin(100);
    });
    // Two cores writing words of one line: a false-sharing hazard.
    let share = Kernel::new("share", move |ctx: &mut dyn KernelOps| {
        let b = u64::from(ctx.block_idx());
        ctx.store(flag + 128 + 8 * b, 8, b + 1);
        ctx.spin(500 * (b + 1));
        ctx.dcci(flag + 128, false, 2);
    });
    sim.submit(s2, kernel(signal, 1)).unwrap();
    sim.submit(s1, kernel(poll, 2)).unwrap();
    sim.submit(s2, kernel(share, 2)).unwrap();
    sim.submit(
        s2,
        Task::ValueWrite {
            addr: flag,
            value: 2,
        },
    )
    .unwrap();
    sim.synchronize_stream(s2, None).unwrap();
    sim.synchronize_stream(s1, None).unwrap();
    check("kernels", &sim);
}
