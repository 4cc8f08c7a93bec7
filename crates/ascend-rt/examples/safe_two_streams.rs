//! The safe level in one picture: stream `producer` fills a buffer, prefetches it into the
//! cache (`aclrtCmoAsync`, PREFETCH) and raises a flag (`aclrtValueWrite`); stream `consumer`
//! waits for the flag (`aclrtValueWait`, EQ) before it copies the buffer. No thread sleeps:
//! the consumer's tasks are queued first and stay blocked until the producer's write.
//!
//! Run: `cargo run -p ascend-rt --example safe_two_streams [SoC]` (a SoC whose runtime has
//! `aclrtCmoAsync` and value waits, such as the default Ascend910B1 or Ascend950PR_9599).

use std::sync::Arc;

use ascend_rt::safe::*;
use ascend_rt::{AclResult, Runtime};

fn main() -> AclResult<()> {
    let soc = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Ascend910B1".into());
    let rt = Arc::new(Runtime::sim(&soc)?);
    let dev = Device::open(&rt, 0)?;
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
    let mut head = [0u8; 4];
    copy.copy_to_host_sync(&mut head)?;
    println!("consumer: released; the copy starts with {head:02x?}");
    assert_eq!(head, [0x42; 4]);

    if let Some(view) = rt.sim_view() {
        let report = view.report();
        println!(
            "simulated {} ns on {}: {} tasks over {} streams",
            report.now_ns,
            report.chip,
            report.streams.iter().map(|s| s.tasks).sum::<u64>(),
            report.streams.len()
        );
    }
    Ok(())
}
