//! How much of the validation tables the probe's rows reach: the numbered rows of
//! `docs/validation/*.md` (`| n | layer | fails when | result | message |`), each reached when
//! some probe row of its call gets the row's code, and its message code where the row names
//! one.
//!
//! A row is listed when it names a definite code and can happen through ACL: rows marked
//! "cannot happen" and rows whose code is whatever a failing driver maps (a submission or
//! allocation failure) are left out. A row belongs to the calls its section names: the
//! `acl…` words of its heading, or of the `aclError acl…(` signature before the table. The
//! measure is coarse in one way: two rows of one call with the same code and message code
//! cannot be told apart, so reaching one counts for both. Rows written as prose (most of
//! `devices-contexts.md`, `models.md` and parts of `streams-events.md`) are not counted.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use ascend_rt::MsgCode;

use super::front::FrontSide;

/// One numbered row of a validation table.
#[derive(Debug, Clone)]
pub struct DocRow {
    /// The file, relative to `docs/validation`.
    pub file: String,
    /// The row's number, as written.
    pub id: String,
    /// The calls of its section.
    pub apis: Vec<String>,
    /// The codes its result names.
    pub codes: Vec<i32>,
    /// The message codes it names (`EH…`, `EE…`); empty when it names none.
    pub msgs: Vec<String>,
}

impl DocRow {
    fn label(&self) -> String {
        format!("{} {} row {}", self.file, self.apis.join("/"), self.id)
    }
}

/// The `acl…` words of a line.
fn acl_words(line: &str) -> Vec<String> {
    line.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.starts_with("acl") && w.len() > 5 && w != &"aclError")
        .map(str::to_string)
        .collect()
}

/// The six-digit ACL codes of a cell.
fn codes_in(cell: &str) -> Vec<i32> {
    cell.split(|c: char| !c.is_ascii_digit())
        .filter(|w| w.len() == 6 && matches!(w.as_bytes()[0], b'1' | b'2' | b'5'))
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// The message codes of a cell that starts with one (a cell of prose names none, whatever
/// codes its explanation mentions).
fn msgs_in(cell: &str) -> Vec<String> {
    let cell = cell.trim_start_matches('*');
    if !(cell.starts_with("EE") || cell.starts_with("EH")) {
        return Vec::new();
    }
    cell.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| {
            w.len() == 6
                && (w.starts_with("EE") || w.starts_with("EH"))
                && w[2..].bytes().all(|b| b.is_ascii_digit())
        })
        .map(str::to_string)
        .collect()
}

/// The listed rows of one validation file.
pub fn rows_of(file: &str, text: &str) -> Vec<DocRow> {
    let mut apis: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') {
            apis = acl_words(line);
            continue;
        }
        if line.trim_start_matches('`').starts_with("aclError ") {
            // Each `aclError name(` of a signature line names a call.
            apis = line
                .split("aclError ")
                .skip(1)
                .filter_map(|sig| sig.split('(').next())
                .flat_map(acl_words)
                .collect();
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // `| n | layer | fails when | result | message |` splits into 7 pieces.
        if cells.len() != 7 || apis.is_empty() {
            continue;
        }
        let (id, cond, result, msg) = (cells[1], cells[3], cells[4], cells[5]);
        if !id.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let codes = codes_in(result);
        if codes.is_empty() || cond.contains("cannot happen") || result.contains("mapped") {
            continue;
        }
        out.push(DocRow {
            file: file.to_string(),
            id: id.to_string(),
            apis: apis.clone(),
            codes,
            msgs: msgs_in(msg),
        });
    }
    out
}

/// Every listed row of `docs/validation`.
pub fn listed_rows() -> Vec<DocRow> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/validation");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .flat_map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            let text = std::fs::read_to_string(p).unwrap_or_default();
            rows_of(&name.unwrap_or_default(), &text)
        })
        .collect()
}

/// What the front end returned for one probe row: the call, its code and message code.
type Reached = (&'static str, i32, Option<MsgCode>);

/// The measure: rows listed, of them rows of calls in the probe's vocabulary, and of those
/// the rows reached.
#[derive(Debug, Clone, Default)]
pub struct Coverage {
    /// Listed rows of every call.
    pub listed: usize,
    /// Listed rows of calls the probe makes.
    pub of_probed_calls: usize,
    /// Of those, the rows reached.
    pub reached: usize,
    /// The rows of probed calls not reached, labelled.
    pub unreached: Vec<String>,
    /// Calls with listed rows that the probe never makes.
    pub calls_not_probed: BTreeSet<String>,
}

/// Runs the fixed rows and `seeds` random sequences of `len` rows on the front end of each
/// SoC (no library needed: the codes are the front end's, which the oracle comparison checks
/// separately) and measures which listed rows they reach.
pub fn front_coverage(socs: &[&str], seeds: u64, len: usize) -> Result<Coverage, String> {
    let mut seen: HashSet<Reached> = HashSet::new();
    let mut calls: HashSet<&'static str> = HashSet::new();
    for soc in socs {
        let mut sequences = vec![super::rows()];
        sequences.extend((1..=seeds).map(|seed| super::random::random_rows(seed, len)));
        for rows in sequences {
            let front = FrontSide::new(soc)?;
            for row in rows {
                let api = row.call.describe().0;
                calls.insert(api);
                let (r, msg) = super::on_thread(
                    row.thread,
                    || front.exec_with_msg(&row.call),
                    (Err("the call panicked".into()), None),
                );
                if let Ok(o) = r {
                    seen.insert((api, o.code, msg));
                }
            }
            let _ = super::Side::teardown(&front);
        }
    }
    let mut cov = Coverage::default();
    for row in listed_rows() {
        cov.listed += 1;
        if !row.apis.iter().any(|a| calls.contains(a.as_str())) {
            cov.calls_not_probed.extend(row.apis.iter().cloned());
            continue;
        }
        cov.of_probed_calls += 1;
        let hit = seen.iter().any(|(api, code, msg)| {
            row.apis.iter().any(|a| a == api)
                && row.codes.contains(code)
                && (row.msgs.is_empty()
                    || msg.is_some_and(|m| row.msgs.iter().any(|r| *r == m.to_string())))
        });
        if hit {
            cov.reached += 1;
        } else {
            cov.unreached.push(row.label());
        }
    }
    Ok(cov)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_numbered_row_belongs_to_the_calls_of_its_heading_or_signature() {
        let text = "## aclrtMemset and aclrtMemsetAsync\n\
                    | row | layer | fails when | result | message |\n\
                    |---|---|---|---|---|\n\
                    | 1 | ACL | `devPtr` NULL | 100000 | EH0008 |\n\
                    | 2 | RT | NULL (cannot happen after row 1) | 107000 | EE1004 |\n\
                    | 3 | driver | the fill fails | the mapped code | — |\n\
                    | 5 | core | bound | 207000 | a warning (but see the EE1001 trailer) |\n\
                    ## Registered host memory\n\
                    `aclError aclrtHostRegisterV2(void *p, uint32_t f)`, `aclError aclrtHostUnregister(void *p)`\n\
                    | 4 | RT | no current context / another | 107002 / 107003 | EE1018 / EE1010 |\n";
        let rows = rows_of("memory.md", text);
        assert_eq!(rows.len(), 3, "{rows:?}");
        assert_eq!(rows[0].apis, ["aclrtMemset", "aclrtMemsetAsync"]);
        assert_eq!(
            (rows[0].codes.clone(), rows[0].msgs.clone()),
            (vec![100000], vec!["EH0008".to_string()])
        );
        assert!(rows[1].msgs.is_empty(), "prose names no message code");
        assert_eq!(rows[2].apis, ["aclrtHostRegisterV2", "aclrtHostUnregister"]);
        assert_eq!(rows[2].codes, [107002, 107003]);
        assert_eq!(rows[2].msgs, ["EE1018", "EE1010"]);
    }

    #[test]
    fn the_validation_tables_list_rows() {
        let rows = listed_rows();
        assert!(rows.len() > 80, "{} rows", rows.len());
        assert!(rows
            .iter()
            .any(|r| r.apis.iter().any(|a| a == "aclrtValueWait")));
    }
}
