//! Happens-before race detection: which accesses of device memory are not ordered by the
//! program's synchronisation, whatever the schedule (vector clocks in the manner of
//! ThreadSanitizer; FastTrack's epochs for accesses).
//!
//! This file owns the detector's state: the agents (each stream, each kernel block, each host
//! thread), their clocks, and what each synchronisation object carries from its release to its acquire.
//! The edges (docs/races.md):
//! - stream order: a stream's tasks run in order, each one step of the stream;
//! - a kernel's blocks: each block starts after what its stream did before the kernel, and
//!   the stream goes on after every block (the blocks of one kernel are not ordered with
//!   each other);
//! - submission: a task is ordered after what its host thread did before submitting it, and
//!   a model instance's tasks after the run that started them;
//! - event record → the stream wait or host synchronize of that record; notify record → the
//!   wait it releases; INVALID with a barrier id → the barrier wait;
//! - value write, a kernel's scalar store or a host write of a word → the value wait or the
//!   kernel's scalar load that reads the word (synchronisation words);
//! - host synchronize of a stream, an event or a device (and a query that finds it done) →
//!   the host thread; a stream's host call ↔ the host thread that runs it.
//!
//! Copies, fills, reduces and CMOs of a stream, a kernel's copies between global memory and
//! local buffers, and the host's synchronous reads, writes, fills and copies are data
//! accesses, checked in [`shadow`]. Value writes and waits and kernels' scalar loads and
//! stores are synchronisation accesses: they order, and are not checked as data.
//!
//! The engine's side (where each edge and access is taken) is in `hooks`.

pub mod clock;
mod hooks;
pub mod shadow;
mod words;

pub use words::{SyncAccess, SyncConflict};

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use clock::{Agent, Released, VClock};
use shadow::{Access, Conflict, Shadow};

/// Who an agent is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentKey {
    /// A stream, by the simulator's stream number.
    Stream(u64),
    /// A host thread, by its caller number.
    Host(u64),
    /// The blocks of the kernels of a stream whose numbers are `slot` modulo
    /// [`BLOCK_AGENTS`].
    Block {
        /// The kernel's stream.
        stream: u64,
        /// The block's number modulo [`BLOCK_AGENTS`].
        slot: u32,
    },
}

/// Agents a stream's kernel blocks act as: block `b` acts as agent `b % BLOCK_AGENTS` of its
/// stream. The blocks of one kernel are not ordered with each other, but for blocks whose
/// numbers differ by a multiple of this, which are taken as ordered (so that vector clocks
/// stay short however many blocks a kernel has). Blocks of the stream's later kernels share
/// the agents exactly: stream order puts them after every block before them.
pub const BLOCK_AGENTS: u32 = 64;

impl AgentKey {
    /// The agent of block `block` of a kernel on stream `stream`.
    pub fn block(stream: u64, block: u32) -> AgentKey {
        AgentKey::Block {
            stream,
            slot: block % BLOCK_AGENTS,
        }
    }
}

/// A host buffer as the detector remembers it: without keeping it alive.
type WeakHostBuf = std::sync::Weak<std::sync::Mutex<Vec<u8>>>;

/// Host buffers remembered before the dropped ones are forgotten.
const HOST_BUFFERS_KEPT: usize = 1024;

/// The records of one event whose clocks are kept for waits that name them.
const RECORDS_KEPT: usize = 64;

/// One agent's bookkeeping.
#[derive(Debug, Default)]
struct AgentState {
    clock: VClock,
    /// Its present step was handed out: its next data access is a new step.
    released: bool,
    /// A snapshot of its clock, valid while it learns nothing new (its own steps aside).
    snapshot: Option<Arc<VClock>>,
    /// A stream's: the submitter's release it learnt last (not joined again).
    joined: Option<Released>,
}

/// The detector's state (see the module doc).
#[derive(Debug, Default)]
pub struct Races {
    /// Detection is on.
    pub on: bool,
    agents: HashMap<AgentKey, Agent>,
    /// Agent numbers of destroyed streams, to be reused.
    free_agents: Vec<Agent>,
    states: Vec<AgentState>,
    /// Event records executed, by (event, record number).
    records: HashMap<(u64, u64), Released>,
    record_order: HashMap<u64, VecDeque<u64>>,
    /// Stream waits queued for each (event, record): their record's clock is kept for them.
    waits_queued: HashMap<(u64, u64), u32>,
    /// Events destroyed while waits for their records were still queued.
    destroyed_events: std::collections::HashSet<u64>,
    /// Notifies set and not yet consumed.
    notifies: HashMap<u64, VClock>,
    /// Synchronisation words (8-byte aligned): their latest write and observation.
    words: BTreeMap<u64, words::Word>,
    /// Barrier INVALIDs done, by (model, barrier id).
    barriers: HashMap<(Option<u64>, u32), VClock>,
    /// Host calls due and not yet taken: what their stream had done when it reached them.
    host_calls: HashMap<u64, Released>,
    /// Host buffers seen by tasks, by their base address (to tell a new buffer at a reused
    /// address).
    host_buffers: HashMap<u64, (WeakHostBuf, u64)>,
    /// Model instances: what their finished tasks knew.
    instances: HashMap<u64, VClock>,
    shadow: Shadow,
}

impl Races {
    /// A detector, on or off.
    pub fn new(on: bool) -> Races {
        Races {
            on,
            ..Races::default()
        }
    }

    /// The agent of `key`, created on first use (its first step is 1). A destroyed stream's
    /// number is given to the next new agent, whose steps go on counting from the old one's,
    /// so that vector clocks stay as long as the agents alive at once, however many streams a
    /// program creates: what others knew of the old stream's steps does not cover the new
    /// agent's. (The new agent is taken as ordered after the old one's accesses.)
    pub fn agent(&mut self, key: AgentKey) -> Agent {
        if let Some(&a) = self.agents.get(&key) {
            return a;
        }
        let a = match self.free_agents.pop() {
            Some(a) => {
                let old = &self.states[a as usize];
                let mut clock = VClock::default();
                clock.set_own(a, old.clock.get(a).saturating_add(1));
                self.states[a as usize] = AgentState {
                    clock,
                    ..AgentState::default()
                };
                a
            }
            None => {
                let a = self.states.len() as Agent;
                let mut clock = VClock::default();
                clock.tick(a);
                self.states.push(AgentState {
                    clock,
                    ..AgentState::default()
                });
                a
            }
        };
        self.agents.insert(key, a);
        a
    }

    /// Stream `s` is gone: its agent's number, and those of its kernels' blocks, may serve
    /// new agents.
    pub fn stream_gone(&mut self, s: u64) {
        let free = &mut self.free_agents;
        self.agents.retain(|key, &mut a| {
            let gone = match key {
                AgentKey::Stream(x) | AgentKey::Block { stream: x, .. } => *x == s,
                AgentKey::Host(_) => false,
            };
            if gone {
                free.push(a);
            }
            !gone
        });
    }

    fn state(&mut self, a: Agent) -> &mut AgentState {
        &mut self.states[a as usize]
    }

    /// `a` learns a clock (an acquire).
    fn learn(&mut self, a: Agent, other: &VClock) {
        let st = self.state(a);
        if st.clock.join(other) {
            st.snapshot = None;
        }
    }

    /// `a` learns a release (an acquire).
    fn learn_released(&mut self, a: Agent, r: &Released) {
        let st = self.state(a);
        if st.clock.join_released(r) {
            st.snapshot = None;
        }
    }

    /// `a`'s present knowledge, handed to a later party (a release): its next data access is
    /// a new step, so that the party is not ordered after that access. Allocates only when
    /// `a` learnt something since its last release.
    fn hand_out(&mut self, a: Agent) -> Released {
        let st = self.state(a);
        st.released = true;
        let base = match &st.snapshot {
            Some(b) => b.clone(),
            None => {
                let b = Arc::new(st.clock.clone());
                st.snapshot = Some(b.clone());
                b
            }
        };
        Released {
            base,
            own: st.clock.epoch(a),
        }
    }

    /// Before a data access by `a`: a new step if its present one was handed out.
    fn step_if_released(&mut self, a: Agent) {
        let st = self.state(a);
        if std::mem::take(&mut st.released) {
            st.clock.tick(a);
        }
    }

    // ----- submission and stream order -----

    /// Host thread `host` submits a task: what the task is ordered after (what the thread did
    /// so far), kept with the task until it starts.
    pub fn submitted(&mut self, host: u64) -> Released {
        let h = self.agent(AgentKey::Host(host));
        self.hand_out(h)
    }

    /// What a model run started by `key` hands to its tasks.
    pub fn run_base(&mut self, key: AgentKey) -> Released {
        let a = self.agent(key);
        self.hand_out(a)
    }

    /// A task starts on stream `s`: a new step of the stream, after `after` (what the task
    /// was submitted after). A release the stream learnt last time is not joined again (the
    /// tasks a host thread submits in a row share one).
    pub fn task_started(&mut self, s: u64, after: Option<&Released>) {
        let a = self.agent(AgentKey::Stream(s));
        let st = self.state(a);
        st.clock.tick(a);
        st.released = false;
        let Some(r) = after else { return };
        if st.joined.as_ref().is_some_and(|j| j.same(r)) {
            return;
        }
        st.joined = Some(r.clone());
        self.learn_released(a, r);
    }

    /// Block `block` of a kernel on stream `s` starts: a new step of its agent, after what
    /// the stream did before the kernel.
    pub fn block_started(&mut self, s: u64, block: u32) {
        let st = self.agent(AgentKey::Stream(s));
        let r = self.hand_out(st);
        let b = self.agent(AgentKey::block(s, block));
        let bs = self.state(b);
        bs.clock.tick(b);
        bs.released = false;
        self.learn_released(b, &r);
    }

    /// Block `block` of a kernel on stream `s` ended: the stream goes on after what it did.
    pub fn block_ended(&mut self, s: u64, block: u32) {
        let b = self.agent(AgentKey::block(s, block));
        let r = self.hand_out(b);
        let st = self.agent(AgentKey::Stream(s));
        self.learn_released(st, &r);
    }

    // ----- events, notifies, barriers, instances -----

    /// Record `seq` of event `e` executed on stream `s`.
    pub fn event_recorded(&mut self, s: u64, e: u64, seq: u64) {
        let a = self.agent(AgentKey::Stream(s));
        let r = self.hand_out(a);
        self.records.insert((e, seq), r);
        let order = self.record_order.entry(e).or_default();
        order.push_back(seq);
        // Beyond the kept number, the oldest records no queued wait names go.
        if order.len() > RECORDS_KEPT {
            let waits = &self.waits_queued;
            if let Some(i) = order.iter().position(|&q| !waits.contains_key(&(e, q))) {
                if let Some(old) = order.remove(i) {
                    self.records.remove(&(e, old));
                }
            }
        }
    }

    /// A stream wait for record `seq` of event `e` was queued: the record's clock is kept for
    /// it, however many records follow and even if the event is destroyed meanwhile.
    pub fn event_wait_queued(&mut self, e: u64, seq: u64) {
        *self.waits_queued.entry((e, seq)).or_default() += 1;
    }

    /// A queued stream wait for record `seq` of event `e` passed or was dropped.
    pub fn event_wait_gone(&mut self, e: u64, seq: u64) {
        let Some(n) = self.waits_queued.get_mut(&(e, seq)) else {
            return;
        };
        *n -= 1;
        if *n > 0 {
            return;
        }
        self.waits_queued.remove(&(e, seq));
        if self.destroyed_events.contains(&e) {
            self.records.remove(&(e, seq));
            if let Some(order) = self.record_order.get_mut(&e) {
                order.retain(|&q| q != seq);
                if order.is_empty() {
                    self.record_order.remove(&e);
                    self.destroyed_events.remove(&e);
                }
            }
        }
    }

    /// `key` waited for (or found done) record `seq` of event `e`.
    pub fn event_waited(&mut self, key: AgentKey, e: u64, seq: u64) {
        let a = self.agent(key);
        if let Some(r) = self.records.get(&(e, seq)).cloned() {
            self.learn_released(a, &r);
        }
    }

    /// Event `e` is gone: its records' clocks go too, but for those queued waits still name.
    pub fn event_destroyed(&mut self, e: u64) {
        let Some(mut order) = self.record_order.remove(&e) else {
            return;
        };
        order.retain(|&seq| {
            let named = self.waits_queued.contains_key(&(e, seq));
            if !named {
                self.records.remove(&(e, seq));
            }
            named
        });
        if !order.is_empty() {
            self.record_order.insert(e, order);
            self.destroyed_events.insert(e);
        }
    }

    /// Stream `s` set notify `n`.
    pub fn notify_set(&mut self, s: u64, n: u64) {
        let a = self.agent(AgentKey::Stream(s));
        let r = self.hand_out(a);
        self.notifies.entry(n).or_default().join_released(&r);
    }

    /// Stream `s` consumed notify `n`.
    pub fn notify_taken(&mut self, s: u64, n: u64) {
        let a = self.agent(AgentKey::Stream(s));
        if let Some(c) = self.notifies.remove(&n) {
            self.learn(a, &c);
        }
    }

    /// Stream `s` completed an INVALID with barrier id `id` (of `model`).
    pub fn barrier_done(&mut self, s: u64, model: Option<u64>, id: u32) {
        let a = self.agent(AgentKey::Stream(s));
        let r = self.hand_out(a);
        self.barriers
            .entry((model, id))
            .or_default()
            .join_released(&r);
    }

    /// Stream `s` passed a barrier wait on `ids` (of `model`).
    pub fn barrier_waited(&mut self, s: u64, model: Option<u64>, ids: &[u32]) {
        let a = self.agent(AgentKey::Stream(s));
        for &id in ids {
            if let Some(c) = self.barriers.get(&(model, id)).cloned() {
                self.learn(a, &c);
            }
        }
    }

    /// A task of instance `i` completed on stream `s`.
    pub fn instance_task_done(&mut self, i: u64, s: u64) {
        let a = self.agent(AgentKey::Stream(s));
        let r = self.hand_out(a);
        self.instances.entry(i).or_default().join_released(&r);
    }

    /// Instance `i` finished and `key` (its run's stream, or the host thread that ran it)
    /// goes on after it.
    pub fn instance_joined(&mut self, i: u64, key: AgentKey) {
        let a = self.agent(key);
        if let Some(c) = self.instances.remove(&i) {
            self.learn(a, &c);
        }
    }

    /// Instance `i` was given up on: nothing goes on after it.
    pub fn instance_forgotten(&mut self, i: u64) {
        self.instances.remove(&i);
    }

    // ----- host synchronisation -----

    /// Host thread `host` observed that stream `s` has done everything submitted so far.
    pub fn host_saw_stream(&mut self, host: u64, s: u64) {
        let h = self.agent(AgentKey::Host(host));
        if let Some(&a) = self.agents.get(&AgentKey::Stream(s)) {
            let r = self.hand_out(a);
            self.learn_released(h, &r);
        }
    }

    /// Stream `s` reached host call task `task`: the host thread that takes the call is ordered
    /// after what the stream did up to this point (not after what it does later).
    pub fn host_call_due(&mut self, s: u64, task: u64) {
        let a = self.agent(AgentKey::Stream(s));
        let r = self.hand_out(a);
        self.host_calls.insert(task, r);
    }

    /// Host thread `host` took host call task `task` to run it.
    pub fn host_call_taken(&mut self, host: u64, task: u64) {
        let h = self.agent(AgentKey::Host(host));
        if let Some(r) = self.host_calls.remove(&task) {
            self.learn_released(h, &r);
        }
    }

    /// Host call task `task` will not be taken (its stream went).
    pub fn host_call_gone(&mut self, task: u64) {
        self.host_calls.remove(&task);
    }

    /// Stream `s` goes on after host thread `host` (a blocking host call it ran returned).
    pub fn stream_saw_host(&mut self, s: u64, host: u64) {
        let h = self.agent(AgentKey::Host(host));
        let r = self.hand_out(h);
        let a = self.agent(AgentKey::Stream(s));
        self.learn_released(a, &r);
    }

    // ----- data accesses -----

    /// Checks and records a data access by `key`; `make` builds it from the agent's epoch.
    pub fn access(
        &mut self,
        key: AgentKey,
        make: impl FnOnce(clock::Epoch) -> Access,
    ) -> Vec<Conflict> {
        let a = self.agent(key);
        self.step_if_released(a);
        let clock = &self.states[a as usize].clock;
        let acc = Arc::new(make(clock.epoch(a)));
        self.shadow.access(acc, clock)
    }

    /// Host buffer `buf` is at `[base, base+len)`: if another buffer was seen there (now
    /// dropped, its memory reused), what the shadow holds of the range is forgotten.
    pub fn host_buffer_seen(&mut self, base: u64, len: u64, buf: &crate::types::HostBuf) {
        let same = self
            .host_buffers
            .get(&base)
            .and_then(|(w, _)| w.upgrade())
            .is_some_and(|b| Arc::ptr_eq(&b, buf));
        if !same {
            if let Some((_, old_len)) = self.host_buffers.remove(&base) {
                self.freed(base, base.saturating_add(old_len.max(len)));
            }
            if self.host_buffers.len() >= HOST_BUFFERS_KEPT {
                // Buffers dropped since: their ranges are forgotten with them.
                let dead: Vec<(u64, u64)> = self
                    .host_buffers
                    .iter()
                    .filter(|(_, (w, _))| w.strong_count() == 0)
                    .map(|(&b, &(_, l))| (b, l))
                    .collect();
                for (b, l) in dead {
                    self.host_buffers.remove(&b);
                    self.freed(b, b.saturating_add(l));
                }
            }
            self.host_buffers.insert(base, (Arc::downgrade(buf), len));
        }
    }

    /// Memory `[lo, hi)` was freed.
    pub fn freed(&mut self, lo: u64, hi: u64) {
        self.shadow.forget(lo, hi);
        let gone: Vec<u64> = self.words.range(lo & !7..hi).map(|(&w, _)| w).collect();
        for w in gone {
            self.words.remove(&w);
        }
    }
}

/// The 8-byte words `[addr, addr+len)` touches.
pub(crate) fn words_of(addr: u64, len: u64) -> impl Iterator<Item = u64> {
    let first = addr & !7;
    let end = addr.saturating_add(len.max(1));
    (first..end).step_by(8)
}
