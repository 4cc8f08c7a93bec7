//! Property test of the validation order of the eight target APIs (docs/validation/cmo.md,
//! docs/validation/value-write-wait.md).
//!
//! For arbitrary inputs — NULL / device / page-locked host / unregistered / freed / other
//! device addresses, zero and huge sizes, any `u32` for enums and flags, every kind of stream
//! (NULL, plain, persistent unbound, model-bound, destroyed, garbage, an event or model handle,
//! a stream of another context), with or without a current context, on every built-in chip —
//! each API is called and its result compared with the first failing row of its docs table.
//!
//! The expected result comes from the decision tables below, written from the docs text
//! alone: the chip features are those of docs/products.md by SoC name, not read from the
//! crate's chip profiles, and nothing here calls the crate's validation code to compute an
//! expectation.
//!
//! Where the docs name a message code the test checks it, and checks that rows the docs call
//! "warning only" leave no recent error message.
//!
//! Case count: 256 per API by default; `PROPTEST_CASES` overrides it.

mod common;

use ascend_rt::raw_types::{
    cmo_type, stream_flag, Addr, RawBarrierCmoInfo, RawBarrierTaskInfo, RawModel, RawStream,
};
use ascend_rt::{AclResult, MsgCode, Runtime};
use common::{malloc, malloc_host, ok, rt, ALL_SOCS};
use proptest::prelude::*;

// =============================================================================================
// The docs' facts (docs/products.md, Feature flags per chip type), by SoC name
// =============================================================================================

#[derive(Debug, Clone, Copy)]
struct Features {
    task_cmo: bool,
    task_async_cmo: bool,
    model_cmo_barrier: bool,
    value_wait: bool,
    /// cmoDDRStructInfoSize.
    desc_size: usize,
}

fn features(soc: &str) -> Features {
    match soc {
        // CHIP_910_B_93 (A2 / A3).
        "Ascend910B1" | "Ascend910B4" | "Ascend910_9391" => Features {
            task_cmo: true,
            task_async_cmo: false,
            model_cmo_barrier: false,
            value_wait: true,
            desc_size: 32,
        },
        // CHIP_DAVID (950).
        "Ascend950PR_9599" | "Ascend950DT_9591" => Features {
            task_cmo: true,
            task_async_cmo: false,
            model_cmo_barrier: false,
            value_wait: true,
            desc_size: 64,
        },
        // CHIP_MINI_V3 (200I/500 A2).
        "Ascend310B1" => Features {
            task_cmo: false,
            task_async_cmo: true,
            model_cmo_barrier: true,
            value_wait: false,
            desc_size: 0,
        },
        // CHIP_DC (310P), CHIP_CLOUD (910).
        "Ascend310P3" | "Ascend910A" => Features {
            task_cmo: false,
            task_async_cmo: false,
            model_cmo_barrier: false,
            value_wait: false,
            desc_size: 0,
        },
        other => panic!("no docs/products.md facts for {other}"),
    }
}

// =============================================================================================
// Inputs
// =============================================================================================

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StreamKind {
    /// NULL: the current context's default stream.
    Null,
    /// `aclrtCreateStream`.
    Plain,
    /// `ACL_STREAM_PERSISTENT`, not bound.
    PersistentUnbound,
    /// Persistent and bound to a model of the current device.
    Bound,
    /// Created, then destroyed.
    Destroyed,
    /// A value never given out.
    Garbage(u64),
    /// An event handle passed as a stream.
    EventHandle,
    /// A model handle passed as a stream.
    ModelHandle,
    /// A stream of device 1's context (device 0 is the current one). On a one-device chip this
    /// cannot be built and the case uses `Plain` instead.
    OtherCtx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AddrKind {
    Null,
    /// Base of a 256-byte `aclrtMalloc` buffer of device 0.
    Device,
    /// Inside it, at an offset (≤ 192, so a whole descriptor fits).
    DeviceInterior(u64),
    /// A buffer of device 1 (device 0 on a one-device chip).
    DeviceOtherDev,
    /// `aclrtMallocHost` memory.
    Host,
    /// An address in no allocation (below 4 GiB, where neither the simulator's device window
    /// nor the host heap lies).
    Unregistered(u64),
    /// An `aclrtMalloc` buffer that was freed.
    Freed,
}

impl AddrKind {
    fn is_null(self) -> bool {
        self == AddrKind::Null
    }
    fn is_device(self) -> bool {
        matches!(
            self,
            AddrKind::Device | AddrKind::DeviceInterior(_) | AddrKind::DeviceOtherDev
        )
    }
}

#[derive(Debug, Clone)]
struct Case {
    soc: &'static str,
    ctx: bool,
    stream: StreamKind,
    addr: AddrKind,
    addr2: AddrKind,
    size: usize,
    cmo: u32,
    flag: u32,
    value: u64,
    barrier_id: u32,
    /// `None` = NULL taskInfo; otherwise barrierNum and the six entries.
    info: Option<(usize, [(u32, u32); 6])>,
    /// Barrier ids 1..=3 used by a barrier CMO on the bound stream before the call (310B).
    registered: u8,
    /// NULL out-parameter of GetDescSize.
    out_null: bool,
    /// The `reserve` argument of CmoAsyncWithDesc (`None` = NULL).
    reserve: Option<u64>,
}

fn stream_kind() -> impl Strategy<Value = StreamKind> {
    prop_oneof![
        3 => Just(StreamKind::Null),
        3 => Just(StreamKind::Plain),
        2 => Just(StreamKind::PersistentUnbound),
        4 => Just(StreamKind::Bound),
        1 => Just(StreamKind::Destroyed),
        1 => (1u64..).prop_map(StreamKind::Garbage),
        1 => Just(StreamKind::EventHandle),
        1 => Just(StreamKind::ModelHandle),
        2 => Just(StreamKind::OtherCtx),
    ]
}

fn addr_kind() -> impl Strategy<Value = AddrKind> {
    prop_oneof![
        2 => Just(AddrKind::Null),
        6 => Just(AddrKind::Device),
        2 => (0u64..=192).prop_map(AddrKind::DeviceInterior),
        1 => Just(AddrKind::DeviceOtherDev),
        2 => Just(AddrKind::Host),
        2 => (1u64..1 << 32).prop_map(AddrKind::Unregistered),
        1 => Just(AddrKind::Freed),
    ]
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![
        2 => Just(0usize),
        6 => 1usize..=8192,
        1 => Just(1usize << 32),
        1 => (1usize << 32)..(1usize << 33),
        1 => Just(usize::MAX),
        1 => any::<usize>(),
    ]
}

/// A flag: mostly 0 or another of the four compare values, sometimes beyond.
fn flag() -> impl Strategy<Value = u32> {
    prop_oneof![4 => Just(0u32), 4 => 1u32..4, 1 => 4u32..6, 1 => any::<u32>()]
}

fn entry() -> impl Strategy<Value = (u32, u32)> {
    (
        prop_oneof![12 => Just(cmo_type::INVALID), 1 => 0u32..6, 1 => any::<u32>()],
        prop_oneof![12 => 1u32..=3, 1 => Just(0u32), 1 => any::<u32>()],
    )
}

fn info() -> impl Strategy<Value = Option<(usize, [(u32, u32); 6])>> {
    let count = prop_oneof![6 => 1usize..=3, 3 => 4usize..=6, 1 => Just(0usize), 1 => Just(7usize), 1 => any::<usize>()];
    prop_oneof![
        1 => Just(None),
        12 => (count, [entry(), entry(), entry(), entry(), entry(), entry()]).prop_map(Some),
    ]
}

/// Cases on any chip, half of them on one of `favoured` (the chips where the API passes its
/// gate, so that the later rows are reached often).
fn case(favoured: &'static [&'static str]) -> impl Strategy<Value = Case> {
    (
        (
            prop_oneof![
                prop::sample::select(&ALL_SOCS[..]),
                prop::sample::select(favoured),
            ],
            prop::bool::weighted(0.85),
            stream_kind(),
            addr_kind(),
            addr_kind(),
            size(),
        ),
        (
            prop_oneof![6 => 0u32..5, 1 => any::<u32>()],
            flag(),
            any::<u64>(),
            prop_oneof![3 => Just(0u32), 3 => 1u32..=3, 1 => any::<u32>()],
            info(),
            prop_oneof![2 => Just(7u8), 1 => 0u8..8],
            prop::bool::weighted(0.2),
            prop_oneof![6 => Just(None), 1 => (1u64..).prop_map(Some)],
        ),
    )
        .prop_map(
            |(
                (soc, ctx, stream, addr, addr2, size),
                (cmo, flag, value, barrier_id, info, registered, out_null, reserve),
            )| Case {
                soc,
                ctx,
                stream,
                addr,
                addr2,
                size,
                cmo,
                flag,
                value,
                barrier_id,
                info,
                registered,
                out_null,
                reserve,
            },
        )
}

// =============================================================================================
// Expected results: the decision tables
// =============================================================================================

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Msg {
    /// The docs name this message code.
    Is(MsgCode),
    /// The docs say the failure is only a warning: no message code; the recent message is
    /// the simulator's own explanation.
    Silent,
    /// The docs say nothing about the message.
    Unspecified,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exp {
    Ok,
    Err(i32, Msg),
    /// Must fail; the docs give no code.
    AnyErr,
    /// The docs leave the outcome open.
    Any,
}

use Exp::Err as E;
use Msg::{Is, Silent, Unspecified};

const GATE: Exp = E(207000, Silent);

fn handle_valid(s: StreamKind) -> bool {
    !matches!(
        s,
        StreamKind::Destroyed
            | StreamKind::Garbage(_)
            | StreamKind::EventHandle
            | StreamKind::ModelHandle
    )
}

/// The RT impl step (docs/validation/common-rules.md): a current context, then the resolved
/// stream in it. NULL resolves to the default stream, which is in the current context.
fn impl_ctx(c: &Case) -> Option<Exp> {
    if !c.ctx {
        return Some(E(107002, Is(MsgCode::EE1018)));
    }
    if c.stream == StreamKind::OtherCtx {
        return Some(E(107003, Is(MsgCode::EE1010)));
    }
    None
}

/// Model-bound after resolution (the default stream never is).
fn bound(c: &Case) -> bool {
    c.stream == StreamKind::Bound
}

macro_rules! first {
    ($($cond:expr => $exp:expr;)*) => {{
        $( if $cond { return $exp; } )*
    }};
}

/// docs/validation/value-write-wait.md, aclrtValueWrite.
fn exp_value_write(c: &Case) -> Exp {
    let f = features(c.soc);
    first! {
        c.addr.is_null() => E(100000, Is(MsgCode::EH0008));
        !f.value_wait => GATE;
        !handle_valid(c.stream) => E(107017, Is(MsgCode::EE1017));
        c.flag != 0 => E(107000, Is(MsgCode::EE1003));
        !c.addr.is_device() => E(107000, Is(MsgCode::EE1003));
    }
    impl_ctx(c).unwrap_or(Exp::Ok)
}

/// docs/validation/value-write-wait.md, aclrtValueWait.
fn exp_value_wait(c: &Case) -> Exp {
    let f = features(c.soc);
    first! {
        c.addr.is_null() => E(100000, Is(MsgCode::EH0008));
        !f.value_wait => GATE;
        !handle_valid(c.stream) => E(107017, Is(MsgCode::EE1017));
        c.flag >= 4 => E(107000, Is(MsgCode::EE1003));
        !c.addr.is_device() => E(107000, Is(MsgCode::EE1003));
    }
    impl_ctx(c).unwrap_or(Exp::Ok)
}

/// docs/validation/cmo.md, aclrtCmoAsync.
fn exp_cmo_async(c: &Case) -> Exp {
    let f = features(c.soc);
    first! {
        c.addr.is_null() => E(100000, Is(MsgCode::EH0008));
        c.size == 0 => E(100000, Is(MsgCode::EH0007));
        !f.task_cmo => GATE;
        c.cmo > 3 => GATE;
        !handle_valid(c.stream) => E(107017, Is(MsgCode::EE1017));
    }
    if let Some(e) = impl_ctx(c) {
        return e;
    }
    if bound(c) {
        // "Returned silently" on chips with RT_FEATURE_TASK_CMO_DOT_NO_LOG (every chip with
        // TASK_CMO here), but the RT entry's EE1001 trailer covers FEATURE_NOT_SUPPORT
        // (docs/error-codes.md, The EE1001 trailer): the message is left open.
        return E(207000, Unspecified);
    }
    Exp::Ok
}

/// docs/validation/cmo.md, aclrtCmoAsyncWithBarrier.
fn exp_cmo_async_with_barrier(c: &Case) -> Exp {
    let f = features(c.soc);
    let id = c.barrier_id;
    first! {
        c.addr.is_null() => E(100000, Is(MsgCode::EH0008));
        !f.task_async_cmo => GATE;
        c.size == 0 => E(107000, Is(MsgCode::EE1003));
        c.cmo == cmo_type::INVALID && id == 0 => E(107000, Is(MsgCode::EE1011));
        matches!(c.cmo, 0 | 1 | 3) && id != 0 => E(107000, Is(MsgCode::EE1011));
        c.cmo > 3 => GATE;
        !handle_valid(c.stream) => E(107017, Is(MsgCode::EE1017));
    }
    if let Some(e) = impl_ctx(c) {
        return e;
    }
    if !bound(c) {
        return E(507000, Unspecified);
    }
    Exp::Ok
}

/// docs/validation/cmo.md, aclrtCmoWaitBarrier.
fn exp_cmo_wait_barrier(c: &Case) -> Exp {
    let f = features(c.soc);
    let Some((n, entries)) = c.info else {
        return E(100000, Is(MsgCode::EH0008));
    };
    if n == 0 || n > 6 {
        return E(100000, Is(MsgCode::EH0007));
    }
    for &(t, id) in &entries[..n] {
        // opcode = type + 6 (wrapping) must be 8, i.e. the ACL type must be INVALID.
        if t != cmo_type::INVALID || id == 0 {
            return E(107000, Is(MsgCode::EE1003));
        }
    }
    first! {
        !f.task_async_cmo => E(207000, Is(MsgCode::EE1005));
        !handle_valid(c.stream) => E(107017, Is(MsgCode::EE1017));
    }
    if let Some(e) = impl_ctx(c) {
        return e;
    }
    if !bound(c) {
        return E(507000, Unspecified);
    }
    if f.model_cmo_barrier {
        let known = |id: u32| (1..=3).contains(&id) && c.registered & (1 << (id - 1)) != 0;
        if entries[..n].iter().any(|&(_, id)| !known(id)) {
            return E(107005, Unspecified);
        }
    }
    Exp::Ok
}

/// docs/validation/cmo.md, aclrtCmoGetDescSize.
fn exp_get_desc_size(c: &Case) -> Exp {
    let f = features(c.soc);
    first! {
        !f.task_cmo => GATE;
        c.out_null => E(107000, Is(MsgCode::EE1004));
    }
    Exp::Ok
}

/// docs/validation/cmo.md, aclrtCmoSetDesc: `addr` is cmoDesc, `addr2` is src.
fn exp_set_desc(c: &Case) -> Exp {
    let f = features(c.soc);
    first! {
        !f.task_cmo => GATE;
        c.addr.is_null() => E(107000, Is(MsgCode::EE1004));
        c.addr2.is_null() => E(107000, Is(MsgCode::EE1004));
        c.size == 0 => E(107000, Is(MsgCode::EE1003));
        // Without a context the outcome of the copy is an open point (docs/discrepancies.md).
        !c.ctx => Exp::Any;
        // Memory of another device: the docs do not say whether the copy works.
        c.addr == AddrKind::DeviceOtherDev => Exp::Any;
        // Row 5: the synchronous copy into a descriptor outside device memory fails with a
        // mapped copy error the docs do not give.
        !c.addr.is_device() => Exp::AnyErr;
    }
    Exp::Ok
}

/// docs/validation/cmo.md, aclrtCmoAsyncWithDesc: `addr` is cmoDesc.
fn exp_cmo_async_with_desc(c: &Case) -> Exp {
    let f = features(c.soc);
    first! {
        c.reserve.is_some() => E(107000, Is(MsgCode::EE1003));
        f.desc_size == 0 => GATE;
        !handle_valid(c.stream) => E(107017, Is(MsgCode::EE1017));
        c.addr.is_null() => E(107000, Is(MsgCode::EE1004));
        c.cmo > 3 => E(107000, Is(MsgCode::EE1003));
    }
    if let Some(e) = impl_ctx(c) {
        return e;
    }
    first! {
        !bound(c) => E(507000, Unspecified);
        c.addr == AddrKind::DeviceOtherDev => Exp::Any;
        // Row 9: writing the descriptor head fails outside device memory (code not given).
        !c.addr.is_device() => Exp::AnyErr;
    }
    Exp::Ok
}

// =============================================================================================
// Building the world of a case and calling the API
// =============================================================================================

struct World {
    rt: Runtime,
    stream: RawStream,
    addr: Addr,
    addr2: Addr,
    /// The stream kind actually used (OtherCtx becomes Plain on a one-device chip).
    kind: StreamKind,
}

fn build(c: &Case) -> World {
    let rt = rt(c.soc);
    let two_devices = rt.chip().limits.device_count >= 2;
    // Everything is made on a helper thread, so that the test thread has a context only when
    // the case says so.
    let (stream, kind, addrs) = std::thread::scope(|sc| {
        sc.spawn(|| {
            let r = &rt;
            ok(r.set_device(0));
            let dev = malloc(r, 256);
            let host = malloc_host(r, 256);
            let mut model = RawModel::default();
            ok(r.mdl_ri_build_begin(Some(&mut model), 0));
            let mut kind = c.stream;
            if kind == StreamKind::OtherCtx && !two_devices {
                kind = StreamKind::Plain;
            }
            let mk = |flag: u32| {
                let mut s = RawStream::NULL;
                ok(r.create_stream_with_config(Some(&mut s), 0, flag));
                s
            };
            let stream = match kind {
                StreamKind::Null => RawStream::NULL,
                StreamKind::Plain => mk(0),
                StreamKind::PersistentUnbound => mk(stream_flag::PERSISTENT),
                StreamKind::Bound => {
                    let s = mk(stream_flag::PERSISTENT);
                    ok(r.mdl_ri_bind_stream(model, s, 0));
                    s
                }
                StreamKind::Destroyed => {
                    let s = mk(0);
                    ok(r.destroy_stream(s));
                    s
                }
                StreamKind::Garbage(v) => RawStream(v),
                StreamKind::EventHandle => {
                    let mut e = Default::default();
                    ok(r.create_event(Some(&mut e)));
                    RawStream(e.0)
                }
                StreamKind::ModelHandle => RawStream(model.0),
                StreamKind::OtherCtx => RawStream::NULL, // made below, on device 1
            };
            // Barrier ids used on the bound stream (only possible where the barrier CMO is).
            if kind == StreamKind::Bound && features(c.soc).task_async_cmo {
                for id in 1..=3u32 {
                    if c.registered & (1 << (id - 1)) != 0 {
                        ok(r.cmo_async_with_barrier(dev, 64, cmo_type::INVALID, id, stream));
                    }
                }
            }
            let (other_mem, stream) = if two_devices {
                ok(r.set_device(1));
                let m = malloc(r, 256);
                let s = if kind == StreamKind::OtherCtx {
                    mk(0)
                } else {
                    stream
                };
                ok(r.set_device(0));
                (m, s)
            } else {
                (malloc(r, 256), stream)
            };
            // Freed last, so that no later allocation can reuse its address.
            let freed = malloc(r, 256);
            ok(r.free(freed));
            (stream, kind, (dev, host, other_mem, freed))
        })
        .join()
        .expect("setup thread")
    });
    let (dev, host, other_mem, freed) = addrs;
    let resolve = |a: AddrKind| match a {
        AddrKind::Null => Addr::NULL,
        AddrKind::Device => dev,
        AddrKind::DeviceInterior(off) => dev.offset(off),
        AddrKind::DeviceOtherDev => other_mem,
        AddrKind::Host => host,
        AddrKind::Unregistered(a) => Addr(a),
        AddrKind::Freed => freed,
    };
    if c.ctx {
        ok(rt.set_device(0));
    }
    World {
        stream,
        addr: resolve(c.addr),
        addr2: resolve(c.addr2),
        kind,
        rt,
    }
}

/// Runs one API on a case and checks the result against its decision table.
fn check(
    c: &Case,
    expected: fn(&Case) -> Exp,
    call: impl FnOnce(&World) -> AclResult<()>,
) -> Result<(), TestCaseError> {
    let w = build(c);
    let effective = Case {
        stream: w.kind,
        ..c.clone()
    };
    let exp = expected(&effective);
    let got = call(&w);
    let recent = w.rt.get_recent_err_msg();
    match (exp, &got) {
        (Exp::Any, _) => {}
        (Exp::Ok, Ok(())) => {}
        (Exp::AnyErr, Err(_)) => {}
        (Exp::Err(code, msg), Err(e)) => {
            prop_assert_eq!(e.code(), code, "{:?}: {}", effective, e);
            match msg {
                Is(m) => {
                    prop_assert_eq!(e.msg_code, Some(m), "{:?}: {}", effective, e);
                    let text = recent.unwrap_or_default();
                    prop_assert!(text.contains(&m.to_string()), "recent message {:?}", text);
                }
                Silent => {
                    prop_assert_eq!(e.msg_code, None, "{:?}: {}", effective, e);
                    let text = recent.unwrap_or_default();
                    prop_assert!(
                        !text.is_empty() && text.lines().all(|l| l.starts_with("ascend-sim: ")),
                        "{:?}: recent message {:?}",
                        effective,
                        text
                    );
                }
                Unspecified => {}
            }
        }
        (exp, got) => {
            return Err(TestCaseError::fail(format!(
                "expected {exp:?}, got {got:?} for {effective:?}"
            )))
        }
    }
    Ok(())
}

fn barrier_info(c: &Case) -> Option<RawBarrierTaskInfo> {
    c.info.map(|(n, entries)| {
        let mut i = RawBarrierTaskInfo {
            barrier_num: n,
            ..Default::default()
        };
        for (k, (t, id)) in entries.into_iter().enumerate() {
            i.cmo_info[k] = RawBarrierCmoInfo {
                cmo_type: t,
                barrier_id: id,
            };
        }
        i
    })
}

/// Chips where the CMO, descriptor and value APIs pass their gates (docs/products.md).
const CMO: [&str; 5] = [
    "Ascend910B1",
    "Ascend910B4",
    "Ascend910_9391",
    "Ascend950PR_9599",
    "Ascend950DT_9591",
];
/// The chip where the barrier pair passes its gate.
const BARRIER: [&str; 1] = ["Ascend310B1"];

/// 256 cases per API unless `PROPTEST_CASES` says otherwise. `ProptestConfig::default()` is
/// the one that reads the `PROPTEST_*` environment variables.
fn config() -> ProptestConfig {
    let mut c = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = 256;
    }
    c
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn value_write_follows_the_5_7_table(c in case(&CMO)) {
        check(&c, exp_value_write, |w| w.rt.value_write(w.addr, c.value, c.flag, w.stream))?;
    }

    #[test]
    fn value_wait_follows_the_5_8_table(c in case(&CMO)) {
        check(&c, exp_value_wait, |w| w.rt.value_wait(w.addr, c.value, c.flag, w.stream))?;
    }

    #[test]
    fn cmo_async_follows_the_5_1_table(c in case(&CMO)) {
        check(&c, exp_cmo_async, |w| w.rt.cmo_async(w.addr, c.size, c.cmo, w.stream))?;
    }

    #[test]
    fn cmo_async_with_barrier_follows_the_5_2_table(c in case(&BARRIER)) {
        check(&c, exp_cmo_async_with_barrier, |w| {
            w.rt.cmo_async_with_barrier(w.addr, c.size, c.cmo, c.barrier_id, w.stream)
        })?;
    }

    #[test]
    fn cmo_wait_barrier_follows_the_5_3_table(c in case(&BARRIER)) {
        let info = barrier_info(&c);
        check(&c, exp_cmo_wait_barrier, |w| {
            w.rt.cmo_wait_barrier(info.as_ref(), w.stream, c.flag)
        })?;
    }

    #[test]
    fn cmo_get_desc_size_follows_the_5_4_table(c in case(&CMO)) {
        let want = features(c.soc).desc_size;
        check(&c, exp_get_desc_size, |w| {
            let mut size = usize::MAX;
            let r = if c.out_null {
                w.rt.cmo_get_desc_size(None)
            } else {
                w.rt.cmo_get_desc_size(Some(&mut size))
            };
            if r.is_ok() {
                assert_eq!(size, want, "{}", c.soc);
            }
            r
        })?;
    }

    #[test]
    fn cmo_set_desc_follows_the_5_5_table(c in case(&CMO)) {
        check(&c, exp_set_desc, |w| w.rt.cmo_set_desc(w.addr, w.addr2, c.size))?;
    }

    #[test]
    fn cmo_async_with_desc_follows_the_5_6_table(c in case(&CMO)) {
        check(&c, exp_cmo_async_with_desc, |w| {
            w.rt.cmo_async_with_desc(w.addr, c.cmo, w.stream, Addr(c.reserve.unwrap_or(0)))
        })?;
    }
}
