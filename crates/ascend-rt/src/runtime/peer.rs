//! Peer access between devices: `aclrtDeviceCanAccessPeer`, `aclrtDeviceEnablePeerAccess`,
//! `aclrtDeviceDisablePeerAccess`.
//!
//! Rows from the vendor's runtime (docs/validation/devices-contexts.md, Peer access). Every
//! simulated device can reach every other one (assumed: the devices of one server share a
//! fabric); an enabled direction is what lets a copy of the current device read or write the
//! peer's memory.

use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};

impl Runtime {
    /// `aclrtDeviceCanAccessPeer(&canAccessPeer, deviceId, peerDeviceId)`: 1 for two distinct
    /// devices. Order: the same device twice (100000, EH0009); the peer out of range, then the
    /// device (107001, EE1003); canAccessPeer NULL (107000, EE1004: the ACL layer does not
    /// check it). Needs no context.
    pub fn device_can_access_peer(
        &self,
        can_access: Option<&mut i32>,
        device: i32,
        peer: i32,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtDeviceCanAccessPeer";
            if device == peer {
                return Err(same_device(api, device));
            }
            let p = self.check_device_id(api, peer)?;
            let d = self.check_device_id(api, device)?;
            let out = can_access.ok_or_else(|| fail::rt_null(api, "canAccessPeer"))?;
            *out = match self
                .backend
                .device_call(crate::backend::DeviceCall::PeerCan { device: d, peer: p })?
            {
                Some(v) => v as i32,
                None => 1,
            };
            Ok(())
        })
    }

    /// `aclrtDeviceEnablePeerAccess(peerDeviceId, flags)`: the current device may reach the
    /// peer's memory (one direction; enabling it again changes nothing). Order: flags not 0
    /// (200006, EH0009); no current context (107002, without a message); the peer is the
    /// current device (100000, EH0009); the peer out of range (107001, EE1003).
    pub fn device_enable_peer_access(&self, peer: i32, flags: u32) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtDeviceEnablePeerAccess";
            if flags != 0 {
                return Err(AclError::new(
                    ErrorCode::FeatureUnsupported,
                    Some(MsgCode::EH0009),
                    format!("{api} failed: flags {flags} is a reserved parameter and must be 0"),
                ));
            }
            let (current, peer) = self.peer_pair(api, peer)?;
            self.backend
                .device_call(crate::backend::DeviceCall::PeerEnable {
                    device: current,
                    peer,
                })?;
            self.lock().peer_access.insert((current, peer));
            Ok(())
        })
    }

    /// `aclrtDeviceDisablePeerAccess(peerDeviceId)`: the current device no longer reaches the
    /// peer. Order: as [`Runtime::device_enable_peer_access`] without the flags. Disabling a
    /// direction never enabled succeeds (assumed: the driver's answer is not in the runtime).
    pub fn device_disable_peer_access(&self, peer: i32) -> AclResult<()> {
        self.call(|| {
            let (current, peer) = self.peer_pair("aclrtDeviceDisablePeerAccess", peer)?;
            self.backend
                .device_call(crate::backend::DeviceCall::PeerDisable {
                    device: current,
                    peer,
                })?;
            self.lock().peer_access.remove(&(current, peer));
            Ok(())
        })
    }

    /// The current device and a valid peer of it.
    fn peer_pair(&self, api: &str, peer: i32) -> AclResult<(u32, u32)> {
        let current = {
            let st = self.lock();
            Self::current_device(&st, api)
                .map_err(|_| {
                    AclError::new(
                        ErrorCode::RtContextNull,
                        None,
                        format!("{api} failed: no device is set on this thread"),
                    )
                })?
                .1
        };
        if i64::from(current) == i64::from(peer) {
            return Err(same_device(api, peer));
        }
        let peer = self.check_device_id(api, peer)?;
        Ok((current, peer))
    }

    /// A copy between device memory at `dst` and at `src`: when they are on different
    /// devices, one of the two must have enabled access to the other
    /// (`aclrtDeviceEnablePeerAccess`), else the copy engine cannot reach across and the
    /// driver refuses the transfer (507899; assumed, the driver's code is not in the runtime).
    pub(super) fn check_peer_copy(&self, api: &str, dst: u64, src: u64) -> AclResult<()> {
        let st = self.lock();
        let device = |a| match st.locate(a) {
            super::state::Location::Device { device, .. } => Some(device),
            _ => None,
        };
        let (Some(d), Some(s)) = (device(dst), device(src)) else {
            return Ok(());
        };
        if d == s || st.peer_access.contains(&(d, s)) || st.peer_access.contains(&(s, d)) {
            return Ok(());
        }
        Err(AclError::new(
            ErrorCode::RtDrvInternalError,
            Some(MsgCode::EE9999),
            format!(
                "{api} failed: a copy from device {s} to device {d} needs peer access between \
                 them: call aclrtDeviceEnablePeerAccess({s}, 0) with device {d} current, or \
                 aclrtDeviceEnablePeerAccess({d}, 0) with device {s} current"
            ),
        ))
    }
}

fn same_device(api: &str, device: i32) -> AclError {
    AclError::new(
        ErrorCode::InvalidParam,
        Some(MsgCode::EH0009),
        format!("{api} failed: deviceId {device} cannot be equal to peerDeviceId {device}"),
    )
}
