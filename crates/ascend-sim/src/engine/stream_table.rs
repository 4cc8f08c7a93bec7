//! The streams of the engine by number: the live streams in a list sorted by number (they
//! are handed out in order and never reused), so a lookup is a binary search over the streams
//! that exist now, and the table's size follows them, not how many were ever created (a
//! program that creates and destroys streams for hours beside a long-lived one keeps it
//! small). Iteration is in number order, as a sorted map's would be.

use crate::stream::Stream;

/// Streams by number.
#[derive(Debug, Default)]
pub struct StreamTable {
    live: Vec<(u64, Box<Stream>)>,
}

impl StreamTable {
    fn index(&self, id: u64) -> Option<usize> {
        self.live.binary_search_by_key(&id, |(n, _)| *n).ok()
    }

    /// Adds stream `id` (numbers are given in increasing order; an existing one is replaced).
    pub fn insert(&mut self, id: u64, stream: Stream) {
        match self.live.binary_search_by_key(&id, |(n, _)| *n) {
            Ok(i) => *self.live[i].1 = stream,
            Err(i) => self.live.insert(i, (id, Box::new(stream))),
        }
    }

    /// The stream numbered `id`.
    pub fn get(&self, id: &u64) -> Option<&Stream> {
        let i = self.index(*id)?;
        Some(&self.live[i].1)
    }

    /// The stream numbered `id`, to change.
    pub fn get_mut(&mut self, id: &u64) -> Option<&mut Stream> {
        let i = self.index(*id)?;
        Some(&mut self.live[i].1)
    }

    /// Whether stream `id` exists.
    pub fn contains_key(&self, id: &u64) -> bool {
        self.index(*id).is_some()
    }

    /// Removes stream `id`, returning it.
    pub fn remove(&mut self, id: &u64) -> Option<Stream> {
        let i = self.index(*id)?;
        let (_, s) = self.live.remove(i);
        if self.live.capacity() > 64 && self.live.len() * 4 < self.live.capacity() {
            self.live.shrink_to(self.live.len() * 2);
        }
        Some(*s)
    }

    /// How many streams exist.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// True when no stream exists.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// The streams with their numbers, in number order.
    pub fn iter(&self) -> impl Iterator<Item = (&u64, &Stream)> {
        self.live.iter().map(|(id, s)| (id, &**s))
    }

    /// The streams in number order.
    pub fn values(&self) -> impl Iterator<Item = &Stream> {
        self.iter().map(|(_, s)| s)
    }

    /// The streams in number order, to change.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Stream> {
        self.live.iter_mut().map(|(_, s)| &mut **s)
    }
}

impl<'a> IntoIterator for &'a StreamTable {
    type Item = (&'a u64, &'a Stream);
    type IntoIter = Box<dyn Iterator<Item = (&'a u64, &'a Stream)> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl std::ops::Index<&u64> for StreamTable {
    type Output = Stream;

    fn index(&self, id: &u64) -> &Stream {
        self.get(id).expect("a stream that exists")
    }
}
