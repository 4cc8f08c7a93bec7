//! [`Memory`]: the backend's role for device and page-locked host memory and the calls that
//! move or fill it at once (not on a stream).

use super::{BResult, HostBuf};

/// A synchronous copy, its two ends resolved by the front end: each variant carries its
/// length once (a host slice's own, or `len` between two device ranges).
#[derive(Debug)]
pub enum SyncCopy<'a> {
    /// From host memory into device memory at `dst`.
    HostToDevice {
        /// The first device byte written.
        dst: u64,
        /// The bytes copied.
        src: &'a [u8],
    },
    /// From device memory at `src` into host memory.
    DeviceToHost {
        /// The host bytes written, all of them.
        dst: &'a mut [u8],
        /// The first device byte read.
        src: u64,
    },
    /// `len` bytes from device memory at `src` to device memory at `dst`.
    DeviceToDevice {
        /// The first device byte written.
        dst: u64,
        /// The first device byte read.
        src: u64,
        /// Bytes copied.
        len: u64,
    },
}

/// A zeroed host buffer of `bytes` for `aclrtMallocHost` (out of memory is an error, not an
/// abort): page-locked memory of the backends that simulate it.
pub fn new_host_buf(bytes: usize) -> BResult<HostBuf> {
    let mut v = Vec::new();
    v.try_reserve_exact(bytes).map_err(|e| {
        super::BackendError::OutOfMemory(format!(
            "aclrtMallocHost: cannot allocate {bytes} bytes of host memory: {e}"
        ))
    })?;
    v.resize(bytes, 0);
    Ok(std::sync::Arc::new(std::sync::Mutex::new(v)))
}

/// Device memory, page-locked host memory, and the synchronous copy, fill and CMO descriptor
/// write.
///
/// Every device address or range passed here lies inside one live allocation of the front
/// end's table (checked against its size), on an open device.
pub trait Memory {
    /// Allocates device memory of exactly `bytes` on `device`.
    ///
    /// - the device is open; `bytes` is non-zero and already rounded by the front end;
    ///   `policy` is a valid `aclrtMemMallocPolicy`.
    fn malloc(&self, device: u32, bytes: u64, policy: u32) -> BResult<u64>;

    /// Frees device memory by base address.
    ///
    /// - `addr` is the base of a live allocation of `device`, freed once.
    fn free(&self, device: u32, addr: u64) -> BResult<()>;

    /// Allocates page-locked host memory of `bytes` (non-zero).
    fn malloc_host(&self, bytes: usize) -> BResult<HostBuf>;

    /// Frees page-locked host memory from [`Memory::malloc_host`] at once.
    ///
    /// - the front end has already forgotten `buf`; clones of it may still be alive (a copy
    ///   queued on a stream).
    fn free_host(&self, buf: &HostBuf) -> BResult<()>;

    /// A synchronous copy; it returns when the data has arrived.
    ///
    /// - no lock of a host buffer is held by the caller (a queued copy may need it).
    fn memcpy(&self, copy: SyncCopy<'_>) -> BResult<()>;

    /// Fills `count` bytes of device memory at `addr` with `value`, synchronously.
    fn memset(&self, addr: u64, value: u8, count: u64) -> BResult<()>;

    /// A copy the runtime makes to keep a mapped host registration and its device mirror
    /// alike: as [`Memory::memcpy`], but not the program's own access, so the simulator's
    /// race detection does not see it (the program reaches mapped memory by its CPU's loads
    /// and stores, which no detector here sees).
    fn mirror_copy(&self, copy: SyncCopy<'_>) -> BResult<()>;

    /// The host read (or, `write`, wrote) `len` bytes of page-locked host memory at `addr` in
    /// a synchronous call, where tasks can touch them too: the simulator checks it for races
    /// with those tasks (a real device has nothing to do).
    ///
    /// - `[addr, addr+len)` lies in one live buffer of [`Memory::malloc_host`].
    fn host_access(&self, addr: u64, len: u64, write: bool) -> BResult<()>;

    /// Writes a CMO descriptor (`aclrtCmoSetDesc`) for `src`/`size` at `desc`.
    ///
    /// - `desc` has room for the chip's descriptor; `src` is only recorded, never read here.
    fn cmo_set_desc(&self, desc: u64, src: u64, size: u64) -> BResult<()>;

    /// `aclrtIpcMemGetExportKey`'s driver part: exports `len` bytes at `addr` (an
    /// allocation's base, checked) of `device` for process `pid`; `whitelist`: importers must be
    /// on the key's list. Returns the key (at most 64 bytes).
    fn ipc_export(
        &self,
        device: u32,
        addr: u64,
        len: u64,
        whitelist: bool,
        pid: u32,
    ) -> BResult<String>;

    /// `aclrtIpcMemSetImportPid`'s driver part: the processes that may import `key` (`device`:
    /// the caller's current one, as for the next two).
    fn ipc_set_import_pids(&self, device: u32, key: &str, pids: &[i32], pid: u32) -> BResult<()>;

    /// `aclrtIpcMemImportByKey`'s driver part: process `pid` imports `key`.
    fn ipc_import(&self, device: u32, key: &str, pid: u32) -> BResult<super::IpcImport>;

    /// `aclrtIpcMemClose`'s driver part: closes one import of `key` by `pid` (`imported`), or
    /// destroys the key (its exporter's close).
    fn ipc_close(&self, device: u32, key: &str, imported: bool, pid: u32) -> BResult<()>;

    /// Process `pid` has gone: the keys it exported are destroyed.
    fn ipc_forget_process(&self, pid: u32);

    /// `aclrtIpcMemSetAttr`'s driver part: `key`'s memory is reached by link `attr` (the
    /// front end has checked the chip takes it). A simulated device has one link.
    fn ipc_set_link(&self, key: &str, attr: u64) -> BResult<()>;
}
