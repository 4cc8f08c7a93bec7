//! The value waits watching device memory: which stream's head wait reads which 8 bytes. A
//! sorted vector rather than a tree of sets: a wait comes and goes with every value-wait task,
//! and a vector keeps its capacity, so the steady state allocates nothing.

/// The watched words: (wait address, stream), sorted.
#[derive(Debug, Default)]
pub struct Watchers {
    entries: Vec<(u64, u64)>,
}

impl Watchers {
    /// Stream `s`'s head wait reads the 8 bytes at `addr`.
    pub fn add(&mut self, addr: u64, s: u64) {
        if let Err(i) = self.entries.binary_search(&(addr, s)) {
            self.entries.insert(i, (addr, s));
        }
    }

    /// Stream `s`'s wait at `addr` is over.
    pub fn remove(&mut self, addr: u64, s: u64) {
        if let Ok(i) = self.entries.binary_search(&(addr, s)) {
            self.entries.remove(i);
        }
    }

    /// True when no wait watches anything.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The waits (address, stream) whose 8 bytes overlap `[addr, addr+len)`, by address.
    pub fn touching(&self, addr: u64, len: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let lo = addr.saturating_sub(7);
        let end = addr.saturating_add(len);
        let start = self.entries.partition_point(|e| e.0 < lo);
        self.entries[start..]
            .iter()
            .take_while(move |e| e.0 < end)
            .filter(move |e| e.0.saturating_add(8) > addr)
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_is_touched_by_writes_overlapping_its_eight_bytes_only() {
        let mut w = Watchers::default();
        w.add(0x1004, 1);
        w.add(0x1000, 2);
        w.add(0x1010, 3);
        let hit = |w: &Watchers, a, l| w.touching(a, l).map(|e| e.1).collect::<Vec<_>>();
        assert_eq!(hit(&w, 0x1000, 8), [2, 1]);
        assert_eq!(hit(&w, 0x1008, 8), [1]);
        assert_eq!(hit(&w, 0x100c, 4), Vec::<u64>::new());
        assert_eq!(hit(&w, 0x100b, 1), [1]);
        assert_eq!(hit(&w, 0x0ff8, 8), Vec::<u64>::new());
        assert_eq!(hit(&w, 0x1017, 1), [3]);
        w.remove(0x1004, 1);
        assert_eq!(hit(&w, 0x1000, 16), [2]);
        w.remove(0x1004, 1);
        assert!(!w.is_empty());
    }
}
