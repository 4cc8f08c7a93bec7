//! What the safe-level examples share: the runtime they run on, chosen by their arguments.
//!
//! `[SoC]` runs on the simulator of that SoC (default Ascend910B1), with race detection under
//! `--races` and a seeded schedule under `--seed N`; `--hw` runs through the
//! `hw` backend over the runtime library `ASCEND_RT_LIB` (or the toolkit's) names: the project's
//! own `libascendcl.so` (its SoC from `ASCEND_SIM_SOC`), or a real device's library.

use std::sync::Arc;

use ascend_rt::sim::SimBuilder;
use ascend_rt::Runtime;

/// The runtime the command line asks for, after saying which it is.
pub fn runtime() -> Result<Arc<Runtime>, String> {
    let (mut hw, mut races, mut seed, mut soc) = (false, false, None, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--hw" => hw = true,
            "--races" => races = true,
            "--seed" => {
                let n = args.next().ok_or("--seed needs a number")?;
                seed = Some(n.parse::<u64>().map_err(|e| format!("--seed {n}: {e}"))?);
            }
            other if other.starts_with("--") => {
                return Err(format!(
                    "unknown option {other} (usage: [SoC] [--races] [--seed N] | --hw)"
                ))
            }
            _ => soc = Some(arg),
        }
    }
    let rt = if hw {
        hw_runtime()?
    } else {
        SimBuilder::new(soc.as_deref().unwrap_or("Ascend910B1"))
            .races(races)
            .schedule_seed(seed)
            .build()
            .map_err(|e| e.to_string())?
    };
    println!(
        "backend: {} ({})",
        rt.backend_name(),
        rt.get_soc_name().unwrap_or_default()
    );
    Ok(Arc::new(rt))
}

#[cfg(feature = "hw")]
fn hw_runtime() -> Result<Runtime, String> {
    Runtime::hw().map_err(|e| e.to_string())
}

#[cfg(not(feature = "hw"))]
fn hw_runtime() -> Result<Runtime, String> {
    Err("--hw needs the example built with `--features hw`".into())
}
