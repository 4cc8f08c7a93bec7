//! Randomized differential sequences: reproducible random sequences of probe rows, so that the
//! library and the front end are compared not only on fixed rows from a known state but after
//! any mix of earlier calls (a stream destroyed or bound, a model ended, another device set,
//! a barrier id recorded, a descriptor written).
//!
//! Each row is one of the fixed rows (`rows_tasks`, `rows_support`), drawn at random, and
//! half the time one of its arguments is redrawn from a pool that hits the validation tables:
//! streams of every kind, models and events live, NULL or destroyed, CMO types and barrier ids
//! in and out of range, flags, priorities and timeouts at their bounds, another thread with no
//! context. What the raw side's soundness rests on is never redrawn: host pointers and the
//! byte counts that copies and fills touch stay those of a fixed row (module `raw`), and a
//! copy keeps its direction. Value waits keep comparing `GEQ` with the least signed value
//! (which holds whatever the memory holds) or use a flag no library accepts, so no accepted
//! wait can block; nothing frees the probe's buffers, destroys the
//! live model or unbinds its stream.
//!
//! The same seed gives the same sequence on every machine (an `XorShift` generator).
//!
//! ```
//! use ascend_conformance::probe::random_sequence;
//! assert_eq!(random_sequence(7, 50), random_sequence(7, 50));
//! assert_ne!(random_sequence(7, 50), random_sequence(8, 50));
//! ```

use ascend_rt::raw_types::cmo_type::{FLUSH, INVALID, PREFETCH, WRITEBACK};
use ascend_rt::raw_types::wait_flag;
use rand::{RngExt, SeedableRng};
use rand_xorshift::XorShiftRng;

use super::call::{Barrier, Call, Evt, Mdl, Ptr, Row, Strm, Thread};

const STREAMS: [Strm; 6] = [
    Strm::Null,
    Strm::Plain,
    Strm::Persistent,
    Strm::Bound,
    Strm::Destroyed,
    Strm::Garbage,
];
/// The four CMO types, the reserved one, one past it, and one that wraps when offset.
const CMO_TYPES: [u32; 7] = [PREFETCH, WRITEBACK, INVALID, FLUSH, 4, 5, u32::MAX];
/// Barrier ids: the valid range and beyond it.
const BARRIER_IDS: [u32; 9] = [0, 1, 2, 3, 4, 5, 6, 7, u32::MAX];
/// Sizes of device-only operations (CMOs): none of them touches host memory.
const CMO_SIZES: [usize; 7] = [0, 1, 63, 64, 256, 1 << 20, 1 << 32];
const TIMEOUTS: [i32; 6] = [-2, -1, 0, 1, 10, i32::MAX];
const PRIORITIES: [u32; 6] = [0, 1, 3, 7, 8, u32::MAX];
/// Stream configuration flags beyond every combination of the six ACL flags (drawn from
/// `0..=0x3F` otherwise): the first unknown bit, a high one, all.
const STREAM_FLAGS_BEYOND: [u32; 3] = [0x40, 0x8000, u32::MAX];
/// Event flags beyond every combination of the seven defined bits (drawn from `0..=0x7F`
/// otherwise).
const EVENT_FLAGS_BEYOND: [u32; 3] = [0x80, 0x8000_0000, u32::MAX];
const SMALL_FLAGS: [u32; 5] = [0, 1, 2, 3, u32::MAX];
/// Every kind of pointer: NULL, device memory, host memory page-locked, never registered and
/// registered.
const POINTERS: [Ptr; 6] = [
    Ptr::Null,
    Ptr::Dev,
    Ptr::Desc,
    Ptr::Pinned,
    Ptr::Pageable,
    Ptr::Registered,
];
/// Every kind of event: NULL, the default one, and one of each flag class.
const EVENTS: [Evt; 5] = [
    Evt::Null,
    Evt::Live,
    Evt::Sync,
    Evt::TimeLine,
    Evt::External,
];
/// The most bytes any host range of the probe can take (the page-locked one has 64).
const HOST_BYTES: usize = 64;
/// Device ids valid or invalid on every installation: how many devices exist is a fact of the
/// machine (the vendor runtime asks its driver), not of the runtime's rules, and a sequence
/// that switches to a device one side lacks would compare nothing after it.
const DEVICES: [i32; 4] = [-1, 0, 64, 1024];

fn pick<T: Copy>(rng: &mut XorShiftRng, pool: &[T]) -> T {
    pool[rng.random_range(0..pool.len())]
}

/// A flag: every combination of the bits below `all` (inclusive) most of the time, else one
/// of `beyond`.
fn flag_bits(rng: &mut XorShiftRng, all: u32, beyond: &[u32]) -> u32 {
    if rng.random_bool(0.8) {
        rng.random_range(0..=all)
    } else {
        pick(rng, beyond)
    }
}

/// Whether `p` is host memory: what a call may then touch is bounded by [`HOST_BYTES`].
fn is_host(p: Ptr) -> bool {
    matches!(p, Ptr::Pinned | Ptr::Pageable | Ptr::Registered)
}

/// `len` rows drawn from the fixed rows with seed `seed` (see the module documentation).
pub fn random_sequence(seed: u64, len: usize) -> Vec<String> {
    random_rows(seed, len)
        .iter()
        .map(|r| {
            let (api, args) = r.call.describe();
            format!("{api}({args}){}", thread_mark(r.thread))
        })
        .collect()
}

fn thread_mark(t: Thread) -> &'static str {
    match t {
        Thread::Main => "",
        Thread::Fresh => " [fresh thread]",
    }
}

/// The rows of [`random_sequence`].
pub(crate) fn random_rows(seed: u64, len: usize) -> Vec<Row> {
    let pool = super::rows();
    let mut rng = XorShiftRng::seed_from_u64(seed);
    (0..len)
        .map(|_| {
            let mut row = pool[rng.random_range(0..pool.len())].clone();
            if rng.random_bool(0.5) {
                redraw_one(&mut row.call, &mut rng);
            }
            if rng.random_bool(0.1) {
                row.thread = Thread::Fresh;
            }
            row
        })
        .collect()
}

/// Redraws one argument of `call` from its pool (never a host pointer, a byte count that a
/// copy or fill touches, or a copy's direction).
fn redraw_one(call: &mut Call, rng: &mut XorShiftRng) {
    use Call::*;
    let which = rng.random_range(0..3u32);
    let strm = |rng: &mut XorShiftRng| pick(rng, &STREAMS);
    match call {
        CmoAsync {
            src,
            size,
            cmo,
            stream,
        } => match which {
            0 => *stream = strm(rng),
            1 => *cmo = pick(rng, &CMO_TYPES),
            _ => {
                *src = pick(rng, &POINTERS);
                *size = pick(rng, &CMO_SIZES);
                if is_host(*src) {
                    *size = (*size).min(HOST_BYTES);
                }
            }
        },
        CmoAsyncWithBarrier {
            src,
            size,
            cmo,
            id,
            stream,
        } => match rng.random_range(0..4u32) {
            0 => *stream = strm(rng),
            1 => *cmo = pick(rng, &CMO_TYPES),
            2 => *id = pick(rng, &BARRIER_IDS),
            _ => {
                *src = pick(rng, &POINTERS);
                *size = (*size).min(HOST_BYTES);
            }
        },
        CmoWaitBarrier { info, stream, flag } => match which {
            0 => *stream = strm(rng),
            1 => *flag = pick(rng, &SMALL_FLAGS),
            _ => {
                let num = rng.random_range(0..=7usize);
                let entries = (0..num.min(6))
                    .map(|_| (pick(rng, &CMO_TYPES), pick(rng, &BARRIER_IDS)))
                    .collect();
                *info = Some(Barrier { num, entries });
            }
        },
        CmoAsyncWithDesc { cmo, stream, .. } => match which {
            0 => *stream = strm(rng),
            _ => *cmo = pick(rng, &CMO_TYPES),
        },
        ValueWrite {
            addr, flag, stream, ..
        } => match which {
            0 => *stream = strm(rng),
            1 => *flag = pick(rng, &SMALL_FLAGS),
            _ => *addr = pick(rng, &POINTERS),
        },
        ValueWait {
            addr, flag, stream, ..
        } => match which {
            0 => *stream = strm(rng),
            // GEQ with the least signed value holds at once; the others are flags no
            // library accepts.
            1 => *flag = pick(rng, &[wait_flag::GEQ, wait_flag::MAX, 5, u32::MAX]),
            _ => *addr = pick(rng, &POINTERS),
        },
        SetDevice { id } => *id = pick(rng, &DEVICES),
        // A copy keeps its count (at most the 64 bytes every range of the probe has) and its
        // direction; either end may be any kind of memory.
        Memcpy { dst, src, .. } => match which {
            0 => *dst = pick(rng, &POINTERS),
            _ => *src = pick(rng, &POINTERS),
        },
        MemcpyAsync {
            dst, src, stream, ..
        } => match which {
            0 => *stream = strm(rng),
            1 => *dst = pick(rng, &POINTERS),
            _ => *src = pick(rng, &POINTERS),
        },
        Memset { ptr, .. } => *ptr = pick(rng, &POINTERS),
        MemsetAsync { ptr, stream, .. } => match which {
            0 => *stream = strm(rng),
            _ => *ptr = pick(rng, &POINTERS),
        },
        CreateStreamWithConfig { priority, flag, .. } => match which {
            0 => *priority = pick(rng, &PRIORITIES),
            _ => *flag = flag_bits(rng, 0x3F, &STREAM_FLAGS_BEYOND),
        },
        CreateEventWithFlag { flag, .. } => *flag = flag_bits(rng, 0x7F, &EVENT_FLAGS_BEYOND),
        DestroyStream { stream } | SynchronizeStream { stream } => *stream = strm(rng),
        SynchronizeStreamWithTimeout { stream, timeout } => match which {
            0 => *stream = strm(rng),
            _ => *timeout = pick(rng, &TIMEOUTS),
        },
        StreamQuery { stream, .. } => *stream = strm(rng),
        RecordEvent { event, stream } | StreamWaitEvent { stream, event } => match which {
            0 => *stream = strm(rng),
            _ => *event = pick(rng, &EVENTS),
        },
        SynchronizeEvent { event } | QueryEventStatus { event, .. } | DestroyEvent { event } => {
            *event = pick(rng, &EVENTS)
        }
        SynchronizeEventWithTimeout { event, timeout } => match which {
            0 => *event = pick(rng, &EVENTS),
            _ => *timeout = pick(rng, &TIMEOUTS),
        },
        MdlBuildBegin { flag, .. } => *flag = pick(rng, &SMALL_FLAGS),
        MdlBindStream {
            model,
            stream,
            flag,
        } => match which {
            0 => *stream = strm(rng),
            1 => *model = pick(rng, &[Mdl::Null, Mdl::Live]),
            _ => *flag = pick(rng, &SMALL_FLAGS),
        },
        MdlEndTask { model, stream } | MdlExecuteAsync { model, stream } => match which {
            0 => *stream = strm(rng),
            _ => *model = pick(rng, &[Mdl::Null, Mdl::Live]),
        },
        // The live model is never destroyed nor its stream unbound: the vendor runtime with
        // its driver stubbed never returns from a task submitted to a stream whose model is
        // gone, so no comparison could follow (docs/validation/vendor-oracle.md).
        MdlUnbindStream { stream, .. } => *stream = strm(rng),
        MdlDestroy { .. } => {}
        MdlBuildEnd { model, .. } => *model = pick(rng, &[Mdl::Null, Mdl::Live]),
        MdlExecute { model, timeout } => match which {
            0 => *model = pick(rng, &[Mdl::Null, Mdl::Live]),
            _ => *timeout = pick(rng, &TIMEOUTS),
        },
        // Host pointers, counts and directions stay as the fixed row has them.
        CmoGetDescSize { .. }
        | CmoSetDesc { .. }
        | GetDevice { .. }
        | Malloc { .. }
        | Free { .. }
        | MallocHost { .. }
        | FreeHost { .. }
        | CreateStream { .. }
        | CreateEvent { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_redraws_arguments_yet_never_a_host_pointer_or_a_copied_count() {
        let fixed = super::super::rows();
        let rows = random_rows(1, 2000);
        let redrawn = rows.iter().filter(|r| !fixed.contains(r)).count();
        assert!(redrawn > 500, "{redrawn} rows redrawn of 2000");
        for r in &rows {
            match &r.call {
                Call::Memcpy { count, .. } | Call::MemcpyAsync { count, .. } => {
                    assert!(*count <= 64)
                }
                // One fixed row asks for 65 bytes against a maxCount of 64, on the 512-byte
                // pageable range: refused before any byte is touched.
                Call::Memset { count, .. } | Call::MemsetAsync { count, .. } => {
                    assert!(*count <= 65)
                }
                Call::Free { ptr } | Call::FreeHost { ptr } => assert_eq!(*ptr, Ptr::Null),
                Call::ValueWait { value, flag, .. } => {
                    assert_eq!(*value, crate::probe::rows_tasks::WAIT_ALWAYS_HOLDS);
                    assert!(*flag == wait_flag::GEQ || *flag >= wait_flag::MAX);
                }
                _ => {}
            }
        }
    }
}
