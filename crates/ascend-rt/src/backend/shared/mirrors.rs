//! The wire's mirrors of the backend's own types, which are not serde types: a device query
//! ([`WireDeviceCall`]), a task fault ([`WireFault`]) and a backend error ([`WireError`]),
//! each converted both ways.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use ascend_types::Diagnosis;

use super::super::{BackendError, DeviceCall, TaskFaultInfo};
use crate::error::AclError;

/// [`DeviceCall`] on the wire.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum WireDeviceCall {
    Info { device: u32, attr: i32 },
    Status { device: u32 },
    Capability { device: u32, feature: i32 },
    ResLimitGet { device: u32, kind: u32 },
    ResLimitSet { device: u32, kind: u32, value: u32 },
    ResLimitReset { device: u32 },
    PeerCan { device: u32, peer: u32 },
    PeerEnable { device: u32, peer: u32 },
    PeerDisable { device: u32, peer: u32 },
    SatModeGet,
    SatModeSet { mode: u32 },
    OverflowSwitchGet { stream: u64 },
    OverflowSwitchSet { stream: u64, flag: u32 },
}

impl From<DeviceCall> for WireDeviceCall {
    fn from(c: DeviceCall) -> Self {
        use DeviceCall as D;
        use WireDeviceCall as W;
        match c {
            D::Info { device, attr } => W::Info { device, attr },
            D::Status { device } => W::Status { device },
            D::Capability { device, feature } => W::Capability { device, feature },
            D::ResLimitGet { device, kind } => W::ResLimitGet { device, kind },
            D::ResLimitSet {
                device,
                kind,
                value,
            } => W::ResLimitSet {
                device,
                kind,
                value,
            },
            D::ResLimitReset { device } => W::ResLimitReset { device },
            D::PeerCan { device, peer } => W::PeerCan { device, peer },
            D::PeerEnable { device, peer } => W::PeerEnable { device, peer },
            D::PeerDisable { device, peer } => W::PeerDisable { device, peer },
            D::SatModeGet => W::SatModeGet,
            D::SatModeSet { mode } => W::SatModeSet { mode },
            D::OverflowSwitchGet { stream } => W::OverflowSwitchGet { stream: stream.0 },
            D::OverflowSwitchSet { stream, flag } => W::OverflowSwitchSet {
                stream: stream.0,
                flag,
            },
        }
    }
}

impl From<WireDeviceCall> for DeviceCall {
    fn from(c: WireDeviceCall) -> Self {
        use ascend_types::StreamId;
        use DeviceCall as D;
        use WireDeviceCall as W;
        match c {
            W::Info { device, attr } => D::Info { device, attr },
            W::Status { device } => D::Status { device },
            W::Capability { device, feature } => D::Capability { device, feature },
            W::ResLimitGet { device, kind } => D::ResLimitGet { device, kind },
            W::ResLimitSet {
                device,
                kind,
                value,
            } => D::ResLimitSet {
                device,
                kind,
                value,
            },
            W::ResLimitReset { device } => D::ResLimitReset { device },
            W::PeerCan { device, peer } => D::PeerCan { device, peer },
            W::PeerEnable { device, peer } => D::PeerEnable { device, peer },
            W::PeerDisable { device, peer } => D::PeerDisable { device, peer },
            W::SatModeGet => D::SatModeGet,
            W::SatModeSet { mode } => D::SatModeSet { mode },
            W::OverflowSwitchGet { stream } => D::OverflowSwitchGet {
                stream: StreamId(stream),
            },
            W::OverflowSwitchSet { stream, flag } => D::OverflowSwitchSet {
                stream: StreamId(stream),
                flag,
            },
        }
    }
}

/// [`TaskFaultInfo`] on the wire.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct WireFault {
    pub task: u64,
    pub stream: u64,
    pub device: u32,
    pub message: String,
    /// 0 vector, 1 AI core.
    pub kernel_core: Option<u8>,
}

impl From<TaskFaultInfo> for WireFault {
    fn from(f: TaskFaultInfo) -> Self {
        WireFault {
            task: f.task,
            stream: f.stream.0,
            device: f.device,
            message: f.message,
            kernel_core: f.kernel_core.map(core_to_wire),
        }
    }
}

impl From<WireFault> for TaskFaultInfo {
    fn from(f: WireFault) -> Self {
        TaskFaultInfo {
            task: f.task,
            stream: ascend_types::StreamId(f.stream),
            device: f.device,
            message: f.message,
            kernel_core: f.kernel_core.map(core_from_wire),
        }
    }
}

fn core_to_wire(c: ascend_types::CoreType) -> u8 {
    match c {
        ascend_types::CoreType::AiCore => 1,
        _ => 0,
    }
}

fn core_from_wire(c: u8) -> ascend_types::CoreType {
    if c == 1 {
        ascend_types::CoreType::AiCore
    } else {
        ascend_types::CoreType::Vector
    }
}

/// [`BackendError`] on the wire.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum WireError {
    OutOfMemory(String),
    BadAddress(String),
    UnknownHandle(String),
    QueueFull(String),
    Timeout {
        message: String,
        stall: Option<Diagnosis>,
    },
    Stalled {
        message: String,
        stall: Diagnosis,
    },
    TaskFault(String),
    KernelFault {
        core: u8,
        message: String,
    },
    TaskTimeout(String),
    TimestampInvalid(String),
    StreamDiscarded(String),
    Unsupported(String),
    Library {
        code: i32,
        message: String,
    },
}

impl From<BackendError> for WireError {
    fn from(e: BackendError) -> Self {
        use BackendError as B;
        match e {
            B::OutOfMemory(m) => WireError::OutOfMemory(m),
            B::BadAddress(m) => WireError::BadAddress(m),
            B::UnknownHandle(m) => WireError::UnknownHandle(m),
            B::QueueFull(m) => WireError::QueueFull(m),
            B::Timeout { message, stall } => WireError::Timeout {
                message,
                stall: stall.map(|d| (*d).clone()),
            },
            B::Stalled { message, stall } => WireError::Stalled {
                message,
                stall: (*stall).clone(),
            },
            B::TaskFault(m) => WireError::TaskFault(m),
            B::KernelFault { core, message } => WireError::KernelFault {
                core: core_to_wire(core),
                message,
            },
            B::TaskTimeout(m) => WireError::TaskTimeout(m),
            B::TimestampInvalid(m) => WireError::TimestampInvalid(m),
            B::StreamDiscarded(m) => WireError::StreamDiscarded(m),
            B::Unsupported(m) => WireError::Unsupported(m),
            B::Library(e) => WireError::Library {
                code: e.code(),
                message: e.message.clone(),
            },
        }
    }
}

impl From<WireError> for BackendError {
    fn from(e: WireError) -> Self {
        use BackendError as B;
        match e {
            WireError::OutOfMemory(m) => B::OutOfMemory(m),
            WireError::BadAddress(m) => B::BadAddress(m),
            WireError::UnknownHandle(m) => B::UnknownHandle(m),
            WireError::QueueFull(m) => B::QueueFull(m),
            WireError::Timeout { message, stall } => B::Timeout {
                message,
                stall: stall.map(Arc::new),
            },
            WireError::Stalled { message, stall } => B::Stalled {
                message,
                stall: Arc::new(stall),
            },
            WireError::TaskFault(m) => B::TaskFault(m),
            WireError::KernelFault { core, message } => B::KernelFault {
                core: core_from_wire(core),
                message,
            },
            WireError::TaskTimeout(m) => B::TaskTimeout(m),
            WireError::TimestampInvalid(m) => B::TimestampInvalid(m),
            WireError::StreamDiscarded(m) => B::StreamDiscarded(m),
            WireError::Unsupported(m) => B::Unsupported(m),
            WireError::Library { code, message } => B::Library(AclError::from_code(code, message)),
        }
    }
}
