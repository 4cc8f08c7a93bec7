//! The bytes of one backing page held as a buffer. A buffer is an anonymous mapping of its
//! own, so that dropping it (a freed allocation) gives the memory back to the operating
//! system at once: the heap would keep freed blocks of this size for itself. Should the
//! system refuse a mapping, the buffer comes from the heap instead.

use std::ops::{Deref, DerefMut};

use memmap2::MmapMut;

/// A page's bytes.
#[derive(Debug)]
pub(super) enum PageBuf {
    /// An anonymous mapping of exactly the page's size.
    Mapped(MmapMut),
    /// The fallback when no mapping was given.
    Heap(Vec<u8>),
}

impl PageBuf {
    /// `len` bytes, every one `byte`.
    pub(super) fn filled(len: usize, byte: u8) -> PageBuf {
        match MmapMut::map_anon(len) {
            Ok(mut m) => {
                // A fresh mapping reads as zeros: only another byte needs writing.
                if byte != 0 {
                    m.fill(byte);
                }
                PageBuf::Mapped(m)
            }
            Err(e) => {
                tracing::debug!("backing page from the heap: no mapping ({e})");
                PageBuf::Heap(vec![byte; len])
            }
        }
    }
}

impl Deref for PageBuf {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            PageBuf::Mapped(m) => m,
            PageBuf::Heap(v) => v,
        }
    }
}

impl DerefMut for PageBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            PageBuf::Mapped(m) => m,
            PageBuf::Heap(v) => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_holds_its_fill_and_takes_writes() {
        for byte in [0u8, 0xA5] {
            let mut p = PageBuf::filled(65536, byte);
            assert_eq!(p.len(), 65536);
            assert!(p.iter().all(|&b| b == byte));
            p[70] = 3;
            assert_eq!(p[70], 3);
        }
    }
}
