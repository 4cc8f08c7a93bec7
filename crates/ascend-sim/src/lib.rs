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

mod facade;
mod types;

pub use facade::Sim;
pub use types::*;
