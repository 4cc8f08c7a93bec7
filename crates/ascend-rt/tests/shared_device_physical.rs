//! Physical memory shared by handle between processes on the shared device: one memory mapped
//! in two processes, the whitelist, a killed importer, and the exporter's free ending the
//! handle.

mod service_children;

use std::io::Write;

use ascend_rt::raw_types::*;
use ascend_rt::Runtime;

use service_children::*;

/// The clients' roles: child runs of this test binary.
#[test]
fn child_process() {
    play_role();
}

/// Maps 2 MiB of new physical memory, writes 123 in its first word and exports it (`flags`:
/// 1 lifts the whitelist). The handle, its range and the shareable handle.
fn export_physical(rt: &Runtime, flags: u64) -> (RawPhysical, Addr, u64) {
    let prop = PhysicalMemProp {
        mem_attr: 5,
        location: MemLocation {
            id: 0,
            kind: mem_location::DEVICE,
        },
        ..Default::default()
    };
    let mut h = RawPhysical::NULL;
    rt.malloc_physical(Some(&mut h), 2 << 20, Some(&prop), 0)
        .unwrap();
    let mut va = Addr::NULL;
    rt.reserve_mem_address(Some(&mut va), 2 << 20, 0, Addr::NULL, 0)
        .unwrap();
    rt.map_mem(va, 2 << 20, 0, h, 0).unwrap();
    rt.memset(va, 16, 0, 16).unwrap();
    rt.value_write(va, 123, 0, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    let mut sh = 0;
    rt.mem_export_to_shareable_handle(h, 0, flags, Some(&mut sh))
        .unwrap();
    (h, va, sh)
}

#[test]
fn physical_memory_mapped_in_two_processes_is_one_memory_and_only_listed_processes_import_it() {
    let (path, rt) = on_new_service("physical");
    let (h, va, sh) = export_physical(&rt, 0);
    // This process's stream waits on its mapping for the importer's write through its own.
    let mut s = RawStream::NULL;
    rt.create_stream(Some(&mut s)).unwrap();
    rt.value_wait(Addr(va.0 + 8), 456, 1, s).unwrap();

    let mut outsider = child("phys_import", &path);
    writeln!(outsider.stdin.take().unwrap(), "{sh:x}").unwrap();
    let out = outsider.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("refused with 207006") && text.contains("aclrtMemSetPidToShareableHandle"),
        "the refusal names the call that lists importers: {text}"
    );

    let mut importer = child("phys_import", &path);
    rt.mem_set_pid_to_shareable_handle(sh, Some(&[importer.id() as i32]), 1)
        .unwrap();
    writeln!(importer.stdin.take().unwrap(), "{sh:x}").unwrap();
    let out = importer.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("read 123") && text.contains("released"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    rt.synchronize_stream(s).unwrap();
    assert_eq!(read_u64(&rt, Addr(va.0 + 8)), 456);
    rt.unmap_mem(va).unwrap();
    rt.release_mem_address(va).unwrap();
    rt.free_physical(h).unwrap();
    until(&path, "nothing left booked", |st| {
        st.iter()
            .all(|p| (p.allocations, p.reserved_ranges, p.mappings) == (0, 0, 0))
    });
    // The exporter's free destroyed the shareable handle.
    let mut late = child("phys_import", &path);
    writeln!(late.stdin.take().unwrap(), "{sh:x}").unwrap();
    let text = String::from_utf8_lossy(&late.wait_with_output().unwrap().stdout).to_string();
    assert!(text.contains("refused with 107000"), "{text}");
}

#[test]
fn a_killed_importer_leaves_no_mapping_and_the_exporters_memory_is_freed_after_it() {
    let (path, rt) = on_new_service("physical-killed");
    let (h, va, sh) = export_physical(&rt, 1);
    let mut holder = child("phys_hold", &path);
    writeln!(holder.stdin.take().unwrap(), "{sh:x}").unwrap();
    until(&path, "the holder's mapping", |st| {
        st.iter()
            .any(|p| p.pid == holder.id() && (p.reserved_ranges, p.mappings) == (1, 1))
    });
    // The exporter lets go first: its memory lives on under the other process's mapping.
    rt.unmap_mem(va).unwrap();
    rt.release_mem_address(va).unwrap();
    rt.free_physical(h).unwrap();
    holder.kill().unwrap();
    holder.wait().unwrap();
    until(&path, "the holder released", |st| {
        st.iter().all(|p| p.pid != holder.id())
            && st.iter().all(|p| (p.allocations, p.mappings) == (0, 0))
    });
    // The device goes on: new physical memory maps and works.
    let (h2, va2, _) = export_physical(&rt, 1);
    assert_eq!(read_u64(&rt, va2), 123);
    rt.unmap_mem(va2).unwrap();
    rt.free_physical(h2).unwrap();
}

#[test]
fn the_exporter_s_free_ends_its_shareable_handle_even_while_it_still_maps_the_memory() {
    let (path, rt) = on_new_service("free-mapped");
    let (h, va, sh) = export_physical(&rt, 1);
    rt.free_physical(h).unwrap();
    // Still mapped here, still readable here; no other process imports it any more.
    assert_eq!(read_u64(&rt, va), 123);
    let mut late = child("phys_import", &path);
    writeln!(late.stdin.take().unwrap(), "{sh:x}").unwrap();
    let text = String::from_utf8_lossy(&late.wait_with_output().unwrap().stdout).to_string();
    assert!(text.contains("refused with 107000"), "{text}");
    rt.unmap_mem(va).unwrap();
}
