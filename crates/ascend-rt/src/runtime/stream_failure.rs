//! What a stream does when a task fails, and the calls that act on a stream's tasks:
//! `aclrtSetStreamFailureMode`, `aclrtStreamAbort`, `aclrtStreamStop`, and the stream state
//! callbacks (`aclrtRegStreamStateCallback`).
//!
//! Rows and semantics from the vendor's runtime (docs/validation/stream-failures.md):
//! - stop on failure is a context's mode: setting it on one stream sets it for every stream of
//!   the context, those created later included;
//! - after a task fails in that mode, the failed stream's later tasks are discarded, and once
//!   the host has seen the failure (a synchronize) every launch and synchronize on any stream
//!   of the context returns that failure's code, until the context is destroyed or its device
//!   reset;
//! - state callbacks run on the thread that creates or destroys a stream, in name order.

use std::collections::BTreeMap;
use std::sync::Arc;

use ascend_chips::ChipType;

use super::state::State;
use super::Runtime;
use crate::backend::StreamId;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::{stream_failure_mode, stream_flag, RawStream};

/// A stream state callback: the stream and the state (`ACL_RT_STREAM_STATE_CREATE_POST` 1,
/// `ACL_RT_STREAM_STATE_DESTROY_PRE` 2).
pub type StreamStateCallback = Arc<dyn Fn(RawStream, u32) + Send + Sync>;

/// The registered stream state callbacks, by name.
#[derive(Default, Clone)]
pub(crate) struct StreamStateCallbacks(pub BTreeMap<String, StreamStateCallback>);

impl std::fmt::Debug for StreamStateCallbacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

/// The failure mode a stream is in after a failure in stop mode (the runtime's "abort").
const ABORTED: u64 = 2;

impl Runtime {
    /// `aclrtSetStreamFailureMode(stream, mode)`: bit 0 selects stop on failure (1) or
    /// continue (0); the other bits are ignored. Stop is the context's mode: every stream of
    /// the context stops on failure, those created later too.
    ///
    /// Order: the stream handle (107017); NULL, on chips whose NULL is not the default stream
    /// (310B, 310P, 910A) or without a context (107000, EE1004); a device-use-only stream
    /// (207000, warning only); no current context (107002); a model-bound stream (207000,
    /// EE1017); the mode it is already in: success; from stop back to continue, or stop again
    /// after a failure (207000, EE1016); a stream of another context (107003, EE1010).
    pub fn set_stream_failure_mode(&self, stream: RawStream, mode: u64) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtSetStreamFailureMode";
            let mut st = self.lock();
            Self::check_stream_handle(&st, api, stream)?;
            let null_is_default = matches!(
                self.chip.chip_type,
                ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350
            );
            let handle = match stream.0 {
                0 if null_is_default => match st.current_ctx(Self::thread()) {
                    Some(ctx) => st.contexts[&ctx].default_stream,
                    None => return Err(fail::rt_null(api, "stream")),
                },
                0 => return Err(fail::rt_null(api, "stream")),
                h => h,
            };
            let rec = st.streams[&handle].clone();
            if rec.flags & stream_flag::DEVICE_USE_ONLY != 0 {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    "a ACL_STREAM_DEVICE_USE_ONLY stream has no failure mode",
                ));
            }
            let (ctx, _) = Self::current_device(&st, api)?;
            if rec.model.is_some() {
                return Err(AclError::new(
                    ErrorCode::RtFeatureNotSupport,
                    Some(MsgCode::EE1017),
                    format!("{api} failed: parameter stream ({handle:#x}) is invalid, reason: the stream is bound to a model; only single-operator streams are supported"),
                ));
            }
            let want = mode & stream_failure_mode::STOP_ON_FAILURE;
            let current = st
                .streams
                .get(&handle)
                .and_then(|r| r.failure_mode)
                .unwrap_or(stream_failure_mode::CONTINUE_ON_FAILURE);
            if current == want {
                return Ok(());
            }
            if current != stream_failure_mode::CONTINUE_ON_FAILURE {
                let why = if current == ABORTED {
                    "the stream already stopped on a failure"
                } else {
                    "changing a stream from stop mode to continue mode is not supported"
                };
                return Err(AclError::new(
                    ErrorCode::RtFeatureNotSupport,
                    Some(MsgCode::EE1016),
                    format!("{api} failed: {why}"),
                ));
            }
            if rec.ctx != ctx {
                return Err(fail::stream_context(api, handle, rec.ctx, ctx));
            }
            // The stream's own mode is what a later call checks; stopping on failure is the whole
            // context's behaviour.
            if let Some(r) = st.streams.get_mut(&handle) {
                r.failure_mode = Some(stream_failure_mode::STOP_ON_FAILURE);
            }
            st.stop_ctxs.insert(rec.ctx);
            let others: Vec<StreamId> = st
                .streams
                .values()
                .filter(|r| r.ctx == rec.ctx && r.backend != rec.backend)
                .map(|r| r.backend)
                .collect();
            self.backend.set_stop_on_failure(rec.backend, true)?;
            for backend in others {
                self.backend.set_stop_on_failure(backend, false)?;
            }
            Ok(())
        })
    }

    /// A stream created in a context that stops on failure stops on failure too.
    pub(super) fn inherit_failure_mode(&self, backend: StreamId, ctx: u64) -> AclResult<()> {
        let stop = self.lock().stop_ctxs.contains(&ctx);
        if stop {
            self.backend.set_stop_on_failure(backend, false)?;
        }
        Ok(())
    }

    /// After a synchronize of `stream` (of context `ctx`) returned `err`: a task failure in a
    /// context that stops on failure becomes the context's failure, which every later launch and
    /// synchronize in it returns.
    pub(super) fn note_failure(&self, ctx: u64, stream: Option<u64>, err: &AclError) {
        let mut st = self.lock();
        if !st.stop_ctxs.contains(&ctx) || !super::backend_errors::is_task_fault(err) {
            return;
        }
        st.ctx_failures.entry(ctx).or_insert_with(|| err.clone());
        if let Some(r) = stream.and_then(|h| st.stream_any_mut(h)) {
            r.failure_mode = Some(ABORTED);
        }
        self.any_ctx_failed
            .store(true, std::sync::atomic::Ordering::Release);
    }

    /// The failure of the context of `ctx`, if it stopped on one.
    pub(super) fn ctx_failure(&self, ctx: u64) -> Option<AclError> {
        if !self
            .any_ctx_failed
            .load(std::sync::atomic::Ordering::Acquire)
        {
            return None;
        }
        self.ctx_failure_in(&self.lock(), ctx)
    }

    /// [`Runtime::ctx_failure`], under the caller's lock.
    pub(super) fn ctx_failure_in(&self, st: &State, ctx: u64) -> Option<AclError> {
        st.ctx_failures.get(&ctx).map(|e| {
            AclError::new(
                ErrorCode::from_number(e.code()).unwrap_or(ErrorCode::RtInternalError),
                Some(MsgCode::EE9999),
                format!(
                    "the context stopped on a failure (ACL_STOP_ON_FAILURE) and takes no more work: {}",
                    e.message
                ),
            )
        })
    }

    /// The handle of the live stream whose backend stream is `stream`.
    pub(super) fn handle_of(&self, stream: StreamId) -> Option<u64> {
        self.lock()
            .streams
            .iter()
            .find(|(_, r)| r.backend == stream)
            .map(|(h, _)| *h)
    }

    /// `aclrtStreamAbort(stream)`: the stream's running and queued tasks are dropped; it stays
    /// usable. Order: the stream handle (107017); NULL on chips whose NULL is not the default
    /// stream (107000, EE1004); 310B, 310P and 910A (207000); no current context (107002); a
    /// stream of another context (107003); a model-bound stream (507000, EE1016); on 950 a
    /// persistent stream (507000, EE1006).
    pub fn stream_abort(&self, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtStreamAbort";
            let chip = self.chip.chip_type;
            let (full, david) = (
                matches!(
                    chip,
                    ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350
                ),
                matches!(chip, ChipType::David | ChipType::Ascend350),
            );
            let rec = {
                let st = self.lock();
                Self::check_stream_handle(&st, api, stream)?;
                if stream.0 == 0 && !full {
                    return Err(fail::rt_null(api, "stream"));
                }
                if !full {
                    return Err(fail::not_supported(
                        api,
                        &self.chip.soc_name,
                        "the firmware cannot abort a stream",
                    ));
                }
                Self::impl_stream(&st, api, stream)?.1
            };
            if rec.model.is_some() {
                return Err(AclError::new(
                    ErrorCode::RtInternalError,
                    Some(MsgCode::EE1016),
                    format!("{api} failed: a stream bound to a model cannot be aborted"),
                ));
            }
            if david && rec.flags & stream_flag::PERSISTENT != 0 {
                return Err(AclError::new(
                    ErrorCode::RtInternalError,
                    Some(MsgCode::EE1006),
                    format!("{api} failed: a persistent stream cannot be aborted"),
                ));
            }
            self.backend
                .abort_stream(rec.backend)
                .map_err(AclError::from)
        })
    }

    /// `aclrtStreamStop(stream)`: the task the stream is running, if any, is stopped and fails
    /// (its synchronize reports it); the queued tasks go on. Order: the stream handle (107017);
    /// NULL (107000, EE1004); no current context (107002); a chip without a STARS scheduler
    /// (310P, 910A: 207000, EE1005) or whose firmware cannot (310B: 207000); a stream of another
    /// context (107003); a model-bound stream (507000, EE1016).
    pub fn stream_stop(&self, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtStreamStop";
            let rec = {
                let st = self.lock();
                Self::check_stream_handle(&st, api, stream)?;
                if stream.0 == 0 {
                    return Err(fail::rt_null(api, "stream"));
                }
                Self::current_device(&st, api)?;
                match self.chip.chip_type {
                    ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350 => {}
                    ChipType::MiniV3 => {
                        return Err(fail::not_supported(
                            api,
                            &self.chip.soc_name,
                            "the firmware cannot stop a stream",
                        ))
                    }
                    _ => {
                        return Err(AclError::new(
                            ErrorCode::RtFeatureNotSupport,
                            Some(MsgCode::EE1005),
                            format!(
                                "{api} failed: {} has no STARS scheduler to stop a stream",
                                self.chip.soc_name
                            ),
                        ))
                    }
                }
                Self::impl_stream(&st, api, stream)?.1
            };
            if rec.model.is_some() {
                return Err(AclError::new(
                    ErrorCode::RtInternalError,
                    Some(MsgCode::EE1016),
                    format!("{api} failed: a stream bound to a model cannot be stopped"),
                ));
            }
            self.backend
                .stop_stream(rec.backend)
                .map_err(AclError::from)
        })
    }

    /// `aclrtRegStreamStateCallback(regName, callback, args)`: `callback` (None unregisters the
    /// name, registered or not) is called after each stream is created and before each is
    /// destroyed, on that thread, in name order. Order: regName NULL (100000, EH0008); a name
    /// already registered (107000, EE1011). Needs no device.
    pub fn reg_stream_state_callback(
        &self,
        name: Option<&str>,
        callback: Option<StreamStateCallback>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtRegStreamStateCallback";
            let name = name.ok_or_else(|| fail::acl_null(api, "regName"))?;
            let mut st = self.lock();
            let Some(cb) = callback else {
                st.stream_state_cbs.0.remove(name);
                return Ok(());
            };
            if st.stream_state_cbs.0.contains_key(name) {
                return Err(fail::rt_reason(
                    api,
                    "regName",
                    name,
                    "the callback name has already been registered",
                ));
            }
            st.stream_state_cbs.0.insert(name.to_string(), cb);
            Ok(())
        })
    }

    /// Calls the stream state callbacks for `stream` entering `state` (outside the lock).
    pub(super) fn notify_stream_state(&self, stream: u64, state: u32) {
        let cbs = {
            let st = self.lock();
            if st.stream_state_cbs.0.is_empty() {
                return;
            }
            st.stream_state_cbs.clone()
        };
        for cb in cbs.0.values() {
            cb(RawStream(stream), state);
        }
    }
}
