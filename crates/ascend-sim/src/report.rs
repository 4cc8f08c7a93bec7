//! The run report: per-stream and per-engine task counts and busy times, value waits with
//! their durations and pass counts, never-written reads, faults and the task timeline.

use serde::{Deserialize, Serialize};

pub use crate::bounded::{keys, Bounded, BoundedKeys};

/// A name in a report record: a static string when the simulator makes the record (no
/// allocation), an owned one when a report is read back (`RunReport` is `Deserialize`).
pub type Name = std::borrow::Cow<'static, str>;

pub use crate::kept::Kept;

/// How many never-written reads are kept with their details (all are counted).
const NEVER_WRITTEN_SAMPLES: usize = 64;

/// One completed task on the timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// Task number.
    pub task: u64,
    /// Stream.
    pub stream: u64,
    /// Task kind.
    pub kind: Name,
    /// Simulated submission time.
    pub submit_ns: u64,
    /// Simulated time its dispatch started.
    pub start_ns: u64,
    /// Simulated completion time.
    pub end_ns: u64,
    /// True when it faulted.
    pub fault: bool,
    /// What it was beyond its kind (CMO type, address, bytes, value and mode, kernel and
    /// blocks, copy direction).
    #[serde(default, skip_serializing_if = "crate::task_args::TaskArgs::is_empty")]
    pub args: crate::task_args::TaskArgs,
}

/// One completed value wait.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueWaitRecord {
    /// Task number.
    pub task: u64,
    /// Stream.
    pub stream: u64,
    /// Watched address.
    pub addr: u64,
    /// Compare mode.
    pub mode: Name,
    /// Operand.
    pub value: u64,
    /// Dispatch start.
    pub start_ns: u64,
    /// Completion.
    pub end_ns: u64,
    /// `end_ns - start_ns`.
    pub duration_ns: u64,
    /// Polling passes executed (1 = released in the first pass).
    pub passes: u64,
    /// The last writer of the word when the wait was released (what released it), if known.
    pub released_by: Option<WriterName>,
}

/// A writer of device memory, said when the report is read or serialized (recording it costs
/// no formatting): a task, a host call, or a kernel block with its kernel's name; or, in a
/// report read back from its JSON, the words said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriterName {
    /// As the simulator recorded it.
    Recorded {
        /// The writer.
        writer: crate::memory::Writer,
        /// The kernel's name, for a kernel block.
        kernel: Option<std::sync::Arc<str>>,
    },
    /// As a report's JSON says it.
    Said(String),
}

impl WriterName {
    /// The writer, as recorded (`None` for a report read back from its JSON).
    pub fn writer(&self) -> Option<crate::memory::Writer> {
        match self {
            WriterName::Recorded { writer, .. } => Some(*writer),
            WriterName::Said(_) => None,
        }
    }
}

impl std::fmt::Display for WriterName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriterName::Recorded {
                writer,
                kernel: Some(k),
            } => write!(f, "kernel {k} ({writer})"),
            WriterName::Recorded {
                writer,
                kernel: None,
            } => write!(f, "{writer}"),
            WriterName::Said(s) => f.write_str(s),
        }
    }
}

impl Serialize for WriterName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for WriterName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(WriterName::Said)
    }
}

/// One read of device memory that had never been written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeverWrittenRead {
    /// Start address.
    pub addr: u64,
    /// Bytes.
    pub len: u64,
    /// Simulated time.
    pub at_ns: u64,
    /// Who read it.
    pub by: String,
}

/// How many hazards and CMO records are kept with their details (all are counted).
const HAZARD_SAMPLES: usize = 1024;
/// How many hazard records of one class are said through `tracing` (stderr in the C
/// library); the rest are counted and listed in the run report only.
const HAZARDS_LOGGED_PER_CLASS: u64 = 5;

/// A memory-side hazard: something a program did to cached data that hardware would not
/// report, named with where and when it happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hazard {
    /// The class ([`crate::HazardKind::name`]): `lost_write` (an INVALID dropped a dirty
    /// line whose data was never written back), `partial_line` (an unaligned INVALID dropped
    /// live data outside its range), `never_written_read`, `clobber` (a write-back overwrote
    /// newer data written around the L2), `stale_read` (a read through the L2 missed data
    /// written around it), `invisible_write` (a read while newer data sat in an AI core's
    /// data cache), `dcache_stale_read` (a core read its data cache's stale copy),
    /// `false_sharing` (a whole-line write-back overwrote another agent's words),
    /// `dropped_store` (`dci` or a kernel's tail discarded stores), `data_race` or
    /// `sync_word_race` (race detection, docs/races.md).
    pub kind: String,
    /// The device.
    pub device: u32,
    /// Start of the memory involved (a cache line).
    pub addr: u64,
    /// Bytes involved.
    pub len: u64,
    /// Simulated time.
    pub at_ns: u64,
    /// What happened (at the first occurrence), with the writer of the lost data where
    /// known.
    pub detail: String,
    /// Occurrences this record stands for: the hazards of its class that one operation
    /// caused at one instant, said alike but for their addresses and figures (an INVALID
    /// dropping 8,192 dirty lines is one record of 8,192), over `[addr, addr+len)`.
    #[serde(default = "one")]
    pub count: u64,
}

fn one() -> u64 {
    1
}

impl Hazard {
    /// What it says with its addresses and times left out (hexadecimal numbers, and numbers
    /// of ns): hazards alike in this, of one class, at one instant, are one record. Task
    /// numbers and other figures stay, so that hazards of other writers stay apart.
    fn shape(&self) -> String {
        let mut out = String::with_capacity(self.detail.len());
        let mut words = self.detail.split(' ').peekable();
        while let Some(w) = words.next() {
            let bare = w.trim_start_matches(['[', '(']);
            let lead = &w[..w.len() - bare.len()];
            let is_hex = bare.starts_with("0x");
            let is_time = bare.chars().all(|c| c.is_ascii_digit())
                && !bare.is_empty()
                && words.peek().is_some_and(|n| n.starts_with("ns"));
            if is_hex || is_time {
                let tail = bare.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
                out.push_str(lead);
                out.push('#');
                out.push_str(tail);
            } else {
                out.push_str(w);
            }
            out.push(' ');
        }
        out
    }
}

/// What one CMO task did to its device's L2.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmoRecord {
    /// The operation.
    pub op: String,
    /// Start of the range.
    pub addr: u64,
    /// Bytes of the range.
    pub len: u64,
    /// Lines acted on.
    pub lines: u64,
    /// Bytes written back to memory.
    pub bytes_written_back: u64,
    /// Bytes read from memory into the L2 (PREFETCH).
    pub bytes_filled: u64,
    /// Dirty lines dropped without write-back (INVALID).
    pub lines_lost: u64,
    /// True when the range was not aligned to lines (whole lines beyond it were acted on).
    pub partial_lines: bool,
    /// Simulated completion time.
    pub at_ns: u64,
}

/// The number of INVALID CMOs outstanding on one barrier id, from the moment it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BarrierSample {
    /// The device of the stream whose task changed it.
    pub device: u32,
    /// The model whose barrier-id map the id belongs to.
    pub model: Option<u64>,
    /// The logical barrier id.
    pub barrier_id: u32,
    /// Simulated time of the change.
    pub at_ns: u64,
    /// INVALIDs with this id dispatched and not yet completed.
    pub outstanding: u32,
}

/// One block of a kernel task, as it ran on an AI core.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelBlockRecord {
    /// The kernel task.
    pub task: u64,
    /// Its stream.
    pub stream: u64,
    /// The kernel's name.
    pub kernel: String,
    /// The block index.
    pub block: u32,
    /// The device.
    pub device: u32,
    /// The AI core it ran on.
    pub core: u32,
    /// When it started.
    pub start_ns: u64,
    /// When it ended.
    pub end_ns: u64,
    /// Operations it performed (loads, stores, cache upkeep, copies, spins).
    pub ops: u64,
    /// When its last operations were loads of one word (polling): the writer of that word at
    /// the block's end (what released it, if it waited for the word).
    pub last_polled_writer: Option<String>,
    /// Why it ended early, if it did.
    pub fault: Option<String>,
}

/// One job of a copy engine or CMO engine, from the moment it took the engine to its end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineJob {
    /// The device.
    pub device: u32,
    /// The engine (`copy` or `cmo`).
    pub engine: Name,
    /// The task.
    pub task: u64,
    /// Its stream.
    pub stream: u64,
    /// The task's kind.
    pub kind: Name,
    /// When it took the engine (its setup began).
    pub start_ns: u64,
    /// When its setup ended and it began moving data.
    pub moving_ns: u64,
    /// When it ended.
    pub end_ns: u64,
    /// Bytes the task names (its length).
    pub bytes: u64,
}

/// One device's L2 figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheReport {
    /// The device.
    pub device: u32,
    /// Hits, misses, dirty evictions, bytes written back, dirty lines dropped.
    pub l2: crate::cache::L2Stats,
    /// Lines resident now.
    pub resident_lines: u64,
}

/// Data the engine collects while it runs. Each list of records is bounded
/// ([`Kept`]: its first and its latest records, the rest counted); the figures are aggregates.
#[derive(Debug, Default, Clone)]
pub struct ReportData {
    /// Completed value waits (bounded like the timeline).
    pub value_waits: Kept<ValueWaitRecord>,
    /// Number of never-written reads.
    pub never_written_reads: u64,
    /// The first few never-written reads.
    pub never_written: Vec<NeverWrittenRead>,
    /// Task faults, in order (bounded like the timeline).
    pub faults: Kept<String>,
    /// Completed tasks (bounded by `SimConfig::max_timeline_entries`).
    pub timeline: Kept<Span>,
    /// The latest completion of any task, kept or not.
    pub latest_end_ns: u64,
    /// Figures of destroyed streams (bounded like the timeline).
    pub destroyed_streams: Kept<StreamReport>,
    /// Hazards, in order (bounded), alike ones of one instant merged.
    pub hazards: Kept<Hazard>,
    /// Occurrences of each class, however many records were kept.
    pub hazard_counts: std::collections::BTreeMap<String, u64>,
    /// Records of each class said through `tracing`.
    hazards_logged: std::collections::BTreeMap<String, u64>,
    /// The shape of the record pushed last ([`Hazard::shape`]).
    last_hazard_shape: String,
    /// CMO tasks' effects, in order (bounded).
    pub cmos: Kept<CmoRecord>,
    /// Barrier counter changes, in order (bounded like the timeline).
    pub barriers: Kept<BarrierSample>,
    /// Kernel blocks that ended, in order (bounded like the timeline).
    pub kernel_blocks: Kept<KernelBlockRecord>,
    /// Copy-engine and CMO-engine jobs that ended, in order (bounded like the timeline).
    pub engine_jobs: Kept<EngineJob>,
    /// Tasks discarded without running (their stream destroyed by force, aborted, or stopped
    /// after a failure), in order (bounded like the timeline).
    pub discarded: Kept<DiscardedTask>,
    /// Simulated time skipped while only kernels spun without effect (fast-forward).
    pub fast_forwarded_ns: u64,
}

/// A task discarded without running.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiscardedTask {
    /// Task number.
    pub task: u64,
    /// Its stream.
    pub stream: u64,
    /// What it was.
    pub kind: Name,
    /// When it was submitted.
    pub submit_ns: u64,
    /// When it was discarded.
    pub at_ns: u64,
}

impl ReportData {
    /// Records a hazard: counted in its class; merged into the record pushed last when that
    /// one is of its class, device and instant and says the same but for addresses and
    /// figures; else a record of its own, said through `tracing` while its class has said
    /// fewer than a few.
    pub fn note_hazard(&mut self, hazard: Hazard) {
        *self.hazard_counts.entry(hazard.kind.clone()).or_default() += 1;
        let shape = hazard.shape();
        if let Some(last) = self.hazards.last_mut() {
            let alike = last.kind == hazard.kind
                && last.device == hazard.device
                && last.at_ns == hazard.at_ns
                && self.last_hazard_shape == shape;
            if alike {
                let lo = last.addr.min(hazard.addr);
                let hi = last
                    .addr
                    .saturating_add(last.len)
                    .max(hazard.addr.saturating_add(hazard.len));
                last.addr = lo;
                last.len = hi - lo;
                last.count += hazard.count;
                return;
            }
        }
        let logged = self.hazards_logged.entry(hazard.kind.clone()).or_default();
        *logged += 1;
        let logged = *logged;
        if logged <= HAZARDS_LOGGED_PER_CLASS {
            self.log_hazard(&hazard);
        }
        if logged == HAZARDS_LOGGED_PER_CLASS {
            ascend_types::warn_user!(
                "{HAZARDS_LOGGED_PER_CLASS} {} hazards said; the class's others are counted in \
                 the run report only",
                hazard.kind
            );
        }
        self.last_hazard_shape = shape;
        self.hazards.push(HAZARD_SAMPLES, hazard);
    }

    /// Says a hazard: through `tracing` with its fields where the program has a logger, else
    /// on standard error, so that a Rust program that set up no logging still sees it.
    fn log_hazard(&self, hazard: &Hazard) {
        if !ascend_types::warning::has_logger() {
            eprintln!(
                "ascend-sim: hazard {} on device {} at {:#x}, {} ns: {}",
                hazard.kind, hazard.device, hazard.addr, hazard.at_ns, hazard.detail
            );
            return;
        }
        tracing::warn!(
            kind = %hazard.kind,
            device = hazard.device,
            addr = format_args!("{:#x}", hazard.addr),
            at_ns = hazard.at_ns,
            "hazard: {}",
            hazard.detail
        );
    }

    /// Records what a CMO task did.
    pub fn note_cmo(&mut self, record: CmoRecord) {
        self.cmos.push(HAZARD_SAMPLES, record);
    }

    /// Counts a read of never-written memory.
    pub fn note_never_written(&mut self, addr: u64, len: u64, at_ns: u64, by: &str) {
        // Counted always; said (logged) as a hazard when its setting records it.
        self.never_written_reads += 1;
        if self.never_written.len() < NEVER_WRITTEN_SAMPLES {
            self.never_written.push(NeverWrittenRead {
                addr,
                len,
                at_ns,
                by: by.to_string(),
            });
        }
    }

    /// Adds a fault to the bounded list (`limit` records).
    pub fn push_fault(&mut self, fault: String, limit: usize) {
        self.faults.push(limit, fault);
    }

    /// Keeps the figures of a stream being destroyed (`limit` streams).
    pub fn keep_destroyed_stream(&mut self, id: u64, s: &crate::stream::Stream, limit: usize) {
        let mut r = StreamReport::of(id, s);
        r.destroyed = true;
        self.destroyed_streams.push(limit, r);
    }

    /// Adds an engine job (`limit` records).
    pub fn push_engine_job(&mut self, job: EngineJob, limit: usize) {
        self.engine_jobs.push(limit, job);
    }

    /// Adds a completed task to the timeline (`limit` records).
    pub fn push_span(&mut self, span: Span, limit: usize) {
        self.latest_end_ns = self.latest_end_ns.max(span.end_ns);
        self.timeline.push(limit, span);
    }

    /// Adds a barrier counter sample (`limit` records).
    pub fn note_barrier(&mut self, sample: BarrierSample, limit: usize) {
        self.barriers.push(limit, sample);
    }

    /// Adds a kernel block that ended (`limit` records).
    pub fn note_kernel_block(&mut self, record: KernelBlockRecord, limit: usize) {
        self.kernel_blocks.push(limit, record);
    }

    /// Adds a completed value wait (`limit` records).
    pub fn note_value_wait(&mut self, record: ValueWaitRecord, limit: usize) {
        self.value_waits.push(limit, record);
    }
}

/// Per-stream figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamReport {
    /// Stream.
    pub stream: u64,
    /// Device.
    pub device: u32,
    /// Priority (0 highest).
    pub priority: u32,
    /// Tasks completed.
    pub tasks: u64,
    /// Sum of task execution times (dispatch start to completion).
    pub busy_ns: u64,
    /// The part of `busy_ns` its waits spent (value, event, notify and barrier waits, model
    /// runs waiting for their instance, blocking host calls waiting for the host).
    #[serde(default)]
    pub wait_ns: u64,
    /// Completion time of its last task.
    pub end_ns: u64,
    /// The stream was destroyed (its figures are those it had then).
    pub destroyed: bool,
    /// Whose stream it is, where the simulator serves several programs (the shared device
    /// service: "process 1234").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

impl StreamReport {
    fn of(id: u64, s: &crate::stream::Stream) -> StreamReport {
        StreamReport {
            stream: id,
            device: s.device,
            priority: s.priority,
            tasks: s.tasks_done,
            busy_ns: s.busy_ns,
            wait_ns: s.wait_ns,
            end_ns: s.end_ns,
            destroyed: false,
            owner: s.owner.as_deref().map(str::to_string),
        }
    }
}

/// Per-engine figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineReport {
    /// Device.
    pub device: u32,
    /// `scheduler`, `copy` or `cmo`.
    pub engine: String,
    /// Tasks (dispatches for the scheduler, jobs for the others).
    pub tasks: u64,
    /// Time with work in progress.
    pub busy_ns: u64,
    /// Time its last piece of work ended.
    pub end_ns: u64,
}

/// The run report. It reads back from its JSON (`serde_json::from_str`); a field missing
/// there (a report of an older library) reads as empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunReport {
    /// SoC name.
    pub chip: String,
    /// The simulated clock when the report was made.
    pub now_ns: u64,
    /// Latest task completion.
    pub end_ns: u64,
    /// Streams, live and destroyed (marked), by stream number. (with how many were left out)
    #[serde(flatten)]
    pub streams: Bounded<StreamReport, keys::Streams>,
    /// Engines with any work.
    pub engines: Vec<EngineReport>,
    /// Completed value waits (bounded by `SimConfig::max_timeline_entries`). (with how many were left out)
    #[serde(flatten)]
    pub value_waits: Bounded<ValueWaitRecord, keys::ValueWaits>,
    /// Reads of never-written device memory (count).
    pub never_written_reads: u64,
    /// The first of them, with details.
    pub never_written: Vec<NeverWrittenRead>,
    /// Task faults (bounded by `SimConfig::max_timeline_entries`). (with how many were left out)
    #[serde(flatten)]
    pub faults: Bounded<String, keys::Faults>,
    /// Completed tasks in completion order (bounded by `SimConfig::max_timeline_entries`). (with how many were left out)
    #[serde(flatten)]
    pub timeline: Bounded<Span, keys::Timeline>,
    /// Bytes of backing store the simulated device memory holds.
    pub backing_bytes: u64,
    /// Each device's L2 figures.
    pub caches: Vec<CacheReport>,
    /// Memory-side hazards (bounded). (with how many were left out)
    #[serde(flatten)]
    pub hazards: Bounded<Hazard, keys::Hazards>,
    /// Occurrences of each hazard class (every one, merged and left-out records included).
    pub hazard_counts: std::collections::BTreeMap<String, u64>,
    /// What each CMO task did (bounded). (with how many were left out)
    #[serde(flatten)]
    pub cmos: Bounded<CmoRecord, keys::Cmos>,
    /// Every change of a barrier counter (bounded by `SimConfig::max_timeline_entries`). (with how many were left out)
    #[serde(flatten)]
    pub barriers: Bounded<BarrierSample, keys::Barriers>,
    /// Every kernel block that ended (bounded by `SimConfig::max_timeline_entries`). (with how many were left out)
    #[serde(flatten)]
    pub kernel_blocks: Bounded<KernelBlockRecord, keys::KernelBlocks>,
    /// Every copy-engine and CMO-engine job that ended (bounded by
    /// `SimConfig::max_timeline_entries`). (with how many were left out)
    #[serde(flatten)]
    pub engine_jobs: Bounded<EngineJob, keys::EngineJobs>,
    /// Tasks discarded without running (bounded by `SimConfig::max_timeline_entries`). (with how many were left out)
    #[serde(flatten)]
    pub discarded: Bounded<DiscardedTask, keys::Discarded>,
    /// Simulated time skipped while only kernels spun without effect, in ns.
    pub fast_forwarded_ns: u64,
    /// The host clock when the report was made.
    pub host_ns: u64,
    /// The host threads' API calls, as the library brackets them (bounded by
    /// `SimConfig::max_timeline_entries`). (with how many were left out)
    #[serde(flatten)]
    pub host_calls: Bounded<crate::host_track::HostCallSpan, keys::HostCalls>,
    /// Per host thread: its calls, and the host time in calls and in waits.
    pub host_threads: Vec<crate::host_track::HostThreadReport>,
    /// The failures the program received from the API, by call and code: filled by the C
    /// library (`libascendcl.so`), which sees every entry point return; absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_errors: Option<Vec<ApiErrorCount>>,
}

/// How often one API call returned one error code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiErrorCount {
    /// The call (`aclrtMalloc`).
    pub call: String,
    /// The code it returned.
    pub code: i32,
    /// How many times.
    pub count: u64,
    /// The first one's message.
    pub first: String,
}

impl crate::engine::Engine {
    /// Builds the report.
    pub fn build_report(&self) -> RunReport {
        let mut streams: Vec<StreamReport> = self
            .streams
            .iter()
            .map(|(&id, s)| StreamReport::of(id, s))
            .chain(self.report.destroyed_streams.iter().cloned())
            .collect();
        streams.sort_by_key(|s| s.stream);
        let mut engines = Vec::new();
        for (d, (tasks, busy)) in self.sched_stats.iter().enumerate() {
            if *tasks > 0 {
                engines.push(EngineReport {
                    device: d as u32,
                    engine: "scheduler".into(),
                    tasks: *tasks,
                    busy_ns: *busy,
                    end_ns: self.sched_free[d],
                });
            }
            for p in &self.pools[d] {
                if p.tasks > 0 {
                    engines.push(EngineReport {
                        device: d as u32,
                        engine: p.name.into(),
                        tasks: p.tasks,
                        busy_ns: p.busy_ns,
                        end_ns: p.end_ns,
                    });
                }
            }
        }
        let r = &self.report;
        RunReport {
            chip: self.chip.soc_name.clone(),
            now_ns: self.now,
            end_ns: r
                .latest_end_ns
                .max(streams.iter().map(|s| s.end_ns).max().unwrap_or(0)),
            streams: Bounded::new(streams, r.destroyed_streams.dropped()),
            engines,
            value_waits: Bounded::new(r.value_waits.to_vec(), r.value_waits.dropped()),
            never_written_reads: r.never_written_reads,
            never_written: r.never_written.clone(),
            faults: Bounded::new(r.faults.to_vec(), r.faults.dropped()),
            timeline: Bounded::new(r.timeline.to_vec(), r.timeline.dropped()),
            backing_bytes: self.mem.backing_bytes(),
            caches: self
                .l2
                .iter()
                .enumerate()
                .map(|(d, l2)| CacheReport {
                    device: d as u32,
                    l2: l2.stats(),
                    resident_lines: l2.resident_lines(),
                })
                .collect(),
            hazards: Bounded::new(r.hazards.to_vec(), r.hazards.dropped()),
            hazard_counts: r.hazard_counts.clone(),
            cmos: Bounded::new(r.cmos.to_vec(), r.cmos.dropped()),
            barriers: Bounded::new(r.barriers.to_vec(), r.barriers.dropped()),
            kernel_blocks: Bounded::new(r.kernel_blocks.to_vec(), r.kernel_blocks.dropped()),
            engine_jobs: Bounded::new(r.engine_jobs.to_vec(), r.engine_jobs.dropped()),
            discarded: Bounded::new(r.discarded.to_vec(), r.discarded.dropped()),
            fast_forwarded_ns: r.fast_forwarded_ns,
            host_ns: self.host_time(),
            host_calls: Bounded::default(),
            host_threads: Vec::new(),
            api_errors: None,
        }
    }
}
