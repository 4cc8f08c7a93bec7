//! Memcpy and memset tasks, and the glue between stream heads and the copy-engine pools
//! ([`crate::copy_pool`]): a job's setup, its transfer, its end (where the task's effect is
//! applied) and its cancellation when its stream goes.

use ascend_chips::L2Agent;

use crate::copy_pool::Link;
use crate::engine::{Engine, Ev};
use crate::memory::Writer;
use crate::report::EngineJob;
use crate::stream::{task_name, Head, Stream, Work};
use crate::types::{Loc, Task};

impl Engine {
    /// A memcpy reaches the scheduler: check both ends, then start the copy-engine job.
    pub(super) fn dispatch_memcpy(&mut self, s: u64, id: u64, dst: &Loc, src: &Loc, len: u64) {
        if let Err(e) = self
            .check_loc(src, len)
            .and_then(|()| self.check_loc(dst, len))
        {
            self.complete(s, Some(format!("task {id}: {e}")));
            return;
        }
        let (link, bytes) = match (src, dst) {
            (Loc::Device(a), Loc::Device(_)) => (Link::Hbm, self.hbm_equivalent(*a, len)),
            (Loc::Device(_), Loc::Host { .. }) => (Link::D2h, len),
            _ => (Link::H2d, len),
        };
        self.start_copy(s, 0, link, bytes, self.chip.timing.dma_setup_ns);
    }

    /// The memory traffic of reading `[addr, addr+len)` on the device, in bytes at memory
    /// (HBM) bandwidth: lines resident in the L2 are read at the L2's bandwidth instead.
    fn hbm_equivalent(&self, addr: u64, len: u64) -> u64 {
        let Some(l2) = self.l2_of(addr) else {
            return len;
        };
        let (lines, resident, _) = l2.census(addr, len);
        if lines == 0 || resident == 0 {
            return len;
        }
        let t = self.chip.timing;
        let ratio = if t.l2_gbps > 0.0 {
            (t.hbm_gbps / t.l2_gbps).min(1.0)
        } else {
            1.0
        };
        let hit = len as f64 * resident as f64 / lines as f64;
        ((len as f64 - hit) + hit * ratio).ceil() as u64
    }

    /// A reduce-copy reaches the scheduler: check both ranges, then start the copy-engine job,
    /// which reads both operands and writes the destination.
    pub(super) fn dispatch_reduce(&mut self, s: u64, id: u64, dst: u64, src: u64, len: u64) {
        if let Err(e) = self
            .check_loc(&Loc::Device(src), len)
            .and_then(|()| self.check_loc(&Loc::Device(dst), len))
        {
            self.complete(s, Some(format!("task {id}: {e}")));
            return;
        }
        let bytes = self.hbm_equivalent(src, len) + self.hbm_equivalent(dst, len);
        self.start_copy(s, 0, Link::Hbm, bytes, self.chip.timing.dma_setup_ns);
    }

    /// A memset reaches the scheduler: check its range, then start the copy-engine job.
    pub(super) fn dispatch_memset(&mut self, s: u64, id: u64, addr: u64, len: u64) {
        if let Err(e) = self.mem.check(addr, len) {
            self.complete(s, Some(format!("task {id}: {e}")));
            return;
        }
        self.start_copy(s, 0, Link::Hbm, len, self.chip.timing.dma_setup_ns)
    }

    /// Checks one end of a copy: live device memory, or inside the host buffer.
    fn check_loc(&self, loc: &Loc, len: u64) -> Result<(), String> {
        match loc {
            Loc::Device(a) => self.mem.check(*a, len).map_err(|e| e.to_string()),
            Loc::Host { buf, offset } => {
                let buf_len = buf.lock().unwrap_or_else(|p| p.into_inner()).len();
                let fits = usize::try_from(len)
                    .ok()
                    .and_then(|l| offset.checked_add(l))
                    .is_some_and(|e| e <= buf_len);
                if fits {
                    Ok(())
                } else {
                    Err(format!(
                        "host buffer access [{offset}, +{len}) beyond its {buf_len} bytes"
                    ))
                }
            }
        }
    }

    /// The head task of `s` occupies engine `engine` for `setup` ns, then moves `bytes`.
    pub(super) fn start_copy(&mut self, s: u64, engine: usize, link: Link, bytes: u64, setup: u64) {
        let now = self.now;
        let st = self.streams.get_mut(&s).expect("stream");
        let dev = st.device as usize;
        st.head = Head::CopySetup {
            engine,
            since: now,
            link,
            bytes,
        };
        let gen = st.gen;
        self.pools[dev][engine].occupy(now);
        self.schedule(now.saturating_add(setup), Ev::SetupDone { s, gen });
    }

    pub(super) fn on_setup_done(&mut self, s: u64) {
        let now = self.now;
        let id = self.streams[&s].queue.front().expect("a head task").id;
        let st = self.streams.get_mut(&s).expect("stream");
        let Head::CopySetup {
            engine,
            since,
            link,
            bytes,
        } = st.head
        else {
            return;
        };
        st.head = Head::Copying {
            engine,
            since,
            moving_since: now,
        };
        let dev = st.device;
        self.pools[dev as usize][engine].start(now, id, link, bytes);
        self.copy_owner.insert(id, s);
        self.reschedule_pool(dev, engine);
    }

    /// Schedules the next finish of a pool under its current generation.
    fn reschedule_pool(&mut self, dev: u32, engine: usize) {
        let pool = &self.pools[dev as usize][engine];
        if let Some(t) = pool.next_finish() {
            let gen = pool.gen;
            self.schedule(t, Ev::PoolNext { dev, engine, gen });
        }
    }

    pub(super) fn pool_next(&mut self, dev: u32, engine: usize) {
        let now = self.now;
        // At the horizon time stands still: every job in flight is finished.
        let all = now >= crate::engine::HORIZON_NS;
        let done = self.pools[dev as usize][engine].take_finished(now, all);
        for id in done {
            if let Some(s) = self.copy_owner.remove(&id) {
                self.finish_copy(s);
            }
        }
        self.reschedule_pool(dev, engine);
    }

    /// A copy-engine job moved its bytes: apply its effect and complete it.
    fn finish_copy(&mut self, s: u64) {
        let (id, work, model, _) = self.head_work(s);
        let now = self.now;
        let by = Writer::Task {
            task: id,
            stream: s,
            at_ns: now,
        };
        let Work::User(kind) = work else { return };
        self.note_engine_job(s, id, &kind);
        let race = self.race_task_accesses(s, id, &kind);
        let result: Result<(), String> = match kind {
            Task::Memcpy { dst, src, len } => self.do_memcpy(&dst, &src, len, by),
            Task::Memset { addr, value, len } => self.do_memset(addr, value, len, by),
            Task::Reduce {
                dst,
                src,
                len,
                op,
                ty,
            } => self.do_reduce(dst, src, len, op, ty, by),
            cmo @ (Task::Cmo { .. } | Task::CmoWithBarrier { .. } | Task::CmoWithDesc { .. }) => {
                self.finish_cmo(s, id, model, cmo)
            }
            _ => Ok(()),
        };
        let result = result.and_then(|()| race.map_or(Ok(()), Err));
        self.complete(s, result.err().map(|e| format!("task {id}: {e}")));
    }

    /// Records the engine job of the head task of `s` (task `id`, of `kind`), ending now.
    fn note_engine_job(&mut self, s: u64, id: u64, kind: &Task) {
        let Some(st) = self.streams.get(&s) else {
            return;
        };
        let Head::Copying {
            engine,
            since,
            moving_since,
        } = st.head
        else {
            return;
        };
        let bytes = match kind {
            Task::Memcpy { len, .. } | Task::Memset { len, .. } | Task::Reduce { len, .. } => *len,
            Task::Cmo { len, .. } | Task::CmoWithBarrier { len, .. } => *len,
            _ => 0,
        };
        let device = st.device;
        let job = EngineJob {
            device,
            engine: self.pools[device as usize][engine].name.into(),
            task: id,
            stream: s,
            kind: task_name(kind).into(),
            start_ns: since,
            moving_ns: moving_since,
            end_ns: self.now,
            bytes,
        };
        let limit = self.config.max_timeline_entries;
        self.report.push_engine_job(job, limit);
    }

    /// A reduce-copy's effect: both operands are read and the destination written, through
    /// the copy engine's path to memory; the arithmetic is in [`crate::reduce`].
    fn do_reduce(
        &mut self,
        dst: u64,
        src: u64,
        len: u64,
        op: crate::types::ReduceOp,
        ty: crate::types::ReduceType,
        by: Writer,
    ) -> Result<(), String> {
        self.mem.check(src, len).map_err(|e| e.to_string())?;
        self.mem.check(dst, len).map_err(|e| e.to_string())?;
        let n = usize::try_from(len).map_err(|_| format!("a reduce of {len} bytes"))?;
        let (done, fault) = self.agent_access(
            L2Agent::CopyEngine,
            &[(src, len), (dst, len)],
            &[(dst, len)],
            by,
            |m| -> Result<(bool, bool), crate::types::SimError> {
                let (mut a, mut b) = (vec![0u8; n], vec![0u8; n]);
                let ra = m.read(dst, &mut a)?;
                let rb = m.read(src, &mut b)?;
                crate::reduce::reduce_into(op, ty, &mut a, &b);
                m.write(dst, &a, by)?;
                Ok((ra.never_written, rb.never_written))
            },
        );
        let (dst_unwritten, src_unwritten) = done.map_err(|e| e.to_string())?;
        self.on_mem_write(dst, len);
        if let Some(fault) = fault {
            return Err(fault);
        }
        for (addr, unwritten, what) in [
            (src, src_unwritten, "reduce source"),
            (dst, dst_unwritten, "reduce destination"),
        ] {
            if let Some(fault) = self.note_read(addr, len, unwritten, what) {
                return Err(fault);
            }
        }
        Ok(())
    }

    /// A memset's effect.
    fn do_memset(&mut self, addr: u64, value: u8, len: u64, by: Writer) -> Result<(), String> {
        self.mem.check(addr, len).map_err(|e| e.to_string())?;
        let (filled, fault) =
            self.agent_access(L2Agent::CopyEngine, &[], &[(addr, len)], by, |m| {
                m.fill(addr, value, len, by)
            });
        filled.map_err(|e| e.to_string())?;
        self.on_mem_write(addr, len);
        fault.map_or(Ok(()), Err)
    }

    /// A copy's effect. Every range is bounds-checked before any byte moves, and no temporary
    /// buffer is larger than what the host side of the copy already holds: device-to-device
    /// copies go page by page inside device memory.
    fn do_memcpy(&mut self, dst: &Loc, src: &Loc, len: u64, by: Writer) -> Result<(), String> {
        let host_range =
            |offset: usize, buf_len: usize| -> Result<std::ops::Range<usize>, String> {
                let end = usize::try_from(len)
                    .ok()
                    .and_then(|l| offset.checked_add(l))
                    .filter(|&e| e <= buf_len)
                    .ok_or_else(|| {
                        format!("host buffer access [{offset}, +{len}) beyond its {buf_len} bytes")
                    })?;
                Ok(offset..end)
            };
        match (src, dst) {
            (Loc::Device(s), Loc::Device(d)) => {
                self.mem.check(*s, len).map_err(|e| e.to_string())?;
                self.mem.check(*d, len).map_err(|e| e.to_string())?;
                let (copied, fault) =
                    self.agent_access(L2Agent::CopyEngine, &[(*s, len)], &[(*d, len)], by, |m| {
                        m.copy(*d, *s, len, by)
                    });
                let info = copied.map_err(|e| e.to_string())?;
                self.on_mem_write(*d, len);
                if let Some(fault) = fault {
                    return Err(fault);
                }
                if let Some(fault) = self.note_read(*s, len, info.never_written, "memcpy source") {
                    return Err(fault);
                }
            }
            (Loc::Device(s), Loc::Host { buf, offset }) => {
                self.mem.check(*s, len).map_err(|e| e.to_string())?;
                let mut b = buf.lock().unwrap_or_else(|p| p.into_inner());
                let r = host_range(*offset, b.len())?;
                let (read, fault) =
                    self.agent_access(L2Agent::CopyEngine, &[(*s, len)], &[], by, |m| {
                        m.read(*s, &mut b[r])
                    });
                drop(b);
                let info = read.map_err(|e| e.to_string())?;
                if let Some(fault) = fault {
                    return Err(fault);
                }
                if let Some(fault) = self.note_read(*s, len, info.never_written, "memcpy source") {
                    return Err(fault);
                }
            }
            (Loc::Host { buf, offset }, Loc::Device(d)) => {
                self.mem.check(*d, len).map_err(|e| e.to_string())?;
                let data = {
                    let b = buf.lock().unwrap_or_else(|p| p.into_inner());
                    b[host_range(*offset, b.len())?].to_vec()
                };
                let (written, fault) =
                    self.agent_access(L2Agent::CopyEngine, &[], &[(*d, len)], by, |m| {
                        m.write(*d, &data, by)
                    });
                written.map_err(|e| e.to_string())?;
                self.on_mem_write(*d, len);
                if let Some(fault) = fault {
                    return Err(fault);
                }
            }
            (
                Loc::Host {
                    buf: sb,
                    offset: so,
                },
                Loc::Host {
                    buf: db,
                    offset: doff,
                },
            ) => {
                let data = {
                    let b = sb.lock().unwrap_or_else(|p| p.into_inner());
                    b[host_range(*so, b.len())?].to_vec()
                };
                let mut b = db.lock().unwrap_or_else(|p| p.into_inner());
                let r = host_range(*doff, b.len())?;
                b[r].copy_from_slice(&data);
            }
        }
        Ok(())
    }

    /// Stream `st` goes (force destroy): cancel its head's copy-engine job, if it has one.
    pub(crate) fn cancel_copy(&mut self, st: &Stream) {
        let now = self.now;
        if let Some(t) = st.queue.front() {
            self.desc_blocks.remove(&t.id);
        }
        match st.head {
            Head::Copying { engine, .. } => {
                if let Some(t) = st.queue.front() {
                    self.pools[st.device as usize][engine].cancel(now, t.id);
                    self.copy_owner.remove(&t.id);
                    self.reschedule_pool(st.device, engine);
                }
            }
            Head::CopySetup { engine, .. } => {
                self.pools[st.device as usize][engine].cancel_setup(now)
            }
            _ => {}
        }
    }
}
