//! Copies and fills: `aclrtMemcpy`, `aclrtMemcpyAsync` (and their forms within one buffer),
//! `aclrtMemset`, `aclrtMemsetAsync`, with their validation rows (docs/validation/memory.md).
//! Where the ends may lie is `addresses`'s, how validated copies move their bytes
//! `copy_staging`'s; the allocations they read and write are `memory`'s.

use super::copy_staging::{locked, AsyncEnds, DSide, Side};
use super::state::Location;
use super::{Runtime, StreamRec};
use crate::backend::{Loc, Task};
use crate::error::{fail, AclResult};
use crate::raw_types::{Addr, RawStream};

/// Destination of a copy at the raw level.
#[derive(Debug)]
pub enum MemDst<'a> {
    /// A nullable address: device memory or page-locked host memory from `aclrtMallocHost`.
    Addr(Addr),
    /// Other (pageable) host memory.
    Host(&'a mut [u8]),
}

impl From<Addr> for MemDst<'_> {
    fn from(a: Addr) -> Self {
        MemDst::Addr(a)
    }
}

impl<'a> From<&'a mut [u8]> for MemDst<'a> {
    fn from(s: &'a mut [u8]) -> Self {
        MemDst::Host(s)
    }
}

/// Source of a copy at the raw level.
#[derive(Debug, Clone, Copy)]
pub enum MemSrc<'a> {
    /// A nullable address: device memory or page-locked host memory from `aclrtMallocHost`.
    Addr(Addr),
    /// Other (pageable) host memory.
    Host(&'a [u8]),
}

fn out_of_range(api: &str, param: &str, addr: u64, count: u64, room: u64) -> crate::AclError {
    fail::rt_value(
        api,
        param,
        format!("{addr:#x}"),
        &format!("an address with {count} bytes inside one live allocation (only {room} remain)"),
    )
}

/// The RT check that a copy or fill stays within the destination's stated capacity.
fn count_within(api: &str, count: usize, max: usize, max_name: &str) -> AclResult<()> {
    if count > max {
        return Err(fail::rt_value(
            api,
            "count",
            count,
            &format!("not greater than {max_name} ({max})"),
        ));
    }
    Ok(())
}

/// The largest `maxCount` the runtime's host-side fill accepts: the secure C library's bound
/// on a buffer, 2^31 - 1 bytes (docs/validation/memory.md).
const HOST_FILL_MAX: usize = 0x7fff_ffff;

/// The bound of `aclrtMemsetAsync`'s host-side fill: a larger `maxCount` makes the secure fill
/// fail, which the runtime reports as an internal error (507000, EE9999).
fn host_fill_bound(api: &str, max_count: usize) -> AclResult<()> {
    if max_count > HOST_FILL_MAX {
        return Err(crate::AclError::new(
            crate::ErrorCode::RtInternalError,
            Some(crate::error::MsgCode::EE9999),
            format!(
                "{api} failed: host memory is filled on the host, and its maxCount {max_count} \
                 is over the fill's bound {HOST_FILL_MAX}"
            ),
        ));
    }
    Ok(())
}

/// Whether each end of a copy is a NULL address (pageable slices never are).
fn null_ends(dst: &MemDst<'_>, src: &MemSrc<'_>) -> (bool, bool) {
    (
        matches!(dst, MemDst::Addr(a) if a.is_null()),
        matches!(src, MemSrc::Addr(a) if a.is_null()),
    )
}

impl Runtime {
    fn src_side<'a>(&self, api: &str, src: MemSrc<'a>, count: u64) -> AclResult<Side<'a>> {
        match src {
            MemSrc::Host(s) if (s.len() as u64) < count => Err(out_of_range(
                api,
                "src",
                s.as_ptr() as u64,
                count,
                s.len() as u64,
            )),
            MemSrc::Host(s) => Ok(Side::Slice(s)),
            MemSrc::Addr(a) => match self.lock().locate(a.0) {
                Location::Device { room, .. } if room < count => {
                    Err(out_of_range(api, "src", a.0, count, room))
                }
                Location::Device { .. } => Ok(Side::Device(a.0)),
                Location::Host { room, .. } if room < count => {
                    Err(out_of_range(api, "src", a.0, count, room))
                }
                Location::Host { buf, offset, .. } => Ok(Side::Pinned(buf, offset)),
                Location::Unregistered => Err(self.not_live(api, "src", a.0)),
            },
        }
    }

    fn dst_side<'a>(&self, api: &str, dst: MemDst<'a>, count: u64) -> AclResult<DSide<'a>> {
        match dst {
            MemDst::Host(s) if (s.len() as u64) < count => {
                let (p, l) = (s.as_ptr() as u64, s.len() as u64);
                Err(out_of_range(api, "dst", p, count, l))
            }
            MemDst::Host(s) => Ok(DSide::Slice(s)),
            MemDst::Addr(a) => match self.lock().locate(a.0) {
                Location::Device { room, .. } if room < count => {
                    Err(out_of_range(api, "dst", a.0, count, room))
                }
                Location::Device { .. } => Ok(DSide::Device(a.0)),
                Location::Host { room, .. } if room < count => {
                    Err(out_of_range(api, "dst", a.0, count, room))
                }
                Location::Host { buf, offset, .. } => Ok(DSide::Pinned(buf, offset)),
                Location::Unregistered => Err(self.not_live(api, "dst", a.0)),
            },
        }
    }

    /// The ACL-layer rows shared by the copy calls (docs/validation/memory.md): `count == 0`
    /// succeeds before anything else (`Ok(false)`: nothing to do), then NULL ends (100000,
    /// EH0008) and the kind (100000, EH0007).
    fn acl_copy_rows(
        api: &str,
        dst_null: bool,
        src_null: bool,
        count: usize,
        kind: u32,
    ) -> AclResult<bool> {
        if count == 0 {
            return Ok(false);
        }
        if dst_null {
            return Err(fail::acl_null(api, "dst"));
        }
        if src_null {
            return Err(fail::acl_null(api, "src"));
        }
        if kind > crate::raw_types::memcpy_kind::HOST_TO_BUF_TO_DEVICE {
            return Err(fail::acl_range(api, "kind", kind, "[0, 5]"));
        }
        Ok(true)
    }

    /// The rows of `aclrtMemcpy` before the ends are resolved: the ACL rows, then the RT
    /// decorator's destMax 0 and count > destMax (107000). `Ok(false)`: nothing to do.
    fn memcpy_rows(
        api: &str,
        dst_null: bool,
        src_null: bool,
        dest_max: usize,
        count: usize,
        kind: u32,
    ) -> AclResult<bool> {
        if !Self::acl_copy_rows(api, dst_null, src_null, count, kind)? {
            return Ok(false);
        }
        if dest_max == 0 {
            return Err(fail::rt_value(api, "destMax", 0, "greater than 0"));
        }
        count_within(api, count, dest_max, "destMax")?;
        Ok(true)
    }

    /// The rows of `aclrtMemcpyAsync` before the ends are resolved: the ACL rows, count >
    /// destMax (107000), then the stream (107017, 107002, 107003). `None`: nothing to do.
    fn memcpy_async_rows(
        &self,
        dst_null: bool,
        src_null: bool,
        dest_max: usize,
        count: usize,
        kind: u32,
        stream: RawStream,
    ) -> AclResult<Option<StreamRec>> {
        let api = "aclrtMemcpyAsync";
        if !Self::acl_copy_rows(api, dst_null, src_null, count, kind)? {
            return Ok(None);
        }
        // The runtime's entry validates the stream handle before its checks of the arguments.
        self.require_stream_handle(api, stream)?;
        count_within(api, count, dest_max, "destMax")?;
        Ok(Some(self.task_stream(api, stream)?))
    }

    /// Pageable host memory on a persistent stream: such a stream's tasks run when its model
    /// runs (or when the device is synchronised), after this call returns, when the pageable
    /// memory may be gone; only page-locked memory can be named (107000).
    fn no_pageable_on_persistent(
        api: &str,
        rec: &StreamRec,
        ends: &AsyncEnds<'_>,
    ) -> AclResult<()> {
        let pageable = !matches!(ends, AsyncEnds::Locs { .. });
        if pageable && rec.flags & crate::raw_types::stream_flag::PERSISTENT != 0 {
            return Err(fail::rt_value(
                api,
                "stream",
                "a persistent stream",
                "a stream whose tasks run in order with the host: a persistent stream's copy \
                 runs later, so its host memory must come from aclrtMallocHost, not pageable memory",
            ));
        }
        Ok(())
    }

    /// Checks that `[offset, offset+count)` lies inside a pageable buffer of `len` bytes.
    fn within_buffer(
        api: &str,
        param: &str,
        offset: usize,
        count: usize,
        len: usize,
    ) -> AclResult<()> {
        if offset.checked_add(count).is_none_or(|end| end > len) {
            return Err(out_of_range(
                api,
                param,
                offset as u64,
                count as u64,
                len.saturating_sub(offset) as u64,
            ));
        }
        Ok(())
    }

    /// `aclrtMemcpy(dst, destMax, src, count, kind)`: synchronous; `count == 0` succeeds before
    /// any other check; the direction comes from the addresses (`kind` is advisory).
    pub fn memcpy(
        &self,
        dst: MemDst<'_>,
        dest_max: usize,
        src: MemSrc<'_>,
        count: usize,
        kind: u32,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemcpy";
            let (dst_null, src_null) = null_ends(&dst, &src);
            if !Self::memcpy_rows(api, dst_null, src_null, dest_max, count, kind)? {
                return Ok(());
            }
            if let (MemDst::Addr(d), MemSrc::Addr(s)) = (&dst, &src) {
                if d == s {
                    return Ok(());
                }
            }
            // Every direction runs in the current context (the runtime's synchronous copy).
            self.require_context(api)?;
            self.refuse_unsafe_during_capture(api)?;
            let n = count as u64;
            let src = self.src_side(api, src, n)?;
            let dst = self.dst_side(api, dst, n)?;
            if let (DSide::Device(d), Side::Device(s)) = (&dst, &src) {
                self.check_peer_copy(api, *d, *s)?;
            }
            self.copy_now(dst, src, count)
        })
    }

    /// `aclrtMemcpy` between two pageable host ranges of one buffer that may overlap (what a C
    /// caller's overlapping host pointers are): `buf` covers both ranges, `dst` and `src` are
    /// offsets into it. Validated as [`Runtime::memcpy`]; copies with memmove semantics.
    ///
    /// ```
    /// use ascend_rt::{Runtime, raw_types::memcpy_kind};
    /// let rt = Runtime::sim("Ascend910B1").unwrap();
    /// rt.set_device(0).unwrap();
    /// let mut buf = *b"abcdef";
    /// rt.memcpy_within(&mut buf, 2, 4, 0, 4, memcpy_kind::HOST_TO_HOST).unwrap();
    /// assert_eq!(&buf, b"ababcd");
    /// assert_eq!(rt.memcpy_within(&mut buf, 0, 6, 0, 6, 9).unwrap_err().code(), 100000);
    /// ```
    pub fn memcpy_within(
        &self,
        buf: &mut [u8],
        dst: usize,
        dest_max: usize,
        src: usize,
        count: usize,
        kind: u32,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemcpy";
            if !Self::memcpy_rows(api, false, false, dest_max, count, kind)? || dst == src {
                return Ok(());
            }
            self.require_context(api)?;
            Self::within_buffer(api, "src", src, count, buf.len())?;
            Self::within_buffer(api, "dst", dst, count, buf.len())?;
            buf.copy_within(src..src + count, dst);
            Ok(())
        })
    }

    /// `aclrtMemcpyAsync(dst, destMax, src, count, kind, stream)`: stream-ordered. Pageable
    /// (slice) sources are read at once; a pageable destination is filled before the call
    /// returns (the stream is synchronised up to the copy).
    pub fn memcpy_async(
        &self,
        dst: MemDst<'_>,
        dest_max: usize,
        src: MemSrc<'_>,
        count: usize,
        kind: u32,
        stream: RawStream,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemcpyAsync";
            let (dst_null, src_null) = null_ends(&dst, &src);
            let rows = self.memcpy_async_rows(dst_null, src_null, dest_max, count, kind, stream);
            let Some(rec) = rows? else {
                return Ok(());
            };
            let n = count as u64;
            let src = self.src_side(api, src, n)?;
            let dst = self.dst_side(api, dst, n)?;
            if let (DSide::Device(d), Side::Device(s)) = (&dst, &src) {
                self.check_peer_copy(api, *d, *s)?;
            }
            let src = match src {
                Side::Device(a) => Ok(Loc::Device(a)),
                Side::Pinned(b, o) => Ok(Loc::Host { buf: b, offset: o }),
                Side::Slice(s) => Err(s),
            };
            let ends = match (dst, src) {
                (DSide::Device(a), Ok(src)) => AsyncEnds::Locs {
                    dst: Loc::Device(a),
                    src,
                },
                (DSide::Pinned(b, o), Ok(src)) => AsyncEnds::Locs {
                    dst: Loc::Host { buf: b, offset: o },
                    src,
                },
                (DSide::Device(a), Err(src)) => AsyncEnds::FromPageable {
                    dst: Loc::Device(a),
                    src: &src[..count],
                },
                (DSide::Pinned(b, o), Err(src)) => AsyncEnds::FromPageable {
                    dst: Loc::Host { buf: b, offset: o },
                    src: &src[..count],
                },
                (DSide::Slice(d), Ok(src)) => AsyncEnds::ToPageable {
                    dst: &mut d[..count],
                    src,
                },
                (DSide::Slice(d), Err(src)) => AsyncEnds::BothPageable {
                    dst: &mut d[..count],
                    src: &src[..count],
                },
            };
            Self::no_pageable_on_persistent(api, &rec, &ends)?;
            self.launch_copy(&rec, ends, count)
        })
    }

    /// `aclrtMemcpyAsync` between two pageable host ranges of one buffer that may overlap;
    /// see [`Runtime::memcpy_within`]. Validated as [`Runtime::memcpy_async`]; the copy runs
    /// in stream order and the call returns once it is done, as for any pageable memory.
    #[allow(clippy::too_many_arguments)] // the ACL call's five plus the buffer's two offsets
    pub fn memcpy_async_within(
        &self,
        buf: &mut [u8],
        dst: usize,
        dest_max: usize,
        src: usize,
        count: usize,
        kind: u32,
        stream: RawStream,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemcpyAsync";
            let rows = self.memcpy_async_rows(false, false, dest_max, count, kind, stream);
            let Some(rec) = rows? else {
                return Ok(());
            };
            Self::within_buffer(api, "src", src, count, buf.len())?;
            Self::within_buffer(api, "dst", dst, count, buf.len())?;
            let ends = AsyncEnds::Within { buf, dst, src };
            Self::no_pageable_on_persistent(api, &rec, &ends)?;
            self.launch_copy(&rec, ends, count)
        })
    }

    /// `aclrtMemset(devPtr, maxCount, value, count)`: synchronous; the low byte of `value`
    /// fills `count` bytes. Host memory the runtime does not manage (passed as a slice) is
    /// filled on the host: the documentation calls it undefined, but the vendor's driver fills
    /// it, and its cross-server sample relies on that (clearing a socket address).
    pub fn memset<'a>(
        &self,
        dst: impl Into<MemDst<'a>>,
        max_count: usize,
        value: i32,
        count: usize,
    ) -> AclResult<()> {
        let dst = dst.into();
        self.call(|| {
            let api = "aclrtMemset";
            if count == 0 {
                return Ok(());
            }
            if matches!(dst, MemDst::Addr(a) if a.is_null()) {
                return Err(fail::acl_null(api, "devPtr"));
            }
            // The runtime's synchronous fill runs in the current context; the bound is checked
            // after it, by the driver's fill.
            self.require_context(api)?;
            self.refuse_unsafe_during_capture(api)?;
            count_within(api, count, max_count, "maxCount")?;
            let byte = value as u32 as u8;
            match self.dst_side(api, dst, count as u64)? {
                DSide::Device(a) => self
                    .backend
                    .memset(a, byte, count as u64)
                    .map_err(crate::AclError::from),
                DSide::Pinned(b, o) => {
                    locked(&b)[o..o + count].fill(byte);
                    Ok(())
                }
                DSide::Slice(s) => {
                    s[..count].fill(byte);
                    Ok(())
                }
            }
        })
    }

    /// `aclrtMemsetAsync(devPtr, maxCount, value, count, stream)`.
    ///
    /// Device memory is filled by a task in stream order. Host memory (page-locked from
    /// `aclrtMallocHost`, or any other host memory, passed as a slice) is filled on the host
    /// before the call returns, outside stream order, as CANN's runtime does once it finds the
    /// pointer is not device memory: a `maxCount` over 2^31 - 1 is then refused with 507000,
    /// the bound of that host fill (docs/validation/memory.md).
    pub fn memset_async<'a>(
        &self,
        dst: impl Into<MemDst<'a>>,
        max_count: usize,
        value: i32,
        count: usize,
        stream: RawStream,
    ) -> AclResult<()> {
        let dst = dst.into();
        self.call(|| {
            let api = "aclrtMemsetAsync";
            if count == 0 {
                return Ok(());
            }
            if matches!(dst, MemDst::Addr(a) if a.is_null()) {
                return Err(fail::acl_null(api, "devPtr"));
            }
            // The runtime's entry validates the stream handle before its checks of the
            // arguments.
            self.require_stream_handle(api, stream)?;
            count_within(api, count, max_count, "maxCount")?;
            let srec = self.task_stream(api, stream)?;
            let byte = value as u32 as u8;
            match self.dst_side(api, dst, count as u64)? {
                DSide::Device(a) => {
                    let task = Task::Memset {
                        addr: a,
                        value: byte,
                        len: count as u64,
                    };
                    self.launch(&srec, task)
                }
                DSide::Pinned(b, o) => {
                    host_fill_bound(api, max_count)?;
                    locked(&b)[o..o + count].fill(byte);
                    Ok(())
                }
                DSide::Slice(d) => {
                    host_fill_bound(api, max_count)?;
                    d[..count].fill(byte);
                    Ok(())
                }
            }
        })
    }
}
