//! The first seed scenario at the safe level: two streams synchronised by a value write and a
//! value wait. Stream `producer` fills a buffer, prefetches it into the cache
//! (`aclrtCmoAsync`, PREFETCH) and raises a flag (`aclrtValueWrite`); stream `consumer` waits
//! for the flag (`aclrtValueWait`, EQ) before it copies the buffer. No thread sleeps: the
//! consumer's tasks are queued first and stay blocked until the producer's write.
//!
//! Run: `cargo run -p ascend-rt --example safe_two_streams [SoC]` (a SoC whose runtime has
//! `aclrtCmoAsync` and value waits, such as the default Ascend910B1 or Ascend950PR_9599), or
//! through the hw backend: `ASCEND_RT_LIB=target/debug/libascendcl.so cargo run -p ascend-rt
//! --features hw --example safe_two_streams -- --hw`.

mod common;

use ascend_rt::safe::*;

fn main() -> Result<(), String> {
    let rt = common::runtime()?;
    run(&rt).map_err(|e| e.to_string())
}

fn run(rt: &std::sync::Arc<ascend_rt::Runtime>) -> ascend_rt::AclResult<()> {
    let dev = Device::open(rt, 0)?;
    let len = 64 * 1024;
    let data = dev.malloc(len, MallocPolicy::HugeFirst)?;
    let copy = dev.malloc(len, MallocPolicy::HugeFirst)?;
    let flag = dev.malloc(8, MallocPolicy::NormalOnly)?;
    flag.fill_sync(0)?;

    let (producer, consumer) = (dev.stream()?, dev.stream()?);
    // Queued first: the consumer blocks on the flag, then copies.
    consumer.value_wait(flag.ptr(), 1, WaitMode::Eq)?;
    consumer.copy_d2d_async(copy.ptr(), data.ptr(), len)?;
    let done = dev.event()?;
    consumer.record(&done)?;
    println!("consumer: waiting for the flag (queued, not yet run)");

    // The producer fills, prefetches and raises the flag.
    producer.fill_async(data.ptr(), 0x42, len)?;
    producer.cmo(CmoType::Prefetch, data.ptr(), len)?;
    producer.value_write(flag.ptr(), 1)?;
    println!("producer: filled {len} bytes, prefetched them, raised the flag");

    done.synchronize()?;
    let mut all = vec![0u8; len];
    copy.copy_to_host_sync(&mut all)?;
    let right = all.iter().filter(|&&b| b == 0x42).count();
    println!(
        "consumer: released; the copy starts with {:02x?}, {right} of {len} bytes are 0x42",
        &all[..4]
    );
    assert_eq!(right, len, "the consumer copied the producer's fill");

    #[cfg(feature = "sim")]
    if let Some(view) = rt.sim_view() {
        let report = view.report();
        println!(
            "simulated {} ns on {}: {} tasks over {} streams, {} hazards",
            report.now_ns,
            report.chip,
            report.streams.iter().map(|s| s.tasks).sum::<u64>(),
            report.streams.len(),
            dev.hazards().len()
        );
    }
    Ok(())
}
