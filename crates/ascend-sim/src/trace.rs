//! The run's timeline in the Chrome trace event format, which Perfetto (ui.perfetto.dev) and
//! `chrome://tracing` open: one track per stream (grouped by device), one complete event per
//! task from dispatch to completion, the value waits with their polling passes and a flow
//! arrow from the write that released each, a counter
//! track per barrier id (the INVALIDs outstanding on it), one track per AI core with each
//! kernel block it ran, one track per copy engine and CMO engine with each job it held (its
//! setup and its transfer), each hazard as an instant event on its device, and the host's
//! threads with each API call and an arrow to each task it submitted (`trace_host`).
//!
//! ```
//! use ascend_sim::{report::RunReport, trace::chrome_trace};
//! # fn show(report: &RunReport) {
//! let json = chrome_trace(report);
//! assert!(json.starts_with('{'));
//! # }
//! ```

use serde_json::{json, Value};

use crate::report::RunReport;

/// Track numbers of the AI cores (beyond any stream number a program reaches).
const CORE_TRACK_BASE: u64 = 1 << 40;
/// Track numbers of the copy and CMO engines (beyond the AI cores').
const ENGINE_TRACK_BASE: u64 = 1 << 41;

/// Simulated nanoseconds as the format's microseconds.
fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// Where the track groups of streams with an owner (a program of the shared device service)
/// are numbered from: one group per device and owner, beyond the devices' and the host's.
const OWNER_GROUP_BASE: u32 = (1 << 21) as u32;

/// Each stream's track group, by stream number.
type GroupOfStream = Vec<(u64, u32)>;
/// Each track group's name, by group number.
type GroupNames = Vec<(u32, String)>;

/// The track group of each stream: its device's, or for a stream with an owner, that of its
/// device and owner; with each group's name.
fn stream_groups(report: &RunReport) -> (GroupOfStream, GroupNames) {
    let mut owners: Vec<(u32, &str)> = Vec::new();
    let mut of_stream = Vec::new();
    let mut names: Vec<(u32, String)> = Vec::new();
    for s in report.streams.iter() {
        let group = match s.owner.as_deref() {
            None => {
                if !names.iter().any(|(g, _)| *g == s.device) {
                    names.push((s.device, format!("{} device {}", report.chip, s.device)));
                }
                s.device
            }
            Some(owner) => {
                let at = match owners
                    .iter()
                    .position(|&(d, o)| d == s.device && o == owner)
                {
                    Some(i) => i,
                    None => {
                        owners.push((s.device, owner));
                        owners.len() - 1
                    }
                };
                let g = OWNER_GROUP_BASE + at as u32;
                if !names.iter().any(|(n, _)| *n == g) {
                    names.push((g, format!("{} device {}, {owner}", report.chip, s.device)));
                }
                g
            }
        };
        of_stream.push((s.stream, group));
    }
    names.sort_unstable();
    (of_stream, names)
}

/// The report's timeline as a Chrome trace (JSON object format).
pub fn chrome_trace(report: &RunReport) -> String {
    let (groups, group_names) = stream_groups(report);
    // A stream's track group: its device, or its device and owner.
    let device_of = |stream: u64| {
        groups
            .iter()
            .find(|(s, _)| *s == stream)
            .map_or(0, |(_, g)| *g)
    };
    let mut events: Vec<Value> = Vec::new();
    // A stream that ran nothing (the default stream of most programs) has no track.
    for s in report.streams.iter().filter(|s| s.tasks > 0) {
        events.push(json!({
            "ph": "M", "name": "thread_name", "pid": device_of(s.stream), "tid": s.stream,
            "args": { "name": format!("stream {}{}", s.stream, if s.destroyed { " (destroyed)" } else { "" }) }
        }));
    }
    for (g, name) in group_names {
        events.push(json!({
            "ph": "M", "name": "process_name", "pid": g,
            "args": { "name": name }
        }));
    }
    crate::trace_host::host_events(report, &mut events, device_of, us);
    for span in &report.timeline {
        let mut args =
            json!({ "task": span.task, "submitted_ns": span.submit_ns, "fault": span.fault });
        let a = &span.args;
        let hex = |v: u64| Value::from(format!("{v:#x}"));
        let fields = [
            ("cmo", a.cmo.as_deref().map(Value::from)),
            ("addr", a.addr.map(hex)),
            ("bytes", a.bytes.map(Value::from)),
            // A wait's AND or NOR operand is a bit mask: in hexadecimal.
            (
                "value",
                match a.mode.as_deref() {
                    Some(m) if crate::compare::compares_bits(m) => a.value.map(hex),
                    _ => a.value.map(Value::from),
                },
            ),
            ("mode", a.mode.as_deref().map(Value::from)),
            ("kernel", a.kernel.as_deref().map(Value::from)),
            ("blocks", a.blocks.map(Value::from)),
            ("copy", a.copy.as_deref().map(Value::from)),
        ];
        for (key, v) in fields {
            if let Some(v) = v {
                args[key] = v;
            }
        }
        // A CMO is named with its type, a kernel with its name.
        let name = match (&a.cmo, &a.kernel) {
            (Some(op), _) => format!("{} {op}", span.kind),
            (None, Some(k)) => format!("{} {k}", span.kind),
            _ => span.kind.to_string(),
        };
        events.push(json!({
            "ph": "X",
            "name": name,
            "cat": if span.fault { "fault" } else { "task" },
            "pid": device_of(span.stream),
            "tid": span.stream,
            "ts": us(span.start_ns),
            "dur": us(span.end_ns.saturating_sub(span.start_ns)),
            "args": args
        }));
    }
    // Each value wait released by a stream task is joined to that task by a flow arrow: from
    // the writer's track when it wrote to the wait's track when it was released.
    for (flow, w) in report.value_waits.iter().enumerate() {
        let Some(crate::memory::Writer::Task {
            stream,
            at_ns,
            task,
            ..
        }) = w.released_by.as_ref().and_then(|r| r.writer())
        else {
            continue;
        };
        let common = json!({ "name": "releases", "cat": "release", "id": flow });
        let mut start = common.clone();
        start["ph"] = json!("s");
        start["pid"] = json!(device_of(stream));
        start["tid"] = json!(stream);
        start["ts"] = json!(us(at_ns));
        start["args"] = json!({ "writer task": task });
        let mut end = common;
        end["ph"] = json!("f");
        end["bp"] = json!("e");
        end["pid"] = json!(device_of(w.stream));
        end["tid"] = json!(w.stream);
        end["ts"] = json!(us(w.end_ns));
        events.push(start);
        events.push(end);
    }
    for w in &report.value_waits {
        events.push(json!({
            "ph": "i", "s": "t",
            "name": format!("value wait released ({} {:#x})", w.mode, w.value),
            "pid": device_of(w.stream),
            "tid": w.stream,
            "ts": us(w.end_ns),
            "args": { "addr": format!("{:#x}", w.addr), "passes": w.passes, "waited_ns": w.duration_ns }
        }));
    }
    let mut core_tracks = std::collections::BTreeSet::new();
    for k in &report.kernel_blocks {
        let tid = CORE_TRACK_BASE + u64::from(k.core);
        if core_tracks.insert((k.device, tid)) {
            events.push(json!({
                "ph": "M", "name": "thread_name", "pid": k.device, "tid": tid,
                "args": { "name": format!("AI core {}", k.core) }
            }));
        }
        events.push(json!({
            "ph": "X",
            "name": format!("{} block {}", k.kernel, k.block),
            "cat": if k.fault.is_some() { "fault" } else { "kernel" },
            "pid": k.device,
            "tid": tid,
            "ts": us(k.start_ns),
            "dur": us(k.end_ns.saturating_sub(k.start_ns)),
            "args": { "task": k.task, "stream": k.stream, "ops": k.ops, "fault": k.fault }
        }));
    }
    let mut engine_tracks = std::collections::BTreeMap::new();
    for j in &report.engine_jobs {
        let next = ENGINE_TRACK_BASE + engine_tracks.len() as u64;
        let tid = *engine_tracks
            .entry((j.device, j.engine.clone()))
            .or_insert_with(|| {
                events.push(json!({
                    "ph": "M", "name": "thread_name", "pid": j.device, "tid": next,
                    "args": { "name": format!("{} engine", j.engine) }
                }));
                next
            });
        let args = json!({ "task": j.task, "stream": j.stream, "bytes": j.bytes });
        for (name, from, to) in [
            (format!("{} setup", j.kind), j.start_ns, j.moving_ns),
            (j.kind.to_string(), j.moving_ns, j.end_ns),
        ] {
            events.push(json!({
                "ph": "X", "name": name, "cat": "engine", "pid": j.device, "tid": tid,
                "ts": us(from), "dur": us(to.saturating_sub(from)), "args": args.clone()
            }));
        }
    }
    for b in &report.barriers {
        let name = match b.model {
            Some(m) => format!("model {m} barrier {}", b.barrier_id),
            None => format!("barrier {}", b.barrier_id),
        };
        events.push(json!({
            "ph": "C",
            "name": name,
            "pid": b.device,
            "ts": us(b.at_ns),
            "args": { "outstanding INVALIDs": b.outstanding }
        }));
    }
    for h in &report.hazards {
        events.push(json!({
            "ph": "i", "s": "p",
            "name": format!("hazard: {}", h.kind),
            "cat": "hazard",
            "pid": h.device,
            "ts": us(h.at_ns),
            "args": { "addr": format!("{:#x}", h.addr), "len": h.len, "detail": h.detail }
        }));
    }
    json!({ "traceEvents": events, "displayTimeUnit": "ns" }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Sim, SimConfig, Task, WaitMode};
    use ascend_chips::ChipProfile;

    #[test]
    fn task_events_say_what_each_task_was_and_an_unused_stream_has_no_track() {
        let sim = Sim::new(
            ChipProfile::builtin("Ascend910B1").unwrap(),
            SimConfig::default(),
        );
        let x = sim.malloc(0, 4096).unwrap();
        sim.fill(x, 0, 4096).unwrap();
        let _unused = sim.create_stream(0, 0, false).unwrap();
        let s = sim.create_stream(0, 0, false).unwrap();
        let inv = Task::Cmo {
            op: crate::CmoType::Invalid,
            addr: x,
            len: 4096,
        };
        sim.submit(s, inv).unwrap();
        let nor = Task::ValueWait {
            addr: x,
            value: 0xf0,
            mode: WaitMode::Nor,
        };
        sim.submit(s, nor).unwrap();
        let k = crate::Kernel::new("adder", |c: &mut dyn crate::KernelOps| c.spin(10));
        sim.submit(
            s,
            Task::Kernel {
                kernel: k,
                blocks: 4,
            },
        )
        .unwrap();
        let copy = Task::Memcpy {
            dst: crate::Loc::Device(x),
            src: crate::Loc::Device(x + 2048),
            len: 1024,
        };
        sim.submit(s, copy).unwrap();
        sim.synchronize_stream(s, None).unwrap();
        let trace: Value = serde_json::from_str(&chrome_trace(&sim.report())).unwrap();
        let events = trace["traceEvents"].as_array().unwrap();
        let task = |name: &str| {
            events
                .iter()
                .find(|e| e["ph"] == "X" && e["name"] == name)
                .unwrap_or_else(|| panic!("{name} in {events:?}"))
        };
        let cmo = task("Cmo INVALID");
        assert_eq!(cmo["args"]["cmo"], "INVALID");
        assert_eq!(cmo["args"]["addr"], format!("{x:#x}"));
        assert_eq!(cmo["args"]["bytes"], 4096);
        let wait = task("ValueWait");
        assert_eq!(
            (&wait["args"]["mode"], &wait["args"]["value"]),
            (&json!("NOR"), &json!("0xf0"))
        );
        let kernel = task("Kernel adder");
        assert_eq!(kernel["args"]["blocks"], 4);
        let copy = task("Memcpy");
        assert_eq!(
            (&copy["args"]["copy"], &copy["args"]["bytes"]),
            (&json!("DeviceToDevice"), &json!(1024))
        );
        let tracks: Vec<&Value> = events
            .iter()
            .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
            .filter(|e| e["args"]["name"].as_str().unwrap().starts_with("stream"))
            .collect();
        assert_eq!(
            tracks.len(),
            1,
            "only the stream that ran has a track: {tracks:?}"
        );
    }

    #[test]
    fn each_task_becomes_a_complete_event_on_its_streams_track() {
        let sim = Sim::new(
            ChipProfile::builtin("Ascend910B1").unwrap(),
            SimConfig::default(),
        );
        let x = sim.malloc(0, 64).unwrap();
        sim.fill(x, 0, 8).unwrap();
        let (a, b) = (
            sim.create_stream(0, 0, false).unwrap(),
            sim.create_stream(0, 0, false).unwrap(),
        );
        sim.submit(
            a,
            Task::ValueWait {
                addr: x,
                value: 1,
                mode: WaitMode::Eq,
            },
        )
        .unwrap();
        sim.submit(b, Task::ValueWrite { addr: x, value: 1 })
            .unwrap();
        sim.synchronize_device(0, None).unwrap();
        let trace: Value = serde_json::from_str(&chrome_trace(&sim.report())).unwrap();
        let events = trace["traceEvents"].as_array().unwrap();
        let tasks: Vec<&Value> = events.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(tasks.len(), 2);
        let wait = tasks.iter().find(|e| e["name"] == "ValueWait").unwrap();
        let write = tasks.iter().find(|e| e["name"] == "ValueWrite").unwrap();
        assert_eq!(wait["tid"], a.0);
        assert_eq!(write["tid"], b.0);
        let end = |e: &Value| e["ts"].as_f64().unwrap() + e["dur"].as_f64().unwrap();
        assert!(
            end(wait) >= end(write),
            "the wait ends after the write it waited for"
        );
        assert!(
            events.iter().any(|e| e["ph"] == "i"),
            "the release is marked"
        );
        assert!(
            events.iter().any(|e| e["name"] == "thread_name"),
            "streams are named"
        );
        // The release is an arrow from the write's track to the wait's.
        let from = events.iter().find(|e| e["ph"] == "s").unwrap();
        let to = events.iter().find(|e| e["ph"] == "f").unwrap();
        assert_eq!(
            (from["tid"].clone(), to["tid"].clone()),
            (json!(b.0), json!(a.0))
        );
        assert_eq!(from["id"], to["id"]);
        has_the_required_fields(events);
    }

    #[test]
    fn each_copy_engine_job_shows_on_its_engines_track_with_its_setup_and_transfer() {
        let sim = Sim::new(
            ChipProfile::builtin("Ascend910B1").unwrap(),
            SimConfig::default(),
        );
        let x = sim.malloc(0, 1 << 20).unwrap();
        let y = sim.malloc(0, 1 << 20).unwrap();
        let s = sim.create_stream(0, 0, false).unwrap();
        sim.submit(
            s,
            Task::Memset {
                addr: x,
                value: 1,
                len: 1 << 20,
            },
        )
        .unwrap();
        sim.submit(
            s,
            Task::Memcpy {
                dst: crate::Loc::Device(y),
                src: crate::Loc::Device(x),
                len: 1 << 20,
            },
        )
        .unwrap();
        sim.synchronize_device(0, None).unwrap();
        let report = sim.report();
        assert_eq!(report.engine_jobs.len(), 2);
        let trace: Value = serde_json::from_str(&chrome_trace(&report)).unwrap();
        let events = trace["traceEvents"].as_array().unwrap();
        let lane = events
            .iter()
            .find(|e| e["ph"] == "M" && e["args"]["name"] == "copy engine")
            .expect("a copy engine track");
        let on_lane: Vec<&Value> = events
            .iter()
            .filter(|e| e["ph"] == "X" && e["tid"] == lane["tid"])
            .collect();
        let names: Vec<&str> = on_lane
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Memset setup", "Memset", "Memcpy setup", "Memcpy"]);
        // The memcpy's job starts after the memset's has ended, and its transfer takes time.
        let ts = |e: &Value| e["ts"].as_f64().unwrap();
        let end = |e: &Value| ts(e) + e["dur"].as_f64().unwrap();
        assert!(ts(on_lane[2]) >= end(on_lane[1]));
        assert!(on_lane[3]["dur"].as_f64().unwrap() > 0.0);
        // The jobs lie within their tasks' spans on the stream's track.
        let memcpy_task = events
            .iter()
            .find(|e| e["ph"] == "X" && e["name"] == "Memcpy" && e["tid"] == s.0)
            .unwrap();
        assert!(ts(on_lane[2]) >= ts(memcpy_task) && end(on_lane[3]) <= end(memcpy_task) + 1e-9);
        has_the_required_fields(events);
    }

    /// Every event carries what the trace event format requires of its phase: a phase, a
    /// name and a process; all but metadata a timestamp; complete events a duration; flow
    /// events an id; instant events a scope.
    fn has_the_required_fields(events: &[Value]) {
        for e in events {
            let ph = e["ph"].as_str().expect("a phase");
            assert!(e["name"].is_string(), "{e}");
            assert!(e["pid"].is_u64(), "{e}");
            match ph {
                "M" => assert!(e["args"]["name"].is_string(), "{e}"),
                "X" => assert!(e["ts"].is_number() && e["dur"].is_number() && e["tid"].is_u64()),
                "s" | "f" => assert!(e["ts"].is_number() && e["id"].is_u64() && e["tid"].is_u64()),
                "i" => assert!(e["ts"].is_number() && e["s"].is_string(), "{e}"),
                "C" => assert!(e["ts"].is_number() && e["args"].is_object(), "{e}"),
                other => panic!("an unexpected phase {other}: {e}"),
            }
        }
    }
}
