//! What a user of the simulator configures, from `ascend-rt` alone (the `sim` feature): the
//! simulator's settings ([`SimConfig`](crate::sim::SimConfig), [`OnStall`](crate::sim::OnStall),
//! the hazard classes and what each does) re-exported, and
//! [`SimBuilder`](crate::sim::SimBuilder), which makes a [`Runtime`](crate::Runtime) over the
//! simulator from them.
//!
//! ```
//! use std::time::Duration;
//! use ascend_rt::sim::{OnStall, SimBuilder};
//! let rt = SimBuilder::new("Ascend910B1")
//!     .hazards("record,lost_write=fail")
//!     .unwrap()
//!     .on_stall(OnStall::Error)
//!     .watchdog(Duration::from_millis(500))
//!     .races(true)
//!     .build()
//!     .unwrap();
//! assert!(rt.sim_view().is_some());
//! ```

use std::time::Duration;

pub use ascend_sim::{report::Hazard, HazardAction, HazardKind, HazardPolicy, OnStall, SimConfig};

use crate::error::AclResult;
use crate::{Runtime, RuntimeOptions};

/// A [`Runtime`] over the simulator, set up step by step.
#[derive(Debug, Clone)]
pub struct SimBuilder {
    soc: String,
    config: SimConfig,
    options: RuntimeOptions,
}

impl SimBuilder {
    /// The simulator of the built-in SoC `soc` (`ascend_chips::builtin_names`), with the
    /// default settings.
    pub fn new(soc: &str) -> SimBuilder {
        SimBuilder {
            soc: soc.to_string(),
            config: SimConfig::default(),
            options: RuntimeOptions::default(),
        }
    }

    /// What hazards do, in `ASCEND_SIM_HAZARDS`'s syntax (`record`, `fail`,
    /// `record,lost_write=fail`); the error says which entry is not one.
    pub fn hazards(mut self, setting: &str) -> Result<SimBuilder, String> {
        self.config.hazards = HazardPolicy::parse(setting)?;
        Ok(self)
    }

    /// What hazards do, class by class.
    pub fn hazard_policy(mut self, policy: HazardPolicy) -> SimBuilder {
        self.config.hazards = policy;
        self
    }

    /// What a host thread waiting on a stalled device does.
    pub fn on_stall(mut self, on_stall: OnStall) -> SimBuilder {
        self.config.on_stall = on_stall;
        self
    }

    /// How long a stalled device may stay so before the watchdog speaks (wall time).
    pub fn watchdog(mut self, grace: Duration) -> SimBuilder {
        self.config.watchdog_grace = grace;
        self
    }

    /// Happens-before race detection (`data_race`, `sync_word_race`).
    pub fn races(mut self, on: bool) -> SimBuilder {
        self.config.races = on;
        self
    }

    /// Runs under the schedule of `seed` (schedule exploration); `None`: the default one.
    pub fn schedule_seed(mut self, seed: Option<u64>) -> SimBuilder {
        self.config.schedule_seed = seed;
        self
    }

    /// Names each task's call site in its hazards, fault and stalled wait
    /// ([`RuntimeOptions::call_sites`]).
    pub fn call_sites(mut self, on: bool) -> SimBuilder {
        self.options.call_sites = on;
        self
    }

    /// Enforces the documented rules too ([`RuntimeOptions::documented_rules`]).
    pub fn documented_rules(mut self, on: bool) -> SimBuilder {
        self.options.documented_rules = on;
        self
    }

    /// Any other setting of the simulator.
    pub fn config(mut self, f: impl FnOnce(&mut SimConfig)) -> SimBuilder {
        f(&mut self.config);
        self
    }

    /// The runtime; an unknown SoC is `ACL_ERROR_INTERNAL_ERROR` naming the known ones.
    pub fn build(self) -> AclResult<Runtime> {
        Ok(Runtime::sim_with(&self.soc, self.config)?.with_options(self.options))
    }
}
