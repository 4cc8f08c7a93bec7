//! Built-in memory tasks: reduce-copies (`aclrtReduceAsync`), their rows in the vendor's order
//! per chip, and the result in device memory.

mod common;

use ascend_rt::data_types::data_type;
use ascend_rt::raw_types::{memcpy_kind, Addr, RawStream};
use ascend_rt::{MemDst, MemSrc, MsgCode, Runtime};
use common::*;

const SUM: u32 = 10;
const MAX: u32 = 11;

fn put(r: &Runtime, a: Addr, bytes: &[u8]) {
    ok(r.memcpy(
        MemDst::Addr(a),
        bytes.len(),
        MemSrc::Host(bytes),
        bytes.len(),
        memcpy_kind::HOST_TO_DEVICE,
    ));
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn a_reduce_combines_destination_and_source_in_stream_order() {
    let r = rt0(A2);
    let s = stream(&r);
    let (d, src) = (malloc(&r, 16), malloc(&r, 16));
    put(&r, d, &f32s(&[1.0, 2.0, 3.0, 4.0]));
    put(&r, src, &f32s(&[1.0, 2.0, 3.0, 4.0]));
    ok(r.reduce_async(d, src, 16, SUM, data_type::FLOAT, s, true));
    ok(r.reduce_async(d, src, 16, SUM, data_type::FLOAT, s, true));
    ok(r.synchronize_stream(s));
    assert_eq!(read_bytes(&r, d, 16), f32s(&[3.0, 6.0, 9.0, 12.0]));
    let (a, b) = (malloc(&r, 4), malloc(&r, 4));
    put(&r, a, &[1, 0xff, 5, 0x80]);
    put(&r, b, &[2, 3, 4, 0x7f]);
    ok(r.reduce_async(a, b, 4, MAX, data_type::INT8, s, true));
    ok(r.synchronize_stream(s));
    assert_eq!(
        read_bytes(&r, a, 4),
        vec![2, 3, 5, 0x7f],
        "signed bytes: max(-1, 3) = 3"
    );
}

#[test]
fn reduce_rows_follow_the_vendor_order() {
    let r = rt0(A2);
    let s = stream(&r);
    let (d, src) = (malloc(&r, 64), malloc(&r, 64));
    let f = data_type::FLOAT;
    assert_err(
        r.reduce_async(Addr(0), src, 4, SUM, f, GARBAGE, false),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.reduce_async(d, Addr(0), 4, SUM, f, GARBAGE, false),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.reduce_async(d, src, 4, SUM, f, GARBAGE, false),
        100000,
        Some(MsgCode::EH0012),
    );
    assert_err(
        r.reduce_async(d, src, 4, SUM, data_type::INT64, GARBAGE, true),
        100000,
        Some(MsgCode::EH0009),
    );
    assert_err(
        r.reduce_async(d, src, 4, SUM, f, GARBAGE, true),
        107017,
        Some(MsgCode::EE1017),
    );
    assert_err(
        r.reduce_async(d, src, 0, 99, f, s, true),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.reduce_async(d, src, 4, 14, f, s, true),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.reduce_async(d, src, (4 << 30) + 4, SUM, f, s, true),
        107000,
        Some(MsgCode::EE1011),
    );
    assert_err(
        r.reduce_async(d, src, 4, SUM, f, other_ctx_stream(&r), true),
        107003,
        Some(MsgCode::EE1010),
    );
    assert_err(
        r.reduce_async(d, src, 4, SUM, data_type::UINT8, s, true),
        207000,
        Some(MsgCode::EE1006),
    );
    assert_err(
        r.reduce_async(d, Addr(src.0 + 2), 4, SUM, f, s, true),
        107008,
        None,
    );
    assert_err(
        r.reduce_async(Addr(d.0 + 1), src, 4, SUM, data_type::FLOAT16, s, true),
        107008,
        None,
    );
    assert_err(
        r.reduce_async(d, src, 128, SUM, f, s, true),
        107000,
        Some(MsgCode::EE1003),
    );
    let r2 = rt(A2);
    assert_err(
        r2.reduce_async(d, src, 4, SUM, f, RawStream(0), true),
        107002,
        Some(MsgCode::EE1018),
    );
}

#[test]
fn each_chip_reduces_only_its_kinds_and_types() {
    for (soc, kind, dt, want) in [
        (DC, MAX, data_type::FLOAT, 107000),
        (CLOUD, MAX, data_type::FLOAT, 107000),
        (CLOUD, SUM, data_type::FLOAT16, 207000),
        (DC, SUM, data_type::INT16, 0),
        (MINI_V3, SUM, data_type::BF16, 207000),
        (A2, SUM, data_type::UINT32, 207000),
        (DAVID, SUM, data_type::UINT32, 0),
        (DAVID, 13, data_type::INT32, 0),
    ] {
        let r = rt0(soc);
        let s = stream(&r);
        let (d, src) = (malloc(&r, 64), malloc(&r, 64));
        ok(r.memset(d, 64, 0, 64));
        ok(r.memset(src, 64, 0, 64));
        assert_eq!(
            code(r.reduce_async(d, src, 8, kind, dt, s, true)),
            want,
            "{soc} kind {kind} type {dt}"
        );
        ok(r.synchronize_stream(s));
    }
}

// ----- random numbers -----

use ascend_rt::{RawRandomParam, RawRandomTaskInfo};

fn inline(v: u64, size: u8) -> RawRandomParam {
    RawRandomParam {
        is_addr: 0,
        value_or_addr: v.to_le_bytes(),
        size,
    }
}

fn uniform_i32(r: &Runtime, result: Addr, counter: Addr, num: u64) -> RawRandomTaskInfo {
    let _ = r;
    RawRandomTaskInfo {
        data_type: data_type::INT32,
        func_type: 1,
        params: [inline(10, 4), inline(20, 4)],
        para_addr: 0,
        result_addr: result.0,
        counter_addr: counter.0,
        seed: inline(7, 8),
        num: inline(num, 8),
    }
}

#[test]
fn random_numbers_land_in_range_and_the_counter_makes_each_run_new() {
    let r = rt0(A2);
    let s = stream(&r);
    let (out, counter) = (malloc(&r, 4 * 64), malloc(&r, 16));
    ok(r.memset(counter, 16, 0, 16));
    let info = uniform_i32(&r, out, counter, 64);
    ok(r.random_num_async(Some(&info), s, true));
    ok(r.synchronize_stream(s));
    let first = read_bytes(&r, out, 256);
    assert!(first
        .chunks(4)
        .all(|x| (10..20).contains(&i32::from_le_bytes(x.try_into().unwrap()))));
    ok(r.random_num_async(Some(&info), s, true));
    ok(r.synchronize_stream(s));
    assert_ne!(read_bytes(&r, out, 256), first, "the counter advanced");
    ok(r.memset(counter, 16, 0, 16));
    ok(r.random_num_async(Some(&info), s, true));
    ok(r.synchronize_stream(s));
    assert_eq!(
        read_bytes(&r, out, 256),
        first,
        "the same seed and counter repeat the numbers"
    );
}

#[test]
fn random_number_rows_follow_the_vendor_order() {
    let r = rt0(A2);
    let s = stream(&r);
    let (out, counter) = (malloc(&r, 64), malloc(&r, 16));
    let good = uniform_i32(&r, out, counter, 4);
    let with = |f: &dyn Fn(&mut RawRandomTaskInfo)| {
        let mut i = good;
        f(&mut i);
        i
    };
    assert_err(
        r.random_num_async(None, s, true),
        100000,
        Some(MsgCode::EH0008),
    );
    let bad_type = with(&|i| i.data_type = data_type::INT8);
    assert_err(
        r.random_num_async(Some(&bad_type), GARBAGE, false),
        100000,
        Some(MsgCode::EH0009),
    );
    assert_err(
        r.random_num_async(Some(&good), GARBAGE, false),
        107017,
        Some(MsgCode::EE1017),
    );
    assert_err(
        r.random_num_async(Some(&good), s, false),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.random_num_async(Some(&with(&|i| i.func_type = 4)), s, true),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.random_num_async(Some(&with(&|i| i.func_type = 2)), s, true),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.random_num_async(Some(&with(&|i| i.counter_addr = 0)), s, true),
        107000,
        Some(MsgCode::EE1004),
    );
    assert_err(
        r.random_num_async(Some(&with(&|i| i.result_addr = 0)), s, true),
        107000,
        Some(MsgCode::EE1004),
    );
    assert_err(
        r.random_num_async(Some(&with(&|i| i.seed.size = 9)), s, true),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.random_num_async(Some(&with(&|i| i.num.is_addr = 2)), s, true),
        107000,
        Some(MsgCode::EE1003),
    );
    assert_err(
        r.random_num_async(Some(&with(&|i| i.params[1].size = 8)), s, true),
        107000,
        Some(MsgCode::EE1003),
    );
    for soc in [DAVID, MINI_V3, DC, CLOUD] {
        let r = rt0(soc);
        assert_code(r.random_num_async(Some(&good), RawStream(0), true), 207000);
    }
}
