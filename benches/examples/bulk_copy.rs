//! Bulk data through the simulator, for whole-process timing (`farm-bench`): `bulk_copy
//! h2d|d2d|d2h|memset|host MIB` moves MIB mebibytes once through the raw `ascend-rt` API
//! (`aclrtMemcpy` / `aclrtMemset`), or (`host`) copies as much between two host buffers, the
//! yardstick. `bulk_copy free MIB` writes MIB mebibytes of varied bytes to device memory,
//! frees it, and prints the process's resident memory before the write, after it and after
//! the free (freed device memory goes back to the operating system). With `ASCEND_BENCH_SHARED=1`
//! the device is a shared device service on a thread of the process (`device_service::spawn`),
//! reached over its socket as another program reaches it: the copies' bytes travel in the
//! requests.

use ascend_rt::raw_types::*;
use ascend_rt::{MemDst, MemSrc, Runtime};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map_or("d2d", String::as_str);
    let mib: usize = args.get(2).and_then(|m| m.parse().ok()).unwrap_or(1024);
    let n = mib << 20;
    if what == "host" {
        let src = vec![7u8; n];
        let mut dst = vec![0u8; n];
        dst.copy_from_slice(&src);
        std::hint::black_box(&dst);
        return;
    }
    let config = ascend_benches::timed_config(ascend_sim::DEFAULT_REPORT_RECORDS);
    let rt = if std::env::var_os("ASCEND_BENCH_SHARED").is_some() {
        let dir = std::env::temp_dir().join(format!("bulk-copy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let socket = dir.join("device.sock");
        let chip = ascend_chips::ChipProfile::builtin("Ascend910B1").unwrap();
        ascend_rt::device_service::spawn(&socket, chip, config).unwrap();
        Runtime::shared_device(&socket).unwrap()
    } else {
        Runtime::sim_with("Ascend910B1", config).unwrap()
    };
    rt.set_device(0).unwrap();
    let (mut a, mut b) = (Addr::NULL, Addr::NULL);
    rt.malloc(Some(&mut a), n, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.malloc(Some(&mut b), n, malloc_policy::NORMAL_ONLY)
        .unwrap();
    match what {
        "memset" => rt.memset(a, n, 0x5a, n).unwrap(),
        "h2d" => {
            let host = vec![7u8; n];
            rt.memcpy(
                MemDst::Addr(a),
                n,
                MemSrc::Host(&host),
                n,
                memcpy_kind::HOST_TO_DEVICE,
            )
            .unwrap();
        }
        "d2d" => {
            rt.memset(a, n, 0x5a, n).unwrap();
            rt.memcpy(
                MemDst::Addr(b),
                n,
                MemSrc::Addr(a),
                n,
                memcpy_kind::DEVICE_TO_DEVICE,
            )
            .unwrap();
        }
        "free" => {
            let before = resident_mib();
            let host: Vec<u8> = (0..n).map(|i| (i * 31 % 251) as u8).collect();
            rt.memcpy(
                MemDst::Addr(a),
                n,
                MemSrc::Host(&host),
                n,
                memcpy_kind::HOST_TO_DEVICE,
            )
            .unwrap();
            drop(host);
            let written = resident_mib();
            let maps = std::fs::read_to_string("/proc/self/maps").map_or(0, |m| m.lines().count());
            rt.free(a).unwrap();
            let freed = resident_mib();
            println!(
                "resident MiB: {before} before, {written} with {mib} MiB written ({maps} mappings), {freed} after the free"
            );
        }
        "d2h" => {
            rt.memset(a, n, 0x5a, n).unwrap();
            let mut host = vec![0u8; n];
            rt.memcpy(
                MemDst::Host(&mut host),
                n,
                MemSrc::Addr(a),
                n,
                memcpy_kind::DEVICE_TO_HOST,
            )
            .unwrap();
            std::hint::black_box(&host);
        }
        other => {
            eprintln!("usage: bulk_copy h2d|d2d|d2h|memset|free|host MIB (not {other:?})");
            std::process::exit(2);
        }
    }
}

/// The process's resident memory in MiB (Linux; 0 elsewhere).
fn resident_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib / 1024)
}
