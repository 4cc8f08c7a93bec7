//! The custom allocator registry (`acl_rt_allocator.h`): descriptors holding an allocator
//! object and its functions, registered per stream for the libraries that allocate on a
//! stream's behalf (`aclrtAllocatorGetByStream`).
//!
//! As in the vendor's runtime (docs/validation/allocator.md), the runtime itself never calls
//! the functions: the registry is bookkeeping, process-wide, keyed by the stream's handle
//! value, and registering copies the descriptor's fields (a later change to the descriptor
//! does not change a registration). The object and functions are the program's pointers,
//! kept here as numbers and never called.

use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};

/// A descriptor's fields: the allocator object and its four functions (0 for unset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AllocatorFields {
    /// `aclrtAllocator`: the program's allocator object.
    pub obj: u64,
    /// `aclrtAllocatorAllocFunc`.
    pub alloc: u64,
    /// `aclrtAllocatorFreeFunc`.
    pub free: u64,
    /// `aclrtAllocatorAllocAdviseFunc` (optional).
    pub alloc_advise: u64,
    /// `aclrtAllocatorGetAddrFromBlockFunc`.
    pub get_addr_from_block: u64,
}

/// Which field of a descriptor a setter sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocatorField {
    /// `aclrtAllocatorSetObjToDesc`.
    Obj,
    /// `aclrtAllocatorSetAllocFuncToDesc`.
    Alloc,
    /// `aclrtAllocatorSetFreeFuncToDesc`.
    Free,
    /// `aclrtAllocatorSetAllocAdviseFuncToDesc`.
    AllocAdvise,
    /// `aclrtAllocatorSetGetAddrFromBlockFuncToDesc`.
    GetAddrFromBlock,
}

impl AllocatorField {
    fn api(self) -> (&'static str, &'static str) {
        match self {
            AllocatorField::Obj => ("aclrtAllocatorSetObjToDesc", "allocator"),
            AllocatorField::Alloc => ("aclrtAllocatorSetAllocFuncToDesc", "func"),
            AllocatorField::Free => ("aclrtAllocatorSetFreeFuncToDesc", "func"),
            AllocatorField::AllocAdvise => ("aclrtAllocatorSetAllocAdviseFuncToDesc", "func"),
            AllocatorField::GetAddrFromBlock => {
                ("aclrtAllocatorSetGetAddrFromBlockFuncToDesc", "func")
            }
        }
    }
}

/// A descriptor handle the runtime never gave out, or already destroyed (100000, EH0012): the
/// vendor's runtime would use the pointer as it is; the simulator refuses it.
fn not_a_desc(api: &str, desc: u64) -> AclError {
    AclError::new(
        ErrorCode::InvalidParam,
        Some(MsgCode::EH0012),
        format!("{api} failed: allocatorDesc {desc:#x} is not a live allocator descriptor (aclrtAllocatorCreateDesc)"),
    )
}

impl Runtime {
    /// `aclrtAllocatorCreateDesc()`: a new descriptor with every field unset. Needs no device.
    pub fn allocator_create_desc(&self) -> u64 {
        let mut st = self.lock();
        let h = st.new_handle(super::state::HandleKind::AllocatorDesc);
        st.allocator_descs.insert(h, AllocatorFields::default());
        h
    }

    /// `aclrtAllocatorDestroyDesc(desc)`: NULL is 100000 (EH0008). A registration made from
    /// the descriptor stays.
    pub fn allocator_destroy_desc(&self, desc: u64) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtAllocatorDestroyDesc";
            if desc == 0 {
                return Err(fail::acl_null(api, "allocatorDesc"));
            }
            self.lock()
                .allocator_descs
                .remove(&desc)
                .map(|_| ())
                .ok_or_else(|| not_a_desc(api, desc))
        })
    }

    /// The five setters: desc NULL, then the value NULL (100000, EH0008). A field cannot be
    /// set back to NULL.
    pub fn allocator_set(&self, desc: u64, field: AllocatorField, value: u64) -> AclResult<()> {
        self.call(|| {
            let (api, param) = field.api();
            if desc == 0 {
                return Err(fail::acl_null(api, "allocatorDesc"));
            }
            if value == 0 {
                return Err(fail::acl_null(api, param));
            }
            let mut st = self.lock();
            let d = st
                .allocator_descs
                .get_mut(&desc)
                .ok_or_else(|| not_a_desc(api, desc))?;
            match field {
                AllocatorField::Obj => d.obj = value,
                AllocatorField::Alloc => d.alloc = value,
                AllocatorField::Free => d.free = value,
                AllocatorField::AllocAdvise => d.alloc_advise = value,
                AllocatorField::GetAddrFromBlock => d.get_addr_from_block = value,
            }
            Ok(())
        })
    }

    /// `aclrtAllocatorRegister(stream, desc)`: the descriptor's fields, copied, for `stream`
    /// (a later registration replaces it). Order: stream NULL (the default stream is refused),
    /// desc NULL, then its object, alloc, free and get-address functions unset (100000,
    /// EH0008); the advise function is optional. The stream handle is not otherwise checked.
    pub fn allocator_register(&self, stream: u64, desc: u64) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtAllocatorRegister";
            if stream == 0 {
                return Err(fail::acl_null(api, "stream"));
            }
            if desc == 0 {
                return Err(fail::acl_null(api, "allocatorDesc"));
            }
            let mut st = self.lock();
            let d = *st
                .allocator_descs
                .get(&desc)
                .ok_or_else(|| not_a_desc(api, desc))?;
            for (v, name) in [
                (d.obj, "allocatorDesc->obj"),
                (d.alloc, "allocatorDesc->allocFunc"),
                (d.free, "allocatorDesc->freeFunc"),
                (d.get_addr_from_block, "allocatorDesc->getAddrFromBlockFunc"),
            ] {
                if v == 0 {
                    return Err(fail::acl_null(api, name));
                }
            }
            st.allocators.insert(stream, (desc, d));
            Ok(())
        })
    }

    /// `aclrtAllocatorGetByStream(stream, &desc, ...)`: the descriptor handle registered and
    /// the fields copied at registration. Order: the descriptor output NULL, then stream NULL
    /// (100000, EH0008); a stream with no allocator (100000, EH0012). The fields' output is
    /// optional (the C call's other outputs each are).
    pub fn allocator_get_by_stream(
        &self,
        stream: u64,
        desc: Option<&mut u64>,
        fields: Option<&mut AllocatorFields>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtAllocatorGetByStream";
            let desc = desc.ok_or_else(|| fail::acl_null(api, "allocatorDesc"))?;
            if stream == 0 {
                return Err(fail::acl_null(api, "stream"));
            }
            let (d, f) = self
                .lock()
                .allocators
                .get(&stream)
                .copied()
                .ok_or_else(|| {
                    AclError::new(
                        ErrorCode::InvalidParam,
                        Some(MsgCode::EH0012),
                        format!(
                        "{api} failed: the stream {stream:#x} is not registered with any allocator"
                    ),
                    )
                })?;
            *desc = d;
            if let Some(fields) = fields {
                *fields = f;
            }
            Ok(())
        })
    }

    /// `aclrtAllocatorUnregister(stream)`: stream NULL is 100000 (EH0008); a stream with no
    /// allocator succeeds.
    pub fn allocator_unregister(&self, stream: u64) -> AclResult<()> {
        self.call(|| {
            if stream == 0 {
                return Err(fail::acl_null("aclrtAllocatorUnregister", "stream"));
            }
            self.lock().allocators.remove(&stream);
            Ok(())
        })
    }
}
