//! The one path every task takes to its stream: [`Runtime::launch`], given the stream's
//! record that the call's validation resolved. Under one lock it refuses a task whose
//! context stopped on a failure (`ACL_STOP_ON_FAILURE`), sends a task of a capturing stream to
//! the capture's stream, and refuses a task for a stream sealed into a model whose build
//! ended; then it submits the task and notes it as the calling thread's last task (and, while
//! an exception callback is registered, which thread launched on the stream).

use ascend_types::{StreamId, Task};

use super::state::StreamRec;
use super::Runtime;
use crate::error::AclResult;

impl Runtime {
    /// Launches `task` on the stream of `rec` (see the module's doc).
    pub(super) fn launch(&self, rec: &StreamRec, task: Task) -> AclResult<()> {
        let target = self.launch_target(rec, "the task's launch")?;
        let id = self.backend.launch(target, task)?;
        super::callbacks::note_last_task(id);
        // The simulator names the task's call site in what it says of the task.
        #[cfg(feature = "sim")]
        if let Some(sim) = self
            .options
            .call_sites
            .then(|| self.backend.simulator())
            .flatten()
        {
            if let Some(site) = super::call_site::caller() {
                sim.note_task_site(ascend_types::TaskId(id), site.said);
            }
        }
        if self.exception_callback_set() {
            if let Some(tid) = super::callbacks::os_thread_id() {
                self.lock().launchers.insert(target, tid);
            }
        }
        Ok(())
    }

    /// The backend stream that work launched on `rec` goes to, after the checks every launch
    /// makes (a task's, a host call's), under one lock: a context stopped on a failure refuses
    /// it; a capturing stream sends it to its capture's stream; a stream sealed into a model
    /// whose build ended refuses it (`what` names the launch in that error).
    pub(super) fn launch_target(&self, rec: &StreamRec, what: &str) -> AclResult<StreamId> {
        use std::sync::atomic::Ordering::Acquire;
        let checks = self.any_ctx_failed.load(Acquire)
            || self.any_capture.load(Acquire)
            || self.any_sealed.load(Acquire);
        if !checks {
            return Ok(rec.backend);
        }
        let st = self.lock();
        if let Some(e) = self.ctx_failure_in(&st, rec.ctx) {
            return Err(e);
        }
        let target = Self::capture_target_in(&st, rec.backend);
        self.refuse_sealed_in(&st, what, target)?;
        Ok(target)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::raw_types::RawStream;
    use crate::Runtime;

    #[test]
    fn the_thread_that_launched_on_a_stream_is_forgotten_with_the_stream() {
        let rt = Runtime::sim("Ascend910B1").unwrap();
        rt.init(None).unwrap();
        rt.set_device(0).unwrap();
        rt.set_exception_info_callback(Some(Arc::new(|_| {})))
            .unwrap();
        let buf = {
            let mut p = crate::raw_types::Addr::default();
            rt.malloc(Some(&mut p), 64, 0).unwrap();
            p
        };
        for _ in 0..3 {
            let mut s = RawStream::default();
            rt.create_stream(Some(&mut s)).unwrap();
            rt.value_write(buf, 1, 0, s).unwrap();
            assert_eq!(rt.lock().launchers.len(), 1, "the launch is noted");
            rt.synchronize_stream(s).unwrap();
            rt.destroy_stream(s).unwrap();
            assert!(
                rt.lock().launchers.is_empty(),
                "and forgotten with its stream"
            );
        }
    }
}
