//! Simulator kernels: what a block of a kernel can do ([`KernelOps`]), and the kernel a stream
//! task launches ([`Kernel`]). The simulator implements the operations; a real device runs
//! compiled kernels instead, so only the simulator (or the project's own `libascendcl.so`, which
//! runs one) accepts a [`crate::Task::Kernel`].

use std::fmt;
use std::sync::Arc;

use crate::DevAddr;

/// The operations one block of a simulator kernel performs on its AI core. Loads and stores go
/// through the core's data cache; `dcci` and `dci` maintain it; the local-buffer copies go
/// around it (through the L2, as the hardware's memory-transfer path does). Every operation
/// that touches memory or time yields to the simulator, so blocks and streams interleave
/// deterministically.
///
/// An operation that faults (an address outside live device memory) ends the block: the
/// kernel's task faults and the call does not return to the kernel.
pub trait KernelOps {
    /// This block's index, `0..block_num()`.
    fn block_idx(&self) -> u32;
    /// The number of blocks the kernel was launched with.
    fn block_num(&self) -> u32;
    /// Loads a little-endian value of `bytes` (1, 2, 4 or 8) bytes from global memory.
    fn load(&mut self, gm: DevAddr, bytes: u32) -> u64;
    /// Stores the low `bytes` (1, 2, 4 or 8) bytes of `value` to global memory.
    fn store(&mut self, gm: DevAddr, bytes: u32, value: u64);
    /// Cleans and invalidates the data cache: the line holding `gm` (`entire` false) or the
    /// whole cache (`entire` true). `kind` is the cache type operand (ALL 0, UB 1, OUT 2,
    /// ATOMIC 3), recorded but not distinguished.
    fn dcci(&mut self, gm: DevAddr, entire: bool, kind: u64);
    /// Invalidates the whole data cache without writing anything back.
    fn dci(&mut self);
    /// Copies `local.len()` bytes from global memory into a local buffer.
    fn copy_gm_to_local(&mut self, local: &mut [u8], gm: DevAddr);
    /// Copies a local buffer into global memory.
    fn copy_local_to_gm(&mut self, gm: DevAddr, local: &[u8]);
    /// Spends `cycles` core cycles.
    fn spin(&mut self, cycles: u64);
    /// Ends the block with a fault, as a trap instruction does on the hardware: the kernel's
    /// task faults with `reason`, and the call does not return to the kernel.
    fn trap(&mut self, reason: &str);
    /// Never returns: what an operation's caller does when the simulator has ended the block
    /// (a fault, or its stream destroyed) while frames that must not be unwound are on the
    /// block's stack (a C kernel's). The simulator then forgets the block's stack. The default
    /// parks the calling thread for good.
    fn abandon(&mut self) -> ! {
        loop {
            std::thread::park();
        }
    }
}

/// The cache-type operands of [`KernelOps::dcci`] (what C's `ACLSIM_CACHELINE_*` name):
/// recorded, not distinguished by the simulator.
///
/// ```
/// use ascend_types::{dcci_kind, KernelOps};
/// fn raise(ctx: &mut dyn KernelOps, flag: u64) {
///     ctx.store(flag, 8, 1);
///     ctx.dcci(flag, false, dcci_kind::OUT); // write the line back: the flag is visible
/// }
/// ```
pub mod dcci_kind {
    /// Every cache.
    pub const ALL: u64 = 0;
    /// The unified buffer.
    pub const UB: u64 = 1;
    /// Global memory (the usual one after a store others must see).
    pub const OUT: u64 = 2;
    /// The atomic unit.
    pub const ATOMIC: u64 = 3;
}

/// The body of a kernel: run once per block.
pub type KernelBody = dyn Fn(&mut dyn KernelOps) + Send + Sync;

/// A kernel: a name (for reports) and its body.
///
/// ```
/// use ascend_types::{Kernel, KernelOps};
/// let k = Kernel::new("set_flag", |ctx: &mut dyn KernelOps| {
///     ctx.store(0x1000, 8, 1);
///     ctx.dcci(0x1000, false, 2);
/// });
/// assert_eq!(k.name(), "set_flag");
/// ```
#[derive(Clone)]
pub struct Kernel {
    name: Arc<str>,
    body: Arc<KernelBody>,
    core: CoreType,
}

/// The kind of core a kernel is built for, which names its task to the runtime: a fault of a
/// vector kernel is a vector-core exception (507035), of a cube or mixed kernel an AI-core
/// exception (507015). On a chip without separate vector cores every kernel runs on the AI
/// cores (docs/validation/kernels.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CoreType {
    /// A vector kernel (AIV): what an Ascend C kernel of vector operations compiles to.
    #[default]
    Vector,
    /// A cube or mixed kernel (AIC), run as an AI-core task.
    AiCore,
}

impl Kernel {
    /// A kernel named `name` running `body` in each block.
    pub fn new(
        name: impl Into<String>,
        body: impl Fn(&mut dyn KernelOps) + Send + Sync + 'static,
    ) -> Kernel {
        Kernel {
            name: Arc::from(name.into()),
            body: Arc::new(body),
            core: CoreType::default(),
        }
    }

    /// The same kernel, built for `core` (a new kernel is a vector kernel).
    ///
    /// ```
    /// use ascend_types::{CoreType, Kernel, KernelOps};
    /// let k = Kernel::new("matmul", |_: &mut dyn KernelOps| {}).on(CoreType::AiCore);
    /// assert_eq!(k.core(), CoreType::AiCore);
    /// ```
    pub fn on(mut self, core: CoreType) -> Kernel {
        self.core = core;
        self
    }

    /// The kind of core the kernel is built for.
    pub fn core(&self) -> CoreType {
        self.core
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kernel's name, shared (cloning it allocates nothing).
    pub fn shared_name(&self) -> Arc<str> {
        self.name.clone()
    }

    /// Runs the body for one block.
    pub fn run(&self, ops: &mut dyn KernelOps) {
        (self.body)(ops)
    }
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kernel({})", self.name)
    }
}

/// The words of a panic's payload (a kernel body's panic, say), as a block's fault says them.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}
