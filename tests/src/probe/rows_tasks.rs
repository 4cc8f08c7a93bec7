//! The rows of the eight target APIs (docs/validation/cmo.md, value-write-wait.md and the edge
//! matrix, edge-matrix.md): the first rows of each validation table, every edge-matrix input,
//! a valid call on each kind of stream, destroyed and garbage stream handles, and the calls on
//! a fresh thread with no current context.
//!
//! The rows run in this order on both sides, so state they change (a barrier id recorded by a
//! successful `aclrtCmoAsyncWithBarrier`, a descriptor written by `aclrtCmoSetDesc`) is the
//! same on both when a later row depends on it. Every accepted task is harmless on a real
//! device: it touches only the zeroed device buffer, and value waits compare `GEQ 0`, which
//! holds at once.

use ascend_rt::raw_types::cmo_type::{FLUSH, INVALID, PREFETCH, WRITEBACK};
use ascend_rt::raw_types::wait_flag;

use super::call::{fresh, main, Barrier, Call::*, Ptr, Row, Strm};

/// cmoType 4: opcode 10, `RT_CMO_RESERVED`.
const CMO_RESERVED: u32 = 4;
/// cmoType 0xFFFFFFFF: opcode 5 after the unchecked `+ 6`.
const CMO_WRAPS: u32 = u32::MAX;

/// A barrier task info with `num` and the given entries.
fn barrier(num: usize, entries: &[(u32, u32)]) -> Option<Barrier> {
    Some(Barrier {
        num,
        entries: entries.to_vec(),
    })
}

/// `aclrtCmoAsync` (docs/validation/cmo.md).
fn cmo_async() -> Vec<Row> {
    let c = |src, size, cmo, stream| CmoAsync {
        src,
        size,
        cmo,
        stream,
    };
    vec![
        main(c(Ptr::Null, 64, PREFETCH, Strm::Plain)),
        main(c(Ptr::Dev, 0, PREFETCH, Strm::Plain)),
        main(c(Ptr::Null, 0, CMO_RESERVED, Strm::Destroyed)),
        main(c(Ptr::Dev, 64, CMO_RESERVED, Strm::Plain)),
        main(c(Ptr::Dev, 64, CMO_WRAPS, Strm::Plain)),
        main(c(Ptr::Dev, 64, PREFETCH, Strm::Bound)),
        main(c(Ptr::Dev, 64, PREFETCH, Strm::Destroyed)),
        main(c(Ptr::Dev, 64, PREFETCH, Strm::Garbage)),
        main(c(Ptr::Dev, 64, PREFETCH, Strm::Plain)),
        main(c(Ptr::Dev, 64, WRITEBACK, Strm::Null)),
        main(c(Ptr::Dev, 64, FLUSH, Strm::Persistent)),
        fresh(c(Ptr::Dev, 64, PREFETCH, Strm::Null)),
        fresh(c(Ptr::Dev, 64, PREFETCH, Strm::Plain)),
    ]
}

/// `aclrtCmoAsyncWithBarrier` (docs/validation/cmo.md).
fn cmo_async_with_barrier() -> Vec<Row> {
    let c = |src, size, cmo, id, stream| CmoAsyncWithBarrier {
        src,
        size,
        cmo,
        id,
        stream,
    };
    vec![
        main(c(Ptr::Null, 64, INVALID, 1, Strm::Bound)),
        main(c(Ptr::Null, 0, CMO_RESERVED, 0, Strm::Destroyed)),
        main(c(Ptr::Dev, 0, INVALID, 1, Strm::Bound)),
        main(c(Ptr::Dev, 64, CMO_RESERVED, 0, Strm::Bound)),
        main(c(Ptr::Dev, 64, CMO_WRAPS, 0, Strm::Bound)),
        main(c(Ptr::Dev, 64, INVALID, 0, Strm::Bound)),
        main(c(Ptr::Dev, 64, PREFETCH, 1, Strm::Bound)),
        main(c(Ptr::Dev, 64, INVALID, 1, Strm::Plain)),
        main(c(Ptr::Dev, 64, INVALID, 1, Strm::Null)),
        main(c(Ptr::Dev, 64, INVALID, 1, Strm::Destroyed)),
        main(c(Ptr::Dev, 64, INVALID, 1, Strm::Garbage)),
        main(c(Ptr::Dev, 64, INVALID, 1, Strm::Bound)),
        main(c(Ptr::Dev, 64, PREFETCH, 0, Strm::Bound)),
        fresh(c(Ptr::Dev, 64, INVALID, 1, Strm::Null)),
    ]
}

/// `aclrtCmoWaitBarrier` (docs/validation/cmo.md); barrier id 1 was recorded above where the
/// chip allows it.
fn cmo_wait_barrier() -> Vec<Row> {
    let c = |info, stream, flag| CmoWaitBarrier { info, stream, flag };
    let one = || barrier(1, &[(INVALID, 1)]);
    vec![
        main(c(None, Strm::Bound, 0)),
        main(c(barrier(0, &[]), Strm::Bound, 0)),
        main(c(barrier(7, &[(INVALID, 1)]), Strm::Bound, 0)),
        main(c(barrier(1, &[(PREFETCH, 1)]), Strm::Bound, 0)),
        main(c(barrier(1, &[(INVALID, 0)]), Strm::Bound, 0)),
        main(c(barrier(2, &[(INVALID, 1), (FLUSH, 2)]), Strm::Bound, 0)),
        main(c(barrier(1, &[(CMO_WRAPS, 1)]), Strm::Destroyed, 0)),
        main(c(one(), Strm::Plain, 0)),
        main(c(one(), Strm::Null, 0)),
        main(c(one(), Strm::Destroyed, 0)),
        main(c(one(), Strm::Garbage, 0)),
        main(c(barrier(1, &[(INVALID, 5)]), Strm::Bound, 0)),
        main(c(one(), Strm::Bound, 0)),
        main(c(one(), Strm::Bound, 1)),
        main(c(one(), Strm::Plain, 0xFFFF_FFFF)),
        fresh(c(one(), Strm::Null, 0)),
    ]
}

/// `aclrtCmoGetDescSize`, `aclrtCmoSetDesc`, `aclrtCmoAsyncWithDesc` (docs/validation/cmo.md).
fn descriptors() -> Vec<Row> {
    let set = |desc, src, size| CmoSetDesc { desc, src, size };
    let run = |desc, cmo, stream, reserve| CmoAsyncWithDesc {
        desc,
        cmo,
        stream,
        reserve,
    };
    vec![
        main(CmoGetDescSize { out: false }),
        main(CmoGetDescSize { out: true }),
        fresh(CmoGetDescSize { out: true }),
        main(set(Ptr::Null, Ptr::Dev, 64)),
        main(set(Ptr::Desc, Ptr::Null, 64)),
        main(set(Ptr::Desc, Ptr::Dev, 0)),
        main(set(Ptr::Null, Ptr::Null, 0)),
        main(set(Ptr::Desc, Ptr::Dev, 64)),
        fresh(set(Ptr::Desc, Ptr::Dev, 64)),
        main(run(Ptr::Desc, PREFETCH, Strm::Bound, Ptr::Dev)),
        main(run(Ptr::Null, CMO_RESERVED, Strm::Destroyed, Ptr::Pageable)),
        main(run(Ptr::Null, PREFETCH, Strm::Bound, Ptr::Null)),
        main(run(Ptr::Desc, CMO_RESERVED, Strm::Bound, Ptr::Null)),
        main(run(Ptr::Desc, CMO_WRAPS, Strm::Bound, Ptr::Null)),
        main(run(Ptr::Null, PREFETCH, Strm::Destroyed, Ptr::Null)),
        main(run(Ptr::Desc, PREFETCH, Strm::Plain, Ptr::Null)),
        main(run(Ptr::Desc, PREFETCH, Strm::Null, Ptr::Null)),
        main(run(Ptr::Desc, PREFETCH, Strm::Destroyed, Ptr::Null)),
        main(run(Ptr::Desc, PREFETCH, Strm::Garbage, Ptr::Null)),
        main(run(Ptr::Desc, PREFETCH, Strm::Bound, Ptr::Null)),
        main(run(Ptr::Desc, FLUSH, Strm::Bound, Ptr::Null)),
        fresh(run(Ptr::Desc, PREFETCH, Strm::Null, Ptr::Null)),
        fresh(run(Ptr::Desc, PREFETCH, Strm::Bound, Ptr::Null)),
    ]
}

/// The value every probe wait compares with: the least signed 64-bit value, so that `GEQ`
/// holds whatever the memory holds (the scheduler's compare is signed,
/// docs/validation/value-write-wait.md). With 0, a word the device never wrote, or one a fill
/// of 0xFF bytes wrote, is negative, and the wait (and every later synchronize) never ends.
pub(crate) const WAIT_ALWAYS_HOLDS: u64 = i64::MIN as u64;

/// `aclrtValueWrite` and `aclrtValueWait` (docs/validation/value-write-wait.md).
fn value() -> Vec<Row> {
    let w = |addr, flag, stream| ValueWrite {
        addr,
        value: 1,
        flag,
        stream,
    };
    let v = |addr, flag, stream| ValueWait {
        addr,
        value: WAIT_ALWAYS_HOLDS,
        flag,
        stream,
    };
    vec![
        main(w(Ptr::Null, 0, Strm::Plain)),
        main(w(Ptr::Null, 1, Strm::Destroyed)),
        main(w(Ptr::Dev, 1, Strm::Plain)),
        main(w(Ptr::Dev, 1, Strm::Destroyed)),
        main(w(Ptr::Pageable, 0, Strm::Plain)),
        main(w(Ptr::Pinned, 0, Strm::Plain)),
        main(w(Ptr::Dev, 0, Strm::Destroyed)),
        main(w(Ptr::Dev, 0, Strm::Garbage)),
        main(w(Ptr::Dev, 0, Strm::Plain)),
        main(w(Ptr::Dev, 0, Strm::Null)),
        main(w(Ptr::Dev, 0, Strm::Bound)),
        fresh(w(Ptr::Dev, 0, Strm::Null)),
        fresh(w(Ptr::Dev, 0, Strm::Plain)),
        main(v(Ptr::Null, wait_flag::GEQ, Strm::Plain)),
        main(v(Ptr::Dev, wait_flag::MAX, Strm::Plain)),
        main(v(Ptr::Dev, u32::MAX, Strm::Plain)),
        main(v(Ptr::Dev, wait_flag::MAX, Strm::Destroyed)),
        main(v(Ptr::Pageable, wait_flag::GEQ, Strm::Plain)),
        main(v(Ptr::Pinned, wait_flag::GEQ, Strm::Null)),
        main(v(Ptr::Dev, wait_flag::GEQ, Strm::Destroyed)),
        main(v(Ptr::Dev, wait_flag::GEQ, Strm::Garbage)),
        main(v(Ptr::Dev, wait_flag::GEQ, Strm::Plain)),
        main(v(Ptr::Dev, wait_flag::GEQ, Strm::Null)),
        main(v(Ptr::Dev, wait_flag::GEQ, Strm::Bound)),
        fresh(v(Ptr::Dev, wait_flag::GEQ, Strm::Null)),
    ]
}

/// Every row of the eight target APIs, in order.
pub(crate) fn rows() -> Vec<Row> {
    [
        cmo_async(),
        cmo_async_with_barrier(),
        cmo_wait_barrier(),
        descriptors(),
        value(),
    ]
    .concat()
}
