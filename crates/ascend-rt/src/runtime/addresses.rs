//! What an address is to the runtime: live device memory, page-locked host memory, a stale
//! address inside the backend's device window, or host memory the runtime does not manage
//! (docs/memory-addresses.md, address classes), and the error for an address in no live
//! allocation.

use super::state::Location;
use super::Runtime;
use crate::error::fail;
use crate::raw_types::Addr;

/// What an address is to the runtime: how a C caller's pointer is told apart as device
/// memory, page-locked host memory, a stale device address or pageable host memory.
///
/// ```
/// use ascend_rt::{AddressClass, Runtime, raw_types::*};
/// let rt = Runtime::sim("Ascend910B1").unwrap();
/// rt.set_device(0).unwrap();
/// let mut p = Addr::NULL;
/// rt.malloc(Some(&mut p), 64, malloc_policy::NORMAL_ONLY).unwrap();
/// assert_eq!(rt.classify_address(p), AddressClass::Device);
/// rt.free(p).unwrap();
/// assert_eq!(rt.classify_address(p), AddressClass::StaleDevice);
/// let host = [0u8; 8];
/// assert_eq!(rt.classify_address(Addr(host.as_ptr() as u64)), AddressClass::Host);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AddressClass {
    /// NULL.
    Null,
    /// Inside a live device allocation (`aclrtMalloc`).
    Device,
    /// Inside a live page-locked host allocation (`aclrtMallocHost`).
    PageLocked,
    /// Inside the backend's device address window but in no live allocation: freed, past an
    /// allocation's end, or never allocated. Never host memory, never dereferenced.
    StaleDevice,
    /// Any other address: host memory the runtime does not manage (pageable).
    Host,
}

impl Runtime {
    /// The error for an address in no live allocation, saying whether it is a stale device
    /// address (and why, where the backend knows) or unknown memory.
    pub(super) fn not_live(&self, api: &str, param: &str, addr: u64) -> crate::AclError {
        let why = if self.in_device_window(addr) {
            match self.backend.explain_device_address(addr) {
                Some(reason) => format!("a device address in no live allocation: {reason}"),
                None => "a device address in no live allocation".to_string(),
            }
        } else {
            "this address is in no live allocation".to_string()
        };
        fail::rt_value(
            api,
            param,
            format!("{addr:#x}"),
            &format!("device memory or host memory from aclrtMallocHost ({why})"),
        )
    }

    pub(super) fn in_device_window(&self, addr: u64) -> bool {
        self.backend
            .device_window()
            .is_some_and(|w| w.contains(&addr))
    }

    /// Whether `addr` lies in a live allocation of this runtime (device memory or page-locked
    /// host memory).
    pub fn is_registered(&self, addr: Addr) -> bool {
        !matches!(self.lock().locate(addr.0), Location::Unregistered)
    }

    /// What `addr` is to this runtime (see [`AddressClass`]). A C front end uses it to tell
    /// runtime memory and stale device addresses, which it passes on as addresses, from
    /// pageable host memory, which it may dereference.
    pub fn classify_address(&self, addr: Addr) -> AddressClass {
        if addr.is_null() {
            return AddressClass::Null;
        }
        match self.lock().locate(addr.0) {
            Location::Device { .. } => AddressClass::Device,
            Location::Host { .. } => AddressClass::PageLocked,
            Location::Unregistered if self.in_device_window(addr.0) => AddressClass::StaleDevice,
            Location::Unregistered => AddressClass::Host,
        }
    }
}
