//! registerBroker and registerTopic (PROTOCOL.md §10.3, §10.5).

use alloc::collections::btree_map::Entry;
use alloc::string::String;
use alloc::vec::Vec;
use core::time::Duration;

use super::queues::Rewrites;
use super::{BrokerAddrInfo, BrokerLiveInfo, DEFAULT_BROKER_TIMEOUT, RouteTable, TopicQueues};
use crate::event::Event;
use crate::event_run::EventRun;
use crate::names::{BrokerAddr, BrokerId, BrokerName, ConnId, TopicName};
use crate::protocol::body::{BrokerData, QueueData, TopicConfig, TopicConfigTable, TopicConfigWrapper, perm};
use crate::protocol::request::BrokerIdentity;
use crate::time::Instant;

/// One registration's queue changes under way: the results shared by topics that shared a
/// list (see [`Rewrites`]), and where the group went in the last list changed in place (one
/// registration puts one group into lists that mostly hold the same groups).
struct QueueChanges {
    rewrites: Rewrites<(BrokerName, [i32; 4]), (TopicQueues, Option<QueueData>)>,
    at: usize,
}

impl QueueChanges {
    const fn new() -> Self {
        Self { rewrites: Rewrites::new(), at: 0 }
    }
}

/// Whether a registration's topic loop is cheaper as one walk along a table of `table` topics
/// (it brings a good part of them) and can be one: each config keyed by its own topic name, so
/// that they come in topic order.
fn merging_pays(configs: &TopicConfigTable, table: usize) -> bool {
    configs.len() >= 64
        && configs.len().saturating_mul(8) >= table
        && configs.iter().all(|(key, config)| *key == config.topic_name)
}

/// `createAndUpdateQueueData` on one topic's list (`None`: a new topic): the line to log and
/// the new list (`None`: changed in place, nothing else held it), or `None` when its queues
/// on the group are already `queue_data`. Topics that had the same list get the same new one
/// from `rewrites`.
fn updated_queues(
    current: Option<&mut TopicQueues>,
    topic: &TopicName,
    queue_data: QueueData,
    changes: &mut QueueChanges,
) -> Option<(Option<TopicQueues>, Event)> {
    let change =
        |q: &QueueData| (q.broker_name.clone(), [q.read_queue_nums, q.write_queue_nums, q.perm, q.topic_sys_flag]);
    let rewrites = &mut changes.rewrites;
    let (list, old) = match current {
        Some(current) => match current.set_in_place(queue_data.clone(), &mut changes.at) {
            Ok(old) => (None, old),
            Err(queue_data) => {
                let (list, old) = rewrites.get(current, change(&queue_data), |list| list.with(queue_data));
                (Some(list), old)
            }
        },
        None => {
            let (list, old) = rewrites.get_new(change(&queue_data), || (TopicQueues::one(queue_data.clone()), None));
            (Some(list), old)
        }
    };
    let event = match old {
        // Unchanged (in place, an equal entry replaced).
        Some(old) if old == queue_data => return None,
        Some(old) => Event::TopicChanged { topic: topic.clone(), old, new: queue_data },
        None => Event::TopicRegistered { topic: topic.clone(), queue_data },
    };
    Some((list, event))
}

/// One REGISTER_BROKER, as the route table needs it.
#[derive(Clone, Copy, Debug)]
pub struct Registration<'a> {
    /// Who.
    pub broker: &'a BrokerIdentity,
    /// `haServerAddr` (Java carries on with null).
    pub ha_server_addr: Option<&'a str>,
    /// `__ZONE_NAME`.
    pub zone_name: Option<&'a str>,
    /// `heartbeatTimeoutMillis`.
    pub heartbeat_timeout_millis: Option<u64>,
    /// `enableActingMaster`; `None` marks a pre-5.0 broker.
    pub enable_acting_master: Option<bool>,
    /// The topic table.
    pub wrapper: &'a TopicConfigWrapper,
    /// `filterServerList`.
    pub filter_server_list: &'a [String],
    /// The connection it arrived on.
    pub conn: ConnId,
    /// When.
    pub now: Instant,
    /// `deleteTopicWithBrokerRegistration`.
    pub delete_topics_not_listed: bool,
}

/// What a registration did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegisterOutcome {
    /// Registered; for a slave whose master is live, the master's addresses.
    Registered {
        /// The master's `haServerAddr`.
        ha_server_addr: Option<String>,
        /// The master's address.
        master_addr: Option<BrokerAddr>,
        /// The group's lowest broker id went down (for NOTIFY_MIN_BROKER_ID_CHANGE).
        min_broker_id_changed: bool,
    },
    /// The id is held by a live instance with a higher state version: an empty result.
    Conflict,
    /// A single-topic registration from an instance not registered yet: "register broker failed".
    Rejected,
}

impl RouteTable {
    /// `RouteInfoManager.registerBroker` (5.x).
    pub fn register_broker(&mut self, reg: &Registration<'_>, log: &mut EventRun) -> RegisterOutcome {
        let broker = reg.broker;
        let name = &broker.broker_name;
        let addr_info = BrokerAddrInfo { cluster: broker.cluster.clone(), broker_addr: broker.broker_addr.clone() };

        self.cluster_addr_table.entry(broker.cluster.clone()).or_default().insert(name.clone());

        let mut register_first = !self.broker_addr_table.contains_key(name);
        let old_version_broker = reg.enable_acting_master.is_none();
        let before = self.broker_addr_table.get(name).cloned();
        let data = self.broker_addr_table.entry(name.clone()).or_insert_with(|| BrokerData {
            cluster: broker.cluster.clone(),
            broker_name: name.clone(),
            ..BrokerData::default()
        });
        data.enable_acting_master = !old_version_broker && reg.enable_acting_master == Some(true);
        data.zone_name = reg.zone_name.map(String::from);

        let prev_min_id = data.broker_addrs.keys().next().copied().unwrap_or(BrokerId(0));
        let min_broker_id_changed = broker.broker_id < prev_min_id;

        // One address never appears under two ids: a slave that became master (or back).
        data.broker_addrs.retain(|id, addr| *addr != broker.broker_addr || *id == broker.broker_id);

        if let Some(holder) = data.broker_addrs.get(&broker.broker_id).filter(|a| **a != broker.broker_addr).cloned() {
            let holder_key = BrokerAddrInfo { cluster: broker.cluster.clone(), broker_addr: holder.clone() };
            let holder_state = self.broker_live_table.get(&holder_key).map(|l| l.data_version.state_version);
            if holder_state.is_some_and(|s| s > reg.wrapper.data_version.state_version) {
                self.finish_broker_data_change(name, before.as_ref());
                self.broker_live_table.remove(&addr_info);
                log.push(Event::RegistrationConflict { broker_addr: broker.broker_addr.clone(), holder });
                return RegisterOutcome::Conflict;
            }
        }

        let data = self.broker_addr_table.get_mut(name).expect("inserted above");
        if !data.broker_addrs.contains_key(&broker.broker_id) && reg.wrapper.topic_config_table.len() == 1 {
            self.finish_broker_data_change(name, before.as_ref());
            log.push(Event::RegistrationRejected {
                broker_addr: broker.broker_addr.clone(),
                broker_name: name.clone(),
            });
            return RegisterOutcome::Rejected;
        }

        let old_addr = data.broker_addrs.insert(broker.broker_id, broker.broker_addr.clone());
        register_first |= old_addr.is_none();
        let is_master = broker.broker_id.is_master();
        let min_id = data.broker_addrs.keys().next().copied();
        let is_prime_slave = !old_version_broker && !is_master && min_id == Some(broker.broker_id);
        let acting_master = data.enable_acting_master;
        self.finish_broker_data_change(name, before.as_ref());

        if is_master || is_prime_slave {
            // Java's `new DataVersion()` is stamped "now": an unstamped version is always new.
            let version_changed = reg.wrapper.data_version.is_unstamped()
                || self.broker_live_table.get(&addr_info).is_none_or(|l| l.data_version != reg.wrapper.data_version);
            if reg.delete_topics_not_listed && reg.wrapper.topic_queue_mapping_info_map.is_empty() {
                self.delete_topics_not_in(name, &reg.wrapper.topic_config_table, log);
            }
            // Every queue entry shares the group's one copy of its name.
            let name = self.broker_addr_table.get_key_value(name).map_or_else(|| name.clone(), |(key, _)| key.clone());
            let wipe_write = is_prime_slave && acting_master;
            let every_topic = register_first || version_changed;
            // A queue entry for the topic, unless it has one and the broker's data is as before.
            let wanted = |config: &TopicConfig, current: Option<&TopicQueues>| {
                let needed = every_topic || !current.is_some_and(|q| q.contains_key(&name));
                needed.then(|| QueueData {
                    broker_name: name.clone(),
                    read_queue_nums: config.read_queue_nums,
                    write_queue_nums: config.write_queue_nums,
                    perm: if wipe_write { config.perm & !perm::WRITE } else { config.perm },
                    topic_sys_flag: config.topic_sys_flag,
                })
            };
            let configs = &reg.wrapper.topic_config_table;
            let touched = if merging_pays(configs, self.topic_queue_table.len()) {
                self.set_queue_data_merging(configs, wanted, log)
            } else {
                let mut touched = Vec::new();
                let mut changes = QueueChanges::new();
                for config in configs.values() {
                    // `wanted` looks at the current queues only when not every topic is wanted.
                    let current = if every_topic { None } else { self.topic_queue_table.get(&config.topic_name) };
                    let Some(queue_data) = wanted(config, current) else { continue };
                    if self.set_queue_data(&config.topic_name, queue_data, &mut changes, log) {
                        touched.push(config.topic_name.clone());
                    }
                }
                touched
            };
            // The table iterates in name order, so `touched` is sorted.
            self.touch_sorted_topics(touched);
            if version_changed || register_first {
                for (topic, info) in &reg.wrapper.topic_queue_mapping_info_map {
                    let topic = TopicName::from(topic.as_str());
                    self.topic_queue_mapping_info_table
                        .entry(topic.clone())
                        .or_default()
                        .insert(BrokerName::from(info.bname.as_str()), info.clone());
                    self.touch_topic(&topic);
                }
            }
        }

        let timeout = reg.heartbeat_timeout_millis.map_or(DEFAULT_BROKER_TIMEOUT, Duration::from_millis);
        let previous = self.broker_live_table.insert(
            addr_info.clone(),
            BrokerLiveInfo {
                last_update: reg.now,
                heartbeat_timeout: timeout,
                data_version: reg.wrapper.data_version.stamped(reg.now),
                conn: reg.conn,
                ha_server_addr: reg.ha_server_addr.map(String::from),
                broker_name: name.clone(),
                broker_id: broker.broker_id,
            },
        );
        match previous {
            None => log.push(Event::BrokerRegistered {
                cluster: broker.cluster.clone(),
                broker_addr: broker.broker_addr.clone(),
                broker_name: name.clone(),
                broker_id: broker.broker_id,
                ha_server_addr: String::from(reg.ha_server_addr.unwrap_or("null")),
                last_update: reg.now,
                timeout_ms: crate::time::millis(timeout),
                deadline: reg.now + timeout,
            }),
            // A new instance on a new connection: the old one's late UNREGISTER_BROKER must not
            // take it away (#11043), so remember who registered it before.
            Some(old) if old.conn != reg.conn => {
                self.superseded.entry(addr_info.clone()).or_default().insert(old.conn);
            }
            Some(_) => {}
        }

        let filters_changed = if reg.filter_server_list.is_empty() {
            self.filter_server_table.remove(&addr_info).is_some()
        } else {
            self.filter_server_table.insert(addr_info, reg.filter_server_list.to_vec()).as_deref()
                != Some(reg.filter_server_list)
        };
        if filters_changed {
            self.touch_broker(name);
        }

        let (mut ha_server_addr, mut master_addr) = (None, None);
        if !is_master {
            if let Some(master) = self.broker_addr_table.get(name).and_then(BrokerData::master_addr) {
                let key = BrokerAddrInfo { cluster: broker.cluster.clone(), broker_addr: master.clone() };
                if let Some(live) = self.broker_live_table.get(&key) {
                    ha_server_addr = live.ha_server_addr.clone();
                    master_addr = Some(master.clone());
                }
            }
        }
        RegisterOutcome::Registered { ha_server_addr, master_addr, min_broker_id_changed }
    }

    /// Marks the group's topics changed if its `BrokerData` differs from `before`.
    fn finish_broker_data_change(&mut self, name: &BrokerName, before: Option<&BrokerData>) {
        if self.broker_addr_table.get(name) != before {
            match before {
                // A new group: no topic has queues on it yet (every queue entry names a
                // known group), so there is nothing to mark, and no pass over every topic.
                None => {
                    self.epoch += 1;
                    self.changes.groups.insert(name.clone());
                }
                Some(_) => self.touch_broker(name),
            }
        }
    }

    /// `createAndUpdateQueueData`: the topic's queues on the entry's group become
    /// `queue_data`. Logs what changed; returns whether anything did (the caller marks the
    /// topic).
    fn set_queue_data(
        &mut self,
        topic: &TopicName,
        queue_data: QueueData,
        changes: &mut QueueChanges,
        log: &mut EventRun,
    ) -> bool {
        let event = match self.topic_queue_table.entry(topic.clone()) {
            Entry::Occupied(mut entry) => {
                // The line names the table's copy: the decoded one goes with the body, here.
                let topic = entry.key().clone();
                let Some((list, event)) = updated_queues(Some(entry.get_mut()), &topic, queue_data, changes) else {
                    return false;
                };
                if let Some(list) = list {
                    entry.insert(list);
                }
                event
            }
            Entry::Vacant(entry) => {
                let Some((Some(list), event)) = updated_queues(None, topic, queue_data, changes) else { return false };
                entry.insert(list);
                event
            }
        };
        log.push(event);
        true
    }

    /// The topic loop of `registerBroker` as one walk along the table, which is then rebuilt
    /// in bulk: the same effects, in the same order, as [`Self::set_queue_data`] for each
    /// config `wanted` gives an entry for, without a tree descent per topic. `configs` must be
    /// keyed by their own topic names ([`merging_pays`] checks). Returns the topics changed.
    fn set_queue_data_merging(
        &mut self,
        configs: &TopicConfigTable,
        wanted: impl Fn(&TopicConfig, Option<&TopicQueues>) -> Option<QueueData>,
        log: &mut EventRun,
    ) -> Vec<TopicName> {
        let mut changes = QueueChanges::new();
        let mut touched = Vec::new();
        let old = core::mem::take(&mut self.topic_queue_table);
        let mut merged = Vec::with_capacity(old.len() + configs.len());
        let mut old = old.into_iter().peekable();
        for config in configs.values() {
            let topic = &config.topic_name;
            while let Some(entry) = old.next_if(|(name, _)| name < topic) {
                merged.push(entry);
            }
            let mut current = old.next_if(|(name, _)| name == topic);
            let change = wanted(config, current.as_ref().map(|(_, list)| list)).and_then(|queue_data| {
                // As in `set_queue_data`, the line names the table's copy.
                let (name, list) = match current.as_mut() {
                    Some((name, list)) => (&*name, Some(list)),
                    None => (topic, None),
                };
                updated_queues(list, name, queue_data, &mut changes)
            });
            let event = match (change, current) {
                (Some((Some(list), event)), current) => {
                    merged.push((current.map_or_else(|| topic.clone(), |(name, _)| name), list));
                    event
                }
                // Changed in place.
                (Some((None, event)), Some(current)) => {
                    merged.push(current);
                    event
                }
                (None, Some(current)) => {
                    merged.push(current);
                    continue;
                }
                // A new topic always gets a new list.
                (_, None) => continue,
            };
            log.push(event);
            touched.push(topic.clone());
        }
        merged.extend(old);
        // Sorted and without duplicates already: the bulk build is linear.
        self.topic_queue_table = merged.into_iter().collect();
        touched
    }

    /// `deleteTopicWithBrokerRegistration`: drop this group's queues of topics it no longer lists.
    fn delete_topics_not_in(&mut self, name: &BrokerName, listed: &TopicConfigTable, log: &mut EventRun) {
        let stale: Vec<TopicName> = self
            .topic_queue_table
            .iter()
            .filter(|(topic, queues)| queues.contains_key(name) && !listed.contains_key(*topic))
            .map(|(topic, _)| topic.clone())
            .collect();
        let mut rewrites = Rewrites::new();
        for topic in stale {
            self.remove_queue_data(&topic, name, &mut rewrites);
            log.push(Event::TopicRemovedWithBroker { topic, broker_name: name.clone() });
        }
    }

    /// Removes one group's queues of a topic; drops the topic when none remain. Topics that
    /// had the same queues get the same remaining list from `rewrites`.
    pub(super) fn remove_queue_data(
        &mut self,
        topic: &TopicName,
        name: &BrokerName,
        rewrites: &mut Rewrites<BrokerName, Option<TopicQueues>>,
    ) {
        let Some(queues) = self.topic_queue_table.get_mut(topic) else { return };
        match queues.remove_group(name, rewrites) {
            None => return,
            Some(true) => {
                self.topic_queue_table.remove(topic);
            }
            Some(false) => {}
        }
        self.touch_topic(topic);
    }

    /// `registerTopic` (REGISTER_TOPIC_IN_NAMESRV). An existing topic takes entries in order
    /// until one names an unknown group; a new topic is stored only if every group is known.
    pub fn register_topic(&mut self, topic: &TopicName, queue_datas: &[QueueData], log: &mut EventRun) {
        if queue_datas.is_empty() {
            return;
        }
        if !self.topic_queue_table.contains_key(topic)
            && queue_datas.iter().any(|q| !self.broker_addr_table.contains_key(&q.broker_name))
        {
            return;
        }
        let mut changes = QueueChanges::new();
        for queue_data in queue_datas {
            let Some((name, _)) = self.broker_addr_table.get_key_value(&queue_data.broker_name) else { break };
            let queue_data = QueueData { broker_name: name.clone(), ..queue_data.clone() };
            if self.set_queue_data(topic, queue_data, &mut changes, log) {
                self.touch_topic(topic);
            }
        }
    }
}
