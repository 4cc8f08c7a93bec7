//! The running blocks of kernels, each a stackful coroutine (`corosensei`) on the simulator's
//! core thread (`crate::core_thread`). A block's body runs until it asks for an operation
//! ([`Request`]), where it suspends; the engine executes the operation at its simulated time
//! and resumes the block with the answer ([`Reply`]). So the kernel code runs only between
//! two of the engine's steps, a program gives the same timeline on every run, and a kernel
//! operation costs two stack switches: no thread, channel, allocation or system call.
//!
//! Why a coroutine never leaves the core thread: a coroutine is not `Send` (its stack may hold
//! references into the thread's locals, or guards that must be released where they were
//! taken), so every block of a simulator is created, resumed and ended on that one thread.
//! Host threads that need a kernel step hand the engine's stepping to it.
//!
//! A block told to stop (its kernel faulted or was cancelled) unwinds from its pending
//! operation ([`BlockStopped`]) and its body's frames are dropped. Where frames must not be
//! unwound (a C kernel's), the operation's caller calls [`ascend_types::KernelOps::abandon`]
//! instead: the block suspends for good and its stack is forgotten, never resumed.
//!
//! A body that overflows its stack touches the stack's guard page; `ascend-sim-stack-guard`
//! (prepared on the core thread) turns that fault into the block's end
//! ([`Request::StackOverflow`]): its frames are abandoned and its stack is leaked, and the
//! process goes on.

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use ascend_sim_stack_guard::{Guarded, Resumed, Stack};
use ascend_types::{DevAddr, Kernel, KernelOps};
use corosensei::Yielder;

/// What a block asks the engine to do.
#[derive(Debug)]
pub enum Request {
    /// A scalar load through the data cache.
    Load { addr: DevAddr, bytes: u32 },
    /// A scalar store through the data cache.
    Store {
        addr: DevAddr,
        bytes: u32,
        value: u64,
    },
    /// Clean and invalidate one line or the whole data cache.
    Dcci {
        addr: DevAddr,
        entire: bool,
        kind: u64,
    },
    /// Invalidate the whole data cache.
    Dci,
    /// Copy global memory into a local buffer of `len` bytes.
    GmToLocal { gm: DevAddr, len: u64 },
    /// Copy a local buffer into global memory.
    LocalToGm { gm: DevAddr, data: Vec<u8> },
    /// Spend cycles.
    Spin { cycles: u64 },
    /// The body executed a trap: the block ends with this fault.
    Trap(String),
    /// The body returned.
    Done,
    /// The body panicked, with this message.
    Panicked(String),
    /// The block was told to stop where its frames may not unwind: it never runs again.
    Abandoned,
    /// The body overflowed its stack: its frames are abandoned and it never runs again.
    StackOverflow,
}

/// The engine's answer to a [`Request`].
#[derive(Debug)]
pub enum Reply {
    /// Go on (the first resume, and operations without a result).
    Go,
    /// A loaded value.
    Value(u64),
    /// Bytes copied into the local buffer.
    Data(Vec<u8>),
    /// Stop: the block ends here (a fault, or its kernel was cancelled).
    Stop,
}

thread_local! {
    /// True while a kernel block runs on this thread: its body must not call back into the
    /// simulator, which is busy running it (see [`in_kernel`]).
    static IN_KERNEL: Cell<bool> = const { Cell::new(false) };
}

/// True when called from a kernel body.
pub fn in_kernel() -> bool {
    IN_KERNEL.with(Cell::get)
}

/// The payload a block unwinds with when told to stop; not an error of the kernel's.
pub struct BlockStopped;

type Block = Guarded<Reply, Request>;

/// Times a block told to stop is resumed before its stack is given up (a body that catches
/// the unwind and goes on asking for operations).
const STOP_TRIES: u32 = 8;

/// Stacks kept for reuse (a stack is mapped once and serves block after block).
const SPARE_STACKS: usize = 64;

/// The running blocks of one simulator, by block number: all on the thread that owns this.
#[derive(Default)]
pub struct Blocks {
    live: HashMap<u64, Block>,
    spare: Vec<Stack>,
}

impl Blocks {
    /// Creates block `idx` of `blocks` of `kernel` as block number `id`, on a stack of
    /// `stack_bytes`; it runs from its first [`Blocks::resume`].
    pub fn start(
        &mut self,
        id: u64,
        kernel: Kernel,
        idx: u32,
        blocks: u32,
        stack_bytes: usize,
    ) -> Result<(), String> {
        let stack = match self.spare.pop() {
            Some(s) if s.usable_bytes() >= stack_bytes => s,
            _ => Stack::new(stack_bytes)
                .map_err(|e| format!("cannot map a stack of {stack_bytes} bytes: {e}"))?,
        };
        let block = Guarded::new(stack, move |yielder: &Yielder<Reply, Request>, first| {
            if matches!(first, Reply::Stop) {
                return Request::Done;
            }
            let mut ctx = BlockCtx {
                idx,
                blocks,
                yielder,
            };
            match catch_unwind(AssertUnwindSafe(|| kernel.run(&mut ctx))) {
                Ok(()) => Request::Done,
                Err(p) if p.is::<BlockStopped>() => Request::Done,
                Err(p) => Request::Panicked(ascend_types::panic_text(p.as_ref())),
            }
        });
        self.live.insert(id, block);
        Ok(())
    }

    /// Answers block `id`'s last request and runs it to its next one (or its end, after
    /// which the block is gone).
    pub fn resume(&mut self, id: u64, reply: Reply) -> Request {
        let Some(block) = self.live.get_mut(&id) else {
            return Request::Panicked("the block is gone".into());
        };
        IN_KERNEL.with(|k| k.set(true));
        let r = catch_unwind(AssertUnwindSafe(|| block.resume(reply)));
        IN_KERNEL.with(|k| k.set(false));
        match r {
            Ok(Resumed::Yield(Request::Abandoned)) => {
                self.forget(id);
                Request::Abandoned
            }
            Ok(Resumed::Yield(req)) => req,
            Ok(Resumed::Return(last)) => {
                self.recycle(id);
                last
            }
            Ok(Resumed::StackOverflow) => {
                // Dropped, its stack leaked: borrows of the abandoned frames may outlive them.
                self.live.remove(&id);
                Request::StackOverflow
            }
            Err(p) => {
                // Only the coroutine machinery itself can panic here (the body's panics are
                // caught inside): the block is unusable.
                self.forget(id);
                Request::Panicked(ascend_types::panic_text(p.as_ref()))
            }
        }
    }

    /// Ends block `id` wherever it is: it unwinds from its pending operation (or is given up
    /// where it may not), and its stack is kept for reuse when it unwound.
    pub fn stop(&mut self, id: u64) {
        for _ in 0..STOP_TRIES {
            match self.live.get(&id) {
                None => return,
                Some(b) if b.done() => {
                    self.recycle(id);
                    return;
                }
                Some(_) => {}
            }
            if matches!(
                self.resume(id, Reply::Stop),
                Request::Abandoned | Request::StackOverflow
            ) {
                return;
            }
        }
        self.forget(id);
    }

    /// Ends every block (the simulator is going away).
    pub fn stop_all(&mut self) {
        let ids: Vec<u64> = self.live.keys().copied().collect();
        for id in ids {
            self.stop(id);
        }
    }

    /// Removes block `id`, which has returned, keeping its stack for reuse.
    fn recycle(&mut self, id: u64) {
        if let Some(stack) = self.live.remove(&id).and_then(Guarded::into_stack) {
            if self.spare.len() < SPARE_STACKS {
                self.spare.push(stack);
            }
        }
    }

    /// Gives block `id`'s stack up without unwinding it (its frames may not unwind).
    fn forget(&mut self, id: u64) {
        if let Some(b) = self.live.remove(&id) {
            std::mem::forget(b);
        }
    }
}

/// The block's end: what the kernel body's [`KernelOps`] calls turn into.
struct BlockCtx<'y> {
    idx: u32,
    blocks: u32,
    yielder: &'y Yielder<Reply, Request>,
}

impl BlockCtx<'_> {
    fn ask(&mut self, request: Request) -> Reply {
        match self.yielder.suspend(request) {
            Reply::Stop => resume_unwind(Box::new(BlockStopped)),
            reply => reply,
        }
    }
}

impl KernelOps for BlockCtx<'_> {
    fn block_idx(&self) -> u32 {
        self.idx
    }

    fn block_num(&self) -> u32 {
        self.blocks
    }

    fn load(&mut self, gm: DevAddr, bytes: u32) -> u64 {
        match self.ask(Request::Load { addr: gm, bytes }) {
            Reply::Value(v) => v,
            _ => 0,
        }
    }

    fn store(&mut self, gm: DevAddr, bytes: u32, value: u64) {
        self.ask(Request::Store {
            addr: gm,
            bytes,
            value,
        });
    }

    fn dcci(&mut self, gm: DevAddr, entire: bool, kind: u64) {
        self.ask(Request::Dcci {
            addr: gm,
            entire,
            kind,
        });
    }

    fn dci(&mut self) {
        self.ask(Request::Dci);
    }

    fn copy_gm_to_local(&mut self, local: &mut [u8], gm: DevAddr) {
        let len = local.len() as u64;
        if let Reply::Data(d) = self.ask(Request::GmToLocal { gm, len }) {
            let n = d.len().min(local.len());
            local[..n].copy_from_slice(&d[..n]);
        }
    }

    fn copy_local_to_gm(&mut self, gm: DevAddr, local: &[u8]) {
        self.ask(Request::LocalToGm {
            gm,
            data: local.to_vec(),
        });
    }

    fn spin(&mut self, cycles: u64) {
        self.ask(Request::Spin { cycles });
    }

    fn trap(&mut self, reason: &str) {
        self.ask(Request::Trap(reason.to_string()));
        // The engine ends the block on a trap; a reply other than Stop cannot come.
        resume_unwind(Box::new(BlockStopped));
    }

    fn abandon(&mut self) -> ! {
        loop {
            self.yielder.suspend(Request::Abandoned);
        }
    }
}
