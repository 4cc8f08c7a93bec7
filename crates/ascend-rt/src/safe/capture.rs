//! [`Capture`]: a stream's tasks recorded into a model instead of run
//! (`aclmdlRICaptureBegin` … `aclmdlRICaptureEnd`).

use super::model::ModelRI;
use super::stream::Stream;
use crate::error::AclResult;
use crate::raw_types::{capture_mode, RawModel};

/// Which calls a capture refuses while it records (`aclmdlRICaptureMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CaptureMode {
    /// Calls unsafe during a capture are refused on every thread.
    #[default]
    Global,
    /// They are refused on the capturing thread.
    ThreadLocal,
    /// Nothing is refused.
    Relaxed,
}

impl CaptureMode {
    /// The raw value.
    pub fn raw(self) -> u32 {
        match self {
            CaptureMode::Global => capture_mode::GLOBAL,
            CaptureMode::ThreadLocal => capture_mode::THREAD_LOCAL,
            CaptureMode::Relaxed => capture_mode::RELAXED,
        }
    }
}

/// A capture in progress on a stream ([`Stream::begin_capture`]): the tasks launched on the
/// stream until [`Capture::end`] become a model's, run each time the model runs. Memory they
/// name stays allocated until the device is released, as for a model's tasks. Dropped without
/// `end`, the capture is ended and its model destroyed (nothing recorded runs), with a warning.
///
/// ```
/// use std::sync::Arc;
/// use ascend_rt::{safe::*, Runtime};
/// let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
/// let dev = Device::open(&rt, 0).unwrap();
/// let buf = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
/// buf.fill_sync(0).unwrap();
/// let s = dev.stream().unwrap();
/// let capture = s.begin_capture(CaptureMode::Global).unwrap();
/// s.fill_async(buf.ptr(), 6, 64).unwrap(); // recorded, not run
/// let model = capture.end().unwrap();
/// assert_eq!(buf.read_u64(0).unwrap(), 0);
/// model.execute().unwrap();
/// assert_eq!(buf.read_u64(0).unwrap(), 0x0606_0606_0606_0606);
/// ```
#[derive(Debug)]
pub struct Capture<'s> {
    stream: &'s Stream,
    ended: bool,
}

impl<'s> Capture<'s> {
    pub(super) fn new(stream: &'s Stream) -> Self {
        Capture {
            stream,
            ended: false,
        }
    }

    /// Ends the capture (`aclmdlRICaptureEnd`) and gives its model.
    pub fn end(mut self) -> AclResult<ModelRI> {
        self.ended = true;
        self.finish()
    }

    fn finish(&self) -> AclResult<ModelRI> {
        let s = self.stream;
        s.bind()?;
        s.capturing(false);
        let mut model = RawModel::default();
        s.dev.rt.mdl_ri_capture_end(s.raw(), Some(&mut model))?;
        Ok(ModelRI::new(s.dev.clone(), model))
    }
}

impl Drop for Capture<'_> {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        match self.finish() {
            Ok(model) => {
                ascend_types::warn_user!(
                    "a capture of stream {:#x} was dropped without end(): what it recorded is \
                     discarded",
                    self.stream.raw().0
                );
                drop(model);
            }
            Err(e) => tracing::warn!("ending a dropped capture failed: {e}"),
        }
    }
}
