//! A guarded coroutine's stack overflow ends the coroutine, and the thread and the process go
//! on; where the overflow cannot be recovered from (inside the C library, while panicking) it
//! ends the process with a message; a fault that is not an overflow, and a signal a program
//! sends, still end the process.

use std::os::unix::process::ExitStatusExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use ascend_sim_stack_guard::{prepare_thread, Guarded, Resumed, Stack, SUPPORTED};

const STACK: usize = 64 * 1024;

/// Recurses `n` deep with a 1 KiB frame each (not turned into a loop).
fn deep(n: u64) -> u64 {
    let frame = std::hint::black_box([n; 128]);
    if n == 0 {
        return 0;
    }
    deep(n - 1).wrapping_add(frame[7])
}

fn overflowing() -> Guarded<u64, u64> {
    Guarded::new(Stack::new(STACK).unwrap(), |y, n: u64| {
        let more = y.suspend(n);
        deep(more)
    })
}

fn skip() -> bool {
    if !SUPPORTED {
        eprintln!("SKIPPED: stack overflows are caught only on Linux x86-64 and AArch64");
    }
    !SUPPORTED
}

#[test]
fn a_stack_overflow_ends_the_coroutine_and_the_thread_goes_on() {
    if skip() {
        return;
    }
    prepare_thread("");
    for round in 0..3 {
        let mut co = overflowing();
        assert!(matches!(co.resume(round), Resumed::Yield(r) if r == round));
        assert!(
            matches!(co.resume(1_000_000), Resumed::StackOverflow),
            "round {round}: the overflow ends the coroutine"
        );
        assert!(co.done());
        assert!(
            co.into_stack().is_none(),
            "an overflowed stack is never given back"
        );
        // A coroutine that stays within its stack runs on the same thread as before, and
        // gives its stack back.
        let mut fine = overflowing();
        assert!(matches!(fine.resume(1), Resumed::Yield(1)));
        assert!(matches!(fine.resume(10), Resumed::Return(_)));
        assert!(fine.into_stack().is_some());
    }
}

#[test]
fn a_frame_larger_than_a_page_still_lands_in_the_guard_region() {
    if skip() {
        return;
    }
    prepare_thread("");
    let mut co: Guarded<u64, u64> = Guarded::new(Stack::new(STACK).unwrap(), |_, n| {
        let big = std::hint::black_box([n; 32 * 1024]); // 256 KiB, four times the stack
        big[5]
    });
    assert!(matches!(co.resume(3), Resumed::StackOverflow));
}

#[test]
fn overflows_on_many_threads_at_once_each_end_their_own_coroutine() {
    if skip() {
        return;
    }
    let threads: Vec<_> = (0..8)
        .map(|_| {
            std::thread::spawn(|| {
                prepare_thread("");
                (0..4).all(|_| {
                    let mut co = overflowing();
                    co.resume(0);
                    matches!(co.resume(1_000_000), Resumed::StackOverflow)
                })
            })
        })
        .collect();
    for t in threads {
        assert!(t.join().unwrap());
    }
}

static STOP_READER: AtomicBool = AtomicBool::new(false);
static READS: AtomicU64 = AtomicU64::new(0);

#[test]
fn a_borrow_of_an_overflowed_coroutines_frame_stays_valid_after_it_is_dropped() {
    if skip() {
        return;
    }
    prepare_thread("");
    let mut co: Guarded<u64, u64> = Guarded::new(Stack::new(STACK).unwrap(), |_, n| {
        let local = [n; 16];
        std::thread::scope(|s| {
            s.spawn(|| {
                while !STOP_READER.load(Ordering::Acquire) {
                    assert_eq!(std::hint::black_box(&local)[3], n, "the frame was reused");
                    READS.fetch_add(1, Ordering::Relaxed);
                }
            });
            while READS.load(Ordering::Relaxed) == 0 {
                std::hint::spin_loop();
            }
            deep(1_000_000)
        })
    });
    assert!(matches!(co.resume(42), Resumed::StackOverflow));
    drop(co);
    // More coroutines come and go meanwhile: none may take the abandoned stack.
    for _ in 0..16 {
        let mut other = overflowing();
        other.resume(0);
        other.resume(5);
    }
    let before = READS.load(Ordering::Relaxed);
    while READS.load(Ordering::Relaxed) < before + 1000 {
        std::hint::spin_loop();
    }
    STOP_READER.store(true, Ordering::Release);
}

/// Runs this test binary's test `name` in a child process with `GUARD_TEST_CHILD` set.
fn child(name: &str) -> std::process::Output {
    std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env("GUARD_TEST_CHILD", "1")
        .output()
        .unwrap()
}

fn in_child() -> bool {
    std::env::var_os("GUARD_TEST_CHILD").is_some()
}

#[test]
fn child_writes_through_a_null_pointer_in_a_guarded_coroutine() {
    if !in_child() {
        return;
    }
    prepare_thread("");
    let mut co: Guarded<u64, u64> = Guarded::new(Stack::new(STACK).unwrap(), |_, n| {
        let p = std::hint::black_box(0usize) as *mut u64;
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
    if skip() {
        return;
    }
    let out = child("child_writes_through_a_null_pointer_in_a_guarded_coroutine");
    assert_eq!(out.status.signal(), Some(libc::SIGSEGV), "{out:?}");
}

#[test]
fn child_raises_sigsegv_itself() {
    if !in_child() {
        return;
    }
    // As in a C program: the default action is what this crate's handler replaces.
    // SAFETY: setting a signal's default action.
    unsafe { libc::signal(libc::SIGSEGV, libc::SIG_DFL) };
    prepare_thread("");
    let mut co = overflowing();
    co.resume(0);
    co.resume(1_000_000);
    // SAFETY: raising a signal in a child process, on purpose.
    unsafe { libc::raise(libc::SIGSEGV) };
    eprintln!("a raised SIGSEGV did not end the process");
    std::process::exit(0);
}

#[test]
fn a_segv_a_program_sends_itself_still_ends_it() {
    if skip() {
        return;
    }
    let out = child("child_raises_sigsegv_itself");
    assert_eq!(out.status.signal(), Some(libc::SIGSEGV), "{out:?}");
}

/// Recurses until less than `left` bytes of the stack remain below `floor`, then runs `f`.
#[inline(never)]
fn near_the_limit(floor: usize, left: usize, f: &dyn Fn()) {
    let here = std::hint::black_box([0u8; 64]);
    if (here.as_ptr() as usize).saturating_sub(floor) > left {
        near_the_limit(floor, left, f);
        std::hint::black_box(&here);
    } else {
        f();
    }
}

#[test]
fn child_overflows_inside_printf() {
    if !in_child() {
        return;
    }
    prepare_thread("(hint: a larger stack)");
    let stack = Stack::new(STACK).unwrap();
    let floor = stack.usable_range().0;
    let mut co: Guarded<u64, u64> = Guarded::new(stack, move |_, n| {
        near_the_limit(floor, 600, &|| {
            // SAFETY: a valid format string and arguments; vfprintf needs more stack than is
            // left, so it overflows inside the C library.
            unsafe {
                libc::printf(c"%d %s %f %x\n".as_ptr(), 1, c"x".as_ptr(), 2.5f64, 7);
            }
        });
        n
    });
    co.resume(1);
    eprintln!("printf did not overflow");
    std::process::exit(0);
}

#[test]
fn an_overflow_inside_the_c_library_ends_the_process_with_a_message() {
    if skip() {
        return;
    }
    let out = child("child_overflows_inside_printf");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.signal(), Some(libc::SIGSEGV), "{out:?}");
    assert!(
        stderr.contains("overflowed its stack of 65536 bytes inside the C library")
            && stderr.contains("(hint: a larger stack)"),
        "{stderr}"
    );
}

struct DeepOnDrop;

impl Drop for DeepOnDrop {
    fn drop(&mut self) {
        std::hint::black_box(deep(1_000_000));
    }
}

#[test]
fn child_overflows_while_unwinding() {
    if !in_child() {
        return;
    }
    prepare_thread("");
    let mut co: Guarded<u64, u64> = Guarded::new(Stack::new(STACK).unwrap(), |_, n| {
        let r = std::panic::catch_unwind(|| {
            let _d = DeepOnDrop;
            panic!("on purpose");
        });
        n + u64::from(r.is_err())
    });
    co.resume(1);
    eprintln!("the overflow while unwinding was not caught");
    std::process::exit(0);
}

#[test]
fn an_overflow_while_panicking_ends_the_process_with_a_message() {
    if skip() {
        return;
    }
    let out = child("child_overflows_while_unwinding");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.signal(), Some(libc::SIGSEGV), "{out:?}");
    assert!(stderr.contains("while it panicked"), "{stderr}");
}
