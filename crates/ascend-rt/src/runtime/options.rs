//! [`RuntimeOptions`]: which of CANN's two descriptions to validate against where they differ.
//!
//! CANN's runtime code accepts some inputs its documentation forbids (docs/discrepancies.md). The
//! runtime follows the code by default, so that a program behaves as on a device; with
//! [`RuntimeOptions::documented_rules`] the documented restrictions are enforced as well, each
//! rejected with `ACL_ERROR_RT_PARAM_INVALID` (107000, EE1003) after the code's own checks of
//! the same call, so that a program can be checked against the contract it was written for.

/// Settings of a [`Runtime`](crate::Runtime).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RuntimeOptions {
    /// Also enforce the documented rules the runtime code does not check:
    /// - `aclrtCmoAsync` and `aclrtCmoAsyncWithDesc` accept only `ACL_RT_CMO_TYPE_PREFETCH`;
    /// - `aclrtCmoWaitBarrier`'s reserved `flag` must be 0;
    /// - `aclrtValueWrite` / `aclrtValueWait` addresses must be 8-byte aligned.
    pub documented_rules: bool,
    /// On the simulator, note where in the program each task was launched (the first frame
    /// of the caller's stack outside this project's libraries), so that the simulator's
    /// hazards, task faults and stalled waits name it ("task 3 was submitted at main
    /// (prog.c:17)"). It costs a walk of the stack per launch, about 1.2 µs of CPU: off by
    /// default (`ascend-sim exec` turns it on; `ASCEND_SIM_CALL_SITES` in the C library).
    pub call_sites: bool,
}
