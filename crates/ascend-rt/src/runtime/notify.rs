//! Notifies: `aclrtCreateNotify`, `aclrtDestroyNotify`, `aclrtRecordNotify`,
//! `aclrtWaitAndResetNotify`.
//!
//! A notify is a one-bit flag between streams: a record sets it when its stream reaches the
//! task; a wait blocks its stream until the flag is set and then clears it. A wait's timeout
//! (seconds; 0 or `UINT32_MAX` = none) that expires fails the stream: the next synchronize
//! returns `ACL_ERROR_RT_TASK_TIMEOUT` (107020, derived: the device reports a notify-wait
//! timeout as a task timeout, `src/runtime/core/src/device/device_error_proc.cc`,
//! `error_code.cc`).
//!
//! Behaviour from the vendor's runtime: `src/acl/aclrt_impl/notify.cpp`,
//! `src/runtime/api/api_c_event.cc` (`rtsNotifyCreate`, `rtsNotifyWaitAndReset`),
//! `src/runtime/api/api_c.cc` (`rtNotifyDestroy`, `rtNotifyRecord`, `rtNotifyWait*`),
//! `src/runtime/api/impl/api_error.cc` and `api_impl.cc` (`Notify*`); the timeout unit and the
//! per-device limits from `docs/zh/api_ref/08_notify_management.md` (the header comment says
//! ms, the docs and the runtime's logs say seconds).

use super::state::{HandleKind, NotifyIpc, NotifyRec};
use super::{chip_caps, Runtime};
use crate::backend::{NotifyId, Task};
use crate::error::{fail, AclResult, ErrorCode};
use crate::raw_types::{notify_flag, notify_timeout, RawNotify, RawStream};

impl Runtime {
    /// `aclrtCreateNotify(&notify, flag)` on the current device.
    ///
    /// Order: notify NULL (100000, EH0008); flag not `ACL_NOTIFY_DEFAULT` (0) or
    /// `ACL_NOTIFY_DEVICE_USE_ONLY` (1) (107000, EE1003); no device set (107002, returned
    /// without a message and not stored as the last error); the per-device limit (207009).
    pub fn create_notify(&self, notify: Option<&mut RawNotify>, flag: u64) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCreateNotify";
            let out = notify.ok_or_else(|| fail::acl_null(api, "notify"))?;
            if flag != notify_flag::DEFAULT && flag != notify_flag::DEVICE_USE_ONLY {
                return Err(fail::rt_value(
                    api,
                    "flag",
                    flag,
                    "ACL_NOTIFY_DEFAULT (0) or ACL_NOTIFY_DEVICE_USE_ONLY (1)",
                ));
            }
            let mut st = self.lock();
            let device = match st.current_ctx(Self::thread()) {
                Some(ctx) => st.contexts[&ctx].device,
                None => {
                    return Err(fail::plain(
                        ErrorCode::RtContextNull,
                        format!("{api}: no device is set for this thread"),
                    )
                    .without_last_error())
                }
            };
            let count = st.notifies.values().filter(|n| n.device == device).count();
            let limit = chip_caps::max_notifies(&self.chip);
            if count >= limit {
                return Err(fail::plain(
                    ErrorCode::RtNoNotifyResource,
                    format!("{api}: device {device} already has {count} notifies (limit {limit})"),
                ));
            }
            let backend = self.backend.create_notify(device, flag)?;
            let handle = st.new_handle(HandleKind::Notify);
            st.notifies.insert(
                handle,
                NotifyRec {
                    device,
                    backend,
                    ipc: NotifyIpc::None,
                },
            );
            *out = RawNotify(handle);
            Ok(())
        })
    }

    /// The ACL NULL check and the RT handle check of a notify argument.
    pub(super) fn check_notify(&self, api: &str, notify: RawNotify) -> AclResult<NotifyRec> {
        if notify.0 == 0 {
            return Err(fail::acl_null(api, "notify"));
        }
        self.lock()
            .notifies
            .get(&notify.0)
            .cloned()
            .ok_or_else(|| fail::invalid_handle(api, "notify", notify.0))
    }

    /// `aclrtDestroyNotify(notify)`.
    ///
    /// Order: NULL (100000, EH0008); not a live notify (107017, EE1017); no current context
    /// (107002, EE1018).
    pub fn destroy_notify(&self, notify: RawNotify) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtDestroyNotify";
            if notify.0 == 0 {
                return Err(fail::acl_null(api, "notify"));
            }
            // Checked, forgotten and destroyed in one step under the lock.
            let mut st = self.lock();
            if !st.notifies.contains_key(&notify.0) {
                return Err(fail::invalid_handle(api, "notify", notify.0));
            }
            Self::current_device(&st, api)?;
            let rec = st.notifies.remove(&notify.0).expect("checked above");
            // An importer closes its view; the creator destroys the notify (and its key).
            let done = match rec.ipc {
                NotifyIpc::Imported { .. } => self.backend.ipc_notify_close(rec.backend),
                _ => self.backend.destroy_notify(rec.backend),
            };
            done.map_err(crate::AclError::from)
        })
    }

    /// The shared checks of record and wait: notify (100000 / 107017), stream handle
    /// (107017), current context (107002) and the stream's context (107003).
    fn notify_task(
        &self,
        api: &str,
        notify: RawNotify,
        stream: RawStream,
        task: impl FnOnce(NotifyId) -> Task,
    ) -> AclResult<()> {
        let rec = self.check_notify(api, notify)?;
        let stream_rec = {
            let st = self.lock();
            Self::check_stream_handle(&st, api, stream)?;
            Self::impl_stream(&st, api, stream)?.1
        };
        let t = task(rec.backend);
        // Only the device that created an IPC notify may wait on it.
        if let (NotifyIpc::Imported { creator_device }, Task::NotifyWait { .. }) = (&rec.ipc, &t) {
            if *creator_device != stream_rec.device {
                return Err(crate::AclError::new(
                    ErrorCode::RtParamInvalid,
                    Some(crate::error::MsgCode::EE1012),
                    format!(
                        "{api} failed: the notify was imported from device {creator_device}; only \
                         the device that created an IPC notify may wait on it, not device {}",
                        stream_rec.device
                    ),
                ));
            }
        }
        self.launch(&stream_rec, t)
    }

    /// `aclrtRecordNotify(notify, stream)`: sets the notify when the stream (NULL: the default
    /// stream) reaches the task.
    pub fn record_notify(&self, notify: RawNotify, stream: RawStream) -> AclResult<()> {
        self.call(|| self.notify_task("aclrtRecordNotify", notify, stream, Task::NotifyRecord))
    }

    /// `aclrtWaitAndResetNotify(notify, stream, timeout)`: blocks the stream until the notify
    /// is set, then clears it. `timeout` in seconds; 0 and `UINT32_MAX` wait forever.
    pub fn wait_and_reset_notify(
        &self,
        notify: RawNotify,
        stream: RawStream,
        timeout: u32,
    ) -> AclResult<()> {
        self.call(|| {
            let timeout_ms = match timeout {
                notify_timeout::FOREVER | notify_timeout::PLAIN_WAIT => None,
                t => Some(u64::from(t) * 1000),
            };
            self.notify_task("aclrtWaitAndResetNotify", notify, stream, |n| {
                Task::NotifyWait {
                    notify: n,
                    timeout_ms,
                }
            })
        })
    }
}
