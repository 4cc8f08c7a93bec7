//! [`ReportThread`]: a thread that runs the callbacks of the streams subscribed to it
//! (`aclrtSubscribeReport`, `aclrtProcessReport`, `aclrtUnsubscribeReport`), and
//! [`super::Stream::callback`], which queues one (`aclrtLaunchCallback`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;

use super::device::DeviceGuard;
use super::stream::Stream;
use crate::error::{AclResult, ErrorCode};
use crate::raw_types::{RawContext, RawStream};

/// How long one `aclrtProcessReport` waits for a callback before the thread looks whether it
/// is to stop.
const POLL_MS: i32 = 10;

/// A thread of its own that processes reports: each stream subscribed to it
/// ([`ReportThread::subscribe`]) has its callbacks ([`Stream::callback`]) run there, in stream
/// order. Dropping it first waits for the subscribed streams (so no queued callback is left
/// without a thread to run it), then unsubscribes them and stops the thread.
///
/// ```
/// use std::sync::{Arc, atomic::{AtomicU32, Ordering}};
/// use ascend_rt::{safe::*, Runtime};
/// let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
/// let dev = Device::open(&rt, 0).unwrap();
/// let s = dev.stream().unwrap();
/// let reports = dev.report_thread().unwrap();
/// reports.subscribe(&s).unwrap();
/// let calls = Arc::new(AtomicU32::new(0));
/// for _ in 0..3 {
///     let c = calls.clone();
///     s.callback(true, move || { c.fetch_add(1, Ordering::SeqCst); }).unwrap();
/// }
/// s.synchronize().unwrap();
/// assert_eq!(calls.load(Ordering::SeqCst), 3);
/// ```
#[derive(Debug)]
pub struct ReportThread {
    dev: Arc<DeviceGuard>,
    id: u64,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    subscribed: Mutex<Vec<(RawContext, RawStream)>>,
}

impl ReportThread {
    pub(super) fn start(dev: Arc<DeviceGuard>) -> AclResult<ReportThread> {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let thread = {
            let (dev, stop) = (dev.clone(), stop.clone());
            std::thread::Builder::new()
                .name("acl-report".into())
                .spawn(move || {
                    let id = dev.rt.report_thread_id();
                    let _ = tx.send(id);
                    let _ = dev.rt.set_current_context(dev.ctx);
                    while !stop.load(Ordering::Acquire) {
                        match dev.rt.process_report(id, POLL_MS) {
                            Ok(()) => {}
                            // Nothing due in time: look whether to stop, then wait again.
                            Err(e) if e.code() == ErrorCode::RtReportTimeout.number() => {}
                            // No stream subscribed yet (or any more).
                            Err(_) => std::thread::sleep(std::time::Duration::from_millis(1)),
                        }
                    }
                })
                .map_err(|e| {
                    crate::error::AclError::new(
                        ErrorCode::RtInternalError,
                        None,
                        format!("cannot start a report thread: {e}"),
                    )
                })?
        };
        let id = rx.recv().expect("the report thread says its id first");
        Ok(ReportThread {
            dev,
            id,
            stop,
            thread: Some(thread),
            subscribed: Mutex::new(Vec::new()),
        })
    }

    /// The thread's id, as `aclrtSubscribeReport` takes it.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Subscribes `stream` (`aclrtSubscribeReport`): its callbacks run on this thread.
    pub fn subscribe(&self, stream: &Stream) -> AclResult<()> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        self.dev.rt.subscribe_report(self.id, stream.raw())?;
        let mut subs = self.subscribed.lock().unwrap_or_else(|p| p.into_inner());
        subs.push((self.dev.ctx, stream.raw()));
        Ok(())
    }

    /// Unsubscribes `stream` (`aclrtUnsubscribeReport`) once its queued callbacks have run.
    pub fn unsubscribe(&self, stream: &Stream) -> AclResult<()> {
        stream.synchronize()?;
        self.dev.rt.unsubscribe_report(self.id, stream.raw())?;
        let mut subs = self.subscribed.lock().unwrap_or_else(|p| p.into_inner());
        subs.retain(|&(_, s)| s != stream.raw());
        Ok(())
    }
}

impl Drop for ReportThread {
    fn drop(&mut self) {
        let subs = std::mem::take(&mut *self.subscribed.lock().unwrap_or_else(|p| p.into_inner()));
        for (ctx, stream) in subs {
            // A stream already destroyed has run its callbacks (its drop waited for them).
            let done = self
                .dev
                .rt
                .set_current_context(ctx)
                .and_then(|()| self.dev.rt.synchronize_stream(stream))
                .and_then(|()| self.dev.rt.unsubscribe_report(self.id, stream));
            if let Err(e) = done {
                tracing::debug!("report thread: unsubscribing stream {:#x}: {e}", stream.0);
            }
        }
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
