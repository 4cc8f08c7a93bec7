//! Compile-time check that the exports have exactly the signatures of the committed bindings.
//!
//! For every function the bindings cover (`ascend_rt_sys::acl_functions!`, the bindgen
//! allowlist), the `#[no_mangle]` export of the same name must coerce to the type of the
//! field of `ascend_rt_sys::AscendCl`, the function pointer bindgen generated from
//! `include/acl/*.h`: the same parameter types, result type and ABI (an export may be a safe
//! `extern "C" fn` where the pointer is `unsafe`). A missing export, a missing field or a
//! different signature is a compile error, so headers, exports and bindings cannot drift
//! apart. Nothing here exists at run time.

use ascend_rt_sys::AscendCl;

#[allow(clippy::wildcard_imports)]
use crate::{
    callbacks::*, compat::*, context::*, device::*, device_ext::*, event::*, event_ext::*,
    host_register::*, ipc_memory::*, kernels::*, memory::*, model::*, notify::*, overflow::*,
    physical_memory::*, stream::*, stream_ext::*, tasks::*,
};

/// Type-checks only: `export` coerces to `F`, the function pointer type in the bindings' field
/// (`Result<F, libloading::Error>`).
fn has_the_bindings_signature<F, E>(_field: &Result<F, E>, _export: F) {}

macro_rules! check_exports {
    ($($name:ident,)*) => {
        // A non-capturing closure coerced to a function pointer: type-checked, never called.
        const _: fn(&AscendCl) = |api| {
            $(has_the_bindings_signature(&api.$name, $name);)*
        };
    };
}

ascend_rt_sys::acl_functions!(check_exports);
