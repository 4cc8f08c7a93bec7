//! The cross-backend conformance suite: one set of cases, written once against the raw level
//! of [`ascend_rt::Runtime`], run on every backend.
//!
//! A case takes a fresh [`Runtime`](ascend_rt::Runtime) (whatever its backend) and checks what CANN's code says
//! (`docs/validation/`): the rows of the edge matrix and of the supporting calls (expected
//! codes are derived from the chip's feature flags, so the same case checks a supported and an
//! unsupported chip), the four compare modes of `aclrtValueWait`, a wait released by another
//! host thread, event ordering, model execution, the barrier CMO pair (Ascend310B1), the
//! descriptor CMO on a model-bound stream, invalid handles, host-buffer copies, explicit
//! contexts (on the creating thread, on another thread, and without `aclrtSetDevice`),
//! notifies between two streams (and a wait that times out), event timestamps, simulator
//! kernels (run on the simulator, not supported through `hw`), host functions and report
//! callbacks, stream control (abort, stop, failure mode, state callbacks), device queries and
//! peer access, the built-in memory tasks and labels, stream capture, kernels launched from
//! binaries, and registered host memory. A case that
//! needs what the chip lacks returns [`Outcome::Skipped`] with the reason.
//!
//! The instantiations are in `tests/`: `sim.rs` (the simulator, every built-in SoC of
//! [`SIM_SOCS`]) and `hw.rs` (feature `hw`: the `hw` backend over the project's own
//! `libascendcl.so`, one process per SoC, and over the real library on a device).
//!
//! The cases are grouped by area: the value API (`value`), cache maintenance (`cmo`), the
//! supporting API, invalid handles and host buffers (`supporting`), events (`events`),
//! models (`models`), explicit contexts (`contexts`) and notifies (`notifies`), over shared
//! helpers (`helpers`); `harness` runs them. [`cases`] lists them all.
//!
//! With feature `hw`, [`probe`] adds the raw probe: invalid (and some valid) calls made
//! directly on a loaded runtime library, each compared with the front end's prediction.

// Denied rather than forbidden so that the raw probe's call module alone can allow it.
#![deny(unsafe_code)]

mod builtin_tasks;
mod capture;
mod cmo;
mod contexts;
mod device_queries;
mod events;
mod harness;
mod helpers;
mod host_calls;
mod ipc_memory;
mod kernels;
mod models;
mod notifies;
mod physical_memory;
#[cfg(feature = "hw")]
pub mod probe;
mod registered_memory;
mod stream_control;
mod supporting;
mod value;

pub use harness::{assert_all_passed, run_case, run_suite, Case, CaseResult, Outcome, SIM_SOCS};

use builtin_tasks::built_in_tasks_and_labels;
use capture::{kernel_binaries, stream_capture};
use cmo::{
    barrier_cmo_on_model_stream, cmo_async_validation, cmo_barrier_validation, cmo_desc_validation,
    desc_cmo_on_model_stream,
};
use contexts::explicit_contexts;
use device_queries::device_queries_and_peer_access;
use events::{event_ordering, event_timestamps};
use host_calls::host_functions_and_reports;
use ipc_memory::ipc_memory;
use kernels::simulator_kernels;
use models::model_execution_repeatable;
use notifies::notify_record_and_wait;
use physical_memory::physical_memory;
use registered_memory::registered_host_memory;
use stream_control::stream_control;
use supporting::{bad_handles, host_buffer_copies, supporting_api_validation};
use value::{compare_modes, value_api_validation, wait_released_by_host_thread};

/// Every case, in a fixed order.
pub fn cases() -> &'static [Case] {
    &[
        Case {
            name: "value_api_validation",
            run: value_api_validation,
        },
        Case {
            name: "cmo_async_validation",
            run: cmo_async_validation,
        },
        Case {
            name: "cmo_barrier_validation",
            run: cmo_barrier_validation,
        },
        Case {
            name: "cmo_desc_validation",
            run: cmo_desc_validation,
        },
        Case {
            name: "supporting_api_validation",
            run: supporting_api_validation,
        },
        Case {
            name: "compare_modes",
            run: compare_modes,
        },
        Case {
            name: "wait_released_by_host_thread",
            run: wait_released_by_host_thread,
        },
        Case {
            name: "event_ordering",
            run: event_ordering,
        },
        Case {
            name: "model_execution_repeatable",
            run: model_execution_repeatable,
        },
        Case {
            name: "barrier_cmo_on_model_stream",
            run: barrier_cmo_on_model_stream,
        },
        Case {
            name: "desc_cmo_on_model_stream",
            run: desc_cmo_on_model_stream,
        },
        Case {
            name: "bad_handles",
            run: bad_handles,
        },
        Case {
            name: "host_buffer_copies",
            run: host_buffer_copies,
        },
        Case {
            name: "explicit_contexts",
            run: explicit_contexts,
        },
        Case {
            name: "notify_record_and_wait",
            run: notify_record_and_wait,
        },
        Case {
            name: "event_timestamps",
            run: event_timestamps,
        },
        Case {
            name: "simulator_kernels",
            run: simulator_kernels,
        },
        Case {
            name: "host_functions_and_reports",
            run: host_functions_and_reports,
        },
        Case {
            name: "stream_control",
            run: stream_control,
        },
        Case {
            name: "device_queries_and_peer_access",
            run: device_queries_and_peer_access,
        },
        Case {
            name: "built_in_tasks_and_labels",
            run: built_in_tasks_and_labels,
        },
        Case {
            name: "stream_capture",
            run: stream_capture,
        },
        Case {
            name: "kernel_binaries",
            run: kernel_binaries,
        },
        Case {
            name: "ipc_memory",
            run: ipc_memory,
        },
        Case {
            name: "physical_memory",
            run: physical_memory,
        },
        Case {
            name: "registered_host_memory",
            run: registered_host_memory,
        },
    ]
}

/// The case named `name`.
pub fn case(name: &str) -> Option<Case> {
    cases().iter().copied().find(|c| c.name == name)
}
