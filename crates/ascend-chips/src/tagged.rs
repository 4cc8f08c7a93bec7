//! Provenance tags: every number in a chip file says where it comes from.

use std::fmt;

/// How a number in a chip file was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tag {
    /// Taken from a source (vendor runtime code, platform ini, documentation).
    Sourced,
    /// Computed from sourced numbers; the arithmetic is in the source note.
    Derived,
    /// A placeholder estimate, to be calibrated on hardware.
    Assumed,
}

impl Tag {
    /// Parses `sourced`, `derived` or `assumed`.
    pub fn from_name(name: &str) -> Option<Tag> {
        match name {
            "sourced" => Some(Tag::Sourced),
            "derived" => Some(Tag::Derived),
            "assumed" => Some(Tag::Assumed),
            _ => None,
        }
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tag::Sourced => "sourced",
            Tag::Derived => "derived",
            Tag::Assumed => "assumed",
        })
    }
}

/// The tag and source note of one number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// Sourced, derived or assumed.
    pub tag: Tag,
    /// Where it comes from (a file of the vendor runtime, an ini key, a document) or, for an
    /// assumption, why this value was chosen.
    pub source: String,
}
