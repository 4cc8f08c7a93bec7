//! Kernels and caches across processes on the shared device: a kernel's body runs in the
//! launching process while the service's simulator runs its blocks, a kernel polls memory
//! another process writes, a process killed mid-kernel leaves the device to the others, and a
//! CMO in one process acts on the L2 lines another wrote.

mod service_children;

use std::io::Write;
use std::time::Duration;

use ascend_rt::raw_types::*;
use ascend_rt::Runtime;

use service_children::*;

/// The clients' roles: child runs of this test binary.
#[test]
fn child_process() {
    play_role();
}

#[test]
fn a_kernel_runs_on_the_shared_device_its_body_in_the_launching_process() {
    use ascend_rt::{Kernel, KernelOps};
    let (_path, rt) = on_new_service("kernel");
    let mut out = Addr::NULL;
    rt.malloc(Some(&mut out), 64 * 4, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(out, 256, 0, 256).unwrap();
    let at = out.0;
    let here = std::process::id();
    let k = Kernel::new("squares", move |c: &mut dyn KernelOps| {
        assert_eq!(
            std::process::id(),
            here,
            "the body runs in the launching process"
        );
        let i = u64::from(c.block_idx());
        c.store(at + 64 * i, 8, i * i);
        c.dcci(at + 64 * i, false, 2);
    });
    rt.launch_kernel(k, 4, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    for i in 0..4u64 {
        assert_eq!(read_u64(&rt, out.offset(64 * i)), i * i);
    }
    // A body that panics faults its stream with the panic's words.
    let p = Kernel::new("gives_up", |_: &mut dyn KernelOps| panic!("block gave up"));
    rt.launch_kernel(p, 2, RawStream::NULL).unwrap();
    let e = rt.synchronize_stream(RawStream::NULL).unwrap_err();
    assert!(e.to_string().contains("block gave up"), "{e}");
}

#[test]
fn a_kernel_in_one_process_polls_memory_another_process_writes() {
    let (path, rt) = on_new_service("poll");
    let mut page = Addr::NULL;
    rt.malloc(Some(&mut page), 4096, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(page, 4096, 0, 4096).unwrap();
    let mut key = String::new();
    rt.ipc_mem_get_export_key(page, 4096, Some(&mut key), 65, 1)
        .unwrap();
    let mut poller = child("poll", &path);
    writeln!(poller.stdin.take().unwrap(), "{key}").unwrap();
    let mut out = std::io::BufReader::new(poller.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("polling") {
        line.clear();
        assert!(std::io::BufRead::read_line(&mut out, &mut line).unwrap() > 0);
    }
    rt.value_write(page, 9, 0, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let st = poller.wait().unwrap();
    assert!(st.success() && rest.contains("the kernel saw 9"), "{rest}");
    assert_eq!(
        read_u64(&rt, page.offset(8)),
        10,
        "the kernel's store reached memory"
    );
    rt.ipc_mem_close(Some(&key)).unwrap();
}

#[test]
fn a_process_killed_while_its_kernel_runs_leaves_the_device_to_the_others() {
    use ascend_rt::{Kernel, KernelOps};
    let path = socket("killed-kernel");
    start_service(&path);
    let mut spinner = child("spin", &path);
    let mut out = std::io::BufReader::new(spinner.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("spinning") {
        line.clear();
        assert!(std::io::BufRead::read_line(&mut out, &mut line).unwrap() > 0);
    }
    std::thread::sleep(Duration::from_millis(50));
    spinner.kill().unwrap();
    spinner.wait().unwrap();
    until(&path, "the spinner released", |st| {
        st.iter().all(|p| p.pid != spinner.id())
    });
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(0).unwrap();
    let mut out = Addr::NULL;
    rt.malloc(Some(&mut out), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    let at = out.0;
    let k = Kernel::new("after", move |c: &mut dyn KernelOps| {
        c.store(at, 8, 5);
        c.dcci(at, false, 2);
    });
    rt.launch_kernel(k, 1, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    assert_eq!(read_u64(&rt, out), 5);
}

/// Writes 7 into a line of the shared L2 that memory holds as 0, has `role` act on it in
/// another process, and reads the word back.
fn after_another_process_cmo(name: &str, role: &str) -> u64 {
    let path = socket(name);
    start_service(&path);
    let rt = Runtime::shared_device(&path).unwrap();
    rt.set_device(0).unwrap();
    let mut flag = Addr::NULL;
    rt.malloc(Some(&mut flag), 4096, malloc_policy::NORMAL_ONLY)
        .unwrap();
    rt.memset(flag, 4096, 0, 4096).unwrap();
    // Memory itself holds the zeros; the 7 stays in the L2, dirty.
    rt.cmo_async(flag, 512, cmo_type::WRITEBACK, RawStream::NULL)
        .unwrap();
    rt.value_write(flag, 7, 0, RawStream::NULL).unwrap();
    rt.synchronize_stream(RawStream::NULL).unwrap();
    let mut key = String::new();
    rt.ipc_mem_get_export_key(flag, 4096, Some(&mut key), 65, 1)
        .unwrap();
    let mut other = child(role, &path);
    writeln!(other.stdin.take().unwrap(), "{key}").unwrap();
    let out = other.wait_with_output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("invalidated"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_u64(&rt, flag)
}

#[test]
fn a_cmo_in_one_process_acts_on_the_l2_lines_another_process_wrote() {
    // The other process's INVALID drops this process's dirty line: the write is lost.
    assert_eq!(after_another_process_cmo("cmo-invalid", "invalidate"), 0);
    // Written back first, it is kept.
    assert_eq!(
        after_another_process_cmo("cmo-writeback", "write_back_then_invalidate"),
        7
    );
}
