//! Simulator kernels (`aclsimLaunchKernel`): the launch checks, and on the simulator the
//! developer guide's memory-semantic synchronisation between a value wait, a kernel's store
//! with `dcci`, a polling kernel and a value write, on the simulator and through the `hw`
//! backend over the project's own library. A real device runs compiled kernels, so over a
//! real runtime library the launch is "not supported" (207000).

use ascend_rt::raw_types::*;
use ascend_rt::{Kernel, KernelOps, Runtime};

use crate::helpers::*;
use crate::CaseResult;

/// `dcci` of the single line holding the address, out to global memory.
const LINE: bool = false;
const OUT: u64 = 2;

pub(crate) fn simulator_kernels(rt: &Runtime) -> CaseResult {
    let nothing = || Kernel::new("nothing", |_: &mut dyn KernelOps| {});
    expect(
        "LaunchKernel without a device",
        rt.launch_kernel(nothing(), 1, RawStream(0)),
        if rt.runs_sim_kernels() {
            NO_CONTEXT
        } else {
            NOT_SUPPORTED
        },
    );
    let _d = Dev::open(rt);
    expect(
        "LaunchKernel blockDim 0",
        rt.launch_kernel(nothing(), 0, RawStream(0)),
        INVALID_PARAM,
    );
    if !rt.runs_sim_kernels() {
        expect(
            "LaunchKernel on a real runtime",
            rt.launch_kernel(nothing(), 1, RawStream(0)),
            NOT_SUPPORTED,
        );
        return Ok(());
    }
    expect(
        "LaunchKernel on a stream that is not one",
        rt.launch_kernel(nothing(), 1, RawStream(0x1234)),
        BAD_HANDLE,
    );
    let flag = malloc(rt, 64);
    write_u64(rt, flag, 0);
    let (s1, s2) = (stream(rt), stream(rt));
    let f = flag.0;
    let signal = Kernel::new("myKernel1", move |ctx: &mut dyn KernelOps| {
        ctx.store(f, 8, 1);
        ctx.dcci(f, LINE, OUT);
    });
    let wait_for_two = Kernel::new("myKernel2", move |ctx: &mut dyn KernelOps| loop {
        ctx.dcci(f, LINE, OUT);
        if ctx.load(f, 8) == 2 {
            break;
        }
        ctx.spin(100);
    });
    // A kernel body that panics faults its task with the panic's words, here as on a device
    // a trap does; the process goes on.
    let panics = Kernel::new("panics", |_: &mut dyn KernelOps| panic!("block gave up"));
    let s0 = stream(rt);
    expect("LaunchKernel panics", rt.launch_kernel(panics, 2, s0), 0);
    let fault = rt
        .synchronize_stream(s0)
        .expect_err("a panicking kernel faults its stream");
    if !fault.message.contains("block gave up") {
        return Err(format!("the fault does not say the panic's words: {fault}"));
    }
    if !rt.chip().features.task_value_wait {
        // No value wait on this chip: the kernel's store alone.
        expect("LaunchKernel myKernel1", rt.launch_kernel(signal, 1, s2), 0);
        expect("Synchronize the writer", rt.synchronize_stream(s2), 0);
        return match read_u64(rt, flag) {
            1 => Ok(()),
            v => Err(format!("the kernel's store left {v} in the flag")),
        };
    }
    expect(
        "ValueWait for the kernel's store",
        rt.value_wait(flag, 1, 1, s1),
        0,
    );
    expect("LaunchKernel myKernel1", rt.launch_kernel(signal, 1, s2), 0);
    expect(
        "LaunchKernel myKernel2",
        rt.launch_kernel(wait_for_two, 4, s1),
        0,
    );
    expect(
        "ValueWrite releasing the kernel",
        rt.value_write(flag, 2, 0, s2),
        0,
    );
    expect("Synchronize the writer", rt.synchronize_stream(s2), 0);
    expect("Synchronize the waiter", rt.synchronize_stream(s1), 0);
    if read_u64(rt, flag) != 2 {
        return Err("the flag does not hold the value write's 2".into());
    }
    Ok(())
}
