//! `ascend-sim example <name>`: C programs that show what the simulator tells, compiled with
//! the system's C compiler against the project's headers and run through `exec`. Their
//! sources are built into this binary (from `examples/c/` and the C test programs), so a name
//! is all it takes.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shared test helpers the programs include.
const CHECK_H: &str = include_str!("../../ascend-sim-capi/tests/c/check.h");

/// The project's ACL headers, written beside each example it compiles.
const HEADERS: &[(&str, &str)] = &[
    (
        "acl.h",
        include_str!("../../ascend-sim-capi/include/acl/acl.h"),
    ),
    (
        "acl_base.h",
        include_str!("../../ascend-sim-capi/include/acl/acl_base.h"),
    ),
    (
        "acl_rt.h",
        include_str!("../../ascend-sim-capi/include/acl/acl_rt.h"),
    ),
    (
        "acl_sim.h",
        include_str!("../../ascend-sim-capi/include/acl/acl_sim.h"),
    ),
];

/// An example: its name, what it shows, the SoC it runs on, its arguments and its source.
pub struct Example {
    pub name: &'static str,
    pub about: &'static str,
    pub soc: &'static str,
    pub args: &'static [&'static str],
    source: &'static str,
}

/// Every example.
pub const EXAMPLES: &[Example] = &[
    Example {
        name: "two_thread_wait_write",
        about: "the vendor's two-thread sample: a value wait on stream A released by another thread's value write on stream B",
        soc: "Ascend910B1",
        args: &[],
        source: include_str!("../../ascend-sim-capi/tests/c/two_thread_wait_write.c"),
    },
    Example {
        name: "cmo_prefetch",
        about: "a device-to-device copy after a PREFETCH of its source (run it with `prefetch`, or without to compare)",
        soc: "Ascend910B1",
        args: &["prefetch"],
        source: include_str!("../../../examples/c/cmo_prefetch.c"),
    },
    Example {
        name: "barrier_cmo",
        about: "an INVALID with a barrier id and a barrier wait on a model stream",
        soc: "Ascend310B1",
        args: &[],
        source: include_str!("../../ascend-sim-capi/tests/c/barrier_cmo.c"),
    },
    Example {
        name: "deadlock",
        about: "a value wait nothing will ever satisfy: the watchdog explains the stall",
        soc: "Ascend910B1",
        args: &[],
        source: include_str!("../../ascend-sim-capi/tests/c/stall_message.c"),
    },
    Example {
        name: "lost_write",
        about: "an INVALID after a value write loses the write (a lost_write hazard); `writeback` fixes it",
        soc: "Ascend910B1",
        args: &["invalid-only"],
        source: include_str!("../../ascend-sim-capi/tests/c/cmo_lost_write.c"),
    },
    Example {
        name: "kernel_sync",
        about: "the developer guide's memory-semantic synchronisation between kernels (dcci) and value waits/writes",
        soc: "Ascend910B1",
        args: &["ok"],
        source: include_str!("../../ascend-sim-capi/tests/c/kernel_memory_sync.c"),
    },
];

/// The example named `name`.
pub fn find(name: &str) -> Result<&'static Example, String> {
    EXAMPLES.iter().find(|e| e.name == name).ok_or_else(|| {
        let names: Vec<&str> = EXAMPLES.iter().map(|e| e.name).collect();
        format!(
            "no example named {name:?} (there are: {})",
            names.join(", ")
        )
    })
}

/// The list, for `ascend-sim example --list`.
pub fn list() -> String {
    EXAMPLES
        .iter()
        .map(|e| format!("{:<22} {} (on {})\n", e.name, e.about, e.soc))
        .collect()
}

/// Compiles `example` into a fresh folder against the library in `lib`; returns the program.
pub fn build(example: &Example, lib: &Path) -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!(
        "ascend-sim-example-{}-{}",
        example.name,
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let src = dir.join(format!("{}.c", example.name));
    std::fs::write(&src, example.source).map_err(|e| format!("{}: {e}", src.display()))?;
    std::fs::write(dir.join("check.h"), CHECK_H).map_err(|e| e.to_string())?;
    let acl = dir.join("acl");
    std::fs::create_dir_all(&acl).map_err(|e| format!("{}: {e}", acl.display()))?;
    for (name, text) in HEADERS {
        std::fs::write(acl.join(name), text).map_err(|e| e.to_string())?;
    }
    let exe = dir.join(example.name);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .arg("-std=c99")
        // Debug information: call sites are said with their file and line.
        .arg("-g")
        .arg("-I")
        .arg(&dir)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(lib)
        .args(["-rdynamic", "-lascendcl", "-lpthread"])
        .output()
        .map_err(|e| format!("cannot run the C compiler {cc:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "compiling the example failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(exe)
}
