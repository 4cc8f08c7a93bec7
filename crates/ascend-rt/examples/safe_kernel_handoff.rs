//! The second seed scenario at the safe level: kernels synchronised through memory with
//! `dcci`, and a stream task that waits for a kernel's store.
//!
//! - Stream `b` runs kernel `produce`: it stores 1 in `go` and writes it out of its data cache
//!   (`dcci`), which releases stream `a`'s value wait while the kernel still runs; it writes the
//!   payload, writes it out (`dcci` of each line), and only then stores 2 in `flag` (and writes
//!   that out); then it polls each consumer's `ack` until all have read the payload.
//! - Stream `a` waits for `go` to hold 1 (`aclrtValueWait`, EQ), then runs kernel `consume` on
//!   four blocks, beside the producer: each polls `flag` until it holds 2 (a `dcci` of the
//!   line before each load, so that it reads global memory, not its own stale copy), sums the
//!   payload (each line dcci'd before it is read), writes its sum and its `ack`, each in a
//!   cache line of its own.
//!
//! The host checks the four sums. Leave out the producer's `dcci` of the payload and the
//! consumers read memory the producer's cache still holds: the sums go wrong and the
//! simulator says why.
//!
//! Run: `cargo run -p ascend-rt --example safe_kernel_handoff [SoC]`, or through the hw backend
//! over the project's own library: `ASCEND_RT_LIB=target/debug/libascendcl.so cargo run -p
//! ascend-rt --features hw --example safe_kernel_handoff -- --hw`.

mod common;

use ascend_rt::safe::*;

/// Words of payload: two cache lines of 64 bytes.
const WORDS: usize = 16;
/// Consumer blocks.
const BLOCKS: u32 = 4;
/// Bytes per cache line: what keeps each block's result apart.
const LINE: usize = 64;

fn main() -> Result<(), String> {
    let rt = common::runtime()?;
    if !rt.chip().features.task_value_wait {
        return Err(format!(
            "{} has no value wait (aclrtValueWait): choose another SoC",
            rt.chip().soc_name
        ));
    }
    run(&rt).map_err(|e| e.to_string())
}

fn run(rt: &std::sync::Arc<ascend_rt::Runtime>) -> ascend_rt::AclResult<()> {
    let dev = Device::open(rt, 0)?;
    let go = dev.malloc(LINE, MallocPolicy::NormalOnly)?;
    let flag = dev.malloc(LINE, MallocPolicy::NormalOnly)?;
    let payload = dev.malloc(WORDS * 8, MallocPolicy::NormalOnly)?;
    let sums = dev.malloc(LINE * BLOCKS as usize, MallocPolicy::NormalOnly)?;
    let acks = dev.malloc(LINE * BLOCKS as usize, MallocPolicy::NormalOnly)?;
    for buf in [&go, &flag, &payload, &sums, &acks] {
        buf.fill_sync(0)?;
    }
    let (a, b) = (dev.stream()?, dev.stream()?);

    a.value_wait(go.ptr(), 1, WaitMode::Eq)?;
    a.launch_with(
        "consume",
        BLOCKS,
        &[flag.ptr(), payload.ptr(), sums.ptr(), acks.ptr()],
        |blk, gm| {
            let (flag, payload, sums, acks) = (gm[0], gm[1], gm[2], gm[3]);
            loop {
                blk.dcci(flag, 0);
                if blk.load_u64(flag, 0) == 2 {
                    break;
                }
                blk.spin(100);
            }
            let mut sum = 0;
            for w in 0..WORDS {
                if w * 8 % LINE == 0 {
                    blk.dcci(payload, w * 8); // the payload's line, from global memory
                }
                sum += blk.load_u64(payload, w * 8);
            }
            let mine = LINE * blk.idx() as usize;
            blk.store_u64(sums, mine, sum);
            blk.dcci(sums, mine);
            blk.store_u64(acks, mine, 1);
            blk.dcci(acks, mine);
        },
    )?;
    println!("stream a: a value wait for go = 1, then kernel consume ({BLOCKS} blocks polling for flag = 2)");

    b.launch_with(
        "produce",
        1,
        &[go.ptr(), flag.ptr(), payload.ptr(), acks.ptr()],
        |blk, gm| {
            let (go, flag, payload, acks) = (gm[0], gm[1], gm[2], gm[3]);
            blk.store_u64(go, 0, 1);
            blk.dcci(go, 0);
            for w in 0..WORDS {
                blk.store_u64(payload, w * 8, 7 * w as u64);
            }
            for line in (0..WORDS * 8).step_by(LINE) {
                blk.dcci(payload, line);
            }
            blk.store_u64(flag, 0, 2);
            blk.dcci(flag, 0);
            for i in 0..BLOCKS as usize {
                loop {
                    blk.dcci(acks, LINE * i);
                    if blk.load_u64(acks, LINE * i) == 1 {
                        break;
                    }
                    blk.spin(100);
                }
            }
        },
    )?;
    println!("stream b: kernel produce (go = 1, the payload, flag = 2, then waits for the acks)");

    b.synchronize()?;
    a.synchronize()?;
    let want: u64 = (0..WORDS as u64).map(|w| 7 * w).sum();
    let mut got = Vec::new();
    for i in 0..BLOCKS as usize {
        got.push(sums.read_u64(LINE * i)?);
    }
    println!("sums of the consumer blocks: {got:?} (each should be {want})");
    #[cfg(feature = "sim")]
    if rt.sim_view().is_some() {
        let hazards = dev.hazards();
        println!("hazards: {}", hazards.len());
        for h in &hazards {
            println!("  {}: {}", h.kind, h.detail);
        }
    }
    assert!(
        got.iter().all(|&s| s == want),
        "every block summed the payload"
    );
    Ok(())
}
