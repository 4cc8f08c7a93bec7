//! SoC profiles of Ascend NPUs.
//!
//! This crate owns the chip facts the rest of the project needs: which runtime features a SoC
//! has (and therefore which APIs its runtime accepts), its queue and resource limits, its memory
//! and cache geometry and the timings the simulator uses. The facts live in one TOML file per SoC
//! under `sim-models/` at the workspace root (embedded into this crate at build time, so the
//! built-in profiles need no files at run time); every number there carries a tag saying whether
//! it was taken from a source (`sourced`), computed from sourced numbers (`derived`) or is a
//! placeholder estimate (`assumed`), and where it comes from.
//!
//! ```
//! let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
//! assert!(chip.features.task_value_wait);
//! assert_eq!(chip.cmo.desc_size, 32);
//! ```

mod loader;
mod profile;
mod tagged;

pub use loader::{builtin_names, nearest_builtin_name, LoadError, BUILTIN_DEFAULT};
pub use profile::{
    CacheParams, ChipProfile, ChipType, CmoParams, Features, L2Agent, Limits, MemoryParams,
    TargetOp, TimingParams,
};
pub use tagged::{Provenance, Tag};
