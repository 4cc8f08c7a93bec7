//! The service's side of a process's copy window: the window it maps when the process gives
//! one, and the copies between it and device memory (see the client's `copy_window`).

use std::sync::Arc;

use super::{DeviceService, Owned};
use crate::backend::shared::wire;
use crate::backend::{BResult, BackendError, SyncCopy};

/// A copy window that cannot be used.
fn window_error(e: impl std::fmt::Display) -> BackendError {
    BackendError::Unsupported(format!("the process's copy window: {e}"))
}

/// Runs `f` on a staging buffer of `len` bytes, the connection thread's own and kept for its
/// next copy (fresh pages for every copy would cost a fault per page).
fn with_staging<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    thread_local! {
        static STAGING: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    STAGING.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < len {
            s.resize(len, 0);
        }
        f(&mut s[..len])
    })
}

impl DeviceService {
    /// Maps the window `token`'s process made at `path` (`len` bytes) as its copy window.
    pub(super) fn take_window(&self, token: u64, path: &str, len: u64) -> BResult<()> {
        if len > wire::WINDOW_MAX {
            return Err(BackendError::Unsupported(format!(
                "a copy window of {len} bytes (at most {})",
                wire::WINDOW_MAX
            )));
        }
        let w = ascend_sim_shm::Window::open(std::path::Path::new(path), len as usize)
            .map_err(|e| BackendError::Unsupported(format!("the copy window {path}: {e}")))?;
        self.with_owned(token, |o: &mut Owned| o.window = Some(Arc::new(w)));
        Ok(())
    }

    /// `len` bytes at the start of `token`'s window to device memory at `dst`.
    pub(super) fn copy_in_window(&self, token: u64, dst: u64, len: u64) -> BResult<()> {
        let w = self.window_of(token, len)?;
        with_staging(len as usize, |buf| {
            w.read_at(0, buf).map_err(window_error)?;
            self.backend
                .memcpy(SyncCopy::HostToDevice { dst, src: buf })
        })
    }

    /// `len` bytes of device memory at `src` to the start of `token`'s window.
    pub(super) fn copy_out_window(&self, token: u64, src: u64, len: u64) -> BResult<()> {
        let w = self.window_of(token, len)?;
        with_staging(len as usize, |buf| {
            self.backend
                .memcpy(SyncCopy::DeviceToHost { dst: buf, src })?;
            w.write_at(0, buf).map_err(window_error)
        })
    }

    /// `token`'s copy window, which holds `len` bytes.
    fn window_of(&self, token: u64, len: u64) -> BResult<Arc<ascend_sim_shm::Window>> {
        let w = self
            .with_owned(token, |o| o.window.clone())
            .ok_or_else(|| {
                BackendError::Unsupported("a window copy before the process gave its window".into())
            })?;
        if len > w.len() as u64 {
            return Err(window_error(format!(
                "{len} bytes do not fit the {}-byte window",
                w.len()
            )));
        }
        Ok(w)
    }
}
