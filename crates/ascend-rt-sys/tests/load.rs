//! Loading failures are typed errors, never panics; the declarations match the ACL ABI facts.

use ascend_rt_sys::{acl_fn, Library, LoadError};

#[test]
fn a_missing_library_is_a_typed_error() {
    let err = Library::load_from("/nonexistent/dir/libascendcl.so").unwrap_err();
    assert!(matches!(err, LoadError::Library { .. }), "{err}");
    assert!(err.to_string().contains("/nonexistent/dir/libascendcl.so"));
}

#[test]
fn a_missing_function_is_a_typed_error() {
    // The C library opens but has none of ACL's functions.
    let lib = match Library::load_from("libc.so.6") {
        Ok(lib) => lib,
        Err(e) => {
            println!("SKIPPED: cannot open libc.so.6 on this machine: {e}");
            return;
        }
    };
    let err = acl_fn!(lib, aclrtSetDevice).unwrap_err();
    match err {
        LoadError::MissingSymbol { symbol, .. } => assert_eq!(symbol, "aclrtSetDevice"),
        other => panic!("unexpected {other}"),
    }
}

#[test]
fn declarations_follow_the_acl_abi() {
    use ascend_rt_sys::*;
    // docs/validation/cmo.md (CMO types, barrier structures) and value-write-wait.md (compare
    // flags): values and layouts.
    assert_eq!(aclrtCmoType_ACL_RT_CMO_TYPE_INVALID, 2);
    assert_eq!(ACL_RT_CMO_MAX_BARRIER_NUM, 6);
    assert_eq!(ACL_STREAM_WAIT_VALUE_NOR, 3);
    assert_eq!(ACL_STREAM_PERSISTENT, 4);
    assert_eq!(std::mem::size_of::<aclrtBarrierCmoInfo>(), 8);
    assert_eq!(std::mem::size_of::<aclrtBarrierTaskInfo>(), 56);
    assert_eq!(std::mem::offset_of!(aclrtBarrierTaskInfo, cmoInfo), 8);
    assert!(!HEADER_ORIGIN.is_empty());
}
