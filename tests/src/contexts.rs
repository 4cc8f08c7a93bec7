//! Cases of explicit contexts: on the creating thread, on another thread, and without
//! `aclrtSetDevice`.

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};

use crate::helpers::*;
use crate::CaseResult;

/// Fills `len` bytes at `a` with `value` on `s`, then copies them to `b` on the same stream.
fn fill_and_copy(rt: &Runtime, a: Addr, b: Addr, len: usize, value: i32, s: RawStream) {
    rt.memset_async(a, len, value, len, s)
        .expect("aclrtMemsetAsync");
    rt.memcpy_async(
        MemDst::Addr(b),
        len,
        MemSrc::Addr(a),
        len,
        memcpy_kind::DEVICE_TO_DEVICE,
        s,
    )
    .expect("aclrtMemcpyAsync D2D");
}

/// Work in an explicit context: its default stream and a stream created in it, with device
/// memory allocated while it is current. Leaves the context current.
fn use_context(rt: &Runtime, ctx: RawContext, value: i32) {
    let mut cur = RawContext::default();
    rt.get_current_context(Some(&mut cur))
        .expect("aclrtGetCurrentContext");
    assert_eq!(cur, ctx, "the created context is current");
    let mut ds = RawStream::NULL;
    rt.ctx_get_current_default_stream(Some(&mut ds))
        .expect("aclrtCtxGetCurrentDefaultStream");
    assert_ne!(ds, RawStream::NULL, "the context's default stream");
    let (a, b) = (malloc(rt, 256), malloc(rt, 256));
    fill_and_copy(rt, a, b, 256, value, RawStream::NULL);
    rt.synchronize_stream(RawStream::NULL)
        .expect("sync the context's default stream (NULL)");
    assert!(
        read_bytes(rt, b, 256).iter().all(|&x| x == value as u8),
        "copy on the context's default stream"
    );
    let s = stream(rt);
    fill_and_copy(rt, a, b, 256, value + 1, s);
    rt.synchronize_stream(s)
        .expect("sync a stream of the context");
    fill_and_copy(rt, b, a, 128, value + 2, ds);
    rt.synchronize_stream(ds)
        .expect("sync the context's default stream (handle)");
    let got = read_bytes(rt, a, 256);
    assert!(
        got[..128].iter().all(|&x| x == (value + 2) as u8)
            && got[128..].iter().all(|&x| x == (value + 1) as u8),
        "copies on a stream of the context"
    );
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    rt.free(a).expect("aclrtFree");
    rt.free(b).expect("aclrtFree");
}

pub(crate) fn explicit_contexts(rt: &Runtime) -> CaseResult {
    let mut count = 0u32;
    rt.get_device_count(Some(&mut count))
        .expect("aclrtGetDeviceCount");
    let mut c = RawContext::default();
    expect(
        "CreateContext NULL",
        rt.create_context(None, 0),
        INVALID_PARAM,
    );
    expect(
        "CreateContext device -1",
        rt.create_context(Some(&mut c), -1),
        BAD_DEVICE,
    );
    expect(
        "CreateContext device count",
        rt.create_context(Some(&mut c), count as i32),
        BAD_DEVICE,
    );
    // Without aclrtSetDevice: the context is the thread's only one.
    expect(
        "CreateContext before SetDevice",
        rt.create_context(Some(&mut c), 0),
        0,
    );
    use_context(rt, c, 0x21);
    expect("DestroyContext (no SetDevice)", rt.destroy_context(c), 0);
    expect(
        "GetCurrentContext after its destruction",
        rt.get_current_context(Some(&mut RawContext::default())),
        NO_CONTEXT,
    );
    expect(
        "CreateStream without a context",
        rt.create_stream(Some(&mut RawStream::default())),
        NO_CONTEXT,
    );
    // Next to the device's default context.
    let _d = Dev::open(rt);
    let mut primary = RawContext::default();
    rt.get_current_context(Some(&mut primary))
        .expect("aclrtGetCurrentContext");
    let in_primary = stream(rt);
    expect(
        "CreateContext after SetDevice",
        rt.create_context(Some(&mut c), 0),
        0,
    );
    use_context(rt, c, 0x31);
    let buf = malloc(rt, 64);
    expect(
        "MemsetAsync on a stream of another context",
        rt.memset_async(buf, 64, 0, 64, in_primary),
        STREAM_CONTEXT,
    );
    // Another thread with a context of its own while this one keeps `c`.
    std::thread::scope(|sc| {
        sc.spawn(|| {
            let mut c2 = RawContext::default();
            rt.create_context(Some(&mut c2), 0)
                .expect("aclrtCreateContext on another thread");
            use_context(rt, c2, 0x41);
            rt.destroy_context(c2)
                .expect("aclrtDestroyContext on another thread");
        })
        .join()
        .expect("thread");
    });
    let mut cur = RawContext::default();
    rt.get_current_context(Some(&mut cur))
        .expect("aclrtGetCurrentContext");
    assert_eq!(cur, c, "the other thread left this thread's context alone");
    rt.memset_async(buf, 64, 0x51, 64, RawStream::NULL)
        .expect("aclrtMemsetAsync in the context");
    rt.synchronize_stream(RawStream::NULL).expect("sync");
    assert!(read_bytes(rt, buf, 64).iter().all(|&x| x == 0x51));
    // Back to the default context: its streams work, the other context's default stream does
    // not belong to it.
    rt.set_current_context(primary)
        .expect("aclrtSetCurrentContext(primary)");
    rt.memset_async(buf, 64, 0x61, 64, in_primary)
        .expect("aclrtMemsetAsync in the default context");
    rt.synchronize_stream(in_primary).expect("sync");
    assert!(read_bytes(rt, buf, 64).iter().all(|&x| x == 0x61));
    expect(
        "DestroyContext of the default context",
        rt.destroy_context(primary),
        NO_CONTEXT,
    );
    expect(
        "DestroyContext NULL",
        rt.destroy_context(RawContext(0)),
        INVALID_PARAM,
    );
    expect("DestroyContext", rt.destroy_context(c), 0);
    expect("DestroyContext twice", rt.destroy_context(c), NO_CONTEXT);
    expect(
        "SetCurrentContext destroyed",
        rt.set_current_context(c),
        BAD_HANDLE,
    );
    rt.memset_async(buf, 64, 0x71, 64, RawStream::NULL)
        .expect("the default context still works");
    rt.synchronize_stream(RawStream::NULL).expect("sync");
    assert!(read_bytes(rt, buf, 64).iter().all(|&x| x == 0x71));
    rt.destroy_stream(in_primary).expect("aclrtDestroyStream");
    Ok(())
}
