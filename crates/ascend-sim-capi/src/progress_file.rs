//! `ASCEND_SIM_PROGRESS=<path>`: how far the run has got, written to a file every fifth of a
//! second (one line: tasks completed and simulated nanoseconds reached), for `ascend-sim exec`
//! to show as a progress line while the program runs. A thread of its own writes it, reading
//! the simulator's published counters, so the program's calls never wait for it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ascend_sim::RunProgress;

/// How often the file is rewritten.
const EVERY: Duration = Duration::from_millis(200);

/// The file and the counters, once started (for the last write, at exit).
static WRITER: OnceLock<(PathBuf, Arc<RunProgress>)> = OnceLock::new();

/// The line the file holds: tasks completed, then simulated nanoseconds reached.
pub fn line(progress: &RunProgress) -> String {
    format!("{} {}\n", progress.tasks(), progress.now_ns())
}

/// Writes the line whole to a neighbour, then renames it over the file: a reader never sees
/// half a line.
fn write(path: &Path, progress: &RunProgress) -> std::io::Result<()> {
    let next = path.with_extension("next");
    std::fs::write(&next, line(progress))?;
    std::fs::rename(&next, path)
}

/// True when `ASCEND_SIM_PROGRESS` asks for the file.
pub fn wanted() -> bool {
    std::env::var_os(crate::env_names::PROGRESS).is_some()
}

/// Starts the writer when `ASCEND_SIM_PROGRESS` names a file. The thread lives as long as
/// the process; a file it cannot write ends it, said once.
pub fn start(progress: Arc<RunProgress>) {
    let Some(path) = std::env::var_os(crate::env_names::PROGRESS).map(PathBuf::from) else {
        return;
    };
    let _ = WRITER.set((path.clone(), progress.clone()));
    let spawned = std::thread::Builder::new()
        .name("ascend-sim-progress".into())
        .spawn(move || loop {
            if let Err(e) = write(&path, &progress) {
                tracing::warn!("cannot write progress to {}: {e}", path.display());
                return;
            }
            std::thread::sleep(EVERY);
        });
    if let Err(e) = spawned {
        tracing::warn!("no progress file: cannot start its thread: {e}");
    }
}

/// The last write, at exit: the run's final figures.
pub fn write_last() {
    if let Some((path, progress)) = WRITER.get() {
        let _ = write(path, progress);
    }
}
