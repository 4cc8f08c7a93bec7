//! The differences between the vendor's runtime built from source with its driver stubbed
//! (the oracle, docs/validation/vendor-oracle.md) and the front end that are explained: each
//! is an artefact of the stub (the oracle answers what no device would, because the stubbed
//! driver does not do what a device does), with the vendor file and line that shows it.
//! A difference not in this table is a defect of the front end, or a new artefact to study;
//! the oracle test fails on it.

use super::{Outcome, ProbeRow};

/// Why a difference is not a defect of the front end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The stubbed driver answers differently from a device.
    StubArtefact,
}

/// One explained difference: a call whose described arguments contain every one of
/// `args_contain`, on the SoCs named (all when empty), where the oracle returns `vendor` and
/// the front end `ours` (any code when `None`).
#[derive(Debug, Clone, Copy)]
pub struct Known {
    /// The ACL function.
    pub api: &'static str,
    /// Pieces of its described arguments.
    pub args_contain: &'static [&'static str],
    /// The SoCs it applies to (all when empty).
    pub socs: &'static [&'static str],
    /// What the oracle returns.
    pub vendor: Option<i32>,
    /// What the front end returns.
    pub ours: Option<i32>,
    /// The kind of explanation.
    pub reason: Reason,
    /// The explanation, with the vendor file and line that shows it.
    pub why: &'static str,
}

/// Every explained difference.
pub const KNOWN: &[Known] = &[];

fn code(r: &Result<Outcome, String>) -> Option<i32> {
    r.as_ref().ok().map(|o| o.code)
}

/// The entry that explains `row`'s difference on `soc`, if any.
pub fn explain(soc: &str, row: &ProbeRow) -> Option<&'static Known> {
    KNOWN.iter().find(|k| {
        k.api == row.api
            && (k.socs.is_empty() || k.socs.contains(&soc))
            && k.args_contain.iter().all(|a| row.args.contains(a))
            && k.vendor.is_none_or(|v| code(&row.library) == Some(v))
            && k.ours.is_none_or(|o| code(&row.predicted) == Some(o))
    })
}

/// A row as one line: the call, its arguments, the oracle's answer and the front end's.
pub fn line(row: &ProbeRow) -> String {
    let show = |r: &Result<Outcome, String>| match r {
        Ok(o) => o.to_string(),
        Err(e) => format!("error: {e}"),
    };
    format!(
        "{}({}): vendor {}, front end {}",
        row.api,
        row.args,
        show(&row.library),
        show(&row.predicted)
    )
}
