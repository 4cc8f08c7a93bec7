//! A bandwidth-shared transfer engine (the copy engine, and the 950's CMO engine): jobs on the
//! same link share its bandwidth fairly; shares are recomputed whenever a job starts or ends.

use std::collections::BTreeMap;

/// The path a transfer takes, which decides its bandwidth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Link {
    /// Host to device over the host link.
    H2d,
    /// Device to host over the host link.
    D2h,
    /// Device memory (D2D copies, memsets, CMO data movement).
    Hbm,
    /// L2 tag walks (CMO INVALID).
    L2,
}

#[derive(Debug, Clone)]
struct Job {
    link: Link,
    remaining: f64,
}

/// One engine's jobs in flight.
#[derive(Debug)]
pub struct Pool {
    /// Engine name for reports (`copy`, `cmo`).
    pub name: &'static str,
    bandwidth: [f64; 4],
    jobs: BTreeMap<u64, Job>,
    last: u64,
    /// Generation, bumped whenever the set of jobs changes (invalidates old finish events).
    pub gen: u64,
    /// Jobs in setup or transfer (for busy-time accounting).
    occupancy: u32,
    busy_since: u64,
    /// Total time with at least one job, in ns.
    pub busy_ns: u64,
    /// Jobs completed.
    pub tasks: u64,
    /// Time the last job completed.
    pub end_ns: u64,
}

fn idx(link: Link) -> usize {
    link as usize
}

impl Pool {
    /// An engine with bandwidths (bytes/ns) for each link.
    pub fn new(name: &'static str, h2d: f64, d2h: f64, hbm: f64, l2: f64) -> Self {
        let bw = |x: f64| if x > 0.0 { x } else { 1.0 };
        Pool {
            name,
            bandwidth: [bw(h2d), bw(d2h), bw(hbm), bw(l2)],
            jobs: BTreeMap::new(),
            last: 0,
            gen: 0,
            occupancy: 0,
            busy_since: 0,
            busy_ns: 0,
            tasks: 0,
            end_ns: 0,
        }
    }

    fn counts(&self) -> [u32; 4] {
        let mut c = [0u32; 4];
        for j in self.jobs.values() {
            c[idx(j.link)] += 1;
        }
        c
    }

    fn advance(&mut self, now: u64) {
        if now > self.last {
            let dt = (now - self.last) as f64;
            let c = self.counts();
            for j in self.jobs.values_mut() {
                let rate = self.bandwidth[idx(j.link)] / c[idx(j.link)] as f64;
                j.remaining = (j.remaining - rate * dt).max(0.0);
            }
        }
        self.last = now;
    }

    /// A job enters its setup phase (counts as busy, uses no bandwidth yet).
    pub fn occupy(&mut self, now: u64) {
        if self.occupancy == 0 {
            self.busy_since = now;
        }
        self.occupancy += 1;
    }

    fn release(&mut self, now: u64) {
        self.occupancy -= 1;
        if self.occupancy == 0 {
            self.busy_ns = self.busy_ns.saturating_add(now - self.busy_since);
        }
        self.tasks += 1;
        self.end_ns = self.end_ns.max(now);
    }

    /// A job (keyed by task number) starts transferring `bytes` on `link`.
    pub fn start(&mut self, now: u64, key: u64, link: Link, bytes: u64) {
        self.advance(now);
        self.jobs.insert(
            key,
            Job {
                link,
                remaining: bytes as f64,
            },
        );
        self.gen += 1;
    }

    /// Removes a job without completing it (its stream was destroyed).
    pub fn cancel(&mut self, now: u64, key: u64) {
        self.advance(now);
        if self.jobs.remove(&key).is_some() {
            self.gen += 1;
            self.occupancy -= 1;
            if self.occupancy == 0 {
                self.busy_ns += now - self.busy_since;
            }
        }
    }

    /// Removes the job of a task that was still in setup.
    pub fn cancel_setup(&mut self, now: u64) {
        self.occupancy -= 1;
        if self.occupancy == 0 {
            self.busy_ns += now - self.busy_since;
        }
    }

    /// When the next job finishes, given the current shares.
    pub fn next_finish(&self) -> Option<u64> {
        let c = self.counts();
        self.jobs
            .values()
            .map(|j| {
                let rate = self.bandwidth[idx(j.link)] / c[idx(j.link)] as f64;
                // The cast saturates; so does the sum (the engine clamps it to its horizon).
                self.last.saturating_add((j.remaining / rate).ceil() as u64)
            })
            .min()
    }

    /// Advances to `now` and removes every job that has finished (every job, with `all`), in
    /// key order.
    pub fn take_finished(&mut self, now: u64, all: bool) -> Vec<u64> {
        self.advance(now);
        let done: Vec<u64> = self
            .jobs
            .iter()
            .filter(|(_, j)| all || j.remaining <= 1e-6)
            .map(|(&k, _)| k)
            .collect();
        for k in &done {
            self.jobs.remove(k);
            self.release(now);
        }
        if !done.is_empty() {
            self.gen += 1;
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fair_share() {
        let mut p = Pool::new("copy", 10.0, 10.0, 100.0, 100.0);
        p.occupy(0);
        p.start(0, 1, Link::H2d, 1000);
        assert_eq!(p.next_finish(), Some(100));
        p.occupy(50);
        p.start(50, 2, Link::H2d, 1000);
        // 500 bytes left each at 5 B/ns → job 1 at 150.
        assert_eq!(p.next_finish(), Some(150));
        assert_eq!(p.take_finished(150, false), vec![1]);
        // job 2: 500 left at 150 → full rate → 200.
        assert_eq!(p.next_finish(), Some(200));
        assert_eq!(p.take_finished(200, false), vec![2]);
        assert_eq!(p.busy_ns, 200);
        assert_eq!(p.tasks, 2);
    }
}
