//! [`Devices`]: the backend's role for what the devices are, and for opening, closing and
//! synchronizing them and their explicit contexts.

use ascend_chips::ChipProfile;

use super::{BResult, StreamId};

/// A device query or setting that a real runtime answers itself; the simulator's are the front
/// end's model (its answer is `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceCall {
    /// `aclrtGetDeviceInfo`.
    Info { device: u32, attr: i32 },
    /// `aclrtQueryDeviceStatus`.
    Status { device: u32 },
    /// `aclrtGetDeviceCapability`.
    Capability { device: u32, feature: i32 },
    /// `aclrtGetDeviceResLimit`.
    ResLimitGet { device: u32, kind: u32 },
    /// `aclrtSetDeviceResLimit`.
    ResLimitSet { device: u32, kind: u32, value: u32 },
    /// `aclrtResetDeviceResLimit`.
    ResLimitReset { device: u32 },
    /// `aclrtDeviceCanAccessPeer`.
    PeerCan { device: u32, peer: u32 },
    /// `aclrtDeviceEnablePeerAccess` from `device`.
    PeerEnable { device: u32, peer: u32 },
    /// `aclrtDeviceDisablePeerAccess` from `device`.
    PeerDisable { device: u32, peer: u32 },
    /// `aclrtGetDeviceSatMode`.
    SatModeGet,
    /// `aclrtSetDeviceSatMode`.
    SatModeSet { mode: u32 },
    /// `aclrtGetStreamOverflowSwitch`.
    OverflowSwitchGet { stream: StreamId },
    /// `aclrtSetStreamOverflowSwitch`.
    OverflowSwitchSet { stream: StreamId, flag: u32 },
}

/// The devices: their number and chip, opening and releasing them, their explicit contexts,
/// and the queries a real runtime answers itself.
///
/// A `device` argument is always below [`Devices::device_count`].
pub trait Devices {
    /// Short name (`"sim"`, `"hw"`, `"null"`).
    fn name(&self) -> &'static str;

    /// The chip profile of the devices (for `hw`, the built-in profile of the real SoC).
    fn chip(&self) -> &ChipProfile;

    /// The SoC name `aclrtGetSocName` reports.
    fn soc_name(&self) -> BResult<String>;

    /// Number of devices.
    fn device_count(&self) -> BResult<u32>;

    /// Opens a device on its first `aclrtSetDevice` in the process; returns its default
    /// stream.
    ///
    /// - the device is not open (it was never opened, or was closed since).
    fn open_device(&self, device: u32) -> BResult<StreamId>;

    /// Releases a device on its last reset: waits for its outstanding work, or with `force`
    /// abandons it.
    ///
    /// - the device is open; the front end has already forgotten its streams, events,
    ///   notifies and models (the backend releases them with the device).
    fn close_device(&self, device: u32, force: bool) -> BResult<()>;

    /// `aclrtCreateContext`: opens an explicit context on `device` and returns its default
    /// stream.
    fn create_context(&self, device: u32) -> BResult<StreamId>;

    /// `aclrtDestroyContext`: releases an explicit context, given its default stream, after
    /// its tasks complete.
    ///
    /// - `default_stream` came from [`Devices::create_context`] for `device` and the context
    ///   was not destroyed since.
    fn destroy_context(&self, device: u32, default_stream: StreamId) -> BResult<()>;

    /// Blocks until every stream of the device is idle; `timeout_ms` `None` waits forever.
    ///
    /// - the device is open.
    fn synchronize_device(&self, device: u32, timeout_ms: Option<u64>) -> BResult<()>;

    /// Passes a device query or setting to a real runtime: its answer (0 for a setting), or
    /// `None` where the backend has no library to ask and the front end answers from its model.
    ///
    /// - the call's values passed the front end's checks for that call (attribute, feature
    ///   and limit kinds known, peers distinct and in range, streams live).
    fn device_call(&self, call: DeviceCall) -> BResult<Option<i64>>;
}
