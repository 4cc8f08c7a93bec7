//! Kernels launched from binaries: the rows of the binary, function and argument calls in the
//! vendor's order, and a launch that runs the registered simulator kernel of the function's
//! name with the packed arguments (placeholders copied to device memory).

mod common;

use std::sync::Arc;

use ascend_rt::raw_types::with_out;
use ascend_rt::raw_types::{memcpy_kind, RawArgs, RawBinary, RawFunction, RawParam, RawStream};
use ascend_rt::{Kernel, KernelOps, MemDst, MemSrc, MsgCode, SimKernelFactory};
use common::*;

fn a_binary_file() -> String {
    let p = std::env::temp_dir().join(format!("ascend-binary-{}.o", std::process::id()));
    std::fs::write(&p, b"not an Ascend C binary").unwrap();
    p.to_string_lossy().into_owned()
}

/// A kernel `store_sum(dst, a_ptr_to_u64, b)`: *dst = *a + b, reading its packed arguments.
fn store_sum() -> SimKernelFactory {
    Arc::new(|args: &[u8]| {
        let word = |i: usize| u64::from_le_bytes(args[i * 8..i * 8 + 8].try_into().unwrap());
        let (dst, a, b) = (word(0), word(1), word(2));
        Kernel::new("store_sum", move |ctx: &mut dyn KernelOps| {
            let v = ctx.load(a, 8);
            ctx.store(dst, 8, v + b);
            ctx.dcci(dst, false, 2);
        })
    })
}

/// A `store_sum` launch set up: (function, arguments), with the placeholder holding 40 and
/// `dst` the destination, so that a run stores 42: (binary, function, arguments).
fn store_sum_launch(
    r: &ascend_rt::Runtime,
    dst: ascend_rt::raw_types::Addr,
) -> (RawBinary, RawFunction, RawArgs) {
    r.register_sim_function("store_sum", store_sum());
    let bin = ok(with_out(|o| {
        r.binary_load_from_file(Some(&a_binary_file()), Some(o))
    }));
    let f = ok(with_out(|o| {
        r.binary_get_function(bin, Some("store_sum"), Some(o))
    }));
    let args = ok(with_out(|o| r.kernel_args_init(f, Some(o))));
    ok(with_out(|o| {
        r.kernel_args_append(args, Some(&dst.0.to_le_bytes()), Some(o))
    }));
    let ph = ok(with_out(|o| {
        r.kernel_args_append_placeholder(args, Some(o))
    }));
    let buf = ok(with_out(|o| {
        r.kernel_args_placeholder_buffer(args, ph, 8, Some(o))
    }))
    .expect("a placeholder buffer");
    buf.lock().unwrap().copy_from_slice(&40u64.to_le_bytes());
    ok(with_out(|o| {
        r.kernel_args_append(args, Some(&2u64.to_le_bytes()), Some(o))
    }));
    ok(r.kernel_args_finalize(args));
    (bin, f, args)
}

#[test]
fn a_function_runs_the_registered_kernel_with_its_packed_arguments_and_placeholders() {
    let r = rt0(A2);
    let s = stream(&r);
    let dst = malloc(&r, 8);
    let (bin, f, args) = store_sum_launch(&r, dst);
    assert_err(
        with_out(|o| r.kernel_args_append(args, Some(&[1]), Some(o))),
        107000,
        Some(MsgCode::EE1011),
    );
    ok(r.launch_kernel_with_config(f, 1, s, args, true));
    ok(r.synchronize_stream(s));
    let mut out = [0u8; 8];
    ok(r.memcpy(
        MemDst::Host(&mut out),
        8,
        MemSrc::Addr(dst),
        8,
        memcpy_kind::DEVICE_TO_HOST,
    ));
    assert_eq!(u64::from_le_bytes(out), 42);
    ok(r.binary_unload(bin));
    assert_err(
        r.launch_kernel_with_config(f, 1, s, args, true),
        107017,
        Some(MsgCode::EE1017),
    );
}

#[test]
fn a_function_with_no_simulator_kernel_fails_at_launch_naming_it() {
    let r = rt0(A2);
    let bin = ok(with_out(|o| {
        r.binary_load_from_file(Some(&a_binary_file()), Some(o))
    }));
    let f = ok(with_out(|o| {
        r.binary_get_function(bin, Some("add_custom"), Some(o))
    }));
    let args = ok(with_out(|o| r.kernel_args_init(f, Some(o))));
    let e = r
        .launch_kernel_with_config(f, 8, RawStream(0), args, true)
        .unwrap_err();
    assert_eq!(e.code(), 207000);
    assert!(
        e.message.contains("add_custom") && e.message.contains("ASCEND_SIM_KERNELS"),
        "{e}"
    );
}

#[test]
fn binary_and_argument_rows_follow_the_vendor_order() {
    let r = rt0(A2);
    let s = stream(&r);
    let path = a_binary_file();
    assert_err(
        with_out(|o| r.binary_load_from_file(None, Some(o))),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.binary_load_from_file(Some(&path), None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        with_out(|o| r.binary_load_from_file(Some("/no/such/file.o"), Some(o))),
        107000,
        Some(MsgCode::EE1003),
    );
    let bin = ok(with_out(|o| r.binary_load_from_file(Some(&path), Some(o))));
    assert_err(r.binary_unload(RawBinary(0)), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.binary_unload(RawBinary(0xdead)),
        107017,
        Some(MsgCode::EE1017),
    );
    assert_err(
        with_out(|o| r.binary_get_function(RawBinary(0), Some("k"), Some(o))),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        with_out(|o| r.binary_get_function(bin, None, Some(o))),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.binary_get_function(bin, Some("k"), None),
        100000,
        Some(MsgCode::EH0008),
    );
    let f = ok(with_out(|o| r.binary_get_function(bin, Some("k"), Some(o))));
    assert_err(
        with_out(|o| r.kernel_args_init(RawFunction(0), Some(o))),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(r.kernel_args_init(f, None), 100000, Some(MsgCode::EH0008));
    let a = ok(with_out(|o| r.kernel_args_init(f, Some(o))));
    assert_err(
        with_out(|o| r.kernel_args_append(RawArgs(0), Some(&[1]), Some(o))),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        with_out(|o| r.kernel_args_append(a, None, Some(o))),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        with_out(|o| r.kernel_args_append(a, Some(&[]), Some(o))),
        100000,
        Some(MsgCode::EH0007),
    );
    assert_err(
        r.kernel_args_append(a, Some(&[1]), None),
        100000,
        Some(MsgCode::EH0008),
    );
    let p = ok(with_out(|o| r.kernel_args_append_placeholder(a, Some(o))));
    assert_err(
        with_out(|o| r.kernel_args_placeholder_buffer(a, p, 0, Some(o))),
        100000,
        Some(MsgCode::EH0007),
    );
    assert_err(
        with_out(|o| r.kernel_args_placeholder_buffer(a, RawParam(0xbad), 4, Some(o))),
        107017,
        Some(MsgCode::EE1017),
    );
    assert_err(
        r.kernel_args_para_update(a, p, Some(&[])),
        100000,
        Some(MsgCode::EH0007),
    );
    ok(r.kernel_args_para_update(a, p, Some(&[9])));
    assert_err(
        r.kernel_args_finalize(RawArgs(0)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.launch_kernel_with_config(RawFunction(0), 1, s, a, true),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.launch_kernel_with_config(f, 0, s, a, true),
        100000,
        Some(MsgCode::EH0007),
    );
    assert_err(
        r.launch_kernel_with_config(f, 1, s, RawArgs(0), true),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.launch_kernel_with_config(f, 1, s, a, false),
        100000,
        Some(MsgCode::EH0012),
    );
    assert_err(
        r.launch_kernel_with_config(f, 1, GARBAGE, a, true),
        107017,
        Some(MsgCode::EE1017),
    );
    ok(r.binary_unload(bin));
    assert_err(r.binary_unload(bin), 107017, Some(MsgCode::EE1017));
}

#[test]
fn placeholder_memory_is_freed_once_the_stream_has_run_the_kernel() {
    let r = rt0(A2);
    let s = stream(&r);
    let path = a_binary_file();
    let nop: SimKernelFactory = Arc::new(|_: &[u8]| Kernel::new("nop", |_: &mut dyn KernelOps| {}));
    r.register_sim_function("nop", nop);
    let bin = ok(with_out(|o| r.binary_load_from_file(Some(&path), Some(o))));
    let f = ok(with_out(|o| {
        r.binary_get_function(bin, Some("nop"), Some(o))
    }));
    let args = ok(with_out(|o| r.kernel_args_init(f, Some(o))));
    let ph = ok(with_out(|o| {
        r.kernel_args_append_placeholder(args, Some(o))
    }));
    let buf = ok(with_out(|o| {
        r.kernel_args_placeholder_buffer(args, ph, 1 << 20, Some(o))
    }))
    .expect("a placeholder buffer");
    buf.lock().unwrap().fill(1);
    ok(r.kernel_args_finalize(args));
    let backing = || r.sim_view().unwrap().backing_bytes();
    let before = backing();
    // Each launch copies 1 MiB; a loop that synchronizes holds one launch's copy at a time.
    for _ in 0..32 {
        ok(r.launch_kernel_with_config(f, 1, s, args, true));
        ok(r.synchronize_stream(s));
        assert!(
            backing() <= before + (2 << 20),
            "held {} bytes",
            backing() - before
        );
    }
    // Launches in flight hold theirs until the stream has run them.
    for _ in 0..8 {
        ok(r.launch_kernel_with_config(f, 1, s, args, true));
    }
    assert!(backing() >= before + (8 << 20));
    ok(r.synchronize_stream(s));
    assert!(
        backing() <= before + (1 << 20),
        "held {} bytes",
        backing() - before
    );
    ok(r.binary_unload(bin));
}

#[test]
fn placeholder_memory_of_a_launch_into_a_model_lives_as_long_as_the_model_runs() {
    for captured in [false, true] {
        let r = rt0(A2);
        let dst = malloc(&r, 8);
        ok(r.memset(dst, 8, 0, 8));
        let (_, f, args) = store_sum_launch(&r, dst);
        let exec = stream(&r);
        let m = if captured {
            let s = stream(&r);
            ok(r.mdl_ri_capture_begin(s, ascend_rt::raw_types::capture_mode::RELAXED));
            ok(r.launch_kernel_with_config(f, 1, s, args, true));
            let mut m = ascend_rt::raw_types::RawModel::default();
            ok(r.mdl_ri_capture_end(s, Some(&mut m)));
            m
        } else {
            let (m, s) = bound(&r);
            ok(r.launch_kernel_with_config(f, 1, s, args, true));
            ok(r.mdl_ri_end_task(m, s));
            ok(r.mdl_ri_build_end(m, None));
            m
        };
        // The recording stream is idle: what would free a plain launch's copy happens here,
        // and new memory may take a freed address.
        ok(r.synchronize_stream(stream(&r)));
        let junk = malloc(&r, 32);
        ok(r.memset(junk, 32, 0x11, 32));
        for _ in 0..2 {
            ok(r.memset(dst, 8, 0, 8));
            ok(r.mdl_ri_execute_async(m, exec));
            ok(r.synchronize_stream(exec));
            assert_eq!(read_u64(&r, dst), 42, "captured: {captured}");
        }
    }
}

#[test]
fn freeing_placeholder_memory_on_many_threads_never_frees_another_owners_memory() {
    let r = rt0(A2);
    let nop: SimKernelFactory = Arc::new(|_: &[u8]| Kernel::new("nop", |_: &mut dyn KernelOps| {}));
    r.register_sim_function("nop", nop);
    let bin = ok(with_out(|o| {
        r.binary_load_from_file(Some(&a_binary_file()), Some(o))
    }));
    let f = ok(with_out(|o| {
        r.binary_get_function(bin, Some("nop"), Some(o))
    }));
    let stop = std::sync::atomic::AtomicBool::new(false);
    let running = || !stop.load(std::sync::atomic::Ordering::Relaxed);
    std::thread::scope(|sc| {
        // Launchers, each with its own stream, synchronizing after each launch.
        for _ in 0..4 {
            sc.spawn(|| {
                ok(r.set_device(0));
                let s = stream(&r);
                let args = ok(with_out(|o| r.kernel_args_init(f, Some(o))));
                let ph = ok(with_out(|o| {
                    r.kernel_args_append_placeholder(args, Some(o))
                }));
                ok(with_out(|o| {
                    r.kernel_args_placeholder_buffer(args, ph, 8, Some(o))
                }));
                ok(r.kernel_args_finalize(args));
                while running() {
                    ok(r.launch_kernel_with_config(f, 1, s, args, true));
                    ok(r.synchronize_stream(s));
                }
            });
        }
        // Programs allocating, using and freeing their own memory meanwhile.
        for _ in 0..3 {
            sc.spawn(|| {
                ok(r.set_device(0));
                while running() {
                    let a = malloc(&r, 32);
                    ok(r.memset(a, 32, 7, 32));
                    ok(r.free(a));
                }
            });
        }
        std::thread::sleep(std::time::Duration::from_secs(3));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
}

#[test]
fn arguments_larger_than_an_argument_list_are_refused_before_memory_is_taken() {
    let r = rt0(A2);
    let dst = malloc(&r, 8);
    r.register_sim_function("store_sum", store_sum());
    let bin = ok(with_out(|o| {
        r.binary_load_from_file(Some(&a_binary_file()), Some(o))
    }));
    let f = ok(with_out(|o| {
        r.binary_get_function(bin, Some("store_sum"), Some(o))
    }));
    let args = ok(with_out(|o| r.kernel_args_init(f, Some(o))));
    let big = vec![0u8; ascend_rt::MAX_KERNEL_ARGS_BYTES + 1];
    assert_code(
        with_out(|o| r.kernel_args_append(args, Some(&big), Some(o))),
        107000,
    );
    let p = ok(with_out(|o| {
        r.kernel_args_append(args, Some(&dst.0.to_le_bytes()), Some(o))
    }));
    assert_code(r.kernel_args_para_update(args, p, Some(&big)), 107000);
    let ph = ok(with_out(|o| {
        r.kernel_args_append_placeholder(args, Some(o))
    }));
    assert_code(
        with_out(|o| r.kernel_args_placeholder_buffer(args, ph, usize::MAX, Some(o))),
        107000,
    );
    assert_code(
        with_out(|o| r.kernel_args_placeholder_buffer(args, ph, 1 << 46, Some(o))),
        107000,
    );
}
