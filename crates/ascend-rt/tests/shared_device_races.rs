//! The race detector on a device shared through the device service sees a program's threads as
//! the program has them: each thread's calls are one host thread's, ordered as that thread made
//! them, whichever of the client's connections carries each call; two threads of one program
//! are two host threads, whose unordered accesses are races.

mod common;
mod service_children;

use std::io::Write;
use std::sync::Arc;

use ascend_rt::raw_types::*;
use ascend_rt::{device_service, MemDst, MemSrc, Runtime};
use service_children::{child, play_role, socket};

/// A service whose simulator detects races and fails the call that finds one, and this
/// process's runtime on its device 0.
fn on_new_racing_service(name: &str) -> Arc<Runtime> {
    let config = ascend_rt::sim::SimConfig {
        races: true,
        hazards: ascend_rt::sim::HazardPolicy::parse("data_race=fail").unwrap(),
        ..Default::default()
    };
    Arc::new(common::on_new_service_with(name, config))
}

fn alloc(rt: &Runtime, n: usize) -> Addr {
    let mut a = Addr::NULL;
    rt.malloc(Some(&mut a), n, malloc_policy::NORMAL_ONLY)
        .unwrap();
    a
}

fn write(rt: &Runtime, dst: Addr, data: &[u8]) -> ascend_rt::AclResult<()> {
    rt.memcpy(
        MemDst::Addr(dst),
        data.len(),
        MemSrc::Host(data),
        data.len(),
        memcpy_kind::HOST_TO_DEVICE,
    )
}

#[test]
fn threads_that_order_their_own_accesses_through_the_api_race_with_nothing() {
    let rt = on_new_racing_service("ordered");
    let threads: Vec<_> = (0..6u8)
        .map(|t| {
            let rt = rt.clone();
            std::thread::spawn(move || {
                rt.set_device(0).unwrap();
                let mut s = RawStream::NULL;
                rt.create_stream(Some(&mut s)).unwrap();
                let (a, b) = (alloc(&rt, 4096), alloc(&rt, 4096));
                let mut failed = Vec::new();
                for round in 0..40u8 {
                    let data = vec![round ^ t; 4096];
                    let mut out = vec![0u8; 4096];
                    // Written by the host, copied on the stream, synchronized, read back.
                    let r = write(&rt, a, &data)
                        .and_then(|()| {
                            rt.memcpy_async(
                                MemDst::Addr(b),
                                4096,
                                MemSrc::Addr(a),
                                4096,
                                memcpy_kind::DEVICE_TO_DEVICE,
                                s,
                            )
                        })
                        .and_then(|()| rt.synchronize_stream(s))
                        .and_then(|()| {
                            rt.memcpy(
                                MemDst::Host(&mut out),
                                4096,
                                MemSrc::Addr(b),
                                4096,
                                memcpy_kind::DEVICE_TO_HOST,
                            )
                        });
                    match r {
                        Err(e) => failed.push(format!("thread {t} round {round}: {e}")),
                        Ok(()) if out != data => failed.push(format!("thread {t}: wrong data")),
                        Ok(()) => {}
                    }
                }
                failed
            })
        })
        .collect();
    let failed: Vec<String> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    assert!(
        failed.is_empty(),
        "{} failed: {:#?}",
        failed.len(),
        &failed[..failed.len().min(3)]
    );
}

#[test]
fn two_threads_writing_one_buffer_without_the_api_ordering_them_race() {
    let rt = on_new_racing_service("unordered");
    let buf = alloc(&rt, 4096);
    let first = {
        let rt = rt.clone();
        std::thread::spawn(move || {
            rt.set_device(0).unwrap();
            write(&rt, buf, &[1u8; 4096])
        })
    };
    first.join().unwrap().unwrap();
    // Joined by the host, but the simulator sees no synchronisation between the two threads.
    let second = {
        let rt = rt.clone();
        std::thread::spawn(move || {
            rt.set_device(0).unwrap();
            write(&rt, buf, &[2u8; 4096])
        })
    };
    let e = second.join().unwrap().unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("data_race") && text.contains("order the two host threads' calls"),
        "{text}"
    );
}

/// The clients' roles: child runs of this test binary.
#[test]
fn child_process() {
    play_role();
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
