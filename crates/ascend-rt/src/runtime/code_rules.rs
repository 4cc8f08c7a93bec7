//! Inputs the vendor's runtime code accepts and its documentation does not (or accepts while
//! silently changing them): with [`RuntimeOptions::documented_rules`](super::RuntimeOptions)
//! they are refused; without, the call goes on as on a device and a warning says so once per
//! call site and rule, naming the site ("aclrtValueWrite: devAddr 0x…04 is not 8-byte aligned
//! ... at main (prog.c:17)").

use std::collections::HashSet;
use std::sync::Mutex;

use super::Runtime;

/// The rule of a size the runtime narrows to 32 bits.
const NARROWED: &str = "size-narrowed";

/// The (call, rule, call site) triples already warned of.
pub(super) type Warned = Mutex<HashSet<(&'static str, &'static str, usize)>>;

impl Runtime {
    /// `api`'s input breaks the documented `rule` and the code goes on (`said`: how): warned
    /// of once for the call site it came from.
    pub(super) fn code_differs(
        &self,
        api: &'static str,
        rule: &'static str,
        said: impl FnOnce() -> String,
    ) {
        let site = super::call_site::caller();
        let ip = site.as_ref().map_or(0, |s| s.ip);
        let first = self
            .warned
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert((api, rule, ip));
        if !first {
            return;
        }
        let at = site
            .map(|s| format!(" (at {})", s.said))
            .unwrap_or_default();
        let tail = if rule == NARROWED {
            "; the documentation gives no bound"
        } else {
            "; the runtime's code accepts this, its documentation does not \
             (ASCEND_SIM_RULES=documented, or RuntimeOptions::documented_rules, refuses it)"
        };
        if ascend_types::warning::has_logger() {
            tracing::warn!(api, rule, "{api}: {}{at}{tail}", said());
        } else {
            eprintln!("ascend-rt: warning: {api}: {}{at}{tail}", said());
        }
    }

    /// `size` bytes given to `api`, which the runtime narrows to 32 bits: warned of when that
    /// changes it.
    pub(super) fn note_narrowed_size(&self, api: &'static str, size: usize) {
        let narrowed = size as u64 & u64::from(u32::MAX);
        if narrowed as usize != size {
            self.code_differs(api, NARROWED, || {
                format!(
                    "size {size} is narrowed to 32 bits by the runtime: the task acts on \
                     {narrowed} bytes"
                )
            });
        }
    }
}
