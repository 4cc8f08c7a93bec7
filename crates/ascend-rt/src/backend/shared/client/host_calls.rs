//! Host functions and callbacks on the shared device: the functions are this process's code,
//! kept here by call number (`HostCallTable`); the service puts a call of its own on the
//! stream and hands it to this process's thread when the stream reaches it. The runtime's
//! host-function thread (`aclrtLaunchHostFunc`) is a thread of this process with a connection
//! of its own, asking for its next call a short wall-time wait at a time; a report or
//! host-function thread (`aclrtProcessReport`) asks on its own calls. Each runs the function
//! and says it returned; calls dropped without running come back after the calls that may drop
//! some (a synchronize, a stream's abort or destroy, a model's unbind or destroy) and with the
//! next launch, and their functions go.

use std::sync::atomic::Ordering;

use super::{gone, program_thread, SharedDeviceClient};
use crate::backend::shared::wire::{DueCall, Reply, Request, WireHostThread};
use crate::backend::{BResult, HostCallThread, HostCalls, HostFn, StreamId};

/// How long the runtime's host-function thread waits for a call at a time (wall time): it
/// notices the runtime's end between two waits.
const RUNTIME_THREAD_WAIT_MS: u64 = 50;

impl SharedDeviceClient {
    /// Starts the runtime's host-function thread if it is not running.
    fn ensure_host_thread(&self) -> BResult<()> {
        self.host_thread.ensure(|flag| {
            let mut conn = Self::open(&self.path, self.token)?;
            let (path, table) = (self.path.clone(), self.host_fns.clone());
            std::thread::Builder::new()
                .name("acl host functions".into())
                .spawn(move || {
                    let ask = |conn: &mut _, request: Request| {
                        let req = Request::FromThread {
                            thread: program_thread(),
                            request: Box::new(request),
                        };
                        Self::ask(&path, conn, &req)
                    };
                    while !flag.load(Ordering::Acquire) {
                        let next = Request::NextHostCall {
                            thread: WireHostThread::Runtime,
                            timeout_ms: None,
                            wall_ms: RUNTIME_THREAD_WAIT_MS,
                        };
                        let due = match ask(&mut conn, next) {
                            Ok(Ok(Reply::HostCall { due, warning })) => {
                                if let Some(text) = warning {
                                    ascend_types::warn_user!("{text}");
                                }
                                due
                            }
                            // The service is gone, or answers out of place: the thread ends.
                            _ => return,
                        };
                        if let Some(DueCall {
                            call,
                            task,
                            repeats,
                        }) = due
                        {
                            table.run(call, repeats);
                            let finish = Request::FinishHostCall {
                                task,
                                thread: WireHostThread::Runtime,
                            };
                            if ask(&mut conn, finish).is_err() {
                                return;
                            }
                        }
                    }
                })
                .map(drop)
                .map_err(|e| gone(&self.path, format!("no host-function thread: {e}")))
        })
    }

    /// The next host call due for `thread`.
    fn next_due(
        &self,
        thread: WireHostThread,
        timeout_ms: Option<u64>,
    ) -> BResult<Option<DueCall>> {
        match self.call(Request::NextHostCall {
            thread,
            timeout_ms,
            wall_ms: 0,
        })? {
            Reply::HostCall { due, .. } => Ok(due),
            other => Err(self.misfit(other)),
        }
    }

    /// Runs a due call's function on the calling thread and says it returned.
    fn run_due(&self, thread: WireHostThread, due: DueCall) -> BResult<()> {
        self.host_fns.run(due.call, due.repeats);
        self.unit(Request::FinishHostCall {
            task: due.task,
            thread,
        })
    }

    /// Releases the functions of this process's calls the device dropped without running
    /// (their stream aborted, destroyed, or stopped after a failure; their model's recording
    /// gone), as the in-process backend does after the calls that may drop some.
    pub(super) fn release_dropped_host_calls(&self) {
        if self.host_fns.is_empty() {
            return;
        }
        if let Ok(Reply::Calls(dropped)) = self.call(Request::TakeDroppedHostCalls) {
            self.host_fns.forget_calls(&dropped);
        }
    }
}

impl HostCalls for SharedDeviceClient {
    fn launch_host_call(
        &self,
        stream: StreamId,
        f: HostFn,
        thread: HostCallThread,
        blocking: bool,
    ) -> BResult<()> {
        if thread == HostCallThread::Runtime {
            self.ensure_host_thread()?;
        }
        let call = self.host_fns.next.fetch_add(1, Ordering::Relaxed) + 1;
        self.host_fns.insert(call, stream, f);
        let launched = self.call(Request::LaunchHostCall {
            stream: stream.0,
            call,
            thread: thread.into(),
            blocking,
        });
        match launched {
            Ok(Reply::Calls(dropped)) => {
                self.host_fns.forget_calls(&dropped);
                Ok(())
            }
            Ok(other) => Err(self.misfit(other)),
            Err(e) => {
                self.host_fns.forget_calls(&[call]);
                Err(e)
            }
        }
    }

    fn process_host_calls(&self, thread: HostCallThread, timeout_ms: Option<u64>) -> BResult<bool> {
        let thread = WireHostThread::from(thread);
        let Some(first) = self.next_due(thread, timeout_ms)? else {
            return Ok(false);
        };
        self.run_due(thread, first)?;
        // Then every other call already due for this thread, without waiting.
        while let Some(due) = self.next_due(thread, Some(0))? {
            self.run_due(thread, due)?;
        }
        Ok(true)
    }

    fn subscribe_reports(&self, thread: u64, stream: StreamId, subscribe: bool) -> BResult<()> {
        self.unit(Request::SubscribeReports {
            thread,
            stream: stream.0,
            subscribe,
        })
    }
}

impl Drop for SharedDeviceClient {
    fn drop(&mut self) {
        self.host_thread.stop();
    }
}
