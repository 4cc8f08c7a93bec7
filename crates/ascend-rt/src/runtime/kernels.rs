//! Simulator kernels: `aclsimLaunchKernel`, our own extension (`include/acl/acl_sim.h`), which
//! puts a kernel whose blocks run on the simulated AI cores on a stream. Only the simulator
//! backend runs kernels; a real device runs compiled kernels, so the `hw` backend reports the
//! feature as not supported.

use super::Runtime;
use crate::backend::Task;
use crate::error::{fail, AclResult};
use crate::raw_types::RawStream;
use ascend_types::Kernel;

/// The most bytes of arguments `aclsimLaunchKernel` copies at launch (a kernel's parameters).
pub const MAX_KERNEL_ARGS_BYTES: usize = 64 * 1024;

/// The most blocks a launch takes: the runtime's task descriptor holds the block count in 16
/// bits, and its launch by kernel stub refuses more (107000).
pub const MAX_BLOCK_DIM: u32 = u16::MAX as u32;

impl Runtime {
    /// Launches `kernel` on `blocks` blocks on `stream` (NULL: the current context's default
    /// stream). Checks, in order: `blocks` at least 1 (100000); at most `MAX_BLOCK_DIM` (65535)
    /// (107000); a backend that runs kernels
    /// (207000 on `hw`); the stream handle (107000) and its context (107002, 107003).
    ///
    /// ```
    /// use ascend_rt::{raw_types::Addr, Kernel, KernelOps, RawStream, Runtime};
    /// let rt = Runtime::sim("Ascend910B1").unwrap();
    /// rt.set_device(0).unwrap();
    /// let mut flag = Addr(0);
    /// rt.malloc(Some(&mut flag), 8, 0).unwrap();
    /// let k = Kernel::new("set", move |ctx: &mut dyn KernelOps| {
    ///     ctx.store(flag.0, 8, 1);
    ///     ctx.dcci(flag.0, false, 2);
    /// });
    /// rt.launch_kernel(k, 1, RawStream(0)).unwrap();
    /// rt.synchronize_stream(RawStream(0)).unwrap();
    /// ```
    pub fn launch_kernel(&self, kernel: Kernel, blocks: u32, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let api = "aclsimLaunchKernel";
            if blocks == 0 {
                return Err(fail::acl_range(api, "blockDim", blocks, "at least 1"));
            }
            // The runtime's launch of a kernel by its stub refuses a block count that does
            // not fit the task descriptor's 16-bit field (docs/kernels.md).
            if blocks > MAX_BLOCK_DIM {
                return Err(fail::rt_value(
                    api,
                    "blockDim",
                    blocks,
                    &format!("at most {MAX_BLOCK_DIM}"),
                ));
            }
            if !self.backend.runs_sim_kernels() {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    &format!(
                        "simulator kernels run only on the simulator (the sim backend, or the project's own library through hw), not on `{}`",
                        self.backend.name()
                    ),
                ));
            }
            self.require_stream_handle(api, stream)?;
            let rec = {
                let st = self.lock();
                Self::impl_stream(&st, api, stream)?.1
            };
            self.launch(&rec, Task::Kernel { kernel, blocks })
        })
    }
}
