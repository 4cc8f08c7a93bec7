//! Cases of IPC memory, notifies and events within one process: the runtime's checks in order, an export, an
//! import of the process's own key (the exporter's memory), closes in order, and a key that
//! is gone. Across processes: the shared device's tests (`crates/ascend-rt/tests`).

use ascend_rt::raw_types::*;
use ascend_rt::Runtime;

use crate::helpers::*;
use crate::CaseResult;

/// Memory exported without a pid whitelist.
const NO_PID_VALIDATION: u64 = 1;

pub(crate) fn ipc_memory(rt: &Runtime) -> CaseResult {
    let mut key = String::new();
    let mut pid = 0;
    expect(
        "DeviceGetBareTgid NULL",
        rt.device_get_bare_tgid(None),
        INVALID_PARAM,
    );
    expect(
        "DeviceGetBareTgid",
        rt.device_get_bare_tgid(Some(&mut pid)),
        0,
    );
    if pid as u32 != std::process::id() {
        return Err(format!(
            "the bare tgid {pid} is not the process id outside a container"
        ));
    }
    expect(
        "IpcMemGetExportKey without a device",
        rt.ipc_mem_get_export_key(Addr(0x1000), 4096, Some(&mut key), 65, 0),
        NO_CONTEXT,
    );
    let _d = Dev::open(rt);
    let p = malloc(rt, 1 << 20);
    expect(
        "IpcMemGetExportKey NULL",
        rt.ipc_mem_get_export_key(Addr::NULL, 4096, Some(&mut key), 65, 0),
        INVALID_PARAM,
    );
    expect(
        "IpcMemGetExportKey size 0",
        rt.ipc_mem_get_export_key(p, 0, Some(&mut key), 65, 0),
        RT_PARAM,
    );
    expect(
        "IpcMemGetExportKey flags 2",
        rt.ipc_mem_get_export_key(p, 4096, Some(&mut key), 65, 2),
        RT_PARAM,
    );
    let mut q = Addr::NULL;
    expect(
        "IpcMemImportByKey flags 2",
        rt.ipc_mem_import_by_key(Some(&mut q), Some("k"), 2),
        RT_PARAM,
    );
    expect(
        "IpcMemSetImportPid num 0",
        rt.ipc_mem_set_import_pid(Some("k"), Some(&[pid]), 0),
        RT_PARAM,
    );
    let exported = rt.ipc_mem_get_export_key(p, 1 << 20, Some(&mut key), 65, NO_PID_VALIDATION);
    if rt.chip().chip_type == ascend_chips::ChipType::MiniV3 {
        expect("IpcMemGetExportKey on 310B", exported, NOT_SUPPORTED);
        return Ok(());
    }
    expect("IpcMemGetExportKey", exported, 0);
    expect(
        "IpcMemImportByKey its own key",
        rt.ipc_mem_import_by_key(Some(&mut q), Some(&key), 0),
        0,
    );
    if q != p {
        return Err(format!(
            "the import {:#x} is not the exported {:#x}",
            q.0, p.0
        ));
    }
    write_u64(rt, q, 77);
    if read_u64(rt, p) != 77 {
        return Err("a write through the import is not in the exported memory".into());
    }
    expect("IpcMemClose the import", rt.ipc_mem_close(Some(&key)), 0);
    expect("IpcMemClose the key", rt.ipc_mem_close(Some(&key)), 0);
    expect(
        "IpcMemImportByKey a closed key",
        rt.ipc_mem_import_by_key(Some(&mut q), Some(&key), 0),
        RT_PARAM,
    );
    expect("Free", rt.free(p), 0);

    // A notify exported and imported in one process is the creator's: a record of the
    // import releases a wait on the original.
    let mut n = RawNotify::default();
    expect("CreateNotify", rt.create_notify(Some(&mut n), 0), 0);
    expect(
        "NotifyGetExportKey flags 1",
        rt.notify_get_export_key(n, Some(&mut key), 65, 1),
        RT_PARAM,
    );
    expect(
        "NotifyGetExportKey",
        rt.notify_get_export_key(n, Some(&mut key), 65, 2),
        0,
    );
    let mut m = RawNotify::default();
    expect(
        "NotifyImportByKey flags 4",
        rt.notify_import_by_key(Some(&mut m), Some(&key), 4),
        RT_PARAM,
    );
    expect(
        "NotifyImportByKey",
        rt.notify_import_by_key(Some(&mut m), Some(&key), 0),
        0,
    );
    let s = stream(rt);
    expect("WaitAndResetNotify", rt.wait_and_reset_notify(n, s, 0), 0);
    expect(
        "RecordNotify the import",
        rt.record_notify(m, RawStream::NULL),
        0,
    );
    expect("SynchronizeStream", rt.synchronize_stream(s), 0);
    expect("DestroyNotify the import", rt.destroy_notify(m), 0);
    expect("DestroyNotify", rt.destroy_notify(n), 0);

    // An IPC event's handle opened in the process that made it: a record of the opened event
    // completes the original.
    let mut handle = [0u8; ascend_rt::IPC_EVENT_HANDLE_SIZE];
    let mut e = RawEvent::default();
    let created = rt.create_event_ex_with_flag(Some(&mut e), event_flag::IPC);
    if !matches!(
        rt.chip().chip_type,
        ascend_chips::ChipType::Cloud910B93
            | ascend_chips::ChipType::David
            | ascend_chips::ChipType::Ascend350
    ) {
        expect("CreateEventExWithFlag IPC", created, NOT_SUPPORTED);
        return Ok(());
    }
    expect("CreateEventExWithFlag IPC", created, 0);
    expect(
        "IpcGetEventHandle NULL",
        rt.ipc_get_event_handle(e, None),
        INVALID_PARAM,
    );
    expect(
        "IpcGetEventHandle",
        rt.ipc_get_event_handle(e, Some(&mut handle)),
        0,
    );
    let mut opened = RawEvent::default();
    expect(
        "IpcOpenEventHandle",
        rt.ipc_open_event_handle(&handle, Some(&mut opened)),
        0,
    );
    expect(
        "RecordEvent the opened",
        rt.record_event(opened, RawStream::NULL),
        0,
    );
    expect("SynchronizeEvent the original", rt.synchronize_event(e), 0);
    expect("DestroyEvent the opened", rt.destroy_event(opened), 0);
    expect("DestroyEvent", rt.destroy_event(e), 0);
    Ok(())
}
