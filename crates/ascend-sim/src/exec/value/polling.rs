//! The value-wait polling loop in closed form. A pass is the dispatch of the WRITE_VALUE and
//! COND entries followed by up to `reads` poll reads; after that many misses the queue head is
//! rewound and the next pass starts. Instead of simulating idle passes, the engine asks
//! [`PassClock::next_read_at_or_after`] for the first read that can observe a write.

/// The phase of one value wait's polling loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassClock {
    /// Simulated time the first pass starts.
    pub t0: u64,
    /// Scheduler time per SQE (WRITE_VALUE and COND are dispatched every pass).
    pub dispatch_ns: u64,
    /// Time of one poll read.
    pub read_ns: u64,
    /// Reads per pass.
    pub reads: u32,
}

/// One poll read: its completion time and which pass (0-based) it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PollRead {
    /// Time the read returns its value (and the wait may complete).
    pub at_ns: u64,
    /// 0-based pass number.
    pub pass: u64,
}

impl PassClock {
    /// Length of a full (unsuccessful) pass.
    pub fn period(&self) -> u64 {
        (2 * self.dispatch_ns + self.reads.max(1) as u64 * self.read_ns).max(1)
    }

    /// The first poll read.
    pub fn first_read(&self) -> PollRead {
        PollRead {
            at_ns: self.t0 + 2 * self.dispatch_ns + self.read_ns,
            pass: 0,
        }
    }

    /// The first poll read completing at or after `t`.
    pub fn next_read_at_or_after(&self, t: u64) -> PollRead {
        let first = self.first_read();
        if t <= first.at_ns {
            return first;
        }
        let p = self.period();
        let x = t - self.t0;
        let mut pass = x / p;
        let within = x % p;
        if within == 0 {
            // The last read of the previous pass ends exactly when the next pass starts.
            return PollRead {
                at_ns: t,
                pass: pass - 1,
            };
        }
        let lead = 2 * self.dispatch_ns;
        let k = if within <= lead + self.read_ns {
            1
        } else {
            (within - lead).div_ceil(self.read_ns.max(1))
        };
        let k = if k > self.reads.max(1) as u64 {
            pass += 1;
            1
        } else {
            k
        };
        PollRead {
            at_ns: self.t0 + pass * p + lead + k * self.read_ns,
            pass,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> PassClock {
        PassClock {
            t0: 1000,
            dispatch_ns: 1000,
            read_ns: 200,
            reads: 15,
        }
    }

    #[test]
    fn period_and_first_read() {
        let c = clock();
        assert_eq!(c.period(), 5000);
        assert_eq!(c.first_read().at_ns, 3200);
    }

    #[test]
    fn reads_line_up_with_passes() {
        let c = clock();
        // Inside the dispatch part of pass 0: first read.
        assert_eq!(c.next_read_at_or_after(1500).at_ns, 3200);
        // Exactly on read 3 of pass 0.
        assert_eq!(c.next_read_at_or_after(3600).at_ns, 3600);
        // Between reads 3 and 4.
        assert_eq!(c.next_read_at_or_after(3601).at_ns, 3800);
        // After the last read of pass 0 (at 1000 + 2000 + 3000 = 6000): pass 1, read 1.
        let r = c.next_read_at_or_after(6001);
        assert_eq!((r.at_ns, r.pass), (6000 + 2200, 1));
        assert_eq!(c.next_read_at_or_after(6000).pass, 0);
        // Far future.
        let r = c.next_read_at_or_after(1000 + 1000 * 5000 + 10);
        assert_eq!((r.at_ns, r.pass), (1000 + 1000 * 5000 + 2200, 1000));
    }

    proptest::proptest! {
        #[test]
        fn next_read_is_the_first_read_at_or_after(
            t0 in 0u64..10_000, d in 1u64..2_000, r in 1u64..500, reads in 1u32..20, dt in 0u64..200_000
        ) {
            let c = PassClock { t0, dispatch_ns: d, read_ns: r, reads };
            let t = t0 + dt;
            let got = c.next_read_at_or_after(t);
            // Enumerate the reads of the passes around `t` and find the first one >= t.
            let p = c.period();
            let mut best = None;
            for pass in 0..=(dt / p + 1) {
                for k in 1..=reads as u64 {
                    let at = t0 + pass * p + 2 * d + k * r;
                    if at >= t && best.is_none_or(|(b, _)| at < b) {
                        best = Some((at, pass));
                    }
                }
            }
            let (at, pass) = best.unwrap();
            proptest::prop_assert_eq!((got.at_ns, got.pass), (at, pass));
        }
    }
}
