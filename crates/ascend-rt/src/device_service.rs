//! The shared device service: one simulated device used by several processes at once
//! ([`serve`]). Each process reaches it with [`crate::Runtime::shared_device`] (C programs
//! with `ASCEND_SIM_DEVICE=<socket>`), over a Unix socket: the process's calls are validated
//! in the process as for a device of its own, then carried out on the service's simulator.
//!
//! What each process creates is its own: when it ends, or is killed, the service releases its
//! memory, streams, events, notifies and models, and the other processes go on. Determinism
//! holds per process (its calls in its order); the order of two processes' calls is the
//! host's.
//!
//! ```
//! use std::sync::Arc;
//! use ascend_rt::{device_service, raw_types::*, MemDst, MemSrc, Runtime};
//! let dir = std::env::temp_dir().join(format!("doc-device-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let socket = dir.join("device.sock");
//! let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
//! device_service::spawn(&socket, chip, Default::default()).unwrap();
//! let rt = Runtime::shared_device(&socket).unwrap();
//! rt.set_device(0).unwrap();
//! let mut flag = Addr::NULL;
//! rt.malloc(Some(&mut flag), 8, malloc_policy::NORMAL_ONLY).unwrap();
//! rt.value_write(flag, 5, 0, RawStream::NULL).unwrap();
//! rt.synchronize_stream(RawStream::NULL).unwrap();
//! let mut out = [0u8; 8];
//! rt.memcpy(MemDst::Host(&mut out), 8, MemSrc::Addr(flag), 8, memcpy_kind::DEVICE_TO_HOST)
//!     .unwrap();
//! assert_eq!(u64::from_le_bytes(out), 5);
//! ```

use std::path::Path;
use std::sync::Arc;

use ascend_chips::ChipProfile;
use ascend_sim::SimConfig;

use crate::backend::shared::server::DeviceService;
pub use crate::backend::shared::server::Outputs;
pub use crate::backend::shared::wire::ProcessStatus;
use crate::backend::shared::wire::{self, Reply, Request};
use crate::backend::sim::SimBackend;

/// Serves a simulator of `chip` with `config` at the socket `path` until the listener fails
/// (a socket file no service answers at is replaced).
pub fn serve(path: &Path, chip: ChipProfile, config: SimConfig) -> std::io::Result<()> {
    DeviceService::new(Arc::new(SimBackend::new(chip, config))).serve_at(path)
}

/// As [`serve`], on a thread of this process: returns once the socket accepts connections.
pub fn spawn(
    path: &Path,
    chip: ChipProfile,
    config: SimConfig,
) -> std::io::Result<std::thread::JoinHandle<std::io::Result<()>>> {
    spawn_writing(path, chip, config, Outputs::default())
}

/// As [`spawn`], writing `outputs` (the run report and trace of every process so far, one
/// file each, the trace with a track group per process) each time a process has gone.
pub fn spawn_writing(
    path: &Path,
    chip: ChipProfile,
    config: SimConfig,
    outputs: Outputs,
) -> std::io::Result<std::thread::JoinHandle<std::io::Result<()>>> {
    let listener = crate::backend::shared::server::bind(path)?;
    let service = DeviceService::writing(Arc::new(SimBackend::new(chip, config)), outputs);
    std::thread::Builder::new()
        .name("ascend-sim-device".into())
        .spawn(move || service.serve(listener))
}

/// Asks the service at `path` one question as an observer (token 0: not a process of its).
fn observe(path: &Path, req: &Request) -> std::io::Result<Option<Reply>> {
    let mut conn = std::os::unix::net::UnixStream::connect(path)?;
    let hello = Request::Hello {
        pid: std::process::id(),
        token: 0,
    };
    wire::send(&mut conn, &hello)?;
    wire::send(&mut conn, req)?;
    wire::receive::<Reply>(&mut conn)
}

fn misanswered(other: Option<Reply>) -> std::io::Error {
    std::io::Error::other(format!("the service answered {other:?}"))
}

/// The processes the service at `path` has, lowest pid first, and what each owns.
pub fn status(path: &Path) -> std::io::Result<Vec<ProcessStatus>> {
    match observe(path, &Request::Status)? {
        Some(Reply::Status(all)) => Ok(all),
        other => Err(misanswered(other)),
    }
}

/// How many processes the service at `path` has had since it started (gone ones included).
pub fn served(path: &Path) -> std::io::Result<u64> {
    match observe(path, &Request::Served)? {
        Some(Reply::U64(n)) => Ok(n),
        other => Err(misanswered(other)),
    }
}
