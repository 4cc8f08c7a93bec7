//! The service's books of its processes: a process's host threads, its status, its faults,
//! and the release of everything it owned when it goes.

use super::wire::{ProcessStatus, WireFault};
use super::DeviceService;
use crate::backend::{EventId, ModelId, NotifyId, StreamId};

impl DeviceService {
    /// A process has gone: what it owned is released, the others' work goes on.
    pub(super) fn release_process(&self, token: u64) {
        let Some(owned) = self.books().processes.remove(&token) else {
            return;
        };
        let be = &self.backend;
        be.ipc_forget_process(owned.pid);
        self.forget_landings(&owned.landings);
        self.forget_host_calls(token);
        for &stream in owned.streams.keys() {
            let _ = be.destroy_stream(StreamId(stream), true);
        }
        for (&device, &default) in &owned.devices {
            let _ = be.destroy_stream(default, true);
            self.close_shared(device, true);
        }
        for &e in &owned.events {
            let _ = be.destroy_event(EventId(e));
        }
        for &n in &owned.notifies {
            let _ = be.destroy_notify(NotifyId(n));
        }
        for &m in &owned.models {
            let _ = be.destroy_model(ModelId(m));
        }
        for &va in &owned.mapped {
            let _ = be.unmap_memory(va);
        }
        for &va in &owned.reserved {
            let _ = be.release_address(va);
        }
        for &(device, addr) in &owned.allocations {
            let _ = be.free(device, addr);
        }
        tracing::info!(
            "device service: process {} ended; its {} streams, {} allocations, {} events and {} \
             notifies are released",
            owned.pid,
            owned.streams.len(),
            owned.allocations.len(),
            owned.events.len(),
            owned.notifies.len()
        );
        self.write_outputs();
        // Its threads' names go with it (the calling thread is done with the process).
        for &key in owned.threads.values() {
            ascend_sim::act_as_host_thread(key);
            ascend_sim::label_host_thread(None);
        }
    }

    /// One process closes `device`: the last one closes it in the simulator.
    pub(super) fn close_shared(&self, device: u32, force: bool) {
        let last = {
            let mut b = self.books();
            let n = b.open_count.entry(device).or_default();
            *n = n.saturating_sub(1);
            *n == 0
        };
        if last {
            let _ = self.backend.close_device(device, force);
        }
    }

    /// The simulator's host thread for `token`'s program thread `thread`: a new one, named
    /// after the process, when the thread first calls.
    /// `None` once the process has gone (a call that comes after its end is not served).
    pub(super) fn program_thread(&self, token: u64, thread: u64) -> Option<u64> {
        let (key, name) = {
            let mut b = self.books();
            let o = b.processes.get_mut(&token)?;
            match o.threads.get(&thread) {
                Some(&k) => (k, None),
                None => {
                    let k = ascend_sim::new_host_thread();
                    o.threads.insert(thread, k);
                    (k, Some(o.name()))
                }
            }
        };
        if let Some(name) = name {
            ascend_sim::act_as_host_thread(key);
            ascend_sim::label_host_thread(Some(&name));
        }
        Some(key)
    }

    /// The processes, lowest pid first, and what each owns.
    pub(super) fn status(&self) -> Vec<ProcessStatus> {
        let b = self.books();
        let mut all: Vec<ProcessStatus> = b
            .processes
            .values()
            .map(|o| ProcessStatus {
                pid: o.pid,
                connections: o.connections,
                devices: o.devices.len(),
                streams: o.streams.len(),
                allocations: o.allocations.len(),
                events: o.events.len(),
                notifies: o.notifies.len(),
                models: o.models.len(),
                reserved_ranges: o.reserved.len(),
                mappings: o.mapped.len(),
            })
            .collect();
        all.sort_by_key(|p| p.pid);
        all
    }

    /// The task faults of `token`'s streams since its last look; the others' are kept for
    /// them.
    pub(super) fn faults_of(&self, token: u64) -> Vec<WireFault> {
        let new = self.backend.take_task_faults();
        let mut b = self.books();
        for f in new {
            let owner = b
                .processes
                .iter()
                .find(|(_, o)| {
                    o.streams.contains_key(&f.stream.0)
                        || o.devices.values().any(|s| *s == f.stream)
                })
                .map(|(&t, _)| t);
            if let Some(t) = owner {
                b.processes.entry(t).or_default().faults.push(f.into());
            }
        }
        b.processes
            .get_mut(&token)
            .map(|o| std::mem::take(&mut o.faults))
            .unwrap_or_default()
    }
}
