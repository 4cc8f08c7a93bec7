//! Kernels on the simulated AI cores: the blocks of a kernel task (each a coroutine on the
//! core thread, run in strict turn with the engine, see `block`), the data cache of each core
//! (`dcache`), what a block did last (`last_op`),
//! and the engine-side state of kernel tasks and cores. What each operation does and costs is
//! in `crate::exec::kernel`; the core-side hazards in `crate::exec::core_hazards`.

mod block;
mod dcache;
mod last_op;

pub use block::{in_kernel, Blocks, Reply, Request};
pub use dcache::{word_of, DCache, DLine};
pub use last_op::{LastOp, RecentFills};

use ascend_types::Kernel;

/// A kernel task in flight.
#[derive(Debug)]
pub struct KernelRun {
    /// Its stream.
    pub stream: u64,
    /// The kernel.
    pub kernel: Kernel,
    /// Blocks it was launched with.
    pub blocks: u32,
    /// The next block to start.
    pub next_block: u32,
    /// Blocks running now.
    pub live: u32,
    /// The first fault of any block, and its class.
    pub fault: Option<(String, crate::types::FaultClass)>,
    /// When its blocks may take cores (dispatch plus the launch time).
    pub ready_at: u64,
}

/// The block an AI core runs.
#[derive(Debug)]
pub struct BlockSlot {
    /// Its kernel task.
    pub run: u64,
    /// Its index.
    pub block: u32,
    /// Its number, by which the core thread knows its coroutine.
    pub id: u64,
    /// Its coroutine exists (it had its first turn).
    pub started: bool,
    /// The answer to give at its next step.
    pub reply: Option<Reply>,
    /// When it started.
    pub start_ns: u64,
    /// Operations so far.
    pub ops: u64,
    /// Its last operation, said for a diagnosis.
    pub last_op: LastOp,
    /// The address of its last load, if its last operations were loads and cache upkeep.
    pub polling: Option<u64>,
    /// The lines it filled last (a fill of another line is progress; refilling one of these,
    /// as a poll does, is not).
    pub recent_fills: RecentFills,
}

/// A block's turn on the core thread: the answer to its last request, and what it needs to
/// start when this is its first turn.
#[derive(Debug)]
pub struct KernelTurn {
    /// Device.
    pub dev: usize,
    /// Core.
    pub core: usize,
    /// The core's generation when the turn began.
    pub gen: u64,
    /// The block's number.
    pub block: u64,
    /// The answer to its last request.
    pub reply: Reply,
    /// On its first turn: the kernel, the block's index and the block count.
    pub start: Option<(Kernel, u32, u32)>,
}

/// One AI core.
#[derive(Debug)]
pub struct Core {
    /// Its data cache.
    pub dcache: DCache,
    /// The block it runs.
    pub slot: Option<BlockSlot>,
    /// Bumped when a block ends, so stale steps are ignored.
    pub gen: u64,
}

impl Core {
    /// An idle core with an empty data cache.
    pub fn new(dcache_bytes: u64, line: u64) -> Core {
        Core {
            dcache: DCache::new(dcache_bytes, line),
            slot: None,
            gen: 0,
        }
    }
}
