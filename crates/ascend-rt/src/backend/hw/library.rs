//! Loading and initialising the runtime library: [`HwBackend::load`] and friends, the
//! process-wide table of initialised libraries, and the [`Runtime`] constructors over the
//! `hw` backend.

use std::collections::HashMap;
use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ascend_chips::ChipProfile;
use ascend_rt_sys::{acl_fn, Library};

use super::{HwBackend, HwError, HwState};
use crate::error::{AclError, ErrorCode};
use crate::Runtime;

/// The libraries this process has loaded and initialised, by path. A library is never
/// unloaded: a runtime library keeps threads and thread-local destructors that must not
/// outlive its code (unloading the project's own Rust `libascendcl.so` crashes at thread exit).
static LIBRARIES: Mutex<Option<HashMap<PathBuf, Arc<Library>>>> = Mutex::new(None);

impl HwBackend {
    /// Loads the runtime library from where [`ascend_rt_sys::library_candidates`] says
    /// (`ASCEND_RT_LIB`, the toolkit, the loader path) and starts the backend.
    pub fn load() -> Result<HwBackend, HwError> {
        if let Some((path, _)) = ascend_rt_sys::library_candidates().first() {
            if let Some(lib) = Self::cached(path) {
                return Self::start(lib);
            }
        }
        Self::from_library(Library::load()?)
    }

    /// Loads the runtime library at `path` and starts the backend.
    pub fn load_from(path: impl AsRef<Path>) -> Result<HwBackend, HwError> {
        match Self::cached(path.as_ref()) {
            Some(lib) => Self::start(lib),
            None => Self::from_library(Library::load_from(path)?),
        }
    }

    /// The library already initialised from `path`, if any.
    fn cached(path: &Path) -> Option<Arc<Library>> {
        let libs = LIBRARIES.lock().unwrap_or_else(|p| p.into_inner());
        libs.as_ref()?.get(path).cloned()
    }

    /// Starts the backend on a loaded library: `aclInit` (once per process and library path),
    /// then the SoC name and its built-in chip profile. The library stays loaded for the
    /// process's life.
    pub fn from_library(lib: Library) -> Result<HwBackend, HwError> {
        let lib = {
            let mut libs = LIBRARIES.lock().unwrap_or_else(|p| p.into_inner());
            let libs = libs.get_or_insert_with(HashMap::new);
            match libs.get(lib.path()) {
                Some(known) => known.clone(),
                None => {
                    let init = acl_fn!(lib, aclInit)?;
                    // SAFETY: aclInit accepts NULL for "no configuration file".
                    let rc = unsafe { init(std::ptr::null()) };
                    if rc != 0 && rc != ErrorCode::RepeatInitialize.number() {
                        return Err(HwError::Init(AclError::from_code(
                            rc,
                            format!("aclInit(NULL) returned {rc}"),
                        )));
                    }
                    let lib = Arc::new(lib);
                    libs.insert(lib.path().to_path_buf(), lib.clone());
                    lib
                }
            }
        };
        Self::start(lib)
    }

    /// Reads the SoC name of an initialised library and picks its chip profile.
    fn start(lib: Arc<Library>) -> Result<HwBackend, HwError> {
        let get_soc = acl_fn!(lib, aclrtGetSocName)?;
        // SAFETY: no arguments; the result is NULL or a NUL-terminated string owned by the
        // library that stays valid for the process's life (it names the installed device).
        let name = unsafe { get_soc() };
        if name.is_null() {
            return Err(HwError::NoSocName);
        }
        // SAFETY: non-NULL and NUL-terminated (above); copied out at once.
        let soc = unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned();
        let chip = ChipProfile::builtin(&soc).map_err(|e| HwError::UnknownSoc {
            soc: soc.clone(),
            detail: e.to_string(),
        })?;
        Ok(HwBackend {
            lib,
            chip,
            soc,
            state: Mutex::new(HwState::default()),
        })
    }
}

impl Runtime {
    /// A runtime over the real runtime library, found as
    /// [`ascend_rt_sys::library_candidates`] says: `ASCEND_RT_LIB`, then the toolkit
    /// (`ASCEND_TOOLKIT_HOME` / `ASCEND_HOME_PATH`, `lib64/libascendcl.so`), then the loader
    /// path. The chip profile is the built-in one of the SoC the library reports.
    pub fn hw() -> Result<Runtime, HwError> {
        Ok(Runtime::new(Box::new(HwBackend::load()?)))
    }

    /// A runtime over the runtime library at `path`.
    pub fn hw_from(path: impl AsRef<Path>) -> Result<Runtime, HwError> {
        Ok(Runtime::new(Box::new(HwBackend::load_from(path)?)))
    }
}
