//! The random-number generator of random-number tasks: Philox4x32-10 keyed by the 64-bit seed,
//! its 128-bit counter the task's 16-byte state in device memory, and the distributions drawn
//! from it. The vendor's hardware uses Philox4x32-10 too; whether its output matches this one
//! bit for bit cannot be checked without a device (docs/validation/built-in-tasks.md).

use half::{bf16, f16};

use crate::types::{RandomFunc, RandomType};

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox4x32-10 of `counter` under `key`.
fn philox(mut c: [u32; 4], mut k: [u32; 2]) -> [u32; 4] {
    for _ in 0..10 {
        let p0 = u64::from(M0) * u64::from(c[0]);
        let p1 = u64::from(M1) * u64::from(c[2]);
        c = [
            (p1 >> 32) as u32 ^ c[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ c[3] ^ k[1],
            p0 as u32,
        ];
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    c
}

/// A stream of 32-bit random words from a seed and a 128-bit counter.
struct Words {
    key: [u32; 2],
    counter: u128,
    buf: [u32; 4],
    used: usize,
}

impl Words {
    fn next(&mut self) -> u32 {
        if self.used == 4 {
            let c = self.counter;
            self.buf = philox(
                [
                    c as u32,
                    (c >> 32) as u32,
                    (c >> 64) as u32,
                    (c >> 96) as u32,
                ],
                self.key,
            );
            self.counter = self.counter.wrapping_add(1);
            self.used = 0;
        }
        self.used += 1;
        self.buf[self.used - 1]
    }

    /// A uniform float in (0, 1).
    fn unit(&mut self) -> f64 {
        (f64::from(self.next() >> 8) + 0.5) / f64::from(1u32 << 24)
    }

    fn normal(&mut self) -> f64 {
        let (u1, u2) = (self.unit(), self.unit());
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

/// A parameter's bytes as a number of the element type.
pub fn param_value(ty: RandomType, raw: u64) -> f64 {
    match ty {
        RandomType::I32 => f64::from(raw as u32 as i32),
        RandomType::I64 => raw as i64 as f64,
        RandomType::U32 => f64::from(raw as u32),
        RandomType::U64 => raw as f64,
        RandomType::Bf16 => f64::from(bf16::from_bits(raw as u16).to_f32()),
        RandomType::F16 => f64::from(f16::from_bits(raw as u16).to_f32()),
        RandomType::F32 => f64::from(f32::from_bits(raw as u32)),
    }
}

/// An integer parameter's bytes as its value (floats: 0, unused).
fn int_param(ty: RandomType, raw: u64) -> i128 {
    match ty {
        RandomType::I32 => i128::from(raw as u32 as i32),
        RandomType::I64 => i128::from(raw as i64),
        RandomType::U32 => i128::from(raw as u32),
        RandomType::U64 => i128::from(raw),
        _ => 0,
    }
}

/// Encodes `v`, drawn from `[lo, hi)`, at the element type's precision, keeping it below
/// `hi`: rounding to the nearest value of a narrow type may reach `hi` itself, which the
/// uniform distribution excludes; the value just below `hi` is used then (or `lo`, if no
/// value of the type lies between).
fn encode_below(ty: RandomType, v: f64, lo: f64, hi: f64, out: &mut Vec<u8>) {
    /// The bits of the largest value below the one with `bits` (sign-magnitude encoding).
    fn below(bits: u64, sign: u64) -> u64 {
        if bits & !sign == 0 {
            sign | 1 // below ±0: the negative value of least magnitude
        } else if bits & sign == 0 {
            bits - 1
        } else {
            bits + 1
        }
    }
    let pick = |bits: u64, value: &dyn Fn(u64) -> f64, of: &dyn Fn(f64) -> u64, sign: u64| {
        if value(bits) < hi || hi <= lo {
            return bits;
        }
        let b = below(of(hi), sign);
        if value(b) >= lo {
            b
        } else {
            of(lo)
        }
    };
    match ty {
        RandomType::F16 => {
            let value = |b: u64| f64::from(f16::from_bits(b as u16));
            let of = |x: f64| u64::from(f16::from_f64(x).to_bits());
            let b = pick(of(v), &value, &of, 0x8000);
            out.extend_from_slice(&(b as u16).to_le_bytes());
        }
        RandomType::Bf16 => {
            let value = |b: u64| f64::from(bf16::from_bits(b as u16));
            let of = |x: f64| u64::from(bf16::from_f64(x).to_bits());
            let b = pick(of(v), &value, &of, 0x8000);
            out.extend_from_slice(&(b as u16).to_le_bytes());
        }
        RandomType::F32 => {
            let value = |b: u64| f64::from(f32::from_bits(b as u32));
            let of = |x: f64| u64::from((x as f32).to_bits());
            let b = pick(of(v), &value, &of, 0x8000_0000);
            out.extend_from_slice(&(b as u32).to_le_bytes());
        }
        _ => encode(ty, v, out),
    }
}

fn encode(ty: RandomType, v: f64, out: &mut Vec<u8>) {
    match ty {
        RandomType::I32 => out.extend_from_slice(&(v as i32).to_le_bytes()),
        RandomType::I64 => out.extend_from_slice(&(v as i64).to_le_bytes()),
        RandomType::U32 => out.extend_from_slice(&(v as u32).to_le_bytes()),
        RandomType::U64 => out.extend_from_slice(&(v as u64).to_le_bytes()),
        RandomType::Bf16 => out.extend_from_slice(&bf16::from_f64(v).to_le_bytes()),
        RandomType::F16 => out.extend_from_slice(&f16::from_f64(v).to_le_bytes()),
        RandomType::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
    }
}

/// Generates `num` results of `func` over `ty` with parameters `a` and `b` (raw bytes), from
/// `seed` and the 16-byte `counter`; returns the results' bytes and the advanced counter.
pub fn generate(
    func: RandomFunc,
    ty: RandomType,
    a: u64,
    b: u64,
    seed: u64,
    counter: [u8; 16],
    num: u64,
) -> (Vec<u8>, [u8; 16]) {
    let mut w = Words {
        key: [seed as u32, (seed >> 32) as u32],
        counter: u128::from_le_bytes(counter),
        buf: [0; 4],
        used: 4,
    };
    let (pa, pb) = (param_value(ty, a), param_value(ty, b));
    let mut out = Vec::new();
    match func {
        RandomFunc::DropoutBitmask => {
            let keep = 1.0 - pa;
            let mut byte = 0u8;
            for i in 0..num {
                if w.unit() < keep {
                    byte |= 1 << (i % 8);
                }
                if i % 8 == 7 || i + 1 == num {
                    out.push(byte);
                    byte = 0;
                }
            }
        }
        RandomFunc::Uniform => {
            // Integers in exact arithmetic (a 64-bit bound is not exact as a double); a
            // minimum at or above the maximum gives the minimum.
            let (ia, ib) = (int_param(ty, a), int_param(ty, b));
            let span = u128::try_from(ib - ia).unwrap_or(0).max(1);
            for _ in 0..num {
                if ty.is_float() {
                    let v = pa + (pb - pa) * w.unit();
                    encode_below(ty, v, pa, pb, &mut out);
                } else {
                    let r = u128::from(u64::from(w.next()) << 32 | u64::from(w.next())) % span;
                    let v = ia + r as i128;
                    match ty {
                        RandomType::I32 | RandomType::U32 => {
                            out.extend_from_slice(&(v as u32).to_le_bytes())
                        }
                        _ => out.extend_from_slice(&(v as u64).to_le_bytes()),
                    }
                }
            }
        }
        RandomFunc::Normal | RandomFunc::TruncatedNormal => {
            for _ in 0..num {
                let mut z = w.normal();
                while func == RandomFunc::TruncatedNormal && z.abs() > 2.0 {
                    z = w.normal();
                }
                encode(ty, pa + pb * z, &mut out);
            }
        }
    }
    (out, w.counter.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_values_stay_below_the_maximum_at_every_precision() {
        let one = [
            (RandomType::F16, u64::from(f16::ONE.to_bits())),
            (RandomType::Bf16, u64::from(bf16::ONE.to_bits())),
            (RandomType::F32, u64::from(1f32.to_bits())),
        ];
        for (ty, max) in one {
            let (bytes, _) = generate(RandomFunc::Uniform, ty, 0, max, 7, [0; 16], 100_000);
            let width = if ty == RandomType::F32 { 4 } else { 2 };
            for c in bytes.chunks(width) {
                let v = match ty {
                    RandomType::F16 => f64::from(f16::from_le_bytes([c[0], c[1]])),
                    RandomType::Bf16 => f64::from(bf16::from_le_bytes([c[0], c[1]])),
                    _ => f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                };
                assert!((0.0..1.0).contains(&v), "{ty:?}: {v}");
            }
        }
    }

    #[test]
    fn uniform_64_bit_integers_stay_in_range_beyond_the_precision_of_a_double() {
        let lo = (1u64 << 60) + 1100;
        let (bytes, _) = generate(
            RandomFunc::Uniform,
            RandomType::U64,
            lo,
            lo + 100,
            3,
            [0; 16],
            1000,
        );
        let vals: Vec<u64> = bytes
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert!(vals.iter().all(|v| (lo..lo + 100).contains(v)), "{vals:?}");
        assert!(vals.iter().collect::<std::collections::HashSet<_>>().len() > 50);
        let (lo, hi) = (-(1i64 << 62) - 7, -(1i64 << 62) + 5);
        let (bytes, _) = generate(
            RandomFunc::Uniform,
            RandomType::I64,
            lo as u64,
            hi as u64,
            3,
            [0; 16],
            1000,
        );
        for c in bytes.chunks(8) {
            let v = i64::from_le_bytes(c.try_into().unwrap());
            assert!((lo..hi).contains(&v), "{v}");
        }
    }

    #[test]
    fn philox_matches_the_published_test_vectors() {
        // Random123's known-answer tests for philox4x32-10.
        assert_eq!(
            philox([0; 4], [0; 2]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
    }

    #[test]
    fn the_distributions_stay_in_their_ranges_and_the_counter_advances() {
        let (ints, c) = generate(
            RandomFunc::Uniform,
            RandomType::I32,
            1,
            100,
            0,
            [0; 16],
            1000,
        );
        assert!(ints
            .chunks(4)
            .all(|x| (1..100).contains(&i32::from_le_bytes(x.try_into().unwrap()))));
        assert_ne!(c, [0; 16]);
        let (again, _) = generate(
            RandomFunc::Uniform,
            RandomType::I32,
            1,
            100,
            0,
            [0; 16],
            1000,
        );
        assert_eq!(
            ints, again,
            "the same seed and counter give the same numbers"
        );
        let (next, _) = generate(RandomFunc::Uniform, RandomType::I32, 1, 100, 0, c, 1000);
        assert_ne!(ints, next, "the advanced counter gives new numbers");
        let mean = 3.0f32.to_bits() as u64;
        let sd = 2.0f32.to_bits() as u64;
        let (t, _) = generate(
            RandomFunc::TruncatedNormal,
            RandomType::F32,
            mean,
            sd,
            7,
            [0; 16],
            500,
        );
        assert!(t
            .chunks(4)
            .all(|x| (f32::from_le_bytes(x.try_into().unwrap()) - 3.0).abs() <= 4.0));
        let (mask, _) = generate(
            RandomFunc::DropoutBitmask,
            RandomType::F32,
            0.4f32.to_bits() as u64,
            0,
            1,
            [0; 16],
            128,
        );
        assert_eq!(mask.len(), 16);
        let kept: u32 = mask.iter().map(|b| b.count_ones()).sum();
        assert!(
            (50..=105).contains(&kept),
            "about 60% of 128 kept, got {kept}"
        );
    }
}
