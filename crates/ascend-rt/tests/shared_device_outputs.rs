//! What the shared device writes of every process: one run report naming each stream's process,
//! and one trace with a track group per process.

mod service_children;

use std::time::{Duration, Instant};

use ascend_rt::device_service;

use service_children::*;

/// The clients' roles: child runs of this test binary.
#[test]
fn child_process() {
    play_role();
}

#[test]
fn the_trace_has_a_track_group_per_process_and_the_report_names_each_stream_s_process() {
    let path = socket("outputs");
    let dir = path.parent().unwrap().to_path_buf();
    let outputs = device_service::Outputs {
        report: Some(dir.join("report.json")),
        trace: Some(dir.join("trace.json")),
    };
    let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
    device_service::spawn_writing(&path, chip, Default::default(), outputs).unwrap();
    let mut pids = Vec::new();
    for _ in 0..2 {
        let worker = child("work", &path);
        pids.push(worker.id());
        let out = worker.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    until(&path, "both workers released", |st| st.is_empty());
    // Written as each process went: the last one covers both.
    let start = Instant::now();
    let (trace, report) = loop {
        let t = std::fs::read_to_string(dir.join("trace.json")).unwrap_or_default();
        let r = std::fs::read_to_string(dir.join("report.json")).unwrap_or_default();
        if pids.iter().all(|p| t.contains(&format!("process {p}"))) {
            break (t, r);
        }
        assert!(start.elapsed() < Duration::from_secs(10), "{t}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let trace: serde_json::Value = serde_json::from_str(&trace).unwrap();
    let groups: Vec<String> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap().to_string())
        .collect();
    for p in &pids {
        assert!(
            groups
                .iter()
                .any(|g| g.ends_with(&format!("device 0, process {p}"))),
            "a track group for process {p}: {groups:?}"
        );
    }
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    let owners: Vec<&str> = report["streams"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["owner"].as_str())
        .collect();
    for p in &pids {
        assert!(
            owners.contains(&format!("process {p}").as_str()),
            "{owners:?}"
        );
    }
}
