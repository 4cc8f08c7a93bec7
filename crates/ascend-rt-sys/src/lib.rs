//! Raw FFI to the Ascend runtime library (`libascendcl.so`), for the ACL subset this project
//! covers: the declarations bindgen generates from the ACL headers, and the loading of the
//! library at run time. No logic: the `hw` backend of `ascend-rt` builds on this.
//!
//! The declarations are generated once and committed (`src/bindings.rs`), so building needs
//! only Rust: `scripts/regen-bindings.sh` regenerates them with bindgen (which needs libclang)
//! from the project's own headers (`crates/ascend-sim-capi/include`), or from the vendor's
//! (`ASCEND_TOOLKIT_HOME` / `ASCEND_HOME_PATH` / `ASCEND_RT_SYS_HEADERS`); [`HEADER_ORIGIN`]
//! says which. [`allowlist`] names the functions and types covered. The test
//! `tests/bindings_fresh.rs` checks the committed file against a regeneration wherever libclang
//! can be loaded, and `ascend-sim-capi` checks at compile time that its exports have exactly
//! these signatures, so headers, exports and bindings cannot drift apart.
//!
//! The library is never linked: [`Library::load`] opens it at run time (see
//! [`library_candidates`] for where it looks), so the crate builds anywhere, and a machine
//! without the library gets a [`LoadError`] rather than a failed link or a panic. A function
//! missing from the library is a [`LoadError::MissingSymbol`] when it is first asked for
//! ([`acl_fn!`]), not a panic.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub mod allowlist;

/// The bindgen output (`src/bindings.rs`, committed): types, constants and the `AscendCl`
/// struct of function pointers, plus [`HEADER_DIR`] and [`HEADER_ORIGIN`].
#[allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    missing_docs,
    unsafe_code,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::pedantic
)]
pub mod bindings {
    // `include!` rather than `mod`: the file is formatted by bindgen (prettyplease), and
    // `cargo fmt` leaves it as generated.
    include!("bindings.rs");
}

pub use bindings::*;

/// The library's file name.
pub const LIBRARY_NAME: &str = "libascendcl.so";

/// Why the runtime library or one of its functions is unavailable.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The library could not be opened.
    #[error("cannot load the ACL runtime library {path:?} ({how}): {source}")]
    Library {
        /// What was opened.
        path: PathBuf,
        /// How that path was chosen.
        how: &'static str,
        /// The loader's error.
        source: libloading::Error,
    },
    /// The library has no such function.
    #[error("the ACL runtime library {path:?} has no function `{symbol}`")]
    MissingSymbol {
        /// The library.
        path: PathBuf,
        /// The function.
        symbol: &'static str,
    },
}

/// Where [`Library::load`] looks, in order, with how each path was chosen:
///
/// 1. `ASCEND_RT_LIB=<path>` if set (and then nothing else);
/// 2. `<root>/lib64/libascendcl.so` for the toolkit roots `ASCEND_TOOLKIT_HOME` and
///    `ASCEND_HOME_PATH` that have one;
/// 3. `libascendcl.so`, found by the dynamic loader (`LD_LIBRARY_PATH`, `ld.so.cache`).
pub fn library_candidates() -> Vec<(PathBuf, &'static str)> {
    if let Some(p) = std::env::var_os("ASCEND_RT_LIB").filter(|p| !p.is_empty()) {
        return vec![(PathBuf::from(p), "ASCEND_RT_LIB")];
    }
    let mut out = Vec::new();
    for (var, how) in [
        ("ASCEND_TOOLKIT_HOME", "ASCEND_TOOLKIT_HOME/lib64"),
        ("ASCEND_HOME_PATH", "ASCEND_HOME_PATH/lib64"),
    ] {
        if let Some(root) = std::env::var_os(var).filter(|p| !p.is_empty()) {
            let p = PathBuf::from(root).join("lib64").join(LIBRARY_NAME);
            if p.is_file() {
                out.push((p, how));
            }
        }
    }
    out.push((
        PathBuf::from(LIBRARY_NAME),
        "the dynamic loader's search path",
    ));
    out
}

/// The loaded runtime library: its path and its function pointers.
pub struct Library {
    api: AscendCl,
    path: PathBuf,
}

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library").field("path", &self.path).finish()
    }
}

impl Library {
    /// Loads the library from the first of [`library_candidates`] that opens; the error
    /// names the last path tried.
    pub fn load() -> Result<Library, LoadError> {
        let mut last = None;
        for (path, how) in library_candidates() {
            match Self::open(&path, how) {
                Ok(lib) => return Ok(lib),
                Err(e) => last = Some(e),
            }
        }
        Err(last.expect("library_candidates always names at least one path"))
    }

    /// Loads the library at `path` (a bare file name is looked up by the dynamic loader).
    pub fn load_from(path: impl AsRef<Path>) -> Result<Library, LoadError> {
        Self::open(path.as_ref(), "an explicit path")
    }

    fn open(path: &Path, how: &'static str) -> Result<Library, LoadError> {
        let name: OsString = path.as_os_str().to_owned();
        // Opening the library runs its initialisers. The path names an ACL runtime library
        // (the vendor's or the project's drop-in), chosen by the user or the toolkit
        // installation; its initialisers are trusted like any linked library's would be.
        // Symbols are resolved lazily (`dynamic_link_require_all(false)`), so a missing one
        // becomes an `Err` field, never undefined behaviour.
        // SAFETY: as explained just above.
        let api = unsafe { AscendCl::new(name) }.map_err(|source| LoadError::Library {
            path: path.to_path_buf(),
            how,
            source,
        })?;
        Ok(Library {
            api,
            path: path.to_path_buf(),
        })
    }

    /// The function pointers. Prefer [`acl_fn!`], which turns a missing function into a
    /// [`LoadError`]; the generated wrapper methods of `AscendCl` panic instead.
    pub fn api(&self) -> &AscendCl {
        &self.api
    }

    /// The path the library was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The error for a function the library lacks.
    pub fn missing(&self, symbol: &'static str) -> LoadError {
        LoadError::MissingSymbol {
            path: self.path.clone(),
            symbol,
        }
    }
}

/// The function pointer `name` of a [`Library`], or [`LoadError::MissingSymbol`]:
/// `acl_fn!(lib, aclrtSetDevice)?` has type `unsafe extern "C" fn(i32) -> aclError`.
#[macro_export]
macro_rules! acl_fn {
    ($lib:expr, $name:ident) => {
        match &$lib.api().$name {
            ::core::result::Result::Ok(f) => ::core::result::Result::Ok(*f),
            ::core::result::Result::Err(_) => {
                ::core::result::Result::Err($lib.missing(::core::stringify!($name)))
            }
        }
    };
}
