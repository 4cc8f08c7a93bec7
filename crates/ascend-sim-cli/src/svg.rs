//! `--svg`: a self-contained picture of a run's timeline, from its report: a time axis, one
//! lane per host thread (its API calls), per stream, per copy or CMO engine and per AI core,
//! and one of the hazards; each task a box coloured by kind (a CMO by its type), its details
//! in a tooltip; an arrow from the write that released each value wait to the wait's end; a
//! mark for each hazard record; and a legend of what occurs, wrapped to the picture's width.
//! Readable at a glance for a few hundred tasks; beyond that, runs of boxes too short to see
//! are merged into one box saying how many tasks it stands for, and release arrows close
//! together into one saying how many releases it stands for.

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
/// Beyond this many release arrows, arrows between the same two lanes that start within one
/// of `ARROW_BUCKETS` equal stretches of the plot are drawn as one.
const ARROWS_ABOVE: usize = 300;
const ARROW_BUCKETS: f64 = 48.0;
/// The width of a legend entry's text, per character (the font is 11 px sans-serif).
const CHAR_WIDTH: f64 = 6.5;

/// One box: lane, start and end in ns, kind, tooltip.
struct Bar {
    lane: String,
    start: u64,
    end: u64,
    kind: String,
    tip: String,
}

fn colour(kind: &str) -> &'static str {
    // A CMO by its type, whichever call made it.
    if let Some((_, op)) = kind.split_once(' ').filter(|(k, _)| k.starts_with("Cmo")) {
        return match op {
            "PREFETCH" => "#00838f",
            "WRITEBACK" => "#0277bd",
            "INVALID" => "#d84315",
            "FLUSH" => "#00695c",
            _ => "#455a64",
        };
    }
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
        "hazard" => "#b71c1c",
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

/// A time in the unit that keeps it short: ns, µs, ms or s, with at most three decimals.
fn time_label(ns: u64) -> String {
    let (v, unit) = match ns {
        1_000_000_000.. => (ns as f64 / 1e9, "s"),
        1_000_000.. => (ns as f64 / 1e6, "ms"),
        1_000.. => (ns as f64 / 1e3, "µs"),
        _ => return format!("{ns} ns"),
    };
    let text = format!("{v:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {unit}")
}

/// The SVG of the report `r`.
pub fn render(r: &Value) -> String {
    let list = |k: &str| {
        r.get(k)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    // What each CMO did, by its range and completion time.
    let cmos: BTreeMap<(u64, u64), Value> = list("cmos")
        .into_iter()
        .map(|c| ((u(&c, "addr"), u(&c, "at_ns")), c))
        .collect();
    let mut bars: Vec<Bar> = list("timeline")
        .iter()
        .map(|t| {
            let args = &t["args"];
            let mut kind = t["kind"].as_str().unwrap_or("?").to_string();
            if let Some(op) = args["cmo"].as_str() {
                kind = format!("{kind} {op}");
            }
            Bar {
                lane: format!("stream {}", u(t, "stream")),
                start: u(t, "start_ns"),
                end: u(t, "end_ns"),
                tip: format!(
                    "{kind}{}: task {} on stream {}, {}–{} ns{}",
                    task_particulars(args, cmos.get(&(u(args, "addr"), u(t, "end_ns")))),
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
    // A CMO's engine job is coloured by the CMO's type too.
    let cmo_types: BTreeMap<u64, String> = list("timeline")
        .iter()
        .filter_map(|t| Some((u(t, "task"), t["args"]["cmo"].as_str()?.to_string())))
        .collect();
    bars.extend(list("engine_jobs").iter().map(|j| {
        let engine = j["engine"].as_str().unwrap_or("?");
        let device = u(j, "device");
        let mut kind = j["kind"].as_str().unwrap_or("?").to_string();
        if let Some(op) = cmo_types.get(&u(j, "task")) {
            kind = format!("{kind} {op}");
        }
        Bar {
            lane: if device == 0 {
                format!("{engine} engine")
            } else {
                format!("{engine} engine (device {device})")
            },
            start: u(j, "start_ns"),
            end: u(j, "end_ns"),
            tip: format!(
                "{kind} of task {} (stream {}) on the {engine} engine: setup {}–{} ns, moving {} bytes {}–{} ns",
                u(j, "task"),
                u(j, "stream"),
                u(j, "start_ns"),
                u(j, "moving_ns"),
                u(j, "bytes"),
                u(j, "moving_ns"),
                u(j, "end_ns")
            ),
            kind,
        }
    }));
    // Each hazard record, a mark on the hazards' lane.
    let hazards: Vec<Bar> = list("hazards")
        .iter()
        .map(|h| Bar {
            lane: "hazards".into(),
            start: u(h, "at_ns"),
            end: u(h, "at_ns"),
            kind: "hazard".into(),
            tip: format!(
                "{} x{} at {} ns: {}",
                h["kind"].as_str().unwrap_or("?"),
                h["count"].as_u64().unwrap_or(1),
                u(h, "at_ns"),
                h["detail"].as_str().unwrap_or("")
            ),
        })
        .collect();
    let end = bars
        .iter()
        .chain(&hazards)
        .map(|b| b.end)
        .max()
        .unwrap_or(0)
        .max(u(r, "end_ns"))
        .max(1);
    let mut lanes: Vec<String> = bars
        .iter()
        .chain(&hazards)
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
        let group = if l == "hazards" {
            -1
        } else if l.starts_with("host thread") {
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
    let arrows = release_arrows(&list("value_waits"), &lane_of, &x);
    // The legend: the kinds present, a hazard mark and the arrow where they occur, in rows
    // that fit the picture's width.
    let mut entries: Vec<(&str, String)> = bars
        .iter()
        .map(|b| b.kind.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|k| {
            let text = if k == "merged" {
                "several short tasks"
            } else {
                k
            };
            (k, text.to_string())
        })
        .collect();
    if !hazards.is_empty() {
        entries.push(("hazard", "hazard (a record; its tooltip says what)".into()));
    }
    if !arrows.is_empty() {
        entries.push(("arrow", "write that released a value wait".into()));
    }
    let axis = y(lanes.len()) + 4.0;
    let mut legend: Vec<(f64, f64, &str, String)> = Vec::new();
    let (mut lx, mut ly) = (LEFT, axis + 34.0);
    for (k, text) in entries {
        let w = 16.0
            + CHAR_WIDTH * text.chars().count() as f64
            + 14.0
            + if k == "arrow" { 14.0 } else { 0.0 };
        if lx + w > WIDTH - RIGHT && lx > LEFT {
            lx = LEFT;
            ly += 18.0;
        }
        legend.push((lx, ly, k, text));
        lx += w;
    }
    let height = ly + 16.0;
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
    // The boxes, and the hazards' marks.
    for b in &hazards {
        let Some(&lane) = lane_of.get(b.lane.as_str()) else {
            continue;
        };
        let (cx, cy) = (x(b.start), y(lane) + LANE / 2.0);
        let _ = writeln!(
            svg,
            r##"<path d="M{:.2},{:.2} l5,7 l-5,7 l-5,-7 z" fill="{}" class="hazard"><title>{}</title></path>"##,
            cx,
            cy - 7.0,
            colour("hazard"),
            esc(&b.tip)
        );
    }
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
    for a in &arrows {
        let _ = writeln!(
            svg,
            r##"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="#c62828" stroke-width="1.2" marker-end="url(#arrow)" class="release"><title>{}</title></line>"##,
            a.x1,
            y(a.from) + LANE / 2.0,
            a.x2,
            y(a.to) + LANE / 2.0,
            esc(&a.tip)
        );
    }
    for (lx, ly, k, text) in &legend {
        let mark = match *k {
            "arrow" => format!(
                r##"<line x1="{lx}" y1="{0}" x2="{1}" y2="{0}" stroke="#c62828" marker-end="url(#arrow)"/>"##,
                ly - 4.0,
                lx + 24.0
            ),
            "hazard" => format!(
                r##"<path d="M{},{} l5,6 l-5,6 l-5,-6 z" fill="{}"/>"##,
                lx + 6.0,
                ly - 10.0,
                colour("hazard")
            ),
            _ => format!(
                r##"<rect x="{lx}" y="{}" width="12" height="12" fill="{}"/>"##,
                ly - 10.0,
                colour(k)
            ),
        };
        let tx = lx + if *k == "arrow" { 30.0 } else { 16.0 };
        let _ = writeln!(
            svg,
            r##"<g class="legend">{mark}<text x="{tx}" y="{ly}">{}</text></g>"##,
            esc(text)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// What a task's tooltip says of its particulars: " [0x…, +4096) 8 lines, 2 lost" for a CMO,
/// " EQ 0x1 on 0x…" for a wait, " add_custom, 8 blocks" for a kernel, " DeviceToDevice, 4096
/// bytes" for a copy.
fn task_particulars(args: &Value, cmo: Option<&Value>) -> String {
    let hex = |k: &str| args[k].as_u64().map(|v| format!("{v:#x}"));
    let mut out = String::new();
    if let Some(kernel) = args["kernel"].as_str() {
        let _ = write!(out, " {kernel}, {} blocks", u(args, "blocks"));
    }
    if let Some(copy) = args["copy"].as_str() {
        let _ = write!(out, " {copy}, {} bytes", u(args, "bytes"));
    } else if let Some(mode) = args["mode"].as_str() {
        let value = ascend_sim::compare::operand_text(mode, u(args, "value"));
        let _ = write!(
            out,
            " {mode} {value} on {}",
            hex("addr").unwrap_or_default()
        );
    } else if let (Some(addr), true) = (hex("addr"), args["bytes"].is_u64()) {
        let _ = write!(out, " [{addr}, +{})", u(args, "bytes"));
    }
    if let Some(c) = cmo {
        let _ = write!(out, " {} lines", u(c, "lines"));
        if u(c, "lines_lost") > 0 {
            let _ = write!(out, ", {} dirty lines lost", u(c, "lines_lost"));
        }
        if u(c, "bytes_written_back") > 0 {
            let _ = write!(out, ", {} bytes written back", u(c, "bytes_written_back"));
        }
    }
    out
}

/// One release arrow (or several close together).
struct Arrow {
    from: usize,
    to: usize,
    x1: f64,
    x2: f64,
    tip: String,
}

/// The arrows from each write that released a value wait to the wait's end; beyond
/// `ARROWS_ABOVE`, those between the same lanes starting in the same of `ARROW_BUCKETS`
/// stretches of the plot are one arrow saying how many releases it stands for.
fn release_arrows(
    waits: &[Value],
    lane_of: &BTreeMap<&str, usize>,
    x: &dyn Fn(u64) -> f64,
) -> Vec<Arrow> {
    let mut arrows = Vec::new();
    for w in waits {
        let Some((from, at)) = w["released_by"].as_str().and_then(releaser_lane) else {
            continue;
        };
        let (Some(&a), Some(&b)) = (
            lane_of.get(from.as_str()),
            lane_of.get(format!("stream {}", u(w, "stream")).as_str()),
        ) else {
            continue;
        };
        let tip = format!("released by the write at {at} ns");
        arrows.push(Arrow {
            from: a,
            to: b,
            x1: x(at),
            x2: x(u(w, "end_ns")),
            tip,
        });
    }
    if arrows.len() <= ARROWS_ABOVE {
        return arrows;
    }
    let bucket = (WIDTH - LEFT - RIGHT) / ARROW_BUCKETS;
    let mut groups: BTreeMap<(usize, usize, i64), (Arrow, u64)> = BTreeMap::new();
    for a in arrows {
        let key = (a.from, a.to, ((a.x1 - LEFT) / bucket) as i64);
        groups
            .entry(key)
            .and_modify(|(first, n)| {
                *n += 1;
                first.x2 = first.x2.max(a.x2);
            })
            .or_insert((a, 1));
    }
    groups
        .into_values()
        .map(|(mut a, n)| {
            if n > 1 {
                a.tip = format!("{n} releases, the first {}", a.tip);
            }
            a
        })
        .collect()
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

    /// The picture rendered to pixels (resvg, text left out): its size and its pixels as
    /// RGBA.
    fn rendered(svg: &str) -> (u32, u32, Vec<[u8; 4]>) {
        let tree = resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default())
            .expect("the SVG parses");
        let size = tree.size().to_int_size();
        let mut pixmap =
            resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("a pixmap");
        resvg::render(
            &tree,
            resvg::tiny_skia::Transform::default(),
            &mut pixmap.as_mut(),
        );
        let px = pixmap
            .data()
            .chunks(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect();
        (size.width(), size.height(), px)
    }

    fn rgb(hex: &str) -> [u8; 3] {
        let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
        [(v >> 16) as u8, (v >> 8) as u8, v as u8]
    }

    fn count_colour(px: &[[u8; 4]], hex: &str) -> usize {
        let c = rgb(hex);
        px.iter().filter(|p| p[..3] == c).count()
    }

    /// The legend's entries: (row y, start x, end x) of each, from the picture.
    fn legend_extents(svg: &str) -> Vec<(f64, f64, f64)> {
        svg.lines()
            .filter(|l| l.starts_with("<g class=\"legend\">"))
            .map(|l| {
                let num = |key: &str, from: usize| -> f64 {
                    let at = l[from..].find(key).unwrap() + from + key.len();
                    let end = l[at..].find('"').unwrap() + at;
                    l[at..end].parse().unwrap()
                };
                let text_at = l.find("<text").unwrap();
                let (tx, ty) = (num("x=\"", text_at), num("y=\"", text_at));
                let words =
                    &l[l[text_at..].find('>').unwrap() + text_at + 1..l.rfind("</text>").unwrap()];
                let mark = &l[..text_at];
                let first = |key: &str| {
                    mark.find(key).map(|at| {
                        let at = at + key.len();
                        let end = mark[at..].find(['"', ',']).unwrap() + at;
                        mark[at..end].parse::<f64>().unwrap()
                    })
                };
                let start = first(" x=\"")
                    .or_else(|| first("x1=\""))
                    .or_else(|| first("d=\"M").map(|cx| cx - 5.0))
                    .unwrap()
                    .min(tx);
                (ty, start, tx + CHAR_WIDTH * words.chars().count() as f64)
            })
            .collect()
    }

    /// The legend's entries (at least `n`) lie within the picture and do not overlap.
    fn assert_legend_fits(svg: &str, n: usize) {
        let legend = legend_extents(svg);
        assert!(legend.len() >= n, "{legend:?}");
        for (i, a) in legend.iter().enumerate() {
            assert!(a.2 <= WIDTH, "{a:?} beyond the picture");
            for b in &legend[i + 1..] {
                assert!(
                    a.0 != b.0 || a.2 <= b.1 || b.2 <= a.1,
                    "{a:?} overlaps {b:?}"
                );
            }
        }
    }

    #[test]
    fn a_legend_of_many_kinds_wraps_to_the_pictures_width() {
        let kinds = [
            "ValueWrite",
            "ValueWait",
            "Memcpy",
            "Memset",
            "EventRecord",
            "EventWait",
            "NotifyRecord",
            "NotifyWait",
            "Kernel",
            "CmoWaitBarrier",
            "EventReset",
            "Reduce",
            "LabelSet",
            "RandomNum",
        ];
        let spans: Vec<Value> = kinds
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let i = i as u64;
                serde_json::json!({
                    "task": i, "stream": 1, "kind": k, "start_ns": i * 1000,
                    "end_ns": i * 1000 + 900, "fault": false
                })
            })
            .collect();
        let report =
            serde_json::json!({ "chip": "Ascend910B1", "end_ns": 14_000, "timeline": spans });
        let svg = render(&report);
        let legend = legend_extents(&svg);
        let rows: BTreeSet<u64> = legend.iter().map(|e| e.0 as u64).collect();
        assert!(rows.len() >= 2, "the legend wraps: {legend:?}");
        assert_legend_fits(&svg, kinds.len());
        let (_, h, _) = rendered(&svg);
        let last_row = *rows.iter().max().unwrap() as u32;
        assert!(
            h > last_row,
            "the picture holds its legend: {h} <= {last_row}"
        );
    }

    #[test]
    fn at_scale_release_arrows_are_aggregated_and_the_legend_fits_without_overlap() {
        let n = 4000u64;
        let spans: Vec<Value> = (0..n)
            .map(|i| {
                let kind = if i % 2 == 0 {
                    "ValueWrite"
                } else {
                    "ValueWait"
                };
                serde_json::json!({
                    "task": i, "stream": 1 + i % 2, "kind": kind,
                    "start_ns": i * 100, "end_ns": i * 100 + 60, "fault": false
                })
            })
            .collect();
        let waits: Vec<Value> = (0..n / 2)
            .map(|i| {
                serde_json::json!({
                    "stream": 2, "end_ns": (2 * i + 1) * 100 + 60,
                    "released_by": format!("task {} on stream 1 at {} ns", 2 * i, 2 * i * 100 + 60)
                })
            })
            .collect();
        let report = serde_json::json!({
            "chip": "Ascend910B1", "end_ns": n * 100, "timeline": spans, "value_waits": waits
        });
        let svg = render(&report);
        let arrows = svg.matches("class=\"release\"").count();
        assert!(
            arrows <= 2 * ARROW_BUCKETS as usize,
            "{arrows} arrows for {} releases",
            n / 2
        );
        assert!(
            svg.contains("releases, the first"),
            "an aggregated arrow says how many"
        );
        assert_legend_fits(&svg, 2);
        // Rendered: the picture has its size, and the arrows no longer paint a solid band.
        let (w, h, px) = rendered(&svg);
        assert_eq!(w, WIDTH as u32);
        assert!(h > 100, "{h}");
        let red = count_colour(&px, "#c62828");
        let plot = (WIDTH - LEFT - RIGHT) as usize * 2 * LANE as usize;
        assert!(
            red * 10 < plot,
            "{red} red pixels over {plot} of the two lanes"
        );
    }

    #[test]
    fn cmos_are_coloured_by_type_and_hazards_are_marks_on_their_lane() {
        let cmo = |task: u64, op: &str, start: u64| {
            serde_json::json!({
                "task": task, "stream": 1, "kind": "Cmo", "start_ns": start,
                "end_ns": start + 4000, "fault": false,
                "args": {"cmo": op, "addr": 4096, "bytes": 8192}
            })
        };
        let report = serde_json::json!({
            "chip": "Ascend910B1", "end_ns": 10_000,
            "timeline": [cmo(1, "PREFETCH", 0), cmo(2, "INVALID", 5000)],
            "cmos": [{"op": "INVALID", "addr": 4096, "len": 8192, "lines": 16, "lines_lost": 3,
                      "bytes_written_back": 0, "bytes_filled": 0, "partial_lines": false,
                      "at_ns": 9000}],
            "hazards": [
                {"kind": "lost_write", "device": 0, "addr": 4096, "len": 1536, "at_ns": 9000,
                 "detail": "an INVALID dropped", "count": 3},
                {"kind": "never_written_read", "device": 0, "addr": 0, "len": 8, "at_ns": 2000,
                 "detail": "a read", "count": 1}
            ]
        });
        let svg = render(&report);
        assert!(
            svg.contains("Cmo INVALID [0x1000, +8192) 16 lines, 3 dirty lines lost"),
            "{svg}"
        );
        assert_eq!(svg.matches("class=\"hazard\"").count(), 2);
        assert!(svg.contains("lost_write x3 at 9000 ns"));
        assert!(
            !svg.contains("write that released"),
            "no arrow, no arrow in the legend"
        );
        let (_, _, px) = rendered(&svg);
        for c in ["#00838f", "#d84315", "#b71c1c"] {
            assert!(count_colour(&px, c) > 20, "{c} drawn");
        }
    }

    #[test]
    fn times_are_said_in_the_unit_that_keeps_them_short() {
        assert_eq!(time_label(750), "750 ns");
        assert_eq!(time_label(12_500), "12.5 µs");
        assert_eq!(time_label(3_000_000), "3 ms");
        assert_eq!(time_label(1_234_567_890), "1.235 s");
    }

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
