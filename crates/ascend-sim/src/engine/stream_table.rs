//! The streams of the engine by number: a table indexed by the stream's serial number (they
//! are handed out in order and never reused), so the lookups every event makes cost an index,
//! not a tree search, however many streams exist. Iteration is in number order, as a sorted
//! map's would be. Slots of streams long gone are trimmed from the front.

use crate::stream::Stream;

/// Streams by number.
#[derive(Debug, Default)]
pub struct StreamTable {
    /// The number of `slots[0]`.
    first: u64,
    slots: Vec<Option<(u64, Box<Stream>)>>,
    len: usize,
}

impl StreamTable {
    fn index(&self, id: u64) -> Option<usize> {
        id.checked_sub(self.first)
            .map(|i| i as usize)
            .filter(|&i| i < self.slots.len())
    }

    /// Adds stream `id` (numbers are given in increasing order).
    pub fn insert(&mut self, id: u64, stream: Stream) {
        if self.slots.is_empty() {
            self.first = id;
        }
        let Some(i) = id.checked_sub(self.first).map(|i| i as usize) else {
            panic!(
                "stream {id} is older than the table's first slot {}",
                self.first
            );
        };
        if i >= self.slots.len() {
            self.slots.resize_with(i + 1, || None);
        }
        if self.slots[i].replace((id, Box::new(stream))).is_none() {
            self.len += 1;
        }
    }

    /// The stream numbered `id`.
    pub fn get(&self, id: &u64) -> Option<&Stream> {
        let i = self.index(*id)?;
        self.slots[i].as_ref().map(|(_, s)| &**s)
    }

    /// The stream numbered `id`, to change.
    pub fn get_mut(&mut self, id: &u64) -> Option<&mut Stream> {
        let i = self.index(*id)?;
        self.slots[i].as_mut().map(|(_, s)| &mut **s)
    }

    /// Whether stream `id` exists.
    pub fn contains_key(&self, id: &u64) -> bool {
        self.get(id).is_some()
    }

    /// Removes stream `id`, returning it.
    pub fn remove(&mut self, id: &u64) -> Option<Stream> {
        let i = self.index(*id)?;
        let (_, s) = self.slots[i].take()?;
        self.len -= 1;
        let gone = self.slots.iter().take_while(|s| s.is_none()).count();
        if gone > 0 {
            self.slots.drain(..gone);
            self.first += gone as u64;
        }
        Some(*s)
    }

    /// How many streams exist.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no stream exists.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The streams with their numbers, in number order.
    pub fn iter(&self) -> impl Iterator<Item = (&u64, &Stream)> {
        self.slots
            .iter()
            .filter_map(|s| s.as_ref().map(|(id, s)| (id, &**s)))
    }

    /// The streams in number order.
    pub fn values(&self) -> impl Iterator<Item = &Stream> {
        self.iter().map(|(_, s)| s)
    }

    /// The streams in number order, to change.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Stream> {
        self.slots
            .iter_mut()
            .filter_map(|s| s.as_mut().map(|(_, s)| &mut **s))
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
