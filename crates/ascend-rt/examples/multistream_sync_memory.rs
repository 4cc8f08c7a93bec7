//! The vendor's `9_multistream_sync_memory` sample, ported to the raw level and run on the
//! simulator: a waiter thread blocks stream A on `aclrtValueWait(buf, 100, EQ)` and
//! synchronizes it; a second later a writer thread enqueues `aclrtValueWrite(buf, 100)` on
//! stream B, which releases A. The waiter must still be blocked when the writer starts.
//!
//! Run: `cargo run -p ascend-rt --example multistream_sync_memory [SoC]`; set
//! `ASCEND_SIM_REPORT=<path>` to keep the full run report as JSON, `ASCEND_SIM_TRACE=<path>` for
//! the timeline as a Chrome trace (Perfetto).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ascend_rt::raw_types::*;
use ascend_rt::{AclResult, Runtime};

fn main() -> AclResult<()> {
    let soc = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Ascend910B1".into());
    let rt = Arc::new(Runtime::sim(&soc)?);
    let _ = rt.init(None);
    rt.set_device(0)?;
    println!("SoC: {}", rt.get_soc_name().unwrap_or_default());

    let mut buf = Addr::NULL;
    rt.malloc(Some(&mut buf), 1 << 20, malloc_policy::HUGE_FIRST)?;
    // The sample leaves the buffer uninitialised; clear it so a stale 100 cannot release the
    // wait early (the simulator would otherwise report a poll of never-written memory).
    rt.memset(buf, 1 << 20, 0, 8)?;
    println!("allocated 1 MiB of device memory at {:#x}", buf.0);

    let (mut a, mut b) = (RawStream::NULL, RawStream::NULL);
    rt.create_stream(Some(&mut a))?;
    println!("created stream A");
    rt.create_stream(Some(&mut b))?;
    println!("created stream B");

    let flag = Arc::new(AtomicU32::new(0));
    let waiter = {
        let (rt, flag) = (rt.clone(), flag.clone());
        std::thread::spawn(move || -> AclResult<u32> {
            rt.set_device(0)?;
            rt.value_wait(buf, 100, wait_flag::EQ, a)?;
            println!(
                "stream A: waiting for the word at {:#x} to equal 100",
                buf.0
            );
            rt.synchronize_stream(a)?;
            println!("stream A: wait complete");
            Ok(flag.load(Ordering::SeqCst))
        })
    };
    std::thread::sleep(Duration::from_secs(1));
    let writer = {
        let (rt, flag) = (rt.clone(), flag.clone());
        std::thread::spawn(move || -> AclResult<()> {
            flag.store(123, Ordering::SeqCst);
            println!("flag value after the writing thread starts: 123");
            rt.set_device(0)?;
            rt.value_write(buf, 100, 0, b)?;
            println!("stream B: write 100 enqueued");
            rt.synchronize_stream(b)?;
            println!("stream B: write complete");
            Ok(())
        })
    };
    writer.join().expect("writer thread panicked")?;
    let seen = waiter.join().expect("waiter thread panicked")?;
    println!("flag value read by the waiting thread: {seen}");

    rt.destroy_stream_force(a)?;
    rt.destroy_stream_force(b)?;
    rt.free(buf)?;
    rt.reset_device_force(0)?;
    rt.finalize()?;
    if let Some(json) = rt.report_json() {
        summarize(&json);
        if let Some(path) = std::env::var_os("ASCEND_SIM_REPORT") {
            std::fs::write(&path, &json).expect("write the run report");
            println!("full run report written to {}", path.to_string_lossy());
        }
        if let (Some(path), Some(trace)) = (std::env::var_os("ASCEND_SIM_TRACE"), rt.trace_json()) {
            std::fs::write(&path, trace).expect("write the trace");
            println!(
                "timeline written to {} (open it in Perfetto)",
                path.to_string_lossy()
            );
        }
    }
    if seen == 123 {
        println!("SUCCESS");
        Ok(())
    } else {
        println!("FAILURE");
        std::process::exit(1)
    }
}

/// Prints the parts of the run report this sample is about: the value wait and the timeline.
fn summarize(json: &str) {
    let report: serde_json::Value = serde_json::from_str(json).expect("the run report is JSON");
    println!(
        "simulated on {}: device idle at {} ns",
        report["chip"].as_str().unwrap_or("?"),
        report["end_ns"]
    );
    for w in report["value_waits"].as_array().into_iter().flatten() {
        println!(
            "  value wait on stream {} ({} {}): {} ns, {} polling pass(es)",
            w["stream"],
            w["mode"].as_str().unwrap_or("?"),
            w["value"],
            w["duration_ns"],
            w["passes"]
        );
    }
    let mut spans: Vec<&serde_json::Value> = report["timeline"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    spans.sort_by_key(|s| s["start_ns"].as_u64());
    for s in spans {
        println!(
            "  stream {} task {:>2} {:<10} {:>6} ns .. {:>6} ns",
            s["stream"],
            s["task"],
            s["kind"].as_str().unwrap_or("?"),
            s["start_ns"],
            s["end_ns"]
        );
    }
}
