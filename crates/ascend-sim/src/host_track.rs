//! The host's side of the timeline: each API call a host thread made, with its simulated start
//! and end on the host clock, the time it spent blocked on the device, its return code and the
//! tasks it submitted (the trace draws an arrow from the call to each).
//!
//! A caller (the C library, at each entry point) brackets a call with [`Sim::host_call_begin`](crate::Sim::host_call_begin)
//! and [`Sim::host_call_end`](crate::Sim::host_call_end). What happens in between is collected on the calling thread
//! without the engine's lock: the tasks it submits and the time it waits. The finished call
//! goes into a log of its own, behind a lock no device work takes.
//!
//! ```
//! use ascend_sim::{Sim, SimConfig, Task};
//! use ascend_chips::ChipProfile;
//! let sim = Sim::new(ChipProfile::builtin("Ascend910B1").unwrap(), SimConfig::default());
//! let s = sim.create_stream(0, 0, false).unwrap();
//! let x = sim.malloc(0, 8).unwrap();
//! sim.host_call_begin("aclrtValueWrite");
//! sim.submit(s, Task::ValueWrite { addr: x, value: 1 }).unwrap();
//! sim.host_call_end(0);
//! let report = sim.report();
//! assert_eq!(report.host_calls[0].name, "aclrtValueWrite");
//! assert_eq!(report.host_calls[0].tasks.len(), 1);
//! ```

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use serde::Serialize;

use crate::kept::Kept;

/// One API call of a host thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct HostCallSpan {
    /// The host thread (numbered from 1 in the order threads first called).
    pub thread: u32,
    /// The call (`aclrtMemcpy`).
    pub name: crate::report::Name,
    /// Its arguments, as the caller gave them (empty when not given).
    pub args: String,
    /// When it started on the host clock, in ns.
    pub start_ns: u64,
    /// When it returned, in ns.
    pub end_ns: u64,
    /// Of its duration, the time it was blocked on the device (a synchronize, a full queue).
    pub wait_ns: u64,
    /// Its return code (0: success).
    pub code: i32,
    /// The tasks it submitted.
    pub tasks: Vec<u64>,
}

/// Per host thread: its calls and where their time went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct HostThreadReport {
    /// The host thread.
    pub thread: u32,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// API calls made.
    pub calls: u64,
    /// Host time in calls, waits included, in ns.
    pub call_ns: u64,
    /// Of that, time blocked on the device, in ns.
    pub wait_ns: u64,
}

/// A call under way on this thread.
#[derive(Debug)]
struct Open {
    name: &'static str,
    args: String,
    start_ns: u64,
    wait_ns: u64,
    tasks: Vec<u64>,
}

thread_local! {
    /// The calls under way on this thread, innermost last (a callback run inside
    /// `aclrtProcessReport` makes calls of its own).
    static OPEN: RefCell<Vec<Open>> = const { RefCell::new(Vec::new()) };
    /// This thread's number (0: not numbered yet).
    static THREAD: Cell<u32> = const { Cell::new(0) };
}

/// Thread numbers handed out so far.
static THREADS: AtomicU32 = AtomicU32::new(0);

/// Some call was ever bracketed in this process: until then, submissions and waits skip the
/// thread-local look-up.
static BRACKETED: AtomicBool = AtomicBool::new(false);

/// This thread's number, given on first use.
fn thread_number() -> u32 {
    THREAD.with(|t| {
        if t.get() == 0 {
            t.set(THREADS.fetch_add(1, Ordering::Relaxed) + 1);
        }
        t.get()
    })
}

/// A task submitted on this thread: it belongs to the innermost call under way, if any.
pub(crate) fn note_task(task: u64) {
    if !BRACKETED.load(Ordering::Relaxed) {
        return;
    }
    OPEN.with(|o| {
        if let Some(open) = o.borrow_mut().last_mut() {
            open.tasks.push(task);
        }
    });
}

/// This thread was blocked on the device for `ns` of host time.
pub(crate) fn note_wait(ns: u64) {
    if !BRACKETED.load(Ordering::Relaxed) {
        return;
    }
    OPEN.with(|o| {
        if let Some(open) = o.borrow_mut().last_mut() {
            open.wait_ns += ns;
        }
    });
}

/// The host calls of a run: the latest calls (bounded) and every thread's totals.
#[derive(Debug, Default)]
pub(crate) struct HostLog {
    calls: Kept<HostCallSpan>,
    threads: BTreeMap<u32, HostThreadReport>,
}

impl HostLog {
    /// The calls kept, and how many were left out.
    pub(crate) fn calls(&self) -> (Vec<HostCallSpan>, u64) {
        (self.calls.to_vec(), self.calls.dropped())
    }

    /// Every thread's totals.
    pub(crate) fn threads(&self) -> Vec<HostThreadReport> {
        self.threads.values().cloned().collect()
    }
}

/// The host clock as last published by the engine, readable without its lock.
#[derive(Debug, Default)]
pub(crate) struct PublishedHostClock(AtomicU64);

impl PublishedHostClock {
    pub(crate) fn set(&self, ns: u64) {
        self.0.store(ns, Ordering::Relaxed);
    }

    pub(crate) fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

impl crate::Sim {
    /// A host API call named `name` starts on this thread (at the host clock's time). Pair it
    /// with [`crate::Sim::host_call_end`].
    pub fn host_call_begin(&self, name: &'static str) {
        self.host_call_begin_with(name, String::new());
    }

    /// [`crate::Sim::host_call_begin`], with the call's arguments as text
    /// (`"dst=0x…, count=4096"`).
    pub fn host_call_begin_with(&self, name: &'static str, args: String) {
        BRACKETED.store(true, Ordering::Relaxed);
        let start_ns = self.host_clock().get();
        OPEN.with(|o| {
            o.borrow_mut().push(Open {
                name,
                args,
                start_ns,
                wait_ns: 0,
                tasks: Vec::new(),
            })
        });
    }

    /// The innermost call started on this thread returns `code`: it joins the host track.
    pub fn host_call_end(&self, code: i32) {
        let Some(open) = OPEN.with(|o| o.borrow_mut().pop()) else {
            return;
        };
        let end_ns = self.host_clock().get().max(open.start_ns);
        let thread = thread_number();
        let span = HostCallSpan {
            thread,
            name: open.name.into(),
            args: open.args,
            start_ns: open.start_ns,
            end_ns,
            wait_ns: open.wait_ns,
            code,
            tasks: open.tasks,
        };
        let limit = self.config().max_timeline_entries;
        let mut log = self.host_log().lock().unwrap_or_else(|p| p.into_inner());
        let totals = log
            .threads
            .entry(thread)
            .or_insert_with(|| HostThreadReport {
                thread,
                name: std::thread::current().name().map(str::to_string),
                calls: 0,
                call_ns: 0,
                wait_ns: 0,
            });
        totals.calls += 1;
        totals.call_ns += span.end_ns - span.start_ns;
        totals.wait_ns += span.wait_ns;
        log.calls.push(limit, span);
    }
}
