//! [`RegisteredHost`]: host memory registered for the device and mapped into its address
//! space (`aclrtHostRegisterV2` with `ACL_HOST_REG_MAPPED`, `aclrtHostGetDevicePointer`,
//! `aclrtHostUnregister`).

use std::sync::Arc;

use super::device::DeviceGuard;
use super::memory::{DevicePtr, StreamUsers};
use crate::error::AclResult;
use crate::raw_types::{host_reg_flag, Addr};
use crate::runtime::{HostMemory, SharedBytes};

/// Host bytes the device reads and writes through a device pointer ([`RegisteredHost::ptr`]),
/// as stream tasks name device memory. The host reaches them through [`RegisteredHost::host`]
/// (each byte atomic: the program and the runtime never race). Dropping it waits for the
/// streams whose tasks name it, then unregisters it.
///
/// ```
/// use std::sync::Arc;
/// use ascend_rt::{safe::*, Runtime};
/// let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
/// let dev = Device::open(&rt, 0).unwrap();
/// let mem = dev.register_host(64).unwrap();
/// let s = dev.stream().unwrap();
/// s.fill_async(mem.ptr(), 5, 64).unwrap(); // the device writes the host's bytes
/// s.synchronize().unwrap();
/// assert_eq!(mem.host().to_vec(), vec![5; 64]);
/// ```
#[derive(Debug)]
pub struct RegisteredHost {
    dev: Arc<DeviceGuard>,
    bytes: Arc<SharedBytes>,
    device: Addr,
    users: StreamUsers,
}

impl RegisteredHost {
    pub(super) fn register(dev: Arc<DeviceGuard>, len: usize) -> AclResult<RegisteredHost> {
        dev.rt.set_current_context(dev.ctx)?;
        let bytes = SharedBytes::new(len);
        let memory: Arc<dyn HostMemory> = bytes.clone();
        dev.rt.host_register_v2(
            bytes.addr(),
            len as u64,
            host_reg_flag::MAPPED,
            Some(memory),
        )?;
        let mut device = Addr::NULL;
        if let Err(e) = dev
            .rt
            .host_get_device_pointer(bytes.addr(), Some(&mut device), 0)
        {
            let _ = dev.rt.host_unregister(bytes.addr());
            return Err(e);
        }
        Ok(RegisteredHost {
            dev,
            bytes,
            device,
            users: StreamUsers::default(),
        })
    }

    /// The host's view of the bytes.
    pub fn host(&self) -> &SharedBytes {
        &self.bytes
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True for no bytes (never: a registration has at least one).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The device's address of the bytes, for stream tasks.
    pub fn ptr(&self) -> DevicePtr<'_> {
        DevicePtr::new(self.device, self.bytes.len(), &self.users)
    }
}

impl Drop for RegisteredHost {
    fn drop(&mut self) {
        if !self
            .users
            .wait_for(&self.dev, "registered host memory", self.device)
        {
            return;
        }
        self.dev.release("unregistering host memory", |rt| {
            rt.host_unregister(self.bytes.addr())
        });
    }
}
