//! [`Diagnosis`]: the simulator watchdog's explanation of a device that can make no
//! progress, as data: the simulator makes it, and the front end hands it to the program with
//! the error of the call that waited (`AclError::diagnosis`).

/// Why the device can make no progress, as the watchdog explains it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Diagnosis {
    /// Simulated time of the diagnosis, in ns.
    pub at_ns: u64,
    /// One entry per blocked stream.
    pub blocked: Vec<BlockedStream>,
    /// What each host thread stuck on the stalled device is waiting in (for example a
    /// destroy of a stream whose tasks cannot complete).
    pub host_waits: Vec<String>,
    /// Human-readable explanation (several lines).
    pub text: String,
}

/// One stream that cannot progress.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BlockedStream {
    /// The stream.
    pub stream: u64,
    /// The task at its head.
    pub task: u64,
    /// What the head task waits for (a value-wait predicate, an event, a barrier).
    pub waiting_for: String,
}
