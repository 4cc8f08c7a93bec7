//! Testing one's own synchronisation with proptest and the simulator.
//!
//! A pipeline's ordering bugs show only for some sizes, chips and timings. The simulator makes
//! each of those a deterministic input: a property test draws the sizes, the SoC and a
//! schedule seed ([`SimBuilder::schedule_seed`](crate::sim::SimBuilder::schedule_seed), which
//! varies how streams and kernel blocks interleave), turns race detection on, runs the
//! pipeline, and checks both its data and [`Device::hazards`](crate::safe::Device::hazards).
//! When a case fails, proptest shrinks it to the smallest failing input, and the same input
//! fails the same way on every run.
//!
//! The pipeline under test here streams `chunks` chunks of `chunk` bytes through two staging
//! buffers: stream `load` copies chunk *k* into buffer *k* mod 2, stream `compute` adds one to
//! every byte into the result. Events order them; `wait_until_free` says whether the load of
//! chunk *k* waits for the kernel that last read its buffer (chunk *k*-2).
//!
//! ```
//! use std::sync::Arc;
//! use ascend_rt::{safe::*, sim::SimBuilder};
//!
//! /// Runs the pipeline; `Err` says what went wrong (data, or a hazard).
//! fn pipeline(soc: &str, seed: u64, chunks: usize, chunk: usize, wait_until_free: bool)
//!     -> Result<(), String>
//! {
//!     let rt = SimBuilder::new(soc).races(true).schedule_seed(Some(seed)).build();
//!     let rt = Arc::new(rt.map_err(|e| e.to_string())?);
//!     let dev = Device::open(&rt, 0).map_err(|e| e.to_string())?;
//!     let host: Vec<u8> = (0..chunks * chunk).map(|i| (i % 251) as u8).collect();
//!     let run = || -> ascend_rt::AclResult<Vec<u8>> {
//!         let stage = [dev.malloc(chunk, MallocPolicy::NormalOnly)?,
//!                      dev.malloc(chunk, MallocPolicy::NormalOnly)?];
//!         let result = dev.malloc(chunks * chunk, MallocPolicy::NormalOnly)?;
//!         let (load, compute) = (dev.stream()?, dev.stream()?);
//!         let (loaded, freed) = ([dev.event()?, dev.event()?], [dev.event()?, dev.event()?]);
//!         for k in 0..chunks {
//!             let b = k % 2;
//!             if k >= 2 && wait_until_free {
//!                 load.wait_event(&freed[b])?;
//!             }
//!             load.copy_h2d_async(stage[b].ptr(), &host[k * chunk..(k + 1) * chunk])?;
//!             load.record(&loaded[b])?;
//!             compute.wait_event(&loaded[b])?;
//!             compute.launch_with("add_one", 1, &[stage[b].ptr(), result.at(k * chunk)?],
//!                 |blk, gm| {
//!                     let mut local = vec![0u8; gm[0].len()];
//!                     blk.copy_in(&mut local, gm[0], 0);
//!                     local.iter_mut().for_each(|x| *x = x.wrapping_add(1));
//!                     blk.copy_out(gm[1], 0, &local);
//!                 })?;
//!             compute.record(&freed[b])?;
//!         }
//!         compute.synchronize()?;
//!         let mut out = vec![0u8; chunks * chunk];
//!         result.copy_to_host_sync(&mut out)?;
//!         Ok(out)
//!     };
//!     let out = run().map_err(|e| e.to_string())?;
//!     if let Some(h) = dev.hazards().first() {
//!         return Err(format!("{}: {}", h.kind, h.detail));
//!     }
//!     match (0..out.len()).find(|&i| out[i] != host[i].wrapping_add(1)) {
//!         Some(i) => Err(format!("byte {i} is {:#x}", out[i])),
//!         None => Ok(()),
//!     }
//! }
//!
//! use proptest::prelude::*;
//! use proptest::test_runner::{Config, TestError, TestRng, TestRunner};
//!
//! /// The inputs: a SoC, a schedule seed, how many chunks and how big.
//! fn inputs() -> impl Strategy<Value = (&'static str, u64, usize, usize)> {
//!     (
//!         prop::sample::select(vec!["Ascend910B1", "Ascend950PR_9599", "Ascend310P3"]),
//!         0..1000u64,
//!         1..8usize,
//!         (1..=16usize).prop_map(|kib| kib * 1024),
//!     )
//! }
//!
//! // A fixed RNG keeps this page's outcome the same on every run; `TestRunner::new` draws
//! // new cases each time.
//! let config = Config { cases: 12, ..Config::default() };
//! let runner = || TestRunner::new_with_rng(config.clone(),
//!     TestRng::deterministic_rng(config.rng_algorithm));
//!
//! // The pipeline as written: every case passes, on every chip and schedule drawn.
//! runner()
//!     .run(&inputs(), |(soc, seed, chunks, chunk)| {
//!         pipeline(soc, seed, chunks, chunk, true).map_err(TestCaseError::fail)
//!     })
//!     .unwrap();
//!
//! // Without the wait for a free buffer, a load races the kernel still reading that buffer:
//! // race detection reports it in every schedule, and proptest shrinks the failure to the
//! // smallest pipeline that has the bug: three chunks (the third reuses the first's buffer),
//! // of the smallest size, on the first chip.
//! let failed = runner().run(&inputs(), |(soc, seed, chunks, chunk)| {
//!     pipeline(soc, seed, chunks, chunk, false).map_err(TestCaseError::fail)
//! });
//! match failed {
//!     Err(TestError::Fail(why, (soc, _seed, chunks, chunk))) => {
//!         assert!(why.message().contains("data_race"), "{why}");
//!         assert_eq!((soc, chunks, chunk), ("Ascend910B1", 3, 1024));
//!     }
//!     other => panic!("the missing wait was not found: {other:?}"),
//! }
//! ```
//!
//! In a crate's own tests the same property is written with the `proptest!` macro, which runs
//! `PROPTEST_CASES` cases (256 by default) and keeps each failing input in
//! `proptest-regressions/`, so that it is tried first from then on:
//!
//! ```text
//! proptest! {
//!     #[test]
//!     fn the_pipeline_is_ordered((soc, seed, chunks, chunk) in inputs()) {
//!         pipeline(soc, seed, chunks, chunk, true).map_err(TestCaseError::fail)?;
//!     }
//! }
//! ```
