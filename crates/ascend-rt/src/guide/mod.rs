//! A guide for Rust users: writing and checking synchronisation on the simulator at the safe
//! level ([`crate::safe`]), then running the same program through the `hw` backend.
//!
//! Nothing here is code: each section is text and examples, and every example is a test that
//! runs on the simulator. [`testing`] shows how to test one's own pipeline with proptest.
//!
//! # Setting up
//!
//! [`Runtime::sim`](crate::Runtime::sim) gives a simulator of a SoC with the default settings;
//! [`SimBuilder`](crate::sim::SimBuilder) chooses what the simulator checks and how it
//! schedules (hazard classes, race detection, a seeded schedule, the watchdog). A
//! [`Device`](crate::safe::Device) opened on it hands out buffers, streams, events and
//! models that release themselves.
//!
//! Where a hazard goes: each is a record ([`Device::hazards`](crate::safe::Device::hazards)),
//! a warning (through `tracing` where the program has a subscriber, else on standard error),
//! and, for a class set to fail (`.hazards("record,lost_write=fail")`), the error of the
//! synchronize that observes it.
//!
//! # Scenario 1: two streams synchronised by a value write and a value wait
//!
//! The consumer's wait is queued before the producer's work; the producer's value write
//! releases it. No thread sleeps and no event is needed: the flag word in device memory is the
//! synchronisation.
//!
//! ```
//! use std::sync::Arc;
//! use ascend_rt::{safe::*, sim::SimBuilder};
//!
//! let rt = Arc::new(SimBuilder::new("Ascend910B1").races(true).build().unwrap());
//! let dev = Device::open(&rt, 0).unwrap();
//! let (data, copy) = (
//!     dev.malloc(4096, MallocPolicy::NormalOnly).unwrap(),
//!     dev.malloc(4096, MallocPolicy::NormalOnly).unwrap(),
//! );
//! let flag = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
//! flag.fill_sync(0).unwrap();
//! let (producer, consumer) = (dev.stream().unwrap(), dev.stream().unwrap());
//!
//! consumer.value_wait(flag.ptr(), 1, WaitMode::Eq).unwrap(); // blocks the consumer ...
//! consumer.copy_d2d_async(copy.ptr(), data.ptr(), 4096).unwrap();
//! producer.fill_async(data.ptr(), 0x42, 4096).unwrap();
//! producer.value_write(flag.ptr(), 1).unwrap(); // ... until this write
//! consumer.synchronize().unwrap();
//!
//! let mut head = [0u8; 4];
//! copy.copy_to_host_sync(&mut head).unwrap();
//! assert_eq!(head, [0x42; 4]);
//! assert!(dev.hazards().is_empty(), "race detection found the two streams ordered");
//! ```
//!
//! Leave out the value wait and race detection says so: the copy and the fill touch the same
//! bytes with nothing ordering them.
//!
//! ```
//! # use std::sync::Arc;
//! # use ascend_rt::{safe::*, sim::SimBuilder};
//! # let rt = Arc::new(SimBuilder::new("Ascend910B1").races(true).build().unwrap());
//! # let dev = Device::open(&rt, 0).unwrap();
//! # let (data, copy) = (
//! #     dev.malloc(4096, MallocPolicy::NormalOnly).unwrap(),
//! #     dev.malloc(4096, MallocPolicy::NormalOnly).unwrap(),
//! # );
//! # let (producer, consumer) = (dev.stream().unwrap(), dev.stream().unwrap());
//! consumer.copy_d2d_async(copy.ptr(), data.ptr(), 4096).unwrap();
//! producer.fill_async(data.ptr(), 0x42, 4096).unwrap();
//! dev.synchronize().unwrap();
//! assert!(dev.hazards().iter().any(|h| h.kind == "data_race"));
//! ```
//!
//! # Scenario 2: kernels synchronised through memory with `dcci`
//!
//! A kernel's stores sit in its AI core's data cache until a `dcci` of their line writes them
//! out; a load reads global memory only after a `dcci` of its line. So a producer block writes
//! the payload, `dcci`s it, and only then raises a flag (and `dcci`s that); the consumer polls
//! the flag with a `dcci` before each load, then `dcci`s each payload line before reading it.
//! A stream task can wait for a kernel's store too: here stream `a` starts the consumer only
//! once the producer has stored `go`.
//!
//! ```
//! use std::sync::Arc;
//! use ascend_rt::{safe::*, Runtime};
//!
//! let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
//! let dev = Device::open(&rt, 0).unwrap();
//! let go = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
//! let flag = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
//! let payload = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
//! let seen = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
//! for b in [&go, &flag, &payload, &seen] {
//!     b.fill_sync(0).unwrap();
//! }
//! let (a, b) = (dev.stream().unwrap(), dev.stream().unwrap());
//!
//! a.value_wait(go.ptr(), 1, WaitMode::Eq).unwrap();
//! a.launch_with("consume", 1, &[flag.ptr(), payload.ptr(), seen.ptr()], |blk, gm| {
//!     while {
//!         blk.dcci(gm[0], 0);
//!         blk.load_u64(gm[0], 0) != 1
//!     } {
//!         blk.spin(100);
//!     }
//!     blk.dcci(gm[1], 0);
//!     let v = blk.load_u64(gm[1], 0);
//!     blk.store_u64(gm[2], 0, v);
//!     blk.dcci(gm[2], 0);
//! })
//! .unwrap();
//! b.launch_with("produce", 1, &[go.ptr(), flag.ptr(), payload.ptr()], |blk, gm| {
//!     blk.store_u64(gm[0], 0, 1);
//!     blk.dcci(gm[0], 0); // releases stream a's value wait
//!     blk.store_u64(gm[2], 0, 42);
//!     blk.dcci(gm[2], 0); // the payload first ...
//!     blk.store_u64(gm[1], 0, 1);
//!     blk.dcci(gm[1], 0); // ... then the flag
//!     blk.spin(10_000); // still running while the consumer reads
//! })
//! .unwrap();
//! dev.synchronize().unwrap();
//! assert_eq!(seen.read_u64(0).unwrap(), 42);
//! assert!(dev.hazards().is_empty());
//! ```
//!
//! Without the producer's `dcci` of the payload, the consumer reads memory the producer's
//! cache still holds: it sees 0, and the simulator says which store was invisible.
//!
//! ```
//! # use std::sync::Arc;
//! # use ascend_rt::{safe::*, Runtime};
//! # let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
//! # let dev = Device::open(&rt, 0).unwrap();
//! # let flag = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
//! # let payload = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
//! # let seen = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
//! # for b in [&flag, &payload, &seen] {
//! #     b.fill_sync(0).unwrap();
//! # }
//! # let (a, b) = (dev.stream().unwrap(), dev.stream().unwrap());
//! # a.launch_with("consume", 1, &[flag.ptr(), payload.ptr(), seen.ptr()], |blk, gm| {
//! #     while {
//! #         blk.dcci(gm[0], 0);
//! #         blk.load_u64(gm[0], 0) != 1
//! #     } {
//! #         blk.spin(100);
//! #     }
//! #     blk.dcci(gm[1], 0);
//! #     let v = blk.load_u64(gm[1], 0);
//! #     blk.store_u64(gm[2], 0, v);
//! #     blk.dcci(gm[2], 0);
//! # })
//! # .unwrap();
//! b.launch_with("produce", 1, &[flag.ptr(), payload.ptr()], |blk, gm| {
//!     blk.store_u64(gm[1], 0, 42); // no dcci: the payload stays in the cache
//!     blk.store_u64(gm[0], 0, 1);
//!     blk.dcci(gm[0], 0);
//!     blk.spin(10_000);
//! })
//! .unwrap();
//! dev.synchronize().unwrap();
//! assert_eq!(seen.read_u64(0).unwrap(), 0);
//! assert!(dev.hazards().iter().any(|h| h.kind == "invisible_write"));
//! ```
//!
//! # What the types guarantee
//!
//! Memory is tied to stream order: a task that names a buffer (through a
//! [`DevicePtr`](crate::safe::DevicePtr), which borrows it) makes the buffer wait for that
//! stream before it is freed, and a kernel names its memory at launch. A kernel body is
//! `'static`: it cannot keep a borrowed pointer, only the [`Gm`](crate::safe::Gm) regions it
//! was launched with, so it cannot outlive a buffer it names without the buffer knowing.
//!
//! ```compile_fail
//! # use std::sync::Arc;
//! # use ascend_rt::{safe::*, Runtime};
//! # let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
//! # let dev = Device::open(&rt, 0).unwrap();
//! # let s = dev.stream().unwrap();
//! let buf = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
//! let p = buf.ptr();
//! // A kernel may not capture a pointer: `buf` does not live for 'static.
//! s.launch_with("keeps_a_pointer", 1, &[], move |_blk, _gm| {
//!     let _ = p.len();
//! })
//! .unwrap();
//! ```
//!
//! ```compile_fail
//! # use std::sync::Arc;
//! # use ascend_rt::{safe::*, Runtime};
//! # let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
//! # let dev = Device::open(&rt, 0).unwrap();
//! # let s = dev.stream().unwrap();
//! let buf = dev.malloc(64, MallocPolicy::NormalOnly).unwrap();
//! let p = buf.ptr();
//! drop(buf); // refused: a pointer into it is still used below
//! s.fill_async(p, 0, 64).unwrap();
//! ```
//!
//! A stream's queued work is never lost silently: dropping a [`Stream`](crate::safe::Stream)
//! waits for its tasks (here a wait released only after the drop began), and the one way to
//! discard them, [`Stream::destroy_force`](crate::safe::Stream::destroy_force), takes the
//! stream, says what it discards, and leaves nothing to queue more on.
//!
//! ```
//! # use std::sync::Arc;
//! # use ascend_rt::{safe::*, Runtime};
//! # let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
//! # let dev = Device::open(&rt, 0).unwrap();
//! let (flag, out) = (
//!     dev.malloc(8, MallocPolicy::NormalOnly).unwrap(),
//!     dev.malloc(8, MallocPolicy::NormalOnly).unwrap(),
//! );
//! flag.fill_sync(0).unwrap();
//! out.fill_sync(0).unwrap();
//! let s = dev.stream().unwrap();
//! s.value_wait(flag.ptr(), 1, WaitMode::Eq).unwrap();
//! s.value_write(out.ptr(), 9).unwrap();
//! let releaser = dev.stream().unwrap();
//! releaser.value_write(flag.ptr(), 1).unwrap();
//! drop(s); // waits: the write of 9 runs
//! assert_eq!(out.read_u64(0).unwrap(), 9);
//! ```
//!
//! ```compile_fail
//! # use std::sync::Arc;
//! # use ascend_rt::{safe::*, Runtime};
//! # let rt = Arc::new(Runtime::sim("Ascend910B1").unwrap());
//! # let dev = Device::open(&rt, 0).unwrap();
//! # let buf = dev.malloc(8, MallocPolicy::NormalOnly).unwrap();
//! let s = dev.stream().unwrap();
//! s.destroy_force().unwrap();
//! s.value_write(buf.ptr(), 1).unwrap(); // the stream is gone: use after move
//! ```
//!
//! # The same program through the `hw` backend
//!
//! With `--features hw`, [`Runtime::hw`](crate::Runtime) loads a runtime library
//! (`ASCEND_RT_LIB`, else the toolkit's): over the project's own `libascendcl.so` every example
//! above runs unchanged, kernels included; over a real device's library everything but the
//! simulator kernels does. The examples `safe_two_streams`, `safe_kernel_handoff` and
//! `safe_cmo_pipeline` take `--hw` to show it.

pub mod testing;
