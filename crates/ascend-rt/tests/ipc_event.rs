//! IPC events in one process: the runtime's checks in its order, and a handle opened as an
//! event of the process's own. Across processes: tests/shared_device_ipc.rs.

use ascend_rt::raw_types::*;
use ascend_rt::{MsgCode, Runtime, IPC_EVENT_HANDLE_SIZE};

#[test]
fn the_handle_checks_come_in_the_runtimes_order_and_an_opened_handle_is_the_same_event() {
    let rt = Runtime::sim("Ascend910B1").unwrap();
    rt.set_device(0).unwrap();
    let mut handle = [0u8; IPC_EVENT_HANDLE_SIZE];
    let mut plain = RawEvent::default();
    rt.create_event(Some(&mut plain)).unwrap();
    assert_eq!(
        rt.ipc_get_event_handle(RawEvent::default(), None)
            .unwrap_err()
            .code(),
        100000
    );
    assert_eq!(
        rt.ipc_get_event_handle(RawEvent(0xdead), Some(&mut handle))
            .unwrap_err()
            .code(),
        107017
    );
    let e = rt
        .ipc_get_event_handle(plain, Some(&mut handle))
        .unwrap_err();
    assert_eq!(
        (e.code(), e.msg_code),
        (107000, Some(MsgCode::EE1006)),
        "{e}"
    );

    let mut ipc = RawEvent::default();
    rt.create_event_ex_with_flag(Some(&mut ipc), event_flag::IPC)
        .unwrap();
    handle[8..].fill(0xab);
    rt.ipc_get_event_handle(ipc, Some(&mut handle)).unwrap();
    assert!(
        handle[..8].iter().any(|&b| b != 0),
        "the first 8 bytes are the handle"
    );
    assert!(
        handle[8..].iter().all(|&b| b == 0xab),
        "the rest is left as it was"
    );
    let mut opened = RawEvent::default();
    rt.ipc_open_event_handle(&handle, Some(&mut opened))
        .unwrap();
    assert_ne!(opened, ipc, "an event of its own");
    rt.record_event(opened, RawStream::NULL).unwrap();
    rt.synchronize_event(ipc).unwrap();
    let mut status = 0;
    rt.query_event_status(ipc, Some(&mut status)).unwrap();
    assert_eq!(status, 1);
    rt.destroy_event(opened).unwrap();
    rt.destroy_event(ipc).unwrap();
    let e = rt
        .ipc_open_event_handle(&handle, Some(&mut opened))
        .unwrap_err();
    assert_eq!(e.code(), 107000, "the event was destroyed: {e}");
    assert_eq!(
        rt.ipc_open_event_handle(&handle, None).unwrap_err().code(),
        100000
    );
}

#[test]
fn a_chip_without_ipc_events_refuses_the_handle_calls() {
    let rt = Runtime::sim("Ascend310P3").unwrap();
    rt.set_device(0).unwrap();
    let mut handle = [0u8; IPC_EVENT_HANDLE_SIZE];
    let mut e = RawEvent::default();
    rt.create_event(Some(&mut e)).unwrap();
    assert_eq!(
        rt.ipc_get_event_handle(e, Some(&mut handle))
            .unwrap_err()
            .code(),
        207000
    );
    assert_eq!(
        rt.ipc_open_event_handle(&handle, Some(&mut e))
            .unwrap_err()
            .code(),
        207000
    );
}

#[test]
fn a_handle_is_never_handed_out_twice_and_the_older_query_refuses_an_ipc_event() {
    let rt = Runtime::sim("Ascend910B1").unwrap();
    rt.set_device(0).unwrap();
    let make = || {
        let mut e = RawEvent::default();
        rt.create_event_ex_with_flag(Some(&mut e), event_flag::IPC)
            .unwrap();
        let mut h = [0u8; IPC_EVENT_HANDLE_SIZE];
        rt.ipc_get_event_handle(e, Some(&mut h)).unwrap();
        (e, h)
    };
    let (e1, _) = make();
    let (_e2, h2) = make();
    rt.destroy_event(e1).unwrap();
    let (_e3, h3) = make();
    assert_ne!(h2[..8], h3[..8], "a new event gets a handle of its own");
    let mut status = 0;
    assert_eq!(
        rt.query_event(_e3, Some(&mut status)).unwrap_err().code(),
        207000
    );
}
