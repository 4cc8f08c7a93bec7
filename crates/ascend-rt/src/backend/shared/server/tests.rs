//! The service's own unit tests: requests a client would not send (too large, out of order,
//! after its process's end) are refused and the service goes on.

use std::os::unix::net::UnixStream;
use std::sync::Arc;

use super::super::wire::{self, Reply, Request};
use super::DeviceService;
use crate::backend::sim::SimBackend;

/// A connection of process `token` to a new service on a thread, its socket named `name`.
fn connected(name: &str, token: u64) -> UnixStream {
    let dir = std::env::temp_dir().join(format!("service-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.sock");
    let listener = super::bind(&path).unwrap();
    let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
    let service = DeviceService::new(Arc::new(SimBackend::new(chip, Default::default())));
    std::thread::spawn(move || service.serve(listener));
    let mut c = UnixStream::connect(&path).unwrap();
    wire::send(&mut c, &Request::Hello { pid: 1, token }).unwrap();
    c
}

#[test]
fn a_request_that_comes_after_its_process_ended_is_refused_not_served() {
    use super::super::wire::WireHostThread;
    let mut late = connected("late", 11);
    let path = std::env::temp_dir()
        .join(format!("service-late-{}", std::process::id()))
        .join("s.sock");
    let until = |listed: usize| {
        let start = std::time::Instant::now();
        while crate::device_service::status(&path).unwrap().len() != listed {
            assert!(start.elapsed() < std::time::Duration::from_secs(10));
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    };
    until(1);
    // The process's presence ends: the service releases it, while `late` stays open.
    let mut presence = UnixStream::connect(&path).unwrap();
    wire::send(&mut presence, &Request::Hello { pid: 1, token: 11 }).unwrap();
    wire::send(&mut presence, &Request::Presence).unwrap();
    drop(presence);
    until(0);
    let next = Request::FromThread {
        thread: 1,
        request: Box::new(Request::NextHostCall {
            thread: WireHostThread::Runtime,
            timeout_ms: None,
            wall_ms: 0,
        }),
    };
    wire::send(&mut late, &next).unwrap();
    let r: Reply = wire::receive(&mut late).unwrap().unwrap();
    assert!(
        matches!(r, Reply::Err(ref e) if format!("{e:?}").contains("released")),
        "{r:?}"
    );
    assert!(crate::device_service::status(&path).unwrap().is_empty());
}

#[test]
fn a_request_for_more_bytes_than_a_frame_holds_is_refused_and_the_service_goes_on() {
    let mut c = connected("unit", 7);
    let huge = Request::CopyFromDevice {
        src: 0x1000_0000_0000,
        len: 1 << 40,
    };
    wire::send(&mut c, &huge).unwrap();
    let r: Reply = wire::receive(&mut c).unwrap().unwrap();
    assert!(matches!(r, Reply::Err(_)), "{r:?}");
    wire::send(&mut c, &Request::SocName).unwrap();
    let r: Reply = wire::receive(&mut c).unwrap().unwrap();
    assert!(
        matches!(r, Reply::Str(ref s) if s == "Ascend910B1"),
        "{r:?}"
    );
}

#[test]
fn window_copies_without_a_window_or_past_it_are_refused_and_the_service_goes_on() {
    let mut c = connected("window", 9);
    let mut ask = |req: &Request| -> Reply {
        wire::send(&mut c, req).unwrap();
        wire::receive(&mut c).unwrap().unwrap()
    };
    let copy = Request::CopyInWindow {
        dst: 0x1000_0000_0000,
        len: 8,
    };
    assert!(matches!(ask(&copy), Reply::Err(_)), "no window yet");
    let huge = Request::Window {
        path: "/nonexistent".into(),
        len: 1 << 40,
    };
    assert!(matches!(ask(&huge), Reply::Err(_)), "too large a window");
    let (w, wpath) = ascend_sim_shm::Window::create(4096).unwrap();
    let given = Request::Window {
        path: wpath.to_string_lossy().into_owned(),
        len: 4096,
    };
    assert!(matches!(ask(&given), Reply::Unit));
    let past = Request::CopyOutWindow {
        src: 0x1000_0000_0000,
        len: 8192,
    };
    assert!(
        matches!(ask(&past), Reply::Err(_)),
        "more than the window holds"
    );
    assert!(matches!(ask(&Request::SocName), Reply::Str(_)));
    drop(w);
}
