//! Kernel blocks' coroutines whose stack overflow ends the coroutine, not the process.
//!
//! The simulator runs each kernel block as a stackful coroutine (`corosensei`) on a [`Stack`]
//! of `SimConfig::kernel_stack_bytes`, below which lies a guard region of [`GUARD_BYTES`]
//! that is never mapped (address space only, so that a frame larger than a page does not
//! jump over it). A body that recurses too deep touches the guard region, and the kernel
//! delivers `SIGSEGV` (or `SIGBUS`). Without this crate that signal kills the process. With
//! it:
//!
//! - [`prepare_thread`] installs, once per process, a handler for both signals, and gives the
//!   calling thread an alternate signal stack (the handler cannot run on the overflowed one);
//! - [`Guarded::resume`] marks the coroutine as the one running on this thread while it runs;
//! - the handler checks that the fault is a fault (not a signal sent by a program), that the
//!   stack pointer lies inside that coroutine's stack and that the faulting address lies in
//!   its guard region. Then it hands control back through corosensei's trap hand-off: the
//!   coroutine's `resume` returns [`Resumed::StackOverflow`]. Any other fault goes to the
//!   handler that was installed before (Rust's own, or the default action), exactly as
//!   without this crate.
//!
//! Why this is sound for a safe body: the overflowed body's frames are abandoned, never
//! resumed and never unwound; their stack is leaked, never unmapped or reused (a [`Guarded`]
//! that overflowed leaks its stack when dropped), so a borrow of it held elsewhere stays
//! valid memory. The hand-off writes a few words at the top of the stack; [`Guarded::new`]
//! reserves the top [`RESERVED_TOP`] bytes for its own frame, so no frame of the body lies
//! there.
//!
//! Where abandoning the frames would leave shared state broken, the overflow instead ends the
//! process, with a message on standard error saying why (the fault then takes its default
//! action): when the overflow happens inside the C library, the dynamic loader, the C++
//! runtime or the unwinder (a `malloc`, a `printf`, an exception: they hold locks that every
//! thread shares), or while the thread is panicking (Rust's panic count would stay raised,
//! and the thread's next panic would abort). A lock the body's own code (or Rust's standard
//! library, such as `stdout`'s) holds at the overflow stays held: keep printing and locking
//! out of deep recursion in kernels.
//!
//! On targets other than Linux on x86-64 or AArch64, [`prepare_thread`] does nothing and an
//! overflow ends the process as before.

use std::cell::Cell;
use std::rc::Rc;

use corosensei::trap::CoroutineTrapHandler;
use corosensei::{Coroutine, CoroutineResult, Yielder};

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod linux;
mod stack;

pub use stack::{Stack, GUARD_BYTES};

/// Bytes at the top of a guarded coroutine's stack that hold only this crate's own frame, so
/// that the trap hand-off, which writes there, overwrites no frame of the body.
pub const RESERVED_TOP: usize = 4096;

/// How a guarded coroutine's run ended, as corosensei returns it (a `Copy` type: the trap
/// hand-off is kept where a signal handler can read it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The body returned.
    Finished,
    /// The body overflowed its stack; its frames were abandoned.
    StackOverflow,
}

/// What [`Guarded::resume`] ran into.
#[derive(Debug)]
pub enum Resumed<Y> {
    /// The body suspended with this value.
    Yield(Y),
    /// The body returned this value; the coroutine is done.
    Return(Y),
    /// The body overflowed its stack: its frames are abandoned and the coroutine is done; its
    /// stack is never given back (see [`Guarded::into_stack`]).
    StackOverflow,
}

/// The coroutine running on this thread, as the signal handler reads it: its trap handler,
/// its guard region (`[start, end)`) and the bytes of its stack.
#[derive(Clone, Copy)]
struct Running {
    trap: CoroutineTrapHandler<Ending>,
    guard: (usize, usize),
    bytes: usize,
}

thread_local! {
    /// The guarded coroutine this thread runs now, if any. A `const`-initialised `Cell` of a
    /// `Copy` type: reading it needs no lazy initialisation, so a signal handler may.
    static RUNNING: Cell<Option<Running>> = const { Cell::new(None) };
}

/// Prepares the calling thread to run guarded coroutines: installs the process's fault
/// handler (once) and gives this thread an alternate signal stack if it has none. Cheap to
/// call again. `fatal_hint` (the first call's) ends the message of an overflow that has to
/// end the process (for example how to ask for a larger stack). Does nothing on targets
/// without support.
#[cfg_attr(
    not(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )),
    allow(unused_variables)
)]
pub fn prepare_thread(fatal_hint: &'static str) {
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    linux::prepare_thread(fatal_hint);
}

/// True where a stack overflow in a guarded coroutine becomes [`Ending::StackOverflow`].
pub const SUPPORTED: bool = cfg!(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
));

/// A coroutine on a [`Stack`] whose stack overflow ends it with [`Resumed::StackOverflow`]
/// (after [`prepare_thread`] on the thread that resumes it).
///
/// ```
/// use ascend_sim_stack_guard::{prepare_thread, Guarded, Resumed, Stack};
///
/// prepare_thread("");
/// let mut co = Guarded::new(Stack::new(64 * 1024).unwrap(), |y, first: u32| {
///     let again = y.suspend(first + 1);
///     again * 10
/// });
/// assert!(matches!(co.resume(1), Resumed::Yield(2)));
/// assert!(matches!(co.resume(5), Resumed::Return(50)));
/// ```
pub struct Guarded<I, Y> {
    /// `None` only once [`Guarded::into_stack`] took it.
    co: Option<Coroutine<I, Y, Ending, Stack>>,
    guard: (usize, usize),
    bytes: usize,
    last: Rc<Cell<Option<Y>>>,
    overflowed: bool,
}

impl<I: 'static, Y: 'static> Guarded<I, Y> {
    /// A coroutine running `body` on `stack`, from its first [`Guarded::resume`]; the body's
    /// result is its last value.
    pub fn new(stack: Stack, body: impl FnOnce(&Yielder<I, Y>, I) -> Y + 'static) -> Guarded<I, Y> {
        let guard = stack.guard_region();
        let bytes = stack.usable_bytes();
        let last = Rc::new(Cell::new(None));
        let slot = last.clone();
        let co = Coroutine::with_stack(stack, move |y: &Yielder<I, Y>, input: I| {
            let reserved = [0u8; RESERVED_TOP];
            std::hint::black_box(&reserved);
            slot.set(Some(body(y, input)));
            std::hint::black_box(&reserved);
            Ending::Finished
        });
        Guarded {
            co: Some(co),
            guard,
            bytes,
            last,
            overflowed: false,
        }
    }

    /// Resumes the coroutine with `input` until it yields or ends; a stack overflow on the
    /// way ends it with [`Resumed::StackOverflow`]. A panic that escapes the body unwinds out
    /// of this call. Resuming a coroutine that ended is corosensei's panic.
    pub fn resume(&mut self, input: I) -> Resumed<Y> {
        let Some(co) = self.co.as_mut() else {
            return Resumed::StackOverflow;
        };
        let me = Running {
            trap: co.trap_handler(),
            guard: self.guard,
            bytes: self.bytes,
        };
        let outer = RUNNING.with(|r| r.replace(Some(me)));
        // Restores the outer coroutine (if any) on the way out, unwinding included.
        struct Restore(Option<Running>);
        impl Drop for Restore {
            fn drop(&mut self) {
                RUNNING.with(|r| r.set(self.0));
            }
        }
        let restore = Restore(outer);
        let r = co.resume(input);
        drop(restore);
        match r {
            CoroutineResult::Yield(y) => Resumed::Yield(y),
            CoroutineResult::Return(Ending::Finished) => match self.last.take() {
                Some(y) => Resumed::Return(y),
                None => {
                    self.overflowed = true;
                    Resumed::StackOverflow
                }
            },
            CoroutineResult::Return(Ending::StackOverflow) => {
                self.overflowed = true;
                Resumed::StackOverflow
            }
        }
    }

    /// True once the body ended.
    pub fn done(&self) -> bool {
        self.co.as_ref().is_none_or(Coroutine::done)
    }

    /// The stack back, for another coroutine, once the body returned; `None` after a stack
    /// overflow (the stack is leaked: borrows of its abandoned frames may outlive them). Panics
    /// while the body is suspended (see `corosensei::Coroutine::into_stack`).
    pub fn into_stack(mut self) -> Option<Stack> {
        if self.overflowed {
            return None;
        }
        self.co.take().map(Coroutine::into_stack)
    }
}

impl<I, Y> Drop for Guarded<I, Y> {
    fn drop(&mut self) {
        if self.overflowed {
            // Leaked, never unmapped: see `into_stack`.
            if let Some(co) = self.co.take() {
                std::mem::forget(co);
            }
        }
    }
}

/// The size of a memory page.
fn page_size() -> usize {
    static PAGE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let cached = PAGE.load(std::sync::atomic::Ordering::Relaxed);
    if cached != 0 {
        return cached;
    }
    // SAFETY: sysconf only reads a system parameter.
    let queried = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    let size = usize::try_from(queried)
        .ok()
        .filter(|s| s.is_power_of_two())
        .unwrap_or(4096);
    PAGE.store(size, std::sync::atomic::Ordering::Relaxed);
    size
}

/// The coroutine this thread runs now, for the signal handler.
#[cfg_attr(
    not(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )),
    allow(dead_code)
)]
fn running() -> Option<Running> {
    RUNNING.try_with(Cell::get).ok().flatten()
}
