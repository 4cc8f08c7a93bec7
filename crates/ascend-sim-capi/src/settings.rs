//! The library's settings, read strictly from the environment: a value that is set but not
//! understood is an error that names the variable, the value and what is accepted, never a
//! silent fallback to a default.
//!
//! | variable | accepted values | default |
//! |---|---|---|
//! | `ASCEND_SIM_SOC` | a built-in SoC name (`ascend_chips::builtin_names`) | `Ascend910B1` |
//! | `ASCEND_SIM_CHIP_FILE` | a path to a chip file (TOML, the format of `sim-models/`); wins over `ASCEND_SIM_SOC` | unset |
//! | `ASCEND_SIM_ON_STALL` | `wait` or `error` (any case) | `wait` |
//! | `ASCEND_SIM_WATCHDOG_MS` | a whole number of milliseconds, at least 1 | 5000 |
//! | `ASCEND_SIM_PROGRESS` | a path: rewritten every fifth of a second, and at exit, with the tasks completed and the simulated ns reached | unset |
//! | `ASCEND_SIM_LOG` | a `tracing` filter (`warn`, `info`, `ascend_sim=debug`, ...) | `warn` |
//! | `ASCEND_SIM_PACING` | `calls` (only host calls advance the host clock: deterministic) or `wall` / `wall:RATIO` (also the wall clock while no call arrives, RATIO simulated ns per wall ns, 1 by default; docs/host-clock.md) | `calls` |
//! | `ASCEND_SIM_KERNEL_STACK` | the stack of each kernel block: bytes, or `256K`, `4M` (16 KiB to 1 GiB; mapped on demand; docs/kernels.md) | `1M` |
//! | `ASCEND_SIM_HAZARDS` | `ignore`, `record` or `fail` for every hazard class, and/or `class=action` entries, comma-separated (`record,lost_write=fail`); classes `lost_write`, `partial_line`, `never_written_read`, `clobber`, `stale_read`, `invisible_write`, `dcache_stale_read`, `false_sharing`, `dropped_store`, `data_race`, `sync_word_race` | `record` |
//! | `ASCEND_SIM_SCHEDULE_SEED` | a whole number: run under the schedule it chooses (schedule exploration: stream dispatch lags a device may vary; the same seed, the same schedule; docs/races.md) | unset: the default schedule |
//! | `ASCEND_SIM_RULES` | `code` (calls are checked as the vendor's runtime code checks them; where the documentation is stricter, or a size is narrowed, a warning names the call site once) or `documented` (the documented rules are enforced too: `aclrtCmoAsync` and `aclrtCmoAsyncWithDesc` PREFETCH only, 8-byte aligned value-call addresses, reserved flags 0; refused with 107000) | `code` |
//! | `ASCEND_SIM_CALL_SITES` | `on` or `off` (any case): note each task's call site in the program (the first frame of the caller's stack outside the library: "main (prog.c:17)", with file and line where the program has debug information), named in the task's hazards, fault and stalled wait; costs about 1.2 µs of CPU per task launch | `off` (`ascend-sim exec` sets `on`) |
//! | `ASCEND_SIM_RACES` | `on` or `off` (any case): happens-before race detection, reported as `data_race` and `sync_word_race` hazards (docs/races.md) | `off` |

use std::path::Path;
use std::time::Duration;

use ascend_chips::ChipProfile;
use ascend_sim::{HazardKind, HazardPolicy, OnStall, Pacing, SimConfig};

/// What the environment asks for.
pub struct Settings {
    /// The chip to simulate.
    pub chip: ChipProfile,
    /// The simulator's settings.
    pub config: SimConfig,
    /// Which rules calls are checked against.
    pub options: ascend_rt::RuntimeOptions,
}

/// Reads one variable: `Ok(None)` when unset, an error when set but not Unicode.
fn var(name: &str) -> Result<Option<String>, String> {
    match std::env::var(name) {
        Ok(v) => Ok(Some(v)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => Err(format!(
            "{name}={v:?} is not valid text; accepted: {}",
            accepted(name)
        )),
    }
}

/// What `name` accepts, for messages.
pub fn accepted(name: &str) -> String {
    match name {
        crate::env_names::SOC => format!("one of {}", ascend_chips::builtin_names().join(", ")),
        crate::env_names::CHIP_FILE => "the path of a readable chip file (TOML)".to_string(),
        crate::env_names::ON_STALL => "`wait` or `error`".to_string(),
        crate::env_names::WATCHDOG_MS => "a whole number of milliseconds, at least 1".to_string(),
        crate::env_names::LOG => {
            "a tracing filter such as `warn`, `info` or `ascend_sim=debug`".to_string()
        }
        crate::env_names::PACING => {
            "`calls`, `wall` or `wall:RATIO` (RATIO a positive number of simulated ns per \
             wall ns)"
                .to_string()
        }
        crate::env_names::KERNEL_STACK => {
            "a number of bytes, or of KiB or MiB with a K or M after it, from 16K to 1024M"
                .to_string()
        }
        crate::env_names::RACES => "`on` or `off`".to_string(),
        crate::env_names::RULES => "`code` or `documented`".to_string(),
        crate::env_names::CALL_SITES => "`on` or `off`".to_string(),
        crate::env_names::SCHEDULE_SEED => "a whole number from 0 to 2^64-1".to_string(),
        crate::env_names::HAZARDS => format!(
            "`ignore`, `record` or `fail`, or comma-separated `class=action` entries with \
             classes {}",
            HazardKind::ALL.map(HazardKind::name).join(", ")
        ),
        _ => "see the library's documentation".to_string(),
    }
}

/// A setting of two words (any case): `Some(true)` for `yes`, `Some(false)` for `no`, `None`
/// when unset, an error for anything else.
fn two_way(name: &str, yes: &str, no: &str) -> Result<Option<bool>, String> {
    let Some(v) = var(name)? else {
        return Ok(None);
    };
    match v.trim().to_ascii_lowercase() {
        w if w == yes => Ok(Some(true)),
        w if w == no => Ok(Some(false)),
        _ => Err(invalid(name, &v, &format!("neither {yes} nor {no}"))),
    }
}

fn invalid(name: &str, value: &str, why: &str) -> String {
    format!(
        "{name}={value:?} is not valid ({why}); accepted: {}",
        accepted(name)
    )
}

impl Settings {
    /// The settings the environment names, or the first problem with it.
    pub fn from_env() -> Result<Settings, String> {
        let chip = match var(crate::env_names::CHIP_FILE)? {
            Some(path) => ChipProfile::from_file(Path::new(&path))
                .map_err(|e| invalid(crate::env_names::CHIP_FILE, &path, &e.to_string()))?,
            None => {
                let soc = var(crate::env_names::SOC)?
                    .unwrap_or_else(|| ascend_chips::BUILTIN_DEFAULT.to_string());
                ChipProfile::builtin(&soc).map_err(|_| {
                    let why = match ascend_chips::nearest_builtin_name(&soc) {
                        Some(n) => {
                            format!("no built-in chip model has this name; did you mean {n}?")
                        }
                        None => "no built-in chip model has this name".to_string(),
                    };
                    invalid(crate::env_names::SOC, &soc, &why)
                })?
            }
        };
        let mut config = SimConfig::default();
        if let Some(v) = var(crate::env_names::ON_STALL)? {
            config.on_stall = match v.to_ascii_lowercase().as_str() {
                "wait" => OnStall::Wait,
                "error" => OnStall::Error,
                _ => return Err(invalid(crate::env_names::ON_STALL, &v, "unknown mode")),
            };
        }
        if let Some(v) = var(crate::env_names::WATCHDOG_MS)? {
            let ms = v
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|&ms| ms >= 1)
                .ok_or_else(|| {
                    invalid(crate::env_names::WATCHDOG_MS, &v, "not a positive number")
                })?;
            config.watchdog_grace = Duration::from_millis(ms);
        }
        if let Some(v) = var(crate::env_names::HAZARDS)? {
            config.hazards = HazardPolicy::parse(&v)
                .map_err(|why| invalid(crate::env_names::HAZARDS, &v, &why))?;
        }
        if let Some(on) = two_way(crate::env_names::RACES, "on", "off")? {
            config.races = on;
        }
        if let Some(v) = var(crate::env_names::SCHEDULE_SEED)? {
            let seed = v
                .trim()
                .parse::<u64>()
                .map_err(|_| invalid(crate::env_names::SCHEDULE_SEED, &v, "not a whole number"))?;
            config.schedule_seed = Some(seed);
        }
        if let Some(v) = var(crate::env_names::PACING)? {
            config.pacing =
                pacing(&v).ok_or_else(|| invalid(crate::env_names::PACING, &v, "unknown"))?;
        }
        if let Some(v) = var(crate::env_names::KERNEL_STACK)? {
            config.kernel_stack_bytes = stack_bytes(&v).ok_or_else(|| {
                invalid(
                    crate::env_names::KERNEL_STACK,
                    &v,
                    "not a size of 16 KiB to 1 GiB",
                )
            })?;
        }
        let mut options = ascend_rt::RuntimeOptions::default();
        if let Some(documented) = two_way(crate::env_names::RULES, "documented", "code")? {
            options.documented_rules = documented;
        }
        if let Some(on) = two_way(crate::env_names::CALL_SITES, "on", "off")? {
            options.call_sites = on;
        }
        Ok(Settings {
            chip,
            config,
            options,
        })
    }

    /// The log filter `ASCEND_SIM_LOG` names (`warn` when unset).
    pub fn log_filter() -> Result<tracing_subscriber::EnvFilter, String> {
        match var(crate::env_names::LOG)? {
            None => Ok(tracing_subscriber::EnvFilter::new("warn")),
            Some(v) => tracing_subscriber::EnvFilter::try_new(&v)
                .map_err(|e| invalid(crate::env_names::LOG, &v, &e.to_string())),
        }
    }
}

/// Parses `ASCEND_SIM_KERNEL_STACK`: bytes, or KiB / MiB with a `K` / `M` suffix.
fn stack_bytes(text: &str) -> Option<usize> {
    let t = text.trim();
    let (num, unit) = match t.char_indices().last()? {
        (i, 'k' | 'K') => (&t[..i], 1usize << 10),
        (i, 'm' | 'M') => (&t[..i], 1usize << 20),
        _ => (t, 1),
    };
    let bytes = num.trim().parse::<usize>().ok()?.checked_mul(unit)?;
    (16 << 10..=1 << 30).contains(&bytes).then_some(bytes)
}

/// Parses `ASCEND_SIM_PACING`.
fn pacing(text: &str) -> Option<Pacing> {
    let text = text.trim().to_ascii_lowercase();
    match text.split_once(':') {
        None if text == "calls" => Some(Pacing::Calls),
        None if text == "wall" => Some(Pacing::Wall { ratio: 1.0 }),
        Some(("wall", r)) => r
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|r| r.is_finite() && *r > 0.0)
            .map(|ratio| Pacing::Wall { ratio }),
        _ => None,
    }
}

#[cfg(test)]
mod stack_tests {
    use super::stack_bytes;

    #[test]
    fn kernel_stack_sizes_take_bytes_kib_and_mib_within_bounds() {
        assert_eq!(stack_bytes("65536"), Some(65536));
        assert_eq!(stack_bytes("256K"), Some(256 << 10));
        assert_eq!(stack_bytes(" 4m "), Some(4 << 20));
        assert_eq!(stack_bytes("8K"), None);
        assert_eq!(stack_bytes("2048M"), None);
        assert_eq!(stack_bytes("lots"), None);
        assert_eq!(stack_bytes(""), None);
    }
}
