//! Capturing a stream's tasks into a model running instance: `aclmdlRICaptureBegin`,
//! `aclmdlRICaptureGetInfo`, `aclmdlRICaptureEnd`, and the external event record and wait that
//! link a captured model to streams outside it (`aclrtRecordEventWithFlag`,
//! `aclrtStreamWaitEventWithFlag`).
//!
//! Rows and semantics from the vendor's runtime (docs/validation/capture.md). A capture is a
//! model with a stream of its own: while a stream captures, the tasks launched on it are
//! recorded on that stream instead of run, and `aclmdlRICaptureEnd` ends the model's build and
//! hands it over, to run with `aclmdlRIExecuteAsync` as often as wanted.

use ascend_chips::ChipType;
use ascend_types::Task;

use super::state::State;
use super::Runtime;
use crate::backend::StreamId;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::{capture_mode, capture_status};
use crate::raw_types::{event_flag, stream_flag, RawEvent, RawModel, RawStream};

/// A stream's capture.
#[derive(Debug, Clone)]
pub(crate) struct Capture {
    /// The model the tasks go to.
    pub model: u64,
    /// Its stream, which records them.
    pub stream: u64,
    /// The capturing stream's and the capture stream's backend streams.
    pub from: StreamId,
    pub to: StreamId,
    pub mode: u32,
    pub thread: std::thread::ThreadId,
    /// The report thread the capture stream was subscribed to (a callback was captured): a
    /// real runtime delivers a stream's callbacks only to a thread subscribed to it.
    pub reports_to: Option<u64>,
}

pub(super) fn captured(api: &str) -> AclError {
    AclError::new(
        ErrorCode::RtStreamCaptured,
        Some(MsgCode::EE1016),
        format!("{api} failed: the stream is capturing; this call is not allowed during a capture"),
    )
}

impl Runtime {
    fn capture_supported(&self) -> bool {
        matches!(
            self.chip.chip_type,
            ChipType::Cloud910B93 | ChipType::David | ChipType::Ascend350 | ChipType::Dc
        )
    }

    /// The stream checks the capture calls share after the handle: no context (107002),
    /// another context (107003), a model-bound stream (107005, EE1017), the default stream
    /// (207000, EE1017).
    fn capture_stream(
        &self,
        api: &str,
        stream: RawStream,
    ) -> AclResult<(u64, super::state::StreamRec)> {
        let st = self.lock();
        let (h, rec) = Self::impl_stream(&st, api, stream)?;
        if rec.model.is_some() {
            return Err(AclError::new(
                ErrorCode::RtStreamModel,
                Some(MsgCode::EE1017),
                format!("{api} failed: stream {h:#x} is already bound to a model"),
            ));
        }
        if rec.is_default {
            return Err(AclError::new(
                ErrorCode::RtFeatureNotSupport,
                Some(MsgCode::EE1017),
                format!("{api} failed: the default stream cannot be captured"),
            ));
        }
        Ok((h, rec))
    }

    /// `aclmdlRICaptureBegin(stream, mode)`: the tasks launched on `stream` from now on are
    /// recorded into a new model instead of run. Order: stream NULL (100000, EH0008); a chip
    /// without capture (310B, 910A: 207000, warning); the handle (107017); a mode outside
    /// [0, 3) (107000, EE1003); no context (107002); another context (107003); a model-bound
    /// stream (107005); the default stream (207000); a stream already capturing (107027,
    /// EE1016).
    pub fn mdl_ri_capture_begin(&self, stream: RawStream, mode: u32) -> AclResult<()> {
        self.call(|| {
            let api = "aclmdlRICaptureBegin";
            if stream.0 == 0 {
                return Err(fail::acl_null(api, "stream"));
            }
            if !self.capture_supported() {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    "stream capture",
                ));
            }
            self.require_stream_handle(api, stream)?;
            if mode > capture_mode::RELAXED {
                return Err(fail::rt_value(api, "mode", mode, "[0, 3)"));
            }
            let (h, rec) = self.capture_stream(api, stream)?;
            if self.lock().captures.contains_key(&h) {
                return Err(captured(api));
            }
            let mut model = RawModel::default();
            self.mdl_ri_build_begin(Some(&mut model), 0)?;
            let mut cs = RawStream::default();
            let made = self
                .create_stream_with_config(Some(&mut cs), 0, stream_flag::PERSISTENT)
                .and_then(|()| self.mdl_ri_bind_stream(model, cs, 0));
            if let Err(e) = made {
                let _ = self.mdl_ri_destroy(model);
                return Err(e);
            }
            let mut st = self.lock();
            let to = st.streams[&cs.0].backend;
            // Another thread may have begun a capture of the stream, or destroyed it, while
            // the model was built: the first to get here captures, the others undo theirs.
            let refused = if st.captures.contains_key(&h) {
                Some(captured(api))
            } else if !st.streams.contains_key(&h) {
                Some(fail::invalid_handle(api, "stream", h))
            } else {
                None
            };
            if let Some(e) = refused {
                drop(st);
                let _ = self.mdl_ri_destroy(model);
                let _ = self.destroy_stream_force(cs);
                return Err(e);
            }
            st.captures.insert(
                h,
                Capture {
                    model: model.0,
                    stream: cs.0,
                    from: rec.backend,
                    to,
                    mode,
                    thread: Self::thread(),
                    reports_to: None,
                },
            );
            st.capture_streams.insert(model.0, cs.0);
            self.any_capture
                .store(true, std::sync::atomic::Ordering::Release);
            Ok(())
        })
    }

    /// `aclmdlRICaptureGetInfo(stream, &status, &modelRI)`: ACTIVE (1) and the model while the
    /// stream captures, else NONE (0) and NULL. Order: stream NULL (100000, EH0008); both
    /// outputs NULL (100000, EH0009); a chip without capture (207000); the handle (107017).
    pub fn mdl_ri_capture_get_info(
        &self,
        stream: RawStream,
        status: Option<&mut u32>,
        model: Option<&mut RawModel>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclmdlRICaptureGetInfo";
            if stream.0 == 0 {
                return Err(fail::acl_null(api, "stream"));
            }
            if status.is_none() && model.is_none() {
                return Err(AclError::new(
                    ErrorCode::InvalidParam,
                    Some(MsgCode::EH0009),
                    format!("{api} failed: status and modelRI cannot both be NULL"),
                ));
            }
            if !self.capture_supported() {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    "stream capture",
                ));
            }
            let st = self.lock();
            Self::check_stream_handle(&st, api, stream)?;
            let cap = st.captures.get(&stream.0);
            if let Some(s) = status {
                *s = if cap.is_some() {
                    capture_status::ACTIVE
                } else {
                    capture_status::NONE
                };
            }
            if let Some(m) = model {
                *m = RawModel(cap.map_or(0, |c| c.model));
            }
            Ok(())
        })
    }

    /// `aclmdlRICaptureEnd(stream, &modelRI)`: ends the capture; the model is built and given
    /// out. Order: stream NULL (100000, EH0008); a chip without capture (207000); the handle
    /// (107017); modelRI NULL while the stream captures (107000, EE1004; not checked
    /// otherwise); no context (107002); another context (107003); a model-bound stream
    /// (107005); the default stream (207000); a stream not capturing (107029, EE1018); a
    /// capture begun in GLOBAL or THREAD_LOCAL mode ended from another thread (107038: the
    /// capture is discarded). `*modelRI` is written on success, and set to NULL on a failure
    /// that ends a capture (107038); a call refused before that leaves it as it was, so a
    /// second end does not lose the model the first one gave.
    pub fn mdl_ri_capture_end(
        &self,
        stream: RawStream,
        model: Option<&mut RawModel>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclmdlRICaptureEnd";
            if stream.0 == 0 {
                return Err(fail::acl_null(api, "stream"));
            }
            if !self.capture_supported() {
                return Err(fail::not_supported(api, &self.chip.soc_name, "stream capture"));
            }
            self.require_stream_handle(api, stream)?;
            let capturing = self.lock().captures.contains_key(&stream.0);
            if capturing && model.is_none() {
                return Err(fail::rt_null(api, "modelRI"));
            }
            let (h, _) = self.capture_stream(api, stream)?;
            let cap = {
                let mut st = self.lock();
                if !st.captures.contains_key(&h) {
                    return Err(AclError::new(
                        ErrorCode::RtStreamNotCaptured,
                        Some(MsgCode::EE1018),
                        format!("{api} failed: stream {h:#x} is not capturing; call aclmdlRICaptureBegin first"),
                    ));
                }
                // A capture begun by another thread since the check above: NULL is refused
                // as it would have been, and that capture goes on.
                if model.is_none() {
                    return Err(fail::rt_null(api, "modelRI"));
                }
                st.captures.remove(&h).expect("checked under this lock")
            };
            self.refresh_capture_flag();
            let out = model.expect("checked under the lock");
            if cap.mode != capture_mode::RELAXED && cap.thread != Self::thread() {
                *out = RawModel(0);
                let _ = self.mdl_ri_destroy(RawModel(cap.model));
                return Err(fail::plain(
                    ErrorCode::RtStreamCaptureWrongThread,
                    format!("{api} failed: the capture was begun on another thread; it is discarded"),
                ));
            }
            let (m, cs) = (RawModel(cap.model), RawStream(cap.stream));
            self.mdl_ri_end_task(m, cs)?;
            self.mdl_ri_build_end(m, None)?;
            *out = m;
            Ok(())
        })
    }

    fn refresh_capture_flag(&self) {
        let any = !self.lock().captures.is_empty();
        self.any_capture
            .store(any, std::sync::atomic::Ordering::Release);
    }

    /// Where a task launched on backend stream `stream` goes: the capture stream while it
    /// captures.
    pub(super) fn capture_target(&self, stream: StreamId) -> StreamId {
        if !self.any_capture.load(std::sync::atomic::Ordering::Acquire) {
            return stream;
        }
        Self::capture_target_in(&self.lock(), stream)
    }

    /// [`Runtime::capture_target`], under the caller's lock.
    pub(super) fn capture_target_in(st: &State, stream: StreamId) -> StreamId {
        st.captures
            .values()
            .find(|c| c.from == stream)
            .map_or(stream, |c| c.to)
    }

    /// Subscribes the capture stream that a callback of `from` is recorded on to the report
    /// thread `thread` that `from` is subscribed to, once per capture: the callback then runs
    /// on that thread at every run of the model.
    pub(super) fn subscribe_capture_stream(&self, from: StreamId, thread: u64) -> AclResult<()> {
        let to = {
            let mut st = self.lock();
            let Some(c) = st.captures.values_mut().find(|c| c.from == from) else {
                return Ok(());
            };
            if c.reports_to.is_some() {
                return Ok(());
            }
            c.reports_to = Some(thread);
            c.to
        };
        self.backend
            .subscribe_reports(thread, to, true)
            .map_err(AclError::from)
    }

    /// 107027 when `stream` (a handle) is capturing: a synchronize, query or destroy of it.
    pub(super) fn refuse_if_capturing(&self, api: &str, stream: u64) -> AclResult<()> {
        if self.any_capture.load(std::sync::atomic::Ordering::Acquire)
            && self.lock().captures.contains_key(&stream)
        {
            return Err(captured(api));
        }
        Ok(())
    }

    /// 107027 when a stream of context `ctx` is capturing: a device synchronize.
    pub(super) fn refuse_if_ctx_capturing(&self, api: &str, ctx: u64) -> AclResult<()> {
        if !self.any_capture.load(std::sync::atomic::Ordering::Acquire) {
            return Ok(());
        }
        let st = self.lock();
        let capturing = st
            .captures
            .keys()
            .any(|h| st.streams.get(h).is_some_and(|r| r.ctx == ctx));
        if capturing {
            return Err(captured(api));
        }
        Ok(())
    }

    /// 107030 for a synchronous copy or fill while a capture forbids it: one in GLOBAL mode on
    /// any thread, or one in THREAD_LOCAL mode begun by this thread.
    pub(super) fn refuse_unsafe_during_capture(&self, api: &str) -> AclResult<()> {
        if !self.any_capture.load(std::sync::atomic::Ordering::Acquire) {
            return Ok(());
        }
        let me = Self::thread();
        let refused = self.lock().captures.values().any(|c| {
            c.mode == capture_mode::GLOBAL
                || (c.mode == capture_mode::THREAD_LOCAL && c.thread == me)
        });
        if refused {
            return Err(AclError::new(
                ErrorCode::RtStreamCaptureModeNotSupport,
                Some(MsgCode::EE1016),
                format!("{api} failed: a synchronous call is not allowed while a stream captures in this capture mode"),
            ));
        }
        Ok(())
    }

    /// The external record and wait: an event of `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)`
    /// and a capturing stream, the task recorded into the capture.
    fn external_event_task(
        &self,
        api: &str,
        event: RawEvent,
        stream: RawStream,
        task: Task,
    ) -> AclResult<()> {
        let ev = self.check_event(api, event)?;
        self.require_stream_handle(api, stream)?;
        if !ev.ex_mode || ev.flags & event_flag::SYNC == 0 {
            return Err(fail::not_supported(
                api,
                &self.chip.soc_name,
                "an external record or wait needs an event of aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)",
            ));
        }
        let rec = self.task_stream(api, stream)?;
        let capturing = {
            let st = self.lock();
            st.streams
                .iter()
                .find(|(_, r)| r.backend == rec.backend)
                .is_some_and(|(h, _)| st.captures.contains_key(h))
        };
        if !capturing {
            return Err(AclError::new(
                ErrorCode::RtStreamNotCaptured,
                Some(MsgCode::EE1016),
                format!("{api} failed: the stream is not in the capture stage"),
            ));
        }
        self.launch(&rec, task)
    }

    /// `aclrtRecordEventWithFlag(event, stream, flag)`: flag 0 is `aclrtRecordEvent`; flag 1
    /// (`ACL_EVENT_RECORD_EXTERNAL`) records the event when the captured model runs. Order:
    /// event NULL (100000, EH0008); flag not 0 or 1 (100000, EH0007); then for 1: the handles
    /// (107017); an event not of `ACL_EVENT_SYNC` Ex mode (207000); a stream not capturing
    /// (107029, EE1016).
    pub fn record_event_with_flag(
        &self,
        event: RawEvent,
        stream: RawStream,
        flag: u32,
    ) -> AclResult<()> {
        let api = "aclrtRecordEventWithFlag";
        if event.0 == 0 {
            return self.call(|| Err(fail::acl_null(api, "event")));
        }
        match flag {
            0 => self.record_event(event, stream),
            1 => self.call(|| {
                let ev = self.check_event(api, event)?;
                self.external_event_task(api, event, stream, Task::EventRecord(ev.backend))
            }),
            _ => self.call(|| {
                Err(fail::acl_range(
                    api,
                    "flag",
                    flag,
                    "ACL_EVENT_RECORD_DEFAULT or ACL_EVENT_RECORD_EXTERNAL",
                ))
            }),
        }
    }

    /// `aclrtStreamWaitEventWithFlag(stream, event, timeout, flag)`: flag 0 is a wait with a
    /// timeout; flag 1 (`ACL_EVENT_WAIT_EXTERNAL`) makes the captured model wait, when it runs,
    /// for the event's latest record then. Order: event NULL (100000, EH0008); flag not 0 or 1,
    /// or flag 1 with a timeout (100000, EH0007); then for 1 as
    /// [`Runtime::record_event_with_flag`].
    pub fn stream_wait_event_with_flag(
        &self,
        stream: RawStream,
        event: RawEvent,
        timeout: u32,
        flag: u32,
    ) -> AclResult<()> {
        let api = "aclrtStreamWaitEventWithFlag";
        if event.0 == 0 {
            return self.call(|| Err(fail::acl_null(api, "event")));
        }
        match (flag, timeout) {
            (0, _) => self.stream_wait_event(stream, event),
            (1, 0) => self.call(|| {
                let ev = self.check_event(api, event)?;
                self.external_event_task(api, event, stream, Task::EventWait(ev.backend))
            }),
            (1, _) => self.call(|| {
                Err(fail::acl_range(
                    api,
                    "timeout",
                    timeout,
                    "0 when flag is ACL_EVENT_WAIT_EXTERNAL",
                ))
            }),
            _ => self.call(|| {
                Err(fail::acl_range(
                    api,
                    "flag",
                    flag,
                    "ACL_EVENT_WAIT_DEFAULT or ACL_EVENT_WAIT_EXTERNAL",
                ))
            }),
        }
    }
}
