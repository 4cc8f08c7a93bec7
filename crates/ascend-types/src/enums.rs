//! The ACL enum values the runtime's calls take, each raw value written once.

/// `aclrtCmoType`: a cache-maintenance operation.
///
/// ```
/// use ascend_types::CmoType;
/// assert_eq!(CmoType::from_raw(3), Some(CmoType::Flush));
/// assert_eq!(CmoType::Invalid.raw(), 2);
/// assert_eq!(CmoType::Prefetch.opcode(), 6);
/// assert_eq!(CmoType::from_raw(4), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CmoType {
    /// `ACL_RT_CMO_TYPE_PREFETCH` (0): load memory into the cache.
    Prefetch = 0,
    /// `ACL_RT_CMO_TYPE_WRITEBACK` (1): write dirty lines back, keep them.
    Writeback = 1,
    /// `ACL_RT_CMO_TYPE_INVALID` (2): drop lines without writing back.
    Invalid = 2,
    /// `ACL_RT_CMO_TYPE_FLUSH` (3): write dirty lines back and drop them.
    Flush = 3,
}

impl CmoType {
    /// All four, in raw-value order.
    pub const ALL: [CmoType; 4] = [
        CmoType::Prefetch,
        CmoType::Writeback,
        CmoType::Invalid,
        CmoType::Flush,
    ];

    /// The type of a raw `aclrtCmoType` value, if it is one of the four.
    pub fn from_raw(raw: u32) -> Option<CmoType> {
        CmoType::ALL.into_iter().find(|t| t.raw() == raw)
    }

    /// The raw `aclrtCmoType` value.
    pub fn raw(self) -> u32 {
        self as u32
    }

    /// The runtime's task opcode for it (6..=9).
    pub fn opcode(self) -> u32 {
        self.raw() + crate::CMO_OPCODE_OFFSET
    }

    /// The upper-case name the runtime's logs use (`PREFETCH`, ...).
    pub fn name(self) -> &'static str {
        match self {
            CmoType::Prefetch => "PREFETCH",
            CmoType::Writeback => "WRITEBACK",
            CmoType::Invalid => "INVALID",
            CmoType::Flush => "FLUSH",
        }
    }
}

/// The compare of `aclrtValueWait` (its `flag` values).
///
/// ```
/// use ascend_types::WaitMode;
/// assert_eq!(WaitMode::from_flag(1), Some(WaitMode::Eq));
/// assert_eq!(WaitMode::Nor.flag(), 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WaitMode {
    /// `ACL_STREAM_WAIT_VALUE_GEQ` (0): released when the word is greater than or equal to
    /// the value (signed or cyclic: a simulator setting).
    Geq = 0,
    /// `ACL_STREAM_WAIT_VALUE_EQ` (1): released when all 64 bits are equal.
    Eq = 1,
    /// `ACL_STREAM_WAIT_VALUE_AND` (2): released when `word & value != 0`.
    And = 2,
    /// `ACL_STREAM_WAIT_VALUE_NOR` (3): released when `!(word | value) != 0`.
    Nor = 3,
}

impl WaitMode {
    /// All four, in flag order.
    pub const ALL: [WaitMode; 4] = [WaitMode::Geq, WaitMode::Eq, WaitMode::And, WaitMode::Nor];

    /// The compare of a raw flag, if it is one of the four.
    pub fn from_flag(flag: u32) -> Option<WaitMode> {
        WaitMode::ALL.into_iter().find(|m| m.flag() == flag)
    }

    /// The raw flag value.
    pub fn flag(self) -> u32 {
        self as u32
    }

    /// The upper-case name used in diagnoses (`GEQ`, ...).
    pub fn name(self) -> &'static str {
        match self {
            WaitMode::Geq => "GEQ",
            WaitMode::Eq => "EQ",
            WaitMode::And => "AND",
            WaitMode::Nor => "NOR",
        }
    }
}

/// `aclrtMemcpyKind`: the direction a copy call names (advisory for the synchronous copy,
/// whose direction comes from the addresses).
///
/// ```
/// use ascend_types::MemcpyKind;
/// assert_eq!(MemcpyKind::from_raw(2), Some(MemcpyKind::DeviceToHost));
/// assert_eq!(MemcpyKind::from_raw(6), None); // INNER_DEVICE_TO_DEVICE is not accepted
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemcpyKind {
    /// `ACL_MEMCPY_HOST_TO_HOST` (0).
    HostToHost = 0,
    /// `ACL_MEMCPY_HOST_TO_DEVICE` (1).
    HostToDevice = 1,
    /// `ACL_MEMCPY_DEVICE_TO_HOST` (2).
    DeviceToHost = 2,
    /// `ACL_MEMCPY_DEVICE_TO_DEVICE` (3).
    DeviceToDevice = 3,
    /// `ACL_MEMCPY_DEFAULT` (4): the direction from the addresses.
    Default = 4,
    /// `ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE` (5).
    HostToBufToDevice = 5,
}

impl MemcpyKind {
    /// The six kinds the copy calls accept, in raw-value order.
    pub const ALL: [MemcpyKind; 6] = [
        MemcpyKind::HostToHost,
        MemcpyKind::HostToDevice,
        MemcpyKind::DeviceToHost,
        MemcpyKind::DeviceToDevice,
        MemcpyKind::Default,
        MemcpyKind::HostToBufToDevice,
    ];

    /// The kind of a raw value, if the copy calls accept it (0..=5).
    pub fn from_raw(raw: u32) -> Option<MemcpyKind> {
        MemcpyKind::ALL.into_iter().find(|k| k.raw() == raw)
    }

    /// The raw value.
    pub fn raw(self) -> u32 {
        self as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_values_round_trip_and_nothing_else_converts() {
        for raw in 0..16u32 {
            assert_eq!(
                CmoType::from_raw(raw).map(CmoType::raw),
                (raw < 4).then_some(raw)
            );
            assert_eq!(
                WaitMode::from_flag(raw).map(WaitMode::flag),
                (raw < 4).then_some(raw)
            );
            assert_eq!(
                MemcpyKind::from_raw(raw).map(MemcpyKind::raw),
                (raw < 6).then_some(raw)
            );
        }
        assert_eq!(CmoType::from_raw(u32::MAX), None);
    }
}
