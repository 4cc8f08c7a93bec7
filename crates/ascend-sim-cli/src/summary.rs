//! The summary of a run, from the run report the library writes (`ASCEND_SIM_REPORT`):
//! simulated time and busy ratio per stream and engine, value waits and what released them,
//! L2 hit rates and CMO effects, kernels, hazards with their first occurrence, task faults,
//! and, for `exec`, how the program ended and what the watchdog said.

use std::collections::BTreeMap;
use std::path::Path;

use ascend_sim::report::Hazard;
use ascend_sim::RunReport;
use serde_json::{json, Value};

/// How the program ended (for `exec`; `report` has none).
#[derive(Debug, Default)]
pub struct Run {
    /// The command line.
    pub program: String,
    /// Its exit code, if it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    /// What the watchdog said on stderr.
    pub watchdog: Vec<String>,
}

/// The summary of one run.
#[derive(Debug)]
pub struct Summary {
    out: Value,
}

fn u(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

impl Summary {
    /// The summary of `report` (the report's JSON, if the library wrote one) and `run`.
    pub fn new(report: Option<&str>, run: &Run) -> Result<Summary, String> {
        let mut out = json!({
            "program": run.program,
            "exit_code": run.exit_code,
            "signal": run.signal,
            "watchdog": run.watchdog,
        });
        let Some(text) = report else {
            out["report"] = Value::Null;
            return Ok(Summary { out });
        };
        let r: RunReport = serde_json::from_str(text)
            .map_err(|e| format!("the run report is not a run report's JSON: {e}"))?;
        let end = r.end_ns.max(1);
        out["chip"] = json!(r.chip);
        out["end_ns"] = json!(r.end_ns);
        out["streams"] = r
            .streams
            .iter()
            .filter(|st| st.tasks > 0)
            .map(|st| {
                json!({
                    "stream": st.stream, "device": st.device, "tasks": st.tasks,
                    "busy_ns": st.busy_ns, "wait_ns": st.wait_ns, "end_ns": st.end_ns,
                    "busy": ratio(st.busy_ns, end),
                })
            })
            .collect();
        out["engines"] = r
            .engines
            .iter()
            .map(|e| {
                json!({
                    "device": e.device, "engine": e.engine, "tasks": e.tasks,
                    "busy_ns": e.busy_ns, "busy": ratio(e.busy_ns, end),
                })
            })
            .collect();
        out["host_ns"] = json!(r.host_ns);
        out["host_threads"] = r
            .host_threads
            .iter()
            .map(|h| {
                json!({
                    "thread": h.thread, "name": h.name, "calls": h.calls,
                    "call_ns": h.call_ns, "wait_ns": h.wait_ns,
                })
            })
            .collect();
        out["discarded"] = json!(r.discarded.total());
        out["value_waits"] = r
            .value_waits
            .iter()
            .map(|w| {
                json!({
                    "stream": w.stream, "addr": format!("{:#x}", w.addr),
                    "mode": w.mode, "value": w.value,
                    "waited_ns": w.duration_ns,
                    "released_by": w.released_by.as_ref().map(ToString::to_string),
                })
            })
            .collect();
        out["caches"] = r
            .caches
            .iter()
            .filter_map(|c| {
                let (hits, misses) = (c.l2.hits, c.l2.misses);
                (hits + misses > 0).then(|| {
                    json!({
                        "device": c.device, "hits": hits, "misses": misses,
                        "hit_rate": ratio(hits, hits + misses),
                        "dirty_evictions": c.l2.dirty_evictions,
                        "bytes_written_back": c.l2.bytes_written_back,
                    })
                })
            })
            .collect();
        let mut cmos: BTreeMap<&str, (u64, u64, u64)> = BTreeMap::new();
        for c in &r.cmos {
            let e = cmos.entry(c.op.as_str()).or_default();
            e.0 += 1;
            e.1 += c.lines;
            e.2 += c.bytes_written_back;
        }
        out["cmos"] = cmos
            .into_iter()
            .map(|(op, (n, lines, wb))| json!({"op": op, "tasks": n, "lines": lines, "bytes_written_back": wb}))
            .collect();
        let mut kernels: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
        for k in &r.kernel_blocks {
            let e = kernels.entry(k.kernel.as_str()).or_default();
            e.0 += 1;
            e.1 += k.ops;
        }
        out["kernels"] = kernels
            .into_iter()
            .map(|(name, (blocks, ops))| json!({"kernel": name, "blocks": blocks, "ops": ops}))
            .collect();
        // Every class that occurred, with all its occurrences (a report of an older library
        // has no counts: its kept records are counted), and its first record kept.
        let mut hazards: BTreeMap<&str, (u64, Option<&Hazard>)> = BTreeMap::new();
        for (kind, &n) in &r.hazard_counts {
            hazards.insert(kind.as_str(), (n, None));
        }
        for h in &r.hazards {
            let e = hazards.entry(h.kind.as_str()).or_insert((0, None));
            if r.hazard_counts.is_empty() {
                e.0 += h.count;
            }
            e.1.get_or_insert(h);
        }
        out["hazards"] = hazards
            .into_iter()
            .map(|(kind, (n, first))| match first {
                Some(f) => json!({
                    "kind": kind,
                    "count": n,
                    "first_at_ns": f.at_ns,
                    "first": first_said(f),
                }),
                None => json!({
                    "kind": kind,
                    "count": n,
                    "first_at_ns": null,
                    "first": "(its records were left out of the report: it keeps the first and \
                              the latest)",
                }),
            })
            .collect();
        out["hazards_dropped"] = json!(r.hazards.dropped);
        out["faults"] = json!(r.faults);
        out["api_errors"] = json!(r.api_errors.unwrap_or_default());
        out["report"] = json!(true);
        Ok(Summary { out })
    }

    /// The classes of the hazards recorded (every class that occurred).
    pub fn hazard_kinds(&self) -> Vec<String> {
        list(&self.out, "hazards")
            .iter()
            .map(|h| s(h, "kind").to_string())
            .collect()
    }

    /// Hazards recorded: every occurrence.
    pub fn hazard_count(&self) -> u64 {
        list(&self.out, "hazards")
            .iter()
            .map(|h| u(h, "count"))
            .sum::<u64>()
    }

    /// The summary as JSON.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(&self.out).unwrap_or_default()
    }

    /// The summary for a person.
    pub fn text(&self) -> String {
        let o = &self.out;
        let mut t = String::from("\n== ascend-sim summary\n");
        if !s(o, "program").is_empty() {
            let how = match (o["exit_code"].as_i64(), o["signal"].as_i64()) {
                (_, Some(sig)) => format!("killed by signal {sig} (a crash)"),
                (Some(c), _) => format!("exit code {c}"),
                _ => "ended".to_string(),
            };
            t.push_str(&format!("program: {} ({how})\n", s(o, "program")));
        }
        if o["report"].is_null() {
            t.push_str("no run report: the program ended before the library wrote it\n");
        } else {
            t.push_str(&format!(
                "chip: {}, simulated time: {} ns\n",
                s(o, "chip"),
                u(o, "end_ns")
            ));
            let streams = list(o, "streams");
            if !streams.is_empty() {
                t.push_str("streams:\n");
                for st in streams {
                    // A stream's waits hold it without work of its own: said apart.
                    let waiting = match u(st, "wait_ns") {
                        0 => String::new(),
                        w => format!(", of which {w} ns waiting"),
                    };
                    t.push_str(&format!(
                        "  stream {} (device {}): {} tasks, busy {} ns ({:.0}%){waiting}, last at \
                         {} ns\n",
                        u(st, "stream"),
                        u(st, "device"),
                        u(st, "tasks"),
                        u(st, "busy_ns"),
                        100.0 * st["busy"].as_f64().unwrap_or(0.0),
                        u(st, "end_ns")
                    ));
                }
            }
            for e in list(o, "engines") {
                t.push_str(&format!(
                    "  engine {} (device {}): {} tasks, busy {:.0}%\n",
                    s(e, "engine"),
                    u(e, "device"),
                    u(e, "tasks"),
                    100.0 * e["busy"].as_f64().unwrap_or(0.0)
                ));
            }
            let threads = list(o, "host_threads");
            if !threads.is_empty() {
                t.push_str(&format!(
                    "host (host clock at {} ns):
",
                    u(o, "host_ns")
                ));
                for h in threads {
                    let name = h["name"]
                        .as_str()
                        .map_or(String::new(), |n| format!(" ({n})"));
                    t.push_str(&format!(
                        "  thread {}{name}: {} calls, {} ns in calls, of which {} ns waiting on the device\n",
                        u(h, "thread"),
                        u(h, "calls"),
                        u(h, "call_ns"),
                        u(h, "wait_ns")
                    ));
                }
            }
            if u(o, "discarded") > 0 {
                t.push_str(&format!(
                    "discarded without running: {} task(s) (their streams destroyed by force, \
                     aborted or stopped; listed in the report's `discarded`)\n",
                    u(o, "discarded")
                ));
            }
            let waits = list(o, "value_waits");
            if !waits.is_empty() {
                t.push_str(&format!("value waits: {}\n", waits.len()));
                for w in waits.iter().take(8) {
                    let value = ascend_sim::compare::operand_text(s(w, "mode"), u(w, "value"));
                    t.push_str(&format!(
                        "  stream {} waited {} ns for {} {value} at {}, released by {}\n",
                        u(w, "stream"),
                        u(w, "waited_ns"),
                        s(w, "mode"),
                        s(w, "addr"),
                        w["released_by"].as_str().unwrap_or("an unknown writer")
                    ));
                }
            }
            for c in list(o, "caches") {
                t.push_str(&format!(
                    "L2 of device {}: {:.1}% hits ({} hits, {} misses), {} dirty evictions, {} bytes written back\n",
                    u(c, "device"),
                    100.0 * c["hit_rate"].as_f64().unwrap_or(0.0),
                    u(c, "hits"),
                    u(c, "misses"),
                    u(c, "dirty_evictions"),
                    u(c, "bytes_written_back")
                ));
            }
            for c in list(o, "cmos") {
                t.push_str(&format!(
                    "CMO {}: {} tasks, {} lines, {} bytes written back\n",
                    s(c, "op"),
                    u(c, "tasks"),
                    u(c, "lines"),
                    u(c, "bytes_written_back")
                ));
            }
            for k in list(o, "kernels") {
                t.push_str(&format!(
                    "kernel {}: {} blocks, {} operations\n",
                    s(k, "kernel"),
                    u(k, "blocks"),
                    u(k, "ops")
                ));
            }
            let hazards = list(o, "hazards");
            if hazards.is_empty() {
                t.push_str("hazards: none\n");
            } else {
                t.push_str(&format!("hazards: {}\n", self.hazard_count()));
                for h in hazards {
                    let at = match h["first_at_ns"].as_u64() {
                        Some(ns) => format!(" (first at {ns} ns)"),
                        None => String::new(),
                    };
                    t.push_str(&format!(
                        "  {} x{}{at}: {}\n",
                        s(h, "kind"),
                        u(h, "count"),
                        s(h, "first")
                    ));
                }
            }
            let api_errors = list(o, "api_errors");
            if !api_errors.is_empty() {
                let total: u64 = api_errors.iter().map(|e| u(e, "count")).sum();
                t.push_str(&format!("API errors the program received: {total}\n"));
                for e in api_errors {
                    t.push_str(&format!(
                        "  {} returned {} x{} (first: {})\n",
                        s(e, "call"),
                        e["code"].as_i64().unwrap_or(0),
                        u(e, "count"),
                        s(e, "first")
                    ));
                }
            }
            let faults = list(o, "faults");
            if !faults.is_empty() {
                t.push_str(&format!("task faults: {}\n", faults.len()));
                for f in faults.iter().take(8) {
                    t.push_str(&format!("  {}\n", f.as_str().unwrap_or("")));
                }
            }
        }
        let watchdog = list(o, "watchdog");
        if !watchdog.is_empty() {
            t.push_str("the watchdog said:\n");
            for w in watchdog {
                t.push_str(&format!("  {}\n", w.as_str().unwrap_or("")));
            }
        }
        t
    }
}

/// Draws the timeline of the report `text` into `path` (SVG).
pub fn write_svg(text: &str, path: &Path) -> Result<(), String> {
    let r: Value =
        serde_json::from_str(text).map_err(|e| format!("the run report is not JSON: {e}"))?;
    std::fs::write(path, crate::svg::render(&r))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!("ascend-sim: timeline drawn in {}", path.display());
    Ok(())
}

/// `ascend-sim report FILE [--svg OUT]`.
pub fn from_file(file: &Path, svg: Option<&Path>, json: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    if let Some(path) = svg {
        write_svg(&text, path)?;
    }
    let s = Summary::new(Some(&text), &Run::default())?;
    if json {
        println!("{}", s.json());
    } else {
        print!("{}", s.text());
    }
    Ok(())
}

/// A hazard record's words, with what it stands for when it merges several: "(and 8,191
/// more like it at the same instant, 4194304 bytes from 0x… in all)".
fn first_said(h: &Hazard) -> String {
    if h.count <= 1 {
        return h.detail.clone();
    }
    format!(
        "{} (and {} more like it at the same instant, [{:#x}, +{}) in all)",
        h.detail,
        h.count - 1,
        h.addr,
        h.len
    )
}
