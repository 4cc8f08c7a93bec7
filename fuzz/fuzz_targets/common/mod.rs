//! What the `raw_api` and `c_abi` targets share: the primitives of their input decoders, and
//! the codes and sizes they check. Each target adds its own decoding methods to [`Bytes`].

/// `ACL_ERROR_INVALID_PARAM`: the ACL layer's NULL and kind rows.
pub const INVALID_PARAM: i32 = 100000;
/// `ACL_ERROR_RT_PARAM_INVALID`: sizes, and an address in no live allocation.
pub const RT_PARAM_INVALID: i32 = 107000;
/// `ACL_ERROR_RT_CONTEXT_NULL`: a call that needs a current context made without one.
pub const RT_CONTEXT_NULL: i32 = 107002;
/// `ACL_ERROR_RT_INVALID_HANDLE`: a handle that is not live.
pub const RT_INVALID_HANDLE: i32 = 107017;

/// Sizes no memory has, and their neighbours.
pub const HUGE: [usize; 5] = [
    usize::MAX,
    1 << 40,
    isize::MAX as usize + 1,
    isize::MAX as usize,
    usize::MAX - 31,
];

/// The fuzz input, read front to back; past its end every read is zero.
pub struct Bytes<'a>(pub &'a [u8]);

impl Bytes<'_> {
    /// The next byte.
    pub fn u8(&mut self) -> u8 {
        let (b, rest) = self
            .0
            .split_first()
            .map(|(b, r)| (*b, r))
            .unwrap_or((0, &[]));
        self.0 = rest;
        b
    }

    /// The next four bytes, little-endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// The next eight bytes, little-endian.
    pub fn u64(&mut self) -> u64 {
        (self.u32() as u64) | ((self.u32() as u64) << 32)
    }

    /// One of the [`HUGE`] sizes.
    pub fn huge(&mut self) -> usize {
        HUGE[self.u8() as usize % HUGE.len()]
    }
}

/// One end of a copy as the targets pass it: an address (NULL, stale, device or page-locked
/// memory) or pageable host memory (the target's own buffer from an offset on).
#[derive(Clone, Copy, Debug)]
pub enum End {
    /// An address.
    Addr(u64),
    /// Pageable memory: the target's buffer from this offset on.
    Host(usize),
}

/// The code a copy with a stale end must return, where the earlier rows decide it: NULL ends
/// and a bad kind (100000), then the count rows (107000), then, for `aclrtMemcpy`, the current
/// context (107002, checked after the `dst == src` shortcut) and the stale end (107000).
/// `None`: any error will do (`aclrtMemcpyAsync`, whose stream handle is checked before the
/// count and whose stream rows come first, unless `stream_ok`), or, for `aclrtMemcpy` onto
/// itself, success: CANN answers a copy with `dst == src` before it resolves the ends, stale or
/// not, so that case is recorded, not asserted. `has_context`: a context is current on the
/// calling thread.
#[allow(clippy::too_many_arguments)]
pub fn stale_copy_code(
    sync: bool,
    dst: End,
    src: End,
    dest_max: usize,
    count: usize,
    kind: u32,
    stream_ok: bool,
    has_context: bool,
) -> Option<i32> {
    const LAST_KIND: u32 = 5; // ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE
    if matches!(dst, End::Addr(0)) || matches!(src, End::Addr(0)) || kind > LAST_KIND {
        return Some(INVALID_PARAM);
    }
    // `aclrtMemcpyAsync` checks its stream handle before the count: a stream that is not
    // known to be good may answer first.
    if count > dest_max && !sync && !stream_ok {
        return None;
    }
    if count > dest_max || (sync && dest_max == 0) {
        return Some(RT_PARAM_INVALID);
    }
    if sync {
        if let (End::Addr(d), End::Addr(s)) = (dst, src) {
            if d == s {
                return None;
            }
        }
        // The synchronous copy runs in the current context: without one, that row answers
        // before the ends are resolved.
        if !has_context {
            return Some(RT_CONTEXT_NULL);
        }
        return Some(RT_PARAM_INVALID);
    }
    stream_ok.then_some(RT_PARAM_INVALID)
}
