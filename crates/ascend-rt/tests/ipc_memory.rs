//! IPC memory in one process: the runtime's checks in its order, and the driver's part (keys,
//! whole pages, close). Across processes: tests/shared_device_ipc.rs.

use ascend_rt::raw_types::*;
use ascend_rt::{MsgCode, Runtime, IPC_KEY_LEN, IPC_MEM_EXPORT_NO_PID_VALIDATION};

fn setup(soc: &str) -> (Runtime, Addr) {
    let rt = Runtime::sim(soc).unwrap();
    rt.set_device(0).unwrap();
    let mut p = Addr::NULL;
    rt.malloc(Some(&mut p), 1 << 20, malloc_policy::HUGE_FIRST)
        .unwrap();
    (rt, p)
}

/// Exports the 1 MiB at `p` with no pid whitelist; the key.
fn export_to_any_process(rt: &Runtime, p: Addr) -> String {
    let mut key = String::new();
    rt.ipc_mem_get_export_key(
        p,
        1 << 20,
        Some(&mut key),
        65,
        IPC_MEM_EXPORT_NO_PID_VALIDATION,
    )
    .unwrap();
    key
}

#[test]
fn the_export_checks_come_in_the_runtimes_order_with_its_codes() {
    let (rt, p) = setup("Ascend910B1");
    let mut key = String::new();
    let codes = |r: ascend_rt::AclResult<()>| {
        let e = r.unwrap_err();
        (e.code(), e.msg_code)
    };
    let mb = 1 << 20;
    assert_eq!(
        codes(rt.ipc_mem_get_export_key(Addr::NULL, 0, None, 0, 9)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(
        codes(rt.ipc_mem_get_export_key(p, 0, None, 0, 9)),
        (100000, Some(MsgCode::EH0008)),
        "key NULL next"
    );
    assert_eq!(
        codes(rt.ipc_mem_get_export_key(p, 0, Some(&mut key), 0, 9)),
        (107000, Some(MsgCode::EE1003)),
        "size 0"
    );
    assert_eq!(
        codes(rt.ipc_mem_get_export_key(p, mb, Some(&mut key), 1 << 32, 9)),
        (107000, Some(MsgCode::EE1003)),
        "len 0 as 32 bits"
    );
    assert_eq!(
        codes(rt.ipc_mem_get_export_key(p, mb, Some(&mut key), 65, 2)),
        (107000, Some(MsgCode::EE1003)),
        "flags above 1"
    );
    // The driver's part: a pointer inside the allocation, a part page, a short key buffer.
    for (at, size, len) in [(p.offset(4096), 4096, 65), (p, 1000, 65), (p, mb, 64)] {
        let e = rt
            .ipc_mem_get_export_key(at, size, Some(&mut key), len, 0)
            .unwrap_err();
        assert_eq!(e.code(), 107000, "{e}");
    }
    rt.ipc_mem_get_export_key(p, mb, Some(&mut key), IPC_KEY_LEN, 0)
        .unwrap();
    assert!(!key.is_empty() && key.len() < IPC_KEY_LEN, "{key}");

    // No context.
    let other = Runtime::sim("Ascend910B1").unwrap();
    assert_eq!(
        codes(other.ipc_mem_get_export_key(p, mb, Some(&mut key), 65, 0)),
        (107002, Some(MsgCode::EE1018))
    );
}

#[test]
fn a_chip_without_ipc_memory_refuses_it_and_only_close_and_set_pid_say_so() {
    let (rt, p) = setup("Ascend310B1");
    let mut key = String::new();
    let e = rt
        .ipc_mem_get_export_key(p, 1 << 20, Some(&mut key), 65, 0)
        .unwrap_err();
    assert_eq!((e.code(), e.msg_code), (207000, None));
    let mut q = Addr::NULL;
    let e = rt
        .ipc_mem_import_by_key(Some(&mut q), Some("k"), 0)
        .unwrap_err();
    assert_eq!((e.code(), e.msg_code), (207000, None));
    let e = rt
        .ipc_mem_set_import_pid(Some("k"), Some(&[1]), 1)
        .unwrap_err();
    assert_eq!((e.code(), e.msg_code), (207000, Some(MsgCode::EE1005)));
    assert_eq!(rt.ipc_mem_close(Some("k")).unwrap_err().code(), 207000);
}

#[test]
fn an_import_in_the_exporting_process_is_its_own_memory_and_the_exporters_close_ends_the_key() {
    let (rt, p) = setup("Ascend950PR_9599");
    let key = export_to_any_process(&rt, p);
    let mut q = Addr::NULL;
    rt.ipc_mem_import_by_key(Some(&mut q), Some(&key), 0)
        .unwrap();
    assert_eq!(q, p);
    rt.value_write(q, 5, 0, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    rt.ipc_mem_close(Some(&key)).unwrap(); // the import
    rt.ipc_mem_close(Some(&key)).unwrap(); // the key
    let e = rt
        .ipc_mem_import_by_key(Some(&mut q), Some(&key), 0)
        .unwrap_err();
    assert_eq!(e.code(), 107000, "a closed key: {e}");
    assert_eq!(rt.ipc_mem_close(Some(&key)).unwrap_err().code(), 107000);
    // The memory stays the process's own.
    rt.free(p).unwrap();
}

#[test]
fn set_import_pid_and_import_check_their_arguments_first() {
    let (rt, _p) = setup("Ascend910B1");
    assert_eq!(
        rt.ipc_mem_set_import_pid(None, None, 0).unwrap_err().code(),
        100000
    );
    let e = rt
        .ipc_mem_set_import_pid(Some("k"), Some(&[1]), 0)
        .unwrap_err();
    assert_eq!((e.code(), e.msg_code), (107000, Some(MsgCode::EE1003)));
    let e = rt
        .ipc_mem_set_import_pid(Some("k"), Some(&[1]), 1 << 31)
        .unwrap_err();
    assert_eq!(
        e.code(),
        107000,
        "num above i32::MAX is negative as 32 bits"
    );
    let mut q = Addr::NULL;
    assert_eq!(
        rt.ipc_mem_import_by_key(Some(&mut q), None, 0)
            .unwrap_err()
            .code(),
        100000
    );
    let e = rt
        .ipc_mem_import_by_key(Some(&mut q), Some("k"), 2)
        .unwrap_err();
    assert_eq!((e.code(), e.msg_code), (107000, Some(MsgCode::EE1003)));
    let mut pid = 0;
    rt.device_get_bare_tgid(Some(&mut pid)).unwrap();
    assert_eq!(pid as u32, std::process::id());
    assert_eq!(rt.device_get_bare_tgid(None).unwrap_err().code(), 100000);
}

#[test]
fn memory_freed_by_its_exporter_while_an_import_is_open_lives_until_the_import_closes() {
    let (rt, p) = setup("Ascend910B1");
    let key = export_to_any_process(&rt, p);
    let mut q = Addr::NULL;
    rt.ipc_mem_import_by_key(Some(&mut q), Some(&key), 0)
        .unwrap();
    // Close that import; another, then the exporter's free: the memory stays for it.
    rt.ipc_mem_close(Some(&key)).unwrap();
    rt.ipc_mem_import_by_key(Some(&mut q), Some(&key), 0)
        .unwrap();
    rt.free(p).unwrap();
    let mut other = Addr::NULL;
    rt.malloc(Some(&mut other), 1 << 20, malloc_policy::HUGE_FIRST)
        .unwrap();
    assert_ne!(
        other, p,
        "the imported memory is not handed out again while imported"
    );
    let e = rt
        .ipc_mem_import_by_key(Some(&mut q), Some(&key), 0)
        .unwrap_err();
    assert_eq!(e.code(), 107000, "no new import of freed memory: {e}");
}

#[test]
fn the_link_attribute_is_checked_in_the_runtimes_order_and_taken_where_the_chip_has_links() {
    let codes = |r: ascend_rt::AclResult<()>| {
        let e = r.unwrap_err();
        (e.code(), e.msg_code)
    };
    let rt = Runtime::sim("Ascend910_9391").unwrap();
    assert_eq!(
        codes(rt.ipc_mem_set_attr(None, 9, 9)),
        (107000, Some(MsgCode::EE1004))
    );
    assert_eq!(
        codes(rt.ipc_mem_set_attr(Some("k"), 1, 9)),
        (107000, Some(MsgCode::EE1003)),
        "the type, then the value"
    );
    assert_eq!(
        codes(rt.ipc_mem_set_attr(Some("k"), 0, 4)),
        (107000, Some(MsgCode::EE1003))
    );
    assert_eq!(codes(rt.ipc_mem_set_attr(Some("k"), 0, 1)).0, 107002);
    rt.set_device(0).unwrap();
    rt.ipc_mem_set_attr(Some("k"), 0, 1).unwrap();
    // A2 shares memory in the flat address mode; the 950 family has UB routes only.
    let (a2, _) = setup("Ascend910B1");
    let e = a2.ipc_mem_set_attr(Some("k"), 0, 0).unwrap_err();
    assert_eq!(e.code(), 207000, "{e}");
    let (d, _) = setup("Ascend950PR_9599");
    assert_eq!(
        d.ipc_mem_set_attr(Some("k"), 0, 1).unwrap_err().code(),
        207021
    );
    d.ipc_mem_set_attr(Some("k"), 0, 3).unwrap();
}
