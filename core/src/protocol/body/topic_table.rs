//! `topicConfigTable`: a broker's topics, by name, as one sorted list.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::borrow::Borrow;
use core::fmt;
use core::ops::Index;

use super::TopicConfig;
use crate::names::TopicName;

/// A broker's topic configurations by topic, in name order: Java's `topicConfigTable`.
///
/// One list sorted by name rather than a tree: brokers send their topics in name order, so a
/// registration of a million topics becomes its table as it is read (the order is checked, not
/// rebuilt) and is dropped as one allocation. Lookups are binary searches. It behaves,
/// compares, hashes and prints as the `BTreeMap<TopicName, TopicConfig>` it replaced.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct TopicConfigTable(Vec<(TopicName, TopicConfig)>);

/// The entries of a [`TopicConfigTable`], in name order.
#[derive(Clone, Debug)]
pub struct TopicConfigIter<'a>(core::slice::Iter<'a, (TopicName, TopicConfig)>);

type Entry<'a> = (&'a TopicName, &'a TopicConfig);

impl<'a> Iterator for TopicConfigIter<'a> {
    type Item = Entry<'a>;

    fn next(&mut self) -> Option<Entry<'a>> {
        self.0.next().map(|(name, config)| (name, config))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for TopicConfigIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(name, config)| (name, config))
    }
}

impl ExactSizeIterator for TopicConfigIter<'_> {}

impl TopicConfigTable {
    /// No topics.
    #[must_use]
    pub const fn new() -> Self {
        Self(Vec::new())
    }

    /// How many topics.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn position<Q: Ord + ?Sized>(&self, topic: &Q) -> Result<usize, usize>
    where
        TopicName: Borrow<Q>,
    {
        self.0.binary_search_by(|(name, _)| name.borrow().cmp(topic))
    }

    /// `topic`'s configuration.
    #[must_use]
    pub fn get<Q: Ord + ?Sized>(&self, topic: &Q) -> Option<&TopicConfig>
    where
        TopicName: Borrow<Q>,
    {
        self.position(topic).ok().map(|i| &self.0[i].1)
    }

    /// Whether `topic` is listed.
    #[must_use]
    pub fn contains_key<Q: Ord + ?Sized>(&self, topic: &Q) -> bool
    where
        TopicName: Borrow<Q>,
    {
        self.position(topic).is_ok()
    }

    /// Sets `topic`'s configuration; returns the one it replaces (the name stays as it was).
    pub fn insert(&mut self, topic: TopicName, config: TopicConfig) -> Option<TopicConfig> {
        match self.position(&topic) {
            Ok(i) => Some(core::mem::replace(&mut self.0[i].1, config)),
            Err(i) => {
                self.0.insert(i, (topic, config));
                None
            }
        }
    }

    /// Removes `topic`; returns its configuration.
    pub fn remove<Q: Ord + ?Sized>(&mut self, topic: &Q) -> Option<TopicConfig>
    where
        TopicName: Borrow<Q>,
    {
        self.position(topic).ok().map(|i| self.0.remove(i).1)
    }

    /// (topic, configuration) in name order.
    pub fn iter(&self) -> TopicConfigIter<'_> {
        TopicConfigIter(self.0.iter())
    }

    /// The topics, in name order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &TopicName> + ExactSizeIterator {
        self.0.iter().map(|(name, _)| name)
    }

    /// The configurations, in name order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &TopicConfig> + ExactSizeIterator {
        self.0.iter().map(|(_, config)| config)
    }
}

/// In any order; a name given twice keeps its last entry, as inserting one by one would.
/// Entries that come in name order (as brokers send them) are taken as they are.
impl FromIterator<(TopicName, TopicConfig)> for TopicConfigTable {
    fn from_iter<I: IntoIterator<Item = (TopicName, TopicConfig)>>(entries: I) -> Self {
        let mut entries: Vec<_> = entries.into_iter().collect();
        if !entries.windows(2).all(|pair| pair[0].0 < pair[1].0) {
            // Stable, so that of equal names the last given is the last here.
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            entries.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    core::mem::swap(&mut later.1, &mut kept.1);
                }
                same
            });
        }
        Self(entries)
    }
}

impl From<BTreeMap<TopicName, TopicConfig>> for TopicConfigTable {
    fn from(map: BTreeMap<TopicName, TopicConfig>) -> Self {
        Self(map.into_iter().collect())
    }
}

impl<const N: usize> From<[(TopicName, TopicConfig); N]> for TopicConfigTable {
    fn from(entries: [(TopicName, TopicConfig); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a TopicConfigTable {
    type Item = Entry<'a>;
    type IntoIter = TopicConfigIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for TopicConfigTable {
    type Item = (TopicName, TopicConfig);
    type IntoIter = alloc::vec::IntoIter<(TopicName, TopicConfig)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<Q: Ord + ?Sized> Index<&Q> for TopicConfigTable
where
    TopicName: Borrow<Q>,
{
    type Output = TopicConfig;

    /// # Panics
    /// If `topic` is not listed.
    fn index(&self, topic: &Q) -> &TopicConfig {
        self.get(topic).expect("no entry found for key")
    }
}

/// Prints as the map it stands for.
impl fmt::Debug for TopicConfigTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use alloc::format;

    use super::*;
    use crate::hash_fed::fed;

    fn entry(name: &str, queues: i32) -> (TopicName, TopicConfig) {
        (TopicName::from(name), TopicConfig::new(name, queues))
    }

    #[test]
    fn behaves_hashes_and_prints_like_the_map_it_replaced() {
        let given = [entry("b", 1), entry("a", 2), entry("c", 3), entry("b", 4), entry("a", 5)];
        let table: TopicConfigTable = given.iter().cloned().collect();
        let map: BTreeMap<TopicName, TopicConfig> = given.iter().cloned().collect();
        assert!(table.iter().eq(map.iter()), "sorted, the last of equal names kept");
        assert_eq!(table.len(), 3);
        assert_eq!(fed(&table), fed(&map));
        assert_eq!(format!("{table:?}"), format!("{map:?}"));
        assert_eq!(table, TopicConfigTable::from(map.clone()));
        assert_eq!(table["a"].read_queue_nums, 5);
        assert_eq!(table.get(&TopicName::from("b")).map(|c| c.read_queue_nums), Some(4));
        assert!(table.contains_key("c") && !table.contains_key("d"));

        let (mut table, mut map) = (table, map);
        for (name, config) in [entry("d", 6), entry("0", 7), entry("b", 8)] {
            assert_eq!(table.insert(name.clone(), config.clone()), map.insert(name, config));
        }
        assert_eq!(table.remove("c"), map.remove("c"));
        assert_eq!(table.remove("c"), None);
        assert!(table.keys().eq(map.keys()) && table.values().eq(map.values()));
        assert!(table.into_iter().eq(map));
    }

    #[test]
    fn entries_in_name_order_are_kept_as_given() {
        let given: Vec<_> = (0..100).map(|i| entry(&format!("T{i:03}"), i)).collect();
        let table: TopicConfigTable = given.iter().cloned().collect();
        assert!(table.into_iter().eq(given));
        assert!(TopicConfigTable::from([entry("a", 1)]).iter().eq([(&entry("a", 1).0, &entry("a", 1).1)]));
    }
}
