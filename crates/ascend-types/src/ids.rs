//! Typed handles of a backend's objects. Each is 64 bits wide, so a simulator's serial number
//! and a real runtime library's pointer both fit without narrowing; the types keep a stream
//! from being passed where an event is meant.

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u64);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl std::fmt::LowerHex for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::LowerHex::fmt(&self.0, f)
            }
        }
    };
}

id!(
    /// A stream of a backend.
    StreamId
);
id!(
    /// An event of a backend.
    EventId
);
id!(
    /// A notify of a backend: a one-bit flag one stream sets and another waits for and clears.
    NotifyId
);
id!(
    /// A model running instance of a backend.
    ModelId
);
id!(
    /// A task, numbered in submission order across a whole simulator.
    TaskId
);
