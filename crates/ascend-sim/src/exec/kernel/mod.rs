//! Kernel tasks: placing their blocks on the device's AI cores (in waves when there are more
//! blocks than cores), stepping each block one operation at a time, what each operation does
//! to the core's data cache and to memory and what it costs, and a block's end (the kernel's
//! tail: the data cache written back, or dropped on chips whose compiler ends kernels with a
//! data-cache invalidate).
//!
//! Costs (chip file): a data-cache hit `dcache_hit_ns`; a miss adds an L2 hit or an HBM
//! access; each dirty line a `dcci` writes back costs an L2 hit; a copy between global memory
//! and a local buffer costs an L2 hit plus its bytes at L2 bandwidth; `spin` costs its cycles
//! at the core clock.
//!
//! This file places blocks and takes their turns and ends; what each operation does is in
//! `ops.rs`, the data cache's fills and write-backs in `dcache.rs`.

use ascend_types::{CoreType, Kernel};

use crate::engine::{Engine, Ev};
use crate::kernel::{BlockSlot, KernelRun, KernelTurn, LastOp, Reply, Request};
use crate::memory::Writer;
use crate::report::KernelBlockRecord;
use crate::stream::Head;
use crate::types::{FaultClass, SimError};

mod dcache;
mod ops;

pub(crate) use dcache::LineEnd;

/// The core type the runtime names a kernel's task by: a vector kernel is a vector-core task on a
/// chip with separate vector cores (AIV); on a chip without them, and for a cube or mixed
/// kernel, an AI-core task (docs/validation/kernels.md).
fn task_core(chip: &ascend_chips::ChipProfile, kernel: &Kernel) -> CoreType {
    match kernel.core() {
        CoreType::Vector if chip.cache.aiv_cores > 0 => CoreType::Vector,
        _ => CoreType::AiCore,
    }
}

impl Engine {
    /// The stream whose head value wait watches the bytes `[addr, addr+len)`, if any (a wait
    /// on an unaligned address reads the word after it too).
    fn watcher_of(&self, addr: u64, len: u64) -> Option<u64> {
        self.watchers.touching(addr, len).next().map(|(_, s)| s)
    }

    /// A kernel task reaches the scheduler: its blocks wait for AI cores of the stream's
    /// device, which they get after the launch time.
    pub(super) fn dispatch_kernel(&mut self, s: u64, id: u64, kernel: Kernel, blocks: u32) {
        let dev = self.streams[&s].device as usize;
        if blocks == 0 || dev >= self.cores.len() {
            self.complete(
                s,
                Some(format!("task {id}: a kernel needs at least one block")),
            );
            return;
        }
        self.kernel_names.insert(id, kernel.shared_name());
        if self.kernel_names.len() > crate::engine::KERNEL_NAMES_KEPT {
            self.kernel_names.pop_first();
        }
        self.kernel_runs.insert(
            id,
            KernelRun {
                stream: s,
                kernel,
                blocks,
                next_block: 0,
                live: 0,
                fault: None,
                ready_at: self.now.saturating_add(self.chip.timing.kernel_launch_ns),
            },
        );
        self.core_queue[dev].push_back(id);
        self.streams.get_mut(&s).expect("stream").head = Head::Kernel;
        let at = self.now.saturating_add(self.chip.timing.kernel_launch_ns);
        self.schedule(at, Ev::KernelPlace { dev: dev as u32 });
    }

    /// Starts waiting blocks on the free cores of device `dev`, in dispatch order.
    pub(super) fn place_blocks(&mut self, dev: usize) {
        while let Some(&run) = self.core_queue[dev].front() {
            let Some(r) = self.kernel_runs.get_mut(&run) else {
                self.core_queue[dev].pop_front();
                continue;
            };
            if r.next_block >= r.blocks {
                self.core_queue[dev].pop_front();
                continue;
            }
            if r.ready_at > self.now {
                return; // its own launch event places it
            }
            let Some(core) = self.cores[dev].iter().position(|c| c.slot.is_none()) else {
                return;
            };
            let block = r.next_block;
            r.next_block += 1;
            r.live += 1;
            if self.races.on {
                let stream = r.stream;
                self.races.block_started(stream, block);
            }
            self.next_block_id += 1;
            let id = self.next_block_id;
            let c = &mut self.cores[dev][core];
            c.gen += 1;
            c.slot = Some(BlockSlot {
                run,
                block,
                id,
                started: false,
                reply: Some(Reply::Go),
                start_ns: self.now,
                ops: 0,
                last_op: LastOp::Started,
                polling: None,
                recent_fills: Default::default(),
            });
            let gen = c.gen;
            let (dev, core) = (dev as u32, core as u32);
            // A seeded schedule starts each block after a delay of its own.
            let delay = self.schedule.as_mut().map_or(0, |sch| sch.block_start(id));
            let at = self.now.saturating_add(delay);
            self.schedule(at, Ev::KernelStep { dev, core, gen });
        }
    }

    /// The block on core `core` of device `dev` is due for its next step: its turn, with the
    /// answer to its last operation (`None` when the step is stale: the block ended).
    pub(crate) fn take_turn(&mut self, dev: usize, core: usize, gen: u64) -> Option<KernelTurn> {
        let c = self.cores.get_mut(dev)?.get_mut(core)?;
        if c.gen != gen {
            return None;
        }
        let slot = c.slot.as_mut()?;
        let reply = slot.reply.take().unwrap_or(Reply::Go);
        let start = if slot.started {
            None
        } else {
            slot.started = true;
            let r = self.kernel_runs.get(&slot.run)?;
            Some((r.kernel.clone(), slot.block, r.blocks))
        };
        Some(KernelTurn {
            dev,
            core,
            gen,
            block: slot.id,
            reply,
            start,
        })
    }

    /// The turn ended with the block asking for `request` (or ending), which is executed now.
    /// A block that ended meanwhile (its kernel was cancelled or faulted while the turn ran)
    /// is stopped instead.
    pub fn end_kernel_turn(&mut self, turn: KernelTurn, request: Request) {
        self.kernel_turn = None;
        // A spinning kernel completes no task: its steps keep the published time going.
        self.published.publish_time(self.now);
        let (dev, core) = (turn.dev, turn.core);
        let live = self.cores[dev][core].gen == turn.gen
            && self.cores[dev][core]
                .slot
                .as_ref()
                .is_some_and(|s| s.id == turn.block);
        if !live {
            if !matches!(request, Request::Abandoned | Request::StackOverflow) {
                self.stopped_blocks.push(turn.block);
            }
            return;
        }
        match request {
            Request::Done => self.block_end(dev, core, None),
            Request::Abandoned => self.block_end(
                dev,
                core,
                Some("the block's stack was given up while it ran".into()),
            ),
            Request::Panicked(m) => {
                self.block_end(dev, core, Some(format!("the kernel panicked: {m}")))
            }
            Request::StackOverflow => {
                let bytes = self.config.kernel_stack_bytes;
                let why = format!(
                    "the block overflowed its stack of {bytes} bytes (ASCEND_SIM_KERNEL_STACK \
                     or SimConfig::kernel_stack_bytes sets a larger one)"
                );
                self.block_end(dev, core, Some(why))
            }
            Request::Trap(m) => self.block_end(dev, core, Some(format!("the kernel trapped: {m}"))),
            op => {
                // A virtual address names the memory mapped there.
                let op = match self.translate_op(op) {
                    Ok(op) => op,
                    Err(e) => return self.block_end(dev, core, Some(e.to_string())),
                };
                let slot = self.cores[dev][core]
                    .slot
                    .as_mut()
                    .expect("a running block");
                slot.ops += 1;
                slot.last_op = LastOp::of(&op);
                match &op {
                    Request::Load { addr, .. } => slot.polling = Some(*addr),
                    Request::Dcci { .. } | Request::Spin { .. } => {}
                    _ => slot.polling = None,
                }
                match self.kernel_op(dev, core, op) {
                    Ok((reply, ns)) => {
                        let c = &mut self.cores[dev][core];
                        if let Some(slot) = c.slot.as_mut() {
                            slot.reply = Some(reply);
                            // A seeded schedule runs each block at a speed of its own.
                            let ns = self
                                .schedule
                                .as_ref()
                                .map_or(ns, |sch| sch.block_step(slot.id, ns));
                            let (gen, at) = (c.gen, self.now.saturating_add(ns));
                            let (dev, core) = (dev as u32, core as u32);
                            self.schedule(at, Ev::KernelStep { dev, core, gen });
                        }
                    }
                    Err(fault) => self.block_end(dev, core, Some(fault)),
                }
            }
        }
    }

    /// The turn could not begin: the block's coroutine could not be made (`why`), and its
    /// kernel fails.
    pub fn fail_kernel_turn(&mut self, turn: KernelTurn, why: String) {
        self.kernel_turn = None;
        let run = self.cores[turn.dev][turn.core]
            .slot
            .as_ref()
            .filter(|s| s.id == turn.block)
            .map(|s| (s.run, s.block));
        if let Some((run, block)) = run {
            self.abort_run(
                run,
                format!("task {run}: cannot start block {block}: {why}"),
            );
        }
    }

    /// What the watchdog says of the block whose turn has run for `grace` of wall time
    /// without asking for an operation.
    pub(crate) fn held_core_thread_text(&self, grace: std::time::Duration) -> String {
        let held = self.kernel_turn.and_then(|id| self.slot_of_block(id));
        match held {
            Some((dev, core)) => {
                let slot = self.cores[dev][core].slot.as_ref().expect("found");
                let name = self
                    .kernel_runs
                    .get(&slot.run)
                    .map_or("?", |r| r.kernel.name());
                format!(
                    "kernel {name} block {} on AI core {core} of device {dev} has asked for \
                     nothing for {grace:?} of wall time: its body blocks in host code or \
                     computes without operations (a kernel reaches memory and time only \
                     through its context)",
                    slot.block
                )
            }
            None => {
                format!("a kernel block has run for {grace:?} of wall time without an operation")
            }
        }
    }

    /// The core thread is held by a block whose body blocks in host code (`said`): that block
    /// faults with it, and so does every other running block (their coroutines are on the
    /// held thread); the next kernel step starts a new core thread.
    pub(crate) fn give_up_core_thread(&mut self, said: &str) {
        let held = self.kernel_turn.take();
        let mut running = Vec::new();
        for (dev, cores) in self.cores.iter().enumerate() {
            for (core, c) in cores.iter().enumerate() {
                if let Some(slot) = &c.slot {
                    running.push((dev, core, slot.id));
                }
            }
        }
        let holder = held
            .and_then(|id| self.slot_of_block(id))
            .and_then(|(d, c)| self.cores[d][c].slot.as_ref())
            .map(|s| s.block);
        for (dev, core, id) in running {
            // A sibling fault may have ended it already.
            if self.cores[dev][core]
                .slot
                .as_ref()
                .is_none_or(|s| s.id != id)
            {
                continue;
            }
            let fault = if Some(id) == held {
                said.to_string()
            } else {
                format!(
                    "the thread that runs kernel blocks is held by block {} of another kernel, \
                     whose body blocks in host code",
                    holder.unwrap_or(0)
                )
            };
            self.block_end(dev, core, Some(fault));
        }
        self.stopped_blocks.clear();
        self.core_jobs.give_up_thread();
    }

    /// The core running block number `id`.
    fn slot_of_block(&self, id: u64) -> Option<(usize, usize)> {
        self.cores.iter().enumerate().find_map(|(d, cores)| {
            cores
                .iter()
                .position(|c| c.slot.as_ref().is_some_and(|s| s.id == id))
                .map(|c| (d, c))
        })
    }

    /// A store into a data cache to a word a value wait watches was made one polling pass
    /// ago: if it is still not written back, the wait has polled memory without seeing it.
    pub(super) fn on_invisible_check(&mut self, addr: u64, len: u64) {
        if let Some(s) = self.watcher_of(addr, len) {
            let reader = format!("the value wait at the head of stream {s}");
            let _ = self.check_invisible_writes(addr, len, &reader, None);
        }
    }

    /// Who a block's memory accesses are attributed to.
    pub(crate) fn core_writer(&self, dev: usize, core: usize) -> Writer {
        let (run, block) = self.cores[dev][core]
            .slot
            .as_ref()
            .map_or((0, 0), |s| (s.run, s.block));
        let stream = self.kernel_runs.get(&run).map_or(0, |r| r.stream);
        Writer::Core {
            task: run,
            stream,
            block,
            core: core as u32,
            at_ns: self.now,
        }
    }

    /// The block on `core` ended (its body returned, or `fault`): the kernel's tail acts on
    /// the data cache, the core is free, and the kernel task completes with its last block.
    fn block_end(&mut self, dev: usize, core: usize, fault: Option<String>) {
        let mut fault = fault;
        // A value wait watching a store still in the cache saw it only now, at the kernel's
        // end, if at all: the store was invisible while the kernel ran.
        if self.dirty_dlines > 0 && !self.watchers.is_empty() {
            let dc = &self.cores[dev][core].dcache;
            let lb = dc.line_bytes();
            let watched: Vec<(u64, u64)> = dc
                .dirty_in(0, u64::MAX)
                .into_iter()
                .filter_map(|line| self.watchers.touching(line, lb).next())
                .collect();
            for (word, s) in watched {
                let reader = format!(
                    "the value wait at the head of stream {s} (the store reaches memory only \
                     at the kernel's end, and never where the kernel's tail drops the data \
                     cache)"
                );
                if let Some(f) = self.check_invisible_writes(word, 8, &reader, None) {
                    fault.get_or_insert(f);
                }
            }
        }
        if !self.pending_fill_checks.is_empty() {
            if let Some(f) = self.fill_checks_before_tail(dev, core) {
                fault.get_or_insert(f);
            }
        }
        let tail = if self.chip.cache.kernel_end_drops_dcache {
            self.drop_dcache(dev, core, "the kernel's tail invalidate")
        } else {
            let mut r = Ok(());
            self.each_dline_taken(dev, core, |e, line, l| {
                if l.dirty {
                    let written = e.write_back_dline(dev, core, line, l, LineEnd::KernelEnd);
                    r = std::mem::replace(&mut r, Ok(())).and(written);
                }
            });
            r
        };
        if let Err(f) = tail {
            fault.get_or_insert(f);
        }
        let c = &mut self.cores[dev][core];
        c.gen += 1;
        let Some(slot) = c.slot.take() else {
            return;
        };
        let (run, block) = (slot.run, slot.block);
        self.race_block_ended(run, block);
        self.record_block(dev, core, &slot, fault.clone());
        self.retire_coroutine(&slot);
        drop(slot);
        self.effects += 1;
        if let Some(r) = self.kernel_runs.get_mut(&run) {
            r.live = r.live.saturating_sub(1);
            if let Some(f) = fault {
                let f = format!(
                    "task {run}: kernel {} block {}: {f}",
                    r.kernel.name(),
                    block
                );
                let class = FaultClass::Kernel(task_core(&self.chip, &r.kernel));
                r.fault.get_or_insert((f, class));
                // A faulting block ends its kernel: blocks not started never start, running
                // ones stop.
                r.next_block = r.blocks;
                self.stop_blocks_of(run, &format!("block {block} of the kernel faulted"));
            }
            self.finish_run_if_done(run);
        }
        self.place_blocks(dev);
    }

    /// Stops every running block of kernel task `run` (`why`): no tail runs, the core's data
    /// cache is emptied without write-back (what a stopped block had not written back is
    /// gone; nothing of it reaches the next kernel on the core), and the block is reported.
    fn stop_blocks_of(&mut self, run: u64, why: &str) {
        for dev in 0..self.cores.len() {
            for core in 0..self.cores[dev].len() {
                if self.cores[dev][core]
                    .slot
                    .as_ref()
                    .is_none_or(|s| s.run != run)
                {
                    continue;
                }
                self.each_dline_taken(dev, core, |e, _, l| {
                    if l.dirty {
                        e.dirty_dlines = e.dirty_dlines.saturating_sub(1);
                    }
                });
                let c = &mut self.cores[dev][core];
                c.gen += 1;
                let slot = c.slot.take().expect("checked");
                self.race_block_ended(run, slot.block);
                self.record_block(dev, core, &slot, Some(format!("stopped: {why}")));
                self.retire_coroutine(&slot);
                if let Some(r) = self.kernel_runs.get_mut(&run) {
                    r.live = r.live.saturating_sub(1);
                }
            }
        }
    }

    /// Block `block` of kernel task `run` left its core: its stream goes on after it.
    fn race_block_ended(&mut self, run: u64, block: u32) {
        if self.races.on {
            if let Some(r) = self.kernel_runs.get(&run) {
                self.races.block_ended(r.stream, block);
            }
        }
    }

    /// A block left its core: the core thread ends its coroutine, if it has one.
    fn retire_coroutine(&mut self, slot: &BlockSlot) {
        if let Some(sch) = self.schedule.as_mut() {
            sch.block_gone(slot.id);
        }
        if slot.started {
            self.stopped_blocks.push(slot.id);
        }
    }

    /// Adds a block that ended to the report.
    fn record_block(&mut self, dev: usize, core: usize, slot: &BlockSlot, fault: Option<String>) {
        let (stream, name) = self
            .kernel_runs
            .get(&slot.run)
            .map_or((0, String::new()), |r| {
                (r.stream, r.kernel.name().to_string())
            });
        let record = KernelBlockRecord {
            task: slot.run,
            stream,
            kernel: name,
            block: slot.block,
            device: dev as u32,
            core: core as u32,
            start_ns: slot.start_ns,
            end_ns: self.now,
            ops: slot.ops,
            last_polled_writer: slot
                .polling
                .and_then(|a| self.mem.last_writer(a & !7))
                .map(|w| self.writer_text(&w)),
            fault,
        };
        let limit = self.config.max_timeline_entries;
        self.report.note_kernel_block(record, limit);
    }

    /// Completes kernel task `run` once no block is left to start or running.
    fn finish_run_if_done(&mut self, run: u64) {
        let done = self
            .kernel_runs
            .get(&run)
            .is_some_and(|r| r.next_block >= r.blocks && r.live == 0);
        if !done {
            return;
        }
        let r = self.kernel_runs.remove(&run).expect("present");
        let (fault, class) = match r.fault {
            Some((f, class)) => (Some(f), class),
            None => (None, FaultClass::Task),
        };
        self.complete_with(r.stream, fault, class);
    }

    /// Kernel task `run` fails with `fault` before all its blocks ran.
    fn abort_run(&mut self, run: u64, fault: String) {
        if let Some(r) = self.kernel_runs.get_mut(&run) {
            r.fault.get_or_insert((fault, FaultClass::Task));
            r.next_block = r.blocks;
        }
        self.stop_blocks_of(run, "the kernel could not start all its blocks");
        self.finish_run_if_done(run);
    }

    /// Kernel task `run` goes with its stream (a forced destroy): its blocks stop, nothing
    /// completes.
    pub(crate) fn cancel_kernel(&mut self, run: u64) {
        self.stop_blocks_of(run, "its stream was destroyed");
        self.kernel_runs.remove(&run);
        for q in &mut self.core_queue {
            q.retain(|&r| r != run);
        }
        for dev in 0..self.cores.len() {
            self.place_blocks(dev);
        }
    }
}

impl Engine {
    /// `op` with the global-memory address it names translated (see `crate::memory::VaMap`).
    fn translate_op(&self, op: Request) -> Result<Request, SimError> {
        let va = self.mem.va();
        if va.is_empty() {
            return Ok(op);
        }
        Ok(match op {
            Request::Load { addr, bytes } => Request::Load {
                addr: va.translate(addr, u64::from(bytes).max(1))?,
                bytes,
            },
            Request::Store { addr, bytes, value } => Request::Store {
                addr: va.translate(addr, u64::from(bytes).max(1))?,
                bytes,
                value,
            },
            Request::Dcci {
                addr,
                entire: false,
                kind,
            } => Request::Dcci {
                addr: va.translate(addr, 1)?,
                entire: false,
                kind,
            },
            Request::GmToLocal { gm, len } => Request::GmToLocal {
                gm: va.translate(gm, len.max(1))?,
                len,
            },
            Request::LocalToGm { gm, data } => Request::LocalToGm {
                gm: va.translate(gm, (data.len() as u64).max(1))?,
                data,
            },
            other => other,
        })
    }
}
