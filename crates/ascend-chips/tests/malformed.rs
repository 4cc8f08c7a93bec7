//! Malformed chip files: each defect gives the right `LoadError` variant, naming the file and the
//! dotted key. Every malformed text is the Ascend910B1 template with one edit.

use std::path::Path;

use ascend_chips::{ChipProfile, LoadError};

const TEMPLATE: &str = include_str!("../../../sim-models/Ascend910B1.toml");
const FILE: &str = "sim-models/broken-test-chip.toml";

fn load(text: &str) -> Result<ChipProfile, LoadError> {
    ChipProfile::from_toml_str(text, FILE)
}

/// The one line of the template that defines `key` (`key = …`).
fn line_of(key: &str) -> &'static str {
    let prefix = format!("{key} = ");
    let lines: Vec<&str> = TEMPLATE
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .collect();
    assert_eq!(lines.len(), 1, "key {key} must be on exactly one line");
    lines[0]
}

/// The template with the line of `key` replaced by `new_line`.
fn with_line(key: &str, new_line: &str) -> String {
    TEMPLATE.replacen(line_of(key), new_line, 1)
}

/// The template without the line of `key`.
fn without(key: &str) -> String {
    with_line(key, "")
}

/// The template with `field = …` inside the entry of `key` replaced by `field = new`
/// (`field` is `value`, `tag` or `source`).
fn with_field(key: &str, field: &str, new: &str) -> String {
    let old = line_of(key);
    let start = old.find(&format!("{field} = ")).expect("field present") + field.len() + 3;
    let rest = &old[start..];
    // Values in the template hold no commas; strings are quoted.
    let end = if let Some(quoted) = rest.strip_prefix('"') {
        1 + quoted.find('"').unwrap() + 1
    } else {
        rest.find([',', ' ']).unwrap()
    };
    let line = format!("{}{}{}", &old[..start], new, &rest[end..]);
    with_line(key, &line)
}

/// The template with the `field = …` pair removed from the entry of `key`.
fn without_field(key: &str, field: &str) -> String {
    let old = line_of(key);
    let inner = old.split_once("{ ").unwrap().1.trim_end_matches(" }");
    let kept: Vec<&str> = split_pairs(inner)
        .into_iter()
        .filter(|p| !p.starts_with(&format!("{field} = ")))
        .collect();
    let line = format!("{key} = {{ {} }}", kept.join(", "));
    with_line(key, &line)
}

/// Splits `value = 1, tag = "a", source = "b, c"` at the commas outside strings.
fn split_pairs(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut in_str) = (0, false);
    for (i, c) in s.char_indices() {
        match c {
            '"' => in_str = !in_str,
            ',' if !in_str => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

fn assert_names(err: &LoadError, key: &str) {
    let msg = err.to_string();
    assert!(msg.contains(FILE), "message names the file: {msg}");
    assert!(
        msg.contains(&format!("`{key}`")),
        "message names `{key}`: {msg}"
    );
}

#[track_caller]
fn expect_missing(result: Result<ChipProfile, LoadError>, want_key: &str) {
    let err = result.expect_err("must fail");
    match &err {
        LoadError::Missing {
            file,
            key,
            expected,
        } => {
            assert_eq!(file, FILE);
            assert_eq!(key, want_key);
            assert!(!expected.is_empty());
        }
        other => panic!("expected Missing `{want_key}`, got {other:?}"),
    }
    assert_names(&err, want_key);
}

/// Returns (expected, found) for further checks.
#[track_caller]
fn expect_invalid(result: Result<ChipProfile, LoadError>, want_key: &str) -> (String, String) {
    let err = result.expect_err("must fail");
    let out = match &err {
        LoadError::Invalid {
            file,
            key,
            expected,
            found,
        } => {
            assert_eq!(file, FILE);
            assert_eq!(key, want_key);
            (expected.clone(), found.clone())
        }
        other => panic!("expected Invalid `{want_key}`, got {other:?}"),
    };
    assert_names(&err, want_key);
    out
}

#[track_caller]
fn expect_unknown(result: Result<ChipProfile, LoadError>, want_key: &str) {
    let err = result.expect_err("must fail");
    match &err {
        LoadError::UnknownKey { file, key } => {
            assert_eq!(file, FILE);
            assert_eq!(key, want_key);
        }
        other => panic!("expected UnknownKey `{want_key}`, got {other:?}"),
    }
    assert_names(&err, want_key);
}

#[test]
fn the_unedited_template_loads() {
    let p = load(TEMPLATE).unwrap();
    assert_eq!(p, ChipProfile::builtin("Ascend910B1").unwrap());
}

#[test]
fn the_editing_helpers_work() {
    // An edit that restores the original value must give the original profile back.
    let same = with_field("rtsq_depth", "value", "2048");
    assert_eq!(same, TEMPLATE);
    let p = load(&with_field("rtsq_depth", "value", "4096")).unwrap();
    assert_eq!(p.limits.rtsq_depth, 4096);
    let p = load(&with_field("rtsq_depth", "tag", "\"assumed\"")).unwrap();
    assert_eq!(
        p.provenance["limits.rtsq_depth"].tag,
        ascend_chips::Tag::Assumed
    );
    let p = load(&with_field("rtsq_depth", "source", "\"a test\"")).unwrap();
    assert_eq!(p.provenance["limits.rtsq_depth"].source, "a test");
}

#[test]
fn missing_entry() {
    expect_missing(load(&without("max_events")), "limits.max_events");
    expect_missing(load(&without("task_cmo")), "features.task_cmo");
    expect_missing(load(&without("core_mhz")), "timing.core_mhz");
    expect_missing(load(&without("hbm_gbps")), "timing.hbm_gbps");
}

#[test]
fn missing_top_level_string() {
    expect_missing(load(&without("soc_name")), "soc_name");
    expect_missing(load(&without("product")), "product");
    expect_missing(load(&without("chip_type")), "chip_type");
}

#[test]
fn missing_section() {
    // Without its header the [cmo] entries would land in [features]; drop the entries too.
    let mut text = TEMPLATE.replacen("[cmo]\n", "", 1);
    for key in ["desc_size", "sqe_version", "qos"] {
        text = text.replacen(line_of(key), "", 1);
    }
    expect_missing(load(&text), "cmo");
}

#[test]
fn missing_value_tag_or_source() {
    expect_missing(
        load(&without_field("max_events", "value")),
        "limits.max_events.value",
    );
    expect_missing(
        load(&without_field("max_events", "tag")),
        "limits.max_events.tag",
    );
    expect_missing(
        load(&without_field("max_events", "source")),
        "limits.max_events.source",
    );
}

#[test]
fn wrong_value_type() {
    let (expected, found) = expect_invalid(
        load(&with_field("task_cmo", "value", "1")),
        "features.task_cmo.value",
    );
    assert!(expected.contains("boolean"), "{expected}");
    assert!(found.contains("integer 1"), "{found}");

    let (expected, found) = expect_invalid(
        load(&with_field("rtsq_depth", "value", "\"2048\"")),
        "limits.rtsq_depth.value",
    );
    assert!(expected.contains("integer"), "{expected}");
    assert!(found.contains("string"), "{found}");

    let (_, found) = expect_invalid(
        load(&with_field("device_bytes", "value", "-1")),
        "memory.device_bytes.value",
    );
    assert!(found.contains("-1"), "{found}");

    expect_invalid(
        load(&with_field("l2_bytes", "value", "2.5")),
        "cache.l2_bytes.value",
    );

    let (expected, _) = expect_invalid(
        load(&with_field("max_streams", "value", "4294967296")),
        "limits.max_streams.value",
    );
    assert!(expected.contains("2^32"), "{expected}");

    let (expected, _) = expect_invalid(
        load(&with_field("hbm_gbps", "value", "0.0")),
        "timing.hbm_gbps.value",
    );
    assert!(expected.contains("positive"), "{expected}");
    expect_invalid(
        load(&with_field("h2d_gbps", "value", "true")),
        "timing.h2d_gbps.value",
    );
    expect_invalid(
        load(&with_field("d2h_gbps", "value", "-25.0")),
        "timing.d2h_gbps.value",
    );
    expect_invalid(
        load(&with_field("d2h_gbps", "value", "nan")),
        "timing.d2h_gbps.value",
    );
    // An integer is accepted where a bandwidth is expected.
    let p = load(&with_field("h2d_gbps", "value", "32")).unwrap();
    assert_eq!(p.timing.h2d_gbps, 32.0);
}

#[test]
fn entry_that_is_not_a_table() {
    let (expected, found) = expect_invalid(
        load(&with_line("rtsq_depth", "rtsq_depth = 2048")),
        "limits.rtsq_depth",
    );
    assert!(expected.contains("tag"), "{expected}");
    assert!(found.contains("integer 2048"), "{found}");
}

#[test]
fn top_level_of_the_wrong_type() {
    let (_, found) = expect_invalid(load(&with_line("soc_name", "soc_name = 910")), "soc_name");
    assert!(found.contains("integer 910"), "{found}");
    // A section that is a plain value.
    let mut text = TEMPLATE.replacen("[cmo]\n", "", 1);
    for key in ["desc_size", "sqe_version", "qos"] {
        text = text.replacen(line_of(key), "", 1);
    }
    let text = text.replacen("chip_type = ", "cmo = 5\nchip_type = ", 1);
    expect_invalid(load(&text), "cmo");
}

#[test]
fn bad_tag() {
    let (expected, found) = expect_invalid(
        load(&with_field("rtsq_depth", "tag", "\"guessed\"")),
        "limits.rtsq_depth.tag",
    );
    assert!(expected.contains("sourced"), "{expected}");
    assert!(found.contains("guessed"), "{found}");
    // Tags are case-sensitive.
    expect_invalid(
        load(&with_field("rtsq_depth", "tag", "\"Sourced\"")),
        "limits.rtsq_depth.tag",
    );
    expect_invalid(
        load(&with_field("rtsq_depth", "tag", "3")),
        "limits.rtsq_depth.tag",
    );
}

#[test]
fn empty_source() {
    expect_invalid(load(&with_field("qos", "source", "\"\"")), "cmo.qos.source");
    expect_invalid(
        load(&with_field("qos", "source", "\"   \"")),
        "cmo.qos.source",
    );
    expect_invalid(load(&with_field("qos", "source", "7")), "cmo.qos.source");
}

#[test]
fn unknown_keys() {
    // A misspelt entry in a section.
    let misspelt = line_of("rtsq_depth").replacen("rtsq_depth", "rtsq_depht", 1);
    let text = TEMPLATE.replacen(
        line_of("rtsq_reserved"),
        &format!("{}\n{misspelt}", line_of("rtsq_reserved")),
        1,
    );
    expect_unknown(load(&text), "limits.rtsq_depht");

    // An extra field inside an entry.
    let line = line_of("qos").replacen(" }", ", note = \"x\" }", 1);
    expect_unknown(load(&with_line("qos", &line)), "cmo.qos.note");

    // An unknown top-level key and an unknown section.
    let text = TEMPLATE.replacen("chip_type = ", "vendor = \"x\"\nchip_type = ", 1);
    expect_unknown(load(&text), "vendor");
    let text = format!("{TEMPLATE}\n[extras]\nfoo = 1\n");
    expect_unknown(load(&text), "extras");
}

#[test]
fn unknown_chip_type() {
    let (expected, found) = expect_invalid(
        load(&with_line("chip_type", "chip_type = \"CHIP_FOO\"")),
        "chip_type",
    );
    assert!(found.contains("CHIP_FOO"), "{found}");
    assert!(expected.contains("CHIP_910_B_93"), "{expected}");
    // Names are exact: the numeric form is not accepted.
    expect_invalid(
        load(&with_line("chip_type", "chip_type = \"5\"")),
        "chip_type",
    );
}

#[test]
fn not_toml() {
    for text in [
        "this is not toml = = =".to_string(),
        TEMPLATE.replacen(" }", "", 1),
        format!("{TEMPLATE}\n[limits]\n"),
    ] {
        match load(&text) {
            Err(
                ref err @ LoadError::Syntax {
                    ref file,
                    ref message,
                },
            ) => {
                assert_eq!(file, FILE);
                assert!(!message.is_empty());
                assert!(err.to_string().contains(FILE));
            }
            other => panic!("expected Syntax, got {other:?}"),
        }
    }
}

#[test]
fn non_power_of_two_sizes() {
    for (key, path) in [
        ("base_alignment", "memory.base_alignment.value"),
        ("malloc_round", "memory.malloc_round.value"),
        ("backing_page_bytes", "memory.backing_page_bytes.value"),
        ("l2_line_bytes", "cache.l2_line_bytes.value"),
        ("dcache_line_bytes", "cache.dcache_line_bytes.value"),
    ] {
        let (expected, found) = expect_invalid(load(&with_field(key, "value", "500")), path);
        assert!(expected.contains("power of two"), "{expected}");
        assert_eq!(found, "500");
        let (expected, _) = expect_invalid(load(&with_field(key, "value", "0")), path);
        assert!(expected.contains("power of two"), "{expected}");
    }
    let p = load(&with_field("base_alignment", "value", "4096")).unwrap();
    assert_eq!(p.memory.base_alignment, 4096);
}

#[test]
fn reserve_must_leave_room_in_the_queue() {
    for reserved in ["2048", "2049", "100000"] {
        let (expected, found) = expect_invalid(
            load(&with_field("rtsq_reserved", "value", reserved)),
            "limits.rtsq_reserved",
        );
        assert!(expected.contains("2048"), "{expected}");
        assert_eq!(found, reserved);
    }
    let p = load(&with_field("rtsq_reserved", "value", "2047")).unwrap();
    assert_eq!(p.limits.max_tasks_per_stream(), 1);
}

#[test]
fn zero_counts_are_rejected() {
    expect_invalid(
        load(&with_field("device_count", "value", "0")),
        "limits.device_count",
    );
    expect_invalid(
        load(&with_field("poll_reads_per_pass", "value", "0")),
        "timing.poll_reads_per_pass",
    );
}

#[test]
fn unreadable_file() {
    let path = Path::new("/nonexistent/sim-models/NoSuchChip.toml");
    match ChipProfile::from_file(path) {
        Err(ref err @ LoadError::Io { ref file, .. }) => {
            assert_eq!(file, &path.display().to_string());
            assert!(err.to_string().contains("NoSuchChip.toml"));
        }
        other => panic!("expected Io, got {other:?}"),
    }
}
