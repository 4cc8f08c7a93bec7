//! The rows of the supporting APIs: device, memory edge rows (docs/validation/devices-contexts.md,
//! memory.md) and the NULL and handle rows of streams, events and model running instances
//! (docs/validation/streams-events.md, models.md).
//!
//! These run after the target-API rows and in this order on both sides. Calls that would
//! create an object pass a NULL out-parameter or an invalid argument; if one succeeds all the
//! same, the side that ran it releases the object at once.

use ascend_rt::raw_types::{event_flag, malloc_policy, memcpy_kind, stream_flag};

use super::call::{fresh, main, Call::*, Evt, Mdl, Ptr, Row, Strm};

/// `aclrtSetDevice`, `aclrtGetDevice` (docs/validation/devices-contexts.md).
fn device() -> Vec<Row> {
    vec![
        main(SetDevice { id: -1 }),
        main(SetDevice { id: 1024 }),
        main(GetDevice { out: false }),
        main(GetDevice { out: true }),
        fresh(GetDevice { out: true }),
    ]
}

/// Allocation, copy and fill edge rows (docs/validation/memory.md).
fn memory() -> Vec<Row> {
    let cp = |dst, dest_max, src, count, kind| Memcpy {
        dst,
        dest_max,
        src,
        count,
        kind,
    };
    let cpa = |dst, dest_max, src, count, kind, stream| MemcpyAsync {
        dst,
        dest_max,
        src,
        count,
        kind,
        stream,
    };
    let set = |ptr, max, count| Memset {
        ptr,
        max,
        value: 0,
        count,
    };
    let seta = |ptr, max, count, stream| MemsetAsync {
        ptr,
        max,
        value: 0,
        count,
        stream,
    };
    let (h2d, d2h, d2d) = (
        memcpy_kind::HOST_TO_DEVICE,
        memcpy_kind::DEVICE_TO_HOST,
        memcpy_kind::DEVICE_TO_DEVICE,
    );
    vec![
        main(Malloc {
            out: false,
            size: 64,
            policy: malloc_policy::HUGE_FIRST,
        }),
        main(Malloc {
            out: true,
            size: 0,
            policy: malloc_policy::HUGE_FIRST,
        }),
        main(Free { ptr: Ptr::Null }),
        main(MallocHost {
            out: false,
            size: 64,
        }),
        main(MallocHost { out: true, size: 0 }),
        main(FreeHost { ptr: Ptr::Null }),
        main(cp(Ptr::Null, 0, Ptr::Null, 0, 99)),
        main(cp(Ptr::Null, 64, Ptr::Pageable, 64, h2d)),
        main(cp(Ptr::Dev, 64, Ptr::Null, 64, h2d)),
        main(cp(
            Ptr::Dev,
            64,
            Ptr::Pageable,
            64,
            memcpy_kind::INNER_DEVICE_TO_DEVICE,
        )),
        main(cp(
            Ptr::Dev,
            64,
            Ptr::Pageable,
            64,
            memcpy_kind::INTER_DEVICE_TO_DEVICE,
        )),
        main(cp(Ptr::Dev, 0, Ptr::Pageable, 64, h2d)),
        main(cp(Ptr::Dev, 32, Ptr::Pageable, 64, h2d)),
        main(cp(Ptr::Dev, 64, Ptr::Dev, 64, d2d)),
        main(cp(Ptr::Dev, 64, Ptr::Pageable, 64, h2d)),
        main(cp(Ptr::Pageable, 64, Ptr::Dev, 64, d2h)),
        main(cp(Ptr::Dev, 64, Ptr::Pinned, 64, h2d)),
        main(cpa(Ptr::Null, 0, Ptr::Null, 0, 99, Strm::Destroyed)),
        main(cpa(Ptr::Null, 64, Ptr::Dev, 64, d2d, Strm::Plain)),
        main(cpa(Ptr::Desc, 32, Ptr::Dev, 64, d2d, Strm::Plain)),
        main(cpa(Ptr::Desc, 64, Ptr::Dev, 64, d2d, Strm::Destroyed)),
        main(cpa(Ptr::Desc, 64, Ptr::Dev, 64, d2d, Strm::Plain)),
        fresh(cpa(Ptr::Desc, 64, Ptr::Dev, 64, d2d, Strm::Null)),
        main(set(Ptr::Null, 0, 0)),
        main(set(Ptr::Null, 64, 64)),
        main(set(Ptr::Dev, 32, 64)),
        main(set(Ptr::Dev, 256, 64)),
        main(seta(Ptr::Null, 0, 0, Strm::Destroyed)),
        main(seta(Ptr::Null, 64, 64, Strm::Plain)),
        main(seta(Ptr::Dev, 32, 64, Strm::Plain)),
        main(seta(Ptr::Dev, 64, 64, Strm::Destroyed)),
        main(seta(Ptr::Dev, 64, 64, Strm::Plain)),
        fresh(seta(Ptr::Dev, 64, 64, Strm::Null)),
        // Host memory is filled on the host: never registered, registered, page-locked.
        main(seta(Ptr::Pageable, 64, 64, Strm::Plain)),
        main(seta(Ptr::Registered, 64, 32, Strm::Persistent)),
        main(seta(Ptr::Pinned, 64, 64, Strm::Null)),
        main(seta(Ptr::Pageable, 64, 65, Strm::Plain)),
        fresh(seta(Ptr::Pageable, 64, 64, Strm::Null)),
    ]
}

/// Stream rows (docs/validation/streams-events.md).
fn streams() -> Vec<Row> {
    vec![
        main(CreateStream { out: false }),
        main(CreateStreamWithConfig {
            out: false,
            priority: 0,
            flag: 0,
        }),
        main(CreateStreamWithConfig {
            out: true,
            priority: 0,
            flag: stream_flag::DEVICE_USE_ONLY | stream_flag::PERSISTENT,
        }),
        main(DestroyStream { stream: Strm::Null }),
        main(DestroyStream {
            stream: Strm::Destroyed,
        }),
        main(DestroyStream {
            stream: Strm::Garbage,
        }),
        main(SynchronizeStream {
            stream: Strm::Destroyed,
        }),
        main(SynchronizeStream {
            stream: Strm::Plain,
        }),
        main(SynchronizeStreamWithTimeout {
            stream: Strm::Plain,
            timeout: -2,
        }),
        main(StreamQuery {
            stream: Strm::Plain,
            out: false,
        }),
    ]
}

/// Event rows (docs/validation/streams-events.md, Event calls).
fn events() -> Vec<Row> {
    vec![
        main(CreateEvent { out: false }),
        main(RecordEvent {
            event: Evt::Null,
            stream: Strm::Plain,
        }),
        main(RecordEvent {
            event: Evt::Live,
            stream: Strm::Bound,
        }),
        main(RecordEvent {
            event: Evt::Live,
            stream: Strm::Destroyed,
        }),
        main(RecordEvent {
            event: Evt::Live,
            stream: Strm::Plain,
        }),
        main(StreamWaitEvent {
            stream: Strm::Plain,
            event: Evt::Null,
        }),
        main(StreamWaitEvent {
            stream: Strm::Bound,
            event: Evt::Live,
        }),
        main(StreamWaitEvent {
            stream: Strm::Plain,
            event: Evt::Live,
        }),
        main(SynchronizeEvent { event: Evt::Null }),
        main(SynchronizeEvent { event: Evt::Live }),
        main(SynchronizeEventWithTimeout {
            event: Evt::Null,
            timeout: -2,
        }),
        main(SynchronizeEventWithTimeout {
            event: Evt::Null,
            timeout: 10,
        }),
        main(SynchronizeEventWithTimeout {
            event: Evt::Live,
            timeout: -2,
        }),
        main(SynchronizeEventWithTimeout {
            event: Evt::Live,
            timeout: 10,
        }),
        main(QueryEventStatus {
            event: Evt::Null,
            out: true,
        }),
        main(QueryEventStatus {
            event: Evt::Live,
            out: false,
        }),
        main(DestroyEvent { event: Evt::Null }),
        // Creation with each flag class, alone and combined, and beyond the defined bits.
        main(CreateEventWithFlag {
            out: false,
            flag: event_flag::SYNC,
        }),
        main(CreateEventWithFlag {
            out: true,
            flag: event_flag::TIME_LINE | event_flag::SYNC,
        }),
        main(CreateEventWithFlag {
            out: true,
            flag: event_flag::EXTERNAL | event_flag::SYNC,
        }),
        main(CreateEventWithFlag {
            out: true,
            flag: event_flag::DEVICE_USE_ONLY,
        }),
        main(CreateEventWithFlag {
            out: true,
            flag: event_flag::IPC,
        }),
        main(CreateEventWithFlag {
            out: true,
            flag: 0x80,
        }),
        fresh(CreateEventWithFlag {
            out: true,
            flag: event_flag::SYNC,
        }),
        // The flagged events: one without a wait task, an external one.
        main(StreamWaitEvent {
            stream: Strm::Plain,
            event: Evt::TimeLine,
        }),
        main(RecordEvent {
            event: Evt::External,
            stream: Strm::Plain,
        }),
        main(QueryEventStatus {
            event: Evt::External,
            out: true,
        }),
        main(SynchronizeEventWithTimeout {
            event: Evt::External,
            timeout: 10,
        }),
        main(RecordEvent {
            event: Evt::Sync,
            stream: Strm::Bound,
        }),
    ]
}

/// Model running instance rows (docs/validation/models.md).
fn models() -> Vec<Row> {
    let bind = |model, stream, flag| MdlBindStream {
        model,
        stream,
        flag,
    };
    vec![
        main(MdlBuildBegin {
            out: false,
            flag: 0,
        }),
        main(MdlBuildBegin { out: true, flag: 1 }),
        main(bind(Mdl::Null, Strm::Persistent, 0)),
        main(bind(Mdl::Live, Strm::Persistent, 1)),
        main(bind(Mdl::Live, Strm::Plain, 0)),
        main(bind(Mdl::Live, Strm::Bound, 0)),
        main(bind(Mdl::Live, Strm::Destroyed, 0)),
        main(MdlEndTask {
            model: Mdl::Null,
            stream: Strm::Bound,
        }),
        main(MdlBuildEnd {
            model: Mdl::Null,
            reserve: Ptr::Null,
        }),
        main(MdlBuildEnd {
            model: Mdl::Live,
            reserve: Ptr::Dev,
        }),
        main(MdlExecute {
            model: Mdl::Null,
            timeout: -1,
        }),
        main(MdlExecuteAsync {
            model: Mdl::Null,
            stream: Strm::Plain,
        }),
        main(MdlUnbindStream {
            model: Mdl::Null,
            stream: Strm::Bound,
        }),
        main(MdlDestroy { model: Mdl::Null }),
    ]
}

/// Every supporting-API row, in order.
pub(crate) fn rows() -> Vec<Row> {
    [device(), memory(), streams(), events(), models()].concat()
}
