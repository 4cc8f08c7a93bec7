//! Simulator kernels through the `hw` backend: over the project's own `libascendcl.so`, which
//! exports the simulator-kernel extension (`acl/acl_sim.h`), a [`Kernel`] written in Rust
//! runs as it does on the `sim` backend, so one program runs on both. A real runtime library
//! has no such functions, and a real device runs compiled kernels: there the launch is refused
//! as before.
//!
//! A launch hands the library one C function, [`run_block`], and as its arguments the address
//! of a [`Launched`] (the kernel, the library, and how many blocks have yet to end). The
//! library copies those 8 bytes for each block and calls [`run_block`] with the block's
//! context; each block's operations go back to the library through [`LibraryOps`], and the
//! last block to return frees the [`Launched`]. A block the simulator ends early (a fault, a
//! trap, its stream destroyed) never returns, so its launch's [`Launched`] is not freed: a
//! few bytes per such launch.

use std::ffi::{c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use ascend_rt_sys::{self as sys, acl_fn, Library};

use super::HwBackend;
use crate::error::AclResult;
use ascend_types::{CoreType, DevAddr, Kernel, KernelOps};

/// One launch's kernel, shared by its blocks.
struct Launched {
    kernel: Kernel,
    lib: Arc<Library>,
    /// Blocks that have not yet returned; the last one frees this.
    blocks_left: AtomicU32,
}

impl HwBackend {
    /// True when the library runs simulator kernels (the project's own does).
    pub(super) fn runs_sim_kernels(&self) -> bool {
        self.lib.api().aclsimLaunchKernelOnCore.is_ok()
    }

    /// Launches `kernel` on `blocks` blocks on stream `s` (whose context is current).
    pub(super) fn launch_sim_kernel(
        &self,
        kernel: Kernel,
        blocks: u32,
        s: sys::aclrtStream,
    ) -> AclResult<()> {
        let core = match kernel.core() {
            CoreType::Vector => sys::ACLSIM_CORE_VECTOR,
            CoreType::AiCore => sys::ACLSIM_CORE_AICORE,
            other => {
                return Err(crate::error::AclError::new(
                    crate::error::ErrorCode::RtFeatureNotSupport,
                    None,
                    format!("the library knows no core type {other:?}"),
                ))
            }
        };
        let launched = Box::into_raw(Box::new(Launched {
            kernel,
            lib: self.lib.clone(),
            blocks_left: AtomicU32::new(blocks),
        }));
        let args = (launched as usize as u64).to_ne_bytes();
        let done = acl!(
            self,
            aclsimLaunchKernelOnCore(
                Some(run_block),
                blocks,
                args.as_ptr().cast(),
                args.len(),
                core as u32,
                s
            )
        );
        if done.is_err() {
            // SAFETY: the launch failed, so no block holds the pointer: it is still only ours.
            drop(unsafe { Box::from_raw(launched) });
        }
        done
    }
}

/// One block of a launched kernel, called by the library with the block's context and its
/// copy of the launch's arguments (the address of the [`Launched`]).
///
/// # Safety
/// `args` points at 8 bytes holding the address of a live [`Launched`] made by
/// [`HwBackend::launch_sim_kernel`], whose launch has at least this block still to run; `ctx`
/// is the block's context, valid during the call.
unsafe extern "C" fn run_block(ctx: *mut sys::aclsimKernelCtx, args: *mut c_void) {
    // SAFETY: `args` holds 8 bytes (this function's contract), perhaps unaligned.
    let addr = unsafe { args.cast::<[u8; 8]>().read_unaligned() };
    let launched = u64::from_ne_bytes(addr) as usize as *const Launched;
    // SAFETY: a live `Launched` (contract); it is freed only below, by the last block.
    let l = unsafe { &*launched };
    let mut ops = LibraryOps { lib: &l.lib, ctx };
    let ran = catch_unwind(AssertUnwindSafe(|| l.kernel.run(&mut ops)));
    if let Err(panic) = ran {
        // Does not return: the block ends with the fault.
        ops.trap(&format!(
            "kernel {} panicked: {}",
            l.kernel.name(),
            ascend_types::panic_text(&*panic)
        ));
    }
    if l.blocks_left.fetch_sub(1, Ordering::AcqRel) == 1 {
        // SAFETY: every block has returned and none uses `l` again; the pointer came from
        // `Box::into_raw`.
        drop(unsafe { Box::from_raw(launched.cast_mut()) });
    }
}

/// A block's operations, each the library's `aclsim*` call on the block's context.
struct LibraryOps<'a> {
    lib: &'a Library,
    ctx: *mut sys::aclsimKernelCtx,
}

/// Calls the library's `$name` on the block's context; a library without it (never, once a
/// kernel runs) does nothing and gives `$default`.
macro_rules! sim_op {
    ($self:expr, $default:expr, $name:ident ( $($arg:expr),* )) => {
        match acl_fn!($self.lib, $name) {
            // SAFETY: the library's `$name` (bindgen's declaration of `acl_sim.h`); `ctx` is
            // the running block's context, and each pointer argument's validity is stated
            // where the operation is called.
            Ok(f) => unsafe { f($self.ctx $(, $arg)*) },
            Err(_) => $default,
        }
    };
}

fn gm(addr: DevAddr) -> *mut c_void {
    addr as usize as *mut c_void
}

impl KernelOps for LibraryOps<'_> {
    fn block_idx(&self) -> u32 {
        sim_op!(self, 0, aclsimGetBlockIdx())
    }

    fn block_num(&self) -> u32 {
        sim_op!(self, 0, aclsimGetBlockNum())
    }

    // A global-memory address is a device address the library checks itself (a fault for
    // one outside live memory): it is never dereferenced in this process.
    fn load(&mut self, addr: DevAddr, bytes: u32) -> u64 {
        match bytes {
            1 => sim_op!(self, 0, aclsimLoad8(gm(addr))) as u64,
            2 => sim_op!(self, 0, aclsimLoad16(gm(addr))) as u64,
            4 => sim_op!(self, 0, aclsimLoad32(gm(addr))) as u64,
            8 => sim_op!(self, 0, aclsimLoad64(gm(addr))),
            _ => {
                self.trap(&format!(
                    "a load of {bytes} bytes (1, 2, 4 or 8 may be loaded)"
                ));
                0
            }
        }
    }

    fn store(&mut self, addr: DevAddr, bytes: u32, value: u64) {
        match bytes {
            1 => sim_op!(self, (), aclsimStore8(gm(addr), value as u8)),
            2 => sim_op!(self, (), aclsimStore16(gm(addr), value as u16)),
            4 => sim_op!(self, (), aclsimStore32(gm(addr), value as u32)),
            8 => sim_op!(self, (), aclsimStore64(gm(addr), value)),
            _ => self.trap(&format!(
                "a store of {bytes} bytes (1, 2, 4 or 8 may be stored)"
            )),
        }
    }

    fn dcci(&mut self, addr: DevAddr, entire: bool, kind: u64) {
        sim_op!(self, (), aclsimDcci(gm(addr), entire as u64, kind))
    }

    fn dci(&mut self) {
        sim_op!(self, (), aclsimDci())
    }

    fn copy_gm_to_local(&mut self, local: &mut [u8], addr: DevAddr) {
        // `local` is writable for its length, which is what is copied.
        sim_op!(
            self,
            (),
            aclsimCopyGmToLocal(local.as_mut_ptr().cast(), gm(addr), local.len())
        )
    }

    fn copy_local_to_gm(&mut self, addr: DevAddr, local: &[u8]) {
        // `local` is readable for its length, which is what is copied.
        sim_op!(
            self,
            (),
            aclsimCopyLocalToGm(gm(addr), local.as_ptr().cast(), local.len())
        )
    }

    fn spin(&mut self, cycles: u64) {
        sim_op!(self, (), aclsimSpin(cycles))
    }

    fn trap(&mut self, reason: &str) {
        let reason = CString::new(reason.replace('\0', " ")).unwrap_or_default();
        // `reason` is NUL-terminated and lives across the call (which does not return).
        sim_op!(self, (), aclsimTrap(reason.as_ptr()))
    }
}
