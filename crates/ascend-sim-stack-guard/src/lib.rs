//! Kernel blocks' coroutines whose stack overflow ends the coroutine, not the process.
//!
//! The simulator runs each kernel block as a stackful coroutine (`corosensei`) on a stack of
//! `SimConfig::kernel_stack_bytes`, below which lies a guard page. A body that recurses too
//! deep touches the guard page, and the kernel delivers `SIGSEGV` (or `SIGBUS`). Without this
//! crate that signal kills the process. With it:
//!
//! - [`prepare_thread`] installs, once per process, a handler for both signals, and gives the
//!   calling thread an alternate signal stack (the handler cannot run on the overflowed one);
//! - [`Guarded::resume`] marks the coroutine as the one running on this thread while it runs;
//! - the handler checks that the stack pointer lies inside that coroutine's stack and that the
//!   faulting address lies in its guard page. Then it hands control back through corosensei's
//!   trap hand-off: the coroutine's `resume` returns [`Resumed::StackOverflow`]. Any
//!   other fault goes to the handler that was installed before (Rust's own, or the default
//!   action), exactly as without this crate.
//!
//! Why this is sound for a safe body: the overflowed body's frames are abandoned, never
//! resumed and never unwound, as those of a thread blocked for ever; their stack is leaked,
//! never unmapped or reused, so a borrow of it held elsewhere stays valid memory. The
//! hand-off writes a few words at the top of the stack; [`Guarded::new`] reserves the top
//! [`RESERVED_TOP`] bytes for its own frame, so no frame of the body lies there. The limits: a
//! lock taken by an abandoned frame stays taken (a body that overflows inside `malloc` leaves
//! the allocator's lock held on that thread), as it would by a thread blocked for ever.
//!
//! On targets other than Linux on x86-64 or AArch64, [`prepare_thread`] does nothing and an
//! overflow ends the process as before.

use std::cell::Cell;
use std::rc::Rc;

use corosensei::stack::{DefaultStack, Stack as _};
use corosensei::trap::CoroutineTrapHandler;
use corosensei::{Coroutine, CoroutineResult, Yielder};

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod linux;

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
    /// The body overflowed its stack: its frames are abandoned and the coroutine is done.
    /// Leak it (`std::mem::forget`): see [`Guarded::into_stack`].
    StackOverflow,
}

/// The coroutine running on this thread, as the signal handler reads it: its trap handler and
/// its guard page (`[start, end)`).
#[derive(Clone, Copy)]
struct Running {
    trap: CoroutineTrapHandler<Ending>,
    guard: (usize, usize),
}

thread_local! {
    /// The guarded coroutine this thread runs now, if any. A `const`-initialised `Cell` of a
    /// `Copy` type: reading it needs no lazy initialisation, so a signal handler may.
    static RUNNING: Cell<Option<Running>> = const { Cell::new(None) };
}

/// Prepares the calling thread to run guarded coroutines: installs the process's fault
/// handler (once) and gives this thread an alternate signal stack if it has none. Cheap to
/// call again. Does nothing on targets without support.
pub fn prepare_thread() {
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    linux::prepare_thread();
}

/// True where a stack overflow in a guarded coroutine becomes [`Ending::StackOverflow`].
pub const SUPPORTED: bool = cfg!(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
));

/// A coroutine on a [`DefaultStack`] whose stack overflow ends it with
/// [`Resumed::StackOverflow`] (after [`prepare_thread`] on the thread that resumes it).
///
/// ```
/// use ascend_sim_stack_guard::{prepare_thread, Guarded, Resumed};
/// use corosensei::stack::DefaultStack;
///
/// prepare_thread();
/// let mut co = Guarded::new(DefaultStack::new(64 * 1024).unwrap(), |y, first: u32| {
///     let again = y.suspend(first + 1);
///     again * 10
/// });
/// assert!(matches!(co.resume(1), Resumed::Yield(2)));
/// assert!(matches!(co.resume(5), Resumed::Return(50)));
/// ```
pub struct Guarded<I, Y> {
    co: Coroutine<I, Y, Ending, DefaultStack>,
    guard: (usize, usize),
    last: Rc<Cell<Option<Y>>>,
}

impl<I: 'static, Y: 'static> Guarded<I, Y> {
    /// A coroutine running `body` on `stack`, from its first [`Guarded::resume`]; the body's
    /// result is its last value.
    pub fn new(
        stack: DefaultStack,
        body: impl FnOnce(&Yielder<I, Y>, I) -> Y + 'static,
    ) -> Guarded<I, Y> {
        // DefaultStack's limit includes its one guard page, the lowest page of the mapping.
        let start = stack.limit().get();
        let guard = (start, start + page_size());
        let last = Rc::new(Cell::new(None));
        let slot = last.clone();
        let co = Coroutine::with_stack(stack, move |y: &Yielder<I, Y>, input: I| {
            let reserved = [0u8; RESERVED_TOP];
            std::hint::black_box(&reserved);
            slot.set(Some(body(y, input)));
            std::hint::black_box(&reserved);
            Ending::Finished
        });
        Guarded { co, guard, last }
    }

    /// Resumes the coroutine with `input` until it yields or ends; a stack overflow on the
    /// way ends it with [`Resumed::StackOverflow`]. A panic that escapes the body unwinds out
    /// of this call.
    pub fn resume(&mut self, input: I) -> Resumed<Y> {
        let me = Running {
            trap: self.co.trap_handler(),
            guard: self.guard,
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
        let r = self.co.resume(input);
        drop(restore);
        match r {
            CoroutineResult::Yield(y) => Resumed::Yield(y),
            CoroutineResult::Return(Ending::Finished) => match self.last.take() {
                Some(y) => Resumed::Return(y),
                None => Resumed::StackOverflow,
            },
            CoroutineResult::Return(Ending::StackOverflow) => Resumed::StackOverflow,
        }
    }

    /// True once the body ended.
    pub fn done(&self) -> bool {
        self.co.done()
    }

    /// The stack back, for another coroutine. Panics unless the body ended (see
    /// `corosensei::Coroutine::into_stack`). Never call it after [`Resumed::StackOverflow`]:
    /// an overflowed stack must be leaked (`std::mem::forget` the coroutine), since borrows of
    /// its abandoned frames may outlive it.
    pub fn into_stack(self) -> DefaultStack {
        self.co.into_stack()
    }
}

/// The size of a memory page.
fn page_size() -> usize {
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    {
        linux::page_size()
    }
    #[cfg(not(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )))]
    {
        4096
    }
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
