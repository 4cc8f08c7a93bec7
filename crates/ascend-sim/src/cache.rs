//! The seam for the cache model: the engine calls a [`CacheModel`] on every CMO and on every
//! device read and write. The current model ([`NoCache`]) has no effect; a set-associative L2
//! and per-core data caches plug in here later.

use crate::types::{CmoType, DevAddr};

/// Observes device memory traffic and cache-maintenance operations.
pub trait CacheModel: Send + std::fmt::Debug {
    /// A cache-maintenance operation on `[addr, addr+len)` completed at `now_ns`.
    fn on_cmo(&mut self, device: u32, op: CmoType, addr: DevAddr, len: u64, now_ns: u64) {
        let _ = (device, op, addr, len, now_ns);
    }
    /// A device agent read `[addr, addr+len)` at `now_ns`.
    fn on_read(&mut self, addr: DevAddr, len: u64, now_ns: u64) {
        let _ = (addr, len, now_ns);
    }
    /// A device agent wrote `[addr, addr+len)` at `now_ns`.
    fn on_write(&mut self, addr: DevAddr, len: u64, now_ns: u64) {
        let _ = (addr, len, now_ns);
    }
}

/// No caches: every access goes straight to memory, CMOs only cost time.
#[derive(Debug, Default)]
pub struct NoCache;

impl CacheModel for NoCache {}
