//! The process's copy window (`ascend_sim_shm::Window`): a synchronous host copy of
//! [`WINDOW_FROM`] bytes or more passes its bytes through a file the process and the service
//! both map, a window's worth at a time, instead of in the requests.

use super::{gone, SharedDeviceClient};
use crate::backend::shared::wire::Request;
use crate::backend::{BResult, SyncCopy};

/// A copy of at least this many host bytes passes them through the copy window.
const WINDOW_FROM: usize = 64 << 10;
/// The copy window's size: longer copies go through it a window at a time.
const WINDOW_BYTES: usize = 16 << 20;

impl SharedDeviceClient {
    /// A host copy of [`WINDOW_FROM`] bytes or more through the process's copy window, a
    /// window's worth at a time; the copy back when it does not go that way (a short copy, a
    /// device-to-device copy, or no window to be had).
    pub(super) fn memcpy_through_window<'a>(
        &self,
        copy: SyncCopy<'a>,
    ) -> Result<BResult<()>, SyncCopy<'a>> {
        let host = match &copy {
            SyncCopy::HostToDevice { src, .. } => src.len(),
            SyncCopy::DeviceToHost { dst, .. } => dst.len(),
            SyncCopy::DeviceToDevice { .. } => return Err(copy),
        };
        if host < WINDOW_FROM {
            return Err(copy);
        }
        let mut slot = self.copy_window.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(self.make_window());
        }
        let Some(Ok(w)) = slot.as_ref() else {
            return Err(copy);
        };
        let window = |e: std::io::Error| gone(&self.path, format!("its copy window: {e}"));
        let run = || -> BResult<()> {
            match copy {
                SyncCopy::HostToDevice { dst, src } => {
                    for (i, part) in src.chunks(WINDOW_BYTES).enumerate() {
                        w.write_at(0, part).map_err(window)?;
                        self.unit(Request::CopyInWindow {
                            dst: dst + (i * WINDOW_BYTES) as u64,
                            len: part.len() as u64,
                        })?;
                    }
                }
                SyncCopy::DeviceToHost { dst, src } => {
                    for (i, part) in dst.chunks_mut(WINDOW_BYTES).enumerate() {
                        self.unit(Request::CopyOutWindow {
                            src: src + (i * WINDOW_BYTES) as u64,
                            len: part.len() as u64,
                        })?;
                        w.read_at(0, part).map_err(window)?;
                    }
                }
                SyncCopy::DeviceToDevice { .. } => {}
            }
            Ok(())
        };
        Ok(run())
    }

    /// Makes the process's copy window and gives it to the service.
    fn make_window(&self) -> Result<ascend_sim_shm::Window, ()> {
        let made = ascend_sim_shm::Window::create(WINDOW_BYTES).map_err(|e| {
            tracing::debug!("no copy window ({e}): host copies carry their bytes");
        })?;
        let (w, path) = made;
        let given = self.unit(Request::Window {
            path: path.to_string_lossy().into_owned(),
            len: WINDOW_BYTES as u64,
        });
        let _ = std::fs::remove_file(&path);
        match given {
            Ok(()) => Ok(w),
            Err(e) => {
                tracing::debug!(
                    "the service took no copy window ({e}): host copies carry their bytes"
                );
                Err(())
            }
        }
    }
}
