#!/usr/bin/env bash
# Regenerates crates/ascend-rt-sys/src/bindings.rs (the committed FFI declarations) with bindgen.
# Needs libclang and clang's headers (Debian/Ubuntu: apt-get install libclang-dev), or
# LIBCLANG_PATH naming a libclang.
#
#   scripts/regen-bindings.sh            # from the project's own headers (crates/ascend-sim-capi/include)
#   scripts/regen-bindings.sh --check    # compare only; exit 1 if the committed file is stale
#
# The vendor's headers are used instead when the environment names them, as the old build
# script accepted: ASCEND_RT_SYS_HEADERS=<dir holding acl/acl.h>, or a toolkit root in
# ASCEND_TOOLKIT_HOME / ASCEND_HOME_PATH with include/acl/acl.h. Commit only the file generated
# from the project's own headers: crates/ascend-rt-sys/tests/bindings_fresh.rs checks that one.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --quiet -p ascend-rt-sys --example regen_bindings -- "$@"
