//! Reduce-copies (`aclrtReduceAsync`): the operation and the element type the copy engine
//! combines destination and source with.

/// The operation: `dst[i] = op(dst[i], src[i])` for every element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ReduceOp {
    /// `ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM` (10): addition (integers wrap).
    Sum,
    /// `ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX` (11): the larger.
    Max,
    /// `ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN` (12): the smaller.
    Min,
    /// `ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL` (13): 1 where the two are equal, else 0 (assumed:
    /// the vendor's runtime leaves the operation to the copy engine and does not say).
    Equal,
}

impl ReduceOp {
    /// The operation of an `aclrtReduceKind` value.
    pub fn from_kind(kind: u32) -> Option<ReduceOp> {
        Some(match kind {
            10 => ReduceOp::Sum,
            11 => ReduceOp::Max,
            12 => ReduceOp::Min,
            13 => ReduceOp::Equal,
            _ => return None,
        })
    }
}

/// The element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ReduceType {
    /// 32-bit float.
    F32,
    /// IEEE half.
    F16,
    /// bfloat16.
    Bf16,
    /// Signed 8-bit.
    I8,
    /// Signed 16-bit.
    I16,
    /// Signed 32-bit.
    I32,
    /// Unsigned 8-bit.
    U8,
    /// Unsigned 16-bit.
    U16,
    /// Unsigned 32-bit.
    U32,
    /// Signed 4-bit, two per byte.
    I4,
}

impl ReduceType {
    /// Bytes per element (1 for the packed 4-bit type).
    pub fn size(self) -> u64 {
        match self {
            ReduceType::I8 | ReduceType::U8 | ReduceType::I4 => 1,
            ReduceType::F16 | ReduceType::Bf16 | ReduceType::I16 | ReduceType::U16 => 2,
            ReduceType::F32 | ReduceType::I32 | ReduceType::U32 => 4,
        }
    }
}
