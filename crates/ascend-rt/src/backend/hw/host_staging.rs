//! Pinned staging of host buffers: the page-locked memory behind the front end's host
//! buffers, the staging of asynchronous copies' host ends into it, and the copy-back into the
//! host buffers (and freeing of temporaries) once the host observes the copies' completion.

use std::ffi::c_void;
use std::sync::{Arc, Mutex, Weak};

use super::handles::ptr;
use super::state::HwState;
use super::HwBackend;
use super::RawHandle;
use crate::backend::{HostBuf, Loc};
use crate::error::AclResult;

/// Pinned memory behind a host buffer the backend allocated.
#[derive(Debug)]
pub(super) struct Pinned {
    /// The host buffer (the front end's view).
    pub(super) buf: Weak<Mutex<Vec<u8>>>,
    /// The pinned memory (`aclrtMallocHost`).
    pub(super) ptr: usize,
}

/// Work whose completion the host must observe before finishing it.
#[derive(Debug)]
pub(super) enum Finish {
    /// Copy `len` bytes of pinned memory at `src` into `buf` at `offset`.
    CopyBack {
        buf: HostBuf,
        offset: usize,
        src: usize,
        len: usize,
    },
    /// Refresh the copies into host buffers of a model run.
    ModelRun(RawHandle),
}

/// Host-side work waiting for device work enqueued on a stream.
#[derive(Debug)]
pub(super) struct Pending {
    /// The stream the device work was enqueued on.
    pub(super) stream: RawHandle,
    /// Its sequence number (ordered with event records).
    pub(super) seq: u64,
    /// What to do on the host once the device work is done.
    finish: Option<Finish>,
    /// Temporary pinned memory to free once done.
    temp: Option<usize>,
    /// On a persistent stream: runs at each model execution; kept until the stream goes.
    sticky: bool,
}

impl HwState {
    /// The pinned memory of a host buffer the backend allocated and that is still alive.
    fn pinned_of(&self, buf: &HostBuf) -> Option<usize> {
        let p = self.pinned.get(&(Arc::as_ptr(buf) as usize))?;
        let live = p.buf.upgrade()?;
        Arc::ptr_eq(&live, buf).then_some(p.ptr)
    }
}

impl HwBackend {
    /// `aclrtMallocHost` of `bytes` bytes.
    pub(super) fn alloc_pinned(&self, bytes: usize) -> AclResult<usize> {
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtMallocHost(&mut p, bytes))?;
        Ok(p as usize)
    }

    /// `aclrtFreeHost`, best effort (a failure is only logged).
    pub(super) fn free_pinned(&self, p: usize) {
        // Best effort: pinned memory is released with its context on a device reset anyway.
        let free = || -> AclResult<()> {
            // SAFETY: `p` came from aclrtMallocHost and is freed once (it left every table).
            acl!(self, aclrtFreeHost(p as *mut c_void))
        };
        if let Err(e) = free() {
            tracing::debug!("hw backend: aclrtFreeHost failed: {e}");
        }
    }

    /// Frees the pinned memory of host buffers the front end has dropped.
    pub(super) fn sweep_pinned(&self) {
        let dead: Vec<usize> = {
            let mut st = self.state();
            let keys: Vec<usize> = st
                .pinned
                .iter()
                .filter(|(_, p)| p.buf.strong_count() == 0)
                .map(|(k, _)| *k)
                .collect();
            keys.iter()
                .filter_map(|k| st.pinned.remove(k))
                .map(|p| p.ptr)
                .collect()
        };
        for p in dead {
            self.free_pinned(p);
        }
    }

    /// The device-side pointer of one end of an asynchronous copy, and what to do once the
    /// copy is done. Host sources are staged into pinned memory now.
    pub(super) fn async_end(
        &self,
        loc: &Loc,
        len: usize,
        is_dst: bool,
    ) -> AclResult<(*mut c_void, Option<Finish>, Option<usize>)> {
        match loc {
            Loc::Device(a) => Ok((ptr(*a), None, None)),
            Loc::Host { buf, offset } => {
                let known = self.state().pinned_of(buf);
                let (base, temp) = match known {
                    Some(p) => (p + offset, None),
                    None => {
                        let t = self.alloc_pinned(len.max(1))?;
                        (t, Some(t))
                    }
                };
                if is_dst {
                    let finish = Finish::CopyBack {
                        buf: buf.clone(),
                        offset: *offset,
                        src: base,
                        len,
                    };
                    Ok((base as *mut c_void, Some(finish), temp))
                } else {
                    let data = buf.lock().unwrap_or_else(|p| p.into_inner());
                    let src = &data[*offset..*offset + len];
                    // SAFETY: `base` is pinned memory of at least `len` bytes (the buffer's own
                    // block, as long as the buffer, or a fresh temporary of `len` bytes); no device
                    // work writes it while the host stages a source; host heap and pinned differ.
                    unsafe {
                        std::ptr::copy_nonoverlapping(src.as_ptr(), base as *mut u8, len);
                    }
                    Ok((base as *mut c_void, None, temp))
                }
            }
        }
    }

    /// Remembers what to do on the host once the work just enqueued on `stream` is done
    /// (nothing when there is nothing to do).
    pub(super) fn push_pending(
        &self,
        stream: RawHandle,
        sticky: bool,
        finish: Option<Finish>,
        temp: Option<usize>,
    ) {
        if finish.is_none() && temp.is_none() {
            return;
        }
        let mut st = self.state();
        st.seq += 1;
        let seq = st.seq;
        st.pending.push(Pending {
            stream,
            seq,
            finish,
            temp,
            sticky,
        });
    }

    /// Finishes the pending work matching `done`: copies device results into host buffers,
    /// frees temporaries. Sticky entries are only refreshed unless `release` is set.
    pub(super) fn finish(&self, done: impl Fn(&Pending) -> bool, release: bool) {
        let (ready, models): (Vec<Pending>, Vec<RawHandle>) = {
            let mut st = self.state();
            let mut ready = Vec::new();
            let mut models = Vec::new();
            let mut keep = Vec::new();
            for p in std::mem::take(&mut st.pending) {
                if !done(&p) {
                    keep.push(p);
                } else if let Some(Finish::ModelRun(m)) = p.finish {
                    models.push(m);
                } else if p.sticky && !release {
                    Self::copy_back(&p);
                    keep.push(p);
                } else {
                    ready.push(p);
                }
            }
            st.pending = keep;
            (ready, models)
        };
        for p in &ready {
            Self::copy_back(p);
            if let Some(t) = p.temp {
                self.free_pinned(t);
            }
        }
        for m in models {
            self.refresh_model(m);
        }
    }

    /// Copies a finished copy's pinned destination into its host buffer.
    fn copy_back(p: &Pending) {
        if let Some(Finish::CopyBack {
            buf,
            offset,
            src,
            len,
        }) = &p.finish
        {
            let mut data = buf.lock().unwrap_or_else(|e| e.into_inner());
            // SAFETY: `src` is pinned memory holding at least `len` bytes (allocated for this
            // buffer or this copy, freed only after this copy-back); the copy that wrote it
            // has completed (the host observed its stream, event or model finish).
            let from = unsafe { std::slice::from_raw_parts(*src as *const u8, *len) };
            data[*offset..*offset + *len].copy_from_slice(from);
        }
    }

    /// After a model run: refreshes the host destinations of its streams' copies.
    pub(super) fn refresh_model(&self, model: RawHandle) {
        let streams: Vec<RawHandle> = self
            .state()
            .models
            .get(&model)
            .map(|m| m.streams.clone())
            .unwrap_or_default();
        self.finish(|p| streams.contains(&p.stream), false);
    }

    /// Finishes the work enqueued before the event's latest record on its stream.
    pub(super) fn finish_event(&self, event: RawHandle) {
        let rec = self.state().events.get(&event).and_then(|e| e.last_record);
        if let Some((stream, seq)) = rec {
            self.finish(|p| p.stream == stream && p.seq <= seq, false);
        }
    }
}

/// Frees the pinned memory the backend still holds.
impl Drop for HwBackend {
    fn drop(&mut self) {
        let st = std::mem::take(&mut *self.state());
        for p in st.pending {
            if let Some(t) = p.temp {
                self.free_pinned(t);
            }
        }
        for p in st.pinned.into_values() {
            self.free_pinned(p.ptr);
        }
    }
}
