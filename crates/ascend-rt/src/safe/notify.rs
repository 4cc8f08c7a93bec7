//! [`Notify`]: a notify, a device-side signal between streams (`aclrtCreateNotify` …
//! `aclrtDestroyNotify`); destroyed on drop.

use std::sync::Arc;

use super::device::DeviceGuard;
use crate::raw_types::RawNotify;

/// A notify: one stream sets it ([`super::Stream::record_notify`]), another waits for it and
/// clears it ([`super::Stream::wait_notify`]). Unlike an event it holds no record to wait
/// for: a wait queued before the record waits for it.
///
/// ```
/// use std::sync::Arc;
/// use ascend_rt::{safe::*, Runtime};
/// let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
/// let dev = Device::open(&rt, 0).unwrap();
/// let out = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
/// out.fill_sync(0).unwrap();
/// let n = dev.notify().unwrap();
/// let (a, b) = (dev.stream().unwrap(), dev.stream().unwrap());
/// a.wait_notify(&n, None).unwrap(); // queued first: a waits ...
/// a.value_write(out.ptr(), 3).unwrap();
/// b.record_notify(&n).unwrap(); // ... until b sets the notify
/// a.synchronize().unwrap();
/// assert_eq!(out.read_u64(0).unwrap(), 3);
/// ```
#[derive(Debug)]
pub struct Notify {
    pub(super) dev: Arc<DeviceGuard>,
    raw: RawNotify,
}

impl Notify {
    pub(super) fn new(dev: Arc<DeviceGuard>, raw: RawNotify) -> Self {
        Notify { dev, raw }
    }

    /// The raw handle.
    pub fn raw(&self) -> RawNotify {
        self.raw
    }
}

impl Drop for Notify {
    fn drop(&mut self) {
        self.dev
            .release("destroying a notify", |rt| rt.destroy_notify(self.raw));
    }
}
