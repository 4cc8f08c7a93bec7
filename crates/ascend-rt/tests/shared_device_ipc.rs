//! IPC memory, notifies and events between processes on the shared device: a value wait in one
//! process released by another's value write through imported memory, a notify recorded by an
//! importer, an IPC event waited for in another process, and one that outlives its creator.

mod service_children;

use std::io::Write;
use std::time::Duration;

use ascend_rt::raw_types::*;
use ascend_rt::Runtime;

use service_children::*;

/// The clients' roles: child runs of this test binary.
#[test]
fn child_process() {
    play_role();
}

#[test]
fn a_value_wait_in_one_process_is_released_by_a_value_write_another_makes_through_ipc_memory() {
    let (path, rt) = on_new_service("ipc");
    let mut flag = Addr::NULL;
    rt.malloc(Some(&mut flag), 4096, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(flag, 4096, 0, 4096).unwrap();
    let mut key = String::new();
    rt.ipc_mem_get_export_key(flag, 4096, Some(&mut key), 65, 0)
        .unwrap();
    // This process's stream waits for the other process's write.
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    rt.value_wait(flag, 123, 1, s).unwrap();

    // A process not on the key's list is refused.
    let mut outsider = child("refused", &path);
    writeln!(outsider.stdin.take().unwrap(), "{key}").unwrap();
    let out = outsider.wait_with_output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("refused with 207006"),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    let mut writer = child("import", &path);
    rt.ipc_mem_set_import_pid(Some(&key), Some(&[writer.id() as i32]), 1)
        .unwrap();
    writeln!(writer.stdin.take().unwrap(), "{key}").unwrap();
    rt.synchronize_stream(s).unwrap(); // released by the other process's value write
    assert_eq!(read_u64(&rt, flag), 123);
    let out = writer.wait_with_output().unwrap();
    assert!(
        out.status.success()
            && String::from_utf8_lossy(&out.stdout).contains("wrote 123 through the import"),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    rt.ipc_mem_close(Some(&key)).unwrap();
}

#[test]
fn a_notify_wait_in_one_process_is_released_by_a_record_of_the_imported_notify_in_another() {
    let path = socket("notify");
    start_service(&path);
    let rt = Runtime::shared_device(&path).unwrap();
    // This process creates the notify on device 0; the recorder uses device 1.
    rt.set_device(0).unwrap();
    let mut n = RawNotify::default();
    rt.create_notify(Some(&mut n), 0).unwrap();
    let mut key = String::new();
    rt.notify_get_export_key(n, Some(&mut key), 65, 0).unwrap();
    let e = rt
        .notify_get_export_key(n, Some(&mut String::new()), 65, 0)
        .unwrap_err();
    assert_eq!(e.code(), 507000, "a notify has one key: {e}");
    let mut done = Addr::NULL;
    rt.malloc(Some(&mut done), 8, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(done, 8, 0, 8).unwrap();
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    rt.wait_and_reset_notify(n, s, 0).unwrap();
    rt.value_write(done, 1, 0, s).unwrap();

    let mut recorder = child("record", &path);
    rt.notify_set_import_pid(n, Some(&[recorder.id() as i32]), 1)
        .unwrap();
    writeln!(recorder.stdin.take().unwrap(), "{key}").unwrap();
    rt.synchronize_stream(s).unwrap(); // released by the other process's record
    assert_eq!(read_u64(&rt, done), 1);
    let out = recorder.wait_with_output().unwrap();
    assert!(
        out.status.success()
            && String::from_utf8_lossy(&out.stdout).contains("recorded the imported notify"),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    rt.destroy_notify(n).unwrap();
}

#[test]
fn a_stream_in_one_process_waits_for_an_ipc_event_recorded_in_another() {
    let (path, rt) = on_new_service("event");
    let mut e = RawEvent::default();
    rt.create_event_ex_with_flag(Some(&mut e), event_flag::IPC)
        .unwrap();
    let mut handle = [0u8; ascend_rt::IPC_EVENT_HANDLE_SIZE];
    rt.ipc_get_event_handle(e, Some(&mut handle)).unwrap();
    // The record is queued behind a value wait this process releases later.
    let mut flag = Addr::NULL;
    rt.malloc(Some(&mut flag), 8, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(flag, 8, 0, 8).unwrap();
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    rt.value_wait(flag, 1, 1, s).unwrap();
    rt.record_event(e, s).unwrap();

    let mut waiter = child("open_event", &path);
    let mut first = [0u8; 8];
    first.copy_from_slice(&handle[..8]);
    writeln!(
        waiter.stdin.take().unwrap(),
        "{:x}",
        u64::from_ne_bytes(first)
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        waiter.try_wait().unwrap().is_none(),
        "the other process waits for the record"
    );
    rt.value_write(flag, 1, 0, RawStream::NULL).unwrap();
    rt.synchronize_stream(s).unwrap();
    let out = waiter.wait_with_output().unwrap();
    assert!(
        out.status.success()
            && String::from_utf8_lossy(&out.stdout)
                .contains("the opened event completed: status 1"),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    rt.destroy_event(e).unwrap();
}

#[test]
fn an_opened_ipc_event_stays_usable_after_its_creator_is_gone() {
    let path = socket("event-creator");
    start_service(&path);
    let mut creator = child("event_creator", &path);
    let mut out = std::io::BufReader::new(creator.stdout.take().unwrap());
    let mut line = String::new();
    // libtest's own words may lead the line.
    while !line.contains("HANDLE ") {
        line.clear();
        assert!(std::io::BufRead::read_line(&mut out, &mut line).unwrap() > 0);
    }
    let hex = line.split("HANDLE ").nth(1).unwrap().trim();
    let h = u64::from_str_radix(hex, 16).unwrap();
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(0).unwrap();
    let mut handle = [0u8; ascend_rt::IPC_EVENT_HANDLE_SIZE];
    handle[..8].copy_from_slice(&h.to_ne_bytes());
    let mut e = RawEvent::default();
    rt.ipc_open_event_handle(&handle, Some(&mut e)).unwrap();
    creator.kill().unwrap();
    creator.wait().unwrap();
    until(&path, "the creator released", |st| {
        st.iter().all(|p| p.pid != creator.id())
    });
    rt.record_event(e, RawStream::NULL).unwrap();
    rt.synchronize_event(e).unwrap();
    let mut status = 0;
    rt.query_event_status(e, Some(&mut status)).unwrap();
    assert_eq!(status, 1);
    rt.destroy_event(e).unwrap();
    // The handle went with the last opened event.
    let e2 = rt.ipc_open_event_handle(&handle, Some(&mut e)).unwrap_err();
    assert_eq!(e2.code(), 107000, "{e2}");
}
