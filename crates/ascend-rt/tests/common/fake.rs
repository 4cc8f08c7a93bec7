//! A do-nothing backend, only for developing these tests while the simulator engine is
//! unfinished (selected with `ASCEND_RT_TESTS_FAKE_BACKEND=1`). Every call succeeds.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ascend_chips::ChipProfile;
use ascend_rt::backend::{BHandle, HostBuf, SyncDst, SyncSrc, Task};
use ascend_rt::{AclResult, Backend};

#[derive(Debug)]
pub struct Fake {
    chip: ChipProfile,
    next: AtomicU64,
}

impl Fake {
    pub fn new(chip: ChipProfile) -> Fake {
        Fake {
            chip,
            next: AtomicU64::new(1),
        }
    }
    fn h(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }
}

impl Backend for Fake {
    fn name(&self) -> &'static str {
        "fake"
    }
    fn chip(&self) -> &ChipProfile {
        &self.chip
    }
    fn soc_name(&self) -> AclResult<String> {
        Ok(self.chip.soc_name.clone())
    }
    fn device_count(&self) -> AclResult<u32> {
        Ok(self.chip.limits.device_count)
    }
    fn open_device(&self, _: u32) -> AclResult<BHandle> {
        Ok(self.h())
    }
    fn close_device(&self, _: u32, _: bool) -> AclResult<()> {
        Ok(())
    }
    fn malloc(&self, _: u32, _: u64, _: u32) -> AclResult<u64> {
        Ok(0x1_0000_0000_0000 + self.h() * 0x10_0000)
    }
    fn free(&self, _: u32, _: u64) -> AclResult<()> {
        Ok(())
    }
    fn malloc_host(&self, bytes: usize) -> AclResult<HostBuf> {
        Ok(Arc::new(Mutex::new(vec![0; bytes])))
    }
    fn memcpy(&self, _: SyncDst<'_>, _: SyncSrc<'_>, _: u64) -> AclResult<()> {
        Ok(())
    }
    fn memset(&self, _: u64, _: u8, _: u64) -> AclResult<()> {
        Ok(())
    }
    fn create_stream(&self, _: u32, _: u32, _: u32) -> AclResult<BHandle> {
        Ok(self.h())
    }
    fn destroy_stream(&self, _: BHandle, _: bool) -> AclResult<()> {
        Ok(())
    }
    fn launch(&self, _: BHandle, _: Task) -> AclResult<()> {
        Ok(())
    }
    fn synchronize_stream(&self, _: BHandle, _: Option<u64>) -> AclResult<()> {
        Ok(())
    }
    fn stream_idle(&self, _: BHandle) -> AclResult<bool> {
        Ok(true)
    }
    fn synchronize_device(&self, _: u32, _: Option<u64>) -> AclResult<()> {
        Ok(())
    }
    fn create_event(&self, _: u32, _: u32) -> AclResult<BHandle> {
        Ok(self.h())
    }
    fn destroy_event(&self, _: BHandle) -> AclResult<()> {
        Ok(())
    }
    fn event_complete(&self, _: BHandle) -> AclResult<bool> {
        Ok(true)
    }
    fn synchronize_event(&self, _: BHandle, _: Option<u64>) -> AclResult<()> {
        Ok(())
    }
    fn event_elapsed_ms(&self, _: BHandle, _: BHandle) -> AclResult<f32> {
        Ok(0.0)
    }
    fn create_model(&self, _: u32) -> AclResult<BHandle> {
        Ok(self.h())
    }
    fn bind_stream(&self, _: BHandle, _: BHandle, _: u32) -> AclResult<()> {
        Ok(())
    }
    fn unbind_stream(&self, _: BHandle, _: BHandle) -> AclResult<()> {
        Ok(())
    }
    fn end_task(&self, _: BHandle, _: BHandle) -> AclResult<()> {
        Ok(())
    }
    fn build_end(&self, _: BHandle) -> AclResult<()> {
        Ok(())
    }
    fn execute_model(&self, _: BHandle, _: Option<u64>) -> AclResult<()> {
        Ok(())
    }
    fn execute_model_async(&self, _: BHandle, _: BHandle) -> AclResult<()> {
        Ok(())
    }
    fn destroy_model(&self, _: BHandle) -> AclResult<()> {
        Ok(())
    }
    fn cmo_set_desc(&self, _: u64, _: u64, _: u64) -> AclResult<()> {
        Ok(())
    }
}
