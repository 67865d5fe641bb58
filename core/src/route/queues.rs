//! One topic's queues on each broker group (a `topicQueueTable` value), shared between topics.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cmp::Ordering;
use core::hash::{Hash, Hasher};

use crate::names::BrokerName;
use crate::protocol::body::QueueData;

/// A topic's [`QueueData`] by broker group, in group-name order: what Java keeps as a
/// `Map<String, QueueData>` per topic.
///
/// Shared: in a large cluster thousands of topics have the same queues on the same groups, and
/// a registration changes all of them the same way, so they keep pointing at one list (see
/// `Rewrites`) instead of each holding a copy. A change to a shared list makes a new one; a
/// list nothing else holds is changed in place (`set_in_place`): with every route
/// different, copying each topic's list on each registration cost more than the rest of it.
#[derive(Clone, Debug)]
pub struct TopicQueues(Arc<Vec<QueueData>>);

impl TopicQueues {
    /// One group's queues.
    #[must_use]
    pub fn one(queue_data: QueueData) -> Self {
        Self(Arc::new(alloc::vec![queue_data]))
    }

    fn position(&self, name: &BrokerName) -> Result<usize, usize> {
        self.0.binary_search_by(|q| q.broker_name.as_str().cmp(name.as_str()))
    }

    /// The queues on `name`.
    #[must_use]
    pub fn get(&self, name: &BrokerName) -> Option<&QueueData> {
        self.position(name).ok().map(|i| &self.0[i])
    }

    /// Whether `name` has queues.
    #[must_use]
    pub fn contains_key(&self, name: &BrokerName) -> bool {
        self.position(name).is_ok()
    }

    /// This list with `queue_data` set for its group, and the entry it replaces.
    #[must_use]
    pub fn with(&self, queue_data: QueueData) -> (Self, Option<QueueData>) {
        // Room for the groups the rest of a turn's registrations put in place: a list this
        // size is not a small allocation, and growing it again costs another.
        let mut entries = Vec::with_capacity(self.0.len() + 1 + self.0.len() / 2);
        entries.extend_from_slice(&self.0);
        let old = match self.position(&queue_data.broker_name) {
            Ok(i) => Some(core::mem::replace(&mut entries[i], queue_data)),
            Err(i) => {
                entries.insert(i, queue_data);
                None
            }
        };
        (Self(Arc::new(entries)), old)
    }

    /// [`Self::with`] done to this list itself, if nothing else holds it (no route snapshot,
    /// no other topic); otherwise `queue_data` comes back. `hint` is where the group is
    /// looked for first (a registration puts one group into many lists of the same groups),
    /// and becomes where it went.
    pub(crate) fn set_in_place(
        &mut self,
        queue_data: QueueData,
        hint: &mut usize,
    ) -> Result<Option<QueueData>, QueueData> {
        let Some(entries) = Arc::get_mut(&mut self.0) else { return Err(queue_data) };
        let name = queue_data.broker_name.as_str();
        let at = *hint;
        let hinted = at <= entries.len() && (at == 0 || entries[at - 1].broker_name.as_str() < name);
        let position = match entries.get(at).map(|q| q.broker_name.as_str().cmp(name)) {
            Some(Ordering::Equal) if hinted => Ok(at),
            Some(Ordering::Greater) | None if hinted => Err(at),
            _ => entries.binary_search_by(|q| q.broker_name.as_str().cmp(name)),
        };
        Ok(match position {
            Ok(i) => {
                *hint = i;
                Some(core::mem::replace(&mut entries[i], queue_data))
            }
            Err(i) => {
                *hint = i;
                entries.insert(i, queue_data);
                None
            }
        })
    }

    /// Removes `name`'s queues from this list itself, if nothing else holds it (as
    /// [`Self::set_in_place`]): `Ok(true)`. `Ok(false)`: the group has no queues here. `Err`:
    /// it has, and something else holds the list. With every route different, a broker's
    /// departure copied each of its topics' lists but one entry, and that cost more than twice
    /// what the lists' registration had.
    pub(crate) fn remove_in_place(&mut self, name: &BrokerName) -> Result<bool, ()> {
        let Ok(i) = self.position(name) else { return Ok(false) };
        let Some(entries) = Arc::get_mut(&mut self.0) else { return Err(()) };
        entries.remove(i);
        Ok(true)
    }

    /// The groups of `names` this list has, in name order. One departure looks one group up
    /// in lists of a hundred; a scan may look thousands up in lists of a few: the smaller side
    /// is walked, the larger searched.
    pub fn groups_in<'a>(&'a self, names: &'a BTreeSet<BrokerName>) -> impl Iterator<Item = &'a BrokerName> + 'a {
        let few = names.len() < self.len();
        let searched = names.iter().take(if few { names.len() } else { 0 }).filter(|name| self.contains_key(name));
        let walked = self.keys().take(if few { 0 } else { self.len() }).filter(|name| names.contains(*name));
        searched.chain(walked)
    }

    /// Whether this list has any group of `names` ([`Self::groups_in`]).
    #[must_use]
    pub fn has_any_of(&self, names: &BTreeSet<BrokerName>) -> bool {
        self.groups_in(names).next().is_some()
    }

    /// Removes `name`'s queues: in place when nothing else holds the list, else as the rest
    /// `rewrites` gives lists that were the same. `None` if it had none; `Some(true)` if
    /// nothing is left (the caller drops the topic; the list itself may be left as it was).
    pub(crate) fn remove_group(
        &mut self,
        name: &BrokerName,
        rewrites: &mut Rewrites<BrokerName, Option<Self>>,
    ) -> Option<bool> {
        match self.remove_in_place(name) {
            Ok(false) => None,
            Ok(true) => Some(self.is_empty()),
            Err(()) => match rewrites.get(self, name.clone(), |list| list.without(|n| n == name)) {
                Some(rest) => {
                    *self = rest;
                    Some(false)
                }
                None => Some(true),
            },
        }
    }

    /// This list without the groups `drop` names; `None` when nothing is left.
    #[must_use]
    pub fn without(&self, drop: impl Fn(&BrokerName) -> bool) -> Option<Self> {
        let kept: Vec<QueueData> = self.0.iter().filter(|q| !drop(&q.broker_name)).cloned().collect();
        (!kept.is_empty()).then(|| Self(Arc::new(kept)))
    }

    /// This list with the permission bits of `name`'s queues set to `perm`.
    #[must_use]
    pub fn with_perm(&self, name: &BrokerName, perm: i32) -> Self {
        let mut entries = self.0.to_vec();
        if let Ok(i) = self.position(name) {
            entries[i].perm = perm;
        }
        Self(Arc::new(entries))
    }

    /// The groups, in name order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &BrokerName> + ExactSizeIterator {
        self.0.iter().map(|q| &q.broker_name)
    }

    /// The entries, in group-name order.
    pub fn values(&self) -> core::slice::Iter<'_, QueueData> {
        self.0.iter()
    }

    /// (group, entry) pairs, in group-name order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&BrokerName, &QueueData)> + ExactSizeIterator {
        self.0.iter().map(|q| (&q.broker_name, q))
    }

    /// How many groups.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no group has queues (never so in the table).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether both are the same shared list (then they are equal without comparing).
    #[must_use]
    pub fn same_list(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Identifies the shared list while it is alive.
    pub(crate) fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }
}

impl PartialEq for TopicQueues {
    fn eq(&self, other: &Self) -> bool {
        self.same_list(other) || self.0 == other.0
    }
}

impl Eq for TopicQueues {}

/// Hashes as the `BTreeMap<BrokerName, QueueData>` it replaced did (length, then each key and
/// value), so that the simulation's state hashes did not change with the representation.
impl Hash for TopicQueues {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.0.len());
        for q in self.0.iter() {
            q.broker_name.hash(state);
            q.hash(state);
        }
    }
}

impl<'a> IntoIterator for &'a TopicQueues {
    type Item = &'a QueueData;
    type IntoIter = core::slice::Iter<'a, QueueData>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// The results of one bulk change (a registration, an unregistration, a permission change)
/// by list and change: topics that shared a list and change the same way share the result,
/// and it is computed once. Holds each list it has seen, so that an address is never reused
/// for another list while it is a key.
pub(crate) struct Rewrites<K, V> {
    done: BTreeMap<(usize, K), (Option<TopicQueues>, V)>,
    /// The last key asked for and its result: in a bulk change most topics ask for the same
    /// one (a million new topics with equal queues), and this skips the map.
    last: Option<((usize, K), V)>,
}

impl<K: Ord + Clone, V: Clone> Rewrites<K, V> {
    pub(crate) const fn new() -> Self {
        Self { done: BTreeMap::new(), last: None }
    }

    /// The result of changing `list` by `change`: `apply(list)` the first time.
    pub(crate) fn get(&mut self, list: &TopicQueues, change: K, apply: impl FnOnce(&TopicQueues) -> V) -> V {
        self.lookup((list.addr(), change), || (Some(list.clone()), apply(list)))
    }

    /// The result of `change` for a topic without queues: `apply()` the first time.
    pub(crate) fn get_new(&mut self, change: K, apply: impl FnOnce() -> V) -> V {
        // No list lives at address 0.
        self.lookup((0, change), || (None, apply()))
    }

    fn lookup(&mut self, key: (usize, K), first: impl FnOnce() -> (Option<TopicQueues>, V)) -> V {
        if let Some((last, result)) = &self.last
            && *last == key
        {
            return result.clone();
        }
        let (_, result) = self.done.entry(key.clone()).or_insert_with(first);
        self.last = Some((key, result.clone()));
        result.clone()
    }
}

#[cfg(test)]
mod tests {
    use alloc::collections::BTreeMap;

    use super::*;
    use crate::hash_fed::fed;

    #[test]
    fn an_entry_is_a_one_word_name_and_four_numbers() {
        // With every route different each topic's list holds an entry per group, inserted in
        // place: the bytes moved and the pages touched are these.
        assert_eq!(size_of::<QueueData>(), 24);
    }

    fn queue(name: &str, queues: i32) -> QueueData {
        QueueData {
            broker_name: BrokerName::from(name),
            read_queue_nums: queues,
            write_queue_nums: queues,
            perm: 6,
            topic_sys_flag: 0,
        }
    }

    #[test]
    fn behaves_and_hashes_like_the_map_it_replaced() {
        let mut queues = TopicQueues::one(queue("b", 1));
        let mut map = BTreeMap::from([(BrokerName::from("b"), queue("b", 1))]);
        for (name, n) in [("a", 2), ("c", 3), ("a", 4), ("bb", 5)] {
            let q = queue(name, n);
            let (next, old) = queues.with(q.clone());
            assert_eq!(old, map.insert(q.broker_name.clone(), q));
            queues = next;
        }
        let c = BrokerName::from("c");
        queues = queues.without(|name| *name == c).unwrap();
        map.remove(&c);
        assert!(queues.keys().eq(map.keys()));
        assert!(queues.values().eq(map.values()));
        assert_eq!(queues.get(&BrokerName::from("a")), map.get(&BrokerName::from("a")));
        assert_eq!(fed(&queues), fed(&map));
        let a = BrokerName::from("a");
        assert_eq!(queues.with_perm(&a, 4).get(&a).map(|q| q.perm), Some(4));
        assert!(queues.without(|_| true).is_none());
    }

    #[test]
    fn only_a_list_nothing_else_holds_changes_in_place() {
        let mut alone = TopicQueues::one(queue("b", 1));
        let before = alone.addr();
        let mut hint = 0;
        assert_eq!(alone.set_in_place(queue("a", 2), &mut hint), Ok(None));
        assert_eq!(alone.set_in_place(queue("b", 3), &mut hint), Ok(Some(queue("b", 1))));
        assert_eq!(alone.addr(), before, "changed where it was");
        assert!(alone.values().eq(&[queue("a", 2), queue("b", 3)]));

        // A snapshot (or another topic) holds it: it must not see the change.
        let held = alone.clone();
        assert_eq!(alone.set_in_place(queue("c", 4), &mut hint), Err(queue("c", 4)));
        assert!(alone.same_list(&held) && alone.len() == 2);
        drop(held);
        assert_eq!(alone.set_in_place(queue("c", 4), &mut hint), Ok(None));
        assert_eq!(alone.len(), 3);
    }

    #[test]
    fn only_a_list_nothing_else_holds_loses_a_group_in_place() {
        let mut alone = TopicQueues::one(queue("a", 1));
        let mut hint = 0;
        for name in ["b", "c"] {
            alone.set_in_place(queue(name, 1), &mut hint).unwrap();
        }
        let before = alone.addr();
        assert_eq!(alone.remove_in_place(&BrokerName::from("x")), Ok(false));
        assert_eq!(alone.remove_in_place(&BrokerName::from("b")), Ok(true));
        assert_eq!(alone.addr(), before, "changed where it was");
        assert!(alone.keys().map(BrokerName::as_str).eq(["a", "c"]));

        let held = alone.clone();
        assert_eq!(alone.remove_in_place(&BrokerName::from("a")), Err(()));
        assert_eq!(alone.remove_in_place(&BrokerName::from("b")), Ok(false), "held, and not there");
        assert!(alone.same_list(&held) && alone.len() == 2, "what holds it sees no change");
        drop(held);
        for name in ["c", "a"] {
            assert_eq!(alone.remove_in_place(&BrokerName::from(name)), Ok(true));
        }
        assert!(alone.is_empty());
    }

    #[test]
    fn in_place_the_group_lands_where_a_map_would_put_it_whatever_the_hint() {
        let names = ["b", "d", "f", "h"];
        for new in ["a", "b", "c", "d", "e", "h", "i"] {
            for start in 0..=6 {
                let mut list = TopicQueues::one(queue("b", 1));
                let mut map = BTreeMap::from([(BrokerName::from("b"), queue("b", 1))]);
                for name in names.iter().skip(1) {
                    let mut hint = 0;
                    list.set_in_place(queue(name, 1), &mut hint).unwrap();
                    map.insert(BrokerName::from(*name), queue(name, 1));
                }
                let mut hint = start;
                let old = list.set_in_place(queue(new, 9), &mut hint).unwrap();
                assert_eq!(old, map.insert(BrokerName::from(new), queue(new, 9)), "{new} from {start}");
                assert!(list.values().eq(map.values()), "{new} from {start}");
                assert_eq!(list.values().nth(hint).map(|q| q.broker_name.as_str()), Some(new));
            }
        }
    }

    #[test]
    fn rewrites_share_results_and_keep_their_keys_alive() {
        let first = TopicQueues::one(queue("a", 1));
        let twin = first.clone();
        let other = TopicQueues::one(queue("a", 1));
        let mut rewrites = Rewrites::new();
        let mut calls = 0;
        let mut add_b = |list: &TopicQueues, rewrites: &mut Rewrites<i32, TopicQueues>| {
            rewrites.get(list, 2, |list| {
                calls += 1;
                list.with(queue("b", 2)).0
            })
        };
        let (x, y, z) = (add_b(&first, &mut rewrites), add_b(&twin, &mut rewrites), add_b(&other, &mut rewrites));
        assert!(x.same_list(&y), "one list for the topics that shared one");
        assert!(!x.same_list(&z) && x == z, "an equal list of another history is equal, not shared");
        assert_eq!(calls, 2);
        let new = |rewrites: &mut Rewrites<i32, TopicQueues>| rewrites.get_new(1, || TopicQueues::one(queue("n", 1)));
        assert!(new(&mut rewrites).same_list(&new(&mut rewrites)), "new topics share one list too");
    }
}
