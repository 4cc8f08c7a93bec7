//! Stream queries and settings: `aclrtStreamGetPriority`, `aclrtStreamGetFlags`,
//! `aclrtStreamGetId`, `aclrtSetStreamFailureMode`.
//!
//! Behaviour from the vendor's runtime: `src/acl/aclrt_impl/stream.cpp`,
//! `src/runtime/api/api_c_stream.cc` (`rtStreamGetPriority`, `rtStreamGetFlags`,
//! `rtGetStreamId`, `rtStreamSetMode`), `src/runtime/api/impl/api_error.cc` and `api_impl.cc`
//! (`StreamGetPriority`, `StreamGetFlags`, `GetStreamId`, `StreamSetMode`). These queries do
//! not check that the stream belongs to the current context.

use super::state::{StreamRec, KIND_SHIFT};
use super::Runtime;
use crate::error::{fail, AclResult};
use crate::raw_types::RawStream;

impl Runtime {
    /// Handle check (107017), then NULL resolved to the current context's default stream
    /// (107002 without a context).
    fn stream_for_query(&self, api: &str, stream: RawStream) -> AclResult<StreamRec> {
        let st = self.lock();
        Self::check_stream_handle(&st, api, stream)?;
        let handle = if stream.0 == 0 {
            let (ctx, _) = Self::current_device(&st, api)?;
            st.contexts[&ctx].default_stream
        } else {
            stream.0
        };
        Ok(st.streams[&handle].clone())
    }

    /// `aclrtStreamGetPriority(stream, &priority)`: the priority the stream was created with
    /// (after clamping). Order: priority NULL (100000, EH0008); stream handle (107017); no
    /// current context (107002, EE1018).
    pub fn stream_get_priority(
        &self,
        stream: RawStream,
        priority: Option<&mut u32>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtStreamGetPriority";
            let out = priority.ok_or_else(|| fail::acl_null(api, "priority"))?;
            let rec = self.stream_for_query(api, stream)?;
            if stream.0 != 0 {
                Self::current_device(&self.lock(), api)?;
            }
            *out = rec.priority;
            Ok(())
        })
    }

    /// `aclrtStreamGetFlags(stream, &flags)`: the `ACL_STREAM_*` flags the stream was created
    /// with. Order as [`Runtime::stream_get_priority`].
    pub fn stream_get_flags(&self, stream: RawStream, flags: Option<&mut u32>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtStreamGetFlags";
            let out = flags.ok_or_else(|| fail::acl_null(api, "flags"))?;
            let rec = self.stream_for_query(api, stream)?;
            if stream.0 != 0 {
                Self::current_device(&self.lock(), api)?;
            }
            *out = rec.flags;
            Ok(())
        })
    }

    /// `aclrtStreamGetId(stream, &streamId)`: a number unique among the process's streams.
    /// Order: streamId NULL (100000, EH0008); stream handle (107017); NULL stream without a
    /// current context (107002, EE1018). A non-NULL stream needs no context.
    pub fn stream_get_id(&self, stream: RawStream, stream_id: Option<&mut i32>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtStreamGetId";
            let out = stream_id.ok_or_else(|| fail::acl_null(api, "streamId"))?;
            let handle = if stream.0 == 0 {
                let st = self.lock();
                let (ctx, _) = Self::current_device(&st, api)?;
                st.contexts[&ctx].default_stream
            } else {
                Self::check_stream_handle(&self.lock(), api, stream)?;
                stream.0
            };
            *out = (handle & ((1 << KIND_SHIFT) - 1)) as i32;
            Ok(())
        })
    }
}
