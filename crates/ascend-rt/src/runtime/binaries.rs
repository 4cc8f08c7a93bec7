//! Kernels launched from binaries: `aclrtBinaryLoadFromFile`, `aclrtBinaryUnLoad`,
//! `aclrtBinaryGetFunction`, the kernel argument calls (`aclrtKernelArgsInit`, `...Append`,
//! `...AppendPlaceHolder`, `...GetPlaceHolderBuffer`, `...ParaUpdate`, `...Finalize`) and
//! `aclrtLaunchKernelWithConfig`.
//!
//! The simulator cannot run an Ascend C binary. A binary is loaded as a file (it must exist);
//! its functions are simulator kernels found by name among those registered
//! ([`Runtime::register_sim_function`]; the C library registers the kernels a library named by
//! `ASCEND_SIM_KERNELS` exports). A launch of a function no simulator kernel is registered for
//! fails, naming the kernel. Rows: docs/validation/binaries.md.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ascend_types::{HostBuf, Kernel, StreamId, Task};

use super::state::HandleKind;
use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::{RawArgs, RawBinary, RawFunction, RawParam, RawStream};

/// Makes the kernel of a launch from its packed arguments.
pub type SimKernelFactory = Arc<dyn Fn(&[u8]) -> Kernel + Send + Sync>;

/// The registered simulator kernels, by function name.
#[derive(Default, Clone)]
pub(crate) struct SimFunctions(pub HashMap<String, SimKernelFactory>);

impl std::fmt::Debug for SimFunctions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

/// A loaded binary.
#[derive(Debug, Clone)]
pub(crate) struct BinaryRec {
    /// The file it was loaded from.
    pub path: String,
}

/// A function of a binary.
#[derive(Debug, Clone)]
pub(crate) struct FunctionRec {
    pub binary: u64,
    pub name: String,
}

/// One argument of an argument list.
#[derive(Debug, Clone)]
enum Arg {
    /// The bytes given.
    Value(Vec<u8>),
    /// A placeholder: the host buffer the program fills, copied to device memory at launch
    /// (the argument is then that memory's address).
    Placeholder(Option<HostBuf>),
}

/// An argument list (`aclrtArgsHandle`).
#[derive(Debug, Clone)]
pub(crate) struct ArgsRec {
    pub function: u64,
    args: Vec<(u64, Arg)>,
    finalized: bool,
}

/// Device memory a launch's placeholder argument was copied to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlaceholderMemory {
    pub device: u32,
    pub addr: u64,
    /// The backend stream of the launch.
    pub stream: StreamId,
    /// The launch went into a model (a bound, persistent or capturing stream): the kernel
    /// runs each time the model does, so the memory stays until the device is released.
    pub kept_by_model: bool,
}

/// 107000 for an argument larger than a whole argument list may be.
fn too_large(api: &str, param: &str, size: usize) -> AclError {
    fail::rt_value(
        api,
        param,
        size,
        &format!(
            "at most {} bytes (what a kernel's argument list holds)",
            crate::runtime::MAX_KERNEL_ARGS_BYTES
        ),
    )
}

fn unknown(api: &str, what: &str, h: u64) -> AclError {
    AclError::new(
        ErrorCode::RtInvalidHandle,
        Some(MsgCode::EE1017),
        format!("{api} failed: {what} {h:#x} is not live (destroyed, unloaded, or never created)"),
    )
}

impl Runtime {
    /// Registers simulator kernel `name`: a launch of a binary's function of that name runs
    /// the kernel `factory` makes from the launch's packed arguments (each argument's bytes in
    /// order; a placeholder is an 8-byte device address).
    pub fn register_sim_function(&self, name: &str, factory: SimKernelFactory) {
        self.lock()
            .sim_functions
            .0
            .insert(name.to_string(), factory);
    }

    /// Whether a simulator kernel is registered for `name`.
    pub fn has_sim_function(&self, name: &str) -> bool {
        self.lock().sim_functions.0.contains_key(name)
    }

    /// `aclrtBinaryLoadFromFile(binPath, options, &binHandle)`. Order: binPath NULL, then
    /// binHandle NULL (100000, EH0008); a file that cannot be read (107000, EE1003: assumed,
    /// the runtime's own check is not read yet).
    pub fn binary_load_from_file(
        &self,
        path: Option<&str>,
        bin_handle: Option<&mut RawBinary>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtBinaryLoadFromFile";
            let path = path.ok_or_else(|| fail::acl_null(api, "binPath"))?;
            let out_bin_handle = bin_handle.ok_or_else(|| fail::acl_null(api, "binHandle"))?;
            if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
                return Err(fail::rt_value(
                    api,
                    "binPath",
                    path,
                    "a readable kernel binary file",
                ));
            }
            let mut st = self.lock();
            let h = st.new_handle(HandleKind::Binary);
            st.binaries.insert(
                h,
                BinaryRec {
                    path: path.to_string(),
                },
            );
            *out_bin_handle = RawBinary(h);
            Ok(())
        })
    }

    /// `aclrtBinaryUnLoad(binHandle)`: its functions and their argument lists go with it.
    /// Order: NULL (100000, EH0008); not a loaded binary (107017, EE1017).
    pub fn binary_unload(&self, bin: RawBinary) -> AclResult<()> {
        let bin = bin.0;
        self.call(|| {
            let api = "aclrtBinaryUnLoad";
            if bin == 0 {
                return Err(fail::acl_null(api, "binHandle"));
            }
            let mut st = self.lock();
            st.binaries
                .remove(&bin)
                .ok_or_else(|| unknown(api, "binary", bin))?;
            let funcs: Vec<u64> = st
                .functions
                .iter()
                .filter(|(_, f)| f.binary == bin)
                .map(|(h, _)| *h)
                .collect();
            for f in &funcs {
                st.functions.remove(f);
            }
            st.kernel_args.retain(|_, a| !funcs.contains(&a.function));
            drop(st);
            self.free_idle_placeholder_memory();
            Ok(())
        })
    }

    /// `aclrtBinaryGetFunction(binHandle, kernelName, &funcHandle)`. Order: binHandle,
    /// kernelName, funcHandle NULL (100000, EH0008); not a loaded binary (107017, EE1017).
    pub fn binary_get_function(
        &self,
        bin: RawBinary,
        name: Option<&str>,
        func_handle: Option<&mut RawFunction>,
    ) -> AclResult<()> {
        let bin = bin.0;
        self.call(|| {
            let api = "aclrtBinaryGetFunction";
            if bin == 0 {
                return Err(fail::acl_null(api, "binHandle"));
            }
            let name = name.ok_or_else(|| fail::acl_null(api, "kernelName"))?;
            let out_func_handle = func_handle.ok_or_else(|| fail::acl_null(api, "funcHandle"))?;
            let mut st = self.lock();
            if !st.binaries.contains_key(&bin) {
                return Err(unknown(api, "binary", bin));
            }
            let h = st.new_handle(HandleKind::Function);
            st.functions.insert(
                h,
                FunctionRec {
                    binary: bin,
                    name: name.to_string(),
                },
            );
            *out_func_handle = RawFunction(h);
            Ok(())
        })
    }

    /// `aclrtKernelArgsInit(funcHandle, &argsHandle)`. Order: funcHandle, argsHandle NULL
    /// (100000, EH0008); not a live function (107017, EE1017).
    pub fn kernel_args_init(
        &self,
        func: RawFunction,
        args_handle: Option<&mut RawArgs>,
    ) -> AclResult<()> {
        let func = func.0;
        self.call(|| {
            let api = "aclrtKernelArgsInit";
            if func == 0 {
                return Err(fail::acl_null(api, "funcHandle"));
            }
            let out_args_handle = args_handle.ok_or_else(|| fail::acl_null(api, "argsHandle"))?;
            let mut st = self.lock();
            if !st.functions.contains_key(&func) {
                return Err(unknown(api, "function", func));
            }
            let h = st.new_handle(HandleKind::Args);
            st.kernel_args.insert(
                h,
                ArgsRec {
                    function: func,
                    args: Vec::new(),
                    finalized: false,
                },
            );
            *out_args_handle = RawArgs(h);
            Ok(())
        })
    }

    /// The live, not finalized argument list `args`.
    fn args_mut<'a>(
        st: &'a mut super::state::State,
        api: &str,
        args: u64,
    ) -> AclResult<&'a mut ArgsRec> {
        let rec = st
            .kernel_args
            .get_mut(&args)
            .ok_or_else(|| unknown(api, "argument list", args))?;
        if rec.finalized {
            return Err(fail::rt_reason(
                api,
                "argsHandle",
                format!("{args:#x}"),
                "the argument list is finalized",
            ));
        }
        Ok(rec)
    }

    /// `aclrtKernelArgsAppend(argsHandle, param, paramSize, &paramHandle)`: the argument is a
    /// copy of `param`'s bytes. Order: argsHandle NULL, param NULL (100000, EH0008); paramSize
    /// 0 (100000, EH0007); paramHandle NULL (EH0008); not a live list (107017); a finalized
    /// list (107000, EE1011).
    pub fn kernel_args_append(
        &self,
        args: RawArgs,
        param: Option<&[u8]>,
        param_handle: Option<&mut RawParam>,
    ) -> AclResult<()> {
        let args = args.0;
        self.call(|| {
            let api = "aclrtKernelArgsAppend";
            if args == 0 {
                return Err(fail::acl_null(api, "argsHandle"));
            }
            let param = param.ok_or_else(|| fail::acl_null(api, "param"))?;
            if param.is_empty() {
                return Err(fail::acl_range(api, "paramSize", 0, "greater than 0"));
            }
            let out_param_handle =
                param_handle.ok_or_else(|| fail::acl_null(api, "paramHandle"))?;
            if param.len() > crate::runtime::MAX_KERNEL_ARGS_BYTES {
                return Err(too_large(api, "paramSize", param.len()));
            }
            let mut st = self.lock();
            let h = st.new_handle(HandleKind::Param);
            Self::args_mut(&mut st, api, args)?
                .args
                .push((h, Arg::Value(param.to_vec())));
            *out_param_handle = RawParam(h);
            Ok(())
        })
    }

    /// `aclrtKernelArgsAppendPlaceHolder(argsHandle, &paramHandle)`: an argument whose data
    /// the program writes into the buffer `aclrtKernelArgsGetPlaceHolderBuffer` gives, copied
    /// to device memory at launch. Order: argsHandle, paramHandle NULL (100000, EH0008); not a
    /// live list (107017); finalized (107000).
    pub fn kernel_args_append_placeholder(
        &self,
        args: RawArgs,
        param_handle: Option<&mut RawParam>,
    ) -> AclResult<()> {
        let args = args.0;
        self.call(|| {
            let api = "aclrtKernelArgsAppendPlaceHolder";
            if args == 0 {
                return Err(fail::acl_null(api, "argsHandle"));
            }
            let out_param_handle =
                param_handle.ok_or_else(|| fail::acl_null(api, "paramHandle"))?;
            let mut st = self.lock();
            let h = st.new_handle(HandleKind::Param);
            Self::args_mut(&mut st, api, args)?
                .args
                .push((h, Arg::Placeholder(None)));
            *out_param_handle = RawParam(h);
            Ok(())
        })
    }

    /// `aclrtKernelArgsGetPlaceHolderBuffer(argsHandle, paramHandle, dataSize, &buffer)`: the
    /// placeholder's host buffer of `dataSize` bytes (zeroed; a later call gives a fresh one).
    /// Order: argsHandle, paramHandle NULL (100000, EH0008); dataSize 0 (EH0007); buffer NULL
    /// (EH0008); not a live list or a placeholder of it (107017).
    pub fn kernel_args_placeholder_buffer(
        &self,
        args: RawArgs,
        param: RawParam,
        size: usize,
        buffer: Option<&mut Option<HostBuf>>,
    ) -> AclResult<()> {
        let args = args.0;
        let param = param.0;
        self.call(|| {
            let api = "aclrtKernelArgsGetPlaceHolderBuffer";
            if args == 0 {
                return Err(fail::acl_null(api, "argsHandle"));
            }
            if param == 0 {
                return Err(fail::acl_null(api, "paramHandle"));
            }
            if size == 0 {
                return Err(fail::acl_range(api, "dataSize", 0, "greater than 0"));
            }
            let out_buffer = buffer.ok_or_else(|| fail::acl_null(api, "bufferAddr"))?;
            // The data is copied to device memory at launch: no more than a device holds, and
            // host memory for it or a clear error.
            if size as u64 > self.chip.memory.device_bytes {
                return Err(fail::rt_value(
                    api,
                    "dataSize",
                    size,
                    &format!(
                        "at most the device's {} bytes",
                        self.chip.memory.device_bytes
                    ),
                ));
            }
            let mut data = Vec::new();
            if data.try_reserve_exact(size).is_err() {
                return Err(AclError::new(
                    ErrorCode::RtMemoryAllocation,
                    None,
                    format!(
                        "{api} failed: no host memory for a placeholder buffer of {size} bytes"
                    ),
                ));
            }
            data.resize(size, 0);
            let mut st = self.lock();
            let rec = st
                .kernel_args
                .get_mut(&args)
                .ok_or_else(|| unknown(api, "argument list", args))?;
            let slot = rec
                .args
                .iter_mut()
                .find(|(h, a)| *h == param && matches!(a, Arg::Placeholder(_)))
                .ok_or_else(|| unknown(api, "placeholder", param))?;
            let buf: HostBuf = Arc::new(Mutex::new(data));
            slot.1 = Arg::Placeholder(Some(buf.clone()));
            *out_buffer = Some(buf);
            Ok(())
        })
    }

    /// `aclrtKernelArgsParaUpdate(argsHandle, paramHandle, param, paramSize)`: replaces an
    /// argument's bytes. Order: argsHandle, paramHandle, param NULL (100000, EH0008); paramSize
    /// 0 (EH0007); not a live list or an argument of it (107017).
    pub fn kernel_args_para_update(
        &self,
        args: RawArgs,
        param: RawParam,
        value: Option<&[u8]>,
    ) -> AclResult<()> {
        let args = args.0;
        let param = param.0;
        self.call(|| {
            let api = "aclrtKernelArgsParaUpdate";
            if args == 0 {
                return Err(fail::acl_null(api, "argsHandle"));
            }
            if param == 0 {
                return Err(fail::acl_null(api, "paramHandle"));
            }
            let value = value.ok_or_else(|| fail::acl_null(api, "param"))?;
            if value.is_empty() {
                return Err(fail::acl_range(api, "paramSize", 0, "greater than 0"));
            }
            if value.len() > crate::runtime::MAX_KERNEL_ARGS_BYTES {
                return Err(too_large(api, "paramSize", value.len()));
            }
            let mut st = self.lock();
            let rec = st
                .kernel_args
                .get_mut(&args)
                .ok_or_else(|| unknown(api, "argument list", args))?;
            let slot = rec
                .args
                .iter_mut()
                .find(|(h, _)| *h == param)
                .ok_or_else(|| unknown(api, "argument", param))?;
            slot.1 = Arg::Value(value.to_vec());
            Ok(())
        })
    }

    /// `aclrtKernelArgsFinalize(argsHandle)`: the list takes no more arguments. Order: NULL
    /// (100000, EH0008); not a live list (107017).
    pub fn kernel_args_finalize(&self, args: RawArgs) -> AclResult<()> {
        let args = args.0;
        self.call(|| {
            let api = "aclrtKernelArgsFinalize";
            if args == 0 {
                return Err(fail::acl_null(api, "argsHandle"));
            }
            let mut st = self.lock();
            let rec = st
                .kernel_args
                .get_mut(&args)
                .ok_or_else(|| unknown(api, "argument list", args))?;
            rec.finalized = true;
            Ok(())
        })
    }

    /// `aclrtLaunchKernelWithConfig(funcHandle, numBlocks, stream, cfg, argsHandle, reserve)`:
    /// runs the function's simulator kernel on `numBlocks` blocks with the packed arguments.
    /// Order: funcHandle NULL (100000, EH0008); numBlocks 0 (EH0007); argsHandle NULL (EH0008);
    /// reserve not NULL (EH0012); not a live function or list (107017); the stream (107017,
    /// 107002, 107003); no simulator kernel registered for the function's name (207000,
    /// naming it). Each placeholder's buffer is copied into fresh device memory, freed once the
    /// stream has run the kernel.
    pub fn launch_kernel_with_config(
        &self,
        func: RawFunction,
        blocks: u32,
        stream: RawStream,
        args: RawArgs,
        reserve_is_null: bool,
    ) -> AclResult<()> {
        let func = func.0;
        let args = args.0;
        self.call(|| {
            let api = "aclrtLaunchKernelWithConfig";
            if func == 0 {
                return Err(fail::acl_null(api, "funcHandle"));
            }
            if blocks == 0 {
                return Err(fail::acl_range(api, "numBlocks", 0, "greater than 0"));
            }
            if args == 0 {
                return Err(fail::acl_null(api, "argsHandle"));
            }
            if !reserve_is_null {
                return Err(fail::acl_reserved(api, "reserve"));
            }
            let (name, path, list, factory) = {
                let st = self.lock();
                let f = st.functions.get(&func).ok_or_else(|| unknown(api, "function", func))?;
                let a = st.kernel_args.get(&args).ok_or_else(|| unknown(api, "argument list", args))?;
                let path = st.binaries.get(&f.binary).map(|b| b.path.clone()).unwrap_or_default();
                (f.name.clone(), path, a.args.clone(), st.sim_functions.0.get(&f.name).cloned())
            };
            self.require_stream_handle(api, stream)?;
            let rec = {
                let st = self.lock();
                Self::impl_stream(&st, api, stream)?.1
            };
            let factory = factory.ok_or_else(|| {
                fail::not_supported_reported(
                    api,
                    &self.chip.soc_name,
                    &format!(
                        "no simulator kernel is registered for function {name:?} of {path}: the simulator cannot run an Ascend C binary; build a simulator kernel named {name} (acl/acl_sim.h) into a library and name it in ASCEND_SIM_KERNELS"
                    ),
                )
            })?;
            self.free_idle_placeholder_memory();
            let mut packed = Vec::new();
            let mut copied = Vec::new();
            for (_, a) in &list {
                match a {
                    Arg::Value(bytes) => packed.extend_from_slice(bytes),
                    Arg::Placeholder(buf) => {
                        let data = buf
                            .as_ref()
                            .map(|b| b.lock().unwrap_or_else(|p| p.into_inner()).clone())
                            .unwrap_or_default();
                        let addr = self.placeholder_memory(rec.device, &data);
                        let addr = match addr {
                            Ok(a) => a,
                            Err(e) => {
                                self.free_placeholder_memory(rec.device, &copied);
                                return Err(e);
                            }
                        };
                        copied.push(addr);
                        packed.extend_from_slice(&addr.to_le_bytes());
                    }
                }
            }
            let kernel = factory(&packed);
            let launched = self.launch(&rec, Task::Kernel { kernel, blocks });
            if launched.is_err() {
                self.free_placeholder_memory(rec.device, &copied);
            } else {
                // Kept until the stream has gone idle: recorded after the launch, so that an
                // idle stream means this kernel has run.
                let kept_by_model = rec.model.is_some()
                    || rec.flags & crate::raw_types::stream_flag::PERSISTENT != 0
                    || self.capture_target(rec.backend) != rec.backend;
                self.lock()
                    .placeholder_memory
                    .extend(copied.iter().map(|&addr| PlaceholderMemory {
                        device: rec.device,
                        addr,
                        stream: rec.backend,
                        kept_by_model,
                    }));
            }
            launched
        })
    }

    /// Frees the placeholder memory of launches whose streams have gone idle (or are gone):
    /// their kernels have read it.
    pub(super) fn free_idle_placeholder_memory(&self) {
        let held: Vec<PlaceholderMemory> = self
            .lock()
            .placeholder_memory
            .iter()
            .filter(|p| !p.kept_by_model)
            .copied()
            .collect();
        if held.is_empty() {
            return;
        }
        let mut streams: Vec<StreamId> = held.iter().map(|p| p.stream).collect();
        streams.sort_unstable_by_key(|s| s.0);
        streams.dedup();
        let idle: Vec<StreamId> = streams
            .into_iter()
            .filter(|s| self.backend.stream_idle(*s).unwrap_or(true))
            .collect();
        let done: Vec<PlaceholderMemory> = held
            .into_iter()
            .filter(|p| idle.contains(&p.stream))
            .collect();
        if done.is_empty() {
            return;
        }
        // Only the entries seen above and still held: a launch recorded since may still be
        // queued, and another thread may have freed an entry meanwhile (its address may
        // already be someone else's). An entry is taken out, and its allocation forgotten,
        // under one lock: a reset cannot free it, and a new allocation take its address, in
        // between.
        let freed: Vec<PlaceholderMemory> = {
            let mut st = self.lock();
            let mut freed = Vec::new();
            st.placeholder_memory.retain(|p| {
                let go = done.contains(p);
                if go {
                    freed.push(*p);
                }
                !go
            });
            for p in &freed {
                st.allocs.remove(&p.addr);
            }
            freed
        };
        for p in freed {
            self.free_forgotten_placeholder(p.device, p.addr);
        }
    }

    /// Frees placeholder memory that no launch names (the launch failed).
    fn free_placeholder_memory(&self, device: u32, addrs: &[u64]) {
        for &addr in addrs {
            if self.lock().allocs.remove(&addr).is_some() {
                self.free_forgotten_placeholder(device, addr);
            }
        }
    }

    /// Gives back placeholder memory the bookkeeping has already forgotten.
    fn free_forgotten_placeholder(&self, device: u32, addr: u64) {
        if let Err(e) = self.backend.free(device, addr) {
            tracing::warn!("freeing placeholder memory {addr:#x}: {e}");
        }
    }

    /// Device memory holding `data` for a placeholder argument, allocated and filled now; freed
    /// once the launch's stream has gone idle (at a later launch, an unload, a synchronize), or
    /// with the device.
    fn placeholder_memory(&self, device: u32, data: &[u8]) -> AclResult<u64> {
        let len = (data.len().max(1) as u64).next_multiple_of(32);
        let addr = self.backend.malloc(device, len, 0)?;
        self.lock().allocs.insert(
            addr,
            super::state::Alloc {
                len,
                kind: super::state::AllocKind::Device(device),
            },
        );
        if !data.is_empty() {
            self.backend
                .memcpy(crate::backend::SyncCopy::HostToDevice {
                    dst: addr,
                    src: data,
                })
                .map_err(AclError::from)?;
        }
        Ok(addr)
    }
}
