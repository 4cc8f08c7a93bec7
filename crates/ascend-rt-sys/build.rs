//! Generates the FFI declarations with bindgen.
//!
//! Headers: the vendor's, when a toolkit is installed (`ASCEND_TOOLKIT_HOME` or
//! `ASCEND_HOME_PATH` pointing at a root with `include/acl/acl.h`), otherwise the project's own
//! (`crates/ascend-sim-capi/include`), which declare the same names, types and values.
//! `ASCEND_RT_SYS_HEADERS=<dir>` forces a directory holding `acl/acl.h`.
//!
//! Only the ACL subset the project covers is kept (the allowlists below). The output is a
//! struct of function pointers (`AscendCl`) loaded from a path at run time, so nothing is
//! linked at build time and the crate builds on machines without a toolkit.

use std::env;
use std::path::{Path, PathBuf};

/// The functions the project calls.
const FUNCTIONS: &[&str] = &[
    "aclInit",
    "aclFinalize",
    "aclGetRecentErrMsg",
    "aclrtGetSocName",
    "aclrtSetDevice",
    "aclrtResetDevice",
    "aclrtResetDeviceForce",
    "aclrtGetDevice",
    "aclrtGetDeviceCount",
    "aclrtSynchronizeDevice",
    "aclrtGetCurrentContext",
    "aclrtSetCurrentContext",
    "aclrtCreateContext",
    "aclrtDestroyContext",
    "aclrtMalloc",
    "aclrtFree",
    "aclrtMallocHost",
    "aclrtFreeHost",
    "aclrtMemcpy",
    "aclrtMemcpyAsync",
    "aclrtMemset",
    "aclrtMemsetAsync",
    "aclrtCreateStream",
    "aclrtCreateStreamWithConfig",
    "aclrtDestroyStream",
    "aclrtDestroyStreamForce",
    "aclrtSynchronizeStream",
    "aclrtSynchronizeStreamWithTimeout",
    "aclrtStreamQuery",
    "aclrtCreateEvent",
    "aclrtCreateEventWithFlag",
    "aclrtCreateEventExWithFlag",
    "aclrtEventGetTimestamp",
    "aclrtRecordEvent",
    "aclrtResetEvent",
    "aclrtStreamWaitEvent",
    "aclrtSynchronizeEvent",
    "aclrtSynchronizeEventWithTimeout",
    "aclrtQueryEventStatus",
    "aclrtEventElapsedTime",
    "aclrtDestroyEvent",
    "aclrtCreateNotify",
    "aclrtDestroyNotify",
    "aclrtRecordNotify",
    "aclrtWaitAndResetNotify",
    "aclmdlRIBuildBegin",
    "aclmdlRIBindStream",
    "aclmdlRIUnbindStream",
    "aclmdlRIEndTask",
    "aclmdlRIBuildEnd",
    "aclmdlRIExecute",
    "aclmdlRIExecuteAsync",
    "aclmdlRIDestroy",
    "aclrtCmoAsync",
    "aclrtCmoAsyncWithBarrier",
    "aclrtCmoWaitBarrier",
    "aclrtCmoGetDescSize",
    "aclrtCmoSetDesc",
    "aclrtCmoAsyncWithDesc",
    "aclrtValueWrite",
    "aclrtValueWait",
];

/// The types those functions use.
const TYPES: &[&str] = &[
    "aclError",
    "aclrtStream",
    "aclrtEvent",
    "aclrtContext",
    "aclrtNotify",
    "aclmdlRI",
    "aclrtMemcpyKind",
    "aclrtMemMallocPolicy",
    "aclrtStreamStatus",
    "aclrtEventRecordedStatus",
    "aclrtCmoType",
    "aclrtBarrierCmoInfo",
    "aclrtBarrierTaskInfo",
];

/// A toolkit root with the vendor's headers, from the environment.
fn toolkit_include() -> Option<(PathBuf, String)> {
    for var in ["ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"] {
        let Some(root) = env::var_os(var) else {
            continue;
        };
        let root = PathBuf::from(root);
        for sub in ["include", "runtime/include"] {
            let inc = root.join(sub);
            if inc.join("acl/acl.h").is_file() {
                return Some((inc, format!("vendor headers from {var}")));
            }
        }
        println!(
            "cargo:warning={var}={} has no include/acl/acl.h; using the project's own ACL headers",
            root.display()
        );
    }
    None
}

fn main() {
    for var in [
        "ASCEND_TOOLKIT_HOME",
        "ASCEND_HOME_PATH",
        "ASCEND_RT_SYS_HEADERS",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let own = manifest.join("../ascend-sim-capi/include");
    let (include, origin) = if let Some(dir) = env::var_os("ASCEND_RT_SYS_HEADERS") {
        (PathBuf::from(dir), "ASCEND_RT_SYS_HEADERS".to_string())
    } else if let Some(found) = toolkit_include() {
        found
    } else {
        (own, "the project's own headers".to_string())
    };
    let include = include.canonicalize().unwrap_or(include);
    let header = include.join("acl/acl.h");
    assert!(
        header.is_file(),
        "no ACL header at {} ({origin})",
        header.display()
    );
    rerun_for_dir(&include.join("acl"));

    let mut builder = bindgen::Builder::default()
        .header(header.to_string_lossy())
        .clang_arg(format!("-I{}", include.display()))
        .dynamic_library_name("AscendCl")
        .dynamic_link_require_all(false)
        .generate_comments(false)
        .layout_tests(true)
        .derive_default(true)
        .derive_debug(true)
        .allowlist_var("ACL_.*")
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()));
    for f in FUNCTIONS {
        builder = builder.allowlist_function(f);
    }
    for t in TYPES {
        builder = builder.allowlist_type(t);
    }
    let bindings = builder
        .generate()
        .unwrap_or_else(|e| panic!("bindgen failed on {} ({origin}): {e}", header.display()));
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    bindings
        .write_to_file(out.join("bindings.rs"))
        .expect("write bindings.rs");
    println!(
        "cargo:rustc-env=ASCEND_RT_SYS_HEADER_DIR={}",
        include.display()
    );
    println!("cargo:rustc-env=ASCEND_RT_SYS_HEADER_ORIGIN={origin}");
}

fn rerun_for_dir(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            println!("cargo:rerun-if-changed={}", e.path().display());
        }
    }
}
