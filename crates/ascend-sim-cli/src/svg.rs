//! `--svg`: a self-contained picture of a run's timeline, from its report: a time axis, one
//! lane per host thread (its API calls), per stream, per copy or CMO engine and per AI core, each task a box coloured by kind (its details in a
//! tooltip), an arrow from the write that released each value wait to the wait's end, and a
//! legend. Readable at a glance for a few hundred tasks; beyond that, runs of boxes too short
//! to see are merged into one box saying how many tasks it stands for.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::Value;

const WIDTH: f64 = 1200.0;
const LEFT: f64 = 130.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const LANE: f64 = 26.0;
const BOX: f64 = 18.0;
/// Boxes narrower than this many pixels are merged with their neighbours when the timeline
/// has more boxes than `MERGE_ABOVE`.
const MERGE_WIDTH: f64 = 2.0;
const MERGE_ABOVE: usize = 300;

/// One box: lane, start and end in ns, kind, tooltip.
struct Bar {
    lane: String,
    start: u64,
    end: u64,
    kind: String,
    tip: String,
}

fn colour(kind: &str) -> &'static str {
    match kind {
        "ValueWrite" => "#2e7d32",
        "ValueWait" => "#f9a825",
        "Memcpy" => "#1565c0",
        "Memset" => "#6a1b9a",
        "Cmo" | "CmoWithBarrier" | "CmoWithDesc" => "#00838f",
        "CmoWaitBarrier" => "#ef6c00",
        "EventRecord" | "EventWait" | "EventReset" => "#5d4037",
        "NotifyRecord" | "NotifyWait" => "#8d6e63",
        "Kernel" => "#ad1457",
        "merged" => "#9e9e9e",
        "host call" => "#90a4ae",
        _ => "#455a64",
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn u(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

/// The lane and time of a releaser as the simulator names writers: "task T on stream S at N
/// ns" (a stream task) or "kernel K (… block B on AI core C at N ns)" (a kernel block).
fn releaser_lane(text: &str) -> Option<(String, u64)> {
    let at = |rest: &str| -> Option<u64> {
        rest.trim_end_matches(')').strip_suffix(" ns")?.parse().ok()
    };
    if let Some(rest) = text.strip_prefix("task ") {
        let (_, rest) = rest.split_once(" on stream ")?;
        let (stream, rest) = rest.split_once(" at ")?;
        return Some((format!("stream {stream}"), at(rest)?));
    }
    let (_, rest) = text.rsplit_once(" on AI core ")?;
    let (core, rest) = rest.split_once(" at ")?;
    Some((format!("AI core {core}"), at(rest)?))
}

/// A tick spacing of 1, 2 or 5 times a power of ten giving about `n` ticks over `span`.
fn tick(span: u64, n: u64) -> u64 {
    let raw = (span / n.max(1)).max(1);
    let mut p = 1u64;
    while p.saturating_mul(10) <= raw {
        p *= 10;
    }
    [1, 2, 5, 10]
        .into_iter()
        .map(|m| m * p)
        .find(|&t| t >= raw)
        .unwrap_or(10 * p)
}

fn time_label(ns: u64) -> String {
    if ns >= 1_000_000 {
        format!("{} ms", ns as f64 / 1e6)
    } else if ns >= 1_000 {
        format!("{} µs", ns as f64 / 1e3)
    } else {
        format!("{ns} ns")
    }
}

/// The SVG of the report `r`.
pub fn render(r: &Value) -> String {
    let list = |k: &str| {
        r.get(k)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let mut bars: Vec<Bar> = list("timeline")
        .iter()
        .map(|t| {
            let kind = t["kind"].as_str().unwrap_or("?").to_string();
            Bar {
                lane: format!("stream {}", u(t, "stream")),
                start: u(t, "start_ns"),
                end: u(t, "end_ns"),
                tip: format!(
                    "{kind}: task {} on stream {}, {}–{} ns{}",
                    u(t, "task"),
                    u(t, "stream"),
                    u(t, "start_ns"),
                    u(t, "end_ns"),
                    if t["fault"] == Value::Bool(true) {
                        " (fault)"
                    } else {
                        ""
                    }
                ),
                kind,
            }
        })
        .collect();
    // The host threads' API calls, above the device's lanes.
    bars.extend(list("host_calls").iter().map(|c| {
        let name = c["name"].as_str().unwrap_or("?");
        Bar {
            lane: format!("host thread {}", u(c, "thread")),
            start: u(c, "start_ns"),
            end: u(c, "end_ns").max(u(c, "start_ns") + 1),
            kind: "host call".into(),
            tip: format!(
                "{name}({}) → {}: {}–{} ns (waited {} ns), submitted {} task(s)",
                c["args"].as_str().unwrap_or(""),
                c["code"].as_i64().unwrap_or(0),
                u(c, "start_ns"),
                u(c, "end_ns"),
                u(c, "wait_ns"),
                c["tasks"].as_array().map_or(0, Vec::len)
            ),
        }
    }));
    bars.extend(list("kernel_blocks").iter().map(|k| Bar {
        lane: format!("AI core {}", u(k, "core")),
        start: u(k, "start_ns"),
        end: u(k, "end_ns"),
        kind: "Kernel".into(),
        tip: format!(
            "kernel {} block {} (task {}): {}–{} ns, {} operations",
            k["kernel"].as_str().unwrap_or("?"),
            u(k, "block"),
            u(k, "task"),
            u(k, "start_ns"),
            u(k, "end_ns"),
            u(k, "ops")
        ),
    }));
    bars.extend(list("engine_jobs").iter().map(|j| {
        let engine = j["engine"].as_str().unwrap_or("?");
        let device = u(j, "device");
        Bar {
            lane: if device == 0 {
                format!("{engine} engine")
            } else {
                format!("{engine} engine (device {device})")
            },
            start: u(j, "start_ns"),
            end: u(j, "end_ns"),
            kind: j["kind"].as_str().unwrap_or("?").to_string(),
            tip: format!(
                "{} of task {} (stream {}) on the {engine} engine: setup {}–{} ns, moving {} bytes {}–{} ns",
                j["kind"].as_str().unwrap_or("?"),
                u(j, "task"),
                u(j, "stream"),
                u(j, "start_ns"),
                u(j, "moving_ns"),
                u(j, "bytes"),
                u(j, "moving_ns"),
                u(j, "end_ns")
            ),
        }
    }));
    let end = bars
        .iter()
        .map(|b| b.end)
        .max()
        .unwrap_or(0)
        .max(u(r, "end_ns"))
        .max(1);
    let mut lanes: Vec<String> = bars
        .iter()
        .map(|b| b.lane.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // Streams by number first, then the engines, then cores by number.
    lanes.sort_by_key(|l| {
        let n: u64 = l
            .rsplit(' ')
            .next()
            .and_then(|n| n.trim_end_matches(')').parse().ok())
            .unwrap_or(0);
        let group = if l.starts_with("host thread") {
            0
        } else if l.starts_with("stream") {
            1
        } else if l.contains(" engine") {
            2
        } else {
            3
        };
        (group, n, l.clone())
    });
    let lane_of: BTreeMap<&str, usize> = lanes
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i))
        .collect();
    let plot = WIDTH - LEFT - RIGHT;
    let x = |ns: u64| LEFT + plot * ns as f64 / end as f64;
    let y = |lane: usize| TOP + LANE * lane as f64;
    if bars.len() > MERGE_ABOVE {
        bars = merge_short(bars, end, plot);
    }
    let height = y(lanes.len()) + 70.0;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        svg,
        r##"<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#c62828"/></marker></defs>"##
    );
    let _ = writeln!(
        svg,
        r#"<rect width="100%" height="100%" fill="white"/><text x="10" y="20" font-size="14">{} — simulated timeline, {}</text>"#,
        esc(r["chip"].as_str().unwrap_or("")),
        time_label(end)
    );
    // Lanes and the time axis.
    for (i, l) in lanes.iter().enumerate() {
        let _ = writeln!(
            svg,
            r##"<rect x="{LEFT}" y="{}" width="{plot}" height="{LANE}" fill="{}"/><text x="10" y="{}">{}</text>"##,
            y(i),
            if i % 2 == 0 { "#f5f5f5" } else { "#ffffff" },
            y(i) + LANE / 2.0 + 4.0,
            esc(l)
        );
    }
    let step = tick(end, 8);
    let axis = y(lanes.len()) + 4.0;
    let mut t = 0;
    while t <= end {
        let _ = writeln!(
            svg,
            r##"<line x1="{0}" y1="{TOP}" x2="{0}" y2="{axis}" stroke="#ddd"/><text x="{0}" y="{1}" text-anchor="middle">{2}</text>"##,
            x(t),
            axis + 14.0,
            time_label(t)
        );
        t += step;
    }
    // The boxes.
    for b in &bars {
        let Some(&lane) = lane_of.get(b.lane.as_str()) else {
            continue;
        };
        let w = (x(b.end) - x(b.start)).max(1.0);
        let _ = writeln!(
            svg,
            r##"<rect x="{:.2}" y="{:.2}" width="{w:.2}" height="{BOX}" fill="{}" stroke="white" stroke-width="0.5"><title>{}</title></rect>"##,
            x(b.start),
            y(lane) + (LANE - BOX) / 2.0,
            colour(&b.kind),
            esc(&b.tip)
        );
    }
    // Releases: an arrow from the write to the end of the wait it released.
    for w in list("value_waits") {
        let Some((from, at)) = w["released_by"].as_str().and_then(releaser_lane) else {
            continue;
        };
        let (Some(&a), Some(&b)) = (
            lane_of.get(from.as_str()),
            lane_of.get(format!("stream {}", u(&w, "stream")).as_str()),
        ) else {
            continue;
        };
        let _ = writeln!(
            svg,
            r##"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="#c62828" stroke-width="1.2" marker-end="url(#arrow)"><title>released by the write at {at} ns</title></line>"##,
            x(at),
            y(a) + LANE / 2.0,
            x(u(&w, "end_ns")),
            y(b) + LANE / 2.0
        );
    }
    // The legend: the kinds present, and the arrow.
    let kinds: BTreeSet<&str> = bars.iter().map(|b| b.kind.as_str()).collect();
    let mut lx = LEFT;
    let ly = axis + 34.0;
    for k in kinds {
        let _ = writeln!(
            svg,
            r##"<rect x="{lx}" y="{}" width="12" height="12" fill="{}"/><text x="{}" y="{ly}">{}</text>"##,
            ly - 10.0,
            colour(k),
            lx + 16.0,
            esc(if k == "merged" {
                "several short tasks"
            } else {
                k
            })
        );
        lx += 30.0 + 7.0 * k.len() as f64;
    }
    let _ = writeln!(
        svg,
        r##"<line x1="{lx}" y1="{0}" x2="{1}" y2="{0}" stroke="#c62828" marker-end="url(#arrow)"/><text x="{2}" y="{ly}">write that released a value wait</text>"##,
        ly - 4.0,
        lx + 24.0,
        lx + 30.0
    );
    svg.push_str("</svg>\n");
    svg
}

/// Merges, lane by lane, runs of boxes narrower than `MERGE_WIDTH` pixels into one.
fn merge_short(mut bars: Vec<Bar>, end: u64, plot: f64) -> Vec<Bar> {
    let px = |ns: u64| plot * ns as f64 / end as f64;
    bars.sort_by(|a, b| (a.lane.as_str(), a.start).cmp(&(b.lane.as_str(), b.start)));
    let mut out: Vec<Bar> = Vec::new();
    let mut run: Option<(Bar, usize)> = None;
    for b in bars {
        let short = px(b.end - b.start.min(b.end)) < MERGE_WIDTH;
        match (&mut run, short) {
            (Some((r, n)), true) if r.lane == b.lane => {
                r.end = r.end.max(b.end);
                *n += 1;
            }
            _ => {
                if let Some((r, n)) = run.take() {
                    out.push(finish(r, n));
                }
                if short {
                    run = Some((b, 1));
                } else {
                    out.push(b);
                }
            }
        }
    }
    if let Some((r, n)) = run {
        out.push(finish(r, n));
    }
    out
}

fn finish(mut r: Bar, n: usize) -> Bar {
    if n > 1 {
        r.tip = format!("{n} tasks, {}–{} ns", r.start, r.end);
        r.kind = "merged".into();
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_releaser_gives_the_lane_and_time_of_the_write() {
        assert_eq!(
            releaser_lane("task 7 on stream 2 at 1500 ns"),
            Some(("stream 2".into(), 1500))
        );
        assert_eq!(
            releaser_lane(
                "kernel myKernel1 (kernel task 2 (stream 2) block 0 on AI core 3 at 12202 ns)"
            ),
            Some(("AI core 3".into(), 12202))
        );
        assert_eq!(releaser_lane("a host write at 5 ns"), None);
    }

    #[test]
    fn a_timeline_of_thousands_of_tasks_is_drawn_with_short_runs_merged() {
        let spans: Vec<Value> = (0..3000u64)
            .map(|i| {
                serde_json::json!({
                    "task": i, "stream": i % 2, "kind": "ValueWrite",
                    "start_ns": i * 100, "end_ns": i * 100 + 50, "fault": false
                })
            })
            .collect();
        let report =
            serde_json::json!({ "chip": "Ascend910B1", "end_ns": 300_000, "timeline": spans });
        let svg = render(&report);
        let boxes = svg.matches("<rect").count();
        assert!(boxes < 100, "{boxes} boxes for 3000 tasks");
        assert!(svg.contains("several short tasks"));
        assert!(
            svg.contains("1500 tasks"),
            "each lane's run says how many it holds"
        );
    }

    #[test]
    fn each_host_thread_gets_a_lane_of_its_calls_above_the_streams() {
        let r = serde_json::json!({
            "end_ns": 9000,
            "timeline": [{"task": 1, "stream": 2, "kind": "Memset", "start_ns": 5000, "end_ns": 9000}],
            "host_calls": [{"thread": 1, "name": "aclrtMemsetAsync", "start_ns": 0,
                "end_ns": 4000, "wait_ns": 0, "code": 0, "tasks": [1]},
                {"thread": 2, "name": "aclrtSynchronizeStream", "start_ns": 4000,
                "end_ns": 9000, "wait_ns": 5000, "code": 0, "tasks": []}],
        });
        let svg = render(&r);
        let at = |s: &str| svg.find(s).unwrap_or_else(|| panic!("{s} in the picture"));
        assert!(at(">host thread 1<") < at(">host thread 2<"));
        assert!(at(">host thread 2<") < at(">stream 2<"));
        assert!(svg.contains("aclrtSynchronizeStream() → 0: 4000–9000 ns (waited 5000 ns)"));
    }

    #[test]
    fn engine_jobs_get_a_lane_per_engine_between_the_streams_and_the_cores() {
        let r = serde_json::json!({
            "end_ns": 5000,
            "timeline": [{"task": 1, "stream": 3, "kind": "Memcpy", "start_ns": 0, "end_ns": 5000}],
            "engine_jobs": [{"device": 0, "engine": "copy", "task": 1, "stream": 3,
                "kind": "Memcpy", "start_ns": 1000, "moving_ns": 2000, "end_ns": 4900,
                "bytes": 4096}],
            "kernel_blocks": [{"task": 2, "stream": 4, "kernel": "k", "block": 0, "core": 0,
                "start_ns": 10, "end_ns": 20, "ops": 1}],
        });
        let svg = render(&r);
        let at = |s: &str| svg.find(s).unwrap_or_else(|| panic!("{s} in the picture"));
        assert!(at(">stream 3<") < at(">copy engine<"));
        assert!(at(">copy engine<") < at(">AI core 0<"));
        assert!(svg.contains("moving 4096 bytes 2000–4900 ns"));
    }

    #[test]
    fn ticks_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(tick(10_000, 8), 2_000);
        assert_eq!(tick(48_461, 8), 10_000);
        assert_eq!(tick(7, 8), 1);
    }
}
