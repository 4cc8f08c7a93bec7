//! Events with flags and event queries: `aclrtCreateEventWithFlag`,
//! `aclrtCreateEventExWithFlag`, `aclrtEventGetTimestamp`, `aclrtQueryEvent`.
//!
//! Behaviour from the vendor's runtime: `src/acl/aclrt_impl/event.cpp`,
//! `src/runtime/api/api_c.cc` (`rtEventCreateWithFlag`, `rtEventCreateExWithFlag`,
//! `rtEventGetTimeStamp`, `rtEventQuery`), `src/runtime/api/impl/api_error.cc`
//! (`EventCreate`, `EventCreateEx`, `EventGetTimeStamp`), `src/runtime/core/src/event/event.cc`
//! (`Event::Query`, `Event::GetTimeStamp`: the counter divided by ticks per µs).

use super::{chip_caps, Runtime};
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::{event_flag as f, event_status, RawEvent};

/// RT decorator: a flag that must be used alone was combined (107000, EE1006).
fn not_alone(api: &str, flag: u32, alone: &[u32]) -> AclResult<()> {
    for &bit in alone {
        if flag & bit != 0 && flag & !bit != 0 {
            return Err(AclError::new(
                ErrorCode::RtParamInvalid,
                Some(MsgCode::EE1006),
                format!(
                    "{api} failed: flag {flag:#x}: {bit:#x} cannot be combined with other flags"
                ),
            ));
        }
    }
    Ok(())
}

impl Runtime {
    /// `aclrtCreateEventWithFlag(&event, flag)`: an event with runtime flags `flag`. An event
    /// whose flag is not `RT_EVENT_DEFAULT` (0x0E), e.g. `ACL_EVENT_SYNC`, may be recorded
    /// and waited on model-bound streams.
    ///
    /// Order: event NULL (100000, EH0008); no known bit, or a bit above 0x3F (107000,
    /// EE1003); `ACL_EVENT_DEVICE_USE_ONLY` or `ACL_EVENT_EXTERNAL` combined with another bit
    /// (107000, EE1006); no current context (107002, EE1018); the event limit (207007).
    pub fn create_event_with_flag(&self, event: Option<&mut RawEvent>, flag: u32) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCreateEventWithFlag";
            let out = event.ok_or_else(|| fail::acl_null(api, "event"))?;
            if flag & f::RT_FLAG_MAX == 0 || flag > f::RT_FLAG_MAX {
                return Err(fail::rt_value(
                    api,
                    "flag",
                    flag,
                    "an OR of 0x1, 0x2, 0x4 and 0x8, or 0x10 or 0x20 alone",
                ));
            }
            not_alone(api, flag, &[f::DEVICE_USE_ONLY, f::EXTERNAL])?;
            *out = self.create_event_inner(api, flag, false)?;
            Ok(())
        })
    }

    /// `aclrtCreateEventExWithFlag(&event, flag)`: an event in Ex ("new") mode, reusable
    /// without reset; never usable on model-bound streams.
    ///
    /// Order: event NULL (100000, EH0008); 0x10, 0x20 or `ACL_EVENT_IPC` combined (107000,
    /// EE1006); `ACL_EVENT_IPC` on a chip without IPC events (207000, warning only, not stored
    /// as the last error); no known bit or a bit outside 0x4F (107000, EE1003); no current
    /// context (107002); the event limit (207007).
    pub fn create_event_ex_with_flag(
        &self,
        event: Option<&mut RawEvent>,
        flag: u32,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCreateEventExWithFlag";
            let out = event.ok_or_else(|| fail::acl_null(api, "event"))?;
            not_alone(api, flag, &[f::DEVICE_USE_ONLY, f::EXTERNAL, f::IPC])?;
            if flag == f::IPC && !chip_caps::ipc_event(&self.chip) {
                return Err(fail::not_supported(api, &self.chip.soc_name, "IPC events")
                    .without_last_error());
            }
            if flag & f::RT_EX_FLAG_MAX == 0 || flag > f::RT_EX_FLAG_MAX {
                return Err(fail::rt_value(
                    api,
                    "flag",
                    flag,
                    "an OR of 0x1, 0x2, 0x4 and 0x8, or 0x40 alone",
                ));
            }
            *out = self.create_event_inner(api, flag, true)?;
            Ok(())
        })
    }

    /// `aclrtEventGetTimestamp(event, &timestamp)`: the device clock, in µs, when the event's
    /// latest record executed.
    ///
    /// Order: timestamp NULL, then event NULL (100000, EH0008); event handle (107017); an
    /// `ACL_EVENT_EXTERNAL` or IPC event (207000, warning only, not stored as the last error);
    /// never recorded (507000); the record has not executed (107006).
    pub fn event_get_timestamp(
        &self,
        event: RawEvent,
        timestamp: Option<&mut u64>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtEventGetTimestamp";
            let out = timestamp.ok_or_else(|| fail::acl_null(api, "timestamp"))?;
            let ev = self.check_event(api, event)?;
            if ev.flags == f::EXTERNAL || ev.flags == f::IPC {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    "external and IPC events have no timestamp",
                )
                .without_last_error());
            }
            if !ev.recorded {
                return Err(AclError::new(
                    ErrorCode::RtInternalError,
                    Some(MsgCode::EE9999),
                    format!("{api} failed: the event was never recorded, so it has no time (the runtime's event-recorder-null error)"),
                ));
            }
            *out = self
                .backend
                .event_timestamp_us(ev.backend)?
                .ok_or_else(|| {
                    fail::plain(
                        ErrorCode::RtEventTimestampInvalid,
                        format!("{api}: the event's record has not executed"),
                    )
                })?;
            Ok(())
        })
    }

    /// `aclrtQueryEvent(event, &status)` (deprecated in favour of `aclrtQueryEventStatus`):
    /// `ACL_EVENT_STATUS_NOT_READY` (1) while the latest record is pending, else
    /// `ACL_EVENT_STATUS_COMPLETE` (0), also for an event never recorded.
    ///
    /// Order: event NULL, then status NULL (100000, EH0008); event handle (107017).
    pub fn query_event(&self, event: RawEvent, status: Option<&mut u32>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtQueryEvent";
            if event.0 == 0 {
                return Err(fail::acl_null(api, "event"));
            }
            let out = status.ok_or_else(|| fail::acl_null(api, "status"))?;
            let ev = self.check_event(api, event)?;
            // The older query is not supported on an IPC event (aclrtQueryEventStatus is).
            if ev.flags == f::IPC {
                return Err(fail::not_supported(api, &self.chip.soc_name, "IPC events"));
            }
            let pending = ev.recorded && !self.backend.event_complete(ev.backend)?;
            *out = if pending {
                event_status::NOT_READY
            } else {
                event_status::COMPLETE
            };
            Ok(())
        })
    }
}
