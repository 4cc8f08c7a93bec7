//! Host-side helpers of the ACL base API that need no runtime: the size of an `aclDataType`
//! (`aclDataTypeSize`) and conversions between `float` and IEEE half precision
//! (`aclFloatToFloat16`, `aclFloat16ToFloat`), with the vendor's saturating conversion.
//!
//! The sizes follow the vendor's table (docs/validation/devices-contexts.md, Data types): a type it does not list
//! falls to its default of 8 bytes, and the string and undefined types are 0.

/// `aclDataType` values (the public header's numbering).
pub mod data_type {
    /// `ACL_DT_UNDEFINED`.
    pub const UNDEFINED: i32 = -1;
    /// `ACL_FLOAT`.
    pub const FLOAT: i32 = 0;
    /// `ACL_FLOAT16`.
    pub const FLOAT16: i32 = 1;
    /// `ACL_INT8`.
    pub const INT8: i32 = 2;
    /// `ACL_INT32`.
    pub const INT32: i32 = 3;
    /// `ACL_UINT8`.
    pub const UINT8: i32 = 4;
    /// `ACL_INT16`.
    pub const INT16: i32 = 6;
    /// `ACL_UINT16`.
    pub const UINT16: i32 = 7;
    /// `ACL_UINT32`.
    pub const UINT32: i32 = 8;
    /// `ACL_INT64`.
    pub const INT64: i32 = 9;
    /// `ACL_UINT64`.
    pub const UINT64: i32 = 10;
    /// `ACL_DOUBLE`.
    pub const DOUBLE: i32 = 11;
    /// `ACL_BOOL`.
    pub const BOOL: i32 = 12;
    /// `ACL_STRING`.
    pub const STRING: i32 = 13;
    /// `ACL_COMPLEX64`.
    pub const COMPLEX64: i32 = 16;
    /// `ACL_COMPLEX128`.
    pub const COMPLEX128: i32 = 17;
    /// `ACL_BF16`.
    pub const BF16: i32 = 27;
    /// `ACL_INT4`.
    pub const INT4: i32 = 29;
    /// `ACL_UINT1`.
    pub const UINT1: i32 = 30;
    /// `ACL_COMPLEX32`.
    pub const COMPLEX32: i32 = 33;
    /// `ACL_HIFLOAT8`.
    pub const HIFLOAT8: i32 = 34;
    /// `ACL_FLOAT8_E5M2`.
    pub const FLOAT8_E5M2: i32 = 35;
    /// `ACL_FLOAT8_E4M3FN`.
    pub const FLOAT8_E4M3FN: i32 = 36;
    /// `ACL_FLOAT8_E8M0`.
    pub const FLOAT8_E8M0: i32 = 37;
}

/// `aclDataTypeSize(dataType)`: bytes per element; 1 for the sub-byte types, 0 for
/// `ACL_STRING` and `ACL_DT_UNDEFINED`, 8 for any value the table does not name.
///
/// ```
/// use ascend_rt::data_types::{data_type, data_type_size};
/// assert_eq!(data_type_size(data_type::FLOAT16), 2);
/// assert_eq!(data_type_size(data_type::COMPLEX128), 16);
/// assert_eq!(data_type_size(1000), 8);
/// ```
pub fn data_type_size(dt: i32) -> usize {
    use data_type::*;
    match dt {
        STRING | UNDEFINED => 0,
        UINT1 | INT4 => 1,
        BOOL | INT8 | UINT8 | HIFLOAT8 | FLOAT8_E5M2 | FLOAT8_E4M3FN | FLOAT8_E8M0 => 1,
        FLOAT16 | INT16 | UINT16 | BF16 => 2,
        FLOAT | INT32 | UINT32 | COMPLEX32 => 4,
        COMPLEX128 => 16,
        _ => 8,
    }
}

/// `aclFloatToFloat16(value)`, as the vendor's conversion does it: round to nearest (ties to
/// even), and *saturating*: a magnitude of 65,536 or more, an infinity and a NaN all become
/// the largest finite half (0x7bff, with the sign; a NaN without its sign bit gives 0x7bff), and
/// a value that rounds up past 65,504 stays 65,504. No half infinity or NaN is ever made.
///
/// ```
/// use ascend_rt::data_types::float_to_float16;
/// assert_eq!(float_to_float16(1.625), 0x3e80);
/// assert_eq!(float_to_float16(f32::INFINITY), 0x7bff);
/// assert_eq!(float_to_float16(-1e9), 0xfbff);
/// ```
pub fn float_to_float16(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let man = bits & 0x7f_ffff;
    const MAX_FINITE: u16 = 0x7bff;
    // Drops the low `shift` bits of `full`, rounding to nearest with ties to even.
    let round = |full: u32, shift: u32| -> u32 {
        let q = full >> shift;
        let rem = full & ((1 << shift) - 1);
        let half = 1 << (shift - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    if exp > 142 {
        return sign | MAX_FINITE;
    }
    if exp <= 112 {
        // Below the smallest normal half: a subnormal half or zero.
        return match exp {
            ..=101 => sign,
            102 if man == 0 => sign,
            102 => sign | 1,
            _ => sign | round(0x80_0000 | man, (126 - exp) as u32) as u16,
        };
    }
    let mut hexp = (exp - 112) as u32;
    let mut hman = round(man, 13);
    if hman == 0x400 {
        hman = 0;
        hexp += 1;
    }
    if hexp >= 31 {
        return sign | MAX_FINITE;
    }
    sign | (hexp << 10) as u16 | hman as u16
}

/// `aclFloat16ToFloat(value)`, as the vendor's conversion does it: exact for zeros, subnormals
/// and normals, and with exponent 31 read as an ordinary exponent, so the half infinity 0x7c00
/// gives 65,536.0 and the half NaN 0x7e00 gives 98,304.0.
///
/// ```
/// use ascend_rt::data_types::float16_to_float;
/// assert_eq!(float16_to_float(0x3e80), 1.625);
/// assert_eq!(float16_to_float(0x7c00), 65536.0);
/// ```
pub fn float16_to_float(value: u16) -> f32 {
    let sign = if value & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exp = i32::from((value >> 10) & 0x1f);
    let man = f32::from(value & 0x3ff);
    if exp == 0 {
        sign * man * 2f32.powi(-24)
    } else {
        sign * (1.0 + man / 1024.0) * 2f32.powi(exp - 15)
    }
}
