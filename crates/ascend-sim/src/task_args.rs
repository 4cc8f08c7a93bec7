//! What a completed task was, beyond its kind, for the trace and the timeline: a CMO's type,
//! address and size, a value write's or wait's value and compare mode, a kernel's name and
//! block count, a copy's direction and bytes.

use serde::{Deserialize, Serialize};

use crate::report::Name;
use crate::stream::Work;
use crate::types::{CmoType, Loc, Task};

/// A task's particulars (each field only where the kind has it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TaskArgs {
    /// A CMO's type: `PREFETCH`, `WRITEBACK`, `INVALID` or `FLUSH`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cmo: Option<Name>,
    /// The address it acts on (a copy's destination, a wait's word).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub addr: Option<u64>,
    /// Bytes it acts on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// A value write's value, a wait's operand, a fill's byte.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<u64>,
    /// A value wait's compare mode: `GEQ`, `EQ`, `AND` or `NOR`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Name>,
    /// A kernel's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// A kernel's blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<u32>,
    /// A copy's direction: `HostToDevice`, `DeviceToHost`, `DeviceToDevice` or `HostToHost`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy: Option<Name>,
}

impl TaskArgs {
    /// The particulars of `work`.
    pub fn of(work: &Work) -> TaskArgs {
        let Work::User(task) = work else {
            return TaskArgs::default();
        };
        let cmo = |op: &CmoType, addr: &u64, len: &u64| TaskArgs {
            cmo: Some(op.name().into()),
            addr: Some(*addr),
            bytes: Some(*len),
            ..TaskArgs::default()
        };
        match task {
            Task::Cmo { op, addr, len } | Task::CmoWithBarrier { op, addr, len, .. } => {
                cmo(op, addr, len)
            }
            Task::CmoWithDesc { op, desc } => TaskArgs {
                cmo: Some(op.name().into()),
                addr: Some(*desc),
                ..TaskArgs::default()
            },
            Task::ValueWrite { addr, value } => TaskArgs {
                addr: Some(*addr),
                value: Some(*value),
                ..TaskArgs::default()
            },
            Task::ValueWait { addr, value, mode } => TaskArgs {
                addr: Some(*addr),
                value: Some(*value),
                mode: Some(crate::compare::mode_name(*mode).into()),
                ..TaskArgs::default()
            },
            Task::Memset { addr, value, len } => TaskArgs {
                addr: Some(*addr),
                bytes: Some(*len),
                value: Some(u64::from(*value)),
                ..TaskArgs::default()
            },
            Task::Memcpy { dst, src, len } => {
                let kind = match (src, dst) {
                    (Loc::Host { .. }, Loc::Device(_)) => "HostToDevice",
                    (Loc::Device(_), Loc::Host { .. }) => "DeviceToHost",
                    (Loc::Device(_), Loc::Device(_)) => "DeviceToDevice",
                    (Loc::Host { .. }, Loc::Host { .. }) => "HostToHost",
                };
                TaskArgs {
                    addr: match dst {
                        Loc::Device(a) => Some(*a),
                        Loc::Host { .. } => None,
                    },
                    bytes: Some(*len),
                    copy: Some(kind.into()),
                    ..TaskArgs::default()
                }
            }
            Task::Reduce { dst, len, .. } => TaskArgs {
                addr: Some(*dst),
                bytes: Some(*len),
                ..TaskArgs::default()
            },
            Task::Kernel { kernel, blocks } => TaskArgs {
                kernel: Some(kernel.name().to_string()),
                blocks: Some(*blocks),
                ..TaskArgs::default()
            },
            _ => TaskArgs::default(),
        }
    }

    /// True when it says nothing.
    pub fn is_empty(&self) -> bool {
        *self == TaskArgs::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_says_its_particulars() {
        let inv = TaskArgs::of(&Work::User(Task::Cmo {
            op: CmoType::Invalid,
            addr: 0x1000,
            len: 4096,
        }));
        assert_eq!(
            (inv.cmo.as_deref(), inv.addr, inv.bytes),
            (Some("INVALID"), Some(0x1000), Some(4096))
        );
        let wait = TaskArgs::of(&Work::User(Task::ValueWait {
            addr: 8,
            value: 0xf0,
            mode: crate::types::WaitMode::Nor,
        }));
        assert_eq!(
            (wait.value, wait.mode.as_deref()),
            (Some(0xf0), Some("NOR"))
        );
        let copy = TaskArgs::of(&Work::User(Task::Memcpy {
            dst: Loc::Device(16),
            src: Loc::Device(32),
            len: 64,
        }));
        assert_eq!(copy.copy.as_deref(), Some("DeviceToDevice"));
        assert!(TaskArgs::of(&Work::User(Task::EventReset(crate::types::EventId(1)))).is_empty());
    }
}
