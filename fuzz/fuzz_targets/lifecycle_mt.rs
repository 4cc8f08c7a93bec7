//! Fuzz target: a script of create/destroy/free operations run by 3 or 4 threads at once over
//! one runtime (`Ascend910B1`, every thread on device 0), with the objects shared between the
//! threads, so double frees and destroys race each other and the creations.
//!
//! Checked: no panic; per handle or address, successful releases never outnumber successful
//! creations and at most one object is live under it; after the threads join, each object that
//! nobody released is released exactly once (and a second release fails), and a released one
//! cannot be released again; then the device window is whole (a fresh 512-byte allocation gets
//! the address the first one got).

#![no_main]

use std::collections::HashMap;
use std::sync::{Barrier, Mutex};

use ascend_rt::raw_types::*;
use ascend_rt::Runtime;
use libfuzzer_sys::fuzz_target;

/// Operations per thread at most: each input stays fast.
const MAX_OPS: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Kind {
    Model,
    Stream,
    Event,
    Notify,
    Host,
    Mem,
}

/// In the order the final release goes through them (models before their streams).
const KINDS: [Kind; 6] = [
    Kind::Model,
    Kind::Stream,
    Kind::Event,
    Kind::Notify,
    Kind::Host,
    Kind::Mem,
];

/// What the threads share: every object created (released ones stay, so that they are
/// released again) and, per (kind, value), the successful creations and releases.
#[derive(Default)]
struct Book {
    objects: Vec<(Kind, u64)>,
    ledger: HashMap<(Kind, u64), (u32, u32)>,
}

fn create(rt: &Runtime, kind: Kind, arg: u8) -> Option<u64> {
    let size = 32 * (arg as usize % 64 + 1);
    match kind {
        Kind::Mem => {
            let policy = [
                malloc_policy::NORMAL_ONLY,
                malloc_policy::HUGE_FIRST,
                malloc_policy::HUGE_ONLY,
            ][arg as usize % 3];
            let mut a = Addr::NULL;
            rt.malloc(Some(&mut a), size, policy).ok().map(|_| a.0)
        }
        Kind::Host => {
            let mut a = Addr::NULL;
            rt.malloc_host(Some(&mut a), size).ok().map(|_| a.0)
        }
        Kind::Stream => {
            let flag = if arg.is_multiple_of(4) {
                stream_flag::PERSISTENT
            } else {
                0
            };
            let mut s = RawStream::NULL;
            rt.create_stream_with_config(Some(&mut s), 0, flag)
                .ok()
                .map(|_| s.0)
        }
        Kind::Event => {
            let mut e = RawEvent(0);
            rt.create_event(Some(&mut e)).ok().map(|_| e.0)
        }
        Kind::Notify => {
            let mut n = RawNotify(0);
            rt.create_notify(Some(&mut n), notify_flag::DEFAULT)
                .ok()
                .map(|_| n.0)
        }
        Kind::Model => {
            let mut m = RawModel(0);
            rt.mdl_ri_build_begin(Some(&mut m), 0).ok().map(|_| m.0)
        }
    }
}

fn release(rt: &Runtime, kind: Kind, v: u64, arg: u8) -> bool {
    match kind {
        Kind::Mem => rt.free(Addr(v)),
        Kind::Host => rt.free_host(Addr(v)),
        Kind::Stream if arg.is_multiple_of(2) => rt.destroy_stream(RawStream(v)),
        Kind::Stream => rt.destroy_stream_force(RawStream(v)),
        Kind::Event => rt.destroy_event(RawEvent(v)),
        Kind::Notify => rt.destroy_notify(RawNotify(v)),
        Kind::Model => rt.mdl_ri_destroy(RawModel(v)),
    }
    .is_ok()
}

fn lock(book: &Mutex<Book>) -> std::sync::MutexGuard<'_, Book> {
    book.lock().unwrap_or_else(|p| p.into_inner())
}

/// The `arg`-th object of `kind` created so far (wrapping), if any.
fn pick(book: &Mutex<Book>, kind: Option<Kind>, arg: u8) -> Option<(Kind, u64)> {
    let b = lock(book);
    let n = b
        .objects
        .iter()
        .filter(|o| kind.is_none_or(|k| o.0 == k))
        .count();
    if n == 0 {
        return None;
    }
    b.objects
        .iter()
        .filter(|o| kind.is_none_or(|k| o.0 == k))
        .nth(arg as usize % n)
        .copied()
}

/// Releases `(kind, v)` as `as_kind` and books a success under `(as_kind, v)`.
fn release_booked(rt: &Runtime, book: &Mutex<Book>, as_kind: Kind, v: u64, arg: u8) {
    if release(rt, as_kind, v, arg) {
        lock(book).ledger.entry((as_kind, v)).or_default().1 += 1;
    }
}

fn step(rt: &Runtime, book: &Mutex<Book>, op: u8, arg: u8) {
    match op % 16 {
        k @ 0..=5 => {
            let kind = KINDS[k as usize];
            if let Some(v) = create(rt, kind, arg) {
                let mut b = lock(book);
                b.objects.push((kind, v));
                b.ledger.entry((kind, v)).or_default().0 += 1;
            }
        }
        k @ 6..=11 => {
            if let Some((kind, v)) = pick(book, Some(KINDS[k as usize - 6]), arg) {
                release_booked(rt, book, kind, v, arg / 64);
            }
        }
        12 => {
            // Released as another kind: never a success (booked under that kind, which has
            // no creation under this value).
            if let Some((kind, v)) = pick(book, None, arg) {
                let other = KINDS[(arg as usize / 6 + 1) % KINDS.len()];
                if other != kind {
                    release_booked(rt, book, other, v, arg);
                }
            }
        }
        13 => {
            // Binds a stream to a model (destroys then race with the binding).
            let m = pick(book, Some(Kind::Model), arg);
            let s = pick(book, Some(Kind::Stream), arg / 16);
            if let (Some((_, m)), Some((_, s))) = (m, s) {
                let _ = rt.mdl_ri_bind_stream(RawModel(m), RawStream(s), 0);
            }
        }
        14 => {
            // Uses memory another thread may be freeing: an error or a success, no crash.
            if let Some((_, a)) = pick(book, Some(Kind::Mem), arg) {
                let _ = rt.memset(Addr(a), 32, arg as i32, 32);
                let mut out = [0u8; 32];
                let src = ascend_rt::MemSrc::Addr(Addr(a));
                let dst = ascend_rt::MemDst::Host(&mut out);
                let _ = rt.memcpy(dst, 32, src, 32, memcpy_kind::DEVICE_TO_HOST);
            }
        }
        _ => {
            // The same object released twice in a row.
            if let Some((kind, v)) = pick(book, None, arg) {
                release_booked(rt, book, kind, v, arg);
                release_booked(rt, book, kind, v, arg);
            }
        }
    }
}

fn run(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let threads = 3 + first as usize % 2;
    let mut scripts: Vec<Vec<(u8, u8)>> = vec![Vec::new(); threads];
    for op in rest.chunks_exact(3) {
        let script = &mut scripts[op[0] as usize % threads];
        if script.len() < MAX_OPS {
            script.push((op[1], op[2]));
        }
    }

    let rt = Runtime::sim("Ascend910B1").expect("builtin chip");
    rt.set_device(0).expect("device 0");
    let mut a = Addr::NULL;
    rt.malloc(Some(&mut a), 512, malloc_policy::NORMAL_ONLY)
        .expect("first allocation");
    let first_512 = a.0;
    rt.free(a).expect("free of the first allocation");

    let book = Mutex::new(Book::default());
    let start = Barrier::new(threads);
    std::thread::scope(|sc| {
        for script in &scripts {
            let (rt, book, start) = (&rt, &book, &start);
            sc.spawn(move || {
                rt.set_device(0).expect("device 0 on a worker thread");
                start.wait();
                for &(op, arg) in script {
                    step(rt, book, op, arg);
                }
            });
        }
    });

    let book = book.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut live = Vec::new();
    for (&(kind, v), &(created, released)) in &book.ledger {
        assert!(
            released <= created,
            "{kind:?} {v:#x}: released {released} times, created {created}"
        );
        assert!(
            created - released <= 1,
            "{kind:?} {v:#x}: created {created} times, released {released}: live twice"
        );
        if created == released {
            // Nobody can release it again (before anything else is released).
            assert!(
                !release(&rt, kind, v, 0),
                "{kind:?} {v:#x}: released again after {released} releases"
            );
        } else {
            live.push((kind, v));
        }
    }
    live.sort_by_key(|&(kind, _)| KINDS.iter().position(|&k| k == kind));
    for &(kind, v) in &live {
        assert!(
            release(&rt, kind, v, 0),
            "{kind:?} {v:#x}: live, but could not be released"
        );
        assert!(!release(&rt, kind, v, 1), "{kind:?} {v:#x}: released twice");
    }

    // Everything is released: the device window is whole again.
    let mut a = Addr::NULL;
    rt.malloc(Some(&mut a), 512, malloc_policy::NORMAL_ONLY)
        .expect("allocation after the release");
    assert_eq!(
        a.0, first_512,
        "the first 512-byte allocation after everything was released"
    );
    rt.free(a).expect("free of the last allocation");
    let _ = rt.reset_device_force(0);
}

fuzz_target!(|data: &[u8]| run(data));
