//! Events: creation with the flag word's matching ACL call, queries, synchronisation,
//! elapsed time and timestamps. Observing an event complete finishes the host copies
//! enqueued before its latest record.

use ascend_rt_sys::{self as sys, acl_fn};

use super::errors::missing;
use super::handles::timeout_arg;
use super::state::EventInfo;
use super::state::NotifyInfo;
use super::HwBackend;
use super::RawHandle;
use crate::backend::{BResult, EventId, Events, NotifyId};
use crate::error::ErrorCode;

/// `aclrtEventGetTimestamp`'s code for a record that has not executed.
const TIMESTAMP_NOT_READY: i32 = ErrorCode::RtEventTimestampInvalid as i32;
/// The runtime flag word of `aclrtCreateEvent` (`RT_EVENT_DEFAULT`).
const EVENT_RT_DEFAULT: u32 = crate::raw_types::event_flag::RT_DEFAULT;
/// The flags only `aclrtCreateEventExWithFlag` accepts (`ACL_EVENT_IPC`).
const EVENT_EX_ONLY: u32 = !crate::raw_types::event_flag::RT_FLAG_MAX;

impl Events for HwBackend {
    /// `flags` is the runtime flag word: `RT_EVENT_DEFAULT` is `aclrtCreateEvent`, a flag
    /// only Ex mode has (`ACL_EVENT_IPC`) is `aclrtCreateEventExWithFlag`, any other is
    /// `aclrtCreateEventWithFlag` (the trait does not say whether the front end's event is in
    /// Ex mode; the front end enforces Ex mode's rules itself).
    fn create_event(&self, device: u32, flags: u32) -> BResult<EventId> {
        let ctx = self.enter(device)?;
        let mut e: sys::aclrtEvent = std::ptr::null_mut();
        // SAFETY (all three): the out-pointer is a live local.
        if flags == EVENT_RT_DEFAULT {
            acl!(self, aclrtCreateEvent(&mut e))?;
        } else if flags & EVENT_EX_ONLY != 0 {
            acl!(self, aclrtCreateEventExWithFlag(&mut e, flags))?;
        } else {
            acl!(self, aclrtCreateEventWithFlag(&mut e, flags))?;
        }
        let h = e as usize as RawHandle;
        self.state().events.insert(
            h,
            EventInfo {
                ctx,
                last_record: None,
            },
        );
        Ok(EventId(h))
    }

    /// `aclrtDestroyEvent` in the event's context.
    fn destroy_event(&self, event: EventId) -> BResult<()> {
        let event: RawHandle = event.0;
        self.enter_event(event)?;
        // SAFETY: a live event handle of the library.
        acl!(self, aclrtDestroyEvent(event as usize as sys::aclrtEvent))?;
        self.state().events.remove(&event);
        Ok(())
    }

    /// `aclrtQueryEventStatus`; a complete event finishes the work before its latest record.
    fn event_complete(&self, event: EventId) -> BResult<bool> {
        let event: RawHandle = event.0;
        self.enter_event(event)?;
        let mut status: sys::aclrtEventRecordedStatus = 0 as _;
        // SAFETY: a live event handle and a live out-pointer.
        acl!(
            self,
            aclrtQueryEventStatus(event as usize as sys::aclrtEvent, &mut status)
        )?;
        let done = status as u32
            == sys::aclrtEventRecordedStatus_ACL_EVENT_RECORDED_STATUS_COMPLETE as u32;
        if done {
            self.finish_event(event);
        }
        Ok(done)
    }

    /// `aclrtSynchronizeEvent` (or its timeout form); then finishes the work before the
    /// event's latest record.
    fn synchronize_event(&self, event: EventId, timeout_ms: Option<u64>) -> BResult<()> {
        let event: RawHandle = event.0;
        self.enter_event(event)?;
        let e = event as usize as sys::aclrtEvent;
        // SAFETY: a live event handle of the library.
        match timeout_ms {
            None => acl!(self, aclrtSynchronizeEvent(e))?,
            Some(_) => acl!(
                self,
                aclrtSynchronizeEventWithTimeout(e, timeout_arg(timeout_ms))
            )?,
        }
        self.finish_event(event);
        Ok(())
    }

    /// `aclrtEventElapsedTime`, in the start event's context.
    fn event_elapsed_ms(&self, start: EventId, end: EventId) -> BResult<f32> {
        let start: RawHandle = start.0;
        let end: RawHandle = end.0;
        self.enter_event(start)?;
        let mut ms = 0f32;
        // SAFETY: live event handles and a live out-pointer.
        acl!(
            self,
            aclrtEventElapsedTime(
                &mut ms,
                start as usize as sys::aclrtEvent,
                end as usize as sys::aclrtEvent
            )
        )?;
        Ok(ms)
    }

    /// `aclrtEventGetTimestamp`; its "not executed yet" code (107006) is `None`. A timestamp
    /// means the record executed, so the work before it is finished on the host too.
    fn event_timestamp_us(&self, event: EventId) -> BResult<Option<u64>> {
        let event: RawHandle = event.0;
        self.enter_event(event)?;
        let f = acl_fn!(self.lib, aclrtEventGetTimestamp).map_err(missing)?;
        let mut ts = 0u64;
        // SAFETY: `f` is the library's aclrtEventGetTimestamp (declared by bindgen from the
        // ACL header); a live event handle of the library and a live out-pointer.
        let rc = unsafe { f(event as usize as sys::aclrtEvent, &mut ts) };
        if rc as i32 == TIMESTAMP_NOT_READY {
            return Ok(None);
        }
        self.check("aclrtEventGetTimestamp", rc)?;
        self.finish_event(event);
        Ok(Some(ts))
    }

    /// `aclrtCreateNotify` in the context of the device's new objects.
    fn create_notify(&self, device: u32, flag: u64) -> BResult<NotifyId> {
        let ctx = self.enter(device)?;
        let mut n: sys::aclrtNotify = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtCreateNotify(&mut n, flag))?;
        let h = n as usize as RawHandle;
        self.state().notifies.insert(h, NotifyInfo { ctx });
        Ok(NotifyId(h))
    }

    /// `aclrtDestroyNotify` in the notify's context.
    fn destroy_notify(&self, notify: NotifyId) -> BResult<()> {
        let notify: RawHandle = notify.0;
        self.enter_notify(notify)?;
        // SAFETY: a live notify handle of the library (front-end validated).
        acl!(
            self,
            aclrtDestroyNotify(notify as usize as sys::aclrtNotify)
        )?;
        self.state().notifies.remove(&notify);
        Ok(())
    }

    /// `aclrtNotifyGetExportKey` in the notify's context.
    fn ipc_notify_export(
        &self,
        _device: u32,
        notify: NotifyId,
        whitelist: bool,
        _pid: u32,
    ) -> BResult<String> {
        let h: RawHandle = notify.0;
        self.enter_notify(h)?;
        let mut key = [0 as std::ffi::c_char; crate::runtime::IPC_KEY_LEN];
        let flags = if whitelist {
            0
        } else {
            crate::runtime::IPC_NOTIFY_EXPORT_NO_PID_VALIDATION
        };
        // SAFETY: a live notify handle; the key buffer is a live local of the length passed.
        acl!(
            self,
            aclrtNotifyGetExportKey(
                h as usize as sys::aclrtNotify,
                key.as_mut_ptr(),
                key.len(),
                flags
            )
        )?;
        // SAFETY: the buffer is zeroed, so it holds a NUL-terminated key whatever was written.
        let k = unsafe { std::ffi::CStr::from_ptr(key.as_ptr()) };
        Ok(k.to_string_lossy().into_owned())
    }

    /// `aclrtNotifySetImportPid` in the notify's context.
    fn ipc_notify_set_pids(
        &self,
        notify: NotifyId,
        _key: &str,
        pids: &[i32],
        _pid: u32,
    ) -> BResult<()> {
        let h: RawHandle = notify.0;
        self.enter_notify(h)?;
        let mut pids = pids.to_vec();
        // SAFETY: a live notify handle and a live list of `pids.len()` ids.
        acl!(
            self,
            aclrtNotifySetImportPid(
                h as usize as sys::aclrtNotify,
                pids.as_mut_ptr(),
                pids.len()
            )
        )?;
        Ok(())
    }

    /// `aclrtNotifyImportByKey` in the device's context: a notify of this process's own.
    fn ipc_notify_import(&self, device: u32, key: &str, _pid: u32) -> BResult<(NotifyId, u32)> {
        let ctx = self.enter(device)?;
        let k = std::ffi::CString::new(key).map_err(|_| {
            crate::backend::BackendError::Unsupported(format!(
                "an IPC key with a NUL byte: {key:?}"
            ))
        })?;
        let mut n: sys::aclrtNotify = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local; the key is NUL-terminated.
        acl!(self, aclrtNotifyImportByKey(&mut n, k.as_ptr(), 0))?;
        let h = n as usize as RawHandle;
        self.state().notifies.insert(h, NotifyInfo { ctx });
        Ok((NotifyId(h), device))
    }

    /// The importer's notify is a handle of its own: destroyed as one.
    fn ipc_notify_close(&self, notify: NotifyId) -> BResult<()> {
        self.destroy_notify(notify)
    }

    /// `aclrtIpcGetEventHandle` in the event's context: the handle's first 8 bytes.
    fn ipc_event_handle(&self, event: EventId, _pid: u32) -> BResult<u64> {
        let h: RawHandle = event.0;
        self.enter_event(h)?;
        let mut handle = sys::aclrtIpcEventHandle::default();
        // SAFETY: a live event handle; the out-struct is a live local.
        acl!(
            self,
            aclrtIpcGetEventHandle(h as usize as sys::aclrtEvent, &mut handle)
        )?;
        let mut first = [0u8; 8];
        for (b, c) in first.iter_mut().zip(handle.reserved.iter()) {
            *b = *c as u8;
        }
        Ok(u64::from_ne_bytes(first))
    }

    /// `aclrtIpcOpenEventHandle` in the device's context: an event of this process's own.
    fn ipc_event_open(&self, device: u32, handle: u64, _pid: u32) -> BResult<EventId> {
        let ctx = self.enter(device)?;
        let mut h = sys::aclrtIpcEventHandle::default();
        for (c, b) in h.reserved.iter_mut().zip(handle.to_ne_bytes()) {
            *c = b as _;
        }
        let mut e: sys::aclrtEvent = std::ptr::null_mut();
        // SAFETY: the handle is passed by value; the out-pointer is a live local.
        acl!(self, aclrtIpcOpenEventHandle(h, &mut e))?;
        let raw = e as usize as RawHandle;
        self.state().events.insert(
            raw,
            EventInfo {
                ctx,
                last_record: None,
            },
        );
        Ok(EventId(raw))
    }

    /// The opened event is a handle of this process: destroyed as one.
    fn ipc_event_close(&self, event: EventId, _pid: u32) -> BResult<()> {
        self.destroy_event(event)
    }
}
