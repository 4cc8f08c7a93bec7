//! The failures the program received: every entry point that returned an error, counted by
//! call and code, with the message of the first one. The run report carries them as
//! `api_errors`, so that `ascend-sim exec` can say which calls failed, how often and why.

use std::collections::BTreeMap;
use std::sync::Mutex;

use ascend_sim::report::ApiErrorCount;

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

/// The failures so far, as the run report's `api_errors`: by call and code, in call-name
/// order, each with how many and the first one's message.
pub fn received() -> Vec<ApiErrorCount> {
    let received = RECEIVED.lock().unwrap_or_else(|p| p.into_inner());
    received
        .iter()
        .map(|((api, code), (count, first))| ApiErrorCount {
            call: (*api).to_string(),
            code: *code,
            count: *count,
            first: first.clone(),
        })
        .collect()
}
