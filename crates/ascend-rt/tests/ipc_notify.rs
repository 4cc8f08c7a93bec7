//! IPC notifies in one process: the runtime's checks in its order and the driver's part.
//! Across processes: tests/shared_device_ipc.rs.

use ascend_rt::raw_types::*;
use ascend_rt::{MsgCode, Runtime, IPC_NOTIFY_EXPORT_NO_PID_VALIDATION};

fn setup() -> (Runtime, RawNotify) {
    let rt = Runtime::sim("Ascend910B1").unwrap();
    rt.set_device(0).unwrap();
    let mut n = RawNotify::default();
    rt.create_notify(Some(&mut n), 0).unwrap();
    (rt, n)
}

#[test]
fn the_notify_export_checks_come_in_the_runtimes_order() {
    let (rt, n) = setup();
    let mut key = String::new();
    let code = |r: ascend_rt::AclResult<()>| {
        let e = r.unwrap_err();
        (e.code(), e.msg_code)
    };
    assert_eq!(
        code(rt.notify_get_export_key(RawNotify::default(), None, 0, 9)),
        (100000, Some(MsgCode::EH0008))
    );
    assert_eq!(
        code(rt.notify_get_export_key(RawNotify(0xdead), Some(&mut key), 0, 9)),
        (107017, Some(MsgCode::EE1017)),
        "the handle before the length"
    );
    assert_eq!(
        code(rt.notify_get_export_key(n, Some(&mut key), 0, 9)),
        (107000, Some(MsgCode::EE1003))
    );
    assert_eq!(
        code(rt.notify_get_export_key(n, Some(&mut key), 65, 1)),
        (107000, Some(MsgCode::EE1003)),
        "flag 1 is memory's, not a notify's"
    );
    assert_eq!(
        rt.notify_get_export_key(n, Some(&mut key), 64, 0)
            .unwrap_err()
            .code(),
        107000
    );
    rt.notify_get_export_key(n, Some(&mut key), 65, IPC_NOTIFY_EXPORT_NO_PID_VALIDATION)
        .unwrap();
    // Exported without a whitelist: there is no list to set.
    assert_eq!(
        rt.notify_set_import_pid(n, Some(&[1]), 1)
            .unwrap_err()
            .code(),
        207006
    );
}

#[test]
fn a_notify_import_checks_its_flags_and_the_kind_of_its_key() {
    let (rt, n) = setup();
    let mut m = RawNotify::default();
    let e = rt
        .notify_import_by_key(Some(&mut m), Some("k"), 4)
        .unwrap_err();
    assert_eq!((e.code(), e.msg_code), (107000, Some(MsgCode::EE1003)));
    assert_eq!(
        rt.notify_import_by_key(Some(&mut m), Some("k"), 0)
            .unwrap_err()
            .code(),
        107000,
        "an unknown key"
    );
    let mut p = Addr::NULL;
    rt.malloc(Some(&mut p), 4096, malloc_policy::NORMAL_ONLY)
        .unwrap();
    let mut mem_key = String::new();
    rt.ipc_mem_get_export_key(p, 4096, Some(&mut mem_key), 65, 1)
        .unwrap();
    assert_eq!(
        rt.notify_import_by_key(Some(&mut m), Some(&mem_key), 0)
            .unwrap_err()
            .code(),
        207009,
        "a key of memory"
    );
    assert_eq!(
        rt.notify_set_import_pid(n, Some(&[1]), 1)
            .unwrap_err()
            .code(),
        107000,
        "never exported"
    );
    assert_eq!(
        rt.notify_set_import_pid(n, Some(&[1]), 0)
            .unwrap_err()
            .code(),
        107000
    );
}

#[test]
fn the_memory_calls_do_not_take_a_notify_key() {
    let (rt, n) = setup();
    let mut key = String::new();
    rt.notify_get_export_key(n, Some(&mut key), 65, 0).unwrap();
    assert_eq!(
        rt.ipc_mem_set_import_pid(Some(&key), Some(&[1]), 1)
            .unwrap_err()
            .code(),
        107000
    );
    assert_eq!(rt.ipc_mem_close(Some(&key)).unwrap_err().code(), 107000);
    // The notify's own call still sets its list.
    rt.notify_set_import_pid(n, Some(&[1]), 1).unwrap();
}
