//! The shared device service started on demand: a program whose `ASCEND_SIM_DEVICE` names a
//! socket no service answers at starts one (`ascend-sim device --until-idle`), which ends once
//! its processes have gone. Starters take a lock file beside the socket in turn, so that two
//! programs starting at once share one service.
//!
//! The `ascend-sim` command is looked for in `ASCEND_SIM_BIN`, then beside this library (or
//! one folder up), then on the `PATH`. What the service says (its hazards' warnings, why it
//! could not start) goes to `<socket>.log`.

use std::ffi::CStr;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The command's name.
const COMMAND: &str = "ascend-sim";
/// How long a starter waits for the service it started to answer.
const START_WAIT: Duration = Duration::from_secs(10);

/// The directory this library was loaded from.
fn library_dir() -> Option<PathBuf> {
    // SAFETY: an all-zero `Dl_info` is a valid value (null pointers); it is only filled in.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let me = library_dir as *const () as *const libc::c_void;
    // SAFETY: `me` is an address inside this library; `dladdr` only fills `info`.
    let found = unsafe { libc::dladdr(me, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: `dladdr` set `dli_fname` to a NUL-terminated path that lives as long as the
    // library stays loaded; it is copied at once.
    let file = unsafe { CStr::from_ptr(info.dli_fname) };
    let path = PathBuf::from(file.to_string_lossy().into_owned());
    path.parent().map(Path::to_path_buf)
}

/// The `ascend-sim` command to start the service with.
fn command() -> Result<PathBuf, String> {
    if let Some(bin) = std::env::var_os(crate::env_names::BIN).filter(|b| !b.is_empty()) {
        return Ok(PathBuf::from(bin));
    }
    // Beside this library, or one folder up (cargo's `target/<profile>/deps` layout).
    let dir = library_dir();
    let beside = dir
        .iter()
        .flat_map(|d| [Some(d.join(COMMAND)), d.parent().map(|p| p.join(COMMAND))])
        .flatten()
        .collect::<Vec<_>>();
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(COMMAND))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    beside
        .into_iter()
        .chain(on_path)
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "no service answers, and the {COMMAND} command that would start one is neither \
                 beside this library (or one folder up) nor on the PATH (set {} to it, or \
                 start the service with `{COMMAND} device --socket <path>`)",
                crate::env_names::BIN
            )
        })
}

/// An exclusive lock on `path`, held for as long as the returned file stays open.
fn take_lock(path: &Path) -> Result<std::fs::File, String> {
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| format!("the lock file {}: {e}", path.display()))?;
    use std::os::fd::AsRawFd;
    // SAFETY: `flock` on a descriptor this function owns; it blocks until the lock is had.
    let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
    if rc != 0 {
        return Err(format!(
            "the lock file {}: {}",
            path.display(),
            std::io::Error::last_os_error()
        ));
    }
    Ok(f)
}

/// Makes sure a service answers at `socket`, starting one for `soc` if none does.
pub fn ensure_service(socket: &Path, soc: &str) -> Result<(), String> {
    if UnixStream::connect(socket).is_ok() {
        return Ok(());
    }
    let mut lock_path = socket.as_os_str().to_owned();
    lock_path.push(".lock");
    let _lock = take_lock(Path::new(&lock_path))?;
    // Another program may have started it while this one waited for the lock.
    if UnixStream::connect(socket).is_ok() {
        return Ok(());
    }
    let bin = command()?;
    // The service's messages (its hazards' warnings among them) go to a log beside the socket.
    let mut log_path = socket.as_os_str().to_owned();
    log_path.push(".log");
    let log_path = PathBuf::from(log_path);
    let log = std::fs::File::create(&log_path)
        .map_err(|e| format!("the service's log {}: {e}", log_path.display()))?;
    let mut child = Command::new(&bin)
        .arg("device")
        .arg("--socket")
        .arg(socket)
        .args(["--soc", soc, "--until-idle"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log))
        // Its own process group: a signal meant for this program's group leaves it serving
        // the others.
        .process_group(0)
        .spawn()
        .map_err(|e| format!("starting {}: {e}", bin.display()))?;
    let start = Instant::now();
    while UnixStream::connect(socket).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            let said = std::fs::read_to_string(&log_path).unwrap_or_default();
            return Err(format!(
                "{} device --socket {} ended at once ({status}): {}",
                bin.display(),
                socket.display(),
                said.trim()
            ));
        }
        if start.elapsed() > START_WAIT {
            return Err(format!(
                "{} started, but no service answers at {} after {} s",
                bin.display(),
                socket.display(),
                START_WAIT.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // Reaped when it ends, so that it leaves no zombie behind while this program runs.
    let _ = std::thread::Builder::new()
        .name("ascend-sim-device-reaper".into())
        .spawn(move || child.wait());
    tracing::info!(
        "started the shared device service at {} ({soc})",
        socket.display()
    );
    Ok(())
}
