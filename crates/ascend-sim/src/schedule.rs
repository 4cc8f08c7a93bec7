//! Schedules other than the default one, for schedule exploration: what a device may vary from
//! run to run, chosen by a seed, never what the program orders.
//!
//! With a seed, each stream's dispatches are held back by a lag of its own (none, or 1, 4, 16
//! or 64 µs), so streams and the engines they feed progress at different relative speeds, and
//! a value wait's first poll comes at a different phase; and one host call in four costs the
//! host one of those lags more, so that the device gets further between two calls. As in a probabilistic priority
//! scheduler with bounded change points (PCT: Burckhardt, Kothari, Musuvathi and Nagarakatte,
//! ASPLOS 2010), the lags are drawn when a stream first dispatches and redrawn for one stream
//! at each of [`CHANGE_POINTS`] dispatches chosen at random among the first [`HORIZON`]. A lag
//! only delays a task's dispatch: stream order, events, waits and synchronizes still hold, so
//! every schedule is one a device could run. The same seed gives the same schedule.
//!
//! A kernel's blocks interleave differently too: each block starts after a delay of its own
//! (none, or 0.1, 1 or 10 µs) and runs at a speed of its own (each operation taking 1, 2, 4 or
//! 8 times its cost), so that which block gets where first varies; and a blocking host call's
//! return to its stream takes one of the host lags more, one time in four.

use std::collections::HashMap;

/// Dispatch lags a stream can be given, in ns.
const LAGS_NS: [u64; 5] = [0, 1_000, 4_000, 16_000, 64_000];

/// Delays before a kernel block's first operation, in ns.
const BLOCK_STARTS_NS: [u64; 4] = [0, 100, 1_000, 10_000];

/// Factors a kernel block's operations' costs are multiplied by.
const BLOCK_SLOWDOWNS: [u64; 4] = [1, 2, 4, 8];

/// Dispatches at which one stream's lag changes.
pub const CHANGE_POINTS: usize = 3;

/// The dispatches among which the change points are chosen.
pub const HORIZON: u64 = 256;

/// A seeded schedule.
#[derive(Debug, Clone)]
pub struct Schedule {
    rng: u64,
    lags: HashMap<u64, u64>,
    /// Running kernel blocks' slowdowns, by block number.
    blocks: HashMap<u64, u64>,
    dispatches: u64,
    change_at: [u64; CHANGE_POINTS],
}

impl Schedule {
    /// The schedule of `seed`.
    pub fn new(seed: u64) -> Schedule {
        let mut s = Schedule {
            rng: seed ^ 0x5851_f42d_4c95_7f2d,
            lags: HashMap::new(),
            blocks: HashMap::new(),
            dispatches: 0,
            change_at: [0; CHANGE_POINTS],
        };
        for i in 0..CHANGE_POINTS {
            s.change_at[i] = s.next() % HORIZON;
        }
        s
    }

    /// splitmix64: small, fast and well mixed; all the schedule needs.
    fn next(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn draw_lag(&mut self) -> u64 {
        LAGS_NS[(self.next() % LAGS_NS.len() as u64) as usize]
    }

    /// Extra host time for one host call: mostly none, sometimes one of the lags (the host
    /// thread was slower this time), so that the device gets further between two calls.
    pub fn host_lag(&mut self) -> u64 {
        if self.next().is_multiple_of(4) {
            self.draw_lag()
        } else {
            0
        }
    }

    /// Kernel block `block` (the simulator's block number) is placed on a core: how long its
    /// first operation is held back; its speed is drawn too.
    pub fn block_start(&mut self, block: u64) -> u64 {
        let slow = BLOCK_SLOWDOWNS[(self.next() % BLOCK_SLOWDOWNS.len() as u64) as usize];
        self.blocks.insert(block, slow);
        BLOCK_STARTS_NS[(self.next() % BLOCK_STARTS_NS.len() as u64) as usize]
    }

    /// How long an operation of block `block` that costs `ns` takes in this schedule.
    pub fn block_step(&self, block: u64, ns: u64) -> u64 {
        ns.saturating_mul(self.blocks.get(&block).copied().unwrap_or(1))
    }

    /// Block `block` left its core.
    pub fn block_gone(&mut self, block: u64) {
        self.blocks.remove(&block);
    }

    /// How long stream `s`'s next dispatch is held back.
    pub fn lag(&mut self, s: u64) -> u64 {
        let n = self.dispatches;
        self.dispatches += 1;
        if self.change_at.contains(&n) {
            let lag = self.draw_lag();
            self.lags.insert(s, lag);
            return lag;
        }
        if let Some(&lag) = self.lags.get(&s) {
            return lag;
        }
        let lag = self.draw_lag();
        self.lags.insert(s, lag);
        lag
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_lags_every_time_and_seeds_differ() {
        let lags = |seed| {
            let mut s = Schedule::new(seed);
            (0..40).map(|i| s.lag(i % 4)).collect::<Vec<_>>()
        };
        assert_eq!(lags(7), lags(7));
        let distinct: std::collections::BTreeSet<Vec<u64>> = (1..20).map(lags).collect();
        assert!(distinct.len() > 10, "seeds give different schedules");
        assert!(lags(3).iter().all(|l| LAGS_NS.contains(l)));
    }

    #[test]
    fn kernel_blocks_get_starts_and_speeds_of_their_own_and_lose_them_when_gone() {
        let draws = |seed| {
            let mut s = Schedule::new(seed);
            (0..16)
                .map(|b| (s.block_start(b), s.block_step(b, 10)))
                .collect::<Vec<_>>()
        };
        assert_eq!(draws(5), draws(5));
        let distinct: std::collections::BTreeSet<_> = (1..20).map(draws).collect();
        assert!(distinct.len() > 10, "seeds give different interleavings");
        let mut s = Schedule::new(9);
        let _ = s.block_start(1);
        s.block_gone(1);
        assert_eq!(s.block_step(1, 10), 10, "a block gone runs at its cost");
        assert!(s.blocks.is_empty());
    }
}
