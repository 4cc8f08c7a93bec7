//! A cache-maintenance pipeline at the safe level: chunks of host data stream through two
//! device staging buffers. Stream `load` copies chunk *k* into buffer *k* mod 2 and prefetches
//! it into the L2 (`aclrtCmoAsync`, PREFETCH), so that the kernel's reads hit the cache; stream
//! `compute` runs kernel `add_one` on it (four blocks, each copying a quarter into its local
//! buffer, adding one to every byte and copying it out to the chunk's place in the result).
//! Events order the two: `loaded[b]` lets the kernel start on a buffer, `freed[b]` lets the
//! next copy overwrite it once the kernel of two chunks before is done with it.
//!
//! The host checks every byte of the result. Leave out the wait for `freed[b]` and the copy
//! of chunk *k* races the kernel still reading chunk *k*-2 in that buffer: under `--races`
//! the simulator names both tasks and the event that would order them, and under some seeded
//! schedules (`--seed 3`) the result is wrong.
//!
//! Run: `cargo run -p ascend-rt --example safe_cmo_pipeline [SoC]` (a SoC with
//! `aclrtCmoAsync`, such as the default Ascend910B1), or through the hw backend over the
//! project's own library: `ASCEND_RT_LIB=target/debug/libascendcl.so cargo run -p ascend-rt
//! --features hw --example safe_cmo_pipeline -- --hw`.

mod common;

use ascend_rt::safe::*;

/// Bytes per chunk.
const CHUNK: usize = 16 * 1024;
/// Chunks through the pipeline.
const CHUNKS: usize = 8;
/// Blocks of the kernel, each taking an equal part of a chunk.
const BLOCKS: u32 = 4;

fn main() -> Result<(), String> {
    let rt = common::runtime()?;
    run(&rt).map_err(|e| e.to_string())
}

/// Byte `i` of the input.
fn input(i: usize) -> u8 {
    (i * 7 + i / CHUNK) as u8
}

fn run(rt: &std::sync::Arc<ascend_rt::Runtime>) -> ascend_rt::AclResult<()> {
    let dev = Device::open(rt, 0)?;
    let host: Vec<u8> = (0..CHUNK * CHUNKS).map(input).collect();
    let stage = [
        dev.malloc(CHUNK, MallocPolicy::HugeFirst)?,
        dev.malloc(CHUNK, MallocPolicy::HugeFirst)?,
    ];
    let result = dev.malloc(CHUNK * CHUNKS, MallocPolicy::HugeFirst)?;
    let (load, compute) = (dev.stream()?, dev.stream()?);
    let loaded = [dev.event()?, dev.event()?];
    let freed = [dev.event()?, dev.event()?];

    for k in 0..CHUNKS {
        let b = k % 2;
        if k >= 2 {
            load.wait_event(&freed[b])?; // the kernel of chunk k-2 is done with the buffer
        }
        load.copy_h2d_async(stage[b].ptr(), &host[k * CHUNK..(k + 1) * CHUNK])?;
        load.cmo(CmoType::Prefetch, stage[b].ptr(), CHUNK)?;
        load.record(&loaded[b])?;

        compute.wait_event(&loaded[b])?;
        compute.launch_with(
            "add_one",
            BLOCKS,
            &[stage[b].ptr(), result.at(k * CHUNK)?],
            |blk, gm| {
                let part = CHUNK / blk.num() as usize;
                let at = part * blk.idx() as usize;
                let mut local = vec![0u8; part];
                blk.copy_in(&mut local, gm[0], at);
                for byte in &mut local {
                    *byte = byte.wrapping_add(1);
                }
                blk.copy_out(gm[1], at, &local);
            },
        )?;
        compute.record(&freed[b])?;
    }
    println!("queued {CHUNKS} chunks of {CHUNK} bytes: copy and prefetch on one stream, kernel add_one on the other");

    compute.synchronize()?;
    let mut out = vec![0u8; CHUNK * CHUNKS];
    result.copy_to_host_sync(&mut out)?;
    let wrong = out
        .iter()
        .enumerate()
        .filter(|&(i, &v)| v != input(i).wrapping_add(1))
        .count();
    println!(
        "result: {} bytes, {wrong} wrong; chunk 0 starts {:02x?}, chunk {} starts {:02x?}",
        out.len(),
        &out[..4],
        CHUNKS - 1,
        &out[(CHUNKS - 1) * CHUNK..(CHUNKS - 1) * CHUNK + 4]
    );
    #[cfg(feature = "sim")]
    if let Some(view) = rt.sim_view() {
        let report = view.report();
        println!(
            "simulated {} ns: {} CMO tasks, {} hazards",
            report.now_ns,
            report.cmos.len(),
            dev.hazards().len()
        );
    }
    assert_eq!(wrong, 0, "every byte is its input plus one");
    Ok(())
}
