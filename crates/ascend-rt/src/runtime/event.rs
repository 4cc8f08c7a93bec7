//! Events: create, record, stream-wait, synchronize, query, elapsed time, destroy
//! (docs/validation/streams-events.md, Event calls).

use super::backend_errors::WaitOf;
use super::state::{EventRec, HandleKind};
use super::Runtime;
use crate::backend::{EventId, Task};
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::{event_flag, event_recorded_status, stream_flag, RawEvent, RawStream};

impl Runtime {
    /// `aclrtCreateEvent(&event)` in the current context (runtime flag `RT_EVENT_DEFAULT`).
    pub fn create_event(&self, event: Option<&mut RawEvent>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCreateEvent";
            let out = event.ok_or_else(|| fail::acl_null(api, "event"))?;
            *out = self.create_event_inner(api, event_flag::RT_DEFAULT, false)?;
            Ok(())
        })
    }

    /// The impl step of event creation: a current context (107002), the per-device limit
    /// (207007), then the backend.
    pub(super) fn create_event_inner(
        &self,
        api: &str,
        flags: u32,
        ex_mode: bool,
    ) -> AclResult<RawEvent> {
        let mut st = self.lock();
        let (ctx, device) = Self::current_device(&st, api)?;
        if flags == event_flag::DEVICE_USE_ONLY && !ex_mode {
            // The event's entry reports the generic EE1001 and stores the last error
            // (`api_c.cc:668`).
            self.require_mc2(api, "event").map_err(|mut e| {
                e.msg_code = Some(MsgCode::EE1001);
                e
            })?;
        }
        let count = st.events.values().filter(|e| e.ctx == ctx).count();
        if count >= self.chip.limits.max_events as usize {
            return Err(fail::plain(
                ErrorCode::RtNoEventResource,
                format!(
                    "{api}: device {device} already has {count} events (limit {})",
                    self.chip.limits.max_events
                ),
            ));
        }
        let backend = self.backend.create_event(device, flags)?;
        let handle = st.new_handle(HandleKind::Event);
        st.events.insert(
            handle,
            EventRec {
                ctx,
                backend,
                flags,
                ex_mode,
                recorded: false,
                last_record_on: None,
                imported: false,
            },
        );
        Ok(RawEvent(handle))
    }

    pub(super) fn check_event(&self, api: &str, event: RawEvent) -> AclResult<EventRec> {
        if event.0 == 0 {
            return Err(fail::acl_null(api, "event"));
        }
        self.lock()
            .events
            .get(&event.0)
            .cloned()
            .ok_or_else(|| fail::invalid_handle(api, "event", event.0))
    }

    /// Shared by record and stream-wait: event and stream handles, context, and the rule that
    /// an event created with the default flags (`RT_EVENT_DEFAULT`, as `aclrtCreateEvent`
    /// makes) or in Ex mode cannot be used on a model-bound stream (207000); an event created
    /// with other flags (e.g. `ACL_EVENT_SYNC`) can (`api_impl.cc ApiImpl::EventRecord`).
    fn event_task(
        &self,
        api: &str,
        event: RawEvent,
        stream: RawStream,
        task: fn(EventId) -> Task,
    ) -> AclResult<()> {
        let ev = self.check_event(api, event)?;
        self.require_stream_handle(api, stream)?;
        let task = task(ev.backend);
        self.refuse_unusable_event(api, &ev, &task)?;
        let rec = self.task_stream(api, stream)?;
        if rec.model.is_some() && (ev.ex_mode || ev.flags == event_flag::RT_DEFAULT) {
            return Err(fail::not_supported(
                api,
                &self.chip.soc_name,
                "an event created with default flags or in Ex mode cannot be used on a model-bound stream",
            ));
        }
        // A wait for an event of the classic mode that no record has been submitted for has
        // nothing to wait for, and the runtime refuses it (the core's event wait, EE1018);
        // the Ex mode waits for nothing and succeeds, and so do the sync and external flags.
        let exempt = event_flag::SYNC | event_flag::EXTERNAL;
        let waits = matches!(task, Task::EventWait(_));
        if waits && !ev.ex_mode && !ev.recorded && ev.flags & exempt == 0 {
            return Err(AclError::new(
                ErrorCode::RtParamInvalid,
                Some(MsgCode::EE1018),
                format!(
                    "{api} failed: event {:#x} has not been recorded; record it on a stream (aclrtRecordEvent) before a stream waits for it",
                    event.0
                ),
            ));
        }
        let records = matches!(task, Task::EventRecord(_));
        self.launch(&rec, task)?;
        if records {
            let handle = self.handle_of(rec.backend);
            if let Some(e) = self.lock().events.get_mut(&event.0) {
                e.recorded = true;
                e.last_record_on = handle;
            }
        }
        Ok(())
    }

    /// The parameter-check decorator's rows of a record or a wait, after both handles and
    /// before the context (`src/runtime/api/impl/api_error.cc:1696-1708` for a record,
    /// `:1397-1417` for a wait, at vendor commit 681ef761): an event whose flags hold
    /// `ACL_EVENT_DEVICE_USE_ONLY` is for the device only (107000, EE1006); a wait on an event
    /// that has no wait task, none of its flags being DDSYNC, SYNC, external or IPC (the 950
    /// family counts the device-only flag too), is refused with a warning only (207000).
    fn refuse_unusable_event(&self, api: &str, ev: &EventRec, task: &Task) -> AclResult<()> {
        let records_or_waits = matches!(task, Task::EventRecord(_) | Task::EventWait(_));
        if records_or_waits && ev.flags & event_flag::DEVICE_USE_ONLY != 0 {
            return Err(AclError::new(
                ErrorCode::RtParamInvalid,
                Some(MsgCode::EE1006),
                format!("{api} failed: value {:#x} of the event's flags is invalid: a device-only event (ACL_EVENT_DEVICE_USE_ONLY) can be used only on the device", ev.flags),
            ));
        }
        let mut wait_task_flags =
            event_flag::SYNC | event_flag::RT_DDSYNC | event_flag::EXTERNAL | event_flag::IPC;
        if self.chip.chip_type == ascend_chips::ChipType::David {
            wait_task_flags |= event_flag::DEVICE_USE_ONLY;
        }
        if matches!(task, Task::EventWait(_)) && ev.flags & wait_task_flags == 0 {
            return Err(fail::plain(
                ErrorCode::RtFeatureNotSupport,
                format!("{api} failed: an event created with flags {:#x} has no wait task (none of ACL_EVENT_SYNC, external or IPC, nor the default flags): there is nothing to wait for", ev.flags),
            )
            .without_last_error());
        }
        Ok(())
    }

    /// An external event (`ACL_EVENT_EXTERNAL` alone) cannot be synchronized, queried or
    /// timed: the parameter-check decorator refuses it with a warning only (207000;
    /// `api_error.cc:1777-1778`, `:1811-1812`, `:1855-1856`), and IPC events cannot be timed
    /// either (`:1857-1860`).
    fn refuse_external(&self, api: &str, events: &[&EventRec], ipc_too: bool) -> AclResult<()> {
        let refused = |ev: &EventRec| {
            ev.flags == event_flag::EXTERNAL || (ipc_too && ev.flags == event_flag::IPC)
        };
        if let Some(ev) = events.iter().find(|ev| refused(ev)) {
            return Err(fail::plain(
                ErrorCode::RtFeatureNotSupport,
                format!("{api} failed: an event created with flags {:#x} (external or IPC) does not support this call", ev.flags),
            )
            .without_last_error());
        }
        Ok(())
    }

    /// `aclrtRecordEvent(event, stream)`.
    pub fn record_event(&self, event: RawEvent, stream: RawStream) -> AclResult<()> {
        self.call(|| self.event_task("aclrtRecordEvent", event, stream, Task::EventRecord))
    }

    /// `aclrtResetEvent(event, stream)`.
    pub fn reset_event(&self, event: RawEvent, stream: RawStream) -> AclResult<()> {
        self.call(|| self.event_task("aclrtResetEvent", event, stream, Task::EventReset))
    }

    /// `aclrtStreamWaitEvent(stream, event)`.
    pub fn stream_wait_event(&self, stream: RawStream, event: RawEvent) -> AclResult<()> {
        self.call(|| self.event_task("aclrtStreamWaitEvent", event, stream, Task::EventWait))
    }

    /// `aclrtSynchronizeEvent(event)`: blocks until the event's latest record has executed.
    pub fn synchronize_event(&self, event: RawEvent) -> AclResult<()> {
        self.call(|| {
            let ev = self.check_event("aclrtSynchronizeEvent", event)?;
            self.refuse_external("aclrtSynchronizeEvent", &[&ev], false)?;
            self.refuse_by_record_stream("aclrtSynchronizeEvent", &ev)?;
            let r = self.backend.synchronize_event(ev.backend, None);
            self.report_task_faults();
            r.map_err(|e| e.into_acl(WaitOf::Event))
        })
    }

    /// `aclrtSynchronizeEventWithTimeout(event, timeout)`: −1 = forever; expiry is 507047
    /// (docs/sync-timeouts.md).
    ///
    /// Order, as the vendor's layers check it: below −1 (107000, before the event, even a
    /// NULL one); NULL (100000); an event handle that is not live (107017); 0 (107000, the
    /// parameter-check decorator, even for an event never recorded); then an event never
    /// recorded succeeds at once. There is no context check. With
    /// [`RuntimeOptions::documented_rules`](super::RuntimeOptions), 0 checks once instead:
    /// success when the latest record has executed, else 507047.
    pub fn synchronize_event_with_timeout(&self, event: RawEvent, timeout: i32) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtSynchronizeEventWithTimeout";
            if timeout < -1 {
                return Err(fail::rt_value(api, "timeout", timeout, "[-1, INT_MAX]"));
            }
            let ev = self.check_event(api, event)?;
            let check_once = self.zero_timeout(api, timeout)?;
            self.refuse_external(api, &[&ev], false)?;
            self.refuse_by_record_stream(api, &ev)?;
            if check_once {
                return match self.backend.event_complete(ev.backend)? || !ev.recorded {
                    true => Ok(()),
                    false => Err(fail::plain(
                        ErrorCode::RtEventSyncTimeout,
                        format!(
                            "{api}: the event's record has not executed (timeout 0 checks once)"
                        ),
                    )),
                };
            }
            let limit = if timeout == -1 {
                None
            } else {
                Some(timeout as u64)
            };
            let r = self.backend.synchronize_event(ev.backend, limit);
            self.report_task_faults();
            r.map_err(|e| e.into_acl(WaitOf::Event))
        })
    }

    /// `aclrtQueryEventStatus(event, &status)`: `ACL_EVENT_RECORDED_STATUS_COMPLETE` (1) once
    /// the latest record has executed, else `NOT_READY` (0).
    pub fn query_event_status(&self, event: RawEvent, status: Option<&mut u32>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtQueryEventStatus";
            if event.0 == 0 {
                return Err(fail::acl_null(api, "event"));
            }
            let out = status.ok_or_else(|| fail::acl_null(api, "status"))?;
            let ev = self.check_event(api, event)?;
            self.refuse_external(api, &[&ev], false)?;
            *out = if self.backend.event_complete(ev.backend)? {
                event_recorded_status::COMPLETE
            } else {
                event_recorded_status::NOT_READY
            };
            Ok(())
        })
    }

    /// `aclrtEventElapsedTime(&ms, start, end)`: milliseconds between two executed records,
    /// measured with the chip's timestamp counter.
    ///
    /// Order: NULL `ms`, `start`, `end` (100000); handles not live (107017); either event
    /// never recorded (507000); a record not yet executed (107006, its timestamp is not valid
    /// yet). No context is needed (docs/sync-timeouts.md).
    pub fn event_elapsed_time(
        &self,
        ms: Option<&mut f32>,
        start: RawEvent,
        end: RawEvent,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtEventElapsedTime";
            let out = ms.ok_or_else(|| fail::acl_null(api, "ms"))?;
            if start.0 == 0 {
                return Err(fail::acl_null(api, "start"));
            }
            if end.0 == 0 {
                return Err(fail::acl_null(api, "end"));
            }
            let a = self.check_event(api, start)?;
            let b = self.check_event(api, end)?;
            self.refuse_external(api, &[&a, &b], true)?;
            // An event never recorded has no record to time: the runtime's "no recorder"
            // error, which CANN reports as its internal error (507000).
            for (param, ev) in [("end", &b), ("start", &a)] {
                if !ev.recorded {
                    return Err(AclError::new(
                        ErrorCode::RtInternalError,
                        Some(MsgCode::EE9999),
                        format!("{api} failed: event {param} has never been recorded, so it has no time (the runtime's event-recorder-null error)"),
                    ));
                }
            }
            *out = self.backend.event_elapsed_ms(a.backend, b.backend)?;
            Ok(())
        })
    }

    /// `aclrtDestroyEvent(event)`: may be called before the event completes.
    pub fn destroy_event(&self, event: RawEvent) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtDestroyEvent";
            if event.0 == 0 {
                return Err(fail::acl_null(api, "event"));
            }
            // Forgotten and destroyed in one step: a concurrent destroy of the same handle
            // finds it gone (107017) instead of destroying the backend's event twice.
            let mut st = self.lock();
            let ev = st
                .events
                .remove(&event.0)
                .ok_or_else(|| fail::invalid_handle(api, "event", event.0))?;
            let done = if ev.imported {
                self.backend.ipc_event_close(ev.backend, std::process::id())
            } else {
                self.backend.destroy_event(ev.backend)
            };
            done.map_err(crate::AclError::from)
        })
    }

    /// The rows of a synchronize that look at the stream of the event's latest record, once
    /// the event's own rows have passed. The parameter-check decorator refuses a record on a
    /// stream bound to a model (107000, EE1016; `api_error.cc:1782-1784`, the record's stream
    /// looked up by id, `event.cc:1326-1334`, `event_david.cc:417-424`). Then, on the 950
    /// family, a record on a persistent stream bound to no model, which never runs it, makes
    /// the wait fail (507000, EE9999; `api_impl.cc:2250-2265`).
    fn refuse_by_record_stream(&self, api: &str, ev: &super::state::EventRec) -> AclResult<()> {
        let david = matches!(
            self.chip.chip_type,
            ascend_chips::ChipType::David | ascend_chips::ChipType::Ascend350
        );
        let (bound, unbound_persistent) = ev
            .last_record_on
            .and_then(|s| {
                let st = self.lock();
                st.streams.get(&s).map(|r| {
                    let persistent = r.flags & stream_flag::PERSISTENT != 0;
                    (r.model.is_some(), r.model.is_none() && persistent)
                })
            })
            .unwrap_or((false, false));
        if bound {
            return Err(AclError::new(
                ErrorCode::RtParamInvalid,
                Some(MsgCode::EE1016),
                format!("{api} failed: the event's latest record is on a stream bound to a model, which the host cannot synchronize with"),
            ));
        }
        if david && unbound_persistent {
            return Err(AclError::new(
                ErrorCode::RtInternalError,
                Some(MsgCode::EE9999),
                format!("{api} failed: the event's latest record is on a persistent stream bound to no model, which never runs it"),
            ));
        }
        Ok(())
    }
}
