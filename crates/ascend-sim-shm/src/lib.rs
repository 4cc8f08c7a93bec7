//! [`Window`]: bytes two processes share, a file both map, through which the shared device
//! service and a client pass the bytes of host copies without sending them over the socket.
//!
//! The creator makes the file ([`Window::create`]: in `/dev/shm` where there is one, readable
//! by its owner only) and names it to the other process, which maps it ([`Window::open`]) and
//! removes the name, so the bytes go with the last mapping. The two take turns by their own
//! protocol (a request and its answer): one writes a range, then the other reads it.
//!
//! Access is by copies only ([`Window::write_at`], [`Window::read_at`]), never by references
//! into the mapping, since the other process may write it at any time: a copy made while the
//! other writes (a broken protocol) reads mixed bytes, which a byte has no invalid value for.
//!
//! ```
//! use ascend_sim_shm::Window;
//! let (a, path) = Window::create(4096).unwrap();
//! let b = Window::open(&path, 4096).unwrap();
//! a.write_at(8, b"bytes").unwrap();
//! let mut out = [0u8; 5];
//! b.read_at(8, &mut out).unwrap();
//! assert_eq!(&out, b"bytes");
//! ```

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use memmap2::MmapRaw;

/// A mapping of a shared file.
#[derive(Debug)]
pub struct Window {
    map: MmapRaw,
    len: usize,
}

/// How a window's file name begins.
const PREFIX: &str = "ascend-sim-window-";

/// Where windows are made: `/dev/shm` (memory, not a disk) where it exists.
fn folder() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

fn out_of_bounds(offset: usize, len: usize, size: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{len} bytes at {offset} run past the {size}-byte window"),
    )
}

impl Window {
    /// A new window of `len` bytes (zeros) and the path that names it to another process.
    pub fn create(len: usize) -> io::Result<(Window, PathBuf)> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static MADE: AtomicU64 = AtomicU64::new(0);
        let path = folder().join(format!(
            "{PREFIX}{}-{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed)
        ));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        // The pages are reserved now: a file system too full for them (a small /dev/shm) is
        // this call's error, not a fault at the first write into the mapping, in either
        // process.
        // SAFETY: `posix_fallocate` on a descriptor this function owns, with a range that
        // fits an `off_t` (checked).
        let len_off = libc::off_t::try_from(len)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a window too large"))?;
        let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len_off) };
        if rc != 0 {
            let _ = std::fs::remove_file(&path);
            return Err(io::Error::from_raw_os_error(rc));
        }
        Ok((Self::map(&file, len)?, path))
    }

    /// Maps the window another process made at `path` (`len` bytes), and removes the name.
    /// Only a window's name is taken: a regular file named as [`Window::create`] names them,
    /// in the folder it makes them in (never a link, a pipe or another file).
    pub fn open(path: &Path, len: usize) -> io::Result<Window> {
        let refuse = |why: &str| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a copy window: {why}", path.display()),
            )
        };
        let named = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(PREFIX));
        if !named || path.parent() != Some(folder().as_path()) {
            return Err(refuse("not a window's name in the window folder"));
        }
        if !std::fs::symlink_metadata(path)?.file_type().is_file() {
            return Err(refuse("not a regular file"));
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)?;
        let size = file.metadata()?.len();
        let _ = std::fs::remove_file(path);
        if size < len as u64 {
            return Err(out_of_bounds(0, len, size as usize));
        }
        Self::map(&file, len)
    }

    fn map(file: &File, len: usize) -> io::Result<Window> {
        let map = memmap2::MmapOptions::new().len(len).map_raw(file)?;
        Ok(Window { map, len })
    }

    /// The window's size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the window has no byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies `bytes` into the window at `offset`.
    pub fn write_at(&self, offset: usize, bytes: &[u8]) -> io::Result<()> {
        if offset
            .checked_add(bytes.len())
            .is_none_or(|end| end > self.len)
        {
            return Err(out_of_bounds(offset, bytes.len(), self.len));
        }
        // SAFETY: `offset + bytes.len()` lies within the mapping (checked above), which lives
        // as long as `self`; the mapping is never referenced as a slice, and `bytes` is the
        // caller's memory, not the mapping, so the ranges do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.map.as_mut_ptr().add(offset),
                bytes.len(),
            )
        };
        Ok(())
    }

    /// Copies `out.len()` bytes of the window at `offset` into `out`.
    pub fn read_at(&self, offset: usize, out: &mut [u8]) -> io::Result<()> {
        if offset
            .checked_add(out.len())
            .is_none_or(|end| end > self.len)
        {
            return Err(out_of_bounds(offset, out.len(), self.len));
        }
        // SAFETY: as in `write_at`: the source range lies within the live mapping and `out`
        // is the caller's own memory.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.map.as_ptr().add(offset),
                out.as_mut_ptr(),
                out.len(),
            )
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_written_in_one_mapping_are_read_in_the_other_and_the_name_is_gone() {
        let (a, path) = Window::create(1 << 20).unwrap();
        let b = Window::open(&path, 1 << 20).unwrap();
        assert!(!path.exists(), "the name is removed once both map it");
        let data: Vec<u8> = (0..4096).map(|i| (i % 251) as u8).collect();
        a.write_at(1000, &data).unwrap();
        let mut out = vec![0u8; 4096];
        b.read_at(1000, &mut out).unwrap();
        assert_eq!(out, data);
        assert!(a.write_at((1 << 20) - 4, &[0; 8]).is_err());
        assert!(b.read_at(usize::MAX, &mut [0; 1]).is_err());
    }

    #[test]
    fn a_window_the_file_system_has_no_room_for_is_refused_when_made_not_at_first_write() {
        // Far more than any machine's /dev/shm holds: the pages are reserved at creation, so
        // the failure is the creation's (it was a fault at the first write into the page).
        let e = Window::create(1 << 44).unwrap_err();
        assert!(
            matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EFBIG)),
            "{e}"
        );
    }

    #[test]
    fn only_a_window_s_file_is_opened_and_nothing_else_is_removed() {
        let dir = std::env::temp_dir().join(format!("shm-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let precious = dir.join("precious");
        std::fs::write(&precious, b"keep").unwrap();
        assert!(Window::open(&precious, 4).is_err());
        assert_eq!(std::fs::read(&precious).unwrap(), b"keep", "left as it was");
        // A link named like a window, in the window folder, is no window either.
        let link = folder().join(format!("{PREFIX}link-{}", std::process::id()));
        std::os::unix::fs::symlink(&precious, &link).unwrap();
        assert!(Window::open(&link, 4).is_err());
        let _ = std::fs::remove_file(&link);
        assert_eq!(std::fs::read(&precious).unwrap(), b"keep");
    }
}
