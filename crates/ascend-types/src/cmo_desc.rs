//! The CMO descriptor in device memory, which `aclrtCmoSetDesc` fills and a CMO task with a
//! descriptor reads, and the runtime's CMO opcodes.
//!
//! Two packed little-endian layouts exist (docs/validation/cmo.md, Descriptor layouts): the
//! 32-byte one of STARS v1 chips (A2/A3) and the 64-byte one of STARS v2 chips (950 family),
//! each with `num_outer: u16`, `num_inner: u16`, `len_inner: u32`, `src: u64`,
//! `stride_outer: u32` and `stride_inner: u32` at its own offsets, after a header the runtime
//! overwrites with the operation's opcode when the task is launched.
//!
//! ```
//! use ascend_types::CmoDescLayout;
//! let a2 = CmoDescLayout::for_size(32);
//! let bytes = a2.set_desc_bytes(0x1000, 256);
//! assert_eq!(bytes.len(), 32);
//! let f = a2.fields(&bytes).unwrap();
//! assert_eq!((f.src, f.len_inner), (0x1000, 256));
//! ```

/// What the ACL layer adds to an `aclrtCmoType` to get the runtime's task opcode
/// (`RT_CMO_PREFETCH` = 6).
pub const CMO_OPCODE_OFFSET: u32 = 6;

/// Where a descriptor's fields lie, for one descriptor size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CmoDescLayout {
    /// The descriptor's size in bytes (32 or 64).
    pub size: usize,
    /// Offset of `num_outer` (u16).
    pub num_outer: usize,
    /// Offset of `num_inner` (u16).
    pub num_inner: usize,
    /// Offset of `len_inner` (u32).
    pub len_inner: usize,
    /// Offset of `src` (u64).
    pub src: usize,
    /// Offset of `stride_outer` (u32).
    pub stride_outer: usize,
    /// Offset of `stride_inner` (u32).
    pub stride_inner: usize,
    /// Bytes of the header the runtime writes over the head of the descriptor at launch (the
    /// opcode in its first word, the rest zero).
    pub header: usize,
}

/// The fields of a descriptor, as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CmoDescFields {
    /// Outer repetitions.
    pub num_outer: u16,
    /// Inner repetitions.
    pub num_inner: u16,
    /// Bytes of each block.
    pub len_inner: u32,
    /// The first block's address.
    pub src: u64,
    /// Bytes between outer repetitions.
    pub stride_outer: u32,
    /// Bytes between inner repetitions.
    pub stride_inner: u32,
}

impl CmoDescLayout {
    /// The layout of a descriptor of `desc_size` bytes (the chip's `cmo.desc_size`): the
    /// 64-byte one from 64 bytes up, else the 32-byte one.
    pub fn for_size(desc_size: u32) -> CmoDescLayout {
        if desc_size >= 64 {
            CmoDescLayout {
                size: 64,
                num_outer: 28,
                num_inner: 30,
                src: 32,
                stride_outer: 40,
                stride_inner: 44,
                len_inner: 48,
                header: 28,
            }
        } else {
            CmoDescLayout {
                size: 32,
                num_outer: 8,
                num_inner: 10,
                len_inner: 12,
                src: 16,
                stride_outer: 24,
                stride_inner: 28,
                header: 8,
            }
        }
    }

    /// The bytes `aclrtCmoSetDesc` writes: `src` and `size` (narrowed to 32 bits, as the
    /// runtime does) in their fields, every other byte zero.
    pub fn set_desc_bytes(&self, src: u64, size: u64) -> Vec<u8> {
        let mut bytes = vec![0u8; self.size];
        bytes[self.src..self.src + 8].copy_from_slice(&src.to_le_bytes());
        bytes[self.len_inner..self.len_inner + 4].copy_from_slice(&(size as u32).to_le_bytes());
        bytes
    }

    /// The fields of descriptor `bytes`; `None` when `bytes` is shorter than the layout.
    pub fn fields(&self, bytes: &[u8]) -> Option<CmoDescFields> {
        let u16_at = |o: usize| Some(u16::from_le_bytes(bytes.get(o..o + 2)?.try_into().ok()?));
        let u32_at = |o: usize| Some(u32::from_le_bytes(bytes.get(o..o + 4)?.try_into().ok()?));
        let src = u64::from_le_bytes(bytes.get(self.src..self.src + 8)?.try_into().ok()?);
        Some(CmoDescFields {
            num_outer: u16_at(self.num_outer)?,
            num_inner: u16_at(self.num_inner)?,
            len_inner: u32_at(self.len_inner)?,
            src,
            stride_outer: u32_at(self.stride_outer)?,
            stride_inner: u32_at(self.stride_inner)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_32_byte_layout_puts_src_at_16_and_len_at_12() {
        let l = CmoDescLayout::for_size(32);
        let b = l.set_desc_bytes(0x1122_3344_5566_7788, 0x1_0000_0040);
        assert_eq!(b.len(), 32);
        assert_eq!(&b[16..24], &0x1122_3344_5566_7788u64.to_le_bytes());
        assert_eq!(&b[12..16], &0x40u32.to_le_bytes(), "size wraps to 32 bits");
        assert!(b[..12].iter().all(|&x| x == 0));
        let f = l.fields(&b).unwrap();
        assert_eq!((f.src, f.len_inner), (0x1122_3344_5566_7788, 0x40));
        assert_eq!(
            (f.num_outer, f.num_inner, f.stride_outer, f.stride_inner),
            (0, 0, 0, 0)
        );
    }

    #[test]
    fn the_64_byte_layout_puts_src_at_32_and_len_at_48() {
        let l = CmoDescLayout::for_size(64);
        let b = l.set_desc_bytes(0xAB, 7);
        assert_eq!(b.len(), 64);
        assert_eq!(&b[32..40], &0xABu64.to_le_bytes());
        assert_eq!(&b[48..52], &7u32.to_le_bytes());
        assert_eq!(l.fields(&b[..40]), None, "too short for the layout");
    }
}
