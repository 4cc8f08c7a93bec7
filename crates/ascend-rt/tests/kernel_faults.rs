//! The code of a kernel's fault (docs/kernels.md, "The code of a kernel's fault"): the runtime
//! names a kernel's task by its core type, so a vector kernel's fault is a vector-core
//! exception (507035) on a chip with vector cores and an AI-core exception (507015) on one
//! without; an AI-core kernel's is always 507015. Other task faults stay 507000.

mod common;

use std::sync::{Arc, Mutex};

use ascend_rt::raw_types::{cmo_type, stream_failure_mode, RawStream};
use ascend_rt::{CoreType, ExceptionInfo, Kernel, KernelOps, MsgCode};
use common::*;

fn trap() -> Kernel {
    Kernel::new("trap", |ctx: &mut dyn KernelOps| ctx.trap("on purpose"))
}

/// A kernel whose store lands outside live device memory.
fn stray_store() -> Kernel {
    Kernel::new("stray", |ctx: &mut dyn KernelOps| ctx.store(0x10, 8, 1))
}

/// Adds 1 to the u32 at `x`, through the data cache, as the samples' `EasyOP` does.
fn add_one(x: u64) -> Kernel {
    Kernel::new("add_one", move |ctx: &mut dyn KernelOps| {
        let v = ctx.load(x, 4);
        ctx.store(x, 4, v + 1);
        ctx.dcci(x, true, 2);
    })
}

#[test]
fn a_vector_kernels_fault_is_a_vector_core_exception_on_chips_with_vector_cores() {
    for soc in [A2, A3, DAVID, MINI_V3, DC] {
        for k in [trap(), stray_store()] {
            let r = rt0(soc);
            let s = stream(&r);
            ok(r.launch_kernel(k.clone(), 2, s));
            assert_err(r.synchronize_stream(s), 507035, Some(MsgCode::EE9999));
            // Reported once: the stream is usable again.
            ok(r.synchronize_stream(s));
        }
    }
}

#[test]
fn a_vector_kernels_fault_is_an_ai_core_exception_on_a_chip_without_vector_cores() {
    let r = rt0(CLOUD);
    let s = stream(&r);
    ok(r.launch_kernel(trap(), 1, s));
    assert_err(r.synchronize_stream(s), 507015, Some(MsgCode::EE9999));
}

#[test]
fn an_ai_core_kernels_fault_is_an_ai_core_exception_on_every_chip() {
    for soc in ALL_SOCS {
        let r = rt0(soc);
        let s = stream(&r);
        ok(r.launch_kernel(trap().on(CoreType::AiCore), 1, s));
        assert_err(r.synchronize_stream(s), 507015, Some(MsgCode::EE9999));
    }
}

#[test]
fn the_exception_callback_gets_the_kernels_fault_code() {
    let r = rt0(A2);
    let got = Arc::new(Mutex::new(Vec::<u32>::new()));
    let g = got.clone();
    ok(
        r.set_exception_info_callback(Some(Arc::new(move |i: &ExceptionInfo| {
            g.lock().unwrap().push(i.error_code);
        }))),
    );
    let s = stream(&r);
    ok(r.launch_kernel(trap().on(CoreType::AiCore), 1, s));
    assert_code(r.synchronize_stream(s), 507015);
    // A CMO past its allocation's end faults on the device, and is no kernel's: an internal
    // error.
    let dev = malloc(&r, 64);
    ok(r.cmo_async(dev, 1 << 20, cmo_type::PREFETCH, s));
    assert_code(r.synchronize_stream(s), 507000);
    let codes = got.lock().unwrap().clone();
    assert_eq!(codes, vec![507015, 507000]);
}

/// The vendor's `stream/1_stream_with_failure_mode` sample, as its documented output shows it:
/// add, trap, add on one stream; continuing after the failure the value is 2, stopping at it 1,
/// and each synchronize returns 507035.
#[test]
fn the_failure_mode_sample_sees_507035_and_its_documented_values() {
    let r = rt0(A2);
    let x = malloc(&r, 4);
    for (mode, want) in [
        (stream_failure_mode::CONTINUE_ON_FAILURE, 2),
        (stream_failure_mode::STOP_ON_FAILURE, 1),
    ] {
        let s = stream(&r);
        ok(r.set_stream_failure_mode(s, mode));
        ok(r.memset(x, 4, 0, 4));
        ok(r.launch_kernel(add_one(x.0), 1, s));
        ok(r.launch_kernel(trap(), 1, s));
        ok(r.launch_kernel(add_one(x.0), 1, s));
        assert_code(r.synchronize_stream(s), 507035);
        assert_eq!(read_bytes(&r, x, 4), vec![want, 0, 0, 0], "mode {mode}");
        let _ = r.destroy_stream_force(s);
    }
    // Stopping on failure is the context's: its default stream reports the failure too.
    assert_code(r.synchronize_stream(RawStream::NULL), 507035);
}

#[test]
fn a_kernel_fault_stops_a_context_that_stops_on_failure_with_its_code() {
    let r = rt0(A2);
    let s = stream(&r);
    let other = stream(&r);
    ok(r.set_stream_failure_mode(s, stream_failure_mode::STOP_ON_FAILURE));
    ok(r.launch_kernel(trap(), 1, s));
    assert_code(r.synchronize_stream(s), 507035);
    // The context took the failure: its other streams take no more work.
    let x = malloc(&r, 8);
    assert_code(r.memset_async(x, 8, 0, 8, other), 507035);
}

#[test]
fn a_launch_of_more_blocks_than_the_task_descriptor_holds_is_refused() {
    let r = rt0(A2);
    let s = stream(&r);
    let k = Kernel::new("none", |_: &mut dyn KernelOps| {});
    let e = r.launch_kernel(k.clone(), 65_536, s).unwrap_err();
    assert_eq!(e.code(), 107000, "{e}");
    let e = r.launch_kernel(k.clone(), u32::MAX, s).unwrap_err();
    assert_eq!(e.code(), 107000, "{e}");
    assert_eq!(r.launch_kernel(k.clone(), 0, s).unwrap_err().code(), 100000);
    // The largest count is taken, and its blocks run in waves.
    ok(r.launch_kernel(k, 65_535, s));
    ok(r.synchronize_stream(s));
}
