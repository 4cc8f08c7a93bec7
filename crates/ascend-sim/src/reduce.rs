//! The arithmetic of a reduce-copy: `dst[i] = op(dst[i], src[i])` over little-endian elements.

use half::{bf16, f16};

use crate::types::{ReduceOp, ReduceType};

/// Combines `src` into `dst` element by element; a trailing partial element is left alone.
pub fn reduce_into(op: ReduceOp, ty: ReduceType, dst: &mut [u8], src: &[u8]) {
    macro_rules! elems {
        ($n:expr, $from:expr, $to:expr, $f:expr) => {
            for (d, s) in dst.chunks_exact_mut($n).zip(src.chunks_exact($n)) {
                let (a, b) = ($from(d), $from(s));
                d.copy_from_slice(&$to($f(a, b)));
            }
        };
    }
    macro_rules! ints {
        ($t:ty, $n:expr) => {
            elems!(
                $n,
                |x: &[u8]| <$t>::from_le_bytes(x.try_into().expect("element")),
                |v: $t| v.to_le_bytes(),
                |a: $t, b: $t| match op {
                    ReduceOp::Sum => a.wrapping_add(b),
                    ReduceOp::Max => a.max(b),
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Equal => <$t>::from(a == b),
                }
            )
        };
    }
    // Floats: the arithmetic in f32 (exact for the halves' operands), rounded back once.
    let float = |a: f32, b: f32| match op {
        ReduceOp::Sum => a + b,
        ReduceOp::Max => a.max(b),
        ReduceOp::Min => a.min(b),
        ReduceOp::Equal => f32::from(u8::from(a == b)),
    };
    match ty {
        ReduceType::I8 => ints!(i8, 1),
        ReduceType::U8 => ints!(u8, 1),
        ReduceType::I16 => ints!(i16, 2),
        ReduceType::U16 => ints!(u16, 2),
        ReduceType::I32 => ints!(i32, 4),
        ReduceType::U32 => ints!(u32, 4),
        ReduceType::F32 => elems!(
            4,
            |x: &[u8]| f32::from_le_bytes(x.try_into().expect("element")),
            |v: f32| v.to_le_bytes(),
            float
        ),
        ReduceType::F16 => elems!(
            2,
            |x: &[u8]| f16::from_le_bytes(x.try_into().expect("element")).to_f32(),
            |v: f32| f16::from_f32(v).to_le_bytes(),
            float
        ),
        ReduceType::Bf16 => elems!(
            2,
            |x: &[u8]| bf16::from_le_bytes(x.try_into().expect("element")).to_f32(),
            |v: f32| bf16::from_f32(v).to_le_bytes(),
            float
        ),
        ReduceType::I4 => {
            let nib = |v: u8| ((v << 4) as i8) >> 4;
            let one = |a: i8, b: i8| -> u8 {
                let r = match op {
                    ReduceOp::Sum => a.wrapping_add(b),
                    ReduceOp::Max => a.max(b),
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Equal => i8::from(a == b),
                };
                (r as u8) & 0xf
            };
            for (d, s) in dst.iter_mut().zip(src) {
                let lo = one(nib(*d), nib(*s));
                let hi = one(nib(*d >> 4), nib(*s >> 4));
                *d = lo | (hi << 4);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_and_operation_combines_element_by_element() {
        let mut d: Vec<u8> = [1.0f32, 5.0, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let s: Vec<u8> = [1.0f32, 2.0, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        reduce_into(ReduceOp::Sum, ReduceType::F32, &mut d, &s);
        assert_eq!(&d[..4], &2.0f32.to_le_bytes());
        assert_eq!(&d[8..], &(-4.0f32).to_le_bytes());
        let mut e = s.clone();
        e[..4].copy_from_slice(&9.0f32.to_le_bytes());
        reduce_into(ReduceOp::Equal, ReduceType::F32, &mut e, &s);
        assert_eq!(&e[..4], &0.0f32.to_le_bytes());
        assert_eq!(&e[8..], &1.0f32.to_le_bytes());
        let mut d = (100i8).to_le_bytes().to_vec();
        reduce_into(
            ReduceOp::Sum,
            ReduceType::I8,
            &mut d,
            &(100i8).to_le_bytes(),
        );
        assert_eq!(d[0] as i8, -56, "integers wrap");
        let mut d = f16::from_f32(1.5).to_le_bytes().to_vec();
        reduce_into(
            ReduceOp::Max,
            ReduceType::F16,
            &mut d,
            &f16::from_f32(2.5).to_le_bytes(),
        );
        assert_eq!(f16::from_le_bytes([d[0], d[1]]).to_f32(), 2.5);
        let mut d = vec![0x7f];
        reduce_into(ReduceOp::Min, ReduceType::I4, &mut d, &[0x18]);
        // Low nibbles -1 and -8, high nibbles 7 and 1: the minimum of each.
        assert_eq!(d[0], 0x18);
    }
}
