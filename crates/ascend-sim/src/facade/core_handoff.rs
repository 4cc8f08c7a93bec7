//! The hand-off between host threads and the core thread that runs kernel blocks: a host
//! thread posts a job and waits for its answer (with the watchdog for a block that holds the
//! core thread in host code); the core thread takes one block's turn at a time with the
//! engine's lock released while the block runs.

use std::sync::PoisonError;
use std::time::Duration;

use super::{service_thread, speak_up, Guard, SimShared};
use crate::engine::Engine;
use crate::sync::{timed_wait, WallClock};
use crate::types::OnStall;

impl SimShared {
    /// On the core thread: takes the due block's turn. The engine's lock is released while the
    /// block runs. False when this core thread was given up meanwhile.
    pub(super) fn kernel_turn<'a>(
        &'a self,
        mut g: Guard<'a>,
        blocks: &mut crate::kernel::Blocks,
        epoch: u64,
    ) -> (Guard<'a>, bool) {
        let Some(mut turn) = g.begin_kernel_turn() else {
            return (g, true);
        };
        g.core_jobs.turns += 1;
        let reply = std::mem::replace(&mut turn.reply, crate::kernel::Reply::Go);
        let start = turn.start.take();
        let stack = self.config.kernel_stack_bytes;
        drop(g);
        let asked = match start {
            Some((kernel, idx, n)) => blocks
                .start(turn.block, kernel, idx, n, stack)
                .map(|()| blocks.resume(turn.block, reply)),
            None => Ok(blocks.resume(turn.block, reply)),
        };
        let mut g = self.lock_engine();
        if g.core_jobs.epoch != epoch {
            return (g, false);
        }
        match asked {
            Ok(request) => g.end_kernel_turn(turn, request),
            Err(why) => g.fail_kernel_turn(turn, why),
        }
        stop_ended_blocks(&mut g, blocks);
        (g, true)
    }

    /// Starts the core thread of the current generation if none runs.
    pub(super) fn ensure_core_thread(&self, g: &mut Engine) {
        if g.core_jobs.started {
            return;
        }
        let me = self.me.upgrade().expect("a simulator in use is alive");
        let epoch = g.core_jobs.epoch;
        let spawned =
            crate::sync::spawn_detached("ascend-sim cores", move || core_thread_main(me, epoch));
        match spawned {
            Ok(_) => g.core_jobs.started = true,
            Err(e) => panic!("ascend-sim: cannot start the thread that runs kernel blocks: {e}"),
        }
    }

    /// Hands `job` to the core thread and waits for its answer (`None`: the core thread was
    /// given up, held by a block whose body blocks in host code). The watchdog applies to a
    /// block that runs for the grace without asking for an operation.
    pub(super) fn delegate<'a>(
        &'a self,
        mut g: Guard<'a>,
        job: crate::core_thread::Job,
    ) -> (Guard<'a>, Option<crate::core_thread::JobResult>) {
        self.ensure_core_thread(&mut g);
        let id = g.core_jobs.post(job);
        self.core_wake.notify_all();
        let grace = self.config.watchdog_grace;
        let mut clock = WallClock::start();
        let mut seen = (g.core_jobs.turns, clock.elapsed());
        let mut logged = false;
        loop {
            if let Some(r) = g.core_jobs.take_result(id) {
                return (g, Some(r));
            }
            if !g.core_jobs.pending(id) {
                return (g, None);
            }
            // Without a watchdog only the answer's notification ends the wait (so that a lost
            // wake-up is a deadlock under loom).
            let wait = if grace >= crate::sync::UNBOUNDED_WAIT {
                crate::sync::UNBOUNDED_WAIT
            } else {
                grace
                    .min(Duration::from_millis(50))
                    .max(Duration::from_millis(1))
            };
            g = timed_wait(&self.engine, &self.core_done, g, wait, &mut clock);
            if g.core_jobs.turns != seen.0 || g.kernel_turn.is_none() {
                seen = (g.core_jobs.turns, clock.elapsed());
                continue;
            }
            if clock.elapsed().saturating_sub(seen.1) < grace {
                continue;
            }
            let said = g.held_core_thread_text(grace);
            match self.config.on_stall {
                OnStall::Error => {
                    ascend_types::warn_user!("watchdog: {said}");
                    g.give_up_core_thread(&said);
                    self.changed.notify_all();
                    return (g, None);
                }
                OnStall::Wait => {
                    if !logged {
                        logged = true;
                        speak_up(&said);
                    }
                }
            }
        }
    }
}

/// On the core thread: unwinds (or gives up) the coroutines of blocks that ended while
/// suspended.
fn stop_ended_blocks(g: &mut Engine, blocks: &mut crate::kernel::Blocks) {
    for id in std::mem::take(&mut g.stopped_blocks) {
        blocks.stop(id);
    }
}

/// The core thread of generation `epoch`: serves jobs until the simulator goes away or this
/// generation is given up, then ends its blocks.
fn core_thread_main(sim: std::sync::Arc<SimShared>, epoch: u64) {
    service_thread(true);
    // A block's stack overflow becomes that block's fault (an alternate signal stack here).
    ascend_sim_stack_guard::prepare_thread(
        "Set ASCEND_SIM_KERNEL_STACK (or SimConfig::kernel_stack_bytes) larger.",
    );
    let mut blocks = crate::kernel::Blocks::default();
    let mut g = sim.lock_engine();
    loop {
        if g.core_jobs.epoch != epoch || g.core_jobs.shutdown {
            break;
        }
        stop_ended_blocks(&mut g, &mut blocks);
        if let Some((id, job)) = g.core_jobs.next_job() {
            let (g2, answer) = sim.serve(g, job, &mut blocks, epoch);
            g = g2;
            if g.core_jobs.epoch != epoch {
                break;
            }
            match answer {
                Some(r) => g.core_jobs.answer(id, r),
                None => g.core_jobs.running = None,
            }
            sim.core_done.notify_all();
            continue;
        }
        g = sim
            .core_wake
            .wait(g)
            .unwrap_or_else(PoisonError::into_inner);
    }
    drop(g);
    blocks.stop_all();
}
