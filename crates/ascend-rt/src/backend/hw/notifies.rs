//! Notifies: creating and destroying them in the right context (recording and waiting are
//! tasks, see `tasks`).

use ascend_rt_sys as sys;

use super::state::NotifyInfo;
use super::HwBackend;
use super::RawHandle;
use crate::error::AclResult;

impl HwBackend {
    /// `aclrtCreateNotify` in the context of the device's new objects.
    pub(super) fn create_notify(&self, device: u32, flag: u64) -> AclResult<RawHandle> {
        let ctx = self.enter(device)?;
        let mut n: sys::aclrtNotify = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtCreateNotify(&mut n, flag))?;
        let h = n as usize as RawHandle;
        self.state().notifies.insert(h, NotifyInfo { ctx });
        Ok(h)
    }

    /// `aclrtDestroyNotify` in the notify's context.
    pub(super) fn destroy_notify(&self, notify: RawHandle) -> AclResult<()> {
        self.enter_notify(notify)?;
        // SAFETY: a live notify handle of the library (front-end validated).
        acl!(
            self,
            aclrtDestroyNotify(notify as usize as sys::aclrtNotify)
        )?;
        self.state().notifies.remove(&notify);
        Ok(())
    }
}
