//! The failures the program received: every entry point that returned an error, counted by
//! call and code, with the message of the first one. The run report carries them as
//! `api_errors`, so that `ascend-sim exec` can say which calls failed, how often and why.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// A call's name and the code it returned.
type CallCode = (&'static str, i32);

/// Failures by (call, code): how many, and the first one's message.
static RECEIVED: Mutex<BTreeMap<CallCode, (u64, String)>> = Mutex::new(BTreeMap::new());

/// Counts a failure of `api` with `code`. (The number of distinct pairs is bounded by the
/// entry points and their codes, so the table stays small.)
pub fn note(api: &'static str, code: i32, message: &str) {
    let mut received = RECEIVED.lock().unwrap_or_else(|p| p.into_inner());
    received
        .entry((api, code))
        .and_modify(|(n, _)| *n += 1)
        .or_insert_with(|| (1, message.to_string()));
}

/// The failures so far, as the report's `api_errors` list: `call`, `code`, `count` and the
/// `first` message, in call-name order.
pub fn as_json() -> serde_json::Value {
    let received = RECEIVED.lock().unwrap_or_else(|p| p.into_inner());
    received
        .iter()
        .map(|((api, code), (count, first))| {
            serde_json::json!({"call": api, "code": code, "count": count, "first": first})
        })
        .collect()
}

/// The run report `report` (JSON text) with the failures added as `api_errors`; the text
/// unchanged if it is not a JSON object.
pub fn add_to_report(report: String) -> String {
    match serde_json::from_str::<serde_json::Value>(&report) {
        Ok(serde_json::Value::Object(mut map)) => {
            map.insert("api_errors".into(), as_json());
            serde_json::to_string_pretty(&serde_json::Value::Object(map)).unwrap_or(report)
        }
        _ => report,
    }
}
