//! [`Inspect`]: what the front end may ask a backend about itself for its diagnostics: where
//! device addresses lie, why one is unusable, and the simulator behind it (whose run report
//! and trace [`crate::SimView`] reads).

use std::ops::Range;

/// Questions about the backend, never about a call: none changes anything.
pub trait Inspect {
    /// The device address window: every device address the backend hands out lies in it and
    /// no host memory does, so an address inside it that is in no live allocation is a stale
    /// or foreign device address (freed, past an allocation's end, never allocated), never a
    /// host pointer. `None` when the backend cannot tell (real devices).
    fn device_window(&self) -> Option<Range<u64>>;

    /// Why a device address is not usable (freed when and by what, past which allocation's
    /// end, never allocated), where the backend knows.
    fn explain_device_address(&self, addr: u64) -> Option<String>;

    /// True when the backend runs simulator kernels ([`crate::Kernel`]): the simulator, and the
    /// project's own `libascendcl.so` through the `hw` backend; never a real device.
    fn runs_sim_kernels(&self) -> bool;

    /// The simulator, where the backend is one: its run report, trace and sanitizer.
    #[cfg(feature = "sim")]
    fn simulator(&self) -> Option<&ascend_sim::Sim>;
}
