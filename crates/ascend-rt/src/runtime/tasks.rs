//! The eight target operations: `aclrtValueWrite`, `aclrtValueWait`, `aclrtCmoAsync`,
//! `aclrtCmoAsyncWithBarrier`, `aclrtCmoWaitBarrier`, `aclrtCmoGetDescSize`,
//! `aclrtCmoSetDesc`, `aclrtCmoAsyncWithDesc` (docs/validation/cmo.md,
//! docs/validation/value-write-wait.md).
//!
//! Each body follows its section's validation table row by row; the comments give the row.

use super::state::Location;
use super::Runtime;
use crate::backend::{CmoType, Task, WaitMode};
use crate::error::{fail, AclError, AclResult, ErrorCode};
use crate::raw_types::{cmo_type, Addr, RawBarrierTaskInfo, RawStream, CMO_MAX_BARRIER_NUM};

/// A documented rule the runtime code does not enforce (see [`super::RuntimeOptions`]).
fn documented(api: &str, param: &str, value: impl std::fmt::Display, expected: &str) -> AclError {
    fail::rt_value(api, param, value, &format!("{expected} (documented rule)"))
}

impl Runtime {
    /// The documentation allows only PREFETCH for `api` (the code takes every type): refused
    /// under the documented rules, else warned of once per call site.
    fn documented_prefetch_only(&self, api: &'static str, cmo: u32, op: CmoType) -> AclResult<()> {
        if op == CmoType::Prefetch {
            return Ok(());
        }
        if self.options.documented_rules {
            return Err(documented(api, "cmoType", cmo, "ACL_RT_CMO_TYPE_PREFETCH"));
        }
        self.code_differs(api, "prefetch-only", || {
            format!(
                "cmoType {} is documented for ACL_RT_CMO_TYPE_PREFETCH only",
                op.name()
            )
        });
        Ok(())
    }
}

/// The value APIs' error for an address outside device memory (the pointer-attribute check).
fn not_device_memory(api: &str, addr: Addr) -> AclError {
    fail::rt_value(
        api,
        "devAddr",
        format!("{:#x}", addr.0),
        "an address in device memory (memory location type DEVICE)",
    )
}

/// The runtime opcode for an ACL `aclrtCmoType`: +6 in unsigned 32-bit arithmetic, unchecked.
fn opcode(acl_type: u32) -> u32 {
    acl_type.wrapping_add(cmo_type::RT_OPCODE_OFFSET)
}

impl Runtime {
    fn value_task(
        &self,
        api: &'static str,
        addr: Addr,
        flag_ok: bool,
        flag_err: impl FnOnce() -> AclError,
        stream: RawStream,
        task: Task,
    ) -> AclResult<()> {
        // 1. ACL: devAddr NULL.
        if addr.is_null() {
            return Err(fail::acl_null(api, "devAddr"));
        }
        // 2. RT: feature gate.
        if !self.chip.features.task_value_wait {
            return Err(fail::not_supported(
                api,
                &self.chip.soc_name,
                "the chip has no stream value write/wait",
            ));
        }
        // Steps 3 to 8 read the state: one lock for all of them (the checks are still made in
        // CANN's order).
        let rec = {
            let st = self.lock();
            // 3. RT: stream handle.
            Self::check_stream_handle(&st, api, stream)?;
            // 5. RT decorator: flag.
            if !flag_ok {
                return Err(flag_err());
            }
            // 7. RT decorator: location type must be DEVICE.
            if !matches!(st.locate(addr.0), Location::Device { .. }) {
                return Err(not_device_memory(api, addr));
            }
            // Documented only: 8-byte alignment.
            if !addr.0.is_multiple_of(8) {
                if self.options.documented_rules {
                    return Err(documented(
                        api,
                        "devAddr",
                        format!("{:#x}", addr.0),
                        "an 8-byte aligned address",
                    ));
                }
                self.code_differs(api, "8-byte-aligned", || {
                    format!(
                        "devAddr {:#x} is not 8-byte aligned (the word read or written is the \
                         8 bytes from it)",
                        addr.0
                    )
                });
            }
            // 8. RT impl: context and stream's context.
            Self::impl_stream(&st, api, stream)?.1
        };
        // 9. core: submit.
        self.launch(&rec, task)
    }

    /// `aclrtValueWrite(devAddr, value, flag, stream)`: stores the 64-bit `value` when the
    /// stream reaches the task. `flag` must be 0.
    pub fn value_write(
        &self,
        dev_addr: Addr,
        value: u64,
        flag: u32,
        stream: RawStream,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtValueWrite";
            self.value_task(
                api,
                dev_addr,
                flag == 0,
                || fail::rt_value(api, "flag", flag, "0"),
                stream,
                Task::ValueWrite {
                    addr: dev_addr.0,
                    value,
                },
            )
        })
    }

    /// `aclrtValueWait(devAddr, value, flag, stream)`: blocks the stream until the 64-bit word
    /// satisfies the compare `flag` (GEQ 0, EQ 1, AND 2, NOR 3).
    pub fn value_wait(
        &self,
        dev_addr: Addr,
        value: u64,
        flag: u32,
        stream: RawStream,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtValueWait";
            let compare = WaitMode::from_flag(flag);
            self.value_task(
                api,
                dev_addr,
                compare.is_some(),
                || fail::rt_value(api, "flag", flag, "[0, 4)"),
                stream,
                Task::ValueWait {
                    addr: dev_addr.0,
                    value,
                    mode: compare.unwrap_or(WaitMode::Geq),
                },
            )
        })
    }

    /// `aclrtCmoAsync(src, size, cmoType, stream)`: a cache-maintenance task on a plain stream
    /// (model-bound streams are refused with 207000). The code accepts all four types.
    pub fn cmo_async(&self, src: Addr, size: usize, cmo: u32, stream: RawStream) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCmoAsync";
            let soc = &self.chip.soc_name;
            // 1-2. ACL: src NULL, size 0.
            if src.is_null() {
                return Err(fail::acl_null(api, "src"));
            }
            if size == 0 {
                return Err(fail::acl_range(api, "size", 0, "greater than 0"));
            }
            // 3. RT: feature gate (a warning only: not stored as the last error).
            if !self.chip.features.task_cmo {
                return Err(
                    fail::not_supported(api, soc, "the chip has no CMO tasks").without_last_error()
                );
            }
            // 4. RT: opcode in 6..=9 (the same early return: not stored either).
            let Some(op) = CmoType::from_raw(cmo) else {
                return Err(fail::not_supported(
                    api,
                    soc,
                    &format!(
                        "cmoType {cmo} (opcode {}) is not a CMO operation",
                        opcode(cmo)
                    ),
                )
                .without_last_error());
            };
            self.documented_prefetch_only(api, cmo, op)?;
            // 8. RT: stream handle.
            // 10. RT impl: context and stream's context.
            let rec = self.task_stream(api, stream)?;
            // 11. core: not on a model-bound stream.
            if rec.model.is_some() {
                return Err(fail::not_supported(
                    api,
                    soc,
                    "CMO tasks are not supported on a model-bound stream",
                ));
            }
            self.note_narrowed_size(api, size);
            self.launch(
                &rec,
                Task::Cmo {
                    op,
                    addr: src.0,
                    len: size as u64,
                },
            )
        })
    }

    /// `aclrtCmoAsyncWithBarrier(src, size, cmoType, barrierId, stream)`: a CMO task on a
    /// model-bound stream carrying a barrier id (> 0 for INVALID, 0 for the others).
    pub fn cmo_async_with_barrier(
        &self,
        src: Addr,
        size: usize,
        cmo: u32,
        barrier_id: u32,
        stream: RawStream,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCmoAsyncWithBarrier";
            let soc = &self.chip.soc_name;
            // 1. ACL: src NULL.
            if src.is_null() {
                return Err(fail::acl_null(api, "src"));
            }
            // 2. RT: feature gate.
            if !self.chip.features.task_async_cmo {
                return Err(fail::not_supported(
                    api,
                    soc,
                    "the chip has no barrier CMO tasks",
                ));
            }
            // 4. RT: size.
            if size == 0 {
                return Err(fail::rt_value(api, "size", 0, "greater than 0"));
            }
            // 5-6. RT: barrier id rule.
            if cmo == cmo_type::INVALID && barrier_id == 0 {
                return Err(fail::rt_reason(
                    api,
                    "barrierId",
                    0,
                    "an INVALID operation needs a barrier id greater than 0",
                ));
            }
            if matches!(
                cmo,
                cmo_type::PREFETCH | cmo_type::WRITEBACK | cmo_type::FLUSH
            ) && barrier_id != 0
            {
                return Err(fail::rt_reason(
                    api,
                    "barrierId",
                    barrier_id,
                    "only an INVALID operation may carry a barrier id; pass 0",
                ));
            }
            // 7. RT: opcode in 6..=9.
            let Some(op) = CmoType::from_raw(cmo) else {
                return Err(fail::not_supported(
                    api,
                    soc,
                    &format!(
                        "cmoType {cmo} (opcode {}) is not a CMO operation",
                        opcode(cmo)
                    ),
                ));
            };
            // 9-10. RT: stream handle; impl: contexts.
            let rec = self.task_stream(api, stream)?;
            // 11. core: the stream must be bound to a model.
            let Some(model) = rec.model else {
                return Err(fail::not_in_model(api, stream.0));
            };
            self.note_narrowed_size(api, size);
            self.launch(
                &rec,
                Task::CmoWithBarrier {
                    op,
                    addr: src.0,
                    len: size as u64,
                    barrier_id,
                },
            )?;
            if let Some(m) = self.lock().models.get_mut(&model) {
                m.barrier_ids.insert(barrier_id);
            }
            Ok(())
        })
    }

    /// `aclrtCmoWaitBarrier(taskInfo, stream, flag)`: waits for the INVALID operations of the
    /// listed barrier ids. `flag` is never checked (as in CANN's code) unless
    /// [`RuntimeOptions::documented_rules`](super::RuntimeOptions) is set.
    pub fn cmo_wait_barrier(
        &self,
        task_info: Option<&RawBarrierTaskInfo>,
        stream: RawStream,
        flag: u32,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCmoWaitBarrier";
            // 1-2. ACL: NULL, count.
            let info = task_info.ok_or_else(|| fail::acl_null(api, "taskInfo"))?;
            let n = info.barrier_num;
            if n == 0 || n > CMO_MAX_BARRIER_NUM {
                return Err(fail::acl_range(api, "taskInfo->barrierNum", n, "(0, 6]"));
            }
            // 5-6. RT: each entry INVALID with a non-zero id (before the feature gate).
            for (i, e) in info.cmo_info[..n].iter().enumerate() {
                if opcode(e.cmo_type) != cmo_type::INVALID + cmo_type::RT_OPCODE_OFFSET {
                    return Err(fail::rt_value(api, &format!("cmoInfo[{i}].cmoType"), e.cmo_type, "CMO_INVALID(8) (ACL_RT_CMO_TYPE_INVALID)"));
                }
                if e.barrier_id == 0 {
                    return Err(fail::rt_value(api, &format!("cmoInfo[{i}].barrierId"), 0, "not equal to 0"));
                }
            }
            // Documented only: the reserved flag must be 0 (the code never reads it).
            if flag != 0 {
                if self.options.documented_rules {
                    return Err(documented(api, "flag", flag, "0 (reserved)"));
                }
                self.code_differs(api, "reserved-flag", || {
                    format!("flag {flag} is reserved (documented as 0; the code never reads it)")
                });
            }
            // 7. RT: feature gate, reported with EE1005.
            if !self.chip.features.task_async_cmo {
                return Err(fail::not_supported_reported(api, &self.chip.soc_name, "barrier tasks need RT_FEATURE_TASK_ASYNC_CMO"));
            }
            // 8, 10. RT: stream handle; impl: contexts.
            let rec = self.task_stream(api, stream)?;
            // 11. core: model-bound stream.
            let Some(model) = rec.model else {
                return Err(fail::not_in_model(api, stream.0));
            };
            // 12. core: each id used by a barrier CMO of this model.
            let ids: Vec<u32> = info.cmo_info[..n].iter().map(|e| e.barrier_id).collect();
            if self.chip.features.model_cmo_barrier {
                let st = self.lock();
                let Some(known) = st.models.get(&model).map(|m| &m.barrier_ids) else {
                    return Err(fail::not_in_model(api, stream.0));
                };
                if let Some(id) = ids.iter().find(|id| !known.contains(id)) {
                    return Err(fail::plain(
                        ErrorCode::RtStreamModel,
                        format!("{api} failed: barrier id {id} was never used by aclrtCmoAsyncWithBarrier in model {model:#x}"),
                    ));
                }
            }
            self.launch(&rec, Task::CmoWaitBarrier { barrier_ids: ids })
        })
    }

    /// `aclrtCmoGetDescSize(&size)`: 32 on A2/A3, 64 on the 950 family.
    pub fn cmo_get_desc_size(&self, size: Option<&mut usize>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCmoGetDescSize";
            if !self.chip.features.task_cmo {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    "the chip has no CMO tasks",
                ));
            }
            let out = size.ok_or_else(|| fail::rt_null(api, "size"))?;
            *out = self.chip.cmo.desc_size as usize;
            Ok(())
        })
    }

    /// The descriptor argument: device memory with room for a whole descriptor.
    fn require_desc_memory(&self, api: &str, desc: Addr) -> AclResult<()> {
        let need = self.chip.cmo.desc_size as u64;
        match self.lock().locate(desc.0) {
            Location::Device { room, .. } if room >= need => Ok(()),
            _ => Err(fail::rt_value(
                api,
                "cmoDesc",
                format!("{:#x}", desc.0),
                &format!("device memory with room for a {need}-byte descriptor"),
            )),
        }
    }

    /// `aclrtCmoSetDesc(cmoDesc, src, size)`: writes the descriptor (source and 32-bit length)
    /// into device memory, synchronously.
    pub fn cmo_set_desc(&self, cmo_desc: Addr, src: Addr, size: usize) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCmoSetDesc";
            if !self.chip.features.task_cmo {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    "the chip has no CMO tasks",
                ));
            }
            if cmo_desc.is_null() {
                return Err(fail::rt_null(api, "cmoDesc"));
            }
            if src.is_null() {
                return Err(fail::rt_null(api, "src"));
            }
            if size == 0 {
                return Err(fail::rt_value(api, "size", 0, "not equal to 0"));
            }
            {
                let st = self.lock();
                Self::current_device(&st, api)?;
            }
            self.require_desc_memory(api, cmo_desc)?;
            self.note_narrowed_size(api, size);
            self.backend
                .cmo_set_desc(cmo_desc.0, src.0, size as u64)
                .map_err(AclError::from)
        })
    }

    /// `aclrtCmoAsyncWithDesc(cmoDesc, cmoType, stream, reserve)`: a CMO task described by a
    /// descriptor; the stream must be bound to a model (507000 otherwise).
    pub fn cmo_async_with_desc(
        &self,
        cmo_desc: Addr,
        cmo: u32,
        stream: RawStream,
        reserve: Addr,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCmoAsyncWithDesc";
            // 1. RT: reserve must be NULL.
            if !reserve.is_null() {
                return Err(fail::rt_value(
                    api,
                    "reserve",
                    format!("{:#x}", reserve.0),
                    "nullptr",
                ));
            }
            // 2. RT: descriptor support.
            if self.chip.cmo.desc_size == 0 {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    "the chip has no CMO descriptors",
                ));
            }
            // 3. RT: stream handle.
            self.require_stream_handle(api, stream)?;
            // 4-5. RT decorator: descriptor NULL, opcode range.
            if cmo_desc.is_null() {
                return Err(fail::rt_null(api, "cmoDesc"));
            }
            let Some(op) = CmoType::from_raw(cmo) else {
                return Err(fail::rt_value(
                    api,
                    "cmoType",
                    cmo,
                    "[0, 3] (runtime opcode [6, 10))",
                ));
            };
            self.documented_prefetch_only(api, cmo, op)?;
            // 7. RT impl: contexts.
            let rec = {
                let st = self.lock();
                Self::impl_stream(&st, api, stream)?.1
            };
            // 8. core: model-bound stream.
            if rec.model.is_none() {
                return Err(fail::not_in_model(api, stream.0));
            }
            // 9. core: the descriptor head is written in device memory.
            self.require_desc_memory(api, cmo_desc)?;
            self.launch(
                &rec,
                Task::CmoWithDesc {
                    desc: cmo_desc.0,
                    op,
                },
            )
        })
    }
}
