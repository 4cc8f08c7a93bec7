//! The host side of the Chrome trace: one track per host thread (in a process of its own,
//! "host"), each API call a slice with its return code, the time it waited on the device and
//! the tasks it submitted, and a flow arrow from each launching call to each task it submitted,
//! as a profiler shows the API row above the device rows.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::report::RunReport;

/// The trace's process number of the host (beyond any device number).
pub(crate) const HOST_PID: u64 = 1 << 20;

/// Adds the host tracks of `report` to `events`; `device_of` names a stream's device and `us`
/// turns ns into the format's µs.
pub(crate) fn host_events(
    report: &RunReport,
    events: &mut Vec<Value>,
    device_of: impl Fn(u64) -> u32,
    us: impl Fn(u64) -> f64,
) {
    if report.host_threads.is_empty() && report.host_calls.is_empty() {
        return;
    }
    events.push(json!({
        "ph": "M", "name": "process_name", "pid": HOST_PID, "args": { "name": "host" }
    }));
    for t in &report.host_threads {
        let name = match &t.name {
            Some(n) => format!("host thread {} ({n})", t.thread),
            None => format!("host thread {}", t.thread),
        };
        events.push(json!({
            "ph": "M", "name": "thread_name", "pid": HOST_PID, "tid": t.thread,
            "args": { "name": name }
        }));
    }
    let starts: HashMap<u64, (u64, u64)> = report
        .timeline
        .iter()
        .map(|s| (s.task, (s.stream, s.start_ns)))
        .collect();
    let mut flow = 0u64;
    for c in &report.host_calls {
        events.push(json!({
            "ph": "X",
            "name": c.name,
            "cat": if c.code == 0 { "api" } else { "api error" },
            "pid": HOST_PID,
            "tid": c.thread,
            "ts": us(c.start_ns),
            "dur": us(c.end_ns.saturating_sub(c.start_ns)),
            "args": { "args": c.args, "code": c.code, "waited_ns": c.wait_ns, "tasks": c.tasks }
        }));
        for task in &c.tasks {
            let Some(&(stream, start)) = starts.get(task) else {
                continue;
            };
            flow += 1;
            let common = json!({ "name": "launch", "cat": "launch", "id": flow });
            let mut from = common.clone();
            from["ph"] = json!("s");
            from["pid"] = json!(HOST_PID);
            from["tid"] = json!(c.thread);
            from["ts"] = json!(us(c.start_ns));
            let mut to = common;
            to["ph"] = json!("f");
            to["bp"] = json!("e");
            to["pid"] = json!(device_of(stream));
            to["tid"] = json!(stream);
            to["ts"] = json!(us(start));
            events.push(from);
            events.push(to);
        }
    }
}
