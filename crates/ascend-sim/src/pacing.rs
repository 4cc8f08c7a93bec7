//! The paced mode ([`Pacing::Wall`]): a thread that advances the host clock with the wall
//! clock while no host call arrives, so that a program spinning on host-visible memory (or
//! computing between calls) sees the device make progress, as it would on hardware.
//!
//! Every tick (a millisecond of wall time) the pacer looks at the host clock: if a host call
//! moved it since the last tick, the host is calling and its calls advance the clock; if
//! not, the pacer charges the tick's wall time, times the ratio, as host time, and the device
//! runs to it. Off by default: what a run does then depends on the host's speed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::types::Pacing;
use crate::Sim;

/// Wall time between two looks of the pacer.
const TICK: Duration = Duration::from_millis(1);

/// The pacer of a simulator; it stops when dropped.
#[derive(Debug)]
pub struct Pacer {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Pacer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Sim {
    /// Starts the pacer when the settings ask for [`Pacing::Wall`] (`None` otherwise, or when
    /// no thread can be started, which is logged). It holds only a weak reference: a
    /// simulator that is dropped stops being paced.
    pub fn start_pacer(sim: &Arc<Sim>) -> Option<Pacer> {
        let Pacing::Wall { ratio } = sim.config().pacing else {
            return None;
        };
        let ratio = if ratio.is_finite() && ratio > 0.0 {
            ratio
        } else {
            1.0
        };
        let stop = Arc::new(AtomicBool::new(false));
        let (weak, flag) = (Arc::downgrade(sim), stop.clone());
        let thread = std::thread::Builder::new()
            .name("ascend-sim pacer".into())
            .spawn(move || {
                // Its calls are not a host program's.
                crate::service_thread(true);
                let mut seen = None;
                let mut last = Instant::now();
                while !flag.load(Ordering::Acquire) {
                    std::thread::sleep(TICK);
                    let Some(sim) = weak.upgrade() else { return };
                    let elapsed = last.elapsed();
                    last = Instant::now();
                    let clock = sim.host_clock().get();
                    if seen == Some(clock) {
                        let ns = (elapsed.as_nanos() as f64 * ratio) as u64;
                        // The device runs to it; the threads waiting on it look again.
                        sim.charge_host(ns);
                        seen = Some(sim.host_clock().get());
                    } else {
                        seen = Some(clock);
                    }
                }
            });
        match thread {
            Ok(t) => Some(Pacer {
                stop,
                thread: Some(t),
            }),
            Err(e) => {
                tracing::error!("cannot start the pacer thread ({e}): the run is not paced");
                None
            }
        }
    }
}
