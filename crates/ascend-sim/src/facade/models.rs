//! [`Sim`]'s model calls: creating and destroying model running instances, binding streams
//! to them, and running them synchronously or on a stream.

use super::Sim;
use crate::types::*;

impl Sim {
    /// Creates an empty model running instance on `device`.
    pub fn create_model(&self, device: u32) -> Result<ModelId, SimError> {
        self.with(|e| {
            e.check_device(device)?;
            Ok(ModelId(e.create_model()))
        })
    }

    /// Binds a persistent stream: later submissions to it are recorded into the model.
    pub fn bind_stream(&self, model: ModelId, stream: StreamId) -> Result<(), SimError> {
        self.with(|e| {
            e.model(model.0)?;
            e.stream(stream.0)?;
            e.clear_recorded(stream.0);
            let st = e.streams.get_mut(&stream.0).expect("checked");
            st.model = Some(model.0);
            let m = e.models.get_mut(&model.0).expect("checked");
            if !m.streams.contains(&stream.0) {
                m.streams.push(stream.0);
            }
            Ok(())
        })
    }

    /// Unbinds a stream; its recorded tasks are dropped from the model.
    pub fn unbind_stream(&self, model: ModelId, stream: StreamId) -> Result<(), SimError> {
        self.with(|e| {
            e.model(model.0)?;
            e.stream(stream.0)?;
            let st = e.streams.get_mut(&stream.0).expect("checked");
            if st.model == Some(model.0) {
                st.model = None;
                e.clear_recorded(stream.0);
            }
            let m = e.models.get_mut(&model.0).expect("checked");
            m.streams.retain(|&s| s != stream.0);
            Ok(())
        })
    }

    /// Runs every recorded task of the model's streams once (each stream in order, streams
    /// concurrently) and blocks until all complete; repeatable.
    pub fn execute_model(&self, model: ModelId, timeout_ms: Option<u64>) -> Result<(), SimError> {
        let mut g = self.lock();
        g.model(model.0)?;
        let i = g.spawn_instance(model.0, None, None);
        if !g.host_waits.is_empty() {
            self.changed.notify_all();
        }
        let what = HostWait::ExecuteModel(model.0);
        let (mut g, r) = self.block_until(g, what, timeout_ms, move |e| {
            e.instances.get(&i).is_none_or(|x| x.remaining == 0)
        });
        let mut fault = None;
        if r.is_ok() {
            if g.races.on {
                let host = crate::races::AgentKey::Host(super::caller_key());
                g.races.instance_joined(i, host);
            }
            // The instance's first fault is this call's (its streams return at once).
            fault = g
                .instances
                .remove(&i)
                .and_then(|x| x.fault)
                .map(|(f, class)| class.error(f));
            g = self.observed(g);
        } else if let Some(x) = g.instances.get_mut(&i) {
            // Given up on: the instance goes when its last task completes.
            if x.remaining == 0 {
                g.instances.remove(&i);
            } else {
                x.abandoned = true;
            }
        }
        self.finish_wait(g, r, fault)
    }

    /// Enqueues one run of the model on `stream`: later tasks of `stream` start after it.
    pub fn execute_model_async(&self, model: ModelId, stream: StreamId) -> Result<(), SimError> {
        let s = stream.0;
        let mut g = self.lock();
        g.model(model.0)?;
        g.stream(s)?;
        let cap = g.queue_capacity();
        let what = HostWait::ExecuteModelAsync {
            model: model.0,
            stream: s,
        };
        let (g2, r) = self.block_until(g, what, None, move |e| {
            e.streams
                .get(&s)
                .is_none_or(|st| st.slots_used < cap || st.idle())
        });
        g = g2;
        r?;
        g.stream(s)?;
        g.enqueue_model_run(s, model.0);
        self.release(g);
        Ok(())
    }

    /// Destroys a model (its barrier-id map goes with it).
    pub fn destroy_model(&self, model: ModelId) -> Result<(), SimError> {
        self.with(|e| {
            e.model(model.0)?;
            let streams = std::mem::take(&mut e.models.get_mut(&model.0).expect("checked").streams);
            for s in streams {
                if let Some(st) = e.streams.get_mut(&s) {
                    st.model = None;
                    e.clear_recorded(s);
                }
            }
            e.models.remove(&model.0);
            e.barriers.retain(|(m, _), _| *m != Some(model.0));
            Ok(())
        })
    }
}
