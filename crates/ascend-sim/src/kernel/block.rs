//! One running block of a kernel: its body runs on a thread of its own, strictly in turn with
//! the engine. The block asks for one operation at a time ([`Request`]) and waits for the
//! answer ([`Reply`]); the engine answers at the simulated time the operation completes. So
//! the kernel code runs only while the engine waits for its next request, and a program gives
//! the same timeline on every run.
//!
//! Why a thread per running block and not a stackful coroutine: the engine lives behind the
//! simulator's mutex, shared by every host thread, so it must be `Send`; a coroutine holding a
//! kernel's stack is not, and making it so would take `unsafe` code this crate forbids. At most
//! one thread exists per AI core (blocks beyond the core count wait for a core), and a thread
//! costs nothing while it waits. A block's wall time follows its requests, not its simulated
//! cycles: spinning a million cycles is one request.

use std::cell::Cell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::time::Duration;

use ascend_types::{DevAddr, Kernel, KernelOps};

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
    /// True on a kernel block's thread: its body must not call back into the simulator,
    /// which is busy running it (see [`in_kernel`]).
    static IN_KERNEL: Cell<bool> = const { Cell::new(false) };
}

/// True when called from a kernel body (on a block's thread).
pub fn in_kernel() -> bool {
    IN_KERNEL.with(Cell::get)
}

/// The payload a block unwinds with when told to stop; not an error of the kernel's.
pub struct BlockStopped;

/// The engine's end of a running block.
#[derive(Debug)]
pub struct BlockHandle {
    to_block: Sender<Reply>,
    from_block: Receiver<Request>,
}

impl BlockHandle {
    /// Starts block `idx` of `blocks` of `kernel` on a thread of its own; it waits for the first
    /// [`BlockHandle::resume`].
    pub fn spawn(kernel: Kernel, idx: u32, blocks: u32) -> std::io::Result<BlockHandle> {
        let (to_block, replies) = channel();
        let (requests, from_block) = channel();
        let name = format!("kernel {} block {idx}", kernel.name());
        std::thread::Builder::new().name(name).spawn(move || {
            IN_KERNEL.with(|k| k.set(true));
            let mut ctx = BlockCtx {
                idx,
                blocks,
                requests,
                replies,
            };
            if !matches!(ctx.replies.recv(), Ok(Reply::Go)) {
                return;
            }
            let ran = catch_unwind(AssertUnwindSafe(|| kernel.run(&mut ctx)));
            let last = match ran {
                Ok(()) => Request::Done,
                Err(p) if p.is::<BlockStopped>() => return,
                Err(p) => Request::Panicked(panic_text(p.as_ref())),
            };
            let _ = ctx.requests.send(last);
        })?;
        Ok(BlockHandle {
            to_block,
            from_block,
        })
    }

    /// Answers the block's last request and waits for its next one, at most `patience` of
    /// wall time (`None` when the block stays silent that long: its body blocks in host code,
    /// or computes without asking for anything; it may still ask later).
    pub fn resume(&self, reply: Reply, patience: Duration) -> Option<Request> {
        if self.to_block.send(reply).is_err() {
            return Some(Request::Panicked(
                "the block's thread ended without returning".into(),
            ));
        }
        self.next_request(patience)
    }

    /// Waits for the block's next request, at most `patience` of wall time.
    pub fn next_request(&self, patience: Duration) -> Option<Request> {
        let gone = || Request::Panicked("the block's thread ended unexpectedly".into());
        for _ in 0..ENGINE_POLLS {
            match self.from_block.try_recv() {
                Ok(m) => return Some(m),
                Err(TryRecvError::Disconnected) => return Some(gone()),
                Err(TryRecvError::Empty) => std::hint::spin_loop(),
            }
        }
        match self.from_block.recv_timeout(patience) {
            Ok(m) => Some(m),
            Err(RecvTimeoutError::Disconnected) => Some(gone()),
            Err(RecvTimeoutError::Timeout) => None,
        }
    }
}

impl Drop for BlockHandle {
    fn drop(&mut self) {
        // A block still running unwinds from its pending request; one that ended ignores it.
        let _ = self.to_block.send(Reply::Stop);
    }
}

/// Polls before sleeping while the engine waits for the block it resumed: the block's next
/// request usually comes within microseconds, far sooner than a sleeping thread wakes up.
const ENGINE_POLLS: u32 = 4_000;

/// Polls before sleeping while a block waits for its answer, which comes at once only when no
/// other block is due first: a short poll, so that waiting blocks leave the cores to the rest.
const BLOCK_POLLS: u32 = 200;

/// The next message on `rx`, or `None` once the other side is gone: polled `polls` times, then
/// waited for.
fn receive<T>(rx: &Receiver<T>, polls: u32) -> Option<T> {
    for _ in 0..polls {
        match rx.try_recv() {
            Ok(m) => return Some(m),
            Err(std::sync::mpsc::TryRecvError::Disconnected) => return None,
            Err(std::sync::mpsc::TryRecvError::Empty) => std::hint::spin_loop(),
        }
    }
    rx.recv().ok()
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// The block's end: what the kernel body's [`KernelOps`] calls turn into.
struct BlockCtx {
    idx: u32,
    blocks: u32,
    requests: Sender<Request>,
    replies: Receiver<Reply>,
}

impl BlockCtx {
    fn ask(&mut self, request: Request) -> Reply {
        if self.requests.send(request).is_err() {
            resume_unwind(Box::new(BlockStopped));
        }
        match receive(&self.replies, BLOCK_POLLS) {
            Some(Reply::Stop) | None => resume_unwind(Box::new(BlockStopped)),
            Some(reply) => reply,
        }
    }
}

impl KernelOps for BlockCtx {
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
}
