//! The raw probe (feature `hw`): a table of raw ACL calls, mostly with invalid arguments, made
//! directly on a loaded runtime library through `ascend-rt-sys`, each compared with what the
//! front end predicts for the same call.
//!
//! Design principle 2 says the front end decides what is legal and backends only see validated
//! calls, so the ordinary `hw` suite never shows an invalid row to the library. The probe
//! does: both sides build the same state (device 0 set; a zeroed 256-byte device buffer, a
//! 128-byte descriptor buffer, 64 bytes of `aclrtMallocHost` memory, a plain, a persistent and
//! a model-bound stream, a destroyed stream, an event, a model still building) and then run
//! every `Row` in the same order, on the probing thread or on a fresh thread with
//! no current context:
//!
//! - the library side (`raw`): the C function itself, on the library's own handles;
//! - the prediction (`front`): [`ascend_rt::Runtime::sim`] of the SoC the library reports
//!   (`aclrtGetSocName`), through the raw Rust API with the same arguments.
//!
//! Over the project's own `libascendcl.so` this checks the C ABI end to end (argument passing
//! of every probed export); over CANN's library it is the real conformance check of the
//! validation order.
//!
//! The rows are in `rows_tasks` (the eight target APIs, docs/validation/cmo.md and
//! value-write-wait.md) and `rows_support` (docs/validation/devices-contexts.md, memory.md,
//! streams-events.md, models.md); their vocabulary is in `call`.

mod call;
pub mod coverage;
mod front;
pub mod oracle_known;
mod random;
mod raw;
mod rows_support;
mod rows_tasks;

pub use random::random_sequence;

use std::fmt::Write as _;

use ascend_rt_sys::Library;

use call::{Call, Row, Strm, Thread};

/// What one call returned: the code and, for `aclrtCmoGetDescSize`, the size it wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// The return code (0: success).
    pub code: i32,
    /// The value written through the out-parameter, where the probe compares it.
    pub value: Option<u64>,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.code)?;
        if let Some(v) = self.value {
            write!(f, " (out {v})")?;
        }
        Ok(())
    }
}

/// The probe's objects on one side, by that side's handle types.
pub(crate) struct Fixture<A, S, E, M> {
    pub dev: A,
    pub desc: A,
    pub pinned: A,
    pub plain: S,
    pub persistent: S,
    pub bound: S,
    pub destroyed: S,
    pub event: E,
    /// The flagged events (`Evt::Sync`, `TimeLine`, `External`, in that order); a side that
    /// could not create one passes NULL for it.
    pub flagged: [E; 3],
    pub model: M,
}

/// The flagged events, in the order of [`Fixture::flagged`].
pub(crate) const FLAGGED: [call::Evt; 3] =
    [call::Evt::Sync, call::Evt::TimeLine, call::Evt::External];

/// Where the registered host range starts in a side's pageable buffer, and its length: the
/// buffer holds the pageable range (`Ptr::Pageable`, 512 bytes) and then the registered one
/// (`Ptr::Registered`, 256 bytes), so that one lock covers both.
pub(crate) const REGISTERED_AT: usize = 512;
/// The length of the registered range.
pub(crate) const REGISTERED_LEN: usize = 256;

/// Where a host range the C library passes as a slice (pageable or registered) lies in a
/// side's pageable buffer; `None` for memory passed by address.
pub(crate) fn host_range(p: call::Ptr) -> Option<std::ops::Range<usize>> {
    match p {
        call::Ptr::Pageable => Some(0..REGISTERED_AT),
        call::Ptr::Registered => Some(REGISTERED_AT..REGISTERED_AT + REGISTERED_LEN),
        _ => None,
    }
}

impl<A, S: Copy, E: Copy, M> Fixture<A, S, E, M> {
    /// The event a symbolic argument names (`null` is the side's NULL).
    pub(crate) fn event_of(&self, e: call::Evt, null: E) -> E {
        match e {
            call::Evt::Null => null,
            call::Evt::Live => self.event,
            other => FLAGGED
                .iter()
                .position(|&f| f == other)
                .map_or(null, |i| self.flagged[i]),
        }
    }

    /// The stream a symbolic argument names (`null` and `garbage` are the side's values).
    pub(crate) fn stream(&self, s: Strm, null: S, garbage: S) -> S {
        match s {
            Strm::Null => null,
            Strm::Plain => self.plain,
            Strm::Persistent => self.persistent,
            Strm::Bound => self.bound,
            Strm::Destroyed => self.destroyed,
            Strm::Garbage => garbage,
        }
    }
}

/// One side of the comparison.
pub(crate) trait Side: Sync {
    /// Makes the call on the calling thread; `Err` when it cannot be made at all (a function
    /// missing from the library).
    fn exec(&self, call: &Call) -> Result<Outcome, String>;
    /// Releases the probe's objects; returns the steps that failed.
    fn teardown(&self) -> Vec<String>;
}

/// Runs `f` on the row's thread: this one, or a fresh thread with no context; `panicked` is
/// the result when the call panics there.
pub(crate) fn on_thread<T: Send>(thread: Thread, f: impl FnOnce() -> T + Send, panicked: T) -> T {
    match thread {
        Thread::Main => f(),
        Thread::Fresh => std::thread::scope(|s| s.spawn(f).join().unwrap_or(panicked)),
    }
}

/// Runs a row on its thread.
fn run_row(side: &dyn Side, row: &Row) -> Result<Outcome, String> {
    on_thread(
        row.thread,
        || side.exec(&row.call),
        Err("the call panicked".into()),
    )
}

/// Whether `ASCEND_PROBE_TRACE=1` asks for each row and teardown step to be named on standard
/// error before the library runs it (so that one it never returns from is named).
pub(crate) fn tracing() -> bool {
    std::env::var("ASCEND_PROBE_TRACE").as_deref() == Ok("1")
}

/// One probed row: the call and both results.
#[derive(Debug, Clone)]
pub struct ProbeRow {
    /// The ACL function.
    pub api: &'static str,
    /// Its arguments, symbolically, with `[fresh thread]` for rows without a context.
    pub args: String,
    /// What the library returned.
    pub library: Result<Outcome, String>,
    /// What the front end predicted.
    pub predicted: Result<Outcome, String>,
}

impl ProbeRow {
    /// Whether the library and the prediction agree.
    pub fn agrees(&self) -> bool {
        matches!((&self.library, &self.predicted), (Ok(a), Ok(b)) if a == b)
    }
}

/// The result of a probe run.
#[derive(Debug, Clone)]
pub struct ProbeReport {
    /// The SoC the library reported.
    pub soc: String,
    /// Every row, in order.
    pub rows: Vec<ProbeRow>,
    /// Teardown steps that failed on either side (informational).
    pub teardown: Vec<String>,
}

fn show(r: &Result<Outcome, String>) -> String {
    match r {
        Ok(o) => o.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

impl ProbeReport {
    /// The rows where the library and the front end disagree.
    pub fn mismatches(&self) -> Vec<&ProbeRow> {
        self.rows.iter().filter(|r| !r.agrees()).collect()
    }

    /// A summary line and the table of mismatches (API, arguments, library code, predicted).
    pub fn table(&self) -> String {
        let bad = self.mismatches();
        let mut out = format!(
            "raw probe on {}: {} rows, {} mismatch(es)\n",
            self.soc,
            self.rows.len(),
            bad.len()
        );
        for r in &bad {
            let _ = writeln!(
                out,
                "  MISMATCH {}({}): library {}, predicted {}",
                r.api,
                r.args,
                show(&r.library),
                show(&r.predicted)
            );
        }
        for t in &self.teardown {
            let _ = writeln!(out, "  teardown: {t}");
        }
        out
    }

    /// Every row: API, arguments, library code, predicted code, and `MISMATCH` where they
    /// differ.
    pub fn full_table(&self) -> String {
        let mut out = format!("raw probe on {}: every row\n", self.soc);
        for r in &self.rows {
            let mark = if r.agrees() { "" } else { "  MISMATCH" };
            let _ = writeln!(
                out,
                "  {}({}): library {}, predicted {}{mark}",
                r.api,
                r.args,
                show(&r.library),
                show(&r.predicted)
            );
        }
        out + &self.table()
    }

    /// Panics with the table if any row disagrees.
    pub fn assert_agrees(&self, label: &str) {
        assert!(self.mismatches().is_empty(), "[{label}] {}", self.table());
    }
}

/// Every row, in the order both sides run them.
fn rows() -> Vec<Row> {
    [rows_tasks::rows(), rows_support::rows()].concat()
}

/// Runs the probe on `lib` (initialised here with `aclInit(NULL)` if it is not already; never
/// finalised) against the front end's prediction for the SoC it reports.
pub fn probe_library(lib: &Library) -> Result<ProbeReport, String> {
    probe_rows(lib, rows())
}

/// Runs the random sequence of `len` rows drawn with `seed` ([`random_sequence`]) on `lib`
/// and on the front end, each from a fresh copy of the probe's state, and compares them row
/// by row.
pub fn probe_random(lib: &Library, seed: u64, len: usize) -> Result<ProbeReport, String> {
    probe_rows(lib, random::random_rows(seed, len))
}

/// Runs `rows` on both sides, in order, from a fresh copy of the probe's state.
fn probe_rows(lib: &Library, rows: Vec<Row>) -> Result<ProbeReport, String> {
    let raw = raw::RawSide::new(lib)?;
    let soc = raw.soc().to_string();
    let front = front::FrontSide::new(&soc)?;
    let mut out = Vec::new();
    let trace = tracing();
    for (i, row) in rows.into_iter().enumerate() {
        let (api, mut args) = row.call.describe();
        if row.thread == Thread::Fresh {
            args.push_str(" [fresh thread]");
        }
        if trace {
            eprintln!("probe row {i}: {api}({args})");
        }
        let library = run_row(&raw, &row);
        let predicted = run_row(&front, &row);
        out.push(ProbeRow {
            api,
            args,
            library,
            predicted,
        });
    }
    if trace {
        eprintln!("probe teardown");
    }
    let mut teardown: Vec<String> = raw
        .teardown()
        .into_iter()
        .map(|t| format!("library: {t}"))
        .collect();
    teardown.extend(
        front
            .teardown()
            .into_iter()
            .map(|t| format!("front end: {t}")),
    );
    Ok(ProbeReport {
        soc,
        rows: out,
        teardown,
    })
}
