//! Initialisation and devices: `aclInit`, `aclFinalize`, `aclrtSetDevice`, `aclrtResetDevice`
//! (+`Force`), `aclrtGetDevice`, `aclrtGetSocName`, `aclrtGetDeviceCount`,
//! `aclrtSynchronizeDevice` (docs/validation/devices-contexts.md).

use super::state::DeviceRec;
use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::stream_state;
use crate::raw_types::RawContext;

impl Runtime {
    /// `aclInit(configPath)`: a second call while initialised counts the reference and returns
    /// `ACL_ERROR_REPEAT_INITIALIZE` (100002). A later call (after `aclFinalize`) whose
    /// configuration file content differs from the first-ever call's is 100000 with EH0004. A
    /// NULL or empty path processes no file; the file's settings themselves are not applied by
    /// the simulator.
    pub fn init(&self, config_path: Option<&str>) -> AclResult<()> {
        self.call(|| {
            let api = "aclInit";
            let path = config_path.filter(|p| !p.is_empty());
            let mut st = self.lock();
            if st.init_count > 0 {
                st.init_count += 1;
                return Err(fail::plain(
                    ErrorCode::RepeatInitialize,
                    "aclInit: already initialised",
                ));
            }
            let content = match path {
                None => String::new(),
                Some(p) => std::fs::read_to_string(p).map_err(|e| {
                    AclError::new(
                        ErrorCode::InvalidParam,
                        Some(MsgCode::EH0004),
                        format!("{api}: file {p} is invalid. Reason: it cannot be read ({e})"),
                    )
                })?,
            };
            match &st.first_config {
                Some((first_path, first)) if *first != content => {
                    return Err(AclError::new(
                        ErrorCode::InvalidParam,
                        Some(MsgCode::EH0004),
                        format!(
                            "{api}: file {} is invalid. Reason: config content differs from the first aclInit config file {}",
                            path.unwrap_or("(none)"),
                            first_path.as_deref().unwrap_or("(none)")
                        ),
                    ))
                }
                Some(_) => {}
                None => st.first_config = Some((path.map(str::to_string), content)),
            }
            st.init_count = 1;
            st.finalized = false;
            Ok(())
        })
    }

    /// `aclFinalize()`: one call finalises however many `aclInit` calls preceded it; a second
    /// consecutive call returns `ACL_ERROR_REPEAT_FINALIZE` (100037).
    pub fn finalize(&self) -> AclResult<()> {
        self.call(|| {
            let mut st = self.lock();
            if st.finalized {
                return Err(fail::plain(
                    ErrorCode::RepeatFinalize,
                    "aclFinalize: already finalised",
                ));
            }
            st.finalized = true;
            st.init_count = 0;
            Ok(())
        })
    }

    /// `aclrtGetDeviceCount(&count)`.
    pub fn get_device_count(&self, count: Option<&mut u32>) -> AclResult<()> {
        self.call(|| {
            let out = count.ok_or_else(|| fail::acl_null("aclrtGetDeviceCount", "count"))?;
            *out = self.backend.device_count()?;
            Ok(())
        })
    }

    /// `aclrtGetSocName()`: the SoC version string; needs no device.
    pub fn get_soc_name(&self) -> Option<String> {
        self.backend.soc_name().ok()
    }

    pub(super) fn check_device_id(&self, api: &str, device: i32) -> AclResult<u32> {
        let count = self.backend.device_count()?;
        if device < 0 || device as u32 >= count {
            return Err(AclError::new(
                ErrorCode::RtInvalidDeviceId,
                Some(MsgCode::EE1003),
                format!(
                    "{api} failed: value {device} for parameter deviceId is invalid; expected [0, {count})"
                ),
            ));
        }
        Ok(device as u32)
    }

    /// `aclrtSetDevice(deviceId)`: opens the device's default context (shared by the threads
    /// of the process, reference-counted) and makes it current on the calling thread.
    pub fn set_device(&self, device: i32) -> AclResult<()> {
        self.call(|| {
            let dev = self.check_device_id("aclrtSetDevice", device)?;
            // A device already open only gains a reference. Opening one waits for a release of
            // it in progress to finish, so the backend never sees them interleave.
            {
                let mut st = self.lock();
                if let Some(rec) = st.devices.get_mut(&dev).filter(|r| r.refcount > 0) {
                    rec.refcount += 1;
                    let ctx = rec.ctx;
                    st.current.insert(Self::thread(), ctx);
                    return Ok(());
                }
            }
            let _lifecycle = self
                .device_lifecycle
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let mut st = self.lock();
            let mut opened = None;
            let ctx = match st.devices.get_mut(&dev) {
                Some(rec) if rec.refcount > 0 => {
                    rec.refcount += 1;
                    rec.ctx
                }
                _ => {
                    let backend_stream = self.backend.open_device(dev)?;
                    let ctx = st.register_context(dev, backend_stream, false);
                    st.devices.insert(dev, DeviceRec { refcount: 1, ctx });
                    opened = Some(st.contexts[&ctx].default_stream);
                    ctx
                }
            };
            st.current.insert(Self::thread(), ctx);
            drop(st);
            if let Some(s) = opened {
                self.notify_stream_state(s, stream_state::CREATE_POST);
            }
            Ok(())
        })
    }

    /// `aclrtResetDevice(deviceId)`: drops one reference; the last one releases the default
    /// context and everything created in it, after waiting for pending tasks.
    pub fn reset_device(&self, device: i32) -> AclResult<()> {
        self.call(|| self.reset_device_inner("aclrtResetDevice", device, false))
    }

    /// `aclrtResetDeviceForce(deviceId)`: releases the device whatever its reference count.
    pub fn reset_device_force(&self, device: i32) -> AclResult<()> {
        self.call(|| self.reset_device_inner("aclrtResetDeviceForce", device, true))
    }

    fn reset_device_inner(&self, api: &str, device: i32, force: bool) -> AclResult<()> {
        let dev = self.check_device_id(api, device)?;
        // The whole release (bookkeeping, the backend's objects, closing the device) happens
        // under the device lifecycle lock: an aclrtSetDevice of another thread meanwhile opens
        // the device afresh only after the backend has closed it.
        let _lifecycle = self
            .device_lifecycle
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let mut st = self.lock();
        let rec = match st.devices.get_mut(&dev) {
            Some(rec) if rec.refcount > 0 => rec,
            _ => {
                return Err(AclError::new(
                    ErrorCode::RtContextReleaseError,
                    Some(MsgCode::EE1018),
                    format!("{api} failed: device {dev} is not set (call aclrtSetDevice first) or was already reset"),
                ))
            }
        };
        rec.refcount = if force { 0 } else { rec.refcount - 1 };
        if rec.refcount > 0 {
            return Ok(());
        }
        let ctx = rec.ctx;
        st.devices.remove(&dev);
        let objs = st.take_ctx_objects(ctx);
        // Device memory and notifies outlive the default context while an explicit context
        // of the device remains.
        let device_released = !st.contexts.values().any(|c| c.device == dev);
        let (allocs, notifies) = if device_released {
            st.res_limits.remove(&dev);
            // Either side's reset ends the access: the peer's mappings go with it.
            st.peer_access.retain(|&(d, p)| d != dev && p != dev);
            st.take_device_objects(dev)
        } else {
            Default::default()
        };
        drop(st);
        if device_released {
            self.forget_registrations_on(dev);
        }
        self.release_ctx_objects(&objs, force);
        self.release_device_objects(dev, &allocs, &notifies);
        self.backend
            .close_device(dev, force)
            .map_err(AclError::from)
    }

    /// `aclrtGetDevice(&deviceId)`: the device of the calling thread's current context;
    /// 107002 (without a message) when none is set.
    pub fn get_device(&self, device_id: Option<&mut i32>) -> AclResult<()> {
        self.call(|| {
            let out = device_id.ok_or_else(|| fail::acl_null("aclrtGetDevice", "deviceId"))?;
            let st = self.lock();
            // CANN returns this "special state" without a log and without storing it as the
            // last error (`api_c_device.cc rtGetDevice`).
            let ctx = st.current_ctx(Self::thread()).ok_or_else(|| {
                fail::plain(
                    ErrorCode::RtContextNull,
                    "aclrtGetDevice: no device is set for this thread",
                )
                .without_last_error()
            })?;
            *out = st.contexts[&ctx].device as i32;
            Ok(())
        })
    }

    /// `aclrtSynchronizeDevice()`: waits until every stream of the current device is idle.
    pub fn synchronize_device(&self) -> AclResult<()> {
        self.call(|| {
            let dev = {
                let st = self.lock();
                Self::current_device(&st, "aclrtSynchronizeDevice")?.1
            };
            let ctx = self.lock().current_ctx(Self::thread());
            if let Some(c) = ctx {
                self.refuse_if_ctx_capturing("aclrtSynchronizeDevice", c)?;
            }
            if let Some(e) = ctx.and_then(|c| self.ctx_failure(c)) {
                return Err(e);
            }
            let r = self.backend.synchronize_device(dev, None);
            self.report_task_faults();
            self.free_idle_placeholder_memory();
            let r = r.map_err(AclError::from);
            if let (Err(e), Some(c)) = (&r, ctx) {
                self.note_failure(c, None, e);
            }
            r
        })
    }
}

impl Runtime {
    /// `aclrtGetCurrentContext(&context)`: the calling thread's current context (107002 if none).
    pub fn get_current_context(&self, context: Option<&mut RawContext>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtGetCurrentContext";
            let out = context.ok_or_else(|| fail::acl_null(api, "context"))?;
            let st = self.lock();
            let ctx = st
                .current_ctx(Self::thread())
                .ok_or_else(|| fail::no_context(api))?;
            *out = RawContext(ctx);
            Ok(())
        })
    }

    /// `aclrtSetCurrentContext(context)`: makes a live context current on the calling thread.
    pub fn set_current_context(&self, context: RawContext) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtSetCurrentContext";
            if context.0 == 0 {
                return Err(fail::acl_null(api, "context"));
            }
            let mut st = self.lock();
            if !st.contexts.contains_key(&context.0) {
                return Err(fail::invalid_handle(api, "context", context.0));
            }
            st.current.insert(Self::thread(), context.0);
            Ok(())
        })
    }
}
