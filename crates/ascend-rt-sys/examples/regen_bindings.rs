//! Regenerates the committed bindings (`src/bindings.rs`) with bindgen; needs libclang.
//!
//! `cargo run -p ascend-rt-sys --example regen_bindings [-- --check]` (or
//! `scripts/regen-bindings.sh`). The headers are the project's own
//! (`crates/ascend-sim-capi/include`) unless the environment names the vendor's:
//! `ASCEND_RT_SYS_HEADERS=<dir holding acl/acl.h>`, or a toolkit root in `ASCEND_TOOLKIT_HOME`
//! or `ASCEND_HOME_PATH`. With `--check`, nothing is written: the exit status says whether the
//! committed file matches (0), differs (1), or could not be generated (2).
//!
//! The committed file must be the one generated from the project's own headers (the test
//! `tests/bindings_fresh.rs` insists); vendor headers are for checking that they agree, or for
//! a local build against a newer toolkit.

#[path = "../codegen/generate.rs"]
mod generate;

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut check = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--check" => check = true,
            "-h" | "--help" => {
                println!("usage: regen_bindings [--check]");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!(
                    "regen_bindings: unknown argument {other:?} (usage: regen_bindings [--check])"
                );
                return ExitCode::from(2);
            }
        }
    }
    if let Err(e) = clang_sys::load() {
        eprintln!("regen_bindings: libclang cannot be loaded: {e}");
        eprintln!("(install it, e.g. `apt-get install libclang-dev`, or set LIBCLANG_PATH)");
        return ExitCode::from(2);
    }
    let mut notes = Vec::new();
    let headers = generate::Headers::from_env(&mut notes);
    for n in notes {
        eprintln!("regen_bindings: {n}");
    }
    let text = match generate::generate(&headers) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("regen_bindings: {e} ({})", headers.origin);
            return ExitCode::from(2);
        }
    };
    let out = generate::output_path();
    if check {
        let same = generate::committed().is_ok_and(|old| old == text);
        if same {
            println!("{} is up to date ({})", out.display(), headers.origin);
            return ExitCode::SUCCESS;
        }
        eprintln!(
            "{} differs from a regeneration from {}",
            out.display(),
            headers.origin
        );
        return ExitCode::from(1);
    }
    match generate::write_if_changed(&out, &text) {
        Ok(true) => println!("wrote {} ({})", out.display(), headers.origin),
        Ok(false) => println!("{} unchanged ({})", out.display(), headers.origin),
        Err(e) => {
            eprintln!("regen_bindings: cannot write {}: {e}", out.display());
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
