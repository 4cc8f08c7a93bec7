//! State-machine property test of the raw API (`Runtime`) on the simulator against an
//! independent, untimed reference model (`proptest-state-machine`).
//!
//! The reference keeps its own memory map (a first-fit allocator over offsets, the words it
//! knows), its own handle sets and in-order per-stream queues. It executes tasks *eagerly*
//! (as soon as nothing blocks them), which is what a device that is fast relative to the host
//! does eventually; where the simulator's timing could make the outcome differ (a word written
//! by two streams without a synchronize between them, a wait whose release depends on when a
//! write lands), the reference marks the word unknown or the run *ambiguous*, and from then on
//! only the validation codes (which never depend on timing) are compared.
//!
//! After every step the return codes agree and, for a read step (a synchronous 8-byte
//! `aclrtMemcpy` device-to-host), the word agrees when the reference knows it. A synchronize
//! that can never return (a wait nobody satisfies) is predicted by the reference and ended by
//! the simulator's watchdog (`OnStall::Error`, 20 ms grace): 507046 / 507011.
//!
//! Chips: Ascend910B1, Ascend950PR_9599, Ascend310B1. Cases: 64 by default (`PROPTEST_CASES`
//! overrides), sequences of 1..32 steps. `SM_STATS=1` prints each case's length.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ascend_chips::ChipProfile;
use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};
use ascend_sim::{OnStall, SimConfig};
use proptest::prelude::*;
use proptest::test_runner::Config;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};

const CHIPS: [&str; 3] = ["Ascend910B1", "Ascend950PR_9599", "Ascend310B1"];
const POISON: u8 = 0xA5;
const WORDS: usize = 8;
const ALLOC_SIZE: usize = 64;
const GARBAGE: u64 = 0x7777_0000_1230;

const OK: i32 = 0;
const INVALID_PARAM: i32 = 100000;
const RT_PARAM: i32 = 107000;
const RT_STREAM_MODEL: i32 = 107005;
const RT_HANDLE: i32 = 107017;
const RT_NOT_SUPPORTED: i32 = 207000;
const RT_INTERNAL: i32 = 507000;
const RT_MODEL_EXECUTE: i32 = 507011;
const RT_SYNC_TIMEOUT: i32 = 507046;

// ---------------------------------------------------------------------------------------
// Transitions
// ---------------------------------------------------------------------------------------

/// A word argument: NULL, an address in no allocation, or word `word` of allocation `alloc`
/// (live or freed: a freed one is a stale address).
#[derive(Clone, Copy, Debug)]
enum W {
    Null,
    Garbage,
    At(usize, usize),
}

/// A handle argument: NULL, garbage, or the `i`-th created object (maybe destroyed).
#[derive(Clone, Copy, Debug)]
enum H {
    Null,
    Garbage,
    I(usize),
}

#[derive(Clone, Debug)]
enum Op {
    Malloc(usize),
    Free(W),
    CreateStream { persistent: bool },
    DestroyStream(H),
    CreateEvent,
    DestroyEvent(H),
    Record(H, H),
    WaitEvent(H, H),
    QueryEvent(H),
    ValueWrite { w: W, value: u64, flag: u32, s: H },
    ValueWait { w: W, value: u64, flag: u32, s: H },
    Cmo { w: W, size: usize, ty: u32, s: H },
    CmoBarrier { w: W, ty: u32, id: u32, s: H },
    WaitBarrier { entries: Vec<(u32, u32)>, s: H },
    SetDesc { desc: W, src: W },
    CmoDesc { desc: W, ty: u32, s: H },
    Memset { w: W, byte: u8, count: usize },
    MemsetAsync { w: W, byte: u8, s: H },
    WriteWord { w: W, value: u64 },
    CopyAsync { dst: W, src: W, s: H },
    Read(W),
    Sync(H),
    SyncDevice,
    ModelBegin,
    Bind(H, H),
    EndTask(H, H),
    BuildEnd(H),
    Execute(H),
}

// ---------------------------------------------------------------------------------------
// Reference model
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Expect {
    /// This code.
    Code(i32),
    /// This code, and the word read is this value when `Some`.
    Read(i32, Option<u64>),
    /// Any code (the outcome depends on timing).
    Any,
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    Geq,
    Eq,
    And,
    Nor,
}

impl Mode {
    fn holds(self, mem: u64, v: u64) -> bool {
        match self {
            Mode::Geq => (mem as i64) >= (v as i64),
            Mode::Eq => mem == v,
            Mode::And => mem & v != 0,
            Mode::Nor => !(mem | v) != 0,
        }
    }
}

type Word = (usize, usize);

#[derive(Clone, Debug)]
enum Task {
    Write(Word, u64),
    Wait(Word, u64, Mode),
    Copy(Word, Word),
    Record(usize, u64),
    EvWait(usize, u64),
    /// A cache operation on a range inside allocation `Some(a)`, or outside live memory
    /// (`None`: the task faults when it executes); `true` for an INVALID, which drops the
    /// L2's dirty lines of the allocation (their data reverts to what memory held).
    Cmo(Option<usize>, bool),
    Nop,
}

#[derive(Clone, Debug)]
struct RTask {
    id: u64,
    task: Task,
}

#[derive(Clone, Debug)]
struct RAlloc {
    off: u64,
    len: u64,
    live: bool,
    words: Vec<Option<u64>>,
}

#[derive(Clone, Debug, Default)]
struct RStream {
    live: bool,
    persistent: bool,
    model: Option<usize>,
    queue: VecDeque<RTask>,
    /// Recorded into the bound model.
    recorded: Vec<Task>,
    /// Every task with an id up to this one is known to have executed in the simulator.
    sim_done: u64,
    last_id: u64,
    /// A task faulted; the next synchronize reports it.
    fault: bool,
}

#[derive(Clone, Debug, Default)]
struct REvent {
    live: bool,
    /// Records submitted (sequence numbers 1..=seq).
    seq: u64,
    /// Highest record executed.
    done: u64,
    /// Stream and task id of the latest record.
    latest: Option<(usize, u64)>,
}

#[derive(Clone, Debug, Default)]
struct RModel {
    live: bool,
    streams: BTreeSet<usize>,
    barrier_ids: BTreeSet<u32>,
    /// aclmdlRIEndTask succeeded on one of its streams.
    end_marked: bool,
}

#[derive(Clone, Debug)]
struct RefState {
    chip: &'static str,
    /// NULL names the default stream (A2/A3, 950).
    null_is_default: bool,
    value_wait: bool,
    cmo: bool,
    async_cmo: bool,
    model_cmo_barrier: bool,
    desc_size: u64,
    round: u64,
    pad: u64,
    align: u64,
    allocs: Vec<RAlloc>,
    /// Index 0 is the default stream (NULL).
    streams: Vec<RStream>,
    events: Vec<REvent>,
    models: Vec<RModel>,
    /// Pending (not known executed) writers of each word: (stream, task id).
    writers: BTreeMap<Word, Vec<(usize, u64)>>,
    /// Pending (not known executed) copies reading each word: (stream, task id, destination).
    readers: BTreeMap<Word, Vec<(usize, u64, Word)>>,
    /// Waits executed by the reference whose execution in the simulator is not yet known.
    passed_waits: Vec<(usize, u64, Word, u64, Mode)>,
    /// Descriptors set, with the allocation their source lies in (None: outside memory).
    descs: BTreeMap<Word, Option<usize>>,
    /// Cache operations on allocations: (allocation, stream, task id).
    touches: Vec<(usize, usize, u64)>,
    next_id: u64,
    ambiguous: bool,
    /// A stream's destroy whose outcome is timing in an ambiguous run: the stream may be gone
    /// or live, so nothing after it is predicted.
    adrift: bool,
    expect: Expect,
}

impl RefState {
    fn new(chip: &'static str) -> RefState {
        let p = ChipProfile::builtin(chip).unwrap();
        RefState {
            chip,
            null_is_default: matches!(
                p.chip_type,
                ascend_chips::ChipType::Cloud910B93
                    | ascend_chips::ChipType::David
                    | ascend_chips::ChipType::Ascend350
            ),
            value_wait: p.features.task_value_wait,
            cmo: p.features.task_cmo,
            async_cmo: p.features.task_async_cmo,
            model_cmo_barrier: p.features.model_cmo_barrier,
            desc_size: p.cmo.desc_size as u64,
            round: p.memory.malloc_round,
            pad: p.memory.malloc_padding,
            align: p.memory.base_alignment.max(8).next_power_of_two(),
            allocs: Vec::new(),
            streams: vec![RStream {
                live: true,
                ..RStream::default()
            }],
            events: Vec::new(),
            models: Vec::new(),
            writers: BTreeMap::new(),
            readers: BTreeMap::new(),
            passed_waits: Vec::new(),
            descs: BTreeMap::new(),
            touches: Vec::new(),
            next_id: 0,
            ambiguous: false,
            adrift: false,
            expect: Expect::Code(OK),
        }
    }

    // ----- lookups -----

    /// The live allocation and room of a word argument, if it is device memory.
    fn locate(&self, w: W) -> Option<(Word, u64)> {
        let W::At(a, k) = w else { return None };
        let al = &self.allocs[a];
        let addr = al.off + 8 * k as u64;
        // By address: a stale address may lie in a newer allocation.
        self.allocs.iter().enumerate().find_map(|(i, b)| {
            (b.live && addr >= b.off && addr < b.off + b.len).then(|| {
                let rel = addr - b.off;
                ((i, (rel / 8) as usize), b.len - rel)
            })
        })
    }

    /// The allocation holding `len` bytes at `w`, if any.
    fn range(&self, w: W, len: u64) -> Option<usize> {
        self.locate(w)
            .filter(|&(_, room)| room >= len)
            .map(|(w, _)| w.0)
    }

    fn stream(&self, h: H) -> Result<usize, i32> {
        match h {
            H::Null => Ok(0),
            H::I(i) if i + 1 < self.streams.len() && self.streams[i + 1].live => Ok(i + 1),
            _ => Err(RT_HANDLE),
        }
    }

    fn event(&self, h: H) -> Result<usize, i32> {
        match h {
            H::Null => Err(INVALID_PARAM),
            H::I(i) if i < self.events.len() && self.events[i].live => Ok(i),
            _ => Err(RT_HANDLE),
        }
    }

    fn model(&self, h: H) -> Result<usize, i32> {
        match h {
            H::Null => Err(INVALID_PARAM),
            H::I(i) if i < self.models.len() && self.models[i].live => Ok(i),
            _ => Err(RT_HANDLE),
        }
    }

    fn word(&self, w: Word) -> Option<u64> {
        self.allocs[w.0].words.get(w.1).copied().flatten()
    }

    fn set_word(&mut self, w: Word, v: Option<u64>) {
        if let Some(slot) = self.allocs[w.0].words.get_mut(w.1) {
            *slot = v;
        }
    }

    fn known_done(&self, s: usize, id: u64) -> bool {
        id <= self.streams[s].sim_done
    }

    /// Pending writers of `w` other than stream `s`.
    fn foreign_writers(&self, w: Word, s: Option<usize>) -> bool {
        self.writers.get(&w).is_some_and(|v| {
            v.iter()
                .any(|&(t, id)| Some(t) != s && !self.known_done(t, id))
        })
    }

    // ----- execution -----

    /// A write of `w` by stream `s` (None: the host) with task `id`.
    fn write(&mut self, w: Word, v: Option<u64>, s: Option<usize>, id: u64) {
        // Two writers without a synchronize between them: the order is timing.
        let v = if self.foreign_writers(w, s) { None } else { v };
        // A wait that passed in the reference but maybe not yet in the simulator.
        let fragile = self.passed_waits.iter().any(|&(ws, wid, ww, wv, m)| {
            ww == w && !self.known_done(ws, wid) && v.is_none_or(|v| !m.holds(v, wv))
        });
        if fragile {
            self.ambiguous = true;
        }
        // A copy of another stream that reads `w` and may not have run yet in the simulator:
        // whether it copied the old or the new value is timing, so its destination is unknown.
        let racing: Vec<Word> = self.readers.get(&w).map_or_else(Vec::new, |v| {
            v.iter()
                .filter(|&&(t, id, _)| Some(t) != s && !self.known_done(t, id))
                .map(|&(_, _, d)| d)
                .collect()
        });
        for d in racing {
            let depends = self
                .passed_waits
                .iter()
                .any(|&(ws, wid, ww, ..)| ww == d && !self.known_done(ws, wid));
            if depends {
                self.ambiguous = true;
            }
            self.set_word(d, None);
        }
        self.set_word(w, v);
        if let Some(s) = s {
            self.writers.entry(w).or_default().push((s, id));
        }
    }

    /// Runs every stream's queue as far as nothing blocks it.
    fn settle(&mut self) {
        loop {
            let mut progress = false;
            for s in 0..self.streams.len() {
                while let Some(t) = self.streams[s].queue.front().cloned() {
                    if !self.exec(s, t.id, &t.task) {
                        break;
                    }
                    self.streams[s].queue.pop_front();
                    progress = true;
                }
            }
            if !progress {
                break;
            }
        }
    }

    /// Executes one task if it can; false when it blocks.
    fn exec(&mut self, s: usize, id: u64, task: &Task) -> bool {
        match *task {
            Task::Write(w, v) => self.write(w, Some(v), Some(s), id),
            Task::Copy(d, src) => {
                let v = if self.foreign_writers(src, Some(s)) {
                    None
                } else {
                    self.word(src)
                };
                self.write(d, v, Some(s), id);
                self.readers.entry(src).or_default().push((s, id, d));
            }
            // A wait whose memory was freed faults at its next poll (the simulator wakes the
            // waits on a freed range): it completes, with a fault on its stream.
            Task::Wait(w, ..) if !self.allocs[w.0].live => self.streams[s].fault = true,
            Task::Wait(w, v, m) => match self.word(w) {
                None => {
                    self.ambiguous = true;
                    return false;
                }
                Some(cur) if m.holds(cur, v) => self.passed_waits.push((s, id, w, v, m)),
                Some(_) => return false,
            },
            Task::Record(e, seq) => {
                let ev = &mut self.events[e];
                ev.done = ev.done.max(seq);
            }
            Task::EvWait(e, seq) => {
                if seq != 0 && self.events[e].done < seq {
                    return false;
                }
            }
            Task::Cmo(None, _) => self.streams[s].fault = true,
            Task::Cmo(Some(a), true) => {
                // Which of the allocation's lines are dirty (written and not yet written back)
                // is the L2's state: every word becomes unknown, and a wait that passed on one
                // of them may not have passed in the simulator yet.
                let depends = self
                    .passed_waits
                    .iter()
                    .any(|&(ws, wid, (wa, _), ..)| wa == a && !self.known_done(ws, wid));
                if depends {
                    self.ambiguous = true;
                }
                for w in self.allocs[a].words.iter_mut() {
                    *w = None;
                }
            }
            Task::Cmo(Some(_), false) | Task::Nop => {}
        }
        true
    }

    fn submit(&mut self, s: usize, task: Task) {
        self.next_id += 1;
        let id = self.next_id;
        let st = &mut self.streams[s];
        if st.model.is_some() {
            st.recorded.push(task);
            return;
        }
        st.last_id = id;
        if let Task::Cmo(Some(a), _) = task {
            self.touches.push((a, s, id));
        }
        // A wait whose release depends on when a pending foreign write lands.
        if let Task::Wait(w, v, m) = task {
            if self.foreign_writers(w, Some(s)) && self.word(w).is_none_or(|c| !m.holds(c, v)) {
                self.ambiguous = true;
            }
        }
        self.streams[s].queue.push_back(RTask { id, task });
        self.settle();
    }

    /// The outcome of waiting for `streams` to drain.
    fn sync_streams(&mut self, streams: &[usize]) -> i32 {
        self.settle();
        if streams.iter().any(|&s| !self.streams[s].queue.is_empty()) {
            return RT_SYNC_TIMEOUT;
        }
        let mut fault = false;
        for &s in streams {
            let st = &mut self.streams[s];
            st.sim_done = st.last_id;
            fault |= std::mem::take(&mut st.fault);
        }
        if fault {
            RT_INTERNAL
        } else {
            OK
        }
    }

    fn bound_task_checks(&self, s: usize) -> bool {
        self.streams[s].model.is_some()
    }
}

fn malloc_len(st: &RefState, size: u64) -> u64 {
    (size + st.round + st.pad - 1) / st.round * st.round
}

fn alloc_off(st: &RefState, len: u64) -> u64 {
    let align = st.align;
    let rounded = (len.max(1) + align - 1) & !(align - 1);
    let mut live: Vec<(u64, u64)> = st
        .allocs
        .iter()
        .filter(|a| a.live)
        .map(|a| (a.off, a.len))
        .collect();
    live.sort();
    let mut cursor = 0u64;
    for (off, l) in live {
        if off >= cursor && off - cursor >= rounded {
            return cursor;
        }
        cursor = cursor.max((off + l + align - 1) & !(align - 1));
    }
    cursor
}

fn mode(flag: u32) -> Option<Mode> {
    match flag {
        0 => Some(Mode::Geq),
        1 => Some(Mode::Eq),
        2 => Some(Mode::And),
        3 => Some(Mode::Nor),
        _ => None,
    }
}

/// The validation part shared by the task APIs taking a stream: the stream handle.
fn task_stream(st: &RefState, h: H) -> Result<usize, i32> {
    st.stream(h)
}

fn apply_ref(mut st: RefState, op: &Op) -> RefState {
    let code: Result<Expect, i32> = (|| -> Result<Expect, i32> {
        match op {
            Op::Malloc(size) => {
                if *size == 0 {
                    return Err(INVALID_PARAM);
                }
                let len = malloc_len(&st, *size as u64);
                let off = alloc_off(&st, len);
                let mut words = vec![Some(u64::from_le_bytes([POISON; 8])); WORDS];
                words.truncate((len / 8) as usize);
                st.allocs.push(RAlloc {
                    off,
                    len,
                    live: true,
                    words,
                });
            }
            Op::Free(w) => {
                let W::At(a, k) = *w else {
                    return Err(if matches!(w, W::Null) {
                        INVALID_PARAM
                    } else {
                        RT_PARAM
                    });
                };
                if k != 0 {
                    return Err(RT_PARAM);
                }
                let off = st.allocs[a].off;
                let Some(i) = st.allocs.iter().position(|b| b.live && b.off == off) else {
                    return Err(RT_PARAM);
                };
                // Tasks pending on it may fault in the simulator, or not: timing.
                let pending = st.streams.iter().any(|s| !s.queue.is_empty())
                    || st.writers.iter().any(|(&(wa, _), v)| {
                        wa == i && v.iter().any(|&(s, id)| !st.known_done(s, id))
                    })
                    || st
                        .passed_waits
                        .iter()
                        .any(|&(s, id, (wa, _), _, _)| wa == i && !st.known_done(s, id))
                    || st
                        .touches
                        .iter()
                        .any(|&(a, s, id)| a == i && !st.known_done(s, id))
                    || st.descs.values().any(|&a| a == Some(i))
                    || st.streams.iter().any(|s| !s.recorded.is_empty());
                if pending {
                    st.ambiguous = true;
                }
                st.allocs[i].live = false;
            }
            Op::CreateStream { persistent } => st.streams.push(RStream {
                live: true,
                persistent: *persistent,
                ..RStream::default()
            }),
            Op::DestroyStream(h) => {
                if matches!(h, H::Null) {
                    return Err(INVALID_PARAM);
                }
                let s = st.stream(*h)?;
                // A stream a model holds is not torn down: unbind it first.
                if st.streams[s].model.is_some() {
                    return Err(RT_STREAM_MODEL);
                }
                // Waits for the stream's tasks (a fault is not reported here).
                st.settle();
                if !st.streams[s].queue.is_empty() {
                    // In an ambiguous run the device may have got past what the reference
                    // cannot settle, and the destroy then succeeded.
                    if st.ambiguous {
                        st.adrift = true;
                    }
                    return Err(RT_SYNC_TIMEOUT);
                }
                st.streams[s].live = false;
            }
            Op::CreateEvent => st.events.push(REvent {
                live: true,
                ..REvent::default()
            }),
            Op::DestroyEvent(h) => {
                let e = st.event(*h)?;
                st.events[e].live = false;
            }
            Op::Record(e, s) | Op::WaitEvent(s, e) => {
                let e = st.event(*e)?;
                let s = task_stream(&st, *s)?;
                if st.bound_task_checks(s) {
                    return Err(RT_NOT_SUPPORTED);
                }
                if matches!(op, Op::Record(..)) {
                    st.events[e].seq += 1;
                    let seq = st.events[e].seq;
                    st.submit(s, Task::Record(e, seq));
                    st.events[e].latest = Some((s, st.next_id));
                } else {
                    let seq = st.events[e].seq;
                    // A classic event no record was submitted for: the runtime refuses the
                    // wait.
                    if seq == 0 {
                        return Err(RT_PARAM);
                    }
                    st.submit(s, Task::EvWait(e, seq));
                }
            }
            Op::QueryEvent(h) => {
                let e = st.event(*h)?;
                let ev = &st.events[e];
                return Ok(match ev.latest {
                    None => Expect::Read(OK, Some(event_recorded_status::NOT_READY as u64)),
                    Some((s, id)) if st.known_done(s, id) => {
                        Expect::Read(OK, Some(event_recorded_status::COMPLETE as u64))
                    }
                    Some(_) => Expect::Read(OK, None),
                });
            }
            Op::ValueWrite { w, value, flag, s } | Op::ValueWait { w, value, flag, s } => {
                let wait = matches!(op, Op::ValueWait { .. });
                if matches!(w, W::Null) {
                    return Err(INVALID_PARAM);
                }
                if !st.value_wait {
                    return Err(RT_NOT_SUPPORTED);
                }
                let s = task_stream(&st, *s)?;
                let flag_ok = if wait { *flag < 4 } else { *flag == 0 };
                if !flag_ok {
                    return Err(RT_PARAM);
                }
                let Some((word, _)) = st.locate(*w) else {
                    return Err(RT_PARAM);
                };
                let task = if wait {
                    Task::Wait(word, *value, mode(*flag).unwrap())
                } else {
                    Task::Write(word, *value)
                };
                st.submit(s, task);
            }
            Op::Cmo { w, size, ty, s } => {
                if matches!(w, W::Null) {
                    return Err(INVALID_PARAM);
                }
                if *size == 0 {
                    return Err(INVALID_PARAM);
                }
                if !st.cmo || *ty > 3 {
                    return Err(RT_NOT_SUPPORTED);
                }
                let s = task_stream(&st, *s)?;
                if st.bound_task_checks(s) {
                    return Err(RT_NOT_SUPPORTED);
                }
                let a = st.range(*w, *size as u64);
                st.submit(s, Task::Cmo(a, *ty == cmo_type::INVALID));
            }
            Op::CmoBarrier { w, ty, id, s } => {
                if matches!(w, W::Null) {
                    return Err(INVALID_PARAM);
                }
                if !st.async_cmo {
                    return Err(RT_NOT_SUPPORTED);
                }
                if (*ty == cmo_type::INVALID && *id == 0)
                    || (*ty != cmo_type::INVALID && *ty <= 3 && *id != 0)
                {
                    return Err(RT_PARAM);
                }
                if *ty > 3 {
                    return Err(RT_NOT_SUPPORTED);
                }
                let s = task_stream(&st, *s)?;
                let Some(m) = st.streams[s].model else {
                    return Err(RT_INTERNAL);
                };
                let a = st.range(*w, 64);
                st.submit(s, Task::Cmo(a, *ty == cmo_type::INVALID));
                st.models[m].barrier_ids.insert(*id);
            }
            Op::WaitBarrier { entries, s } => {
                if entries.is_empty() || entries.len() > CMO_MAX_BARRIER_NUM {
                    return Err(INVALID_PARAM);
                }
                for &(ty, id) in entries {
                    if ty != cmo_type::INVALID || id == 0 {
                        return Err(RT_PARAM);
                    }
                }
                if !st.async_cmo {
                    return Err(RT_NOT_SUPPORTED);
                }
                let s = task_stream(&st, *s)?;
                let Some(m) = st.streams[s].model else {
                    return Err(RT_INTERNAL);
                };
                if st.model_cmo_barrier
                    && entries
                        .iter()
                        .any(|(_, id)| !st.models[m].barrier_ids.contains(id))
                {
                    return Err(RT_STREAM_MODEL);
                }
                st.submit(s, Task::Nop);
            }
            Op::SetDesc { desc, src } => {
                if !st.cmo {
                    return Err(RT_NOT_SUPPORTED);
                }
                if matches!(desc, W::Null) || matches!(src, W::Null) {
                    return Err(RT_PARAM);
                }
                match st.locate(*desc) {
                    Some((word, room)) if room >= st.desc_size => {
                        for k in 0..(st.desc_size / 8) as usize {
                            let w = (word.0, word.1 + k);
                            st.write(w, None, None, 0);
                        }
                        let a = st.range(*src, 8);
                        st.descs.insert(word, a);
                    }
                    _ => return Err(RT_PARAM),
                }
            }
            Op::CmoDesc { desc, ty, s } => {
                if st.desc_size == 0 {
                    return Err(RT_NOT_SUPPORTED);
                }
                st.stream(*s)?;
                if matches!(desc, W::Null) || *ty > 3 {
                    return Err(RT_PARAM);
                }
                let s = st.stream(*s)?;
                if st.streams[s].model.is_none() {
                    return Err(RT_INTERNAL);
                }
                match st.locate(*desc) {
                    Some((w, room)) if room >= st.desc_size => {
                        let a = st.descs.get(&w).copied().flatten();
                        // The runtime writes its header over the descriptor's head at launch.
                        let header = if st.desc_size >= 64 { 28u64 } else { 8 };
                        for k in 0..header.div_ceil(8) as usize {
                            st.write((w.0, w.1 + k), None, None, 0);
                        }
                        st.submit(s, Task::Cmo(a, *ty == cmo_type::INVALID))
                    }
                    _ => return Err(RT_PARAM),
                }
            }
            Op::Memset { w, byte, count } => {
                if matches!(w, W::Null) {
                    return Err(INVALID_PARAM);
                }
                match st.locate(*w) {
                    Some((word, room)) if room >= *count as u64 => {
                        for k in 0..count.div_ceil(8) {
                            st.write(
                                (word.0, word.1 + k),
                                Some(u64::from_le_bytes([*byte; 8])),
                                None,
                                0,
                            );
                        }
                    }
                    _ => return Err(RT_PARAM),
                }
            }
            Op::MemsetAsync { w, byte, s } => {
                if matches!(w, W::Null) {
                    return Err(INVALID_PARAM);
                }
                let s = task_stream(&st, *s)?;
                let Some((word, _)) = st.locate(*w) else {
                    return Err(RT_PARAM);
                };
                st.submit(s, Task::Write(word, u64::from_le_bytes([*byte; 8])));
            }
            Op::WriteWord { w, value } => {
                if matches!(w, W::Null) {
                    return Err(INVALID_PARAM);
                }
                let Some((word, _)) = st.locate(*w) else {
                    return Err(RT_PARAM);
                };
                st.write(word, Some(*value), None, 0);
            }
            Op::CopyAsync { dst, src, s } => {
                if matches!(dst, W::Null) || matches!(src, W::Null) {
                    return Err(INVALID_PARAM);
                }
                let s = task_stream(&st, *s)?;
                let Some((sw, _)) = st.locate(*src) else {
                    return Err(RT_PARAM);
                };
                let Some((dw, _)) = st.locate(*dst) else {
                    return Err(RT_PARAM);
                };
                st.submit(s, Task::Copy(dw, sw));
            }
            Op::Read(w) => {
                if matches!(w, W::Null) {
                    return Err(INVALID_PARAM);
                }
                let Some((word, _)) = st.locate(*w) else {
                    return Err(RT_PARAM);
                };
                let known = !st.foreign_writers(word, None) && !st.ambiguous;
                return Ok(Expect::Read(OK, st.word(word).filter(|_| known)));
            }
            Op::Sync(h) => {
                let s = task_stream(&st, *h)?;
                if st.streams[s].persistent {
                    return Ok(Expect::Code(OK));
                }
                return Ok(Expect::Code(st.sync_streams(&[s])));
            }
            Op::SyncDevice => {
                let all: Vec<usize> = (0..st.streams.len())
                    .filter(|&s| st.streams[s].live)
                    .collect();
                return Ok(Expect::Code(st.sync_streams(&all)));
            }
            Op::ModelBegin => st.models.push(RModel {
                live: true,
                ..RModel::default()
            }),
            Op::Bind(m, s) => {
                if matches!(m, H::Null) {
                    return Err(INVALID_PARAM);
                }
                let m = st.model(*m)?;
                let s = st.stream(*s)?;
                // NULL is the context's default stream, which stops on failure, on the chips
                // whose runtime reads NULL so (a control queue: A2/A3, 950); elsewhere it is
                // no stream at all.
                if s == 0 {
                    return Err(if st.null_is_default {
                        RT_NOT_SUPPORTED
                    } else {
                        RT_PARAM
                    });
                }
                if !st.streams[s].persistent {
                    return Err(RT_PARAM);
                }
                if st.streams[s].model.is_some() {
                    return Err(RT_STREAM_MODEL);
                }
                if !st.streams[s].queue.is_empty() {
                    st.ambiguous = true;
                }
                st.streams[s].model = Some(m);
                st.streams[s].recorded.clear();
                st.models[m].streams.insert(s);
            }
            Op::EndTask(m, s) => {
                if matches!(m, H::Null) {
                    return Err(INVALID_PARAM);
                }
                let m = st.model(*m)?;
                let s = st.stream(*s)?;
                // NULL is the context's default stream (never bound) on the chips whose
                // runtime reads NULL so; there a stream not bound to this model is the
                // end-graph's 507000, elsewhere 107005, and NULL 107000.
                if s == 0 && !st.null_is_default {
                    return Err(RT_PARAM);
                }
                if st.streams[s].model != Some(m) {
                    return Err(if st.null_is_default {
                        RT_INTERNAL
                    } else {
                        RT_STREAM_MODEL
                    });
                }
                st.models[m].end_marked = true;
            }
            Op::BuildEnd(m) => {
                let m = st.model(*m)?;
                // The model load needs a stream, then the end mark.
                if st.models[m].streams.is_empty() {
                    return Err(RT_STREAM_MODEL);
                }
                if !st.models[m].end_marked {
                    return Err(RT_MODEL_EXECUTE);
                }
            }
            Op::Execute(m) => {
                let m = st.model(*m)?;
                // A model runs once a stream of it was ended with EndTask.
                if !st.models[m].end_marked {
                    return Err(RT_MODEL_EXECUTE);
                }
                // Run the recorded tasks as fresh queues, streams concurrently.
                let streams: Vec<usize> = st.models[m].streams.iter().copied().collect();
                let mut queues: Vec<(usize, VecDeque<Task>)> = streams
                    .iter()
                    .map(|&s| (s, st.streams[s].recorded.iter().cloned().collect()))
                    .collect();
                loop {
                    let mut progress = false;
                    for (s, q) in queues.iter_mut() {
                        while let Some(t) = q.front().cloned() {
                            st.next_id += 1;
                            let id = st.next_id;
                            if !st.exec(*s, id, &t) {
                                break;
                            }
                            q.pop_front();
                            progress = true;
                        }
                    }
                    st.settle();
                    if !progress {
                        break;
                    }
                }
                // The model's writes are done once execute returns.
                for (_, v) in st.writers.iter_mut() {
                    v.retain(|&(s, _)| !streams.contains(&s));
                }
                st.passed_waits.retain(|&(s, ..)| !streams.contains(&s));
                let mut fault = false;
                for &s in &streams {
                    fault |= std::mem::take(&mut st.streams[s].fault);
                }
                if queues.iter().any(|(_, q)| !q.is_empty()) {
                    // The instance stays blocked in the simulator.
                    st.ambiguous = true;
                    return Err(RT_MODEL_EXECUTE);
                }
                if fault {
                    return Err(RT_INTERNAL);
                }
            }
        }
        Ok(Expect::Code(OK))
    })();
    let ambiguous_kind = matches!(
        op,
        Op::Sync(_) | Op::SyncDevice | Op::DestroyStream(_) | Op::Execute(_) | Op::QueryEvent(_)
    );
    st.expect = match code {
        _ if st.adrift => Expect::Any,
        _ if st.ambiguous && ambiguous_kind => Expect::Any,
        Ok(e) => e,
        Err(c) if matches!(op, Op::Read(_)) => Expect::Read(c, None),
        Err(c) => Expect::Code(c),
    };
    st
}

struct RefMachine;

fn w_strategy(st: &RefState) -> BoxedStrategy<W> {
    let n = st.allocs.len();
    if n == 0 {
        return prop_oneof![Just(W::Null), Just(W::Garbage)].boxed();
    }
    prop_oneof![
        1 => Just(W::Null),
        1 => Just(W::Garbage),
        12 => (0..n, 0..4usize).prop_map(|(a, k)| W::At(a, k)),
    ]
    .boxed()
}

fn h_strategy(n: usize) -> BoxedStrategy<H> {
    if n == 0 {
        return prop_oneof![3 => Just(H::Null), 1 => Just(H::Garbage)].boxed();
    }
    prop_oneof![
        2 => Just(H::Null),
        1 => Just(H::Garbage),
        8 => (0..n).prop_map(H::I),
    ]
    .boxed()
}

fn value() -> BoxedStrategy<u64> {
    prop_oneof![0..4u64, Just(u64::MAX), any::<u64>()].boxed()
}

impl ReferenceStateMachine for RefMachine {
    type State = RefState;
    type Transition = Op;

    fn init_state() -> BoxedStrategy<RefState> {
        prop::sample::select(CHIPS.to_vec())
            .prop_map(RefState::new)
            .boxed()
    }

    fn transitions(st: &RefState) -> BoxedStrategy<Op> {
        let w = w_strategy(st);
        let s = h_strategy(st.streams.len() - 1);
        let e = h_strategy(st.events.len());
        let m = h_strategy(st.models.len());
        let flag = prop_oneof![6 => 0..4u32, 1 => 4..6u32];
        let ty = prop_oneof![6 => 0..4u32, 1 => Just(4u32), 1 => Just(u32::MAX)];
        prop_oneof![
            4 => prop_oneof![4 => Just(ALLOC_SIZE), 1 => Just(0usize), 1 => Just(8usize)].prop_map(Op::Malloc),
            1 => w.clone().prop_map(Op::Free),
            3 => any::<bool>().prop_map(|p| Op::CreateStream { persistent: p }),
            1 => s.clone().prop_map(Op::DestroyStream),
            2 => Just(Op::CreateEvent),
            1 => e.clone().prop_map(Op::DestroyEvent),
            2 => (e.clone(), s.clone()).prop_map(|(e, s)| Op::Record(e, s)),
            2 => (s.clone(), e.clone()).prop_map(|(s, e)| Op::WaitEvent(s, e)),
            1 => e.clone().prop_map(Op::QueryEvent),
            6 => (w.clone(), value(), prop_oneof![8 => Just(0u32), 1 => Just(1u32)], s.clone())
                .prop_map(|(w, value, flag, s)| Op::ValueWrite { w, value, flag, s }),
            5 => (w.clone(), value(), flag, s.clone())
                .prop_map(|(w, value, flag, s)| Op::ValueWait { w, value, flag, s }),
            2 => (w.clone(), prop_oneof![Just(64usize), Just(0usize)], ty.clone(), s.clone())
                .prop_map(|(w, size, ty, s)| Op::Cmo { w, size, ty, s }),
            2 => (w.clone(), ty.clone(), 0..3u32, s.clone())
                .prop_map(|(w, ty, id, s)| Op::CmoBarrier { w, ty, id, s }),
            1 => (prop::collection::vec((prop_oneof![4 => Just(2u32), 1 => 0..4u32], 0..3u32), 0..8), s.clone())
                .prop_map(|(entries, s)| Op::WaitBarrier { entries, s }),
            1 => (w.clone(), w.clone()).prop_map(|(desc, src)| Op::SetDesc { desc, src }),
            1 => (w.clone(), ty, s.clone()).prop_map(|(desc, ty, s)| Op::CmoDesc { desc, ty, s }),
            2 => (w.clone(), any::<u8>(), prop_oneof![Just(8usize), Just(1usize << 40)])
                .prop_map(|(w, byte, count)| Op::Memset { w, byte, count }),
            2 => (w.clone(), any::<u8>(), s.clone()).prop_map(|(w, byte, s)| Op::MemsetAsync { w, byte, s }),
            3 => (w.clone(), value()).prop_map(|(w, value)| Op::WriteWord { w, value }),
            2 => (w.clone(), w.clone(), s.clone()).prop_map(|(dst, src, s)| Op::CopyAsync { dst, src, s }),
            4 => w.prop_map(Op::Read),
            4 => s.clone().prop_map(Op::Sync),
            1 => Just(Op::SyncDevice),
            1 => Just(Op::ModelBegin),
            1 => (m.clone(), s.clone()).prop_map(|(m, s)| Op::Bind(m, s)),
            1 => (m.clone(), s).prop_map(|(m, s)| Op::EndTask(m, s)),
            1 => m.clone().prop_map(Op::BuildEnd),
            1 => m.prop_map(Op::Execute),
        ]
        .boxed()
    }

    fn preconditions(st: &RefState, op: &Op) -> bool {
        let w_ok = |w: &W| !matches!(w, W::At(a, _) if *a >= st.allocs.len());
        let n_ok = |h: &H, n: usize| !matches!(h, H::I(i) if *i >= n);
        let (ns, ne, nm) = (st.streams.len() - 1, st.events.len(), st.models.len());
        match op {
            Op::Free(w) | Op::Read(w) => w_ok(w),
            Op::DestroyStream(s) | Op::Sync(s) => n_ok(s, ns),
            Op::DestroyEvent(e) | Op::QueryEvent(e) => n_ok(e, ne),
            Op::Record(e, s) | Op::WaitEvent(s, e) => n_ok(e, ne) && n_ok(s, ns),
            Op::ValueWrite { w, s, .. }
            | Op::ValueWait { w, s, .. }
            | Op::Cmo { w, s, .. }
            | Op::CmoBarrier { w, s, .. }
            | Op::MemsetAsync { w, s, .. } => w_ok(w) && n_ok(s, ns),
            Op::WaitBarrier { s, .. } => n_ok(s, ns),
            Op::SetDesc { desc, src } => w_ok(desc) && w_ok(src),
            // A descriptor task only on a descriptor that was set.
            Op::CmoDesc { desc, s, .. } => {
                w_ok(desc)
                    && n_ok(s, ns)
                    && st
                        .locate(*desc)
                        .is_none_or(|(w, _)| st.descs.contains_key(&w))
            }
            Op::Memset { w, .. } | Op::WriteWord { w, .. } => w_ok(w),
            Op::CopyAsync { dst, src, s } => w_ok(dst) && w_ok(src) && n_ok(s, ns),
            Op::Bind(m, s) | Op::EndTask(m, s) => n_ok(m, nm) && n_ok(s, ns),
            Op::BuildEnd(m) | Op::Execute(m) => n_ok(m, nm),
            _ => true,
        }
    }

    fn apply(st: RefState, op: &Op) -> RefState {
        apply_ref(st, op)
    }
}

// ---------------------------------------------------------------------------------------
// System under test: the raw API on the simulator
// ---------------------------------------------------------------------------------------

struct Sut {
    rt: Runtime,
    /// Device address of reference offset 0 (learned from the first allocation).
    base: Option<u64>,
    allocs: Vec<u64>,
    streams: Vec<RawStream>,
    events: Vec<RawEvent>,
    models: Vec<RawModel>,
    steps: usize,
}

impl Sut {
    fn addr(&self, w: W) -> Addr {
        match w {
            W::Null => Addr::NULL,
            W::Garbage => Addr(GARBAGE),
            W::At(a, k) => Addr(self.allocs[a] + 8 * k as u64),
        }
    }
    fn stream(&self, h: H) -> RawStream {
        match h {
            H::Null => RawStream::NULL,
            H::Garbage => RawStream(GARBAGE),
            H::I(i) => self.streams[i],
        }
    }
    fn event(&self, h: H) -> RawEvent {
        match h {
            H::Null => RawEvent(0),
            H::Garbage => RawEvent(GARBAGE),
            H::I(i) => self.events[i],
        }
    }
    fn model(&self, h: H) -> RawModel {
        match h {
            H::Null => RawModel(0),
            H::Garbage => RawModel(GARBAGE),
            H::I(i) => self.models[i],
        }
    }
}

fn code<T>(r: ascend_rt::AclResult<T>) -> i32 {
    match r {
        Ok(_) => OK,
        Err(e) => e.code(),
    }
}

struct SimTest;

static CASES: AtomicUsize = AtomicUsize::new(0);
static STEPS: AtomicUsize = AtomicUsize::new(0);
static AMBIGUOUS: AtomicUsize = AtomicUsize::new(0);

impl StateMachineTest for SimTest {
    type SystemUnderTest = Sut;
    type Reference = RefMachine;

    fn init_test(st: &RefState) -> Sut {
        let config = SimConfig {
            on_stall: OnStall::Error,
            watchdog_grace: Duration::from_millis(20),
            poison_byte: POISON,
            ..SimConfig::default()
        };
        let rt = Runtime::sim_with(st.chip, config).unwrap();
        rt.set_device(0).unwrap();
        Sut {
            rt,
            base: None,
            allocs: Vec::new(),
            streams: Vec::new(),
            events: Vec::new(),
            models: Vec::new(),
            steps: 0,
        }
    }

    fn apply(mut sut: Sut, st: &RefState, op: Op) -> Sut {
        sut.steps += 1;
        let rt = &sut.rt;
        let mut read = None;
        let c = match &op {
            Op::Malloc(size) => {
                let mut a = Addr::NULL;
                let c = code(rt.malloc(Some(&mut a), *size, malloc_policy::HUGE_FIRST));
                if c == OK {
                    let off = st.allocs.last().unwrap().off;
                    let base = *sut.base.get_or_insert(a.0 - off);
                    assert_eq!(
                        a.0 - base,
                        off,
                        "allocation placed where the reference's map says"
                    );
                    sut.allocs.push(a.0);
                }
                c
            }
            Op::Free(w) => code(rt.free(sut.addr(*w))),
            Op::CreateStream { persistent } => {
                let mut s = RawStream::NULL;
                let flag = if *persistent {
                    stream_flag::PERSISTENT
                } else {
                    0
                };
                let c = code(rt.create_stream_with_config(Some(&mut s), 0, flag));
                sut.streams.push(s);
                c
            }
            Op::DestroyStream(h) => code(rt.destroy_stream(sut.stream(*h))),
            Op::CreateEvent => {
                let mut e = RawEvent(0);
                let c = code(rt.create_event(Some(&mut e)));
                sut.events.push(e);
                c
            }
            Op::DestroyEvent(h) => code(rt.destroy_event(sut.event(*h))),
            Op::Record(e, s) => code(rt.record_event(sut.event(*e), sut.stream(*s))),
            Op::WaitEvent(s, e) => code(rt.stream_wait_event(sut.stream(*s), sut.event(*e))),
            Op::QueryEvent(e) => {
                let mut status = 0u32;
                let c = code(rt.query_event_status(sut.event(*e), Some(&mut status)));
                read = Some(status as u64);
                c
            }
            Op::ValueWrite { w, value, flag, s } => {
                code(rt.value_write(sut.addr(*w), *value, *flag, sut.stream(*s)))
            }
            Op::ValueWait { w, value, flag, s } => {
                code(rt.value_wait(sut.addr(*w), *value, *flag, sut.stream(*s)))
            }
            Op::Cmo { w, size, ty, s } => {
                code(rt.cmo_async(sut.addr(*w), *size, *ty, sut.stream(*s)))
            }
            Op::CmoBarrier { w, ty, id, s } => {
                code(rt.cmo_async_with_barrier(sut.addr(*w), 64, *ty, *id, sut.stream(*s)))
            }
            Op::WaitBarrier { entries, s } => {
                let mut info = RawBarrierTaskInfo {
                    barrier_num: entries.len(),
                    ..RawBarrierTaskInfo::default()
                };
                for (i, &(ty, id)) in entries.iter().take(CMO_MAX_BARRIER_NUM).enumerate() {
                    info.cmo_info[i] = RawBarrierCmoInfo {
                        cmo_type: ty,
                        barrier_id: id,
                    };
                }
                code(rt.cmo_wait_barrier(Some(&info), sut.stream(*s), 0))
            }
            Op::SetDesc { desc, src } => code(rt.cmo_set_desc(sut.addr(*desc), sut.addr(*src), 8)),
            Op::CmoDesc { desc, ty, s } => {
                code(rt.cmo_async_with_desc(sut.addr(*desc), *ty, sut.stream(*s), Addr::NULL))
            }
            Op::Memset { w, byte, count } => {
                code(rt.memset(sut.addr(*w), *count, *byte as i32, *count))
            }
            Op::MemsetAsync { w, byte, s } => {
                code(rt.memset_async(sut.addr(*w), 8, *byte as i32, 8, sut.stream(*s)))
            }
            Op::WriteWord { w, value } => {
                let bytes = value.to_le_bytes();
                code(rt.memcpy(
                    MemDst::Addr(sut.addr(*w)),
                    8,
                    MemSrc::Host(&bytes),
                    8,
                    memcpy_kind::HOST_TO_DEVICE,
                ))
            }
            Op::CopyAsync { dst, src, s } => code(rt.memcpy_async(
                MemDst::Addr(sut.addr(*dst)),
                8,
                MemSrc::Addr(sut.addr(*src)),
                8,
                memcpy_kind::DEVICE_TO_DEVICE,
                sut.stream(*s),
            )),
            Op::Read(w) => {
                let mut out = [0u8; 8];
                let c = code(rt.memcpy(
                    MemDst::Host(&mut out),
                    8,
                    MemSrc::Addr(sut.addr(*w)),
                    8,
                    memcpy_kind::DEVICE_TO_HOST,
                ));
                read = Some(u64::from_le_bytes(out));
                c
            }
            Op::Sync(h) => code(rt.synchronize_stream(sut.stream(*h))),
            Op::SyncDevice => code(rt.synchronize_device()),
            Op::ModelBegin => {
                let mut m = RawModel(0);
                let c = code(rt.mdl_ri_build_begin(Some(&mut m), 0));
                sut.models.push(m);
                c
            }
            Op::Bind(m, s) => code(rt.mdl_ri_bind_stream(sut.model(*m), sut.stream(*s), 0)),
            Op::EndTask(m, s) => code(rt.mdl_ri_end_task(sut.model(*m), sut.stream(*s))),
            Op::BuildEnd(m) => code(rt.mdl_ri_build_end(sut.model(*m), None)),
            Op::Execute(m) => code(rt.mdl_ri_execute(sut.model(*m), -1)),
        };
        match &st.expect {
            Expect::Any => {}
            Expect::Code(want) => assert_eq!(c, *want, "return code of {op:?}"),
            Expect::Read(want, value) => {
                assert_eq!(c, *want, "return code of {op:?}");
                if let (Some(v), Some(got)) = (value, read) {
                    assert_eq!(got, *v, "value observed by {op:?}");
                }
            }
        }
        sut
    }

    fn teardown(sut: Sut, st: RefState) {
        let n = CASES.fetch_add(1, Ordering::Relaxed) + 1;
        let amb =
            AMBIGUOUS.fetch_add(st.ambiguous as usize, Ordering::Relaxed) + st.ambiguous as usize;
        let steps = STEPS.fetch_add(sut.steps, Ordering::Relaxed) + sut.steps;
        if std::env::var_os("SM_STATS").is_some() {
            eprintln!(
                "case {n} ({}): {} steps (average so far {:.1}; {amb} cases ended ambiguous)",
                st.chip,
                sut.steps,
                steps as f64 / n as f64
            );
        }
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

prop_state_machine! {
    #![proptest_config(Config {
        cases: cases(),
        max_shrink_iters: 2048,
        failure_persistence: None,
        .. Config::default()
    })]

    #[test]
    fn raw_api_matches_reference(sequential 1..32 => SimTest);
}
