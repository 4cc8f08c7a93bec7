//! The Linux side: the process's `SIGSEGV`/`SIGBUS` handler, each thread's alternate signal
//! stack, and the register hand-off of an overflowed coroutine (x86-64 and AArch64).

use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::{Once, OnceLock};

use corosensei::trap::TrapHandlerRegs;

use crate::Ending;

/// Bytes of each thread's alternate signal stack (above its own guard page).
const ALT_STACK_BYTES: usize = 64 * 1024;

/// The handlers installed before ours: `SIGSEGV`'s, then `SIGBUS`'s.
struct Previous([libc::sigaction; 2]);

// SAFETY: a `sigaction` is plain data (a handler address, a signal mask and flags); it is
// written once before it is published and only read afterwards.
unsafe impl Sync for Previous {}
// SAFETY: as above; nothing in it is tied to a thread.
unsafe impl Send for Previous {}

static PREVIOUS: OnceLock<Previous> = OnceLock::new();
/// The end of the message of an overflow that ends the process.
static FATAL_HINT: OnceLock<&'static str> = OnceLock::new();
/// The code in which an overflow cannot be recovered from, `[start, end)` ranges.
static UNSTOPPABLE: OnceLock<Vec<(usize, usize)>> = OnceLock::new();

/// The shared objects whose frames hold locks every thread shares (the allocator's, stdio's,
/// the loader's, the unwinder's): an overflow inside one of them ends the process.
const UNSTOPPABLE_OBJECTS: [&str; 6] = [
    "libc.so",
    "libc-",
    "ld-linux",
    "ld-musl",
    "libgcc_s",
    "libstdc++",
];

/// The executable segments of the loaded [`UNSTOPPABLE_OBJECTS`].
fn unstoppable_code() -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    unsafe extern "C" fn each(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        data: *mut c_void,
    ) -> libc::c_int {
        // SAFETY: the loader hands a valid `dl_phdr_info` for the duration of the call, and
        // `data` is the `Vec` passed to `dl_iterate_phdr` below.
        unsafe {
            let info = &*info;
            let ranges = &mut *data.cast::<Vec<(usize, usize)>>();
            if info.dlpi_name.is_null() {
                return 0;
            }
            let name = std::ffi::CStr::from_ptr(info.dlpi_name).to_bytes();
            let base = name.rsplit(|b| *b == b'/').next().unwrap_or(name);
            if !UNSTOPPABLE_OBJECTS
                .iter()
                .any(|o| base.starts_with(o.as_bytes()))
            {
                return 0;
            }
            for i in 0..usize::from(info.dlpi_phnum) {
                let ph = &*info.dlpi_phdr.add(i);
                if ph.p_type == libc::PT_LOAD && ph.p_flags & libc::PF_X != 0 {
                    let start = (info.dlpi_addr as usize).wrapping_add(ph.p_vaddr as usize);
                    ranges.push((start, start.wrapping_add(ph.p_memsz as usize)));
                }
            }
            0
        }
    }
    // SAFETY: `each` only reads the loader's records and pushes into `ranges`, which outlives
    // the call.
    unsafe {
        libc::dl_iterate_phdr(Some(each), (&mut ranges as *mut Vec<(usize, usize)>).cast());
    }
    ranges
}
static INSTALL: Once = Once::new();

/// An alternate signal stack this thread mapped, given back when the thread ends.
struct AltStack {
    map: *mut c_void,
    len: usize,
}

impl Drop for AltStack {
    fn drop(&mut self) {
        // SAFETY: the stack is disabled first (only when it is still this thread's), so no
        // handler can run on it once it is unmapped; `map`/`len` are the mapping made in
        // `prepare_thread`, unmapped only here.
        unsafe {
            let mut now: libc::stack_t = std::mem::zeroed();
            if libc::sigaltstack(std::ptr::null(), &mut now) == 0 && now.ss_sp == self.stack_sp() {
                let off = libc::stack_t {
                    ss_sp: std::ptr::null_mut(),
                    ss_flags: libc::SS_DISABLE,
                    ss_size: 0,
                };
                libc::sigaltstack(&off, std::ptr::null_mut());
            }
            libc::munmap(self.map, self.len);
        }
    }
}

impl AltStack {
    /// The usable stack's lowest address (above the guard page).
    fn stack_sp(&self) -> *mut c_void {
        self.map
            .cast::<u8>()
            .wrapping_add(crate::page_size())
            .cast()
    }
}

thread_local! {
    static ALT_STACK: RefCell<Option<AltStack>> = const { RefCell::new(None) };
}

/// See [`crate::prepare_thread`].
pub(crate) fn prepare_thread(fatal_hint: &'static str) {
    INSTALL.call_once(|| {
        let _ = FATAL_HINT.set(fatal_hint);
        let _ = UNSTOPPABLE.set(unstoppable_code());
        install_handlers();
    });
    ALT_STACK.with(|slot| {
        if slot.borrow().is_some() {
            return;
        }
        // SAFETY: querying the current alternate stack writes only into `now`.
        let mut now: libc::stack_t = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        if unsafe { libc::sigaltstack(std::ptr::null(), &mut now) } != 0 {
            return;
        }
        if now.ss_flags & libc::SS_DISABLE == 0 {
            return; // the thread has one already (Rust's runtime gives its threads one)
        }
        let page = crate::page_size();
        let len = ALT_STACK_BYTES + page;
        // SAFETY: a fresh anonymous private mapping; the result is checked.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return;
        }
        let alt = AltStack { map, len };
        // SAFETY: the lowest page of our own mapping becomes a guard page.
        unsafe { libc::mprotect(map, page, libc::PROT_NONE) };
        let stack = libc::stack_t {
            ss_sp: alt.stack_sp(),
            ss_flags: 0,
            ss_size: ALT_STACK_BYTES,
        };
        // SAFETY: `stack` describes memory this thread owns for as long as `ALT_STACK` holds
        // it (its drop disables the stack before unmapping it).
        if unsafe { libc::sigaltstack(&stack, std::ptr::null_mut()) } == 0 {
            *slot.borrow_mut() = Some(alt);
        }
    });
}

/// Installs [`on_fault`] for `SIGSEGV` and `SIGBUS`, keeping the handlers it replaces.
fn install_handlers() {
    // SAFETY: `sa` is fully initialised (zeroed, then its handler, flags and an empty mask)
    // before it is installed; `previous` receives what the kernel returns.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_fault as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut c_void)
            as libc::sighandler_t;
        sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut sa.sa_mask);
        let mut previous: [libc::sigaction; 2] = std::mem::zeroed();
        libc::sigaction(libc::SIGSEGV, &sa, &mut previous[0]);
        libc::sigaction(libc::SIGBUS, &sa, &mut previous[1]);
        let _ = PREVIOUS.set(Previous(previous));
    }
}

/// The handler: diverts an overflow of the running guarded coroutine, passes anything else on.
extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
    // SAFETY: the kernel hands a valid `siginfo_t` and `ucontext_t` to an `SA_SIGINFO`
    // handler; `divert` and `pass_on` rely on nothing else.
    unsafe {
        if !divert(info, ctx) {
            pass_on(sig, info, ctx);
        }
    }
}

/// The body `setup_trap_handler` runs on the coroutine's reset stack: the coroutine returns.
fn overflowed() -> Ending {
    Ending::StackOverflow
}

/// When the fault is an overflow of the guarded coroutine running on this thread, sets the
/// interrupted context up to leave it through corosensei's trap hand-off, and says so; where
/// its frames cannot be abandoned safely, says why on standard error and lets the fault end
/// the process.
///
/// # Safety
/// `info` and `ctx` are the arguments of an `SA_SIGINFO` handler.
unsafe fn divert(info: *mut libc::siginfo_t, ctx: *mut c_void) -> bool {
    // SAFETY: `info` is the kernel's.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    if code <= 0 {
        return false; // sent by a program (kill, raise), not a fault
    }
    let Some(running) = crate::running() else {
        return false;
    };
    if addr < running.guard.0 || addr >= running.guard.1 {
        return false;
    }
    // SAFETY: `ctx` is the kernel's `ucontext_t` of the interrupted thread.
    let uc = unsafe { &mut *ctx.cast::<libc::ucontext_t>() };
    if !running.trap.stack_ptr_in_bounds(stack_pointer(uc)) {
        return false;
    }
    let pc = program_counter(uc);
    let in_shared_code = UNSTOPPABLE
        .get()
        .is_some_and(|r| r.iter().any(|&(s, e)| pc >= s && pc < e));
    if in_shared_code || std::thread::panicking() {
        let why = if in_shared_code {
            "inside the C library, the loader, the C++ runtime or the unwinder, whose frames hold \
             locks every thread shares"
        } else {
            "while it panicked, which Rust's panic machinery cannot be left in"
        };
        say_fatal(running.bytes, why);
        return false;
    }
    // Why the hand-off below is sound: the coroutine is alive (`Guarded::resume` borrows it
    // for the whole run and clears `RUNNING` when it returns); its frames are abandoned and
    // its stack never reused (the crate's doc); the hand-off writes only into the top
    // `RESERVED_TOP` bytes, the guarded wrapper's own frame.
    // SAFETY: the interrupted stack pointer lies in that coroutine (checked above), and the
    // registers the hand-off names are written into the interrupted context just below.
    let regs = unsafe { running.trap.setup_trap_handler(overflowed) };
    set_registers(uc, regs);
    true
}

/// Writes, without allocating, why an overflow of a stack of `bytes` ends the process.
fn say_fatal(bytes: usize, why: &str) {
    let mut digits = [0u8; 20];
    let mut n = bytes;
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let hint = FATAL_HINT.get().copied().unwrap_or("");
    let parts: [&[u8]; 7] = [
        b"ascend-sim: a kernel block overflowed its stack of ",
        &digits[i..],
        b" bytes ",
        why.as_bytes(),
        b"; the process ends. ",
        hint.as_bytes(),
        b"\n",
    ];
    for p in parts {
        // SAFETY: writing a valid buffer to standard error; async-signal-safe.
        unsafe { libc::write(2, p.as_ptr().cast(), p.len()) };
    }
}

/// Hands a fault that is not ours to the handler installed before, or, where that was the
/// default action (or ignoring it), restores the default: a fault's instruction runs again on
/// return and ends the process as it would have without this crate, and a signal a program
/// sent is raised again (it arrives once the handler returns).
///
/// # Safety
/// The arguments of an `SA_SIGINFO` handler for `sig`.
unsafe fn pass_on(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
    let which = usize::from(sig != libc::SIGSEGV);
    let previous = PREVIOUS.get().map(|p| p.0[which]);
    match previous {
        Some(p) if p.sa_sigaction != libc::SIG_DFL && p.sa_sigaction != libc::SIG_IGN => {
            if p.sa_flags & libc::SA_SIGINFO != 0 {
                // SAFETY: an `SA_SIGINFO` handler has this signature; it gets our arguments.
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut c_void) =
                    unsafe { std::mem::transmute(p.sa_sigaction) };
                f(sig, info, ctx);
            } else {
                // SAFETY: a plain handler takes the signal number only.
                let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(p.sa_sigaction) };
                f(sig);
            }
        }
        _ => {
            // SAFETY: `dfl` is a zeroed action whose handler is the default; `info` is the
            // kernel's; raising a signal is async-signal-safe.
            unsafe {
                let mut dfl: libc::sigaction = std::mem::zeroed();
                dfl.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(sig, &dfl, std::ptr::null_mut());
                if (*info).si_code <= 0 {
                    libc::raise(sig);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn stack_pointer(uc: &libc::ucontext_t) -> usize {
    uc.uc_mcontext.gregs[libc::REG_RSP as usize] as usize
}

#[cfg(target_arch = "x86_64")]
fn program_counter(uc: &libc::ucontext_t) -> usize {
    uc.uc_mcontext.gregs[libc::REG_RIP as usize] as usize
}

#[cfg(target_arch = "x86_64")]
fn set_registers(uc: &mut libc::ucontext_t, regs: TrapHandlerRegs) {
    let g = &mut uc.uc_mcontext.gregs;
    g[libc::REG_RIP as usize] = regs.rip as i64;
    g[libc::REG_RSP as usize] = regs.rsp as i64;
    g[libc::REG_RBP as usize] = regs.rbp as i64;
    g[libc::REG_RDI as usize] = regs.rdi as i64;
    g[libc::REG_RSI as usize] = regs.rsi as i64;
}

#[cfg(target_arch = "aarch64")]
fn stack_pointer(uc: &libc::ucontext_t) -> usize {
    uc.uc_mcontext.sp as usize
}

#[cfg(target_arch = "aarch64")]
fn program_counter(uc: &libc::ucontext_t) -> usize {
    uc.uc_mcontext.pc as usize
}

#[cfg(target_arch = "aarch64")]
fn set_registers(uc: &mut libc::ucontext_t, regs: TrapHandlerRegs) {
    let m = &mut uc.uc_mcontext;
    m.pc = regs.pc;
    m.sp = regs.sp;
    m.regs[0] = regs.x0;
    m.regs[1] = regs.x1;
    m.regs[29] = regs.x29;
    m.regs[30] = regs.lr;
}
