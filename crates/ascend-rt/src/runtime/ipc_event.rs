//! IPC events: an event created with `ACL_EVENT_IPC` hands out a handle
//! (`aclrtIpcGetEventHandle`) another process opens as an event of its own
//! (`aclrtIpcOpenEventHandle`); records, waits, synchronizes and status queries in either
//! process act on the one event (on the shared device). The checks are the runtime's, in its
//! order (docs/validation/ipc.md).

use super::state::{EventRec, HandleKind};
use super::{chip_caps, Runtime};
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::{event_flag, RawEvent};

/// `ACL_IPC_EVENT_HANDLE_SIZE`: the bytes of `aclrtIpcEventHandle` (the first 8 are used).
pub const IPC_EVENT_HANDLE_SIZE: usize = 64;

/// `aclrtIpcEventHandle`: the handle's bytes, as the C struct holds them.
pub type IpcEventHandle = [u8; IPC_EVENT_HANDLE_SIZE];

impl Runtime {
    /// `aclrtIpcGetEventHandle(event, &handle)`: writes the handle's first 8 bytes (the rest
    /// are left as they were). Order: handle NULL, then event NULL (100000, EH0008); a chip
    /// without IPC events (207000); not a live event (107017, EE1017); an event whose flags
    /// are not exactly `ACL_EVENT_IPC` (107000, EE1006).
    pub fn ipc_get_event_handle(
        &self,
        event: RawEvent,
        handle: Option<&mut IpcEventHandle>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtIpcGetEventHandle";
            let out = handle.ok_or_else(|| fail::acl_null(api, "handle"))?;
            if event.0 == 0 {
                return Err(fail::acl_null(api, "event"));
            }
            if !chip_caps::ipc_event(&self.chip) {
                return Err(fail::not_supported(api, &self.chip.soc_name, "IPC events"));
            }
            let ev = self.check_event(api, event)?;
            if ev.flags != event_flag::IPC {
                return Err(AclError::new(
                    ErrorCode::RtParamInvalid,
                    Some(MsgCode::EE1006),
                    format!(
                        "{api} failed: the event's flags {:#x} are not ACL_EVENT_IPC (0x40): only \
                         IPC events have a handle",
                        ev.flags
                    ),
                ));
            }
            let h = self
                .backend
                .ipc_event_handle(ev.backend, std::process::id())?;
            out[..8].copy_from_slice(&h.to_ne_bytes());
            Ok(())
        })
    }

    /// `aclrtIpcOpenEventHandle(handle, &event)`: an event of this process, on the current
    /// device, for the IPC event the handle names. Order: event NULL (100000, EH0008); a chip
    /// without IPC events (207000); no context (107002); then the driver's: a handle that names
    /// no live event (107000).
    pub fn ipc_open_event_handle(
        &self,
        handle: &IpcEventHandle,
        event: Option<&mut RawEvent>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtIpcOpenEventHandle";
            let out = event.ok_or_else(|| fail::acl_null(api, "event"))?;
            if !chip_caps::ipc_event(&self.chip) {
                return Err(fail::not_supported(api, &self.chip.soc_name, "IPC events"));
            }
            let (ctx, device) = {
                let st = self.lock();
                Self::current_device(&st, api)?
            };
            let mut first = [0u8; 8];
            first.copy_from_slice(&handle[..8]);
            let backend = self.backend.ipc_event_open(
                device,
                u64::from_ne_bytes(first),
                std::process::id(),
            )?;
            let mut st = self.lock();
            let h = st.new_handle(HandleKind::Event);
            st.events.insert(
                h,
                EventRec {
                    ctx,
                    backend,
                    flags: event_flag::IPC,
                    ex_mode: true,
                    recorded: false,
                    last_record_on: None,
                    imported: true,
                },
            );
            *out = RawEvent(h);
            Ok(())
        })
    }
}
