//! A guarded coroutine's stack overflow ends the coroutine, and the thread and the process go
//! on; a fault that is not an overflow still ends the process.

use ascend_sim_stack_guard::{prepare_thread, Guarded, Resumed, SUPPORTED};
use corosensei::stack::DefaultStack;

/// Recurses `n` deep with a 1 KiB frame each (not turned into a loop).
fn deep(n: u64) -> u64 {
    let frame = std::hint::black_box([n; 128]);
    if n == 0 {
        return 0;
    }
    deep(n - 1).wrapping_add(frame[7])
}

fn overflowing() -> Guarded<u64, u64> {
    Guarded::new(DefaultStack::new(64 * 1024).unwrap(), |y, n: u64| {
        let more = y.suspend(n);
        deep(more)
    })
}

#[test]
fn a_stack_overflow_ends_the_coroutine_and_the_thread_goes_on() {
    if !SUPPORTED {
        eprintln!("SKIPPED: stack overflows are caught only on Linux x86-64 and AArch64");
        return;
    }
    prepare_thread();
    for round in 0..3 {
        let mut co = overflowing();
        assert!(matches!(co.resume(round), Resumed::Yield(r) if r == round));
        assert!(
            matches!(co.resume(1_000_000), Resumed::StackOverflow),
            "round {round}: the overflow ends the coroutine"
        );
        assert!(co.done());
        std::mem::forget(co);
        // A coroutine that stays within its stack runs on the same thread as before.
        let mut fine = overflowing();
        assert!(matches!(fine.resume(1), Resumed::Yield(1)));
        assert!(matches!(fine.resume(10), Resumed::Return(_)));
    }
}

#[test]
fn overflows_on_many_threads_at_once_each_end_their_own_coroutine() {
    if !SUPPORTED {
        eprintln!("SKIPPED: stack overflows are caught only on Linux x86-64 and AArch64");
        return;
    }
    let threads: Vec<_> = (0..8)
        .map(|_| {
            std::thread::spawn(|| {
                prepare_thread();
                let mut co = overflowing();
                co.resume(0);
                let r = matches!(co.resume(1_000_000), Resumed::StackOverflow);
                std::mem::forget(co);
                r
            })
        })
        .collect();
    for t in threads {
        assert!(t.join().unwrap());
    }
}

/// The child's part of [`a_fault_that_is_not_an_overflow_still_ends_the_process`].
#[test]
fn child_writes_through_a_null_pointer_in_a_guarded_coroutine() {
    if std::env::var_os("GUARD_TEST_CHILD").is_none() {
        return;
    }
    prepare_thread();
    let mut co: Guarded<u64, u64> = Guarded::new(DefaultStack::new(64 * 1024).unwrap(), |_, n| {
        let p = std::hint::black_box(0usize) as *mut u64;
        // The fault under test: not an overflow, so the handler must pass it on.
        // SAFETY: none; this write faults on purpose, in a child process.
        unsafe { p.write_volatile(n) };
        n
    });
    co.resume(1);
    eprintln!("the null write did not end the process");
    std::process::exit(0);
}

#[test]
fn a_fault_that_is_not_an_overflow_still_ends_the_process() {
    if !SUPPORTED {
        eprintln!("SKIPPED: stack overflows are caught only on Linux x86-64 and AArch64");
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_writes_through_a_null_pointer_in_a_guarded_coroutine",
            "--nocapture",
        ])
        .env("GUARD_TEST_CHILD", "1")
        .output()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGSEGV),
        "the child ends by SIGSEGV: {:?} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}
