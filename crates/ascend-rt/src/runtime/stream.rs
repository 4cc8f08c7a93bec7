//! Streams: create (+ with config), destroy (+ force), synchronize (+ with timeout), query
//! (docs/validation/streams-events.md).

use super::state::{HandleKind, StreamRec};
use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::stream_state;
use crate::raw_types::{stream_flag, stream_status, RawStream};

impl Runtime {
    /// `aclrtCreateStream(&stream)`: a stream of the highest priority in the current context.
    pub fn create_stream(&self, stream: Option<&mut RawStream>) -> AclResult<()> {
        self.call(|| {
            let out = stream.ok_or_else(|| fail::acl_null("aclrtCreateStream", "stream"))?;
            *out = self.create_stream_inner("aclrtCreateStream", 0, 0)?;
            Ok(())
        })
    }

    /// `aclrtCreateStreamWithConfig(&stream, priority, flag)`: only the six ACL flag bits are
    /// kept; `ACL_STREAM_HUGE` needs chip support (207000); `ACL_STREAM_DEVICE_USE_ONLY` cannot
    /// be combined (107000); the priority is clamped into the chip's range.
    pub fn create_stream_with_config(
        &self,
        stream: Option<&mut RawStream>,
        priority: u32,
        flag: u32,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCreateStreamWithConfig";
            let out = stream.ok_or_else(|| fail::acl_null(api, "stream"))?;
            let flags = self.check_stream_flags(api, flag)?;
            let priority = priority.min(self.chip.limits.priority_max);
            *out = self.create_stream_inner(api, priority, flags)?;
            Ok(())
        })
    }

    /// A device-only stream or event needs the chip's MC2 feature (docs/products.md, The MC2
    /// feature), checked once the context is known: 207000 (`what` names the object), with
    /// no message code; each entry reports it as its own does.
    pub(super) fn require_mc2(&self, api: &str, what: &str) -> AclResult<()> {
        if self.chip.features.mc2 {
            return Ok(());
        }
        Err(fail::plain(
            ErrorCode::RtFeatureNotSupport,
            format!(
                "{api} failed: a device-only {what} is not supported on {}: the chip has no MC2 feature",
                self.chip.soc_name
            ),
        ))
    }

    /// The runtime's stream-flag checks (`ApiErrorDecorator::CheckStreamFlags`) on the ACL
    /// flag word; returns the flags kept (the six ACL bits).
    pub(super) fn check_stream_flags(&self, api: &str, flag: u32) -> AclResult<u32> {
        {
            let flags = flag & stream_flag::ACL_MASK;
            if flags & stream_flag::HUGE != 0 && !self.chip.features.stream_huge {
                return Err(AclError::new(
                    ErrorCode::RtFeatureNotSupport,
                    Some(MsgCode::EE1006),
                    format!(
                        "{api} failed: ACL_STREAM_HUGE is not supported on {}",
                        self.chip.soc_name
                    ),
                ));
            }
            if flags & stream_flag::DEVICE_USE_ONLY != 0 && flags != stream_flag::DEVICE_USE_ONLY {
                return Err(AclError::new(
                    ErrorCode::RtParamInvalid,
                    Some(MsgCode::EE1006),
                    format!("{api} failed: ACL_STREAM_DEVICE_USE_ONLY cannot be combined with other flags (flag {flag:#x})"),
                ));
            }
            Ok(flags)
        }
    }

    pub(super) fn create_stream_inner(
        &self,
        api: &str,
        priority: u32,
        flags: u32,
    ) -> AclResult<RawStream> {
        let mut st = self.lock();
        let (ctx, device) = Self::current_device(&st, api)?;
        if flags & stream_flag::DEVICE_USE_ONLY != 0 {
            // The stream's entry returns it with a warning only (`api_c_stream.cc:86`).
            self.require_mc2(api, "stream")
                .map_err(AclError::without_last_error)?;
        }
        let on_device = st.streams.values().filter(|s| s.device == device).count()
            + st.streams_leaving
                .values()
                .filter(|s| s.device == device)
                .count();
        if on_device >= self.chip.limits.max_streams as usize {
            return Err(fail::plain(
                ErrorCode::RtNoStreamResource,
                format!(
                    "{api}: device {device} already has {on_device} streams (limit {})",
                    self.chip.limits.max_streams
                ),
            ));
        }
        let backend = self.backend.create_stream(device, priority, flags)?;
        let handle = st.new_handle(HandleKind::Stream);
        st.streams.insert(
            handle,
            StreamRec::new(ctx, device, backend, flags, priority, false),
        );
        drop(st);
        self.inherit_failure_mode(backend, ctx)?;
        self.notify_stream_state(handle, stream_state::CREATE_POST);
        Ok(RawStream(handle))
    }

    /// `aclrtDestroyStream(stream)`: waits for the stream's tasks, then destroys it.
    pub fn destroy_stream(&self, stream: RawStream) -> AclResult<()> {
        self.call(|| self.destroy_stream_inner("aclrtDestroyStream", stream, false))
    }

    /// `aclrtDestroyStreamForce(stream)`: destroys without waiting.
    pub fn destroy_stream_force(&self, stream: RawStream) -> AclResult<()> {
        self.call(|| self.destroy_stream_inner("aclrtDestroyStreamForce", stream, true))
    }

    fn destroy_stream_inner(&self, api: &str, stream: RawStream, force: bool) -> AclResult<()> {
        if stream.0 == 0 {
            return Err(fail::acl_null(api, "stream"));
        }
        // The stream leaves the bookkeeping before the backend destroys it (which may wait
        // for its tasks): from here on no other thread can submit to it or destroy it again,
        // and the backend handle is never named by two live records.
        let rec = {
            let st = self.lock();
            Self::check_stream_handle(&st, api, stream)?;
            let (_, rec) = Self::impl_stream(&st, api, stream)?;
            drop(st);
            self.refuse_if_capturing(api, stream.0)?;
            let st = self.lock();
            if rec.is_default {
                return Err(fail::rt_value(
                    api,
                    "stream",
                    format!("{:#x}", stream.0),
                    "a stream created by the user (not a default stream)",
                ));
            }
            // The runtime will not tear down a stream a model still holds: it stays live and
            // bound until `aclmdlRIUnbindStream`.
            if let Some(m) = rec.model {
                return Err(fail::plain(
                    ErrorCode::RtStreamModel,
                    format!(
                        "{api} failed: stream {:#x} is bound to model {m:#x}; unbind it first (aclmdlRIUnbindStream)",
                        stream.0
                    ),
                ));
            }
            drop(st);
            self.notify_stream_state(stream.0, stream_state::DESTROY_PRE);
            // The callbacks ran without the lock: check again what another thread may have
            // changed meanwhile (destroyed the stream, bound it to a model).
            let mut st = self.lock();
            if st.captures.contains_key(&stream.0) {
                // A capture began meanwhile (a state callback may begin one).
                return Err(super::capture::captured(api));
            }
            match st.streams.get(&stream.0) {
                None => return Err(fail::invalid_handle(api, "stream", stream.0)),
                Some(r) if r.model.is_some() => {
                    return Err(fail::plain(
                        ErrorCode::RtStreamModel,
                        format!(
                            "{api} failed: stream {:#x} was bound to a model meanwhile",
                            stream.0
                        ),
                    ))
                }
                Some(_) => {}
            }
            let leaving = st.streams.remove(&stream.0).expect("checked above");
            st.streams_leaving.insert(stream.0, leaving);
            rec
        };
        let result = self
            .backend
            .destroy_stream(rec.backend, force)
            .map_err(AclError::from);
        let mut st = self.lock();
        let left = st.streams_leaving.remove(&stream.0);
        if result.is_ok() {
            if let Some(left) = left {
                st.forget_stream_extras(&left);
            }
        } else {
            // The backend kept the stream (a wait that failed): it stays usable, as before the
            // call, unless its context or model went away meanwhile.
            if !st.contexts.contains_key(&rec.ctx) {
                if let Some(left) = &left {
                    st.forget_stream_extras(left);
                }
                drop(st);
                if let Err(e) = self.backend.destroy_stream(rec.backend, true) {
                    tracing::warn!(
                        "releasing stream {:#x} of a released context: {e}",
                        rec.backend
                    );
                }
            } else {
                let model = rec.model.filter(|m| st.models.contains_key(m));
                if let Some(m) = model {
                    if let Some(mdl) = st.models.get_mut(&m) {
                        mdl.streams.insert(stream.0);
                    }
                }
                let kept = left.unwrap_or(rec);
                st.streams.insert(stream.0, StreamRec { model, ..kept });
            }
        }
        result
    }

    /// Whether `stream` (a live handle, or NULL: the default stream) is persistent: a
    /// synchronize of one returns success at once, before the context check.
    fn is_persistent(&self, stream: RawStream) -> bool {
        self.lock()
            .streams
            .get(&stream.0)
            .is_some_and(|r| r.flags & stream_flag::PERSISTENT != 0)
    }

    /// `aclrtSynchronizeStream(stream)`: blocks until the stream's tasks complete. NULL is the
    /// default stream; a persistent stream returns success at once, even on a thread without a
    /// context.
    pub fn synchronize_stream(&self, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtSynchronizeStream";
            self.require_stream_handle(api, stream)?;
            if self.is_persistent(stream) {
                return Ok(());
            }
            let rec = self.task_stream(api, stream)?;
            self.refuse_if_capturing(api, stream.0)?;
            if let Some(e) = self.ctx_failure(rec.ctx) {
                return Err(e);
            }
            let r = self.backend.synchronize_stream(rec.backend, None);
            self.report_task_faults();
            self.free_idle_placeholder_memory();
            let r = r.map_err(AclError::from);
            if let Err(e) = &r {
                self.note_failure(rec.ctx, self.handle_of(rec.backend), e);
            }
            r
        })
    }

    /// `aclrtSynchronizeStreamWithTimeout(stream, timeout)`: `timeout` in ms, −1 = forever;
    /// expiry is 507046 (docs/sync-timeouts.md).
    ///
    /// Order, as the vendor's layers check it: below −1 (107000, ACL layer, before the
    /// handle); a stream handle that is not live (107017); 0 (107000, the parameter-check
    /// decorator: the code rejects what the header documents as "check once"); a persistent
    /// stream returns success at once (before the context check); no current context (107002);
    /// a stream of another context (107003). With
    /// [`RuntimeOptions::documented_rules`](super::RuntimeOptions), 0 checks once instead:
    /// success when the stream is idle, else 507046.
    pub fn synchronize_stream_with_timeout(
        &self,
        stream: RawStream,
        timeout: i32,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtSynchronizeStreamWithTimeout";
            if timeout < -1 {
                return Err(AclError::new(
                    ErrorCode::RtParamInvalid,
                    Some(MsgCode::EH0007),
                    format!("{api} failed: value {timeout} of parameter timeout is invalid, expected [-1, INT_MAX]"),
                ));
            }
            self.require_stream_handle(api, stream)?;
            let check_once = self.zero_timeout(api, timeout)?;
            if self.is_persistent(stream) {
                return Ok(());
            }
            let rec = self.task_stream(api, stream)?;
            if check_once {
                return match self.backend.stream_idle(rec.backend)? {
                    true => Ok(()),
                    false => Err(fail::plain(
                        ErrorCode::RtStreamSyncTimeout,
                        format!("{api}: the stream's tasks have not completed (timeout 0 checks once)"),
                    )),
                };
            }
            let limit = if timeout == -1 { None } else { Some(timeout as u64) };
            if let Some(e) = self.ctx_failure(rec.ctx) {
                return Err(e);
            }
            let r = self.backend.synchronize_stream(rec.backend, limit);
            self.report_task_faults();
            let r = r.map_err(AclError::from);
            if let Err(e) = &r {
                self.note_failure(rec.ctx, self.handle_of(rec.backend), e);
            }
            r
        })
    }

    /// `aclrtStreamQuery(stream, &status)`: `ACL_STREAM_STATUS_COMPLETE` (0) or `NOT_READY` (1).
    pub fn stream_query(&self, stream: RawStream, status: Option<&mut u32>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtStreamQuery";
            let out = status.ok_or_else(|| fail::acl_null(api, "status"))?;
            let rec = self.task_stream(api, stream)?;
            self.refuse_if_capturing(api, stream.0)?;
            let idle = rec.flags & stream_flag::PERSISTENT != 0
                || self.backend.stream_idle(rec.backend)?;
            *out = if idle {
                stream_status::COMPLETE
            } else {
                stream_status::NOT_READY
            };
            Ok(())
        })
    }
}
