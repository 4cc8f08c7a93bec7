//! Random-number tasks (`aclrtRandomNumAsync`): the distribution, the element type, and the
//! parameters, each a value given at launch or the address of one read when the task runs.

use crate::DevAddr;

/// The element type of the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum RandomType {
    /// `int32_t`.
    I32,
    /// `int64_t`.
    I64,
    /// `uint32_t`.
    U32,
    /// `uint64_t`.
    U64,
    /// bfloat16.
    Bf16,
    /// IEEE half.
    F16,
    /// `float`.
    F32,
}

impl RandomType {
    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            RandomType::Bf16 | RandomType::F16 => 2,
            RandomType::I32 | RandomType::U32 | RandomType::F32 => 4,
            RandomType::I64 | RandomType::U64 => 8,
        }
    }

    /// Whether the type is a float type.
    pub fn is_float(self) -> bool {
        matches!(self, RandomType::Bf16 | RandomType::F16 | RandomType::F32)
    }
}

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum RandomFunc {
    /// A dropout bit mask: one bit per element, 1 to keep (with probability 1 - ratio).
    DropoutBitmask,
    /// Uniform in [first, second).
    Uniform,
    /// Normal with mean first and deviation second.
    Normal,
    /// Normal with mean first and deviation second, redrawn beyond two deviations.
    TruncatedNormal,
}

/// A parameter: `size` little-endian bytes, given now or at a device address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct RandomParam {
    /// The value's bytes (zero-extended), or the address when `at_addr`.
    pub value: u64,
    /// Bytes of the value (1..=8).
    pub size: u8,
    /// `value` is a device address the value is read from when the task runs.
    pub at_addr: bool,
}

/// A random-number task.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct RandomTask {
    /// The distribution.
    pub func: RandomFunc,
    /// The element type.
    pub ty: RandomType,
    /// Where the results go.
    pub result: DevAddr,
    /// The 16-byte generator state (counter), read and advanced when the task runs.
    pub counter: DevAddr,
    /// The 64-bit seed (the generator's key).
    pub seed: RandomParam,
    /// How many numbers.
    pub num: RandomParam,
    /// The first parameter (ratio, min or mean) and the second (max or deviation; unused by a
    /// dropout mask).
    pub params: [RandomParam; 2],
}
