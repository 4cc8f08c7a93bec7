//! Reduce-copies: `aclrtReduceAsync`, `dst[i] = op(dst[i], src[i])` by the copy engine, in
//! stream order.
//!
//! Rows, and what each chip supports, from the vendor's runtime (docs/validation/built-in-tasks.md).
//! The A2/A3, 310B and 950 families take the runtime's first path, the 310P and 910A families
//! its second ("V2"), which accepts only SUM.

use ascend_chips::{ChipProfile, ChipType};
use ascend_types::{ReduceOp, ReduceType, Task};

use super::Runtime;
use crate::data_types::data_type;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::{Addr, RawStream};

/// The largest SUM the runtime accepts: 4 GiB.
const MAX_REDUCE_BYTES: u64 = 4 << 30;

/// The `aclrtReduceKind` value of an operation (for the `hw` backend).
#[cfg_attr(not(feature = "hw"), allow(dead_code))]
pub(crate) fn kind_of(op: ReduceOp) -> u32 {
    match op {
        ReduceOp::Sum => 10,
        ReduceOp::Max => 11,
        ReduceOp::Min => 12,
        ReduceOp::Equal => 13,
    }
}

/// The `aclDataType` of an element type (for the `hw` backend).
#[cfg_attr(not(feature = "hw"), allow(dead_code))]
pub(crate) fn data_type_of(ty: ReduceType) -> i32 {
    use data_type::*;
    match ty {
        ReduceType::F32 => FLOAT,
        ReduceType::F16 => FLOAT16,
        ReduceType::Bf16 => BF16,
        ReduceType::I8 => INT8,
        ReduceType::I16 => INT16,
        ReduceType::I32 => INT32,
        ReduceType::U8 => UINT8,
        ReduceType::U16 => UINT16,
        ReduceType::U32 => UINT32,
        ReduceType::I4 => INT4,
    }
}

/// The element type of an `aclDataType` the ACL layer maps, if it is one.
fn reduce_type(dt: i32) -> Option<ReduceType> {
    use data_type::*;
    Some(match dt {
        FLOAT => ReduceType::F32,
        FLOAT16 => ReduceType::F16,
        INT16 => ReduceType::I16,
        INT4 => ReduceType::I4,
        INT8 => ReduceType::I8,
        INT32 => ReduceType::I32,
        BF16 => ReduceType::Bf16,
        UINT8 => ReduceType::U8,
        UINT16 => ReduceType::U16,
        UINT32 => ReduceType::U32,
        _ => return None,
    })
}

/// True on the chips whose runtime takes the second path (310P, 910A): SUM only.
fn v2_path(chip: &ChipProfile) -> bool {
    matches!(chip.chip_type, ChipType::Dc | ChipType::Cloud)
}

/// The operations the chip's copy engine can reduce with.
fn supports_op(chip: &ChipProfile, op: ReduceOp) -> bool {
    match chip.chip_type {
        ChipType::Dc => matches!(op, ReduceOp::Sum | ReduceOp::Equal),
        _ => true,
    }
}

/// The element types the chip's copy engine can reduce.
fn supports_type(chip: &ChipProfile, ty: ReduceType) -> bool {
    use ReduceType::*;
    match chip.chip_type {
        ChipType::David | ChipType::Ascend350 => {
            matches!(ty, I8 | I16 | I32 | U32 | F16 | F32 | Bf16)
        }
        ChipType::Cloud910B93 => matches!(ty, I8 | I16 | I32 | F16 | F32 | Bf16),
        ChipType::MiniV3 => matches!(ty, I8 | I16 | I32 | F16 | F32),
        ChipType::Dc => matches!(ty, F32 | F16 | I16),
        _ => matches!(ty, F32),
    }
}

impl Runtime {
    /// `aclrtReduceAsync(dst, src, count, kind, type, stream, reserve)`: `count` is in bytes.
    /// Order:
    /// - ACL layer: dst NULL, src NULL (100000, EH0008); reserve not NULL (100000, EH0012); a
    ///   type the layer does not map (100000, EH0009);
    /// - the stream handle (107017);
    /// - count 0 (107000, EE1003); a kind outside [10, 14) (107000, EE1003), or on 310P/910A
    ///   any kind but SUM (107000, EE1003); a count above 4 GiB (107000: EE1011 for SUM on the
    ///   first path, EE1003 on the second);
    /// - no current context (107002); a stream of another context (107003);
    /// - a kind or type the chip's copy engine lacks (207000, EE1006);
    /// - src, then dst, misaligned for the type (107008: 2 bytes for the 16-bit types, 4 for
    ///   the 32-bit ones);
    /// - either range not live device memory (107000, EE1003: the simulator's own check).
    #[allow(clippy::too_many_arguments)]
    pub fn reduce_async(
        &self,
        dst: Addr,
        src: Addr,
        count: u64,
        kind: u32,
        dtype: i32,
        stream: RawStream,
        reserve_is_null: bool,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtReduceAsync";
            if dst.is_null() {
                return Err(fail::acl_null(api, "dst"));
            }
            if src.is_null() {
                return Err(fail::acl_null(api, "src"));
            }
            if !reserve_is_null {
                return Err(fail::acl_reserved(api, "reserve"));
            }
            let ty = reduce_type(dtype).ok_or_else(|| {
                AclError::new(
                    ErrorCode::InvalidParam,
                    Some(MsgCode::EH0009),
                    format!("{api} failed: value {dtype} of parameter type is invalid: the data type is currently not supported"),
                )
            })?;
            self.require_stream_handle(api, stream)?;
            let chip = self.chip();
            if count == 0 {
                return Err(fail::rt_value(api, "count", 0, "not equal to 0"));
            }
            let v2 = v2_path(chip);
            let op = match ReduceOp::from_kind(kind) {
                Some(ReduceOp::Sum) => ReduceOp::Sum,
                Some(op) if !v2 => op,
                _ if v2 => return Err(fail::rt_value(api, "kind", kind, "10 (SUM)")),
                _ => return Err(fail::rt_value(api, "kind", kind, "[10, 14)")),
            };
            if count > MAX_REDUCE_BYTES && (v2 || op == ReduceOp::Sum) {
                return Err(if v2 {
                    fail::rt_value(api, "count", count, "at most 4 GiB")
                } else {
                    fail::rt_reason(api, "count", count, "a SUM moves at most 4 GiB")
                });
            }
            let rec = self.task_stream(api, stream)?;
            if !supports_op(chip, op) || !supports_type(chip, ty) {
                return Err(AclError::new(
                    ErrorCode::RtFeatureNotSupport,
                    Some(MsgCode::EE1006),
                    format!("{api} failed: the copy engine of {} cannot reduce {ty:?} with {op:?}", chip.soc_name),
                ));
            }
            let align = match ty.size() {
                2 | 4 => ty.size(),
                _ => 1,
            };
            for (p, name) in [(src, "src"), (dst, "dst")] {
                if p.0 % align != 0 {
                    return Err(fail::plain(
                        ErrorCode::RtAddrUnaligned,
                        format!("{api} failed: {name} {:#x} is not aligned to {align} bytes for {ty:?}", p.0),
                    ));
                }
            }
            self.require_device_range(api, "src", src, count)?;
            self.require_device_range(api, "dst", dst, count)?;
            self.check_peer_copy(api, dst.0, src.0)?;
            self.launch(&rec,
                Task::Reduce {
                    dst: dst.0,
                    src: src.0,
                    len: count,
                    op,
                    ty,
                },
            )
        })
    }
}
