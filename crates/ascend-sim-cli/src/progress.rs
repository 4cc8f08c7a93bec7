//! The progress line `exec` shows while the program runs, on a terminal only: tasks completed
//! and the simulated time reached, read from the file the library rewrites
//! (`ASCEND_SIM_PROGRESS`). Piped or with `--quiet`, nothing is drawn and the library is not
//! asked for the file.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// Simulated nanoseconds for a person: ns, µs, ms or s.
pub fn sim_time(ns: u64) -> String {
    match ns {
        0..1_000 => format!("{ns} ns"),
        1_000..1_000_000 => format!("{:.1} µs", ns as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.2} ms", ns as f64 / 1e6),
        _ => format!("{:.3} s", ns as f64 / 1e9),
    }
}

/// The progress line for the file's text (`TASKS NS`), if it holds both numbers.
pub fn message(text: &str) -> Option<String> {
    let mut n = text.split_whitespace().map(|w| w.parse::<u64>());
    let (Some(Ok(tasks)), Some(Ok(ns))) = (n.next(), n.next()) else {
        return None;
    };
    Some(format!(
        "{tasks} tasks done, simulated time {}",
        sim_time(ns)
    ))
}

/// The line while the program runs (hidden when not shown).
pub struct Progress {
    /// Draws the line; lines the program prints go through [`ProgressBar::suspend`].
    pub bar: ProgressBar,
    file: Option<PathBuf>,
    stop: Arc<AtomicBool>,
    poller: Option<JoinHandle<()>>,
}

impl Progress {
    /// A progress line when standard error is a terminal and `quiet` is off; the file the
    /// library should write (to pass it as `ASCEND_SIM_PROGRESS`), if any.
    pub fn new(quiet: bool) -> Progress {
        let stop = Arc::new(AtomicBool::new(false));
        if quiet || !std::io::stderr().is_terminal() {
            return Progress {
                bar: ProgressBar::hidden(),
                file: None,
                stop,
                poller: None,
            };
        }
        let file = std::env::temp_dir().join(format!("ascend-sim-progress-{}", std::process::id()));
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} ascend-sim: {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message("starting");
        bar.enable_steady_tick(Duration::from_millis(120));
        let poller = {
            let (bar, file, stop) = (bar.clone(), file.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Some(m) = std::fs::read_to_string(&file)
                        .ok()
                        .and_then(|t| message(&t))
                    {
                        bar.set_message(m);
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
            })
        };
        Progress {
            bar,
            file: Some(file),
            stop,
            poller: Some(poller),
        }
    }

    /// The file for `ASCEND_SIM_PROGRESS`, when the line is shown.
    pub fn file(&self) -> Option<&PathBuf> {
        self.file.as_ref()
    }

    /// Takes the line off the terminal and removes the file.
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(p) = self.poller.take() {
            let _ = p.join();
        }
        self.bar.finish_and_clear();
        if let Some(f) = &self.file {
            let _ = std::fs::remove_file(f);
            let _ = std::fs::remove_file(f.with_extension("next"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_tasks_and_simulated_time_in_a_readable_unit() {
        assert_eq!(
            message("1200 17603\n").as_deref(),
            Some("1200 tasks done, simulated time 17.6 µs")
        );
        assert_eq!(message("").as_deref(), None);
        assert_eq!(message("12").as_deref(), None);
        assert_eq!(sim_time(999), "999 ns");
        assert_eq!(sim_time(2_500_000), "2.50 ms");
        assert_eq!(sim_time(3_000_000_000), "3.000 s");
    }

    #[test]
    fn nothing_is_drawn_or_asked_for_when_quiet() {
        let p = Progress::new(true);
        assert!(p.file().is_none());
        assert!(p.bar.is_hidden());
        p.finish();
    }
}
