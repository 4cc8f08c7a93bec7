//! Reading chip files: the TOML format, the built-in set, and clear errors for malformed files.
//!
//! A chip file has three top-level strings (`soc_name`, `product`, `chip_type`) and the sections
//! `features`, `cmo`, `limits`, `memory`, `cache` and `timing`. Every entry of a section is a
//! table `{ value = …, tag = "sourced" | "derived" | "assumed", source = "…" }`. Unknown keys
//! are errors, so a misspelt key cannot silently fall back to nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use thiserror::Error;
use toml::{Table, Value};

use crate::profile::{
    CacheParams, ChipProfile, ChipType, CmoParams, Features, Limits, MemoryParams, TimingParams,
};
use crate::tagged::{Provenance, Tag};

/// The SoC used when nothing else is chosen.
pub const BUILTIN_DEFAULT: &str = "Ascend910B1";

/// The chip files compiled into this crate, by SoC name.
const BUILTIN: &[(&str, &str)] = &[
    (
        "Ascend910B1",
        include_str!("../../../sim-models/Ascend910B1.toml"),
    ),
    (
        "Ascend910B4",
        include_str!("../../../sim-models/Ascend910B4.toml"),
    ),
    (
        "Ascend910_9391",
        include_str!("../../../sim-models/Ascend910_9391.toml"),
    ),
    (
        "Ascend950PR_9599",
        include_str!("../../../sim-models/Ascend950PR_9599.toml"),
    ),
    (
        "Ascend950DT_9591",
        include_str!("../../../sim-models/Ascend950DT_9591.toml"),
    ),
    (
        "Ascend310B1",
        include_str!("../../../sim-models/Ascend310B1.toml"),
    ),
    (
        "Ascend310P3",
        include_str!("../../../sim-models/Ascend310P3.toml"),
    ),
    (
        "Ascend910A",
        include_str!("../../../sim-models/Ascend910A.toml"),
    ),
];

/// The SoC names of the built-in chip files.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(name, _)| *name).collect()
}

/// The built-in SoC name a mistyped `name` most likely means, for a "did you mean" hint: the
/// one equal to it but for case, else the one fewest single-letter edits away (case aside), if
/// at most a third of its letters differ.
///
/// ```
/// assert_eq!(ascend_chips::nearest_builtin_name("ascend910b1"), Some("Ascend910B1"));
/// assert_eq!(ascend_chips::nearest_builtin_name("Ascend910B7"), Some("Ascend910B1"));
/// assert_eq!(ascend_chips::nearest_builtin_name("gpu"), None);
/// ```
pub fn nearest_builtin_name(name: &str) -> Option<&'static str> {
    let want = name.to_ascii_lowercase();
    let names = builtin_names();
    if let Some(n) = names.iter().find(|n| n.to_ascii_lowercase() == want) {
        return Some(n);
    }
    names
        .into_iter()
        .map(|n| (edits(&want, &n.to_ascii_lowercase()), n))
        .filter(|&(d, n)| d * 3 <= n.len())
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| n)
}

/// The Levenshtein distance between `a` and `b` (single-letter insertions, deletions and
/// substitutions).
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (up + 1).min(row[j] + 1).min(diag + usize::from(ca != cb));
            diag = up;
        }
    }
    row[b.len()]
}

/// Why a chip file could not be loaded. Every variant names the file and, where it applies,
/// the dotted key and what was expected.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LoadError {
    /// No built-in chip file has this SoC name.
    #[error("no built-in chip model named `{name}` (known: {known})")]
    UnknownSoc {
        /// The name asked for.
        name: String,
        /// The names that exist.
        known: String,
    },
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Io {
        /// The file.
        file: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML.
    #[error("{file}: not valid TOML: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// The parser's message (with line and column).
        message: String,
    },
    /// A required key is absent.
    #[error("{file}: missing key `{key}` (expected {expected})")]
    Missing {
        /// The file.
        file: String,
        /// The dotted key.
        key: String,
        /// What should be there.
        expected: &'static str,
    },
    /// A key holds a value of the wrong kind or out of range.
    #[error("{file}: key `{key}`: expected {expected}, found {found}")]
    Invalid {
        /// The file.
        file: String,
        /// The dotted key.
        key: String,
        /// What should be there.
        expected: String,
        /// What is there.
        found: String,
    },
    /// A key the format does not know (likely a typo).
    #[error("{file}: unknown key `{key}`")]
    UnknownKey {
        /// The file.
        file: String,
        /// The dotted key.
        key: String,
    },
}

impl ChipProfile {
    /// The built-in profile of a SoC, by its `aclrtGetSocName` string.
    pub fn builtin(soc_name: &str) -> Result<ChipProfile, LoadError> {
        let (_, text) = BUILTIN
            .iter()
            .find(|(name, _)| *name == soc_name)
            .ok_or_else(|| LoadError::UnknownSoc {
                name: soc_name.to_string(),
                known: builtin_names().join(", "),
            })?;
        ChipProfile::from_toml_str(text, &format!("sim-models/{soc_name}.toml"))
    }

    /// Every built-in profile.
    pub fn all_builtin() -> Vec<ChipProfile> {
        builtin_names()
            .into_iter()
            .map(|n| ChipProfile::builtin(n).expect("built-in chip files are tested"))
            .collect()
    }

    /// Loads a chip file from disk.
    pub fn from_file(path: &Path) -> Result<ChipProfile, LoadError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
            file: file.clone(),
            source,
        })?;
        ChipProfile::from_toml_str(&text, &file)
    }

    /// Parses a chip file's text; `file` names it in error messages.
    pub fn from_toml_str(text: &str, file: &str) -> Result<ChipProfile, LoadError> {
        let root: Table = text
            .parse()
            .map_err(|e: toml::de::Error| LoadError::Syntax {
                file: file.to_string(),
                message: e.to_string(),
            })?;
        let mut r = Reader {
            file: file.to_string(),
            root,
            seen: BTreeSet::new(),
            provenance: BTreeMap::new(),
        };
        let soc_name = r.top_string("soc_name")?;
        let product = r.top_string("product")?;
        let chip_name = r.top_string("chip_type")?;
        let chip_type = ChipType::from_name(&chip_name).ok_or_else(|| LoadError::Invalid {
            file: file.to_string(),
            key: "chip_type".into(),
            expected: "one of CHIP_MINI, CHIP_CLOUD, CHIP_DC, CHIP_910_B_93, CHIP_MINI_V3, \
                       CHIP_DAVID, CHIP_ASCEND_350"
                .into(),
            found: format!("\"{chip_name}\""),
        })?;
        let features = Features {
            task_cmo: r.flag("features", "task_cmo")?,
            task_async_cmo: r.flag("features", "task_async_cmo")?,
            model_cmo_barrier: r.flag("features", "model_cmo_barrier")?,
            task_value_wait: r.flag("features", "task_value_wait")?,
            task_cmo_dot_no_log: r.flag("features", "task_cmo_dot_no_log")?,
            stream_huge: r.flag("features", "stream_huge")?,
            model_execute_async: r.flag("features", "model_execute_async")?,
            mc2: r.flag("features", "mc2")?,
            host_register: r.flag("features", "host_register")?,
        };
        let cmo = CmoParams {
            desc_size: r.u32("cmo", "desc_size")?,
            sqe_version: r.u32("cmo", "sqe_version")?,
            qos: r.u32("cmo", "qos")?,
        };
        let limits = Limits {
            rtsq_depth: r.u32("limits", "rtsq_depth")?,
            rtsq_reserved: r.u32("limits", "rtsq_reserved")?,
            value_wait_slots: r.u32("limits", "value_wait_slots")?,
            max_streams: r.u32("limits", "max_streams")?,
            max_events: r.u32("limits", "max_events")?,
            max_persist_tasks: r.u32("limits", "max_persist_tasks")?,
            priority_max: r.u32("limits", "priority_max")?,
            device_count: r.u32("limits", "device_count")?,
        };
        let memory = MemoryParams {
            device_bytes: r.u64("memory", "device_bytes")?,
            malloc_round: r.pow2("memory", "malloc_round")?,
            malloc_padding: r.u64("memory", "malloc_padding")?,
            base_alignment: r.pow2("memory", "base_alignment")?,
            backing_page_bytes: r.pow2("memory", "backing_page_bytes")?,
        };
        let cache = CacheParams {
            l2_bytes: r.u64("cache", "l2_bytes")?,
            l2_line_bytes: r.pow2("cache", "l2_line_bytes")?,
            l2_ways: r.u32("cache", "l2_ways")?,
            dcache_line_bytes: r.pow2("cache", "dcache_line_bytes")?,
            dcache_bytes: r.u64("cache", "dcache_bytes")?,
            aic_cores: r.u32("cache", "aic_cores")?,
            aiv_cores: r.u32("cache", "aiv_cores")?,
            scheduler_via_l2: r.flag("cache", "scheduler_via_l2")?,
            copy_engine_via_l2: r.flag("cache", "copy_engine_via_l2")?,
            ai_core_via_l2: r.flag("cache", "ai_core_via_l2")?,
            kernel_end_drops_dcache: r.flag("cache", "kernel_end_drops_dcache")?,
        };
        let timing = TimingParams {
            host_launch_ns: r.u64("timing", "host_launch_ns")?,
            host_call_ns: r.u64("timing", "host_call_ns")?,
            host_query_ns: r.u64("timing", "host_query_ns")?,
            host_alloc_ns: r.u64("timing", "host_alloc_ns")?,
            host_sync_ns: r.u64("timing", "host_sync_ns")?,
            sqe_dispatch_ns: r.u64("timing", "sqe_dispatch_ns")?,
            cqe_ns: r.u64("timing", "cqe_ns")?,
            value_write_ns: r.u64("timing", "value_write_ns")?,
            poll_read_ns: r.u64("timing", "poll_read_ns")?,
            poll_reads_per_pass: r.u32("timing", "poll_reads_per_pass")?,
            l2_hit_ns: r.u64("timing", "l2_hit_ns")?,
            hbm_latency_ns: r.u64("timing", "hbm_latency_ns")?,
            hbm_gbps: r.positive_f64("timing", "hbm_gbps")?,
            l2_gbps: r.positive_f64("timing", "l2_gbps")?,
            h2d_gbps: r.positive_f64("timing", "h2d_gbps")?,
            d2h_gbps: r.positive_f64("timing", "d2h_gbps")?,
            dma_setup_ns: r.u64("timing", "dma_setup_ns")?,
            event_ns: r.u64("timing", "event_ns")?,
            timestamp_ticks_per_ms: r.u64("timing", "timestamp_ticks_per_ms")?,
            core_mhz: r.u64("timing", "core_mhz")?,
            kernel_launch_ns: r.u64("timing", "kernel_launch_ns")?,
            dcache_hit_ns: r.u64("timing", "dcache_hit_ns")?,
        };
        r.reject_unknown()?;
        if limits.rtsq_reserved >= limits.rtsq_depth {
            return Err(r.invalid(
                "limits.rtsq_reserved",
                format!("fewer than limits.rtsq_depth ({})", limits.rtsq_depth),
                limits.rtsq_reserved.to_string(),
            ));
        }
        if limits.device_count == 0 {
            return Err(r.invalid("limits.device_count", "at least 1".into(), "0".into()));
        }
        if timing.poll_reads_per_pass == 0 {
            return Err(r.invalid(
                "timing.poll_reads_per_pass",
                "at least 1".into(),
                "0".into(),
            ));
        }
        Ok(ChipProfile {
            soc_name,
            product,
            chip_type,
            features,
            cmo,
            limits,
            memory,
            cache,
            timing,
            provenance: r.provenance,
        })
    }
}

/// Walks one parsed file, remembering which keys were read and the provenance of each.
struct Reader {
    file: String,
    root: Table,
    seen: BTreeSet<String>,
    provenance: BTreeMap<String, Provenance>,
}

const SECTIONS: &[&str] = &["features", "cmo", "limits", "memory", "cache", "timing"];

impl Reader {
    fn invalid(&self, key: &str, expected: String, found: String) -> LoadError {
        LoadError::Invalid {
            file: self.file.clone(),
            key: key.to_string(),
            expected,
            found,
        }
    }

    fn top_string(&mut self, key: &str) -> Result<String, LoadError> {
        self.seen.insert(key.to_string());
        match self.root.get(key) {
            None => Err(LoadError::Missing {
                file: self.file.clone(),
                key: key.to_string(),
                expected: "a string",
            }),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(self.invalid(key, "a string".into(), describe(other))),
        }
    }

    /// Reads `section.key = { value, tag, source }` and returns the value.
    fn entry(
        &mut self,
        section: &str,
        key: &str,
        expected: &'static str,
    ) -> Result<Value, LoadError> {
        let path = format!("{section}.{key}");
        self.seen.insert(path.clone());
        let table = match self.root.get(section) {
            Some(Value::Table(t)) => t,
            Some(other) => return Err(self.invalid(section, "a table".into(), describe(other))),
            None => {
                return Err(LoadError::Missing {
                    file: self.file.clone(),
                    key: section.to_string(),
                    expected: "a table",
                })
            }
        };
        let entry = match table.get(key) {
            Some(Value::Table(t)) => t.clone(),
            Some(other) => {
                let shape = format!(
                    "{{ value = {expected}, tag = \"sourced|derived|assumed\", source = \"…\" }}"
                );
                return Err(self.invalid(&path, shape, describe(other)));
            }
            None => {
                return Err(LoadError::Missing {
                    file: self.file.clone(),
                    key: path,
                    expected,
                })
            }
        };
        for k in entry.keys() {
            if !matches!(k.as_str(), "value" | "tag" | "source") {
                return Err(LoadError::UnknownKey {
                    file: self.file.clone(),
                    key: format!("{path}.{k}"),
                });
            }
        }
        let tag = match entry.get("tag") {
            Some(Value::String(s)) => Tag::from_name(s).ok_or_else(|| {
                self.invalid(
                    &format!("{path}.tag"),
                    "\"sourced\", \"derived\" or \"assumed\"".into(),
                    format!("\"{s}\""),
                )
            })?,
            Some(other) => {
                return Err(self.invalid(
                    &format!("{path}.tag"),
                    "a string".into(),
                    describe(other),
                ))
            }
            None => {
                return Err(LoadError::Missing {
                    file: self.file.clone(),
                    key: format!("{path}.tag"),
                    expected: "\"sourced\", \"derived\" or \"assumed\"",
                })
            }
        };
        let source = match entry.get("source") {
            Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
            Some(other) => {
                return Err(self.invalid(
                    &format!("{path}.source"),
                    "a non-empty string".into(),
                    describe(other),
                ))
            }
            None => {
                return Err(LoadError::Missing {
                    file: self.file.clone(),
                    key: format!("{path}.source"),
                    expected: "a non-empty string naming the source or the reason",
                })
            }
        };
        let value = entry
            .get("value")
            .cloned()
            .ok_or_else(|| LoadError::Missing {
                file: self.file.clone(),
                key: format!("{path}.value"),
                expected,
            })?;
        self.provenance.insert(path, Provenance { tag, source });
        Ok(value)
    }

    fn flag(&mut self, section: &str, key: &str) -> Result<bool, LoadError> {
        match self.entry(section, key, "a boolean")? {
            Value::Boolean(b) => Ok(b),
            other => Err(self.invalid(
                &format!("{section}.{key}.value"),
                "a boolean".into(),
                describe(&other),
            )),
        }
    }

    fn u64(&mut self, section: &str, key: &str) -> Result<u64, LoadError> {
        match self.entry(section, key, "a non-negative integer")? {
            Value::Integer(i) if i >= 0 => Ok(i as u64),
            other => Err(self.invalid(
                &format!("{section}.{key}.value"),
                "a non-negative integer".into(),
                describe(&other),
            )),
        }
    }

    fn u32(&mut self, section: &str, key: &str) -> Result<u32, LoadError> {
        let v = self.u64(section, key)?;
        u32::try_from(v).map_err(|_| {
            self.invalid(
                &format!("{section}.{key}.value"),
                "an integer below 2^32".into(),
                v.to_string(),
            )
        })
    }

    fn pow2(&mut self, section: &str, key: &str) -> Result<u64, LoadError> {
        let v = self.u64(section, key)?;
        if v == 0 || !v.is_power_of_two() {
            return Err(self.invalid(
                &format!("{section}.{key}.value"),
                "a power of two".into(),
                v.to_string(),
            ));
        }
        Ok(v)
    }

    fn positive_f64(&mut self, section: &str, key: &str) -> Result<f64, LoadError> {
        let v = match self.entry(section, key, "a positive number")? {
            Value::Float(f) => f,
            Value::Integer(i) => i as f64,
            other => {
                return Err(self.invalid(
                    &format!("{section}.{key}.value"),
                    "a positive number".into(),
                    describe(&other),
                ))
            }
        };
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(self.invalid(
                &format!("{section}.{key}.value"),
                "a positive number".into(),
                v.to_string(),
            ))
        }
    }

    fn reject_unknown(&self) -> Result<(), LoadError> {
        for (key, value) in &self.root {
            if SECTIONS.contains(&key.as_str()) {
                if let Value::Table(t) = value {
                    for k in t.keys() {
                        let path = format!("{key}.{k}");
                        if !self.seen.contains(&path) {
                            return Err(LoadError::UnknownKey {
                                file: self.file.clone(),
                                key: path,
                            });
                        }
                    }
                }
            } else if !self.seen.contains(key) {
                return Err(LoadError::UnknownKey {
                    file: self.file.clone(),
                    key: key.clone(),
                });
            }
        }
        Ok(())
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string \"{s}\""),
        Value::Integer(i) => format!("the integer {i}"),
        Value::Float(f) => format!("the number {f}"),
        Value::Boolean(b) => format!("the boolean {b}"),
        Value::Datetime(d) => format!("the date {d}"),
        Value::Array(_) => "an array".into(),
        Value::Table(_) => "a table".into(),
    }
}
