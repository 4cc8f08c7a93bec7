//! One simulated device shared by several processes through the device service: each process
//! uses it as its own, what a process owns is released when it goes (killed or not), and the
//! others go on; a service that is gone, or never answers, is said so. The clients are child
//! runs of this test binary (`service_children`).

mod service_children;

use std::path::Path;
use std::time::{Duration, Instant};

use ascend_rt::raw_types::*;
use ascend_rt::{device_service, MemDst, MemSrc, Runtime};

use service_children::*;

/// The clients' roles: child runs of this test binary.
#[test]
fn child_process() {
    play_role();
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
