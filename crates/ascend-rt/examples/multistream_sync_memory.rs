//! The vendor's `9_multistream_sync_memory` sample, ported to the raw level and run on the
//! simulator: a waiter thread blocks stream A on `aclrtValueWait(buf, 100, EQ)` and
//! synchronizes it; a second later a writer thread enqueues `aclrtValueWrite(buf, 100)` on
//! stream B, which releases A. The waiter must still be blocked when the writer starts.
//!
//! Run: `cargo run -p ascend-rt --example multistream_sync_memory [SoC]`

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
    if let Some(report) = rt.report_json() {
        println!("run report: {report}");
    }
    if seen == 123 {
        println!("SUCCESS");
        Ok(())
    } else {
        println!("FAILURE");
        std::process::exit(1)
    }
}
