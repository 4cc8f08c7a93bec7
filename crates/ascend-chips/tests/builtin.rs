//! The built-in chip files: every one loads, and each carries the facts the docs give for its
//! SoC. The expectations below are written from the docs (docs/products.md, feature flags;
//! docs/validation/memory.md, streams-events.md, models.md; docs/chip-parameters.md, submission
//! queues, priorities and timestamps, value wait, features and queue limits, per-SoC platform
//! data), not copied from the TOML files.

use std::collections::BTreeSet;
use std::path::PathBuf;

use ascend_chips::{builtin_names, ChipProfile, ChipType, LoadError, Tag, BUILTIN_DEFAULT};

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

/// Every SoC the crate must ship.
const EXPECTED_SOCS: [&str; 8] = [
    "Ascend910B1",
    "Ascend910B4",
    "Ascend910_9391",
    "Ascend950PR_9599",
    "Ascend950DT_9591",
    "Ascend310B1",
    "Ascend310P3",
    "Ascend910A",
];

fn chip(name: &str) -> ChipProfile {
    ChipProfile::builtin(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_builtin_loads_under_its_own_name() {
    let names: BTreeSet<&str> = builtin_names().into_iter().collect();
    let expected: BTreeSet<&str> = EXPECTED_SOCS.into_iter().collect();
    assert_eq!(names, expected);
    assert_eq!(builtin_names().len(), EXPECTED_SOCS.len(), "no duplicates");
    for name in builtin_names() {
        let p = chip(name);
        assert_eq!(p.soc_name, name, "soc_name inside the file");
        assert!(!p.product.trim().is_empty(), "{name}: product");
    }
    assert!(names.contains(BUILTIN_DEFAULT));
    assert_eq!(ChipProfile::all_builtin().len(), EXPECTED_SOCS.len());
}

#[test]
fn unknown_soc_is_an_error_listing_the_known_ones() {
    match ChipProfile::builtin("Ascend999") {
        Err(LoadError::UnknownSoc { name, known }) => {
            assert_eq!(name, "Ascend999");
            for soc in EXPECTED_SOCS {
                assert!(known.contains(soc), "{known}");
            }
        }
        other => panic!("expected UnknownSoc, got {other:?}"),
    }
}

/// The files on disk are the ones compiled in, and there are no stray chip files.
#[test]
fn files_on_disk_match_the_builtins() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../sim-models");
    let mut on_disk = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let from_disk = ChipProfile::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(from_disk, chip(&stem), "{}", path.display());
        on_disk.insert(stem);
    }
    let builtin: BTreeSet<String> = builtin_names().into_iter().map(String::from).collect();
    assert_eq!(on_disk, builtin);
}

/// Runtime-visible facts per SoC.
struct Facts {
    soc: &'static str,
    product: &'static str,
    chip_type: ChipType,
    number: u32,
    // docs/products.md, Feature flags per chip type
    task_cmo: bool,
    task_async_cmo: bool,
    model_cmo_barrier: bool,
    task_value_wait: bool,
    task_cmo_dot_no_log: bool,
    desc_size: u32,
    sqe_version: u32,
    // docs/chip-parameters.md, Value wait; docs/validation/value-write-wait.md
    value_wait_slots: u32,
    // docs/chip-parameters.md, Submission queues / Features and queue limits
    max_tasks_per_stream: Option<u32>,
    // docs/validation/streams-events.md
    max_streams: Option<u32>,
    max_events: u32,
    // docs/validation/memory.md, aclrtMalloc
    malloc_padding: u64,
    // docs/chip-parameters.md, Priorities and timestamps
    timestamp_ticks_per_ms: u64,
    // brief / docs/validation/models.md
    stream_huge: bool,
    model_execute_async: bool,
    // docs/products.md, the MC2 feature
    mc2: bool,
    // docs/products.md, host memory registration
    host_register: bool,
    device_count: u32,
}

const FACTS: &[Facts] = &[
    Facts {
        soc: "Ascend910B1",
        product: "Atlas A2 training/inference series",
        chip_type: ChipType::Cloud910B93,
        number: 5,
        task_cmo: true,
        task_async_cmo: false,
        model_cmo_barrier: false,
        task_value_wait: true,
        task_cmo_dot_no_log: true,
        desc_size: 32,
        sqe_version: 2,
        value_wait_slots: 4,
        max_tasks_per_stream: Some(2013),
        max_streams: Some(1984),
        max_events: 65536,
        malloc_padding: 32,
        timestamp_ticks_per_ms: 50_000,
        stream_huge: true,
        model_execute_async: true,
        mc2: true,
        host_register: true,
        device_count: 8,
    },
    Facts {
        soc: "Ascend910B4",
        product: "Atlas A2 training/inference series",
        chip_type: ChipType::Cloud910B93,
        number: 5,
        task_cmo: true,
        task_async_cmo: false,
        model_cmo_barrier: false,
        task_value_wait: true,
        task_cmo_dot_no_log: true,
        desc_size: 32,
        sqe_version: 2,
        value_wait_slots: 4,
        max_tasks_per_stream: Some(2013),
        max_streams: Some(1984),
        max_events: 65536,
        malloc_padding: 32,
        timestamp_ticks_per_ms: 50_000,
        stream_huge: true,
        model_execute_async: true,
        mc2: true,
        host_register: true,
        device_count: 8,
    },
    Facts {
        soc: "Ascend910_9391",
        product: "Atlas A3 training/inference series",
        chip_type: ChipType::Cloud910B93,
        number: 5,
        task_cmo: true,
        task_async_cmo: false,
        model_cmo_barrier: false,
        task_value_wait: true,
        task_cmo_dot_no_log: true,
        desc_size: 32,
        sqe_version: 2,
        value_wait_slots: 4,
        max_tasks_per_stream: Some(2013),
        max_streams: Some(1984),
        max_events: 65536,
        malloc_padding: 32,
        timestamp_ticks_per_ms: 50_000,
        stream_huge: true,
        model_execute_async: true,
        mc2: true,
        host_register: true,
        device_count: 16,
    },
    Facts {
        soc: "Ascend950PR_9599",
        product: "Ascend 950PR",
        chip_type: ChipType::David,
        number: 15,
        task_cmo: true,
        task_async_cmo: false,
        model_cmo_barrier: false,
        task_value_wait: true,
        task_cmo_dot_no_log: true,
        desc_size: 64,
        sqe_version: 3,
        value_wait_slots: 3,
        max_tasks_per_stream: Some(2014),
        max_streams: Some(1984),
        max_events: 65536,
        malloc_padding: 0,
        timestamp_ticks_per_ms: 1_000_000,
        stream_huge: true,
        model_execute_async: true,
        mc2: true,
        host_register: true,
        device_count: 8,
    },
    Facts {
        soc: "Ascend950DT_9591",
        product: "Ascend 950DT",
        chip_type: ChipType::David,
        number: 15,
        task_cmo: true,
        task_async_cmo: false,
        model_cmo_barrier: false,
        task_value_wait: true,
        task_cmo_dot_no_log: true,
        desc_size: 64,
        sqe_version: 3,
        value_wait_slots: 3,
        max_tasks_per_stream: Some(2014),
        max_streams: Some(1984),
        max_events: 65536,
        malloc_padding: 0,
        timestamp_ticks_per_ms: 1_000_000,
        stream_huge: true,
        model_execute_async: true,
        mc2: true,
        host_register: true,
        device_count: 8,
    },
    Facts {
        soc: "Ascend310B1",
        product: "Atlas 200I/500 A2 inference product",
        chip_type: ChipType::MiniV3,
        number: 7,
        task_cmo: false,
        task_async_cmo: true,
        model_cmo_barrier: true,
        task_value_wait: false,
        task_cmo_dot_no_log: false,
        desc_size: 0,
        sqe_version: 1,
        value_wait_slots: 4,
        max_tasks_per_stream: Some(2010),
        max_streams: Some(512),
        max_events: 65536,
        malloc_padding: 32,
        timestamp_ticks_per_ms: 48_000,
        stream_huge: true,
        model_execute_async: true,
        mc2: false,
        host_register: false,
        device_count: 1,
    },
    Facts {
        soc: "Ascend310P3",
        product: "Atlas inference series",
        chip_type: ChipType::Dc,
        number: 4,
        task_cmo: false,
        task_async_cmo: false,
        model_cmo_barrier: false,
        task_value_wait: false,
        task_cmo_dot_no_log: false,
        desc_size: 0,
        sqe_version: 1,
        value_wait_slots: 4,
        // HWTS chip: the queue is a placeholder (its tag is checked below).
        max_tasks_per_stream: None,
        max_streams: Some(1024),
        max_events: 1023,
        malloc_padding: 32,
        timestamp_ticks_per_ms: 1_000_000,
        stream_huge: false,
        model_execute_async: true,
        mc2: true,
        host_register: false,
        device_count: 4,
    },
    Facts {
        soc: "Ascend910A",
        product: "Atlas training series",
        chip_type: ChipType::Cloud,
        number: 1,
        task_cmo: false,
        task_async_cmo: false,
        model_cmo_barrier: false,
        task_value_wait: false,
        task_cmo_dot_no_log: false,
        desc_size: 0,
        sqe_version: 1,
        value_wait_slots: 4,
        max_tasks_per_stream: None,
        // Not documented for 910 (docs/validation/streams-events.md): a placeholder (its tag
        // is checked below).
        max_streams: None,
        max_events: 65535,
        malloc_padding: 32,
        timestamp_ticks_per_ms: 1_000_000,
        stream_huge: true,
        model_execute_async: false,
        mc2: false,
        host_register: true,
        device_count: 8,
    },
];

#[test]
fn the_table_covers_every_builtin() {
    let socs: BTreeSet<&str> = FACTS.iter().map(|f| f.soc).collect();
    assert_eq!(socs, EXPECTED_SOCS.into_iter().collect());
}

#[test]
fn runtime_facts_per_chip() {
    for f in FACTS {
        let p = chip(f.soc);
        let s = f.soc;
        assert_eq!(p.product, f.product, "{s} product");
        assert_eq!(p.chip_type, f.chip_type, "{s} chip_type");
        assert_eq!(p.chip_type.number(), f.number, "{s} chip_type number");
        let ft = &p.features;
        assert_eq!(ft.task_cmo, f.task_cmo, "{s} task_cmo");
        assert_eq!(ft.task_async_cmo, f.task_async_cmo, "{s} task_async_cmo");
        assert_eq!(ft.model_cmo_barrier, f.model_cmo_barrier, "{s} barrier");
        assert_eq!(ft.task_value_wait, f.task_value_wait, "{s} value_wait");
        assert_eq!(ft.task_cmo_dot_no_log, f.task_cmo_dot_no_log, "{s} no_log");
        assert_eq!(ft.stream_huge, f.stream_huge, "{s} stream_huge");
        assert_eq!(
            ft.model_execute_async, f.model_execute_async,
            "{s} exec async"
        );
        assert_eq!(ft.mc2, f.mc2, "{s} mc2");
        assert_eq!(ft.host_register, f.host_register, "{s} host_register");
        assert_eq!(p.cmo.desc_size, f.desc_size, "{s} desc_size");
        assert_eq!(p.cmo.sqe_version, f.sqe_version, "{s} sqe_version");
        assert_eq!(p.limits.value_wait_slots, f.value_wait_slots, "{s} slots");
        if let Some(tasks) = f.max_tasks_per_stream {
            assert_eq!(p.limits.max_tasks_per_stream(), tasks, "{s} max tasks");
        }
        if let Some(streams) = f.max_streams {
            assert_eq!(p.limits.max_streams, streams, "{s} max_streams");
        }
        assert_eq!(p.limits.max_events, f.max_events, "{s} max_events");
        assert_eq!(p.memory.malloc_padding, f.malloc_padding, "{s} padding");
        assert_eq!(
            p.memory.malloc_round, 32,
            "{s} malloc round (docs/validation/memory.md)"
        );
        assert_eq!(
            p.timing.timestamp_ticks_per_ms, f.timestamp_ticks_per_ms,
            "{s} timestamp"
        );
        assert_eq!(p.limits.device_count, f.device_count, "{s} device_count");
        assert_eq!(
            p.limits.priority_max, 7,
            "{s} priority 0..7 (docs/chip-parameters.md)"
        );
        assert_eq!(
            p.timing.poll_reads_per_pass, 15,
            "{s} maxLoop (docs/chip-parameters.md, Value wait)"
        );
    }
}

#[test]
fn max_tasks_per_stream_on_stars_chips() {
    for (soc, depth, reserved, tasks) in [
        ("Ascend910B1", 2048, 35, 2013),
        ("Ascend910B4", 2048, 35, 2013),
        ("Ascend910_9391", 2048, 35, 2013),
        ("Ascend950PR_9599", 2049, 35, 2014),
        ("Ascend950DT_9591", 2049, 35, 2014),
        ("Ascend310B1", 2048, 38, 2010),
    ] {
        let l = chip(soc).limits;
        assert_eq!((l.rtsq_depth, l.rtsq_reserved), (depth, reserved), "{soc}");
        assert_eq!(l.max_tasks_per_stream(), tasks, "{soc}");
    }
}

/// Features follow the chip type (docs/products.md): chips of one type agree, and the API gates are
/// mutually consistent.
#[test]
fn features_are_a_function_of_the_chip_type() {
    let all = ChipProfile::all_builtin();
    for a in &all {
        for b in &all {
            if a.chip_type == b.chip_type {
                assert_eq!(a.features, b.features, "{} vs {}", a.soc_name, b.soc_name);
                assert_eq!(a.cmo, b.cmo, "{} vs {}", a.soc_name, b.soc_name);
                assert_eq!(a.limits.value_wait_slots, b.limits.value_wait_slots);
            }
        }
        let f = &a.features;
        // The barrier pair and the plain CMO are exclusive on every listed chip.
        assert!(!(f.task_cmo && f.task_async_cmo), "{}", a.soc_name);
        assert_eq!(f.task_async_cmo, f.model_cmo_barrier, "{}", a.soc_name);
        // Descriptor CMO exists exactly where plain CMO does among these chips.
        assert_eq!(a.cmo.desc_size != 0, f.task_cmo, "{}", a.soc_name);
        // STARS v2 waits take 3 slots, everything else keeps v1's 4.
        let slots = if a.chip_type.is_stars_v2() { 3 } else { 4 };
        assert_eq!(a.limits.value_wait_slots, slots, "{}", a.soc_name);
    }
}

/// soc, device bytes, L2 bytes, L2 line, L2 ways, AIC, AIV, MHz.
type GeometryRow = (&'static str, u64, u64, u64, u32, u32, u32, u64);

/// Memory, L2, cores and clock from docs/chip-parameters.md, Per-SoC platform data (exact byte
/// counts).
#[test]
fn memory_geometry_per_chip() {
    let rows: [GeometryRow; 8] = [
        ("Ascend910B1", 64 * GIB, 192 * MIB, 512, 16, 24, 48, 1850),
        ("Ascend910B4", 32 * GIB, 96 * MIB, 512, 16, 20, 40, 1500),
        ("Ascend910_9391", 64 * GIB, 192 * MIB, 512, 16, 24, 48, 1850),
        (
            "Ascend950PR_9599",
            128 * GIB,
            128 * MIB,
            128,
            16,
            36,
            72,
            1800,
        ),
        (
            "Ascend950DT_9591",
            144 * GIB,
            128 * MIB,
            128,
            16,
            36,
            72,
            1800,
        ),
        ("Ascend310B1", 32 * GIB, 4 * MIB, 128, 8, 1, 1, 1224),
        ("Ascend310P3", 24_000_000_000, 16 * MIB, 128, 16, 8, 7, 1060),
        ("Ascend910A", 32 * GIB, 32 * MIB, 512, 16, 32, 0, 1000),
    ];
    for (soc, dev, l2, line, ways, aic, aiv, mhz) in rows {
        let p = chip(soc);
        assert_eq!(p.memory.device_bytes, dev, "{soc} device bytes");
        assert_eq!(p.cache.l2_bytes, l2, "{soc} l2");
        assert_eq!(p.cache.l2_line_bytes, line, "{soc} l2 line");
        assert_eq!(p.cache.l2_ways, ways, "{soc} l2 ways");
        assert_eq!(
            (p.cache.aic_cores, p.cache.aiv_cores),
            (aic, aiv),
            "{soc} cores"
        );
        assert_eq!(p.timing.core_mhz, mhz, "{soc} clock");
        // The set count must be a whole number for the cache model.
        assert_eq!(l2 % (line * u64::from(ways)), 0, "{soc} whole sets");
        assert_eq!(p.cache.dcache_line_bytes, 64, "{soc} dcache line");
    }
}

#[test]
fn bandwidths_from_hw_f1() {
    for (soc, hbm, host) in [
        ("Ascend910B1", 1600.0, 25.0),
        ("Ascend910_9391", 1600.0, 25.0),
        ("Ascend950PR_9599", 1600.0, 50.0),
        ("Ascend950DT_9591", 4000.0, 50.0),
        ("Ascend310B1", 34.0, 17.0),
    ] {
        let t = chip(soc).timing;
        assert_eq!(t.hbm_gbps, hbm, "{soc} hbm");
        assert_eq!((t.h2d_gbps, t.d2h_gbps), (host, host), "{soc} host link");
    }
    // Derived L2 bandwidth = l2_rate (B/cycle) x clock (GHz) x AI cores (docs/chip-parameters.md,
    // Suggested parameters).
    for (soc, rate) in [
        ("Ascend910B1", 110.0),
        ("Ascend910B4", 110.0),
        ("Ascend910_9391", 110.0),
        ("Ascend950PR_9599", 100.0),
        ("Ascend950DT_9591", 100.0),
        ("Ascend310B1", 256.0),
        ("Ascend310P3", 114.0),
        ("Ascend910A", 110.0),
    ] {
        let p = chip(soc);
        let want = rate * p.timing.core_mhz as f64 / 1000.0 * f64::from(p.cache.aic_cores);
        assert!(
            (p.timing.l2_gbps - want).abs() < 1e-6,
            "{soc}: l2_gbps {} vs {want}",
            p.timing.l2_gbps
        );
        assert_eq!(p.provenance["timing.l2_gbps"].tag, Tag::Derived, "{soc}");
    }
}

/// Every key the format defines, written out independently of the loader.
const ALL_KEYS: &[&str] = &[
    "features.task_cmo",
    "features.task_async_cmo",
    "features.model_cmo_barrier",
    "features.task_value_wait",
    "features.task_cmo_dot_no_log",
    "features.stream_huge",
    "features.model_execute_async",
    "features.mc2",
    "features.host_register",
    "cmo.desc_size",
    "cmo.sqe_version",
    "cmo.qos",
    "limits.rtsq_depth",
    "limits.rtsq_reserved",
    "limits.value_wait_slots",
    "limits.max_streams",
    "limits.max_events",
    "limits.max_persist_tasks",
    "limits.priority_max",
    "limits.device_count",
    "memory.device_bytes",
    "memory.malloc_round",
    "memory.malloc_padding",
    "memory.base_alignment",
    "memory.backing_page_bytes",
    "cache.l2_bytes",
    "cache.l2_line_bytes",
    "cache.l2_ways",
    "cache.dcache_line_bytes",
    "cache.dcache_bytes",
    "cache.aic_cores",
    "cache.aiv_cores",
    "cache.scheduler_via_l2",
    "cache.copy_engine_via_l2",
    "cache.ai_core_via_l2",
    "cache.kernel_end_drops_dcache",
    "timing.host_launch_ns",
    "timing.host_call_ns",
    "timing.host_query_ns",
    "timing.host_alloc_ns",
    "timing.host_sync_ns",
    "timing.sqe_dispatch_ns",
    "timing.cqe_ns",
    "timing.value_write_ns",
    "timing.poll_read_ns",
    "timing.poll_reads_per_pass",
    "timing.l2_hit_ns",
    "timing.hbm_latency_ns",
    "timing.hbm_gbps",
    "timing.l2_gbps",
    "timing.h2d_gbps",
    "timing.d2h_gbps",
    "timing.dma_setup_ns",
    "timing.event_ns",
    "timing.timestamp_ticks_per_ms",
    "timing.core_mhz",
    "timing.kernel_launch_ns",
    "timing.dcache_hit_ns",
];

#[test]
fn every_entry_has_provenance() {
    let want: BTreeSet<&str> = ALL_KEYS.iter().copied().collect();
    assert_eq!(want.len(), ALL_KEYS.len());
    for p in ChipProfile::all_builtin() {
        let have: BTreeSet<&str> = p.provenance.keys().map(String::as_str).collect();
        assert_eq!(have, want, "{}", p.soc_name);
        for (key, prov) in &p.provenance {
            assert!(
                prov.source.trim().len() >= 3,
                "{} {key}: source {:?}",
                p.soc_name,
                prov.source
            );
        }
    }
}

/// Placeholders must say so: the numbers the docs do not give are tagged assumed.
#[test]
fn guesses_are_tagged_assumed() {
    let assumed_everywhere = [
        "limits.device_count",
        "memory.backing_page_bytes",
        "cache.l2_ways",
        "cache.dcache_bytes",
        "cache.scheduler_via_l2",
        "cache.copy_engine_via_l2",
        "cache.ai_core_via_l2",
        "timing.kernel_launch_ns",
        "timing.dcache_hit_ns",
        "timing.host_launch_ns",
        "timing.host_query_ns",
        "timing.host_alloc_ns",
        "timing.l2_hit_ns",
        "timing.hbm_latency_ns",
        "timing.h2d_gbps",
        "timing.d2h_gbps",
    ];
    for p in ChipProfile::all_builtin() {
        for key in assumed_everywhere {
            assert_eq!(p.provenance[key].tag, Tag::Assumed, "{} {key}", p.soc_name);
        }
        // Feature flags come straight from the runtime's chip configuration.
        for key in [
            "features.task_cmo",
            "features.task_async_cmo",
            "features.model_cmo_barrier",
            "features.task_value_wait",
            "features.task_cmo_dot_no_log",
            "features.stream_huge",
            "cmo.desc_size",
            "cmo.sqe_version",
            "limits.max_events",
            "memory.malloc_padding",
            "timing.timestamp_ticks_per_ms",
        ] {
            assert_eq!(p.provenance[key].tag, Tag::Sourced, "{} {key}", p.soc_name);
        }
        // A value-wait slot count on a chip without value wait is a stand-in.
        if !p.features.task_value_wait {
            let tag = p.provenance["limits.value_wait_slots"].tag;
            assert_eq!(tag, Tag::Assumed, "{}", p.soc_name);
        }
        // HWTS chips have no STARS queue: depth and reserve are placeholders.
        if matches!(p.chip_type, ChipType::Dc | ChipType::Cloud) {
            for key in ["limits.rtsq_depth", "limits.rtsq_reserved"] {
                assert_eq!(p.provenance[key].tag, Tag::Assumed, "{} {key}", p.soc_name);
            }
        } else {
            for key in ["limits.rtsq_depth", "limits.rtsq_reserved"] {
                assert_eq!(p.provenance[key].tag, Tag::Sourced, "{} {key}", p.soc_name);
            }
        }
    }
    assert_eq!(
        chip("Ascend910A").provenance["limits.max_streams"].tag,
        Tag::Assumed
    );
}

#[test]
fn default_chip_is_the_a2_template() {
    let p = chip(BUILTIN_DEFAULT);
    assert_eq!(p.soc_name, "Ascend910B1");
    assert_eq!(p.chip_type, ChipType::Cloud910B93);
}
