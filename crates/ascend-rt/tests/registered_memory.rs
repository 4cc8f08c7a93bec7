//! Registered host memory and managed memory: the rows of each call in the vendor's order,
//! and the device's view of registered memory kept coherent with the host's at every call.

mod common;

use std::sync::Arc;

use ascend_rt::raw_types::with_out;
use ascend_rt::raw_types::{memcpy_kind, Addr};
use ascend_rt::{raw_types::host_reg_flag, MemDst, MemSrc, MsgCode, SharedBytes};
use common::*;

#[test]
fn a_mapped_registration_shows_each_side_what_the_other_wrote_by_the_next_call() {
    let r = rt0(A2);
    let s = stream(&r);
    let prog = SharedBytes::new(256);
    prog.fill(7);
    let host = prog.addr();
    ok(r.host_register_v2(host, 256, host_reg_flag::MAPPED, Some(prog.clone())));
    let dev = ok(with_out(|o| r.host_get_device_pointer(host, Some(o), 0)));
    assert_eq!(
        read_bytes(&r, dev, 256),
        vec![7; 256],
        "the device sees the host's bytes"
    );
    // The host writes; a task launched afterwards reads it.
    prog.fill(9);
    let copy = malloc(&r, 256);
    ok(r.memcpy_async(
        MemDst::Addr(copy),
        256,
        MemSrc::Addr(dev),
        256,
        memcpy_kind::DEVICE_TO_DEVICE,
        s,
    ));
    ok(r.synchronize_stream(s));
    assert_eq!(read_bytes(&r, copy, 256), vec![9; 256]);
    // The device writes half; after the synchronize the host sees it, and keeps the rest.
    ok(r.memset_async(dev, 128, 3, 128, s));
    ok(r.synchronize_stream(s));
    assert_eq!((prog.get(0), prog.get(127), prog.get(128)), (3, 3, 9));
    ok(r.host_unregister(host));
    assert_err(r.host_unregister(host), 507911, Some(MsgCode::EE1018));
}

#[test]
fn a_mapped_registration_on_a_shared_device_shows_each_side_what_the_other_wrote() {
    // The mirror's upkeep crosses to the device service as the runtime's own copies.
    let r = on_new_service("registered");
    let s = stream(&r);
    let prog = SharedBytes::new(4096);
    prog.fill(7);
    let host = prog.addr();
    ok(r.host_register_v2(host, 4096, host_reg_flag::MAPPED, Some(prog.clone())));
    let dev = ok(with_out(|o| r.host_get_device_pointer(host, Some(o), 0)));
    assert_eq!(read_bytes(&r, dev, 4096), vec![7; 4096]);
    prog.fill(9);
    let copy = malloc(&r, 4096);
    ok(r.memcpy_async(
        MemDst::Addr(copy),
        4096,
        MemSrc::Addr(dev),
        4096,
        memcpy_kind::DEVICE_TO_DEVICE,
        s,
    ));
    ok(r.synchronize_stream(s));
    assert_eq!(read_bytes(&r, copy, 4096), vec![9; 4096]);
    ok(r.memset_async(dev, 2048, 3, 2048, s));
    ok(r.synchronize_stream(s));
    assert_eq!((prog.get(0), prog.get(2047), prog.get(2048)), (3, 3, 9));
    ok(r.host_unregister(host));
}

#[test]
fn a_page_locked_buffer_registers_without_host_memory_given() {
    let r = rt0(A2);
    let s = stream(&r);
    let host = malloc_host(&r, 64);
    let buf = r.host_buffer(host).unwrap();
    buf.write_at(0, &[5; 64]);
    ok(r.host_register_v2(
        host,
        64,
        host_reg_flag::MAPPED | host_reg_flag::PINNED,
        None,
    ));
    let dev = ok(with_out(|o| r.host_get_device_pointer(host, Some(o), 0)));
    ok(r.memset_async(dev, 32, 1, 32, s));
    ok(r.synchronize_stream(s));
    assert_eq!(
        buf.to_vec()[..33],
        [[1u8; 32].as_slice(), &[5]].concat()[..]
    );
    ok(r.host_unregister(host));
    ok(r.free_host(host));
    // Memory the runtime cannot reach, given without its bytes: refused.
    let outside = [0u8; 16];
    assert_code(
        r.host_register_v2(
            Addr(outside.as_ptr() as u64),
            16,
            host_reg_flag::MAPPED,
            None,
        ),
        107000,
    );
}

#[test]
fn registration_rows_follow_the_vendor_order() {
    let r = rt0(A2);
    let prog = SharedBytes::new(128);
    let host = prog.addr();
    let m = host_reg_flag::MAPPED;
    assert_err(
        r.host_register_v2(Addr::NULL, 8, m, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.host_register_v2(host, 0, m, Some(prog.clone())),
        100000,
        Some(MsgCode::EH0007),
    );
    for bad in [0, 1, 0x10, m | 0x100] {
        assert_err(
            r.host_register_v2(host, 128, bad, Some(prog.clone())),
            107000,
            Some(MsgCode::EE1011),
        );
    }
    on_fresh_thread(|| {
        assert_code(r.host_register_v2(host, 128, m, Some(prog.clone())), 107002);
        assert_code(
            with_out(|o| r.host_get_device_pointer(host, Some(o), 0)),
            107002,
        );
        assert_code(r.host_unregister(host), 107002);
    });
    // Pinned only: registered, without a device pointer.
    ok(r.host_register_v2(host, 64, host_reg_flag::PINNED, Some(prog.clone())));
    assert_err(
        r.host_register_v2(Addr(host.0 + 32), 64, m, Some(prog.clone())),
        507910,
        Some(MsgCode::EE1018),
    );
    assert_err(
        with_out(|o| r.host_get_device_pointer(host, Some(o), 0)),
        107000,
        Some(MsgCode::EE1011),
    );
    ok(r.host_register_v2(Addr(host.0 + 64), 64, m, Some(prog.clone())));
    assert_err(
        with_out(|o| r.host_get_device_pointer(Addr(host.0 + 65), Some(o), 0)),
        107000,
        Some(MsgCode::EE1011),
    );
    assert_err(
        with_out(|o| r.host_get_device_pointer(Addr::NULL, Some(o), 0)),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.host_get_device_pointer(host, None, 0),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        with_out(|o| r.host_get_device_pointer(host, Some(o), 1)),
        100000,
        Some(MsgCode::EH0012),
    );
    assert_err(r.host_unregister(Addr::NULL), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.host_unregister(Addr(host.0 + 1)),
        507911,
        Some(MsgCode::EE1018),
    );
    ok(r.host_unregister(host));
    ok(r.host_unregister(Addr(host.0 + 64)));
    // The first form: mapped, with its device pointer at once; a bad type is 207000.
    assert_err(
        r.host_register(host, 128, 0, None, Some(prog.clone())),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_code(
        with_out(|o| r.host_register(host, 128, 0x1, Some(o), Some(prog.clone()))),
        207000,
    );
    let dev = ok(with_out(|o| {
        r.host_register(host, 128, 0, Some(o), Some(prog.clone()))
    }));
    assert_eq!(
        ok(with_out(|o| r.host_get_device_pointer(host, Some(o), 0))),
        dev
    );
    ok(r.host_unregister(host));
}

#[test]
fn a_mirror_is_not_the_programs_to_free_and_goes_with_its_device() {
    let r = rt0(A2);
    let prog = SharedBytes::new(64);
    let host = prog.addr();
    ok(r.host_register_v2(host, 64, host_reg_flag::MAPPED, Some(prog.clone())));
    let dev = ok(with_out(|o| r.host_get_device_pointer(host, Some(o), 0)));
    assert_code(r.free(dev), 107000);
    ok(r.reset_device_force(0));
    ok(r.set_device(0));
    assert_err(
        with_out(|o| r.host_get_device_pointer(host, Some(o), 0)),
        107000,
        Some(MsgCode::EE1011),
    );
    assert_code(r.host_unregister(host), 507911);
    ok(r.host_register_v2(host, 64, host_reg_flag::MAPPED, Some(prog)));
    ok(r.host_unregister(host));
}

#[test]
fn many_threads_register_their_own_memory_and_see_their_own_writes() {
    let r = Arc::new(rt0(A2));
    let threads: Vec<_> = (0..8u8)
        .map(|t| {
            let r = r.clone();
            std::thread::spawn(move || {
                r.set_device(0).unwrap();
                let s = stream(&r);
                let prog = SharedBytes::new(4096);
                let host = prog.addr();
                for round in 0..10u8 {
                    r.host_register_v2(host, 4096, host_reg_flag::MAPPED, Some(prog.clone()))
                        .unwrap();
                    let dev = with_out(|o| r.host_get_device_pointer(host, Some(o), 0)).unwrap();
                    let v = t * 16 + round;
                    r.memset_async(dev, 4096, v as i32, 4096, s).unwrap();
                    r.synchronize_stream(s).unwrap();
                    assert!(
                        (0..4096).all(|i| prog.get(i) == v),
                        "thread {t} round {round}"
                    );
                    r.host_unregister(host).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn managed_memory_rows_end_in_no_unified_memory() {
    let r = rt0(A2);
    assert_err(
        r.mem_alloc_managed(None, 64, 1),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        with_out(|o| r.mem_alloc_managed(Some(o), 64, 2)),
        100000,
        Some(MsgCode::EH0009),
    );
    assert_err(
        with_out(|o| r.mem_alloc_managed(Some(o), 0, 1)),
        107000,
        Some(MsgCode::EE1003),
    );
    on_fresh_thread(|| assert_code(with_out(|o| r.mem_alloc_managed(Some(o), 64, 1)), 107002));
    for soc in ALL_SOCS {
        assert_code(
            with_out(|o| rt0(soc).mem_alloc_managed(Some(o), 64, 1)),
            207000,
        );
    }
}

#[test]
fn a_host_function_sees_the_devices_earlier_writes_and_the_next_task_sees_its_own() {
    let r = rt0(A2);
    let s = stream(&r);
    let prog = SharedBytes::new(64);
    let host = prog.addr();
    ok(r.host_register_v2(host, 64, host_reg_flag::MAPPED, Some(prog.clone())));
    let dev = ok(with_out(|o| r.host_get_device_pointer(host, Some(o), 0)));
    let out = malloc(&r, 64);
    ok(r.memset(out, 64, 0, 64));
    // The stream writes the registered memory, a host function reads it and writes it back
    // changed, and a copy after the function reads what it wrote; all with one synchronize.
    ok(r.memset_async(dev, 64, 5, 64, s));
    let (mine, saw) = (prog.clone(), Arc::new(std::sync::Mutex::new(0u8)));
    let seen = saw.clone();
    ok(r.launch_host_func(
        s,
        Some(Box::new(move || {
            *seen.lock().unwrap() = mine.get(0);
            mine.fill(42);
        })),
    ));
    ok(r.memcpy_async(
        MemDst::Addr(out),
        64,
        MemSrc::Addr(dev),
        64,
        memcpy_kind::DEVICE_TO_DEVICE,
        s,
    ));
    ok(r.synchronize_stream(s));
    assert_eq!(*saw.lock().unwrap(), 5, "the host function saw the fill");
    assert_eq!(
        read_bytes(&r, out, 64),
        vec![42; 64],
        "the copy saw the host function's write"
    );
}

#[test]
fn calls_made_inside_a_callback_see_registered_memory_as_calls_inside_a_host_function_do() {
    for use_callback in [false, true] {
        let r = Arc::new(rt0(A2));
        let s = stream(&r);
        let prog = SharedBytes::new(64);
        let host = prog.addr();
        ok(r.host_register_v2(host, 64, host_reg_flag::MAPPED, Some(prog.clone())));
        let dev = ok(with_out(|o| r.host_get_device_pointer(host, Some(o), 0)));
        let mut ctx = ascend_rt::raw_types::RawContext::default();
        ok(r.get_current_context(Some(&mut ctx)));
        ok(r.memset_async(dev, 64, 5, 64, s));
        let seen = Arc::new(std::sync::Mutex::new((0u8, 0u8)));
        let (r2, mine, seen2) = (r.clone(), prog.clone(), seen.clone());
        let f: ascend_rt::HostFn = Box::new(move || {
            r2.set_current_context(ctx).unwrap();
            // The host writes; a copy from the device pointer reads it back.
            mine.fill(42);
            let mut out = [0u8; 8];
            r2.memcpy(
                MemDst::Host(&mut out),
                8,
                MemSrc::Addr(dev),
                8,
                memcpy_kind::DEVICE_TO_HOST,
            )
            .unwrap();
            // The device writes; the host's bytes show it.
            r2.memset(dev, 64, 77, 64).unwrap();
            *seen2.lock().unwrap() = (out[0], mine.get(0));
        });
        if use_callback {
            // A callback runs inside aclrtProcessReport: an API call around the calls it makes.
            ok(r.subscribe_report(5, s));
            ok(r.launch_callback(Some(f), ascend_rt::raw_types::callback_block::BLOCK, s));
            let r3 = r.clone();
            let sync = std::thread::spawn(move || {
                r3.set_device(0).unwrap();
                r3.synchronize_stream(s)
            });
            ok(r.process_report(5, 2000));
            ok(sync.join().unwrap());
        } else {
            ok(r.launch_host_func(s, Some(f)));
            ok(r.synchronize_stream(s));
        }
        assert_eq!(*seen.lock().unwrap(), (42, 77), "callback: {use_callback}");
        assert_eq!(prog.get(0), 77, "callback: {use_callback}");
        assert_eq!(read_bytes(&r, dev, 1), vec![77], "callback: {use_callback}");
    }
}

#[test]
fn chips_without_host_registration_refuse_it_after_the_arguments_and_the_context() {
    for soc in [MINI_V3, DC] {
        let r = rt0(soc);
        let prog = SharedBytes::new(128);
        let host = prog.addr();
        let m = host_reg_flag::MAPPED;
        // The argument rows come first, then the context.
        assert_code(
            with_out(|o| r.host_register(host, 128, 0x1, Some(o), Some(prog.clone()))),
            207000,
        );
        assert_eq!(
            ok(r.get_last_error(0)),
            0,
            "{soc}: a bad type is a warning only"
        );
        assert_err(
            r.host_register_v2(Addr::NULL, 8, m, None),
            100000,
            Some(MsgCode::EH0008),
        );
        assert_err(
            r.host_register_v2(host, 128, 0x10, Some(prog.clone())),
            107000,
            Some(MsgCode::EE1011),
        );
        on_fresh_thread(|| {
            assert_code(r.host_register_v2(host, 128, m, Some(prog.clone())), 107002);
            assert_code(
                with_out(|o| r.host_register(host, 128, 0, Some(o), Some(prog.clone()))),
                107002,
            );
            assert_code(r.host_unregister(host), 107002);
        });
        // Then the chip: every flag, pinned alone too, and the first form.
        for flag in [
            m,
            host_reg_flag::PINNED,
            host_reg_flag::READONLY | host_reg_flag::PINNED,
        ] {
            assert_err(
                r.host_register_v2(host, 128, flag, Some(prog.clone())),
                207000,
                Some(MsgCode::EE1001),
            );
            assert_eq!(
                ok(r.get_last_error(0)),
                207000,
                "{soc}: stored as the last error"
            );
        }
        assert_err(
            with_out(|o| r.host_register(host, 128, 0, Some(o), Some(prog.clone()))),
            207000,
            Some(MsgCode::EE1001),
        );
        // Nothing was registered, and the unregistration is refused before its lookup.
        assert_err(r.host_unregister(host), 207000, Some(MsgCode::EE1001));
        assert_err(
            with_out(|o| r.host_get_device_pointer(host, Some(o), 0)),
            107000,
            Some(MsgCode::EE1011),
        );
    }
}

#[test]
fn chips_with_host_registration_register_on_every_family() {
    for soc in [A2, A3, DAVID, DAVID_DT, CLOUD] {
        let r = rt0(soc);
        let prog = SharedBytes::new(64);
        let dev = ok(with_out(|o| {
            r.host_register(prog.addr(), 64, 0, Some(o), Some(prog.clone()))
        }));
        assert_ne!(dev, Addr::NULL, "{soc}");
        ok(r.host_unregister(prog.addr()));
    }
}

#[test]
fn the_runtimes_own_mirror_copies_of_mapped_memory_are_not_races_of_the_program() {
    // A task fills the mapped memory's device side while the host makes calls (each of which
    // exchanges the mirror); the program synchronizes before it reads: correct, no race.
    let config = ascend_sim::SimConfig {
        races: true,
        ..ascend_sim::SimConfig::default()
    };
    let r = ascend_rt::Runtime::sim_with(A2, config).unwrap();
    r.set_device(0).unwrap();
    let s = stream(&r);
    let prog = SharedBytes::new(4096);
    let host = prog.addr();
    ok(r.host_register_v2(host, 4096, host_reg_flag::MAPPED, Some(prog.clone())));
    let dev = ok(with_out(|o| r.host_get_device_pointer(host, Some(o), 0)));
    ok(r.memset_async(dev, 4096, 5, 4096, s));
    // Calls while the fill may still run: each one exchanges the mirror.
    let other = malloc(&r, 64);
    ok(r.memset(other, 64, 0, 64));
    ok(r.synchronize_stream(s));
    assert_eq!(prog.get(4095), 5);
    let report = r.sim_view().expect("a simulator runtime").report();
    let races: Vec<_> = report
        .hazards
        .iter()
        .filter(|h| h.kind.ends_with("race"))
        .collect();
    assert!(races.is_empty(), "{races:?}");
    ok(r.host_unregister(host));
}
