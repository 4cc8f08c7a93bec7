//! Where in the program a call came from: the first frame of the calling thread's stack that
//! is not this runtime's, the simulator's, the C library's, the standard library's or the
//! unwinder's own, said as "main (prog.c:17)" or "main+0x1c". A frame's verdict is kept by its
//! address, so a call site seen before costs one walk of the stack's addresses and no
//! symbolisation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A call site: its instruction address and how it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallSite {
    /// The return address in the caller.
    pub ip: usize,
    /// "main (prog.c:17)", or the address when nothing names it.
    pub said: Arc<str>,
}

/// Frames by address: `None` for one of ours (to be walked past), else how it reads.
fn verdicts() -> &'static Mutex<HashMap<usize, Option<Arc<str>>>> {
    static V: OnceLock<Mutex<HashMap<usize, Option<Arc<str>>>>> = OnceLock::new();
    V.get_or_init(Default::default)
}

/// Symbol prefixes of frames that are not the program's.
const OURS: &[&str] = &[
    "ascend_rt",
    "ascend_sim",
    "ascend_types",
    "ascendcl",
    "backtrace",
    "std::",
    "core::",
    "alloc::",
    "<",
    "acl",
    "__rust",
    "rust_",
];

/// The first frame of the current stack outside this project's libraries and the standard
/// library, if one is found within 64 frames.
pub(crate) fn caller() -> Option<CallSite> {
    let mut known = verdicts().lock().unwrap_or_else(|p| p.into_inner());
    let mut found = None;
    let mut depth = 0;
    // The walk stops at the program's frame: the frames above it are never unwound.
    backtrace::trace(|f| {
        let ip = f.ip() as usize;
        depth += 1;
        let verdict = known.entry(ip).or_insert_with(|| judge(ip));
        if let Some(said) = verdict {
            found = Some(CallSite {
                ip,
                said: said.clone(),
            });
            return false;
        }
        depth < 64
    });
    found
}

/// Symbolises the frame at `ip`: `None` when it is one of ours.
fn judge(ip: usize) -> Option<Arc<str>> {
    let mut name = None;
    let mut place = None;
    backtrace::resolve(ip as *mut std::ffi::c_void, |s| {
        if name.is_none() {
            name = s.name().map(|n| format!("{n:#}"));
            place = match (s.filename(), s.lineno()) {
                (Some(f), Some(l)) => Some(format!(
                    "{}:{l}",
                    f.file_name().map_or_else(
                        || f.display().to_string(),
                        |n| n.to_string_lossy().into_owned()
                    )
                )),
                _ => None,
            };
        }
    });
    match name {
        Some(n) if OURS.iter().any(|p| n.starts_with(p)) => None,
        Some(n) => Some(
            match place {
                Some(p) => format!("{n} ({p})"),
                None => n,
            }
            .into(),
        ),
        None => Some(format!("{ip:#x}").into()),
    }
}
