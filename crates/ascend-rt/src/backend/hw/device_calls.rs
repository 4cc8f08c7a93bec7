//! Device queries and settings passed to the library (`aclrtGetDeviceInfo`, resource limits,
//! peer access, the saturation mode, stream overflow switches): the front end has validated
//! them; the real device answers.

use super::handles::raw_stream;
use super::HwBackend;
use crate::backend::DeviceCall;
use crate::error::AclResult;

impl HwBackend {
    /// Runs `call` on the library; a query's answer, 0 for a setting.
    pub(super) fn run_device_call(&self, call: DeviceCall) -> AclResult<i64> {
        let d = |x: u32| x as i32;
        match call {
            DeviceCall::Info { device, attr } => {
                let mut v: i64 = 0;
                // SAFETY: `v` is a live local the library writes.
                acl!(self, aclrtGetDeviceInfo(device, attr as _, &mut v))?;
                Ok(v)
            }
            DeviceCall::Status { device } => {
                let mut v = 0u32;
                // SAFETY: `v` is a live local of the enum's size.
                acl!(
                    self,
                    aclrtQueryDeviceStatus(d(device), (&mut v as *mut u32).cast())
                )?;
                Ok(i64::from(v))
            }
            DeviceCall::Capability { device, feature } => {
                self.enter(device)?;
                let mut v = 0i32;
                // SAFETY: `v` is a live local the library writes.
                acl!(
                    self,
                    aclrtGetDeviceCapability(d(device), feature as _, &mut v)
                )?;
                Ok(i64::from(v))
            }
            DeviceCall::ResLimitGet { device, kind } => {
                let mut v = 0u32;
                // SAFETY: `v` is a live local the library writes.
                acl!(self, aclrtGetDeviceResLimit(d(device), kind as _, &mut v))?;
                Ok(i64::from(v))
            }
            DeviceCall::ResLimitSet {
                device,
                kind,
                value,
            } => {
                // SAFETY: plain values.
                acl!(self, aclrtSetDeviceResLimit(d(device), kind as _, value)).map(|()| 0)
            }
            DeviceCall::ResLimitReset { device } => {
                // SAFETY: a plain value.
                acl!(self, aclrtResetDeviceResLimit(d(device))).map(|()| 0)
            }
            DeviceCall::PeerCan { device, peer } => {
                let mut v = 0i32;
                // SAFETY: `v` is a live local the library writes.
                acl!(self, aclrtDeviceCanAccessPeer(&mut v, d(device), d(peer)))?;
                Ok(i64::from(v))
            }
            DeviceCall::PeerEnable { device, peer } => {
                self.enter(device)?;
                // SAFETY: plain values; the device's context is current.
                acl!(self, aclrtDeviceEnablePeerAccess(d(peer), 0)).map(|()| 0)
            }
            DeviceCall::PeerDisable { device, peer } => {
                self.enter(device)?;
                // SAFETY: plain values; the device's context is current.
                acl!(self, aclrtDeviceDisablePeerAccess(d(peer))).map(|()| 0)
            }
            DeviceCall::SatModeGet => {
                let mut v = 0u32;
                // SAFETY: `v` is a live local of the enum's size.
                acl!(self, aclrtGetDeviceSatMode((&mut v as *mut u32).cast()))?;
                Ok(i64::from(v))
            }
            DeviceCall::SatModeSet { mode } => {
                // SAFETY: a plain value.
                acl!(self, aclrtSetDeviceSatMode(mode as _)).map(|()| 0)
            }
            DeviceCall::OverflowSwitchGet { stream } => {
                self.enter_stream(stream.0)?;
                let mut v = 0u32;
                // SAFETY: a live stream handle (or NULL); `v` is a live local.
                acl!(
                    self,
                    aclrtGetStreamOverflowSwitch(raw_stream(stream.0), &mut v)
                )?;
                Ok(i64::from(v))
            }
            DeviceCall::OverflowSwitchSet { stream, flag } => {
                self.enter_stream(stream.0)?;
                // SAFETY: a live stream handle (or NULL).
                acl!(
                    self,
                    aclrtSetStreamOverflowSwitch(raw_stream(stream.0), flag)
                )
                .map(|()| 0)
            }
        }
    }
}
