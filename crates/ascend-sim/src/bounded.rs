//! [`Bounded`]: a list of a run report that keeps a bounded number of records and counts the
//! ones it left out, written in the report's JSON as two keys (`name` and `name_dropped`) so
//! that the JSON stays flat.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The two JSON keys of one [`Bounded`] list.
pub trait BoundedKeys {
    /// The key of the records (`timeline`).
    const ITEMS: &'static str;
    /// The key of the count left out (`timeline_dropped`).
    const DROPPED: &'static str;
}

/// The records of a report list that were kept, and how many were left out. Dereferences to
/// the records. In a report it is a flattened field (`#[serde(flatten)]`): its two keys sit
/// beside the report's others.
pub struct Bounded<T, K> {
    /// The records kept.
    pub items: Vec<T>,
    /// How many records were left out.
    pub dropped: u64,
    keys: PhantomData<K>,
}

impl<T, K> Bounded<T, K> {
    /// `items` kept, `dropped` left out.
    pub fn new(items: Vec<T>, dropped: u64) -> Bounded<T, K> {
        Bounded {
            items,
            dropped,
            keys: PhantomData,
        }
    }

    /// Records kept and left out together.
    pub fn total(&self) -> u64 {
        self.items.len() as u64 + self.dropped
    }
}

impl<T, K> Default for Bounded<T, K> {
    fn default() -> Self {
        Bounded::new(Vec::new(), 0)
    }
}

impl<T: Clone, K> Clone for Bounded<T, K> {
    fn clone(&self) -> Self {
        Bounded::new(self.items.clone(), self.dropped)
    }
}

impl<T: fmt::Debug, K: BoundedKeys> fmt::Debug for Bounded<T, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(K::ITEMS)
            .field("items", &self.items)
            .field("dropped", &self.dropped)
            .finish()
    }
}

impl<T: PartialEq, K> PartialEq for Bounded<T, K> {
    fn eq(&self, other: &Self) -> bool {
        self.items == other.items && self.dropped == other.dropped
    }
}

impl<T: Eq, K> Eq for Bounded<T, K> {}

impl<T, K> std::ops::Deref for Bounded<T, K> {
    type Target = Vec<T>;

    fn deref(&self) -> &Vec<T> {
        &self.items
    }
}

impl<T, K> std::ops::DerefMut for Bounded<T, K> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.items
    }
}

impl<'a, T, K> IntoIterator for &'a Bounded<T, K> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<T, K> IntoIterator for Bounded<T, K> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<T: Serialize, K: BoundedKeys> Serialize for Bounded<T, K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry(K::ITEMS, &self.items)?;
        map.serialize_entry(K::DROPPED, &self.dropped)?;
        map.end()
    }
}

impl<'de, T: Deserialize<'de>, K: BoundedKeys> Deserialize<'de> for Bounded<T, K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Keys<T, K>(PhantomData<(T, K)>);
        impl<'de, T: Deserialize<'de>, K: BoundedKeys> Visitor<'de> for Keys<T, K> {
            type Value = Bounded<T, K>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a map with `{}` and `{}`", K::ITEMS, K::DROPPED)
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Bounded::default();
                // A flattened field sees every key its report did not claim: take its two.
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == K::ITEMS {
                        out.items = map.next_value()?;
                    } else if key == K::DROPPED {
                        out.dropped = map.next_value()?;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(Keys(PhantomData))
    }
}

/// Declares the key types of bounded lists: `Name = "items key"`, the dropped key being the
/// items key with `_dropped`.
macro_rules! bounded_keys {
    ($($(#[$doc:meta])* $name:ident = $items:literal;)*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
            pub struct $name;
            impl BoundedKeys for $name {
                const ITEMS: &'static str = $items;
                const DROPPED: &'static str = concat!($items, "_dropped");
            }
        )*
    };
}

/// The key types of the run report's bounded lists.
pub mod keys {
    use super::BoundedKeys;

    bounded_keys! {
        /// `streams` / `streams_dropped`.
        Streams = "streams";
        /// `value_waits` / `value_waits_dropped`.
        ValueWaits = "value_waits";
        /// `faults` / `faults_dropped`.
        Faults = "faults";
        /// `timeline` / `timeline_dropped`.
        Timeline = "timeline";
        /// `hazards` / `hazards_dropped`.
        Hazards = "hazards";
        /// `cmos` / `cmos_dropped`.
        Cmos = "cmos";
        /// `barriers` / `barriers_dropped`.
        Barriers = "barriers";
        /// `kernel_blocks` / `kernel_blocks_dropped`.
        KernelBlocks = "kernel_blocks";
        /// `engine_jobs` / `engine_jobs_dropped`.
        EngineJobs = "engine_jobs";
        /// `discarded` / `discarded_dropped`.
        Discarded = "discarded";
        /// `host_calls` / `host_calls_dropped`.
        HostCalls = "host_calls";
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize, Default)]
    #[serde(default)]
    struct Two {
        before: u32,
        #[serde(flatten)]
        faults: Bounded<String, keys::Faults>,
        #[serde(flatten)]
        hazards: Bounded<u64, keys::Hazards>,
        after: u32,
    }

    #[test]
    fn a_bounded_list_is_two_flat_keys_in_order_and_reads_back() {
        let two = Two {
            before: 1,
            faults: Bounded::new(vec!["x".into()], 3),
            hazards: Bounded::new(vec![7, 8], 0),
            after: 2,
        };
        let json = serde_json::to_string(&two).unwrap();
        assert_eq!(
            json,
            r#"{"before":1,"faults":["x"],"faults_dropped":3,"hazards":[7,8],"hazards_dropped":0,"after":2}"#
        );
        let back: Two = serde_json::from_str(&json).unwrap();
        assert_eq!(back, two);
        assert_eq!(back.faults.total(), 4);
    }

    #[test]
    fn a_bounded_list_missing_from_the_json_reads_as_empty() {
        let back: Two = serde_json::from_str(r#"{"before":5,"faults":["y"]}"#).unwrap();
        assert_eq!(back.faults.items, vec!["y".to_string()]);
        assert_eq!(back.faults.dropped, 0);
        assert!(back.hazards.is_empty());
        assert_eq!(back.before, 5);
    }
}
