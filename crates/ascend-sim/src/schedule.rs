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

use std::collections::HashMap;

/// Dispatch lags a stream can be given, in ns.
const LAGS_NS: [u64; 5] = [0, 1_000, 4_000, 16_000, 64_000];

/// Dispatches at which one stream's lag changes.
pub const CHANGE_POINTS: usize = 3;

/// The dispatches among which the change points are chosen.
pub const HORIZON: u64 = 256;

/// A seeded schedule.
#[derive(Debug, Clone)]
pub struct Schedule {
    rng: u64,
    lags: HashMap<u64, u64>,
    dispatches: u64,
    change_at: [u64; CHANGE_POINTS],
}

impl Schedule {
    /// The schedule of `seed`.
    pub fn new(seed: u64) -> Schedule {
        let mut s = Schedule {
            rng: seed ^ 0x5851_f42d_4c95_7f2d,
            lags: HashMap::new(),
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
}
