//! One simulated device shared by several processes through the device service: each process
//! uses it as its own, what a process owns is released when it goes (killed or not), and the
//! others go on. The clients are child runs of this test binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ascend_rt::raw_types::*;
use ascend_rt::{device_service, MemDst, MemSrc, Runtime};

/// Set in a child's environment: which part it plays, and the socket.
const ROLE: &str = "ASCEND_RT_SHARED_DEVICE_ROLE";
const SOCKET: &str = "ASCEND_RT_SHARED_DEVICE_SOCKET";

fn socket(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shared-device-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("device.sock")
}

/// A new service at a socket named `name`, and this process's runtime on its device 0.
fn on_new_service(name: &str) -> (PathBuf, Runtime) {
    let path = socket(name);
    start_service(&path);
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(0).unwrap();
    (path, rt)
}

fn start_service(path: &Path) {
    let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
    device_service::spawn(path, chip, Default::default()).unwrap();
}

fn child(role: &str, path: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ROLE, role)
        .env(SOCKET, path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn read_u64(rt: &Runtime, addr: Addr) -> u64 {
    let mut b = [0u8; 8];
    rt.memcpy(
        MemDst::Host(&mut b),
        8,
        MemSrc::Addr(addr),
        8,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    u64::from_le_bytes(b)
}

/// Waits until `done` holds of the service's status, or 10 s.
fn until(path: &Path, what: &str, done: impl Fn(&[device_service::ProcessStatus]) -> bool) {
    let start = Instant::now();
    loop {
        let st = device_service::status(path).unwrap();
        if done(&st) {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "{what}: {st:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A client process: `hold` allocates, creates streams and queues a wait that never ends,
/// then says so and sleeps until killed; `work` writes a value and reads it back.
#[test]
fn child_process() {
    let (Ok(role), Ok(path)) = (std::env::var(ROLE), std::env::var(SOCKET)) else {
        return;
    };
    if role == "serve" {
        let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
        device_service::serve(Path::new(&path), chip, Default::default()).unwrap();
        return;
    }
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(if role == "record" { 1 } else { 0 }).unwrap();
    let mut a = Addr::NULL;
    rt.malloc(Some(&mut a), 1 << 20, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(a, 8, 0, 8).unwrap();
    match role.as_str() {
        "import" => {
            // The exporter's key comes on stdin once it has listed this process.
            let mut key = String::new();
            std::io::stdin().read_line(&mut key).unwrap();
            let key = key.trim();
            let mut shared = Addr::NULL;
            rt.ipc_mem_import_by_key(Some(&mut shared), Some(key), 0)
                .unwrap();
            rt.value_write(shared, 123, 0, RawStream::NULL).unwrap();
            rt.synchronize_stream(RawStream::NULL).unwrap();
            rt.ipc_mem_close(Some(key)).unwrap();
            println!("wrote 123 through the import");
        }
        "record" => {
            // Imports the notify whose key comes on stdin and records it.
            let mut key = String::new();
            std::io::stdin().read_line(&mut key).unwrap();
            let mut n = RawNotify::default();
            rt.notify_import_by_key(Some(&mut n), Some(key.trim()), 0)
                .unwrap();
            // Only the creator's device may wait on it.
            let e = rt.wait_and_reset_notify(n, RawStream::NULL, 0).unwrap_err();
            assert_eq!(e.code(), 107000, "{e}");
            rt.record_notify(n, RawStream::NULL).unwrap();
            rt.synchronize_stream(RawStream::NULL).unwrap();
            rt.destroy_notify(n).unwrap();
            println!("recorded the imported notify");
        }
        "open_event" => {
            // Opens the IPC event whose handle comes on stdin (hex), waits for it on a stream
            // and says when its wait is over.
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).unwrap();
            let h = u64::from_str_radix(line.trim(), 16).unwrap();
            let mut handle = [0u8; ascend_rt::IPC_EVENT_HANDLE_SIZE];
            handle[..8].copy_from_slice(&h.to_ne_bytes());
            let mut e = RawEvent::default();
            rt.ipc_open_event_handle(&handle, Some(&mut e)).unwrap();
            let mut s = RawStream::NULL;
            rt.create_stream(Some(&mut s)).unwrap();
            rt.stream_wait_event(s, e).unwrap();
            rt.synchronize_stream(s).unwrap();
            let mut status = 0;
            rt.query_event_status(e, Some(&mut status)).unwrap();
            println!("the opened event completed: status {status}");
            rt.destroy_event(e).unwrap();
        }
        "poll" => {
            // Imports the key from stdin and launches a kernel that polls its first word until
            // it holds 9, then stores 10 in its second.
            let mut key = String::new();
            std::io::stdin().read_line(&mut key).unwrap();
            let mut shared = Addr::NULL;
            rt.ipc_mem_import_by_key(Some(&mut shared), Some(key.trim()), 0)
                .unwrap();
            let at = shared.0;
            let k = ascend_rt::Kernel::new("poll", move |c: &mut dyn ascend_rt::KernelOps| {
                loop {
                    c.dcci(at, false, 2);
                    if c.load(at, 8) == 9 {
                        break;
                    }
                    c.spin(1_000);
                }
                c.store(at + 8, 8, 10);
                c.dcci(at + 8, false, 2);
            });
            rt.launch_kernel(k, 1, RawStream::NULL).unwrap();
            println!("polling");
            rt.synchronize_stream(RawStream::NULL).unwrap();
            rt.ipc_mem_close(Some(key.trim())).unwrap();
            println!("the kernel saw 9");
        }
        "spin" => {
            let k =
                ascend_rt::Kernel::new("spin_forever", |c: &mut dyn ascend_rt::KernelOps| loop {
                    c.spin(1_000);
                });
            rt.launch_kernel(k, 2, RawStream::NULL).unwrap();
            println!("spinning");
            rt.synchronize_stream(RawStream::NULL).unwrap();
        }
        "event_creator" => {
            let mut e = RawEvent::default();
            rt.create_event_ex_with_flag(Some(&mut e), event_flag::IPC)
                .unwrap();
            let mut h = [0u8; ascend_rt::IPC_EVENT_HANDLE_SIZE];
            rt.ipc_get_event_handle(e, Some(&mut h)).unwrap();
            let mut first = [0u8; 8];
            first.copy_from_slice(&h[..8]);
            println!("HANDLE {:x}", u64::from_ne_bytes(first));
            std::thread::sleep(Duration::from_secs(60));
        }
        "block" => {
            // A thread blocked for good in a synchronize when the process is killed.
            let mut s = RawStream::NULL;
            rt.create_stream(Some(&mut s)).unwrap();
            rt.value_wait(a, 1, 0, s).unwrap();
            println!("blocking");
            let _ = rt.synchronize_stream(s);
        }
        "phys_import" | "phys_hold" => {
            // Imports the shareable handle from stdin (hex), maps it in a range of its own,
            // reads the exporter's first word, and writes 456 in the second (`phys_hold`: then
            // says so and sleeps until killed, mapping held).
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).unwrap();
            let sh = u64::from_str_radix(line.trim(), 16).unwrap();
            let mut h = RawPhysical::NULL;
            if let Err(e) = rt.mem_import_from_shareable_handle(sh, 0, Some(&mut h)) {
                println!("refused with {}: {e}", e.code());
                return;
            }
            let mut va = Addr::NULL;
            rt.reserve_mem_address(Some(&mut va), 2 << 20, 0, Addr::NULL, 0)
                .unwrap();
            rt.map_mem(va, 2 << 20, 0, h, 0).unwrap();
            println!("read {}", read_u64(&rt, va));
            rt.value_write(Addr(va.0 + 8), 456, 0, RawStream::NULL)
                .unwrap();
            rt.synchronize_stream(RawStream::NULL).unwrap();
            if role == "phys_hold" {
                println!("mapped");
                std::thread::sleep(Duration::from_secs(60));
            }
            rt.unmap_mem(va).unwrap();
            rt.release_mem_address(va).unwrap();
            rt.free_physical(h).unwrap();
            println!("released");
        }
        "invalidate" | "write_back_then_invalidate" => {
            // Imports the key from stdin and invalidates its first line in the shared L2
            // (after writing it back, for `write_back_then_invalidate`).
            let mut key = String::new();
            std::io::stdin().read_line(&mut key).unwrap();
            let mut shared = Addr::NULL;
            rt.ipc_mem_import_by_key(Some(&mut shared), Some(key.trim()), 0)
                .unwrap();
            if role == "write_back_then_invalidate" {
                rt.cmo_async(shared, 512, cmo_type::WRITEBACK, RawStream::NULL)
                    .unwrap();
            }
            rt.cmo_async(shared, 512, cmo_type::INVALID, RawStream::NULL)
                .unwrap();
            rt.synchronize_stream(RawStream::NULL).unwrap();
            println!("invalidated");
        }
        "fill" => {
            // Imports the key from stdin, fills its first word on a stream of its own and
            // waits for that, says so, then waits for a line before it ends.
            let mut key = String::new();
            std::io::stdin().read_line(&mut key).unwrap();
            let mut shared = Addr::NULL;
            rt.ipc_mem_import_by_key(Some(&mut shared), Some(key.trim()), 0)
                .unwrap();
            let mut s = RawStream::NULL;
            rt.create_stream(Some(&mut s)).unwrap();
            rt.memset_async(shared, 8, 7, 8, s).unwrap();
            rt.synchronize_stream(s).unwrap();
            println!("filled");
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).unwrap();
        }
        "refused" => {
            let mut key = String::new();
            std::io::stdin().read_line(&mut key).unwrap();
            let mut shared = Addr::NULL;
            let e = rt
                .ipc_mem_import_by_key(Some(&mut shared), Some(key.trim()), 0)
                .unwrap_err();
            println!("refused with {}", e.code());
        }
        "hold" => {
            let mut s = RawStream::NULL;
            rt.create_stream(Some(&mut s)).unwrap();
            rt.value_wait(a, 1, 0, s).unwrap(); // never released
            let mut e = RawEvent::default();
            rt.create_event(Some(&mut e)).unwrap();
            println!("holding");
            std::thread::sleep(Duration::from_secs(60));
        }
        _ => {
            rt.value_write(a, 41, 0, RawStream::NULL).unwrap();
            rt.synchronize_stream(RawStream::NULL).unwrap();
            assert_eq!(read_u64(&rt, a), 41);
            println!("worked");
        }
    }
}

#[test]
fn a_killed_process_leaves_nothing_behind_and_the_others_go_on() {
    let path = socket("killed");
    start_service(&path);
    let mut holder = child("hold", &path);
    until(&path, "the holder's objects", |st| {
        st.iter()
            .any(|p| p.pid == holder.id() && p.streams == 1 && p.events == 1 && p.allocations == 1)
    });

    // Another process uses the device meanwhile.
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(0).unwrap();
    let mut mine = Addr::NULL;
    rt.malloc(Some(&mut mine), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();

    holder.kill().unwrap();
    holder.wait().unwrap();
    until(&path, "the holder released", |st| {
        st.iter().all(|p| p.pid != holder.id())
    });

    // This process's work goes on, and a new process runs to completion.
    rt.value_write(mine, 7, 0, RawStream::NULL).unwrap();
    rt.synchronize_device().unwrap();
    assert_eq!(read_u64(&rt, mine), 7);
    let worker = child("work", &path).wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&worker.stdout);
    assert!(
        worker.status.success() && out.contains("worked"),
        "{out}\n{}",
        String::from_utf8_lossy(&worker.stderr)
    );
    // The service sees the worker's connections close a moment after it exits.
    until(&path, "only this process is left", |st| {
        st.len() == 1 && (st[0].pid, st[0].allocations) == (std::process::id(), 1)
    });
}

#[test]
fn a_process_s_device_synchronize_waits_for_its_own_streams_not_another_process_s() {
    let path = socket("sync");
    start_service(&path);
    let mut holder = child("hold", &path);
    until(&path, "the holder's wait", |st| {
        st.iter().any(|p| p.pid == holder.id() && p.streams == 1)
    });
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(0).unwrap();
    // The holder's stream never completes; this process's synchronize returns all the same.
    rt.synchronize_device().unwrap();
    holder.kill().unwrap();
    holder.wait().unwrap();
}

#[test]
fn a_call_after_the_service_is_gone_fails_with_a_clear_error() {
    let path = socket("gone");
    let e = Runtime::shared_device(&path).unwrap_err();
    assert!(
        e.to_string().contains("shared device service") && e.to_string().contains("not there"),
        "{e}"
    );
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
fn a_kernel_runs_on_the_shared_device_its_body_in_the_launching_process() {
    use ascend_rt::{Kernel, KernelOps};
    let (_path, rt) = on_new_service("kernel");
    let mut out = Addr::NULL;
    rt.malloc(Some(&mut out), 64 * 4, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(out, 256, 0, 256).unwrap();
    let at = out.0;
    let here = std::process::id();
    let k = Kernel::new("squares", move |c: &mut dyn KernelOps| {
        assert_eq!(
            std::process::id(),
            here,
            "the body runs in the launching process"
        );
        let i = u64::from(c.block_idx());
        c.store(at + 64 * i, 8, i * i);
        c.dcci(at + 64 * i, false, 2);
    });
    rt.launch_kernel(k, 4, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    for i in 0..4u64 {
        assert_eq!(read_u64(&rt, out.offset(64 * i)), i * i);
    }
    // A body that panics faults its stream with the panic's words.
    let p = Kernel::new("gives_up", |_: &mut dyn KernelOps| panic!("block gave up"));
    rt.launch_kernel(p, 2, RawStream::NULL).unwrap();
    let e = rt.synchronize_stream(RawStream::NULL).unwrap_err();
    assert!(e.to_string().contains("block gave up"), "{e}");
}

#[test]
fn a_kernel_in_one_process_polls_memory_another_process_writes() {
    let (path, rt) = on_new_service("poll");
    let mut page = Addr::NULL;
    rt.malloc(Some(&mut page), 4096, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(page, 4096, 0, 4096).unwrap();
    let mut key = String::new();
    rt.ipc_mem_get_export_key(page, 4096, Some(&mut key), 65, 1)
        .unwrap();
    let mut poller = child("poll", &path);
    writeln!(poller.stdin.take().unwrap(), "{key}").unwrap();
    let mut out = std::io::BufReader::new(poller.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("polling") {
        line.clear();
        assert!(std::io::BufRead::read_line(&mut out, &mut line).unwrap() > 0);
    }
    rt.value_write(page, 9, 0, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let st = poller.wait().unwrap();
    assert!(st.success() && rest.contains("the kernel saw 9"), "{rest}");
    assert_eq!(
        read_u64(&rt, page.offset(8)),
        10,
        "the kernel's store reached memory"
    );
    rt.ipc_mem_close(Some(&key)).unwrap();
}

#[test]
fn a_process_killed_while_its_kernel_runs_leaves_the_device_to_the_others() {
    use ascend_rt::{Kernel, KernelOps};
    let path = socket("killed-kernel");
    start_service(&path);
    let mut spinner = child("spin", &path);
    let mut out = std::io::BufReader::new(spinner.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("spinning") {
        line.clear();
        assert!(std::io::BufRead::read_line(&mut out, &mut line).unwrap() > 0);
    }
    std::thread::sleep(Duration::from_millis(50));
    spinner.kill().unwrap();
    spinner.wait().unwrap();
    until(&path, "the spinner released", |st| {
        st.iter().all(|p| p.pid != spinner.id())
    });
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(0).unwrap();
    let mut out = Addr::NULL;
    rt.malloc(Some(&mut out), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    let at = out.0;
    let k = Kernel::new("after", move |c: &mut dyn KernelOps| {
        c.store(at, 8, 5);
        c.dcci(at, false, 2);
    });
    rt.launch_kernel(k, 1, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    assert_eq!(read_u64(&rt, out), 5);
}

#[test]
fn a_process_killed_while_a_thread_blocks_in_a_call_is_released_at_once() {
    let path = socket("blocked");
    start_service(&path);
    let mut blocked = child("block", &path);
    let mut out = std::io::BufReader::new(blocked.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("blocking") {
        line.clear();
        assert!(std::io::BufRead::read_line(&mut out, &mut line).unwrap() > 0);
    }
    std::thread::sleep(Duration::from_millis(50));
    blocked.kill().unwrap();
    blocked.wait().unwrap();
    until(&path, "the blocked process released", |st| {
        st.iter().all(|p| p.pid != blocked.id())
    });
}

#[test]
fn a_client_whose_service_ended_fails_every_later_call_even_with_a_new_service_at_the_path() {
    let path = socket("restart");
    let wait_for = |p: &Path| {
        let start = Instant::now();
        while std::os::unix::net::UnixStream::connect(p).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no service came up"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    let mut first = child("serve", &path);
    wait_for(&path);
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(0).unwrap();
    let mut a = Addr::NULL;
    rt.malloc(Some(&mut a), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    first.kill().unwrap();
    first.wait().unwrap();
    let mut second = child("serve", &path);
    wait_for(&path);
    // Another process allocates the same address on the new service.
    let other = Runtime::shared_device(&path).unwrap();
    other.set_device(0).unwrap();
    let mut b = Addr::NULL;
    other
        .malloc(Some(&mut b), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    other.memset(b, 64, 0x22, 64).unwrap();
    for _ in 0..3 {
        let e = rt.memset(a, 64, 0x11, 64).unwrap_err();
        assert_eq!(e.code(), 507000, "{e}");
    }
    let mut bytes = [0u8; 8];
    other
        .memcpy(
            MemDst::Host(&mut bytes),
            8,
            MemSrc::Addr(b),
            8,
            memcpy_kind::DEVICE_TO_HOST,
        )
        .unwrap();
    assert_eq!(
        bytes, [0x22; 8],
        "the old client wrote nothing into the new service"
    );
    second.kill().unwrap();
    second.wait().unwrap();
}

#[test]
fn copies_larger_than_a_frame_go_through_the_service_whole() {
    let (_path, rt) = on_new_service("big");
    let len = 66 << 20; // more than one frame's worth
    let mut d = Addr::NULL;
    rt.malloc(Some(&mut d), len, malloc_policy::HUGE_FIRST)
        .unwrap();
    let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    rt.memcpy(
        MemDst::Addr(d),
        len,
        MemSrc::Host(&data),
        len,
        memcpy_kind::HOST_TO_DEVICE,
    )
    .unwrap();
    let mut back = vec![0u8; len];
    rt.memcpy(
        MemDst::Host(&mut back),
        len,
        MemSrc::Addr(d),
        len,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    assert!(back == data, "the bytes came back as they went");
}

#[test]
fn the_service_does_not_replace_a_file_that_is_not_a_socket() {
    let path = socket("file");
    std::fs::write(&path, b"precious").unwrap();
    let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
    assert!(device_service::spawn(&path, chip, Default::default()).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), b"precious");
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

#[test]
fn page_locked_host_memory_is_the_process_s_own_and_takes_synchronous_copies() {
    let (_path, rt) = on_new_service("pinned");
    let mut dev = Addr::NULL;
    rt.malloc(Some(&mut dev), 4096, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(dev, 4096, 0x5A, 4096).unwrap();
    let mut host = Addr::NULL;
    rt.malloc_host(Some(&mut host), 4096).unwrap();
    rt.memcpy(
        MemDst::Addr(host),
        4096,
        MemSrc::Addr(dev),
        4096,
        memcpy_kind::DEVICE_TO_HOST,
    )
    .unwrap();
    let buf = rt.host_buffer(host).unwrap();
    assert!(buf.to_vec().iter().all(|&b| b == 0x5A));
    rt.free_host(host).unwrap();
}

/// Maps 2 MiB of new physical memory, writes 123 in its first word and exports it (`flags`:
/// 1 lifts the whitelist). The handle, its range and the shareable handle.
fn export_physical(rt: &Runtime, flags: u64) -> (RawPhysical, Addr, u64) {
    let prop = PhysicalMemProp {
        mem_attr: 5,
        location: MemLocation {
            id: 0,
            kind: mem_location::DEVICE,
        },
        ..Default::default()
    };
    let mut h = RawPhysical::NULL;
    rt.malloc_physical(Some(&mut h), 2 << 20, Some(&prop), 0)
        .unwrap();
    let mut va = Addr::NULL;
    rt.reserve_mem_address(Some(&mut va), 2 << 20, 0, Addr::NULL, 0)
        .unwrap();
    rt.map_mem(va, 2 << 20, 0, h, 0).unwrap();
    rt.memset(va, 16, 0, 16).unwrap();
    rt.value_write(va, 123, 0, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    let mut sh = 0;
    rt.mem_export_to_shareable_handle(h, 0, flags, Some(&mut sh))
        .unwrap();
    (h, va, sh)
}

#[test]
fn physical_memory_mapped_in_two_processes_is_one_memory_and_only_listed_processes_import_it() {
    let (path, rt) = on_new_service("physical");
    let (h, va, sh) = export_physical(&rt, 0);
    // This process's stream waits on its mapping for the importer's write through its own.
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    rt.value_wait(Addr(va.0 + 8), 456, 1, s).unwrap();

    let mut outsider = child("phys_import", &path);
    writeln!(outsider.stdin.take().unwrap(), "{sh:x}").unwrap();
    let out = outsider.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("refused with 207006") && text.contains("aclrtMemSetPidToShareableHandle"),
        "the refusal names the call that lists importers: {text}"
    );

    let mut importer = child("phys_import", &path);
    rt.mem_set_pid_to_shareable_handle(sh, Some(&[importer.id() as i32]), 1)
        .unwrap();
    writeln!(importer.stdin.take().unwrap(), "{sh:x}").unwrap();
    let out = importer.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("read 123") && text.contains("released"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    rt.synchronize_stream(s).unwrap();
    assert_eq!(read_u64(&rt, Addr(va.0 + 8)), 456);
    rt.unmap_mem(va).unwrap();
    rt.release_mem_address(va).unwrap();
    rt.free_physical(h).unwrap();
    until(&path, "nothing left booked", |st| {
        st.iter()
            .all(|p| (p.allocations, p.reserved_ranges, p.mappings) == (0, 0, 0))
    });
    // The exporter's free destroyed the shareable handle.
    let mut late = child("phys_import", &path);
    writeln!(late.stdin.take().unwrap(), "{sh:x}").unwrap();
    let text = String::from_utf8_lossy(&late.wait_with_output().unwrap().stdout).to_string();
    assert!(text.contains("refused with 107000"), "{text}");
}

#[test]
fn a_killed_importer_leaves_no_mapping_and_the_exporters_memory_is_freed_after_it() {
    let (path, rt) = on_new_service("physical-killed");
    let (h, va, sh) = export_physical(&rt, 1);
    let mut holder = child("phys_hold", &path);
    writeln!(holder.stdin.take().unwrap(), "{sh:x}").unwrap();
    until(&path, "the holder's mapping", |st| {
        st.iter()
            .any(|p| p.pid == holder.id() && (p.reserved_ranges, p.mappings) == (1, 1))
    });
    // The exporter lets go first: its memory lives on under the other process's mapping.
    rt.unmap_mem(va).unwrap();
    rt.release_mem_address(va).unwrap();
    rt.free_physical(h).unwrap();
    holder.kill().unwrap();
    holder.wait().unwrap();
    until(&path, "the holder released", |st| {
        st.iter().all(|p| p.pid != holder.id())
            && st.iter().all(|p| (p.allocations, p.mappings) == (0, 0))
    });
    // The device goes on: new physical memory maps and works.
    let (h2, va2, _) = export_physical(&rt, 1);
    assert_eq!(read_u64(&rt, va2), 123);
    rt.unmap_mem(va2).unwrap();
    rt.free_physical(h2).unwrap();
}

#[test]
fn a_race_between_two_processes_names_the_process_of_the_other_access() {
    let path = socket("race");
    let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
    let config = ascend_rt::sim::SimConfig {
        races: true,
        hazards: ascend_rt::sim::HazardPolicy::parse("data_race=fail").unwrap(),
        ..Default::default()
    };
    device_service::spawn(&path, chip, config).unwrap();
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(0).unwrap();
    let mut buf = Addr::NULL;
    rt.malloc(Some(&mut buf), 4096, malloc_policy::NORMAL_ONLY)
        .unwrap();
    let mut key = String::new();
    rt.ipc_mem_get_export_key(buf, 4096, Some(&mut key), 65, 1)
        .unwrap();
    let mut filler = child("fill", &path);
    let mut input = filler.stdin.take().unwrap();
    writeln!(input, "{key}").unwrap();
    let mut out = std::io::BufReader::new(filler.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("filled") {
        line.clear();
        if std::io::BufRead::read_line(&mut out, &mut line).unwrap() == 0 {
            let end = filler.wait_with_output().unwrap();
            panic!("the filler ended: {}", String::from_utf8_lossy(&end.stderr));
        }
    }
    // The other process's fill is over by the host's clock, but nothing on the device orders
    // it before this read: a race, whose report names the filler's process.
    let mut b = [0u8; 8];
    let e = rt
        .memcpy(
            MemDst::Host(&mut b),
            8,
            MemSrc::Addr(buf),
            8,
            memcpy_kind::DEVICE_TO_HOST,
        )
        .unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains(&format!("was submitted at process {}]", filler.id()))
            && text.contains(&format!("(process {})", std::process::id())),
        "the race names the process of each access: {text}"
    );
    writeln!(input, "done").unwrap();
    filler.wait().unwrap();
}

#[test]
fn the_trace_has_a_track_group_per_process_and_the_report_names_each_stream_s_process() {
    let path = socket("outputs");
    let dir = path.parent().unwrap().to_path_buf();
    let outputs = device_service::Outputs {
        report: Some(dir.join("report.json")),
        trace: Some(dir.join("trace.json")),
    };
    let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
    device_service::spawn_writing(&path, chip, Default::default(), outputs).unwrap();
    let mut pids = Vec::new();
    for _ in 0..2 {
        let worker = child("work", &path);
        pids.push(worker.id());
        let out = worker.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    until(&path, "both workers released", |st| st.is_empty());
    // Written as each process went: the last one covers both.
    let start = Instant::now();
    let (trace, report) = loop {
        let t = std::fs::read_to_string(dir.join("trace.json")).unwrap_or_default();
        let r = std::fs::read_to_string(dir.join("report.json")).unwrap_or_default();
        if pids.iter().all(|p| t.contains(&format!("process {p}"))) {
            break (t, r);
        }
        assert!(start.elapsed() < Duration::from_secs(10), "{t}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let trace: serde_json::Value = serde_json::from_str(&trace).unwrap();
    let groups: Vec<String> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap().to_string())
        .collect();
    for p in &pids {
        assert!(
            groups
                .iter()
                .any(|g| g.ends_with(&format!("device 0, process {p}"))),
            "a track group for process {p}: {groups:?}"
        );
    }
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    let owners: Vec<&str> = report["streams"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["owner"].as_str())
        .collect();
    for p in &pids {
        assert!(
            owners.contains(&format!("process {p}").as_str()),
            "{owners:?}"
        );
    }
}

/// Writes 7 into a line of the shared L2 that memory holds as 0, has `role` act on it in
/// another process, and reads the word back.
fn after_another_process_cmo(name: &str, role: &str) -> u64 {
    let path = socket(name);
    start_service(&path);
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(0).unwrap();
    let mut flag = Addr::NULL;
    rt.malloc(Some(&mut flag), 4096, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(flag, 4096, 0, 4096).unwrap();
    // Memory itself holds the zeros; the 7 stays in the L2, dirty.
    rt.cmo_async(flag, 512, cmo_type::WRITEBACK, RawStream::NULL)
        .unwrap();
    rt.value_write(flag, 7, 0, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    let mut key = String::new();
    rt.ipc_mem_get_export_key(flag, 4096, Some(&mut key), 65, 1)
        .unwrap();
    let mut other = child(role, &path);
    writeln!(other.stdin.take().unwrap(), "{key}").unwrap();
    let out = other.wait_with_output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("invalidated"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_u64(&rt, flag)
}

#[test]
fn a_cmo_in_one_process_acts_on_the_l2_lines_another_process_wrote() {
    // The other process's INVALID drops this process's dirty line: the write is lost.
    assert_eq!(after_another_process_cmo("cmo-invalid", "invalidate"), 0);
    // Written back first, it is kept.
    assert_eq!(
        after_another_process_cmo("cmo-writeback", "write_back_then_invalidate"),
        7
    );
}

#[test]
fn a_peer_that_never_answers_is_no_service_and_the_client_says_so_instead_of_hanging() {
    let path = socket("mute");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let held = std::thread::spawn(move || {
        // Accepts and keeps connections, never answers.
        let mut kept = Vec::new();
        for c in listener.incoming().take(3) {
            kept.push(c);
        }
        std::thread::sleep(Duration::from_secs(15));
    });
    let start = Instant::now();
    let e = Runtime::shared_device(&path).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(14), "{e}");
    assert_eq!(e.code(), 507000, "{e}");
    drop(held);
}

#[test]
fn the_exporter_s_free_ends_its_shareable_handle_even_while_it_still_maps_the_memory() {
    let (path, rt) = on_new_service("free-mapped");
    let (h, va, sh) = export_physical(&rt, 1);
    rt.free_physical(h).unwrap();
    // Still mapped here, still readable here; no other process imports it any more.
    assert_eq!(read_u64(&rt, va), 123);
    let mut late = child("phys_import", &path);
    writeln!(late.stdin.take().unwrap(), "{sh:x}").unwrap();
    let text = String::from_utf8_lossy(&late.wait_with_output().unwrap().stdout).to_string();
    assert!(text.contains("refused with 107000"), "{text}");
    rt.unmap_mem(va).unwrap();
}

#[test]
fn a_device_synchronize_is_not_failed_by_a_stream_another_thread_destroys_meanwhile() {
    let (_path, rt) = on_new_service("sync-destroy");
    let rt = std::sync::Arc::new(rt);
    let churn: Vec<_> = (0..3)
        .map(|_| {
            let rt = rt.clone();
            std::thread::spawn(move || {
                rt.set_device(0).unwrap();
                for _ in 0..150 {
                    let mut s = RawStream::NULL;
                    rt.create_stream(Some(&mut s)).unwrap();
                    rt.destroy_stream(s).unwrap();
                }
            })
        })
        .collect();
    let mut failures = Vec::new();
    loop {
        if let Err(e) = rt.synchronize_device() {
            failures.push(e.to_string());
        }
        if churn.iter().all(|t| t.is_finished()) {
            break;
        }
    }
    for t in churn {
        t.join().unwrap();
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
