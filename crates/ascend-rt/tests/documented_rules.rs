//! `RuntimeOptions::documented_rules`: the documented restrictions CANN's code does not check
//! (docs/discrepancies.md) are off by default and enforced when asked for.

use ascend_rt::raw_types::*;
use ascend_rt::{MsgCode, Runtime, RuntimeOptions};

fn setup(soc: &str, documented: bool) -> (Runtime, Addr) {
    let rt = Runtime::sim(soc).unwrap().with_options(RuntimeOptions {
        documented_rules: documented,
        ..RuntimeOptions::default()
    });
    rt.set_device(0).unwrap();
    let mut buf = Addr::NULL;
    rt.malloc(Some(&mut buf), 256, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(buf, 256, 0, 256).unwrap();
    (rt, buf)
}

#[test]
fn cmo_async_accepts_all_four_types_by_default_and_only_prefetch_when_documented() {
    let (code, _) = setup("Ascend910B1", false);
    for t in 0..4 {
        code.cmo_async(Addr(0x1000_0000_0000), 64, t, RawStream::NULL)
            .unwrap();
    }
    let (doc, buf) = setup("Ascend910B1", true);
    doc.cmo_async(buf, 64, cmo_type::PREFETCH, RawStream::NULL)
        .unwrap();
    for t in [cmo_type::WRITEBACK, cmo_type::INVALID, cmo_type::FLUSH] {
        let e = doc.cmo_async(buf, 64, t, RawStream::NULL).unwrap_err();
        assert_eq!(
            (e.code(), e.msg_code),
            (107000, Some(MsgCode::EE1003)),
            "{e}"
        );
    }
    // The code's own checks still come first: an out-of-range type is 207000.
    assert_eq!(
        doc.cmo_async(buf, 64, 4, RawStream::NULL)
            .unwrap_err()
            .code(),
        207000
    );
}

#[test]
fn value_addresses_must_be_aligned_only_when_documented() {
    let (code, buf) = setup("Ascend910B1", false);
    code.value_write(buf.offset(4), 1, 0, RawStream::NULL)
        .unwrap();
    let (doc, buf) = setup("Ascend910B1", true);
    doc.value_write(buf.offset(8), 1, 0, RawStream::NULL)
        .unwrap();
    assert_eq!(
        doc.value_write(buf.offset(4), 1, 0, RawStream::NULL)
            .unwrap_err()
            .code(),
        107000
    );
    assert_eq!(
        doc.value_wait(buf.offset(4), 1, wait_flag::EQ, RawStream::NULL)
            .unwrap_err()
            .code(),
        107000
    );
    // A bad flag is still reported before the alignment.
    let e = doc
        .value_write(buf.offset(4), 1, 9, RawStream::NULL)
        .unwrap_err();
    assert!(e.message.contains("flag"), "{e}");
}

#[test]
fn cmo_wait_barrier_flag_is_ignored_unless_documented() {
    for documented in [false, true] {
        let (rt, buf) = setup("Ascend310B1", documented);
        let mut model = RawModel::default();
        rt.mdl_ri_build_begin(Some(&mut model), 0).unwrap();
        let mut s = RawStream::NULL;
        rt.create_stream_with_config(Some(&mut s), 0, stream_flag::PERSISTENT)
            .unwrap();
        rt.mdl_ri_bind_stream(model, s, model_stream_flag::HEAD)
            .unwrap();
        rt.cmo_async_with_barrier(buf, 64, cmo_type::INVALID, 3, s)
            .unwrap();
        let mut info = RawBarrierTaskInfo {
            barrier_num: 1,
            ..Default::default()
        };
        info.cmo_info[0] = RawBarrierCmoInfo {
            cmo_type: cmo_type::INVALID,
            barrier_id: 3,
        };
        let r = rt.cmo_wait_barrier(Some(&info), s, 1);
        if documented {
            assert_eq!(r.unwrap_err().code(), 107000);
        } else {
            r.unwrap();
        }
    }
}

/// Set in the environment of the child run of [`code_only_input_without_a_logger`].
const CHILD: &str = "ASCEND_RT_DOCUMENTED_RULES_CHILD";

/// A program that set up no logging makes a CMO the documentation forbids: run only as a
/// child of [`a_code_only_input_is_warned_of_on_stderr_when_the_program_has_no_logger`].
#[test]
fn code_only_input_without_a_logger() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let (rt, buf) = setup("Ascend910B1", false);
    rt.cmo_async(buf, 64, cmo_type::WRITEBACK, RawStream::NULL)
        .unwrap();
}

#[test]
fn a_code_only_input_is_warned_of_on_stderr_when_the_program_has_no_logger() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "code_only_input_without_a_logger", "--nocapture"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("ascend-rt: warning: aclrtCmoAsync")
            && stderr.contains("its documentation does not"),
        "the warning reaches stderr:\n{stderr}"
    );
}
