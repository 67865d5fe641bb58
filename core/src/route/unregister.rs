//! Unregistration, expiry and connection loss (PROTOCOL.md §10.4, §10.7).
//!
//! Java decides to unregister in one place and executes later from a queue, so a stale
//! decision can delete a fresher registration (upstream bug #11043). Here decision and
//! execution happen in one call. An UNREGISTER_BROKER request is served from any connection,
//! as in Java (an operator's tool may send it), and removes every entry of the group with
//! that address (Java 5.1+), with one narrow fence: a connection that registered the broker
//! itself and has since been superseded by a newer registration on another connection (the
//! old instance's late unregister of #11043) removes nothing, and that is logged.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use super::queues::Rewrites;
use super::{BrokerAddrInfo, RouteTable};
use crate::event::{Event, UnregisterReason};
use crate::event_run::EventRun;
use crate::names::{BrokerName, ConnId};
use crate::protocol::body::perm;
use crate::protocol::request::BrokerIdentity;
use crate::time::Instant;

/// One broker instance to unregister.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnregisterItem {
    /// Which instance.
    pub broker: BrokerIdentity,
    /// Why.
    pub reason: UnregisterReason,
}

impl RouteTable {
    /// Unregisters a batch of instances in one pass (Java's `BatchUnregistrationService`).
    /// Returns the groups whose lowest id changed (for NOTIFY_MIN_BROKER_ID_CHANGE).
    pub fn unregister(&mut self, items: &[UnregisterItem], log: &mut EventRun) -> BTreeSet<BrokerName> {
        let mut removed: BTreeSet<BrokerName> = BTreeSet::new();
        let mut reduced: BTreeSet<BrokerName> = BTreeSet::new();
        let mut min_changed = BTreeSet::new();
        // Groups whose addresses changed: their topics are marked in one pass at the end.
        let mut touched: BTreeSet<BrokerName> = BTreeSet::new();
        for item in items {
            let broker = &item.broker;
            let key = BrokerAddrInfo { cluster: broker.cluster.clone(), broker_addr: broker.broker_addr.clone() };
            if let (UnregisterReason::Request { from }, Some(live)) = (item.reason, self.broker_live_table.get(&key)) {
                if live.conn != from && self.superseded.get(&key).is_some_and(|old| old.contains(&from)) {
                    log.push(Event::StaleUnregisterIgnored {
                        broker_addr: broker.broker_addr.clone(),
                        from,
                        live_on: live.conn,
                    });
                    continue;
                }
            }
            self.superseded.remove(&key);
            if self.broker_live_table.remove(&key).is_some() {
                log.push(Event::BrokerUnregistered {
                    cluster: broker.cluster.clone(),
                    broker_addr: broker.broker_addr.clone(),
                    reason: item.reason,
                });
            }
            if self.filter_server_table.remove(&key).is_some() {
                self.epoch += 1;
                touched.insert(broker.broker_name.clone());
            }
            let Some(data) = self.broker_addr_table.get_mut(&broker.broker_name) else { continue };
            let min_id = data.broker_addrs.keys().next().copied();
            let before = data.broker_addrs.len();
            // Every entry with this address, whatever its id (Java 5.1+). A registration keeps
            // one id per address in a group, so this is that instance.
            data.broker_addrs.retain(|_, addr| *addr != broker.broker_addr);
            let changed = data.broker_addrs.len() != before;
            let now_empty = data.broker_addrs.is_empty();
            if changed && min_id == Some(broker.broker_id) && !now_empty {
                min_changed.insert(broker.broker_name.clone());
            }
            if changed {
                self.epoch += 1;
                touched.insert(broker.broker_name.clone());
            }
            if now_empty {
                self.broker_addr_table.remove(&broker.broker_name);
                log.push(Event::BrokerNameRemoved { broker_name: broker.broker_name.clone() });
                if let Some(names) = self.cluster_addr_table.get_mut(&broker.cluster) {
                    names.remove(&broker.broker_name);
                    if names.is_empty() {
                        self.cluster_addr_table.remove(&broker.cluster);
                        log.push(Event::ClusterRemoved { cluster: broker.cluster.clone() });
                    }
                }
                removed.insert(broker.broker_name.clone());
                reduced.remove(&broker.broker_name);
            } else {
                reduced.insert(broker.broker_name.clone());
            }
        }
        // The loop left the topic table as it was, so this marks what marking one group at a
        // time would have.
        self.touch_brokers(&touched);
        self.remove_topics_of(&removed, log);
        self.wipe_masterless_acting_groups(&reduced);
        min_changed
    }

    /// Unregisters every instance whose latest registration arrived on `conn`
    /// (`onChannelDestroy`), closed (`ChannelClosed`) or idled out (`ChannelIdle`). Returns
    /// how many there were.
    pub fn on_channel_destroy(&mut self, conn: ConnId, reason: UnregisterReason, log: &mut EventRun) -> usize {
        let items = self.channel_items(conn, reason, log);
        self.unregister(&items, log);
        items.len()
    }

    /// What [`Self::on_channel_destroy`] unregisters, for callers that also need
    /// [`Self::unregister`]'s result (the groups whose lowest id changed).
    pub(crate) fn channel_items(
        &mut self,
        conn: ConnId,
        reason: UnregisterReason,
        log: &mut EventRun,
    ) -> Vec<UnregisterItem> {
        // A closed connection sends nothing more: it needs no fence.
        self.superseded.retain(|_, old| {
            old.remove(&conn);
            !old.is_empty()
        });
        self.broker_live_table
            .iter()
            .filter(|(_, live)| live.conn == conn)
            .map(|(key, live)| {
                log.push(Event::ChannelDestroyed { conn, broker_addr: key.broker_addr.clone() });
                UnregisterItem {
                    broker: BrokerIdentity {
                        cluster: key.cluster.clone(),
                        broker_addr: key.broker_addr.clone(),
                        broker_name: live.broker_name.clone(),
                        broker_id: live.broker_id,
                    },
                    reason,
                }
            })
            .collect()
    }

    /// `scanNotActiveBroker`: unregisters every instance silent for longer than its timeout.
    /// Returns the connections of the expired instances; Java closes them.
    pub fn scan_not_active_broker(&mut self, now: Instant, log: &mut EventRun) -> Vec<ConnId> {
        let (items, conns) = self.expired_items(now, log);
        self.unregister(&items, log);
        conns
    }

    /// What [`Self::scan_not_active_broker`] unregisters, with the connections to close.
    pub(crate) fn expired_items(&self, now: Instant, log: &mut EventRun) -> (Vec<UnregisterItem>, Vec<ConnId>) {
        let mut conns = Vec::new();
        let items = self
            .broker_live_table
            .iter()
            .filter(|(_, live)| now >= live.expired_from())
            .map(|(key, live)| {
                let timeout_ms = crate::time::millis(live.heartbeat_timeout);
                log.push(Event::BrokerExpired {
                    cluster: key.cluster.clone(),
                    broker_addr: key.broker_addr.clone(),
                    timeout_ms,
                    last_update: live.last_update,
                    now,
                });
                conns.push(live.conn);
                UnregisterItem {
                    broker: BrokerIdentity {
                        cluster: key.cluster.clone(),
                        broker_addr: key.broker_addr.clone(),
                        broker_name: live.broker_name.clone(),
                        broker_id: live.broker_id,
                    },
                    reason: UnregisterReason::Expired { last_update: live.last_update, timeout_ms, now },
                }
            })
            .collect();
        (items, conns)
    }

    fn remove_topics_of(&mut self, removed: &BTreeSet<BrokerName>, log: &mut EventRun) {
        if removed.is_empty() {
            return;
        }
        // One walk along the table: a departure takes a group out of thousands of topics, and a
        // lookup and a mark per topic cost more than the removal.
        let mut rewrites = Rewrites::new();
        let (mut touched, mut emptied, mut removals) = (Vec::new(), Vec::new(), 0u64);
        for (topic, queues) in &mut self.topic_queue_table {
            let gone: Vec<BrokerName> = queues.groups_in(removed).cloned().collect();
            if gone.is_empty() {
                continue;
            }
            for name in gone {
                removals += 1;
                let left_empty = queues.remove_group(&name, &mut rewrites) == Some(true);
                log.push(Event::TopicRemovedWithBroker { topic: topic.clone(), broker_name: name });
                if left_empty {
                    emptied.push(topic.clone());
                    break;
                }
            }
            touched.push(topic.clone());
        }
        for topic in &emptied {
            self.topic_queue_table.remove(topic);
        }
        // The epoch moves once per group removed from a topic, as `remove_queue_data` moves it.
        self.epoch += removals - touched.len() as u64;
        self.touch_sorted_topics(touched);
    }

    /// Acting-master groups left without a master lose write permission on their queues.
    fn wipe_masterless_acting_groups(&mut self, reduced: &BTreeSet<BrokerName>) {
        for name in reduced {
            let Some(data) = self.broker_addr_table.get(name) else { continue };
            if !data.enable_acting_master || data.master_addr().is_some() {
                continue;
            }
            let mut touched = Vec::new();
            let mut rewrites = Rewrites::new();
            for (topic, queues) in &mut self.topic_queue_table {
                let Some(bits) = queues.get(name).map(|q| q.perm) else { continue };
                if perm::is_writeable(bits) {
                    let next = bits & !perm::WRITE;
                    *queues = rewrites.get(queues, next, |list| list.with_perm(name, next));
                    touched.push(topic.clone());
                }
            }
            for topic in touched {
                self.touch_topic(&topic);
            }
        }
    }
}
