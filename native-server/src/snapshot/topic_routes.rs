//! Every topic's route bodies in a snapshot, in shards that snapshots share.
//!
//! A new snapshot follows every change. With one map of every topic, each one copied every
//! entry and freeing the snapshot it replaced visited every entry again: for a million topics
//! 40-60 ms to copy and as long to free, whether one topic changed or all of them (each entry
//! held a reference to a name somewhere on the heap: a cache miss each). Here topics are split
//! by hash into [`SHARDS`] shards; a new snapshot shares every shard its changes do not touch
//! and copies the others (one topic changed among a million: 0.15 ms, and 0.03 ms to free the
//! snapshot replaced). A shard keeps its topics' names in one buffer of its own rather than as
//! references to the core's names, so filling it never writes to a name's reference count and
//! freeing it frees a few buffers, however many topics it holds; a snapshot of a million new
//! topics is built in about half the time.

use std::hash::BuildHasher as _;
use std::sync::{Arc, LazyLock};

use foldhash::fast::RandomState;
use hashbrown::HashTable;

use super::RouteBodies;

/// Shards per snapshot: a change to a few topics of a million copies a few thousand entries.
const SHARDS: usize = 256;

/// The route bodies of every topic with a route.
#[derive(Clone)]
pub(super) struct TopicRoutes {
    /// Seeded once per table: every shard of every later snapshot hashes the same way.
    hasher: RandomState,
    shards: Vec<Arc<Shard>>,
    len: usize,
}

/// The topics of one shard: entries that locate their names in `names`.
#[derive(Default)]
struct Shard {
    table: HashTable<Entry>,
    /// The topics' names one after another (a removed topic's stays until the shard is next
    /// copied).
    names: String,
}

struct Entry {
    /// The name's hash, kept so that growing the table never reads a name again.
    hash: u64,
    at: u32,
    len: u32,
    bodies: Arc<RouteBodies>,
}

impl Default for TopicRoutes {
    fn default() -> Self {
        Self::empty(RandomState::default())
    }
}

impl std::fmt::Debug for TopicRoutes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TopicRoutes").field("topics", &self.len).finish_non_exhaustive()
    }
}

impl TopicRoutes {
    /// No topics; `hasher` hashes this table and every table edited from it.
    pub(super) fn empty(hasher: RandomState) -> Self {
        // One empty shard shared by every empty table.
        static EMPTY: LazyLock<Arc<Shard>> = LazyLock::new(Arc::default);
        Self { hasher, shards: vec![Arc::clone(&EMPTY); SHARDS], len: 0 }
    }

    /// Number of topics.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// `topic`'s route bodies.
    pub(super) fn get(&self, topic: &str) -> Option<&Arc<RouteBodies>> {
        let hash = self.hasher.hash_one(topic);
        let shard = &self.shards[shard_of(hash)];
        shard.table.find(hash, |entry| shard.name(entry) == topic).map(|entry| &entry.bodies)
    }

    /// Every topic's name, in no particular order.
    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        self.shards.iter().flat_map(|shard| shard.table.iter().map(|entry| shard.name(entry)))
    }

    /// A table like this one, changed by what is set and removed in `edit`, sharing every
    /// shard `edit` leaves alone. `expected` topics will be set, to reserve room once.
    pub(super) fn edit(&self, expected: usize, edit: impl FnOnce(&mut Edit<'_>)) -> Self {
        let mut editing = Edit { base: self, copies: (0..SHARDS).map(|_| None).collect(), len: self.len, expected };
        edit(&mut editing);
        let (copies, len) = editing.finish();
        let shards = self
            .shards
            .iter()
            .zip(copies)
            .map(|(shared, copy)| copy.map_or_else(|| Arc::clone(shared), Arc::new))
            .collect();
        Self { hasher: self.hasher.clone(), shards, len }
    }
}

/// Changes to a [`TopicRoutes`] under way: the shards changed so far, copied.
pub(super) struct Edit<'a> {
    base: &'a TopicRoutes,
    copies: Vec<Option<Edited>>,
    len: usize,
    expected: usize,
}

/// A shard being edited, and the topics set in it that it did not hold, not yet in its table.
/// Their names are already in its buffer: a table of a few thousand entries filled in one go
/// stays in the cache, where a million topics set one by one would miss it each time.
struct Edited {
    shard: Shard,
    added: Vec<Entry>,
}

impl Edit<'_> {
    /// Gives `topic` these bodies.
    pub(super) fn set(&mut self, topic: &str, bodies: Arc<RouteBodies>) {
        let hash = self.base.hasher.hash_one(topic);
        let expected = self.expected;
        let copy = self.copy(hash);
        match copy.shard.find_mut(hash, topic) {
            Some(entry) => entry.bodies = bodies,
            None => {
                if copy.added.is_empty() {
                    copy.added.reserve(expected / SHARDS);
                }
                let (at, len) = copy.shard.store_name(topic);
                copy.added.push(Entry { hash, at, len, bodies });
            }
        }
    }

    /// Takes `topic` out.
    pub(super) fn remove(&mut self, topic: &str) {
        let hash = self.base.hasher.hash_one(topic);
        if self.base.shards[shard_of(hash)].find(hash, topic).is_none() && self.copies[shard_of(hash)].is_none() {
            return;
        }
        let copy = self.copy(hash);
        let names = &copy.shard.names;
        let removed = match copy.shard.table.find_entry(hash, |entry| name_in(names, entry) == topic) {
            Ok(entry) => {
                entry.remove();
                true
            }
            Err(_) => false,
        };
        // Set earlier in this edit.
        copy.added.retain(|entry| entry.hash != hash || name_in(names, entry) != topic);
        self.len -= usize::from(removed);
    }

    /// The edited shards, their added topics in their tables (a topic set twice in one edit
    /// keeps the last bodies).
    fn finish(self) -> (Vec<Option<Shard>>, usize) {
        let mut len = self.len;
        let shards = self
            .copies
            .into_iter()
            .map(|copy| {
                let Edited { mut shard, added } = copy?;
                shard.table.reserve(added.len(), |entry| entry.hash);
                let names = &shard.names;
                for entry in added {
                    let name = name_in(names, &entry);
                    match shard.table.find_mut(entry.hash, |found| name_in(names, found) == name) {
                        Some(found) => found.bodies = entry.bodies,
                        None => {
                            shard.table.insert_unique(entry.hash, entry, |entry| entry.hash);
                            len += 1;
                        }
                    }
                }
                Some(shard)
            })
            .collect();
        (shards, len)
    }

    /// The copy of the shard of `hash`, made on first use: live entries only, names packed.
    fn copy(&mut self, hash: u64) -> &mut Edited {
        let index = shard_of(hash);
        let base = &self.base.shards[index];
        self.copies[index].get_or_insert_with(|| {
            let mut shard = Shard {
                table: HashTable::with_capacity(base.table.len()),
                names: String::with_capacity(base.names.len()),
            };
            for entry in &base.table {
                let (at, len) = shard.store_name(base.name(entry));
                let entry = Entry { hash: entry.hash, at, len, bodies: Arc::clone(&entry.bodies) };
                shard.table.insert_unique(entry.hash, entry, |entry| entry.hash);
            }
            Edited { shard, added: Vec::new() }
        })
    }
}

impl Shard {
    fn name(&self, entry: &Entry) -> &str {
        name_in(&self.names, entry)
    }

    fn find(&self, hash: u64, topic: &str) -> Option<&Entry> {
        self.table.find(hash, |entry| self.name(entry) == topic)
    }

    fn find_mut(&mut self, hash: u64, topic: &str) -> Option<&mut Entry> {
        let names = &self.names;
        self.table.find_mut(hash, |entry| name_in(names, entry) == topic)
    }

    /// Appends `topic` to the names: where it starts, and its length.
    fn store_name(&mut self, topic: &str) -> (u32, u32) {
        // Offsets fit: a shard would need 4 GiB of names to overflow them.
        let at = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        let len = u32::try_from(topic.len()).unwrap_or(u32::MAX);
        self.names.push_str(topic);
        (at, len)
    }
}

fn name_in<'a>(names: &'a str, entry: &Entry) -> &'a str {
    let at = entry.at as usize;
    names.get(at..at + entry.len as usize).unwrap_or_default()
}

/// The shard of a hash: bits that neither the table's bucket index (the low bits) nor its
/// control byte (the top seven) use, so that one shard's topics still spread over its table.
fn shard_of(hash: u64) -> usize {
    (hash >> 32) as usize % SHARDS
}

#[cfg(test)]
mod tests {
    use super::*;
    use nameserver_core::protocol::body::QueueData;
    use nameserver_core::route::{RouteRecipe, TopicQueues};

    fn bodies() -> Arc<RouteBodies> {
        Arc::new(RouteBodies::new(RouteRecipe::of_queues(TopicQueues::one(QueueData::default()))))
    }

    #[test]
    fn edits_copy_only_the_shards_they_touch() {
        let (a, b) = (bodies(), bodies());
        let names: Vec<String> = (0..5000).map(|i| format!("T{i}")).collect();
        let first = TopicRoutes::default().edit(names.len(), |edit| {
            for name in &names {
                edit.set(name, Arc::clone(&a));
            }
        });
        assert_eq!(first.len(), 5000);
        assert_eq!(first.names().count(), 5000);
        assert!(names.iter().all(|name| first.get(name).is_some_and(|found| Arc::ptr_eq(found, &a))));
        assert!(first.get("T5000").is_none() && first.get("").is_none());

        let second = first.edit(1, |edit| {
            edit.set("T7", Arc::clone(&b));
            edit.set("New", Arc::clone(&b));
            edit.remove("T8");
            edit.remove("Absent");
        });
        assert_eq!((first.len(), second.len()), (5000, 5000));
        assert!(Arc::ptr_eq(second.get("T7").unwrap(), &b) && Arc::ptr_eq(first.get("T7").unwrap(), &a));
        assert!(second.get("New").is_some() && first.get("New").is_none());
        assert!(second.get("T8").is_none() && first.get("T8").is_some());
        let shared = first.shards.iter().zip(&second.shards).filter(|(x, y)| Arc::ptr_eq(x, y)).count();
        assert!(shared >= SHARDS - 3, "{shared} shards shared");

        // A topic set again after its removal, and its shard copied again: names stay right.
        let third = second.edit(1, |edit| edit.set("T8", Arc::clone(&b)));
        let fourth = third.edit(0, |edit| edit.remove("New"));
        assert_eq!(fourth.len(), 5000);
        assert!(names.iter().all(|name| fourth.get(name).is_some()));
        assert_eq!(fourth.names().filter(|name| names.iter().any(|n| n == name)).count(), 5000);
    }

    #[test]
    fn within_one_edit_the_last_word_on_a_topic_counts() {
        let (a, b) = (bodies(), bodies());
        let table = TopicRoutes::default().edit(3, |edit| {
            edit.set("twice", Arc::clone(&a));
            edit.set("twice", Arc::clone(&b));
            edit.set("gone", Arc::clone(&a));
            edit.remove("gone");
            edit.remove("never");
        });
        assert_eq!(table.len(), 1);
        assert!(Arc::ptr_eq(table.get("twice").unwrap(), &b));
        assert!(table.get("gone").is_none());
        assert_eq!(table.names().collect::<Vec<_>>(), ["twice"]);
        let again = table.edit(1, |edit| {
            edit.remove("twice");
            edit.set("twice", Arc::clone(&a));
        });
        assert_eq!(again.len(), 1);
        assert!(Arc::ptr_eq(again.get("twice").unwrap(), &a));
    }
}
