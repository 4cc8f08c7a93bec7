//! Where the engine meets the race detector: each data access checked, and the words of a
//! race report (both accesses, and the edge that would order them).

use super::shadow::{Access, Accessor, Conflict};
use super::{AgentKey, SyncAccess, SyncConflict};
use crate::engine::Engine;
use crate::types::HazardKind;

impl Engine {
    /// A data access of `[addr, addr+len)` by `who` (a write or a read), checked against the
    /// accesses it is not ordered with; each race is a `data_race` hazard. Returns the fault
    /// of a hazard whose setting is `fail`.
    pub(crate) fn race_access(
        &mut self,
        who: Accessor,
        write: bool,
        addr: u64,
        len: u64,
    ) -> Option<String> {
        if !self.races.on || len == 0 {
            return None;
        }
        if write
            && len <= 8
            && !matches!(who, Accessor::Host { .. })
            && self.mem.device_of(addr).is_some()
        {
            // A small write may raise a flag: it releases as a synchronisation write does.
            let key = agent_of(&who);
            self.races.small_data_write(key, who.clone(), addr, len);
        }
        self.race_data_access(who, write, addr, len, true)
    }

    /// [`Engine::race_access`] without the release of a small write (a kernel's scalar store,
    /// which releases as a synchronisation write already); with `report` false, recorded
    /// without reporting its races (said already as a synchronisation race).
    fn race_data_access(
        &mut self,
        who: Accessor,
        write: bool,
        addr: u64,
        len: u64,
        report: bool,
    ) -> Option<String> {
        if !self.races.on || len == 0 {
            return None;
        }
        let key = agent_of(&who);
        let at_ns = self.race_time(key);
        let hi = addr.saturating_add(len);
        let later_who = who.clone();
        let conflicts = self.races.access(key, |epoch| Access {
            epoch,
            who,
            write,
            lo: addr,
            hi,
            at_ns,
        });
        if conflicts.is_empty() || !report {
            return None;
        }
        // Described from what it was given (its epoch plays no part in the words).
        let later = Access {
            epoch: conflicts[0].prior.epoch,
            who: later_who,
            write,
            lo: addr,
            hi,
            at_ns,
        };
        let mut fault = None;
        for c in conflicts {
            let f = self.report_race(&c, &later);
            fault = fault.or(f);
        }
        fault
    }

    /// A data access by the calling host thread's synchronous call `call`; a write of at
    /// most 8 bytes is also a write of a synchronisation word (a flag the host raises).
    pub(crate) fn race_host_access(
        &mut self,
        call: &'static str,
        write: bool,
        addr: u64,
        len: u64,
    ) -> Option<String> {
        if !self.races.on || crate::facade::is_untracked() {
            return None;
        }
        let thread = crate::facade::caller_key();
        let who = Accessor::Host { thread, call };
        let mut fault = None;
        if write && len <= 8 {
            fault = self.race_word_write(who.clone(), addr, len, None);
        }
        fault = fault.or(self.race_access(who, write, addr, len));
        if !write && len <= 8 {
            // A host polling a flag acquires what raised it.
            self.races.word_read(AgentKey::Host(thread), addr, len);
        }
        fault
    }

    /// A kernel's scalar store of `value`: a write of a synchronisation word (it may raise a
    /// flag) and of data (a copy or another block reading the bytes unordered races with
    /// it); two blocks storing one word unordered are said once, as a `sync_word_race`.
    pub(crate) fn race_store(
        &mut self,
        who: Accessor,
        addr: u64,
        len: u64,
        value: u64,
    ) -> Option<String> {
        if !self.races.on {
            return None;
        }
        let (fault, found) = self.race_word_write_found(who.clone(), addr, len, Some(value));
        let f = self.race_data_access(who, true, addr, len, !found);
        fault.or(f)
    }

    /// A write of a synchronisation word by `who` (a value write, a kernel's scalar store, a
    /// small host write): checked against the word's previous write and its latest EQ, AND or
    /// NOR observation (`sync_word_race`), then released to whoever reads the word next.
    pub(crate) fn race_word_write(
        &mut self,
        who: Accessor,
        addr: u64,
        len: u64,
        value: Option<u64>,
    ) -> Option<String> {
        self.race_word_write_found(who, addr, len, value).0
    }

    /// [`Engine::race_word_write`], and whether it found a race.
    fn race_word_write_found(
        &mut self,
        who: Accessor,
        addr: u64,
        len: u64,
        value: Option<u64>,
    ) -> (Option<String>, bool) {
        if !self.races.on {
            return (None, false);
        }
        let key = agent_of(&who);
        let at_ns = self.race_time(key);
        let acc = SyncAccess {
            who,
            addr,
            len,
            value,
            mode: None,
            at_ns,
        };
        let conflicts = self.races.word_written(key, acc.clone());
        let found = !conflicts.is_empty();
        let mut fault = None;
        for c in conflicts {
            let detail = match &c {
                SyncConflict::TwoWriters { prior } => format!(
                    "{} and {} both wrote the synchronisation word {:#x}, and neither write \
                     is ordered before the other: which value a wait sees depends on the \
                     timing; {}",
                    describe_sync(prior),
                    describe_sync(&acc),
                    addr & !7,
                    missing_edge(&prior.who, &acc.who),
                ),
                SyncConflict::Overwritten { wait } => format!(
                    "{} after {} observed it, and nothing orders the write after that \
                     observation: in another timing the write lands first, the value the wait \
                     needs is gone and the wait waits on; {}",
                    describe_sync(&acc),
                    describe_sync(wait),
                    missing_edge(&wait.who, &acc.who),
                ),
            };
            let device = self.mem.device_of(addr).unwrap_or(0);
            let f = self.hazard(HazardKind::SyncWordRace, device, addr & !7, 8, detail);
            fault = fault.or(f);
        }
        (fault, found)
    }

    /// The value wait task `task` of stream `s` passed on the word at `addr`, comparing with
    /// `value` by `mode`: it acquires the word's latest write, and an EQ, AND or NOR wait's
    /// observation is kept for the next write to be checked against.
    pub(crate) fn race_wait_passed(
        &mut self,
        s: u64,
        task: u64,
        addr: u64,
        value: u64,
        mode: crate::types::WaitMode,
    ) {
        if !self.races.on {
            return;
        }
        self.races.word_read(AgentKey::Stream(s), addr, 8);
        let acc = SyncAccess {
            who: Accessor::Task {
                task,
                stream: s,
                kind: "ValueWait",
            },
            addr,
            len: 8,
            value: Some(value),
            mode: Some(mode),
            at_ns: self.now,
        };
        self.races.wait_observed(s, acc);
    }

    /// When an access by `key` happens: the host's time for a host thread, the device's for a
    /// stream.
    fn race_time(&self, key: AgentKey) -> u64 {
        match key {
            AgentKey::Host(_) => self.host_time(),
            AgentKey::Stream(_) | AgentKey::Block { .. } => self.now,
        }
    }

    /// The calling host thread observed that stream `s` has done all it was given.
    pub(crate) fn race_host_saw_stream(&mut self, s: u64) {
        if self.races.on {
            self.races.host_saw_stream(crate::facade::caller_key(), s);
        }
    }

    /// The address of a copy's end: a device address, or a host buffer's own (host memory is
    /// named by its heap address, which never lies in the device window). A host buffer seen
    /// at an address another buffer had (the first one dropped, the allocator reusing its
    /// memory) starts with no history.
    fn race_loc_address(&mut self, loc: &crate::types::Loc) -> u64 {
        match loc {
            crate::types::Loc::Device(a) => *a,
            crate::types::Loc::Host { buf, offset } => {
                let (base, len) = {
                    let b = buf.lock().unwrap_or_else(|p| p.into_inner());
                    (b.as_ptr() as u64, b.len() as u64)
                };
                self.races.host_buffer_seen(base, len, buf);
                base + *offset as u64
            }
        }
    }

    /// The block on `core` of device `dev`, as an accessor.
    pub(crate) fn kernel_accessor(&self, dev: usize, core: usize) -> Accessor {
        match self.core_writer(dev, core) {
            crate::memory::Writer::Core {
                task,
                stream,
                block,
                core,
                ..
            } => Accessor::Kernel {
                task,
                stream,
                block,
                core,
            },
            _ => Accessor::Kernel {
                task: 0,
                stream: 0,
                block: 0,
                core: core as u32,
            },
        }
    }

    /// The agent of the block on `core`.
    pub(crate) fn kernel_agent(&self, dev: usize, core: usize) -> AgentKey {
        agent_of(&self.kernel_accessor(dev, core))
    }

    /// The data accesses of an engine task (task `id` on stream `s`) as it applies its effect:
    /// a copy reads its source and writes its destination (a host end at its buffer's own
    /// address), a fill writes, a reduce reads both operands and writes one; an INVALID
    /// discards what the cache held (a write), the other CMOs read.
    pub(crate) fn race_task_accesses(
        &mut self,
        s: u64,
        id: u64,
        kind: &crate::types::Task,
    ) -> Option<String> {
        use crate::types::{CmoType, Task};
        if !self.races.on {
            return None;
        }
        let name = match kind {
            Task::Cmo { op, .. }
            | Task::CmoWithBarrier { op, .. }
            | Task::CmoWithDesc { op, .. } => cmo_name(*op),
            _ => crate::stream::task_name(kind),
        };
        let (mut reads, mut writes) = (Vec::new(), Vec::new());
        match kind {
            Task::Memcpy { dst, src, len } => {
                reads.push((self.race_loc_address(src), *len));
                writes.push((self.race_loc_address(dst), *len));
            }
            Task::Memset { addr, len, .. } => writes.push((*addr, *len)),
            Task::Reduce { dst, src, len, .. } => {
                reads.push((*src, *len));
                writes.push((*dst, *len));
            }
            Task::Cmo { op, addr, len } | Task::CmoWithBarrier { op, addr, len, .. } => {
                let side = if *op == CmoType::Invalid {
                    &mut writes
                } else {
                    &mut reads
                };
                side.push((*addr, *len));
            }
            Task::CmoWithDesc { op, .. } => {
                let blocks = self.desc_blocks.get(&id).into_iter().flatten().copied();
                if *op == CmoType::Invalid {
                    writes.extend(blocks);
                } else {
                    reads.extend(blocks);
                }
            }
            _ => {}
        }
        self.race_ranges(s, id, name, &reads, &writes)
    }

    /// The data accesses of task `id` (of kind `kind`) on stream `s` that reads `reads` and
    /// writes `writes` (a random-number task, a label switch's index).
    pub(crate) fn race_ranges(
        &mut self,
        s: u64,
        id: u64,
        kind: &'static str,
        reads: &[(u64, u64)],
        writes: &[(u64, u64)],
    ) -> Option<String> {
        if !self.races.on {
            return None;
        }
        let who = Accessor::Task {
            task: id,
            stream: s,
            kind,
        };
        let mut fault = None;
        for (write, ranges) in [(false, reads), (true, writes)] {
            for &(addr, len) in ranges {
                let f = self.race_access(who.clone(), write, addr, len);
                fault = fault.or(f);
            }
        }
        fault
    }

    /// One race between `c.prior` and `later`, as a `data_race` hazard.
    fn report_race(&mut self, c: &Conflict, later: &Access) -> Option<String> {
        let bytes = c.hi - c.lo;
        let detail = format!(
            "{} and {} touch {bytes} bytes [{:#x}, {:#x}) in common, and neither is ordered \
             before the other: {}",
            describe(&c.prior),
            describe(later),
            c.lo,
            c.hi,
            missing_edge(&c.prior.who, &later.who),
        );
        let device = self.mem.device_of(c.lo).unwrap_or(0);
        self.hazard(HazardKind::DataRace, device, c.lo, bytes, detail)
    }
}

/// The agent an accessor acts as: its stream, its kernel block, or its host thread.
fn agent_of(who: &Accessor) -> AgentKey {
    match who {
        Accessor::Task { stream, .. } => AgentKey::Stream(*stream),
        Accessor::Kernel { stream, block, .. } => AgentKey::block(*stream, *block),
        Accessor::Host { thread, .. } => AgentKey::Host(*thread),
    }
}

/// "task 3 (Memcpy) on stream 1", "kernel task 4 on stream 2 (block 0, AI core 3)" or "host
/// thread 1": who an accessor is, in a report.
fn named(who: &Accessor) -> String {
    match who {
        Accessor::Task { task, stream, kind } => format!("task {task} ({kind}) on stream {stream}"),
        Accessor::Kernel {
            task,
            stream,
            block,
            core,
        } => format!("kernel task {task} on stream {stream} (block {block}, AI core {core})"),
        Accessor::Host { thread, .. } => crate::facade::host_thread_name(*thread),
    }
}

/// "task 3 (ValueWrite) on stream 1 wrote 2 to 0x… at 1200 ns", "task 5 (ValueWait) on
/// stream 2, an EQ wait for 1 on 0x…, passed at 900 ns".
fn describe_sync(a: &SyncAccess) -> String {
    let who = match &a.who {
        Accessor::Host { call, .. } => format!("{} (a {call})", named(&a.who)),
        other => named(other),
    };
    match (a.mode, a.value) {
        (Some(mode), Some(v)) => format!(
            "{who}, an {} wait for {v} on {:#x}, which passed at {} ns",
            crate::compare::mode_name(mode),
            a.addr,
            a.at_ns
        ),
        (_, Some(v)) => format!("{who} wrote {v} to {:#x} at {} ns", a.addr, a.at_ns),
        _ => format!("{who} wrote {:#x} at {} ns", a.addr, a.at_ns),
    }
}

/// A CMO task's name with its type.
fn cmo_name(op: crate::types::CmoType) -> &'static str {
    use crate::types::CmoType;
    match op {
        CmoType::Prefetch => "Cmo PREFETCH",
        CmoType::Writeback => "Cmo WRITEBACK",
        CmoType::Invalid => "Cmo INVALID",
        CmoType::Flush => "Cmo FLUSH",
    }
}

/// "task 3 (Memcpy) on stream 1 wrote [0x…, +4096) at 1200 ns".
fn describe(a: &Access) -> String {
    let verb = if a.write { "wrote" } else { "read" };
    let range = format!("[{:#x}, +{})", a.lo, a.hi - a.lo);
    let how = match &a.who {
        Accessor::Host { call, .. } => format!(" in a {call}"),
        _ => String::new(),
    };
    format!("{} {verb} {range}{how} at {} ns", named(&a.who), a.at_ns)
}

/// The task number and stream of a device-side accessor.
fn on_stream(w: &Accessor) -> Option<(u64, u64)> {
    match w {
        Accessor::Task { task, stream, .. } | Accessor::Kernel { task, stream, .. } => {
            Some((*task, *stream))
        }
        Accessor::Host { .. } => None,
    }
}

/// What would order `first` before `second`.
fn missing_edge(first: &Accessor, second: &Accessor) -> String {
    if let (
        Accessor::Kernel {
            task: t1,
            block: b1,
            ..
        },
        Accessor::Kernel {
            task: t2,
            block: b2,
            ..
        },
    ) = (first, second)
    {
        if t1 == t2 {
            return format!(
                "blocks {b1} and {b2} of one kernel run at once and in any order; give each \
                 block bytes of its own, or order them through a flag in global memory (one \
                 block stores it and writes it back with dcci, the other polls it with loads \
                 after dcci before touching the bytes)"
            );
        }
    }
    match (on_stream(first), on_stream(second)) {
        (Some((t1, s1)), Some((t2, s2))) if s1 == s2 => format!(
            "tasks {t1} and {t2} of stream {s1} ran in separate model runs or instances that \
             nothing orders; order the runs"
        ),
        (Some((t1, s1)), Some((t2, s2))) => format!(
            "record an event on stream {s1} after task {t1} and wait for it on stream {s2} \
             before task {t2} (aclrtRecordEvent, aclrtStreamWaitEvent)"
        ),
        (Some((t1, s1)), None) => format!(
            "synchronize stream {s1} (or an event recorded after task {t1}) before the host's \
             call (aclrtSynchronizeStream, aclrtSynchronizeEvent)"
        ),
        (None, Some((t2, s2))) => format!(
            "if task {t2} was meant to come first, synchronize stream {s2} (or an event \
             recorded after it) before the host's call; if the call was, make it before \
             submitting task {t2} (from the same host thread, or one the simulator sees \
             ordered with it through a stream, an event or a synchronize: it sees no \
             synchronisation between host threads outside the API)"
        ),
        (None, None) => "order the two host threads' calls (the simulator sees no \
                         synchronisation between host threads)"
            .to_string(),
    }
}
