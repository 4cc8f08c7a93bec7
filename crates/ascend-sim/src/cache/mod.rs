//! The device's caches. Each device has an [`L2`] in front of its memory, through which device
//! agents read and write (the scheduler for value writes and waits, the copy engine for copies
//! and fills, host copies through the runtime) and on which the CMO tasks act. Which agents go
//! around it instead is chip-file data (`cache.*_via_l2`); their accesses are in `around`.
//!
//! The earlier seam, a model that only observed traffic after the fact, could not hold data: a
//! cache that holds data must see a write before it reaches memory (to keep what memory
//! underneath still holds) and must be able to change memory (an INVALID that drops a dirty
//! line brings the older data back). So the L2 sits in the data path itself.

mod around;
mod l2;

pub use around::{AroundScope, AroundWrite, L2Event};
pub use l2::{CmoOutcome, L2Stats, L2};
