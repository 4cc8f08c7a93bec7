//! [`VirtualMemory`]: the backend's role for physical memory, reserved virtual address ranges
//! and the mappings between them (`aclrtMallocPhysical`, `aclrtReserveMemAddress`,
//! `aclrtMapMem` and their inverses), and physical memory shared with other processes by a
//! shareable handle (`aclrtMemExportToShareableHandle` and the calls around it).

use super::BResult;

/// What importing a shareable handle gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhysicalImport {
    /// The backend's handle of the physical memory, in the importer's view.
    pub handle: u64,
    /// Its length in bytes, where the backend knows it.
    pub len: Option<u64>,
    /// The device it lies on.
    pub device: u32,
}

/// Physical memory, virtual ranges and shareable handles.
///
/// Every handle passed here is one the backend gave (the front end keeps which are live);
/// lengths and offsets are whole granules (the chip's granularity), checked by the front end.
pub trait VirtualMemory {
    /// `aclrtMallocPhysical`'s driver part: `bytes` of physical memory on `device`, of the
    /// memory and page type `mem_attr` (an `aclrtMemAttr`). Returns the backend's handle of
    /// it.
    fn malloc_physical(&self, device: u32, bytes: u64, mem_attr: u32) -> BResult<u64>;

    /// `aclrtFreePhysical`'s driver part: frees the physical memory `handle` names (mapped
    /// nowhere in this process), or closes this process's import of it (`import`: the
    /// shareable handle it was imported by), for process `pid`.
    fn free_physical(&self, device: u32, handle: u64, import: Option<u64>, pid: u32)
        -> BResult<()>;

    /// `aclrtReserveMemAddress`'s driver part: `bytes` of virtual addresses, aligned to
    /// `align` (a power of two), on `device`'s window; never an address in use.
    fn reserve_address(&self, device: u32, bytes: u64, align: u64) -> BResult<u64>;

    /// `aclrtReleaseMemAddress`'s driver part: the range reserved at `va`, holding no mapping.
    fn release_address(&self, va: u64) -> BResult<()>;

    /// `aclrtMapMem`'s driver part: maps `bytes` of the physical memory `handle` names (on
    /// `device`), from `offset` on, at `va` (inside one reserved range, over nothing mapped).
    fn map_memory(&self, device: u32, va: u64, bytes: u64, offset: u64, handle: u64)
        -> BResult<()>;

    /// `aclrtUnmapMem`'s driver part: unmaps the mapping that starts at `va`.
    fn unmap_memory(&self, va: u64) -> BResult<()>;

    /// `aclrtMemSetAccess`'s driver part: `device` may read and write (`flags`, the ACL
    /// value) the mapped `[va, va+bytes)`. The simulated device has no access control.
    fn set_access(&self, va: u64, bytes: u64, device: u32, flags: u32) -> BResult<()>;

    /// `aclrtMemExportToShareableHandle`'s driver part: a handle other processes import the
    /// `len` bytes of physical memory `handle` names by; `whitelist`: only the processes
    /// [`VirtualMemory::set_shareable_pids`] names may.
    fn export_shareable(
        &self,
        device: u32,
        handle: u64,
        len: u64,
        whitelist: bool,
        pid: u32,
    ) -> BResult<u64>;

    /// `aclrtMemSetPidToShareableHandle`'s driver part: the processes that may import
    /// `shareable` (its exporter's call).
    fn set_shareable_pids(&self, shareable: u64, pids: &[i32], pid: u32) -> BResult<()>;

    /// The exporter freed the memory `shareable` shares while it still maps it: no process
    /// imports it from now on (the memory itself goes with the last unmap).
    fn close_shareable(&self, shareable: u64, pid: u32) -> BResult<()>;

    /// The device the memory `shareable` names lies on, if the backend can say (the driver's
    /// look-up of an import's exporter, before the import: an unknown or destroyed handle
    /// fails here).
    fn shareable_device(&self, shareable: u64) -> BResult<Option<u32>>;

    /// `aclrtMemImportFromShareableHandle`'s driver part: process `pid` imports `shareable`
    /// on `device`.
    fn import_shareable(&self, shareable: u64, device: u32, pid: u32) -> BResult<PhysicalImport>;
}

/// The [`VirtualMemory`] methods of a backend that is its own driver over a simulator (`sim`:
/// its `Sim`) and its `ipc: IpcShares`: a physical allocation is simulator memory (its handle
/// is its address), a reserved range is the simulator's (`crate::memory::VaMap`), and a
/// shareable handle is a key of the backend's IPC shares.
#[cfg(feature = "sim")]
macro_rules! virtual_memory_on_sim {
    ($map_err:path) => {
        fn malloc_physical(
            &self,
            device: u32,
            bytes: u64,
            _mem_attr: u32,
        ) -> $crate::backend::BResult<u64> {
            self.sim.malloc(device, bytes).map_err($map_err)
        }

        fn free_physical(
            &self,
            device: u32,
            handle: u64,
            import: Option<u64>,
            pid: u32,
        ) -> $crate::backend::BResult<()> {
            match import {
                // The exporter's memory, freed while this import was open, goes now.
                Some(shareable) => match self.ipc.close_shareable_import(shareable, pid)? {
                    Some((device, addr)) => self.sim.free(device, addr).map_err($map_err),
                    None => Ok(()),
                },
                None => $crate::backend::Memory::free(self, device, handle),
            }
        }

        fn reserve_address(
            &self,
            device: u32,
            bytes: u64,
            align: u64,
        ) -> $crate::backend::BResult<u64> {
            self.sim.reserve_va(device, bytes, align).map_err($map_err)
        }

        fn release_address(&self, va: u64) -> $crate::backend::BResult<()> {
            self.sim.release_va(va).map_err($map_err)
        }

        fn map_memory(
            &self,
            _device: u32,
            va: u64,
            bytes: u64,
            offset: u64,
            handle: u64,
        ) -> $crate::backend::BResult<()> {
            self.sim
                .map_va(va, bytes, handle + offset)
                .map_err($map_err)
        }

        fn unmap_memory(&self, va: u64) -> $crate::backend::BResult<()> {
            self.sim.unmap_va(va).map(|_| ()).map_err($map_err)
        }

        fn set_access(
            &self,
            _va: u64,
            _bytes: u64,
            _device: u32,
            _flags: u32,
        ) -> $crate::backend::BResult<()> {
            Ok(())
        }

        $crate::backend::virtual_memory::shareable_by_shares!();
    };
}

/// The shareable-handle methods of [`VirtualMemory`] through a backend's `ipc: IpcShares`.
macro_rules! shareable_by_shares {
    () => {
        fn export_shareable(
            &self,
            device: u32,
            handle: u64,
            len: u64,
            whitelist: bool,
            pid: u32,
        ) -> $crate::backend::BResult<u64> {
            Ok(self
                .ipc
                .export_shareable(device, handle, len, pid, whitelist))
        }

        fn set_shareable_pids(
            &self,
            shareable: u64,
            pids: &[i32],
            pid: u32,
        ) -> $crate::backend::BResult<()> {
            self.ipc.set_shareable_pids(shareable, pids, pid)
        }

        fn close_shareable(&self, shareable: u64, pid: u32) -> $crate::backend::BResult<()> {
            self.ipc.close_shareable(shareable, pid)
        }

        fn shareable_device(&self, shareable: u64) -> $crate::backend::BResult<Option<u32>> {
            self.ipc.shareable_device(shareable).map(Some)
        }

        fn import_shareable(
            &self,
            shareable: u64,
            _device: u32,
            pid: u32,
        ) -> $crate::backend::BResult<$crate::backend::PhysicalImport> {
            let got = self.ipc.import_shareable(shareable, pid)?;
            Ok($crate::backend::PhysicalImport {
                handle: got.addr,
                len: got.len,
                device: got.device,
            })
        }
    };
}

pub(crate) use shareable_by_shares;
#[cfg(feature = "sim")]
pub(crate) use virtual_memory_on_sim;
