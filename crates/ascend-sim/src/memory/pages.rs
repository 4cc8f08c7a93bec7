//! The backing store of device memory: lazily allocated pages, each either one byte repeated
//! (a page a fill, or a copy of such a page, covered entirely) or a buffer with a bitmap of
//! written 8-byte words. A page that is absent reads as the poison byte, never written.
//! Accesses here are already bounds-checked.

use std::collections::BTreeMap;

use super::page_buf::PageBuf;
use super::ReadInfo;

/// One backing page. A page that a fill covered entirely is held as one byte (no buffer); it
/// becomes a buffer only when a write covers part of it.
#[derive(Debug)]
enum Page {
    /// Every byte is `byte`; every 8-byte word is written (`written`) or none is.
    Uniform { byte: u8, written: bool },
    /// Data plus a bitmap of written 8-byte words.
    Data { data: PageBuf, written: Vec<u64> },
}

/// What a write stores: bytes, or one byte repeated.
#[derive(Clone, Copy)]
pub(super) enum Src<'a> {
    Bytes(&'a [u8]),
    Fill(u8),
}

/// What a range of memory holds, with its written flags, taken to be put back later (what the
/// memory under a dirty cache line still holds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Image {
    /// Every byte is `byte`; every 8-byte word is written or none is.
    Uniform {
        /// The byte.
        byte: u8,
        /// Whether the words count as written.
        written: bool,
    },
    /// The bytes, and whether each 8-byte word counts as written.
    Data {
        /// The bytes.
        bytes: Box<[u8]>,
        /// One flag per 8-byte word.
        written: Box<[bool]>,
    },
}

impl Image {
    /// The byte at offset `i` of the imaged range (0 past the end of a buffer image).
    pub fn byte(&self, i: usize) -> u8 {
        match self {
            Image::Uniform { byte, .. } => *byte,
            Image::Data { bytes, .. } => bytes.get(i).copied().unwrap_or(0),
        }
    }

    /// Whether the 8-byte word at offset `i` (rounded down) counts as written.
    pub fn written(&self, i: usize) -> bool {
        match self {
            Image::Uniform { written, .. } => *written,
            Image::Data { written, .. } => written.get(i / 8).copied().unwrap_or(false),
        }
    }

    /// True when the first `len` bytes of both images are equal (whatever their form).
    pub fn same_bytes(&self, other: &Image, len: usize) -> bool {
        match (self, other) {
            (Image::Uniform { byte: a, .. }, Image::Uniform { byte: b, .. }) => a == b,
            _ => (0..len).all(|i| self.byte(i) == other.byte(i)),
        }
    }

    /// The little-endian 64-bit word at offset `i` (rounded down to a multiple of 8).
    pub fn word(&self, i: usize) -> u64 {
        let base = i & !7;
        u64::from_le_bytes(std::array::from_fn(|k| self.byte(base + k)))
    }
}

/// The backing pages of all device memory.
#[derive(Debug)]
pub(super) struct Pages {
    page_bytes: u64,
    poison: u8,
    pages: BTreeMap<u64, Page>,
    /// Pages held as a buffer (the rest are uniform).
    data_pages: u64,
}

impl Pages {
    /// No pages yet; `page_bytes` is clamped to a power of two from 64 bytes to 1 GiB.
    pub(super) fn new(page_bytes: u64, poison: u8) -> Pages {
        Pages {
            page_bytes: page_bytes.clamp(64, 1 << 30).next_power_of_two(),
            poison,
            pages: BTreeMap::new(),
            data_pages: 0,
        }
    }

    /// The page size.
    pub(super) fn page_bytes(&self) -> u64 {
        self.page_bytes
    }

    /// The poison byte.
    pub(super) fn poison(&self) -> u8 {
        self.poison
    }

    /// Bytes of the pages held as a buffer.
    pub(super) fn backing_bytes(&self) -> u64 {
        self.data_pages * self.page_bytes
    }

    fn drop_page(&mut self, k: u64) {
        if let Some(Page::Data { .. }) = self.pages.remove(&k) {
            self.data_pages -= 1;
        }
    }

    /// The page `k` as a buffer (materialising an absent or uniform page).
    fn data_page(&mut self, k: u64) -> (&mut [u8], &mut Vec<u64>) {
        let pb = self.page_bytes as usize;
        let words = (pb / 8).div_ceil(64);
        let poison = self.poison;
        let page = self.pages.entry(k).or_insert(Page::Uniform {
            byte: poison,
            written: false,
        });
        if let Page::Uniform { byte, written } = *page {
            let mask = if written { u64::MAX } else { 0 };
            *page = Page::Data {
                data: PageBuf::filled(pb, byte),
                written: vec![mask; words],
            };
            self.data_pages += 1;
        }
        match page {
            Page::Data { data, written } => (data, written),
            Page::Uniform { .. } => unreachable!("materialised above"),
        }
    }

    /// Returns `[addr, addr+len)` to poison / never-written and drops the pages it fully
    /// covers and those that `in_use` (given a page's start) says no live allocation overlaps.
    pub(super) fn reset(&mut self, addr: u64, len: u64, in_use: impl Fn(u64) -> bool) {
        let pb = self.page_bytes;
        let end = addr + len;
        let first = addr / pb;
        let last = (end - 1) / pb;
        let keys: Vec<u64> = self.pages.range(first..=last).map(|(&k, _)| k).collect();
        for k in keys {
            let ps = k * pb;
            let (lo, hi) = (addr.max(ps), end.min(ps + pb));
            if (lo == ps && hi == ps + pb) || !in_use(ps) {
                self.drop_page(k);
            } else {
                let poison = self.poison;
                let (data, written) = self.data_page(k);
                data[(lo - ps) as usize..(hi - ps) as usize].fill(poison);
                for w in (lo - ps) / 8..(hi - ps).div_ceil(8) {
                    written[(w / 64) as usize] &= !(1u64 << (w % 64));
                }
            }
        }
    }

    /// Reads `out.len()` bytes at `addr`.
    pub(super) fn read(&self, addr: u64, out: &mut [u8]) -> ReadInfo {
        let pb = self.page_bytes;
        let mut never_written = false;
        let mut pos = 0usize;
        while pos < out.len() {
            let a = addr + pos as u64;
            let (k, off) = (a / pb, a % pb);
            let n = ((pb - off) as usize).min(out.len() - pos);
            match self.pages.get(&k) {
                Some(Page::Data { data, written }) => {
                    out[pos..pos + n].copy_from_slice(&data[off as usize..off as usize + n]);
                    if !never_written {
                        for w in off / 8..(off + n as u64).div_ceil(8) {
                            if written[(w / 64) as usize] & (1u64 << (w % 64)) == 0 {
                                never_written = true;
                                break;
                            }
                        }
                    }
                }
                Some(&Page::Uniform { byte, written }) => {
                    out[pos..pos + n].fill(byte);
                    never_written |= !written;
                }
                None => {
                    out[pos..pos + n].fill(self.poison);
                    never_written = true;
                }
            }
            pos += n;
        }
        ReadInfo { never_written }
    }

    /// Whether the 8-byte word at `a` (a multiple of 8) counts as written.
    pub(super) fn word_written(&self, a: u64) -> bool {
        let pb = self.page_bytes;
        match self.pages.get(&(a / pb)) {
            None => false,
            Some(&Page::Uniform { written, .. }) => written,
            Some(Page::Data { written, .. }) => {
                let i = (a % pb) / 8;
                written[(i / 64) as usize] & (1u64 << (i % 64)) != 0
            }
        }
    }

    /// Stores `bytes` at `addr` (a multiple of 8, `bytes` a whole number of words) leaving
    /// every word's written flag as it was: a cache line put back whole.
    pub(super) fn overwrite(&mut self, addr: u64, bytes: &[u8]) {
        let pb = self.page_bytes;
        let mut pos = 0usize;
        while pos < bytes.len() {
            let a = addr + pos as u64;
            let (k, off) = (a / pb, (a % pb) as usize);
            let n = (pb as usize - off).min(bytes.len() - pos);
            let (data, _) = self.data_page(k);
            data[off..off + n].copy_from_slice(&bytes[pos..pos + n]);
            pos += n;
        }
    }

    /// The byte every byte of `[a, a+n)` holds, when every page the range touches is absent
    /// or uniform with that same byte (with whether every one counts as written). A range
    /// need not be page-aligned: copies between buffers at different page offsets read each
    /// destination page from two source pages.
    fn uniform_at(&self, a: u64, n: u64) -> Option<(u8, bool)> {
        let pb = self.page_bytes;
        let mut found: Option<(u8, bool)> = None;
        for k in a / pb..=(a + n - 1) / pb {
            let (byte, written) = match self.pages.get(&k) {
                None => (self.poison, false),
                Some(&Page::Uniform { byte, written }) => (byte, written),
                Some(Page::Data { .. }) => return None,
            };
            found = match found {
                None => Some((byte, written)),
                Some((b, w)) if b == byte => Some((b, w && written)),
                Some(_) => return None,
            };
        }
        found
    }

    /// Copies `len` bytes from `src` to `dst` with memmove semantics, a page at a time: a
    /// destination page whose source is one uniform (or absent) page stays uniform. Returns
    /// what reading the source found.
    pub(super) fn copy(&mut self, dst: u64, src: u64, len: u64) -> ReadInfo {
        let mut never_written = false;
        if len == 0 {
            return ReadInfo { never_written };
        }
        let pb = self.page_bytes;
        let mut buf = vec![0u8; len.min(pb) as usize];
        // Pieces follow destination pages; copying backwards when the destination lies above
        // an overlapping source keeps memmove semantics.
        let backwards = dst > src && dst - src < len;
        let mut done = 0u64;
        while done < len {
            let (lo, hi) = if backwards {
                let hi = len - done;
                let a = dst + hi - 1;
                let lo = (a - a % pb).max(dst) - dst;
                (lo, hi)
            } else {
                let a = dst + done;
                (done, (done + pb - a % pb).min(len))
            };
            let n = hi - lo;
            let (d, s) = (dst + lo, src + lo);
            match self.uniform_at(s, n) {
                Some((byte, written)) if d % pb == 0 && n == pb => {
                    never_written |= !written;
                    self.store_piece(d, Src::Fill(byte), n);
                }
                _ => {
                    let b = &mut buf[..n as usize];
                    never_written |= self.read(s, b).never_written;
                    let b = std::mem::take(&mut buf);
                    self.store_piece(d, Src::Bytes(&b[..n as usize]), n);
                    buf = b;
                }
            }
            done += n;
        }
        ReadInfo { never_written }
    }

    /// What `[addr, addr+len)` holds (`addr` and `len` multiples of 8).
    pub(super) fn image(&self, addr: u64, len: u64) -> Image {
        if let Some((byte, written)) = self.uniform_at(addr, len) {
            return Image::Uniform { byte, written };
        }
        let mut bytes = vec![0u8; len as usize];
        self.read(addr, &mut bytes);
        let pb = self.page_bytes;
        let written = (0..len / 8)
            .map(|w| {
                let a = addr + w * 8;
                match self.pages.get(&(a / pb)) {
                    None => false,
                    Some(&Page::Uniform { written, .. }) => written,
                    Some(Page::Data { written, .. }) => {
                        let i = (a % pb) / 8;
                        written[(i / 64) as usize] & (1u64 << (i % 64)) != 0
                    }
                }
            })
            .collect();
        Image::Data {
            bytes: bytes.into_boxed_slice(),
            written,
        }
    }

    /// Puts an [`Image`] of `[addr, addr+len)` back (`addr` and `len` multiples of 8).
    pub(super) fn restore(&mut self, addr: u64, len: u64, image: &Image) {
        match *image {
            Image::Uniform {
                byte,
                written: true,
            } => {
                self.store(addr, Src::Fill(byte), len);
                return;
            }
            // Poison, never written: what a fresh page holds; pages the range covers go.
            Image::Uniform {
                byte,
                written: false,
            } if byte == self.poison => {
                self.reset(addr, len, |_| true);
                return;
            }
            _ => {}
        }
        let len = match image {
            Image::Data { bytes, .. } => len.min(bytes.len() as u64),
            Image::Uniform { .. } => len,
        };
        let pb = self.page_bytes;
        for w in 0..(len / 8) as usize {
            let (word, flag) = match image {
                Image::Uniform { byte, written } => ([*byte; 8], *written),
                Image::Data { bytes, written } => {
                    let mut word = [0u8; 8];
                    word.copy_from_slice(&bytes[w * 8..w * 8 + 8]);
                    (word, written[w])
                }
            };
            let a = addr + w as u64 * 8;
            let off = (a % pb) as usize;
            let (data, bits) = self.data_page(a / pb);
            data[off..off + 8].copy_from_slice(&word);
            let i = off / 8;
            if flag {
                bits[i / 64] |= 1u64 << (i % 64);
            } else {
                bits[i / 64] &= !(1u64 << (i % 64));
            }
        }
    }

    /// Stores `src` at `addr`, page by page.
    pub(super) fn store(&mut self, addr: u64, src: Src<'_>, len: u64) {
        let pb = self.page_bytes;
        let mut pos = 0u64;
        while pos < len {
            let a = addr + pos;
            let n = (pb - a % pb).min(len - pos);
            let piece = match src {
                Src::Bytes(b) => Src::Bytes(&b[pos as usize..(pos + n) as usize]),
                f => f,
            };
            self.store_piece(a, piece, n);
            pos += n;
        }
    }

    /// Stores `n` bytes at `a`, a range inside one page.
    fn store_piece(&mut self, a: u64, src: Src<'_>, n: u64) {
        let pb = self.page_bytes;
        let (k, off) = (a / pb, a % pb);
        if let Src::Fill(byte) = src {
            if n == pb {
                self.drop_page(k);
                self.pages.insert(
                    k,
                    Page::Uniform {
                        byte,
                        written: true,
                    },
                );
                return;
            }
            if let Some(&Page::Uniform {
                byte: b,
                written: true,
            }) = self.pages.get(&k)
            {
                if b == byte {
                    return;
                }
            }
        }
        let (data, written) = self.data_page(k);
        let dst = &mut data[off as usize..(off + n) as usize];
        match src {
            Src::Bytes(b) => dst.copy_from_slice(b),
            Src::Fill(v) => dst.fill(v),
        }
        for w in off / 8..(off + n).div_ceil(8) {
            written[(w / 64) as usize] |= 1u64 << (w % 64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Memory, Writer};

    fn mem() -> Memory {
        Memory::new(2, 1 << 30, 512, 65536, 0xA5)
    }

    #[test]
    fn freed_memory_returns_to_poison() {
        let mut m = mem();
        let a = m.malloc(0, 200_000).unwrap();
        m.fill(a, 1, 200_000, Writer::Host { at_ns: 0 }).unwrap();
        m.free(0, a, "by free".into()).unwrap();
        assert_eq!(m.backing_bytes(), 0); // no live allocation overlaps any page
        let b = m.malloc(0, 200_000).unwrap();
        let mut buf = vec![0u8; 200_000];
        assert!(m.read(b, &mut buf).unwrap().never_written);
        assert!(buf.iter().all(|&x| x == 0xA5));
    }

    #[test]
    fn full_page_fills_hold_no_buffer_and_track_writes() {
        let mut m = mem();
        let a = m.malloc(0, 4 * 65536).unwrap();
        m.fill(a, 7, 4 * 65536, Writer::Host { at_ns: 0 }).unwrap();
        assert_eq!(m.backing_bytes(), 0);
        let (v, info) = m.read_u64(a + 65536).unwrap();
        assert_eq!((v, info.never_written), (0x0707_0707_0707_0707, false));
        // A same-byte partial fill of a uniform page changes nothing.
        m.fill(a + 8, 7, 100, Writer::Host { at_ns: 0 }).unwrap();
        assert_eq!(m.backing_bytes(), 0);
        m.write(a + 8, &[1], Writer::Host { at_ns: 0 }).unwrap();
        assert_eq!(m.backing_bytes(), 65536);
        assert_eq!(m.read_u64(a + 8).unwrap().0, 0x0707_0707_0707_0701);
        assert!(!m.read_u64(a + 16).unwrap().1.never_written);
    }

    #[test]
    fn memmove_overlap() {
        let mut m = mem();
        let a = m.malloc(0, 16).unwrap();
        m.write(a, &[1, 2, 3, 4, 5, 6, 7, 8], Writer::Host { at_ns: 0 })
            .unwrap();
        m.copy(a + 2, a, 8, Writer::Host { at_ns: 0 }).unwrap();
        let mut out = [0u8; 10];
        m.read(a, &mut out).unwrap();
        assert_eq!(out, [1, 2, 1, 2, 3, 4, 5, 6, 7, 8]);
    }

    proptest::proptest! {
        #[test]
        fn fills_and_copies_read_back_like_a_plain_buffer(
            ops in proptest::collection::vec(
                (0u8..3, 0u64..400_000, 0u64..400_000, 1u64..200_000, proptest::num::u8::ANY), 1..16)
        ) {
            let mut m = Memory::new(1, 1 << 30, 512, 65536, 0xA5);
            let len = 400_000u64;
            let a = m.malloc(0, len).unwrap();
            let mut shadow = vec![0xA5u8; len as usize];
            let by = Writer::Host { at_ns: 0 };
            for (kind, x, y, n, v) in ops {
                let n = n.min(len - x.max(y));
                let (x, y, nu) = (x as usize, y as usize, n as usize);
                match kind {
                    0 => {
                        m.fill(a + x as u64, v, n, by).unwrap();
                        shadow[x..x + nu].fill(v);
                    }
                    1 => {
                        m.copy(a + x as u64, a + y as u64, n, by).unwrap();
                        shadow.copy_within(y..y + nu, x);
                    }
                    _ => {
                        let data: Vec<u8> = (0..nu).map(|i| v.wrapping_add(i as u8)).collect();
                        m.write(a + x as u64, &data, by).unwrap();
                        shadow[x..x + nu].copy_from_slice(&data);
                    }
                }
            }
            let mut out = vec![0u8; len as usize];
            m.read(a, &mut out).unwrap();
            proptest::prop_assert!(out == shadow);
            m.free(0, a, "by free".into()).unwrap();
            proptest::prop_assert_eq!(m.backing_bytes(), 0);
        }

        #[test]
        fn writes_read_back_like_a_plain_buffer(
            ops in proptest::collection::vec((0u64..300_000, 1usize..70_000, proptest::num::u8::ANY), 1..20)
        ) {
            let mut m = Memory::new(1, 1 << 30, 512, 65536, 0xA5);
            let len = 400_000u64;
            let a = m.malloc(0, len).unwrap();
            let mut shadow = vec![0xA5u8; len as usize];
            for (off, n, v) in ops {
                let n = n.min((len - off) as usize);
                let data: Vec<u8> = (0..n).map(|i| v.wrapping_add(i as u8)).collect();
                m.write(a + off, &data, Writer::Host { at_ns: 0 }).unwrap();
                shadow[off as usize..off as usize + n].copy_from_slice(&data);
            }
            let mut out = vec![0u8; len as usize];
            m.read(a, &mut out).unwrap();
            proptest::prop_assert!(out == shadow);
        }
    }
}
