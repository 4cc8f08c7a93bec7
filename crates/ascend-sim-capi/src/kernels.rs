//! Exports of `include/acl/acl_sim.h`: launching a C function as a simulator kernel, and the
//! operations its blocks call on their context.
//!
//! A block runs as a coroutine on the simulator's core thread; the C function gets a pointer
//! to an [`aclsimKernelCtx`] on the block's stack, which leads to the block's operations. When
//! the simulator ends a block early (a fault, or its stream destroyed), the pending operation
//! does not return to C code: unwinding through C frames is not allowed, so the block is
//! abandoned (`KernelOps::abandon`: it never runs again, and its stack is given up).
//!
//! The thread knows which context its running block has (set again after every operation, as
//! blocks interleave on the thread): an operation on any other context
//! (one a kernel saved and used after it returned, or from another thread) is refused with a
//! message on the log, and an ACL call made by a kernel faults its block with the call's name
//! (the simulator is busy running the kernel, so the call could only fail or hang).

#![allow(non_snake_case, non_camel_case_types)]

use std::cell::Cell;
use std::ffi::{c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use ascend_rt::{
    AclError, CoreType, ErrorCode, Kernel, KernelOps, RawStream, MAX_KERNEL_ARGS_BYTES,
};

use crate::ffi::{aclError, guard, handle_in};

/// A kernel function as the header declares it.
pub type aclsimKernelFunc = unsafe extern "C" fn(ctx: *mut aclsimKernelCtx, args: *mut c_void);

// The running block's context as C sees it: the bindings' opaque type, so that the exports
// have the bindings' signatures. Each pointer to one points at a `BlockContext`.
pub use ascend_rt_sys::aclsimKernelCtx;

/// What an [`aclsimKernelCtx`] pointer points at.
#[repr(C)]
struct BlockContext {
    /// Points at the block's `&mut dyn KernelOps`, valid during the kernel call.
    ops: *mut c_void,
}

thread_local! {
    /// The context of the kernel call running on this thread (NULL when none).
    static RUNNING: Cell<*mut aclsimKernelCtx> = const { Cell::new(std::ptr::null_mut()) };
}

/// Makes `ctx` the thread's running context for the life of the value. Blocks interleave on
/// one thread, so nothing runs once the kernel call returns (no earlier context is restored).
struct Running;

impl Running {
    fn enter(ctx: *mut aclsimKernelCtx) -> Self {
        RUNNING.with(|r| r.set(ctx));
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.with(|r| r.set(std::ptr::null_mut()));
    }
}

/// Called first by every ACL entry point: when the calling thread is running a kernel block,
/// the block is faulted with a message naming `api`, and the call does not return to the
/// kernel. Returns normally on any other thread.
pub(crate) fn refuse_in_kernel(api: &str) {
    let ctx = RUNNING.with(Cell::get);
    if ctx.is_null() {
        return;
    }
    let reason = format!(
        "the kernel called {api}: a kernel may call only the operations of its context \
         (acl_sim.h), not the ACL API; the simulator is busy running the kernel"
    );
    // SAFETY: `ctx` is the context of the kernel call running on this thread (set by
    // `c_kernel` for the call's duration).
    unsafe { with_ops(api, ctx, (), |o| o.trap(&reason)) };
}

fn invalid(api: &str, message: String) -> AclError {
    AclError::new(
        ErrorCode::InvalidParam,
        None,
        format!("{api} failed: {message}"),
    )
}

/// The symbol name of a function, if the dynamic linker knows it.
fn symbol_name(f: aclsimKernelFunc) -> Option<String> {
    // SAFETY: `Dl_info` is plain data for which all-zero is a valid value.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the address and writes `info`.
    let found = unsafe { libc::dladdr(f as *const c_void, &mut info) };
    if found == 0 || info.dli_sname.is_null() {
        return None;
    }
    // SAFETY: dladdr returned a NUL-terminated name owned by the loaded object.
    let name = unsafe { CStr::from_ptr(info.dli_sname) };
    Some(name.to_string_lossy().into_owned())
}

/// A kernel named `name` that calls the C kernel `f` with its own copy of `args` in each
/// block.
pub(crate) fn c_kernel(name: String, f: aclsimKernelFunc, args: Vec<u8>) -> Kernel {
    Kernel::new(name, move |ops: &mut dyn KernelOps| {
        let mut own_args = args.clone();
        let mut ops_ref: &mut dyn KernelOps = ops;
        let mut ctx = BlockContext {
            ops: (&mut ops_ref as *mut &mut dyn KernelOps).cast(),
        };
        let args_ptr = if own_args.is_empty() {
            std::ptr::null_mut()
        } else {
            own_args.as_mut_ptr().cast()
        };
        // One pointer serves the thread's record and the call, so neither invalidates the
        // other.
        let ctx_ptr: *mut aclsimKernelCtx = (&mut ctx as *mut BlockContext).cast();
        let _running = Running::enter(ctx_ptr);
        // SAFETY: `f` is a C kernel function of the declared type (its provider's contract);
        // `ctx` and `own_args` live across the call.
        unsafe { f(ctx_ptr, args_ptr) };
    })
}

/// `ACLSIM_CORE_VECTOR`: a vector kernel (the default of [`aclsimLaunchKernel`]).
const CORE_VECTOR: u32 = 0;
/// `ACLSIM_CORE_AICORE`: a cube or mixed kernel, run as an AI-core task.
const CORE_AICORE: u32 = 1;

/// `aclsimLaunchKernel(fn, blockDim, args, argsSize, stream)`: a vector kernel.
///
/// # Safety
/// `fn` is NULL or a function of the declared type that honours the header's rules; `args`
/// is NULL or valid for reads of `argsSize` bytes.
#[no_mangle]
pub unsafe extern "C" fn aclsimLaunchKernel(
    func: Option<aclsimKernelFunc>,
    blockDim: u32,
    args: *const c_void,
    argsSize: usize,
    stream: *mut c_void,
) -> aclError {
    // SAFETY: forwarded contract.
    unsafe {
        launch(
            "aclsimLaunchKernel",
            func,
            blockDim,
            args,
            argsSize,
            CORE_VECTOR,
            stream,
        )
    }
}

/// `aclsimLaunchKernelOnCore(fn, blockDim, args, argsSize, coreType, stream)`: as
/// [`aclsimLaunchKernel`], for a kernel built for `coreType` (`ACLSIM_CORE_VECTOR` or
/// `ACLSIM_CORE_AICORE`), which decides the code of its faults.
///
/// # Safety
/// As [`aclsimLaunchKernel`].
#[no_mangle]
pub unsafe extern "C" fn aclsimLaunchKernelOnCore(
    func: Option<aclsimKernelFunc>,
    blockDim: u32,
    args: *const c_void,
    argsSize: usize,
    coreType: u32,
    stream: *mut c_void,
) -> aclError {
    // SAFETY: forwarded contract.
    unsafe {
        launch(
            "aclsimLaunchKernelOnCore",
            func,
            blockDim,
            args,
            argsSize,
            coreType,
            stream,
        )
    }
}

/// The two launches: checks the arguments, copies them and puts the kernel on `stream`.
///
/// # Safety
/// As [`aclsimLaunchKernel`].
unsafe fn launch(
    api: &'static str,
    func: Option<aclsimKernelFunc>,
    blockDim: u32,
    args: *const c_void,
    argsSize: usize,
    core_type: u32,
    stream: *mut c_void,
) -> aclError {
    guard(api, |rt| {
        let checked = || {
            let f = func.ok_or_else(|| invalid(api, "parameter fn must not be NULL".into()))?;
            if blockDim == 0 {
                return Err(invalid(api, "blockDim must be at least 1".into()));
            }
            if args.is_null() && argsSize > 0 {
                return Err(invalid(
                    api,
                    format!("args is NULL but argsSize is {argsSize}"),
                ));
            }
            if argsSize > MAX_KERNEL_ARGS_BYTES {
                return Err(invalid(
                    api,
                    format!("argsSize {argsSize} is above the {MAX_KERNEL_ARGS_BYTES} bytes a launch copies"),
                ));
            }
            let core = match core_type {
                CORE_VECTOR => CoreType::Vector,
                CORE_AICORE => CoreType::AiCore,
                other => {
                    return Err(invalid(
                        api,
                        format!(
                            "coreType {other} is neither ACLSIM_CORE_VECTOR (0) nor ACLSIM_CORE_AICORE (1)"
                        ),
                    ))
                }
            };
            Ok((f, core))
        };
        let (f, core) = checked().map_err(|e| rt.record_failure(e))?;
        let bytes: Vec<u8> = if argsSize == 0 {
            Vec::new()
        } else {
            // SAFETY: non-NULL and valid for `argsSize` bytes by the caller's contract.
            unsafe { std::slice::from_raw_parts(args.cast::<u8>(), argsSize) }.to_vec()
        };
        let name = symbol_name(f).unwrap_or_else(|| format!("kernel@{:#x}", f as usize));
        let kernel = c_kernel(name, f, bytes).on(core);
        rt.launch_kernel(kernel, blockDim, RawStream(handle_in(stream)))
    })
}

/// Runs `op` (the operation `api`) on the block's operations; `default` for a NULL context or
/// one that is not this thread's running kernel call's (saved after its kernel returned, or
/// used from another thread): those are refused with a message. When the simulator ends the
/// block during `op`, this thread parks for good instead of returning to C.
///
/// # Safety
/// None beyond the C contract: `ctx` is only compared until it is known to be this thread's
/// running context.
unsafe fn with_ops<R>(
    api: &str,
    ctx: *mut aclsimKernelCtx,
    default: R,
    op: impl FnOnce(&mut dyn KernelOps) -> R,
) -> R {
    if ctx.is_null() {
        tracing::error!("{api} was called with a NULL context; the operation does nothing");
        return default;
    }
    if ctx != RUNNING.with(Cell::get) {
        tracing::error!(
            "{api} was called with a context that is not a running kernel's on this thread \
             (saved by a kernel that has returned, or used outside the kernel's call); the \
             operation does nothing and returns 0"
        );
        return default;
    }
    // SAFETY: the context of this thread's running kernel call (checked above); `ops` points
    // at the `&mut dyn KernelOps` local of that call's frame, live while the call runs.
    let ops: &mut &mut dyn KernelOps = unsafe {
        &mut *(*ctx.cast::<BlockContext>())
            .ops
            .cast::<&mut dyn KernelOps>()
    };
    let done = catch_unwind(AssertUnwindSafe(|| op(&mut **ops)));
    // Other blocks ran on this thread while the operation waited: the context is this
    // block's again.
    RUNNING.with(|r| r.set(ctx));
    match done {
        Ok(r) => r,
        // The block was ended: C frames may not unwind, so it never runs again.
        Err(_) => ops.abandon(),
    }
}

/// `aclsimGetBlockIdx(ctx)`.
///
/// # Safety
/// As [`with_ops`].
#[no_mangle]
pub unsafe extern "C" fn aclsimGetBlockIdx(ctx: *mut aclsimKernelCtx) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { with_ops("aclsimGetBlockIdx", ctx, 0, |o| o.block_idx()) }
}

/// `aclsimGetBlockNum(ctx)`.
///
/// # Safety
/// As [`with_ops`].
#[no_mangle]
pub unsafe extern "C" fn aclsimGetBlockNum(ctx: *mut aclsimKernelCtx) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { with_ops("aclsimGetBlockNum", ctx, 0, |o| o.block_num()) }
}

macro_rules! load_store {
    ($load:ident, $store:ident, $t:ty, $bytes:expr) => {
        #[doc = concat!("`", stringify!($load), "(ctx, gm)`.")]
        ///
        /// # Safety
        /// As [`with_ops`]; `gm` is a device address (never dereferenced here).
        #[no_mangle]
        pub unsafe extern "C" fn $load(ctx: *mut aclsimKernelCtx, gm: *const c_void) -> $t {
            // SAFETY: forwarded contract.
            unsafe {
                with_ops(stringify!($load), ctx, 0, |o| {
                    o.load(gm as usize as u64, $bytes) as $t
                })
            }
        }

        #[doc = concat!("`", stringify!($store), "(ctx, gm, v)`.")]
        ///
        /// # Safety
        /// As [`with_ops`]; `gm` is a device address (never dereferenced here).
        #[no_mangle]
        pub unsafe extern "C" fn $store(ctx: *mut aclsimKernelCtx, gm: *mut c_void, v: $t) {
            // SAFETY: forwarded contract.
            unsafe {
                with_ops(stringify!($store), ctx, (), |o| {
                    o.store(gm as usize as u64, $bytes, u64::from(v))
                })
            }
        }
    };
}

load_store!(aclsimLoad8, aclsimStore8, u8, 1);
load_store!(aclsimLoad16, aclsimStore16, u16, 2);
load_store!(aclsimLoad32, aclsimStore32, u32, 4);
load_store!(aclsimLoad64, aclsimStore64, u64, 8);

/// `aclsimDcci(ctx, gm, entire, type)`.
///
/// # Safety
/// As [`with_ops`].
#[no_mangle]
pub unsafe extern "C" fn aclsimDcci(
    ctx: *mut aclsimKernelCtx,
    gm: *const c_void,
    entire: u64,
    kind: u64,
) {
    // SAFETY: forwarded contract.
    unsafe {
        with_ops("aclsimDcci", ctx, (), |o| {
            o.dcci(gm as usize as u64, entire != 0, kind)
        })
    }
}

/// `aclsimDci(ctx)`.
///
/// # Safety
/// As [`with_ops`].
#[no_mangle]
pub unsafe extern "C" fn aclsimDci(ctx: *mut aclsimKernelCtx) {
    // SAFETY: forwarded contract.
    unsafe { with_ops("aclsimDci", ctx, (), |o| o.dci()) }
}

/// `aclsimCopyGmToLocal(ctx, local, gm, n)`.
///
/// # Safety
/// As [`with_ops`]; `local` is NULL only with `n` 0, else valid for writes of `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn aclsimCopyGmToLocal(
    ctx: *mut aclsimKernelCtx,
    local: *mut c_void,
    gm: *const c_void,
    n: usize,
) {
    if local.is_null() || n == 0 {
        return;
    }
    if n > isize::MAX as usize {
        // SAFETY: forwarded contract.
        return unsafe {
            with_ops("aclsimCopyGmToLocal", ctx, (), |o| {
                o.trap("aclsimCopyGmToLocal: n exceeds any buffer")
            })
        };
    }
    // SAFETY: valid for writes of `n` bytes by the caller's contract, and at most isize::MAX.
    let buf = unsafe { std::slice::from_raw_parts_mut(local.cast::<u8>(), n) };
    // SAFETY: forwarded contract.
    unsafe {
        with_ops("aclsimCopyGmToLocal", ctx, (), |o| {
            o.copy_gm_to_local(buf, gm as usize as u64)
        })
    }
}

/// `aclsimCopyLocalToGm(ctx, gm, local, n)`.
///
/// # Safety
/// As [`with_ops`]; `local` is NULL only with `n` 0, else valid for reads of `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn aclsimCopyLocalToGm(
    ctx: *mut aclsimKernelCtx,
    gm: *mut c_void,
    local: *const c_void,
    n: usize,
) {
    if local.is_null() || n == 0 {
        return;
    }
    if n > isize::MAX as usize {
        // SAFETY: forwarded contract.
        return unsafe {
            with_ops("aclsimCopyLocalToGm", ctx, (), |o| {
                o.trap("aclsimCopyLocalToGm: n exceeds any buffer")
            })
        };
    }
    // SAFETY: valid for reads of `n` bytes by the caller's contract, and at most isize::MAX.
    let buf = unsafe { std::slice::from_raw_parts(local.cast::<u8>(), n) };
    // SAFETY: forwarded contract.
    unsafe {
        with_ops("aclsimCopyLocalToGm", ctx, (), |o| {
            o.copy_local_to_gm(gm as usize as u64, buf)
        })
    }
}

/// `aclsimSpin(ctx, cycles)`.
///
/// # Safety
/// As [`with_ops`].
#[no_mangle]
pub unsafe extern "C" fn aclsimSpin(ctx: *mut aclsimKernelCtx, cycles: u64) {
    // SAFETY: forwarded contract.
    unsafe { with_ops("aclsimSpin", ctx, (), |o| o.spin(cycles)) }
}

/// `aclsimTrap(ctx, reason)`: ends the block with a fault, as a trap instruction does; the
/// kernel's stream reports the fault (with `reason`, or a default) at its next synchronize.
/// The call does not return to the kernel.
///
/// # Safety
/// As [`with_ops`]; `reason` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn aclsimTrap(ctx: *mut aclsimKernelCtx, reason: *const std::ffi::c_char) {
    let reason = if reason.is_null() {
        "a trap instruction".to_string()
    } else {
        // SAFETY: NUL-terminated by the caller's contract.
        unsafe { std::ffi::CStr::from_ptr(reason) }
            .to_string_lossy()
            .into_owned()
    };
    // SAFETY: forwarded contract.
    unsafe { with_ops("aclsimTrap", ctx, (), |o| o.trap(&reason)) }
}
