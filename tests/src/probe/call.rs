//! The probe's vocabulary: one [`Call`] per probed ACL function, with symbolic arguments that
//! each side of the comparison (the raw library, the front end's prediction) resolves to its
//! own equivalent object: "the device buffer", "the model-bound stream", "a destroyed stream".

use std::fmt;

/// A pointer argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ptr {
    /// NULL.
    Null,
    /// The base of the 256-byte device buffer (`aclrtMalloc`, zeroed).
    Dev,
    /// The base of the 128-byte device buffer used as a CMO descriptor.
    Desc,
    /// The 64 bytes of page-locked host memory (`aclrtMallocHost`).
    Pinned,
    /// 512 bytes of ordinary (pageable) host memory the runtime never saw.
    Pageable,
    /// 256 bytes of ordinary host memory registered with `aclrtHostRegister` (mapped), by
    /// its host address.
    Registered,
}

/// A stream argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strm {
    /// NULL: the current context's default stream.
    Null,
    /// A plain stream (`aclrtCreateStream`).
    Plain,
    /// An unbound persistent stream (`ACL_STREAM_PERSISTENT`).
    Persistent,
    /// A persistent stream bound to the model (`aclmdlRIBindStream`, build not ended).
    Bound,
    /// A stream already destroyed.
    Destroyed,
    /// A value that never was a stream: the address of a zero-filled block of host memory
    /// (readable, so a library that dereferences it before validating does not crash).
    Garbage,
}

/// An event argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Evt {
    /// NULL.
    Null,
    /// A live event (`aclrtCreateEvent`, default flags).
    Live,
    /// A live event created with `aclrtCreateEventWithFlag(ACL_EVENT_SYNC)`.
    Sync,
    /// A live event created with `ACL_EVENT_TIME_LINE` alone: it has no wait task.
    TimeLine,
    /// A live event created with `ACL_EVENT_EXTERNAL`.
    External,
}

impl Evt {
    /// The `aclrtCreateEventWithFlag` flag a flagged event is created with.
    pub(crate) fn flag(self) -> Option<u32> {
        use ascend_rt::raw_types::event_flag;
        match self {
            Evt::Sync => Some(event_flag::SYNC),
            Evt::TimeLine => Some(event_flag::TIME_LINE),
            Evt::External => Some(event_flag::EXTERNAL),
            Evt::Null | Evt::Live => None,
        }
    }
}

/// A model running instance argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mdl {
    /// NULL.
    Null,
    /// The live model the bound stream belongs to (still building).
    Live,
}

/// An `aclrtBarrierTaskInfo`: the count and the `(cmoType, barrierId)` entries (the rest of
/// the six entries are zero).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Barrier {
    /// `barrierNum` (may disagree with the entries, as in C).
    pub num: usize,
    /// The first entries.
    pub entries: Vec<(u32, u32)>,
}

/// One probed call. `out: bool` is whether an out-parameter points at valid memory (false:
/// NULL). A call that creates an object releases it again if it unexpectedly succeeds.
/// The fields are the C parameters of the same names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Call {
    CmoAsync {
        src: Ptr,
        size: usize,
        cmo: u32,
        stream: Strm,
    },
    CmoAsyncWithBarrier {
        src: Ptr,
        size: usize,
        cmo: u32,
        id: u32,
        stream: Strm,
    },
    CmoWaitBarrier {
        info: Option<Barrier>,
        stream: Strm,
        flag: u32,
    },
    CmoGetDescSize {
        out: bool,
    },
    CmoSetDesc {
        desc: Ptr,
        src: Ptr,
        size: usize,
    },
    CmoAsyncWithDesc {
        desc: Ptr,
        cmo: u32,
        stream: Strm,
        reserve: Ptr,
    },
    ValueWrite {
        addr: Ptr,
        value: u64,
        flag: u32,
        stream: Strm,
    },
    ValueWait {
        addr: Ptr,
        value: u64,
        flag: u32,
        stream: Strm,
    },
    SetDevice {
        id: i32,
    },
    GetDevice {
        out: bool,
    },
    Malloc {
        out: bool,
        size: usize,
        policy: u32,
    },
    Free {
        ptr: Ptr,
    },
    MallocHost {
        out: bool,
        size: usize,
    },
    FreeHost {
        ptr: Ptr,
    },
    Memcpy {
        dst: Ptr,
        dest_max: usize,
        src: Ptr,
        count: usize,
        kind: u32,
    },
    MemcpyAsync {
        dst: Ptr,
        dest_max: usize,
        src: Ptr,
        count: usize,
        kind: u32,
        stream: Strm,
    },
    Memset {
        ptr: Ptr,
        max: usize,
        value: i32,
        count: usize,
    },
    MemsetAsync {
        ptr: Ptr,
        max: usize,
        value: i32,
        count: usize,
        stream: Strm,
    },
    CreateStream {
        out: bool,
    },
    CreateStreamWithConfig {
        out: bool,
        priority: u32,
        flag: u32,
    },
    DestroyStream {
        stream: Strm,
    },
    SynchronizeStream {
        stream: Strm,
    },
    SynchronizeStreamWithTimeout {
        stream: Strm,
        timeout: i32,
    },
    StreamQuery {
        stream: Strm,
        out: bool,
    },
    CreateEvent {
        out: bool,
    },
    CreateEventWithFlag {
        out: bool,
        flag: u32,
    },
    RecordEvent {
        event: Evt,
        stream: Strm,
    },
    StreamWaitEvent {
        stream: Strm,
        event: Evt,
    },
    SynchronizeEvent {
        event: Evt,
    },
    SynchronizeEventWithTimeout {
        event: Evt,
        timeout: i32,
    },
    QueryEventStatus {
        event: Evt,
        out: bool,
    },
    DestroyEvent {
        event: Evt,
    },
    MdlBuildBegin {
        out: bool,
        flag: u32,
    },
    MdlBindStream {
        model: Mdl,
        stream: Strm,
        flag: u32,
    },
    MdlEndTask {
        model: Mdl,
        stream: Strm,
    },
    MdlBuildEnd {
        model: Mdl,
        reserve: Ptr,
    },
    MdlExecute {
        model: Mdl,
        timeout: i32,
    },
    MdlExecuteAsync {
        model: Mdl,
        stream: Strm,
    },
    MdlUnbindStream {
        model: Mdl,
        stream: Strm,
    },
    MdlDestroy {
        model: Mdl,
    },
}

/// Where a row runs: on the thread that set device 0, or on a fresh thread with no current
/// context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Thread {
    /// The probing thread (device 0 set).
    Main,
    /// A new thread that never set a device.
    Fresh,
}

/// One row of the probe table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    /// The call.
    pub call: Call,
    /// The thread it runs on.
    pub thread: Thread,
}

/// A row on the probing thread.
pub(crate) fn main(call: Call) -> Row {
    Row {
        call,
        thread: Thread::Main,
    }
}

/// A row on a fresh thread without a context.
pub(crate) fn fresh(call: Call) -> Row {
    Row {
        call,
        thread: Thread::Fresh,
    }
}

/// A 32-bit value in decimal, or in hex when it is large (`0xffffffff`).
struct Num(u64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= 0x1000 {
            write!(f, "{:#x}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

fn out(valid: bool) -> &'static str {
    if valid {
        "&out"
    } else {
        "NULL"
    }
}

impl Call {
    /// The ACL function's name and its arguments as text.
    pub(crate) fn describe(&self) -> (&'static str, String) {
        use Call::*;
        let n = |v: u32| Num(v.into());
        match self {
            CmoAsync { src, size, cmo, stream } => ("aclrtCmoAsync", format!("src={src:?}, size={size}, cmoType={}, stream={stream:?}", n(*cmo))),
            CmoAsyncWithBarrier { src, size, cmo, id, stream } => ("aclrtCmoAsyncWithBarrier", format!("src={src:?}, size={size}, cmoType={}, barrierId={id}, stream={stream:?}", n(*cmo))),
            CmoWaitBarrier { info, stream, flag } => ("aclrtCmoWaitBarrier", format!("taskInfo={}, stream={stream:?}, flag={flag}", info.as_ref().map_or("NULL".into(), |b| format!("{{num={}, {:?}}}", b.num, b.entries)))),
            CmoGetDescSize { out: o } => ("aclrtCmoGetDescSize", format!("size={}", out(*o))),
            CmoSetDesc { desc, src, size } => ("aclrtCmoSetDesc", format!("cmoDesc={desc:?}, src={src:?}, size={size}")),
            CmoAsyncWithDesc { desc, cmo, stream, reserve } => ("aclrtCmoAsyncWithDesc", format!("cmoDesc={desc:?}, cmoType={}, stream={stream:?}, reserve={reserve:?}", n(*cmo))),
            ValueWrite { addr, value, flag, stream } => ("aclrtValueWrite", format!("devAddr={addr:?}, value={value}, flag={}, stream={stream:?}", n(*flag))),
            ValueWait { addr, value, flag, stream } => ("aclrtValueWait", format!("devAddr={addr:?}, value={value}, flag={}, stream={stream:?}", n(*flag))),
            SetDevice { id } => ("aclrtSetDevice", format!("deviceId={id}")),
            GetDevice { out: o } => ("aclrtGetDevice", format!("deviceId={}", out(*o))),
            Malloc { out: o, size, policy } => ("aclrtMalloc", format!("devPtr={}, size={size}, policy={policy}", out(*o))),
            Free { ptr } => ("aclrtFree", format!("devPtr={ptr:?}")),
            MallocHost { out: o, size } => ("aclrtMallocHost", format!("hostPtr={}, size={size}", out(*o))),
            FreeHost { ptr } => ("aclrtFreeHost", format!("hostPtr={ptr:?}")),
            Memcpy { dst, dest_max, src, count, kind } => ("aclrtMemcpy", format!("dst={dst:?}, destMax={dest_max}, src={src:?}, count={count}, kind={kind}")),
            MemcpyAsync { dst, dest_max, src, count, kind, stream } => ("aclrtMemcpyAsync", format!("dst={dst:?}, destMax={dest_max}, src={src:?}, count={count}, kind={kind}, stream={stream:?}")),
            Memset { ptr, max, value, count } => ("aclrtMemset", format!("devPtr={ptr:?}, maxCount={max}, value={value}, count={count}")),
            MemsetAsync { ptr, max, value, count, stream } => ("aclrtMemsetAsync", format!("devPtr={ptr:?}, maxCount={max}, value={value}, count={count}, stream={stream:?}")),
            CreateStream { out: o } => ("aclrtCreateStream", format!("stream={}", out(*o))),
            CreateStreamWithConfig { out: o, priority, flag } => ("aclrtCreateStreamWithConfig", format!("stream={}, priority={priority}, flag={flag:#x}", out(*o))),
            DestroyStream { stream } => ("aclrtDestroyStream", format!("stream={stream:?}")),
            SynchronizeStream { stream } => ("aclrtSynchronizeStream", format!("stream={stream:?}")),
            SynchronizeStreamWithTimeout { stream, timeout } => ("aclrtSynchronizeStreamWithTimeout", format!("stream={stream:?}, timeout={timeout}")),
            StreamQuery { stream, out: o } => ("aclrtStreamQuery", format!("stream={stream:?}, status={}", out(*o))),
            CreateEvent { out: o } => ("aclrtCreateEvent", format!("event={}", out(*o))),
            CreateEventWithFlag { out: o, flag } => ("aclrtCreateEventWithFlag", format!("event={}, flag={}", out(*o), n(*flag))),
            RecordEvent { event, stream } => ("aclrtRecordEvent", format!("event={event:?}, stream={stream:?}")),
            StreamWaitEvent { stream, event } => ("aclrtStreamWaitEvent", format!("stream={stream:?}, event={event:?}")),
            SynchronizeEvent { event } => ("aclrtSynchronizeEvent", format!("event={event:?}")),
            SynchronizeEventWithTimeout { event, timeout } => ("aclrtSynchronizeEventWithTimeout", format!("event={event:?}, timeout={timeout}")),
            QueryEventStatus { event, out: o } => ("aclrtQueryEventStatus", format!("event={event:?}, status={}", out(*o))),
            DestroyEvent { event } => ("aclrtDestroyEvent", format!("event={event:?}")),
            MdlBuildBegin { out: o, flag } => ("aclmdlRIBuildBegin", format!("modelRI={}, flag={flag}", out(*o))),
            MdlBindStream { model, stream, flag } => ("aclmdlRIBindStream", format!("modelRI={model:?}, stream={stream:?}, flag={}", n(*flag))),
            MdlEndTask { model, stream } => ("aclmdlRIEndTask", format!("modelRI={model:?}, stream={stream:?}")),
            MdlBuildEnd { model, reserve } => ("aclmdlRIBuildEnd", format!("modelRI={model:?}, reserve={reserve:?}")),
            MdlExecute { model, timeout } => ("aclmdlRIExecute", format!("modelRI={model:?}, timeout={timeout}")),
            MdlExecuteAsync { model, stream } => ("aclmdlRIExecuteAsync", format!("modelRI={model:?}, stream={stream:?}")),
            MdlUnbindStream { model, stream } => ("aclmdlRIUnbindStream", format!("modelRI={model:?}, stream={stream:?}")),
            MdlDestroy { model } => ("aclmdlRIDestroy", format!("modelRI={model:?}")),
        }
    }
}
