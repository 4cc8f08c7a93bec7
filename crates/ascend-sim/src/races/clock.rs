//! Vector clocks and epochs, the happens-before bookkeeping of the race detector.
//!
//! Each agent (a stream, a host thread) counts its own steps; a vector clock says, for every
//! agent, how many of its steps are known to have happened before the holder's present. An
//! access is stamped with its agent's epoch (the agent and its count then); a later access is
//! ordered after it exactly when the later one's clock covers that epoch (FastTrack's test:
//! Flanagan and Freund, PLDI 2009).

/// An agent's number in the detector's tables.
pub type Agent = u32;

/// One step of one agent: what an access is stamped with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Epoch {
    /// The agent.
    pub agent: Agent,
    /// Its step count at the access.
    pub clock: u32,
}

/// For every agent, the latest of its steps known to have happened before (absent: none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VClock(Vec<u32>);

impl VClock {
    /// The step of `agent` this clock knows (0: none).
    pub fn get(&self, agent: Agent) -> u32 {
        self.0.get(agent as usize).copied().unwrap_or(0)
    }

    /// Advances `agent`'s own count by one and returns the new count.
    pub fn tick(&mut self, agent: Agent) -> u32 {
        let i = agent as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] = self.0[i].saturating_add(1);
        self.0[i]
    }

    /// Sets `agent`'s own count (a reused agent number goes on from its predecessor's).
    pub fn set_own(&mut self, agent: Agent, count: u32) {
        let i = agent as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] = count;
    }

    /// Learns everything `other` knows (the pointwise maximum); true when that was news.
    pub fn join(&mut self, other: &VClock) -> bool {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        let mut news = false;
        for (mine, &theirs) in self.0.iter_mut().zip(&other.0) {
            if theirs > *mine {
                *mine = theirs;
                news = true;
            }
        }
        news
    }

    /// True when the step `e` happened before this clock's present.
    pub fn covers(&self, e: Epoch) -> bool {
        e.clock <= self.get(e.agent)
    }

    /// This clock's agent `agent` at its present step.
    pub fn epoch(&self, agent: Agent) -> Epoch {
        Epoch {
            agent,
            clock: self.get(agent),
        }
    }
}

/// What a release hands on: a snapshot of the releasing agent's clock and its own count at the
/// release, which may be later than the snapshot's (an agent's own steps change nothing else,
/// so one snapshot serves all its releases until it learns something new).
#[derive(Debug, Clone)]
pub struct Released {
    /// The snapshot.
    pub base: std::sync::Arc<VClock>,
    /// The releasing agent and its count at the release.
    pub own: Epoch,
}

impl Released {
    /// True when both hand on the same knowledge (one snapshot, one count).
    pub fn same(&self, other: &Released) -> bool {
        std::sync::Arc::ptr_eq(&self.base, &other.base) && self.own == other.own
    }
}

impl VClock {
    /// Learns what a release handed on; true when that was news.
    pub fn join_released(&mut self, r: &Released) -> bool {
        let mut news = self.join(&r.base);
        if r.own.clock > self.get(r.own.agent) {
            self.set_own(r.own.agent, r.own.clock);
            news = true;
        }
        news
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_covers_its_own_past_and_what_it_joined_but_not_a_concurrent_step() {
        let (a, b) = (0, 1);
        let mut ca = VClock::default();
        let mut cb = VClock::default();
        ca.tick(a);
        cb.tick(b);
        let ea = ca.epoch(a);
        assert!(ca.covers(ea));
        assert!(!cb.covers(ea), "b has not learnt a's step");
        cb.join(&ca);
        assert!(cb.covers(ea));
        ca.tick(a);
        assert!(
            !cb.covers(ca.epoch(a)),
            "a's later step is concurrent with b"
        );
    }

    #[test]
    fn a_release_hands_on_the_snapshot_and_the_later_own_count() {
        let mut a = VClock::default();
        a.tick(0);
        let base = std::sync::Arc::new(a.clone());
        a.tick(0);
        let r = Released {
            base,
            own: a.epoch(0),
        };
        let mut b = VClock::default();
        b.tick(1);
        assert!(b.join_released(&r));
        assert!(b.covers(a.epoch(0)));
        assert!(!b.join_released(&r), "nothing new the second time");
    }

    #[test]
    fn join_is_the_pointwise_maximum_whatever_the_lengths() {
        let mut x = VClock::default();
        x.tick(3);
        let mut y = VClock::default();
        y.tick(0);
        y.tick(0);
        x.join(&y);
        assert_eq!((x.get(0), x.get(1), x.get(3), x.get(9)), (2, 0, 1, 0));
    }
}
