//! A bounded list of records of one kind for the run report: the first half of its bound in
//! the order they came, then the latest records (the oldest of those give way to newer ones),
//! and a count of the records in between that were not kept. A program that runs for hours
//! keeps the report's memory bounded, and the report still shows how the run began and how
//! it ended.

use std::collections::VecDeque;

/// The first and the latest records of a kind, and how many in between were left out.
#[derive(Debug, Clone)]
pub struct Kept<T> {
    first: Vec<T>,
    latest: VecDeque<T>,
    dropped: u64,
}

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept {
            first: Vec::new(),
            latest: VecDeque::new(),
            dropped: 0,
        }
    }
}

impl<T> Kept<T> {
    /// Adds a record to a list bounded by `limit`: the first `ceil(limit / 2)` stay, the rest of
    /// the room holds the latest; a record pushed out of it (or one that finds no room) is
    /// counted as left out.
    pub fn push(&mut self, limit: usize, record: T) {
        let head = limit.div_ceil(2);
        let tail = limit - head;
        if self.first.len() < head {
            self.first.push(record);
            return;
        }
        if tail == 0 {
            self.dropped += 1;
            return;
        }
        if self.latest.len() >= tail {
            self.latest.pop_front();
            self.dropped += 1;
        }
        self.latest.push_back(record);
    }

    /// How many records are kept.
    pub fn len(&self) -> usize {
        self.first.len() + self.latest.len()
    }

    /// True when none are kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The record pushed last, if it is still kept.
    pub fn last_mut(&mut self) -> Option<&mut T> {
        match self.latest.back_mut() {
            Some(r) => Some(r),
            None if self.dropped == 0 => self.first.last_mut(),
            None => None,
        }
    }

    /// How many records were left out (between the first and the latest).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The kept records in the order they came (the gap, if any, lies between the first and
    /// the latest).
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.first.iter().chain(self.latest.iter())
    }

    /// The kept records, in order, as a list.
    pub fn to_vec(&self) -> Vec<T>
    where
        T: Clone,
    {
        self.iter().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Kept;

    #[test]
    fn keeps_the_first_half_and_the_latest_and_counts_the_rest() {
        let mut k = Kept::default();
        for i in 0..10 {
            k.push(4, i);
        }
        assert_eq!(k.to_vec(), vec![0, 1, 8, 9]);
        assert_eq!(k.dropped(), 6);
        assert_eq!(k.len(), 4);
    }

    #[test]
    fn under_the_bound_every_record_is_kept_in_order() {
        let mut k = Kept::default();
        for i in 0..3 {
            k.push(5, i);
        }
        assert_eq!(k.to_vec(), vec![0, 1, 2]);
        assert_eq!(k.dropped(), 0);
    }

    #[test]
    fn a_bound_of_one_or_zero_keeps_at_most_the_first() {
        let mut one = Kept::default();
        let mut zero = Kept::default();
        for i in 0..3 {
            one.push(1, i);
            zero.push(0, i);
        }
        assert_eq!(one.to_vec(), vec![0]);
        assert_eq!(one.dropped(), 2);
        assert!(zero.is_empty());
        assert_eq!(zero.dropped(), 3);
    }
}
