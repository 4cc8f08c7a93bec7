//! The clients of the shared-device tests: child runs of the test binary, each playing a role
//! (`child`, [`play_role`]), and the helpers those tests share (a service at a socket of the
//! test's own, the service's status awaited). A test file that starts children has a test
//! named `child_process` that calls [`play_role`].

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ascend_rt::raw_types::*;
use ascend_rt::{device_service, MemDst, MemSrc, Runtime};

/// Set in a child's environment: which part it plays, and the socket.
pub const ROLE: &str = "ASCEND_RT_SHARED_DEVICE_ROLE";
pub const SOCKET: &str = "ASCEND_RT_SHARED_DEVICE_SOCKET";

pub fn socket(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shared-device-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("device.sock")
}

/// A new service at a socket named `name`, and this process's runtime on its device 0.
pub fn on_new_service(name: &str) -> (PathBuf, Runtime) {
    let path = socket(name);
    start_service(&path);
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(0).unwrap();
    (path, rt)
}

pub fn start_service(path: &Path) {
    let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
    device_service::spawn(path, chip, Default::default()).unwrap();
}

pub fn child(role: &str, path: &Path) -> Child {
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

pub fn read_u64(rt: &Runtime, addr: Addr) -> u64 {
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
pub fn until(path: &Path, what: &str, done: impl Fn(&[device_service::ProcessStatus]) -> bool) {
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

/// Plays the role this run of the test binary was given as a child (nothing in a run that is
/// not a child): `hold` allocates, creates streams and queues a wait that never ends, then
/// says so and sleeps until killed; `work` writes a value and reads it back; the others are
/// said where they are.
pub fn play_role() {
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
