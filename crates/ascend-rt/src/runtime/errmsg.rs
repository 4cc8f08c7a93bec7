//! The per-thread record of failures that `aclGetRecentErrMsg` reports.
//!
//! CANN's error manager keeps, per thread by default, the messages of recent failures; reading
//! them clears them. Every failure leaves a message here: one CANN reports carries its message
//! code (EE/EH) and our wording of its text; one CANN only logs (feature-gate rejections, the
//! simulator's own calls) carries the simulator's explanation without a code
//! ([`AclError::is_reported`] tells which), so a program's user always learns the reason
//! (docs/error-messages.md).
//!
//! Beside the messages, each thread has CANN's "global error": the code of the latest RT-level
//! failure ([`AclError::sets_last_error`]), which `aclrtGetLastError` returns and clears and
//! `aclrtPeekAtLastError` returns (`src/runtime/core/src/common/inner_thread_local.cpp`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::thread::ThreadId;

use crate::error::{AclError, MsgCode};

/// One recorded failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecentError {
    /// CANN's code.
    pub code: i32,
    /// The message code CANN reports, or `None` for the simulator's own explanation of a
    /// failure CANN reports no message for.
    pub msg_code: Option<MsgCode>,
    /// The message.
    pub message: String,
}

/// Recent failures of every thread.
#[derive(Debug, Default)]
pub(crate) struct ErrorLog {
    by_thread: Mutex<HashMap<ThreadId, Vec<RecentError>>>,
    last: Mutex<HashMap<ThreadId, i32>>,
}

/// What stands where a message code would, before the simulator's own explanation.
pub const SIMULATOR_NOTE: &str = "ascend-sim";

/// Most messages kept per thread.
const KEEP: usize = 16;

impl ErrorLog {
    pub fn record(&self, err: &AclError) {
        if err.sets_last_error() {
            let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
            last.insert(std::thread::current().id(), err.code());
        }
        let msg_code = err.msg_code;
        let mut map = self.by_thread.lock().unwrap_or_else(|p| p.into_inner());
        let list = map.entry(std::thread::current().id()).or_default();
        list.push(RecentError {
            code: err.code(),
            msg_code,
            message: err.message.clone(),
        });
        // The RT entry adds a generic "execution failed" trailer after a parameter failure.
        let rt_layer = msg_code.is_some_and(|m| {
            !matches!(
                m,
                MsgCode::EH0004
                    | MsgCode::EH0007
                    | MsgCode::EH0008
                    | MsgCode::EH0009
                    | MsgCode::EH0012
            )
        });
        if rt_layer && matches!(err.code(), 107000 | 107002) {
            list.push(RecentError {
                code: err.code(),
                msg_code: Some(MsgCode::EE1001),
                message: "the API call failed: argument invalid or execution failed".into(),
            });
        }
        let excess = list.len().saturating_sub(KEEP);
        list.drain(..excess);
    }

    /// The calling thread's last error code (0 if none); `clear` resets it to 0.
    pub fn last_error(&self, clear: bool) -> i32 {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let id = std::thread::current().id();
        if clear {
            last.remove(&id).unwrap_or(0)
        } else {
            last.get(&id).copied().unwrap_or(0)
        }
    }

    pub fn take_text(&self) -> Option<String> {
        let mut map = self.by_thread.lock().unwrap_or_else(|p| p.into_inner());
        let list = map.remove(&std::thread::current().id())?;
        if list.is_empty() {
            return None;
        }
        Some(
            list.iter()
                .rev()
                .map(|e| match e.msg_code {
                    Some(m) => format!("{m}: {} (error code {})", e.message, e.code),
                    None => format!(
                        "{SIMULATOR_NOTE}: {} (error code {}; CANN reports no message for it)",
                        e.message, e.code
                    ),
                })
                .collect::<Vec<_>>()
                .join("\n"),
        )
    }

    pub fn peek(&self) -> Option<RecentError> {
        let map = self.by_thread.lock().unwrap_or_else(|p| p.into_inner());
        map.get(&std::thread::current().id()).and_then(|l| {
            l.iter()
                .rev()
                .find(|e| e.msg_code != Some(MsgCode::EE1001))
                .cloned()
        })
    }
}
