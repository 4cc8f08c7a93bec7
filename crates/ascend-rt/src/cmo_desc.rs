//! The CMO descriptor that `aclrtCmoSetDesc` writes into device memory.
//!
//! Two packed little-endian layouts exist (docs/validation/cmo.md, Descriptor layouts): the
//! 32-byte one of STARS v1 chips (A2/A3) and the 64-byte one of STARS v2 chips (950 family).
//! `aclrtCmoSetDesc` fills only the source address and the 32-bit inner length; everything
//! else is zero.

use ascend_chips::ChipProfile;

/// Byte offsets of the two fields `aclrtCmoSetDesc` fills, for a descriptor size.
fn field_offsets(desc_size: u32) -> (usize, usize) {
    // (src: u64, len_inner: u32)
    if desc_size >= 64 {
        (32, 48)
    } else {
        (16, 12)
    }
}

/// The descriptor bytes for `src` and `size` on `chip` (`size` narrowed to 32 bits, as the
/// runtime does).
pub fn encode(chip: &ChipProfile, src: u64, size: u64) -> Vec<u8> {
    let len = chip.cmo.desc_size as usize;
    let mut bytes = vec![0u8; len];
    let (src_at, len_at) = field_offsets(chip.cmo.desc_size);
    bytes[src_at..src_at + 8].copy_from_slice(&src.to_le_bytes());
    bytes[len_at..len_at + 4].copy_from_slice(&(size as u32).to_le_bytes());
    bytes
}

/// Reads `(src, len_inner)` back from descriptor bytes.
pub fn decode(desc_size: u32, bytes: &[u8]) -> Option<(u64, u32)> {
    let (src_at, len_at) = field_offsets(desc_size);
    let src = u64::from_le_bytes(bytes.get(src_at..src_at + 8)?.try_into().ok()?);
    let len = u32::from_le_bytes(bytes.get(len_at..len_at + 4)?.try_into().ok()?);
    Some((src, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a2_layout_puts_src_at_16_and_len_at_12() {
        let chip = ChipProfile::builtin("Ascend910B1").unwrap();
        let b = encode(&chip, 0x1122_3344_5566_7788, 0x1_0000_0040);
        assert_eq!(b.len(), 32);
        assert_eq!(&b[16..24], &0x1122_3344_5566_7788u64.to_le_bytes());
        assert_eq!(&b[12..16], &0x40u32.to_le_bytes(), "size wraps to 32 bits");
        assert!(b[..12].iter().all(|&x| x == 0));
        assert_eq!(decode(32, &b), Some((0x1122_3344_5566_7788, 0x40)));
    }
}
