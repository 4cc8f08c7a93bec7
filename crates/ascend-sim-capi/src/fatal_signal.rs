//! A program that dies of a fault signal (`SIGSEGV`, `SIGBUS`, `SIGFPE`, `SIGILL`, `SIGABRT`)
//! never reaches the exit hook that writes the run report and the trace. Writing them from a
//! signal handler is not possible safely (they allocate and take locks), so the handler says
//! on standard error, with `write(2)` and a buffer on its stack only, that the program died,
//! of which signal, and where the run had got to (tasks completed, simulated time: two atomic
//! loads), then lets the signal do what it would have done.

use std::sync::{Arc, OnceLock};

use ascend_sim::RunProgress;

/// The run's progress, for the handler (set once, before the handler is installed).
static PROGRESS: OnceLock<Arc<RunProgress>> = OnceLock::new();

const SIGNALS: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
    libc::SIGABRT,
];

/// Installs the handler for the fault signals that have none yet (the program's own handlers
/// stay); `progress` is what it reports.
pub fn install(progress: Arc<RunProgress>) {
    if PROGRESS.set(progress).is_err() {
        return;
    }
    for sig in SIGNALS {
        // SAFETY: `sigaction` with a null new action only reads the current one into `old`,
        // a plain struct on our stack.
        let old = unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(sig, std::ptr::null(), &mut old);
            old
        };
        if old.sa_sigaction != libc::SIG_DFL {
            continue;
        }
        // `SA_RESETHAND` makes the signal's default action come back before the handler
        // runs, and `SA_ONSTACK` runs it on the thread's alternate stack where one exists (a
        // stack overflow).
        // SAFETY: installs a plain `extern "C"` handler that only makes async-signal-safe calls.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_fatal as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_RESETHAND | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Appends `n` in decimal to `buf` at `at`, without allocating; returns the new end.
fn put_number(buf: &mut [u8], mut at: usize, mut n: u64) -> usize {
    let mut digits = [0u8; 20];
    let mut k = 0;
    loop {
        digits[k] = b'0' + (n % 10) as u8;
        k += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    while k > 0 && at < buf.len() {
        k -= 1;
        buf[at] = digits[k];
        at += 1;
    }
    at
}

/// Appends `s` to `buf` at `at`; returns the new end.
fn put(buf: &mut [u8], at: usize, s: &[u8]) -> usize {
    let n = s.len().min(buf.len() - at);
    buf[at..at + n].copy_from_slice(&s[..n]);
    at + n
}

/// The message the handler writes for `sig`, into `buf`; its length.
fn message(buf: &mut [u8], sig: libc::c_int, tasks: u64, now_ns: u64) -> usize {
    let name: &[u8] = match sig {
        libc::SIGSEGV => b"SIGSEGV",
        libc::SIGBUS => b"SIGBUS",
        libc::SIGFPE => b"SIGFPE",
        libc::SIGILL => b"SIGILL",
        libc::SIGABRT => b"SIGABRT",
        _ => b"a fault signal",
    };
    let mut at = put(buf, 0, b"ascend-sim: the program was killed by signal ");
    at = put_number(buf, at, sig as u64);
    at = put(buf, at, b" (");
    at = put(buf, at, name);
    at = put(
        buf,
        at,
        b") before the run report and trace were written; the run had got to ",
    );
    at = put_number(buf, at, tasks);
    at = put(buf, at, b" task(s) completed and ");
    at = put_number(buf, at, now_ns);
    at = put(buf, at, b" ns of simulated time\n");
    at
}

extern "C" fn on_fatal(sig: libc::c_int) {
    let (tasks, now_ns) = PROGRESS.get().map_or((0, 0), |p| (p.tasks(), p.now_ns()));
    let mut buf = [0u8; 256];
    let n = message(&mut buf, sig, tasks, now_ns);
    // The default action is put back (whoever called this handler: the kernel, or another
    // handler passing the signal on), so raising the signal again ends the process as it
    // would have ended without this handler.
    // SAFETY: `write`, `signal` and `raise` are async-signal-safe; `buf` lives on this stack.
    unsafe {
        libc::write(2, buf.as_ptr().cast(), n);
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_signal_and_where_the_run_got_to() {
        let mut buf = [0u8; 256];
        let n = message(&mut buf, libc::SIGSEGV, 12, 34_567);
        let said = std::str::from_utf8(&buf[..n]).unwrap();
        assert!(said.contains("signal 11 (SIGSEGV)"), "{said}");
        assert!(said.contains("12 task(s) completed and 34567 ns"), "{said}");
        assert!(said.ends_with('\n'));
    }
}
