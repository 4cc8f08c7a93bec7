//! Task execution: what each task kind does when the scheduler dispatches it, how long it
//! takes, and what its completion changes (memory, events, barrier counters, instances).

use crate::compare;
use crate::copy::Link;
use crate::engine::{Engine, Ev};
use crate::memory::Writer;
use crate::report::{Span, ValueWaitRecord};
use crate::stream::{work_name, Head, WaitState, Work};
use crate::types::{CmoType, Loc, SimError, Task};
use crate::value_wait::PassClock;

/// Descriptor field offsets: (len_inner u32, num_outer u16, num_inner u16, src u64).
fn desc_layout(size: u32) -> (u64, u64, u64, u64) {
    if size >= 64 {
        (48, 28, 30, 32)
    } else {
        (12, 8, 10, 16)
    }
}

impl Engine {
    /// Dispatches one event.
    pub(crate) fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::PoolNext { dev, engine, gen } => {
                if self.pools[dev as usize][engine].gen == gen {
                    self.pool_next(dev, engine);
                }
            }
            Ev::Dispatched { s, gen } => {
                if self.head_is(s, gen, |h| matches!(h, Head::Dispatching)) {
                    self.on_dispatched(s);
                }
            }
            Ev::Complete { s, gen } => {
                if self.head_is(s, gen, |h| matches!(h, Head::Running)) {
                    self.on_complete(s);
                }
            }
            Ev::Poll { s, gen, check } => {
                if self.head_is(
                    s,
                    gen,
                    |h| matches!(h, Head::Wait(w) if w.check_gen == check),
                ) {
                    self.on_poll(s);
                }
            }
            Ev::NotifyTimeout { s, gen, task } => {
                let waiting = self.head_is(s, gen, |h| matches!(h, Head::WaitNotify))
                    && self.streams[&s].queue.front().is_some_and(|t| t.id == task);
                if waiting {
                    self.on_notify_timeout(s);
                }
            }
            Ev::SetupDone { s, gen } => {
                if self.head_is(s, gen, |h| matches!(h, Head::CopySetup { .. })) {
                    self.on_setup_done(s);
                }
            }
        }
    }

    fn head_is(&self, s: u64, gen: u64, f: impl Fn(&Head) -> bool) -> bool {
        self.streams
            .get(&s)
            .is_some_and(|st| st.gen == gen && f(&st.head))
    }

    fn gen(&self, s: u64) -> u64 {
        self.streams[&s].gen
    }

    fn head_work(&self, s: u64) -> (u64, Work, Option<u64>, Option<u64>) {
        let t = self.streams[&s].queue.front().expect("a head task");
        (t.id, t.work.clone(), t.model, t.event_seq)
    }

    /// The head task of `s` goes to the scheduler.
    pub(crate) fn start_head(&mut self, s: u64) {
        let d = self.chip.timing.sqe_dispatch_ns;
        let now = self.now;
        let st = self.streams.get_mut(&s).expect("stream");
        let dev = st.device as usize;
        st.head = Head::Dispatching;
        let start = now.max(self.sched_free[dev]);
        st.head_start = start;
        let gen = st.gen;
        self.sched_free[dev] = start.saturating_add(d);
        self.sched_stats[dev].0 += 1;
        self.sched_stats[dev].1 = self.sched_stats[dev].1.saturating_add(d);
        tracing::trace!(stream = s, at_ns = start, "dispatch");
        self.schedule(start.saturating_add(d), Ev::Dispatched { s, gen });
    }

    fn run_for(&mut self, s: u64, ns: u64) {
        let gen = self.gen(s);
        self.streams.get_mut(&s).expect("stream").head = Head::Running;
        let at = self.now.saturating_add(ns);
        self.schedule(at, Ev::Complete { s, gen });
    }

    fn on_dispatched(&mut self, s: u64) {
        let (id, work, model, event_seq) = self.head_work(s);
        let t = self.chip.timing;
        let kind = match work {
            Work::ModelRun(m) => {
                let i = self.spawn_instance(m.0, Some(s));
                if self.instances.get(&i).is_some_and(|x| x.remaining == 0) {
                    self.instances.remove(&i);
                    self.run_for(s, 0);
                } else if self.streams.contains_key(&s) {
                    self.streams.get_mut(&s).expect("stream").head = Head::WaitModel(i);
                }
                return;
            }
            Work::User(k) => k,
        };
        match kind {
            Task::ValueWrite { .. } => self.run_for(s, t.value_write_ns),
            Task::EventRecord(_) => self.run_for(s, t.event_ns),
            Task::EventReset(_) => self.run_for(s, 0),
            Task::NotifyRecord(_) => self.run_for(s, t.event_ns),
            Task::NotifyWait { notify, timeout_ms } => {
                self.dispatch_notify_wait(s, id, notify.0, timeout_ms)
            }
            Task::EventWait(e) => {
                let ready = match (event_seq, self.events.get(&e.0)) {
                    (Some(seq), Some(ev)) => ev.done(seq),
                    _ => true,
                };
                if ready {
                    self.run_for(s, t.event_ns);
                } else {
                    self.streams.get_mut(&s).expect("stream").head = Head::WaitEvent;
                    self.event_waiters.entry(e.0).or_default().insert(s);
                }
            }
            Task::ValueWait { addr, .. } => {
                let clock = PassClock {
                    t0: self.now,
                    dispatch_ns: t.sqe_dispatch_ns,
                    read_ns: t.poll_read_ns,
                    reads: t.poll_reads_per_pass,
                };
                let first = clock.first_read().at_ns;
                let gen = self.gen(s);
                self.streams.get_mut(&s).expect("stream").head = Head::Wait(WaitState {
                    clock,
                    addr,
                    check_gen: 1,
                    next_check: Some(first),
                    warned_never_written: false,
                });
                self.watchers.entry(addr & !7).or_default().insert(s);
                self.schedule(first, Ev::Poll { s, gen, check: 1 });
            }
            Task::CmoWaitBarrier { barrier_ids } => {
                if self.barriers_clear(model, &barrier_ids) {
                    self.run_for(s, 0);
                } else {
                    self.streams.get_mut(&s).expect("stream").head = Head::WaitBarrier;
                    self.barrier_waiters.insert(s);
                }
            }
            // Transfers check their ranges when dispatched (and again when they finish, in
            // case memory was freed meanwhile): a bad range faults at once, so no transfer is
            // ever sized by a length that no memory backs.
            Task::Memcpy { dst, src, len } => {
                if let Err(e) = self
                    .check_loc(&src, len)
                    .and_then(|()| self.check_loc(&dst, len))
                {
                    self.complete(s, Some(format!("task {id}: {e}")));
                    return;
                }
                let link = match (&src, &dst) {
                    (Loc::Device(_), Loc::Device(_)) => Link::Hbm,
                    (Loc::Device(_), Loc::Host { .. }) => Link::D2h,
                    _ => Link::H2d,
                };
                self.start_copy(s, 0, link, len, t.dma_setup_ns);
            }
            Task::Memset { addr, len, .. } => {
                if let Err(e) = self.mem.check(addr, len) {
                    self.complete(s, Some(format!("task {id}: {e}")));
                    return;
                }
                self.start_copy(s, 0, Link::Hbm, len, t.dma_setup_ns)
            }
            Task::Cmo { op, addr, len } => {
                if let Err(e) = self.mem.check(addr, len) {
                    self.complete(s, Some(format!("task {id}: {e}")));
                    return;
                }
                let (engine, link) = self.cmo_route(op);
                self.start_copy(s, engine, link, len, t.dma_setup_ns);
            }
            Task::CmoWithBarrier {
                op,
                addr,
                len,
                barrier_id,
            } => {
                if let Err(e) = self.mem.check(addr, len) {
                    self.complete(s, Some(format!("task {id}: {e}")));
                    return;
                }
                if op == CmoType::Invalid {
                    *self.barriers.entry((model, barrier_id)).or_default() += 1;
                }
                let (engine, link) = self.cmo_route(op);
                self.start_copy(s, engine, link, len, t.dma_setup_ns);
            }
            Task::CmoWithDesc { desc, op } => match self.read_desc(desc) {
                Ok((addr, len)) => match self.mem.check(addr, len) {
                    Ok(()) => {
                        let (engine, link) = self.cmo_route(op);
                        let setup = t.dma_setup_ns + t.hbm_latency_ns;
                        self.start_copy(s, engine, link, len, setup);
                    }
                    Err(e) => self.complete(s, Some(format!("task {id}: {e}"))),
                },
                Err(e) => {
                    let msg = format!("task {id}: CMO descriptor read: {e}");
                    self.complete(s, Some(msg));
                }
            },
        }
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

    fn cmo_route(&self, op: CmoType) -> (usize, Link) {
        let engine = match op {
            CmoType::Prefetch | CmoType::Writeback if self.has_cmo_engine() => 1,
            _ => 0,
        };
        let link = if op == CmoType::Invalid {
            Link::L2
        } else {
            Link::Hbm
        };
        (engine, link)
    }

    /// Reads a CMO descriptor: the source address and the total bytes it covers.
    fn read_desc(&mut self, desc: u64) -> Result<(u64, u64), SimError> {
        let size = self.chip.cmo.desc_size.max(32);
        let mut buf = vec![0u8; size as usize];
        let info = self.mem.read(desc, &mut buf)?;
        self.note_read(desc, size as u64, info.never_written, "CMO descriptor read");
        let (li, no, ni, src) = desc_layout(size);
        let u16_at = |o: u64| u16::from_le_bytes([buf[o as usize], buf[o as usize + 1]]) as u64;
        let len_inner =
            u32::from_le_bytes(buf[li as usize..li as usize + 4].try_into().expect("4")) as u64;
        let src = u64::from_le_bytes(buf[src as usize..src as usize + 8].try_into().expect("8"));
        Ok((src, len_inner * u16_at(no).max(1) * u16_at(ni).max(1)))
    }

    fn start_copy(&mut self, s: u64, engine: usize, link: Link, bytes: u64, setup: u64) {
        let now = self.now;
        let st = self.streams.get_mut(&s).expect("stream");
        let dev = st.device as usize;
        st.head = Head::CopySetup {
            engine,
            link,
            bytes,
        };
        let gen = st.gen;
        self.pools[dev][engine].occupy(now);
        self.schedule(now.saturating_add(setup), Ev::SetupDone { s, gen });
    }

    fn on_setup_done(&mut self, s: u64) {
        let now = self.now;
        let (id, ..) = self.head_work(s);
        let st = self.streams.get_mut(&s).expect("stream");
        let Head::CopySetup {
            engine,
            link,
            bytes,
        } = st.head
        else {
            return;
        };
        st.head = Head::Copying { engine };
        let dev = st.device;
        self.pools[dev as usize][engine].start(now, id, link, bytes);
        self.copy_owner.insert(id, s);
        self.reschedule_pool(dev, engine);
    }

    /// Schedules the next finish of a pool under its current generation.
    pub(crate) fn reschedule_pool(&mut self, dev: u32, engine: usize) {
        let pool = &self.pools[dev as usize][engine];
        if let Some(t) = pool.next_finish() {
            let gen = pool.gen;
            self.schedule(t, Ev::PoolNext { dev, engine, gen });
        }
    }

    fn pool_next(&mut self, dev: u32, engine: usize) {
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
        let dev = self.streams[&s].device;
        let result: Result<(), String> = match kind {
            Task::Memcpy { dst, src, len } => self.do_memcpy(&dst, &src, len, by),
            Task::Memset { addr, value, len } => {
                let r = self.mem.fill(addr, value, len, by);
                if r.is_ok() {
                    self.cache.on_write(addr, len, now);
                    self.on_mem_write(addr, len);
                }
                r.map_err(|e| e.to_string())
            }
            Task::Cmo { op, addr, len } | Task::CmoWithBarrier { op, addr, len, .. } => {
                if let Task::CmoWithBarrier {
                    op: CmoType::Invalid,
                    barrier_id,
                    ..
                } = kind
                {
                    self.barrier_done(model, barrier_id);
                }
                self.cmo_effect(dev, op, addr, len)
            }
            Task::CmoWithDesc { desc, op } => match self.read_desc(desc) {
                Ok((addr, len)) => self.cmo_effect(dev, op, addr, len),
                Err(e) => Err(e.to_string()),
            },
            _ => Ok(()),
        };
        self.complete(s, result.err().map(|e| format!("task {id}: {e}")));
    }

    fn cmo_effect(&mut self, dev: u32, op: CmoType, addr: u64, len: u64) -> Result<(), String> {
        self.mem.check(addr, len).map_err(|e| e.to_string())?;
        let now = self.now;
        self.cache.on_cmo(dev, op, addr, len, now);
        Ok(())
    }

    /// A copy's effect. Every range is bounds-checked before any byte moves, and no temporary
    /// buffer is larger than what the host side of the copy already holds: device-to-device
    /// copies go page by page inside device memory.
    fn do_memcpy(&mut self, dst: &Loc, src: &Loc, len: u64, by: Writer) -> Result<(), String> {
        let now = self.now;
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
                let info = self.mem.copy(*d, *s, len, by).map_err(|e| e.to_string())?;
                self.note_read(*s, len, info.never_written, "memcpy source");
                self.cache.on_read(*s, len, now);
                self.cache.on_write(*d, len, now);
                self.on_mem_write(*d, len);
            }
            (Loc::Device(s), Loc::Host { buf, offset }) => {
                self.mem.check(*s, len).map_err(|e| e.to_string())?;
                let mut b = buf.lock().unwrap_or_else(|p| p.into_inner());
                let r = host_range(*offset, b.len())?;
                let info = self.mem.read(*s, &mut b[r]).map_err(|e| e.to_string())?;
                drop(b);
                self.note_read(*s, len, info.never_written, "memcpy source");
                self.cache.on_read(*s, len, now);
            }
            (Loc::Host { buf, offset }, Loc::Device(d)) => {
                self.mem.check(*d, len).map_err(|e| e.to_string())?;
                let data = {
                    let b = buf.lock().unwrap_or_else(|p| p.into_inner());
                    b[host_range(*offset, b.len())?].to_vec()
                };
                self.mem.write(*d, &data, by).map_err(|e| e.to_string())?;
                self.cache.on_write(*d, len, now);
                self.on_mem_write(*d, len);
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

    fn on_complete(&mut self, s: u64) {
        let (id, work, _, event_seq) = self.head_work(s);
        let now = self.now;
        let mut fault = None;
        if let Work::User(kind) = work {
            match kind {
                Task::ValueWrite { addr, value } => {
                    let by = Writer::Task {
                        task: id,
                        stream: s,
                        at_ns: now,
                    };
                    match self.mem.write(addr, &value.to_le_bytes(), by) {
                        Ok(()) => {
                            self.cache.on_write(addr, 8, now);
                            self.on_mem_write(addr, 8);
                        }
                        Err(e) => fault = Some(format!("task {id}: value write: {e}")),
                    }
                }
                Task::EventRecord(e) => {
                    if let Some(seq) = event_seq {
                        self.record_done(e.0, seq, Some(now));
                    }
                }
                Task::EventReset(e) => {
                    if let Some(ev) = self.events.get_mut(&e.0) {
                        ev.executed = None;
                    }
                }
                Task::NotifyRecord(n) => self.notify_set(n.0),
                _ => {}
            }
        }
        self.complete(s, fault);
    }

    /// Record `seq` of event `e` executed at `at` (or was dropped, `None`): wake its waiters.
    pub(crate) fn record_done(&mut self, e: u64, seq: u64, at: Option<u64>) {
        let Some(ev) = self.events.get_mut(&e) else {
            return;
        };
        ev.pending.remove(&seq);
        if let Some(t) = at {
            if ev.executed.is_none_or(|(x, _)| x <= seq) {
                ev.executed = Some((seq, t));
            }
        }
        let waiters: Vec<u64> = self
            .event_waiters
            .get(&e)
            .map(|w| w.iter().copied().collect())
            .unwrap_or_default();
        let event_ns = self.chip.timing.event_ns;
        for s in waiters {
            let ready = self.streams.get(&s).is_some_and(|st| {
                matches!(st.head, Head::WaitEvent)
                    && st
                        .queue
                        .front()
                        .and_then(|t| t.event_seq)
                        .is_none_or(|q| self.events[&e].done(q))
            });
            if ready {
                if let Some(w) = self.event_waiters.get_mut(&e) {
                    w.remove(&s);
                }
                self.run_for(s, event_ns);
            }
        }
        if self.event_waiters.get(&e).is_some_and(|w| w.is_empty()) {
            self.event_waiters.remove(&e);
        }
        // A destroyed event goes once its last pending record is settled.
        if self
            .events
            .get(&e)
            .is_some_and(|ev| ev.destroyed && ev.pending.is_empty())
        {
            self.events.remove(&e);
        }
    }

    /// A notify wait reaches the scheduler: consume a set notify at once, or block (with the
    /// wait's own timeout scheduled, if it has one).
    fn dispatch_notify_wait(&mut self, s: u64, task: u64, n: u64, timeout_ms: Option<u64>) {
        let event_ns = self.chip.timing.event_ns;
        if let Some(x) = self.notifies.get_mut(&n).filter(|x| x.set) {
            x.set = false;
            self.run_for(s, event_ns);
            return;
        }
        let gen = self.gen(s);
        self.streams.get_mut(&s).expect("stream").head = Head::WaitNotify;
        self.notify_waiters.entry(n).or_default().insert(s);
        // A timeout ending beyond the simulator's horizon is no timeout.
        if let Some(at) = timeout_ms.and_then(|ms| crate::engine::deadline_after(self.now, ms)) {
            self.schedule(at, Ev::NotifyTimeout { s, gen, task });
        }
    }

    /// A notify record executed: set the notify and release one waiter (the lowest stream
    /// number), which consumes it.
    fn notify_set(&mut self, n: u64) {
        let Some(x) = self.notifies.get_mut(&n) else {
            return;
        };
        x.set = true;
        let waiter = self
            .notify_waiters
            .get(&n)
            .and_then(|w| w.iter().next().copied());
        if let Some(s) = waiter {
            if let Some(w) = self.notify_waiters.get_mut(&n) {
                w.remove(&s);
                if w.is_empty() {
                    self.notify_waiters.remove(&n);
                }
            }
            if let Some(x) = self.notifies.get_mut(&n) {
                x.set = false;
            }
            let event_ns = self.chip.timing.event_ns;
            self.run_for(s, event_ns);
        }
    }

    /// A blocked notify wait's timeout expired: the task completes with a timeout fault.
    fn on_notify_timeout(&mut self, s: u64) {
        let (id, work, ..) = self.head_work(s);
        let Work::User(Task::NotifyWait { notify, timeout_ms }) = work else {
            return;
        };
        if let Some(w) = self.notify_waiters.get_mut(&notify.0) {
            w.remove(&s);
            if w.is_empty() {
                self.notify_waiters.remove(&notify.0);
            }
        }
        let msg = format!(
            "task {id}: notify wait on notify {} timed out after {} ms",
            notify.0,
            timeout_ms.unwrap_or(0)
        );
        self.complete_with(s, Some(msg), true);
    }

    fn barriers_clear(&self, model: Option<u64>, ids: &[u32]) -> bool {
        ids.iter()
            .all(|&id| self.barriers.get(&(model, id)).copied().unwrap_or(0) == 0)
    }

    /// An INVALID CMO carrying `id` completed: decrement and release barrier waits.
    pub(crate) fn barrier_done(&mut self, model: Option<u64>, id: u32) {
        if let Some(c) = self.barriers.get_mut(&(model, id)) {
            *c = c.saturating_sub(1);
            if *c == 0 {
                self.barriers.remove(&(model, id));
            }
        }
        let waiters: Vec<u64> = self.barrier_waiters.iter().copied().collect();
        for s in waiters {
            let Some(st) = self.streams.get(&s) else {
                continue;
            };
            let Some(t) = st.queue.front() else { continue };
            if let Work::User(Task::CmoWaitBarrier { barrier_ids }) = &t.work {
                if self.barriers_clear(t.model, barrier_ids) {
                    self.barrier_waiters.remove(&s);
                    self.run_for(s, 0);
                }
            }
        }
    }

    /// A task of instance `i` completed (or was dropped).
    pub(crate) fn instance_task_done(&mut self, i: u64) {
        let Some(inst) = self.instances.get_mut(&i) else {
            return;
        };
        inst.remaining = inst.remaining.saturating_sub(1);
        if inst.remaining == 0 {
            if inst.abandoned {
                self.instances.remove(&i);
            } else if let Some(rs) = inst.run_stream {
                let fault = self.instances.remove(&i).and_then(|x| x.fault);
                // The run's fault belongs to the stream it ran on: its synchronize reports it.
                if let (Some((f, timeout)), Some(st)) = (fault, self.streams.get_mut(&rs)) {
                    if st.fault.is_none() {
                        st.fault = Some(f);
                        st.fault_is_timeout = timeout;
                    }
                }
                let waiting = self
                    .streams
                    .get(&rs)
                    .is_some_and(|st| matches!(st.head, Head::WaitModel(x) if x == i));
                if waiting {
                    self.run_for(rs, 0);
                }
            }
        }
    }

    // ----- value waits -----

    fn on_poll(&mut self, s: u64) {
        let (id, work, ..) = self.head_work(s);
        let Work::User(Task::ValueWait { addr, value, mode }) = work else {
            return;
        };
        let geq = self.config.geq;
        match self.mem.read_u64(addr) {
            Err(e) => {
                self.unwatch(addr, s);
                self.complete(s, Some(format!("task {id}: value wait poll read: {e}")));
            }
            Ok((m, info)) => {
                let Some(Head::Wait(w)) = self.streams.get_mut(&s).map(|st| &mut st.head) else {
                    return;
                };
                let first_warning = info.never_written && !w.warned_never_written;
                w.warned_never_written |= info.never_written;
                let clock = w.clock;
                if first_warning {
                    self.note_read(addr, 8, true, &format!("value wait task {id} poll"));
                }
                if compare::satisfied(mode, geq, m, value) {
                    let passes = clock.next_read_at_or_after(self.now).pass + 1;
                    let start = self.streams[&s].head_start;
                    let keep = self.report.value_waits.len() < self.config.max_timeline_entries;
                    let record = ValueWaitRecord {
                        task: id,
                        stream: s,
                        addr,
                        mode: compare::mode_name(mode).to_string(),
                        value,
                        start_ns: start,
                        end_ns: self.now,
                        duration_ns: self.now - start,
                        passes,
                    };
                    if keep {
                        self.report.value_waits.push(record);
                    }
                    self.unwatch(addr, s);
                    self.complete(s, None);
                } else if let Some(Head::Wait(w)) = self.streams.get_mut(&s).map(|st| &mut st.head)
                {
                    w.next_check = None; // parked until a write to the word
                }
            }
        }
    }

    pub(crate) fn unwatch(&mut self, addr: u64, s: u64) {
        let key = addr & !7;
        if let Some(set) = self.watchers.get_mut(&key) {
            set.remove(&s);
            if set.is_empty() {
                self.watchers.remove(&key);
            }
        }
    }

    /// Device memory `[addr, addr+len)` changed now: schedule the next poll read of every
    /// value wait watching a word in it.
    pub(crate) fn on_mem_write(&mut self, addr: u64, len: u64) {
        let lo = (addr & !7).saturating_sub(8);
        let hits: Vec<u64> = self
            .watchers
            .range(lo..addr.saturating_add(len))
            .filter(|(&w, _)| w + 16 > addr) // an unaligned wait reads into the next word
            .flat_map(|(_, set)| set.iter().copied())
            .collect();
        let now = self.now;
        for s in hits {
            let Some(st) = self.streams.get_mut(&s) else {
                continue;
            };
            let gen = st.gen;
            if let Head::Wait(w) = &mut st.head {
                let next = w.clock.next_read_at_or_after(now).at_ns;
                if w.next_check.is_none_or(|c| c > next) {
                    w.check_gen += 1;
                    w.next_check = Some(next);
                    let check = w.check_gen;
                    self.schedule(next, Ev::Poll { s, gen, check });
                }
            }
        }
    }

    /// Counts a read of never-written memory.
    pub(crate) fn note_read(&mut self, addr: u64, len: u64, never_written: bool, what: &str) {
        if never_written {
            self.report.note_never_written(addr, len, self.now, what);
        }
    }

    // ----- completion -----

    /// The head task of `s` completes now, with an optional fault.
    pub(crate) fn complete(&mut self, s: u64, fault: Option<String>) {
        self.complete_with(s, fault, false);
    }

    /// The head task of `s` completes now, with an optional fault that is a task timeout when
    /// `timeout`. A fault of a model instance's task goes to the instance (reported where the
    /// run is synchronized); any other to the stream.
    pub(crate) fn complete_with(&mut self, s: u64, fault: Option<String>, timeout: bool) {
        let now = self.now;
        let limit = self.config.max_timeline_entries;
        let Some(st) = self.streams.get_mut(&s) else {
            return;
        };
        let Some(task) = st.queue.pop_front() else {
            return;
        };
        st.slots_used -= task.slots;
        st.tasks_done += 1;
        st.busy_ns = st.busy_ns.saturating_add(now.saturating_sub(st.head_start));
        st.end_ns = now;
        st.head = Head::Idle;
        if let Some(f) = &fault {
            tracing::warn!(stream = s, task = task.id, "task fault: {f}");
            let inst = task.instance.and_then(|i| self.instances.get_mut(&i));
            match inst {
                Some(inst) => {
                    inst.fault.get_or_insert_with(|| (f.clone(), timeout));
                }
                None => {
                    if st.fault.is_none() {
                        st.fault = Some(f.clone());
                        st.fault_is_timeout = timeout;
                    }
                }
            }
            self.report.push_fault(f.clone(), limit);
        }
        let span = Span {
            task: task.id,
            stream: s,
            kind: work_name(&task.work).to_string(),
            submit_ns: task.submit_ns,
            start_ns: st.head_start,
            end_ns: now,
            fault: fault.is_some(),
        };
        tracing::trace!(
            stream = s,
            task = task.id,
            kind = span.kind,
            start_ns = span.start_ns,
            end_ns = now,
            "task complete"
        );
        let more = !st.queue.is_empty();
        self.report.push_span(span, limit);
        self.progress += 1;
        if more {
            self.start_head(s);
        }
        if let Some(i) = task.instance {
            self.instance_task_done(i);
        }
    }
}
