//! [`Binary`], [`Function`] and [`KernelArgs`]: kernels launched from a loaded binary by
//! function name (`aclrtBinaryLoadFromFile`, `aclrtBinaryGetFunction`, `aclrtKernelArgs*`,
//! `aclrtLaunchKernelWithConfig`). On the simulator, the function runs the simulator kernel
//! registered under its name ([`crate::Runtime::register_sim_function`]).

use std::marker::PhantomData;
use std::sync::Arc;

use super::device::DeviceGuard;
use super::memory::DevicePtr;
use crate::error::AclResult;
use crate::raw_types::{RawArgs, RawBinary, RawFunction, RawParam};

/// A loaded kernel binary; unloaded on drop (`aclrtBinaryUnLoad`), which its functions and
/// their argument lists borrow it against.
#[derive(Debug)]
pub struct Binary {
    pub(super) dev: Arc<DeviceGuard>,
    raw: RawBinary,
}

impl Binary {
    pub(super) fn new(dev: Arc<DeviceGuard>, raw: RawBinary) -> Self {
        Binary { dev, raw }
    }

    /// The raw handle.
    pub fn raw(&self) -> RawBinary {
        self.raw
    }

    /// The function named `name` (`aclrtBinaryGetFunction`).
    pub fn function(&self, name: &str) -> AclResult<Function<'_>> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        let mut raw = RawFunction::default();
        self.dev
            .rt
            .binary_get_function(self.raw, Some(name), Some(&mut raw))?;
        Ok(Function { bin: self, raw })
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        self.dev
            .release("unloading a binary", |rt| rt.binary_unload(self.raw));
    }
}

/// A function of a [`Binary`].
#[derive(Debug, Clone, Copy)]
pub struct Function<'b> {
    pub(super) bin: &'b Binary,
    raw: RawFunction,
}

impl<'b> Function<'b> {
    /// The raw handle.
    pub fn raw(&self) -> RawFunction {
        self.raw
    }

    /// An empty argument list for the function (`aclrtKernelArgsInit`).
    pub fn args<'a>(&self) -> AclResult<KernelArgs<'a, 'b>> {
        let mut raw = RawArgs::default();
        self.bin.dev.rt.kernel_args_init(self.raw, Some(&mut raw))?;
        Ok(KernelArgs {
            bin: self.bin,
            raw,
            ptrs: Vec::new(),
            finalized: false,
            _binary: PhantomData,
        })
    }
}

/// A kernel's arguments, appended in order (`aclrtKernelArgsAppend`): bytes, or a device
/// pointer, whose buffer then waits for the stream a launch puts the kernel on before it is
/// freed, as for any task naming it.
#[derive(Debug)]
pub struct KernelArgs<'a, 'b> {
    pub(super) bin: &'b Binary,
    raw: RawArgs,
    pub(super) ptrs: Vec<DevicePtr<'a>>,
    finalized: bool,
    _binary: PhantomData<&'b Binary>,
}

impl<'a> KernelArgs<'a, '_> {
    /// Appends `bytes` as the next argument (copied now).
    pub fn push_bytes(&mut self, bytes: &[u8]) -> AclResult<&mut Self> {
        let mut param = RawParam::default();
        self.bin
            .dev
            .rt
            .kernel_args_append(self.raw, Some(bytes), Some(&mut param))?;
        Ok(self)
    }

    /// Appends a device address (its 8 little-endian bytes) as the next argument.
    pub fn push_ptr(&mut self, ptr: DevicePtr<'a>) -> AclResult<&mut Self> {
        self.push_bytes(&ptr.addr().0.to_le_bytes())?;
        self.ptrs.push(ptr);
        Ok(self)
    }

    /// The raw handle, finalized (`aclrtKernelArgsFinalize`) on first use: no argument can
    /// be appended after.
    pub(super) fn finalized(&mut self) -> AclResult<RawArgs> {
        if !self.finalized {
            self.bin.dev.rt.kernel_args_finalize(self.raw)?;
            self.finalized = true;
        }
        Ok(self.raw)
    }
}
