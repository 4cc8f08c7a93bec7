//! `ascend-sim`: a deterministic, cycle-approximate model of the runtime-visible part of an
//! Ascend NPU: device memory, stream queues, the task scheduler and copy engine, value
//! write/wait, events and model running instances.
//!
//! The host-facing entry point is [`Sim`], which is `Send + Sync`: host threads submit tasks
//! and block in synchronize calls; a single engine behind a mutex executes the tasks in
//! simulated time. Simulated time advances only by the model, never by the wall clock, so the
//! same program on the same chip gives the same timeline, bit for bit.
//!
//! The simulator executes only what it is given: API validation (CANN's error codes) happens
//! once, above it, in `ascend-rt`.
//!
//! Layout: [`memory`] (address spaces, the allocator and backing pages), `stream` (queues),
//! `engine` (the discrete-event core, with its object registries, submission and waiter sets),
//! `exec` (what each task does, a file per task family), `facade` ([`Sim`], a file per group of
//! calls), `copy_pool` (bandwidth-shared engines),
//! [`compare`] (wait predicates), `objects` (events, models), `diagnose` (the watchdog's
//! explanation), [`report`] (the run report), [`progress`] (tasks done and time reached, for a progress display), [`trace`] (the timeline as a Chrome trace for
//! Perfetto), [`cache`] (the L2 in the data path, and the writes around it), `sync` (the host-thread primitives: `std::sync`, or
//! `loom::sync` under `--cfg loom`, with the watchdog's timed wait modelled for loom).

mod bounded;
pub mod cache;
pub mod compare;
mod copy_pool;
mod core_thread;
mod diagnose;
mod engine;
mod exec;
mod facade;
pub mod host_track;
mod kept;
mod kernel;
pub mod memory;
mod objects;
pub mod pacing;
pub mod progress;
mod races;
mod random;
mod reduce;
pub mod report;
mod schedule;
mod stream;
mod sync;
pub mod task_args;
pub mod task_sites;
pub mod trace;
mod trace_host;
mod types;

pub use engine::DueHostCall;
pub use facade::{
    act_as_host_thread, label_host_thread, new_host_thread, service_thread, untracked, Sim,
    WatchedEnd,
};
pub use progress::RunProgress;
pub use report::RunReport;
pub use sync::UNBOUNDED_WAIT;
pub use types::*;
