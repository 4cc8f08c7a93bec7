//! Random-number tasks: the parameters given by address are read, the numbers generated
//! ([`crate::random`]) and written, and the counter advanced, when the task completes, through
//! the task scheduler's path to memory (the DSA engine's accesses, as the scheduler's go).

use ascend_chips::L2Agent;

use crate::engine::Engine;
use crate::memory::{Memory, Writer};
use crate::types::{RandomParam, RandomTask};

/// A parameter's value: as given, or read from device memory.
fn param(m: &Memory, p: &RandomParam) -> Result<u64, String> {
    if !p.at_addr {
        return Ok(p.value);
    }
    let mut b = [0u8; 8];
    let n = usize::from(p.size.clamp(1, 8));
    m.read(p.value, &mut b[..n])
        .map_err(|e| format!("reading a random-number parameter: {e}"))?;
    Ok(u64::from_le_bytes(b))
}

impl Engine {
    /// Runs random-number task `id` of stream `s`; the fault, if any.
    pub(super) fn random_numbers(&mut self, s: u64, id: u64, r: &RandomTask) -> Option<String> {
        let by = Writer::Task {
            task: id,
            stream: s,
            at_ns: self.now,
        };
        let mut reads = vec![(r.counter, 16)];
        for p in [&r.seed, &r.num, &r.params[0], &r.params[1]] {
            if p.at_addr {
                reads.push((p.value, u64::from(p.size.clamp(1, 8))));
            }
        }
        // The result's length is known once `num` is: read it first, outside the access.
        let num = if r.num.at_addr {
            match param(&self.mem, &r.num) {
                Ok(n) => n,
                Err(e) => return Some(format!("task {id}: {e}")),
            }
        } else {
            r.num.value
        };
        let len = match r.func {
            crate::types::RandomFunc::DropoutBitmask => num.div_ceil(8),
            _ => num.saturating_mul(r.ty.size()),
        };
        if let Err(e) = self.mem.check(r.result, len.max(1)) {
            return Some(format!("task {id}: the result range: {e}"));
        }
        let writes = [(r.result, len), (r.counter, 16)];
        let race = self.race_ranges(s, id, "RandomNum", &reads, &writes);
        let (done, fault) = self.agent_access(L2Agent::Scheduler, &reads, &writes, by, |m| {
            let seed = param(m, &r.seed)?;
            let a = param(m, &r.params[0])?;
            let b = param(m, &r.params[1])?;
            let mut counter = [0u8; 16];
            m.read(r.counter, &mut counter)
                .map_err(|e| format!("reading the random-number counter: {e}"))?;
            let (out, next) = crate::random::generate(r.func, r.ty, a, b, seed, counter, num);
            m.write(r.result, &out, by).map_err(|e| e.to_string())?;
            m.write(r.counter, &next, by).map_err(|e| e.to_string())?;
            Ok::<(), String>(())
        });
        if let Err(e) = done {
            return Some(format!("task {id}: {e}"));
        }
        self.on_mem_write(r.result, len);
        self.on_mem_write(r.counter, 16);
        fault.or(race)
    }
}
