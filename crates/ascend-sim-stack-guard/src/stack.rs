//! The stack of a guarded coroutine: the usable bytes, and below them a guard region of
//! [`GUARD_BYTES`] that is reserved but never accessible, so that a frame larger than a page
//! (a C function with a big local array, compiled without stack-clash protection) still lands
//! in it instead of in other memory. The region costs address space only.

use corosensei::stack::StackPointer;

/// The never-accessible region below each stack, in bytes: a frame up to this size that
/// overflows the stack still faults in it.
pub const GUARD_BYTES: usize = 1 << 20;

/// A coroutine stack with a [`GUARD_BYTES`] guard region below it.
#[derive(Debug)]
pub struct Stack {
    /// The mapping's lowest address (the guard region's start).
    map: usize,
    /// The whole mapping's length: guard region and usable bytes.
    len: usize,
    /// The usable bytes (a whole number of pages).
    usable: usize,
}

impl Stack {
    /// A stack of at least `bytes` usable bytes (and corosensei's minimum), rounded up to
    /// whole pages; its pages are mapped on first touch.
    pub fn new(bytes: usize) -> std::io::Result<Stack> {
        let page = crate::page_size();
        let usable = bytes
            .max(corosensei::stack::MIN_STACK_SIZE)
            .checked_add(page - 1)
            .map(|b| b & !(page - 1))
            .ok_or_else(|| std::io::Error::other("stack size overflows"))?;
        let len = usable
            .checked_add(GUARD_BYTES)
            .ok_or_else(|| std::io::Error::other("stack size overflows"))?;
        // SAFETY: a fresh private anonymous mapping with no access; checked below.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let stack = Stack {
            map: map as usize,
            len,
            usable,
        };
        // SAFETY: the top `usable` bytes of our own mapping become the writable stack; on
        // failure `stack`'s drop unmaps the whole mapping.
        let rw = unsafe {
            libc::mprotect(
                (stack.map + GUARD_BYTES) as *mut libc::c_void,
                usable,
                libc::PROT_READ | libc::PROT_WRITE,
            )
        };
        if rw != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(stack)
    }

    /// The usable bytes.
    pub fn usable_bytes(&self) -> usize {
        self.usable
    }

    /// The usable bytes' addresses, `[lowest, highest)` (the stack grows down from the
    /// highest).
    pub fn usable_range(&self) -> (usize, usize) {
        (self.map + GUARD_BYTES, self.map + self.len)
    }

    /// The guard region, `[start, end)`.
    pub(crate) fn guard_region(&self) -> (usize, usize) {
        (self.map, self.map + GUARD_BYTES)
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: `map`/`len` are the mapping made in `Stack::new`, unmapped only here; a
        // stack is dropped only when no coroutine runs on it (corosensei owns it until then,
        // and an overflowed one is leaked, never dropped).
        unsafe {
            libc::munmap(self.map as *mut libc::c_void, self.len);
        }
    }
}

// SAFETY: `base` is the top of the usable bytes and `limit` the bottom of the guard region,
// both page-aligned (so aligned to corosensei's STACK_ALIGNMENT); the memory between them
// stays mapped for as long as the `Stack` lives.
unsafe impl corosensei::stack::Stack for Stack {
    fn base(&self) -> StackPointer {
        StackPointer::new(self.map + self.len).expect("a mapping is never at address 0")
    }

    fn limit(&self) -> StackPointer {
        StackPointer::new(self.map).expect("a mapping is never at address 0")
    }
}
