//! The route tables against a naive model (sled's `prop_tree_matches_btreemap`, redb's fuzz
//! target): random operation sequences go to a real [`NameServer`] as requests and connection
//! events, and to [`Model`], written from PROTOCOL.md §10 alone with plain maps. After every
//! operation the two must agree on topics, routes, broker groups, clusters and live brokers,
//! and the invariants at the bottom must hold.
//!
//! The universe is tiny so that failures shrink to a few operations: 2 clusters, 3 broker
//! names (broker-a and broker-b in c1, broker-c in c2), 3 addresses per name, ids 0–2,
//! 4 topics, 3 connections.

use std::collections::{BTreeMap, BTreeSet};

use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::body::{DataVersion, RegisterBrokerBody, TopicConfig, TopicRouteData};
use nameserver_core::protocol::{FLAG_ONEWAY, RemotingCommand, RequestCode, ResponseCode};
use nameserver_core::{Config, ConnId, Input, Instant, KvConfig, NameServer, Output, TopicName};
use proptest::prelude::*;

const NAMES: [&str; 3] = ["broker-a", "broker-b", "broker-c"];
const TOPICS: [&str; 4] = ["T0", "T1", "T2", "T3"];
const SCAN_INTERVAL: u64 = 5_000;

fn cluster_of(name: usize) -> &'static str {
    if name < 2 { "c1" } else { "c2" }
}

fn addr_of(name: usize, slot: usize) -> String {
    format!("10.0.{name}.{slot}:10911")
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Op {
    Register {
        name: usize,
        slot: usize,
        id: i64,
        conn: u64,
        /// topic index → (queues, perm)
        topics: BTreeMap<usize, (i32, i32)>,
        counter: i64,
        state: i64,
        /// `enableActingMaster`; `None` is a 4.9.x broker.
        acting: Option<bool>,
        timeout: Option<u64>,
    },
    Unregister {
        name: usize,
        slot: usize,
        id: i64,
        conn: u64,
    },
    Heartbeat {
        name: usize,
        slot: usize,
    },
    QueryDataVersion {
        name: usize,
        slot: usize,
        counter: i64,
        state: i64,
    },
    Disconnect {
        conn: u64,
    },
    Idle {
        conn: u64,
    },
    Advance {
        ms: u64,
    },
    WipePerm {
        name: usize,
    },
    AddPerm {
        name: usize,
    },
    DeleteTopic {
        topic: usize,
        cluster: Option<usize>,
    },
    /// (name index, 3 = an unknown group) → queues
    RegisterTopic {
        topic: usize,
        entries: Vec<(usize, i32)>,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let name = 0..3usize;
    let slot = 0..3usize;
    let id = 0..3i64;
    let conn = 1..4u64;
    let topics =
        proptest::collection::btree_map(0..4usize, (1..5i32, prop_oneof![Just(6), Just(4), Just(7), Just(2)]), 0..=4);
    let register = (
        (name.clone(), slot.clone(), id.clone(), conn.clone()),
        topics,
        (0..3i64, 0..2i64),
        prop_oneof![3 => Just(Some(false)), 2 => Just(Some(true)), 1 => Just(None)],
        prop_oneof![Just(None), Just(Some(10_000u64)), Just(Some(30_000u64))],
    )
        .prop_map(|((name, slot, id, conn), topics, (counter, state), acting, timeout)| Op::Register {
            name,
            slot,
            id,
            conn,
            topics,
            counter,
            state,
            acting,
            timeout,
        });
    prop_oneof![
        8 => register,
        2 => (name.clone(), slot.clone(), id, conn.clone()).prop_map(|(name, slot, id, conn)| Op::Unregister { name, slot, id, conn }),
        2 => (name.clone(), slot.clone()).prop_map(|(name, slot)| Op::Heartbeat { name, slot }),
        1 => (name.clone(), slot, 0..3i64, 0..2i64).prop_map(|(name, slot, counter, state)| Op::QueryDataVersion { name, slot, counter, state }),
        1 => conn.clone().prop_map(|conn| Op::Disconnect { conn }),
        1 => conn.prop_map(|conn| Op::Idle { conn }),
        4 => prop_oneof![Just(5_000u64), (0..40u64).prop_map(|k| k * 1_000), 0..40_000u64].prop_map(|ms| Op::Advance { ms }),
        1 => name.clone().prop_map(|name| Op::WipePerm { name }),
        1 => name.prop_map(|name| Op::AddPerm { name }),
        1 => (0..4usize, proptest::option::of(0..3usize)).prop_map(|(topic, cluster)| Op::DeleteTopic { topic, cluster }),
        1 => (0..4usize, proptest::collection::vec((0..4usize, 1..5i32), 0..3)).prop_map(|(topic, entries)| Op::RegisterTopic { topic, entries }),
    ]
}

// ---------------------------------------------------------------------------------------------
// The model: PROTOCOL.md §10.3–§10.7 with plain maps
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Eq)]
struct Group {
    cluster: String,
    addrs: BTreeMap<i64, String>,
    acting: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Live {
    last: u64,
    timeout: u64,
    version: (i64, i64),
    conn: u64,
    ha: String,
    name: String,
    id: i64,
}

#[derive(Debug, PartialEq, Eq)]
enum Registered {
    Ok(Option<(String, String)>),
    Conflict,
    Rejected,
}

#[derive(Debug, Default)]
struct Model {
    /// topic → group → (read, write, perm)
    topics: BTreeMap<String, BTreeMap<String, (i32, i32, i32)>>,
    groups: BTreeMap<String, Group>,
    clusters: BTreeMap<String, BTreeSet<String>>,
    /// (cluster, addr) → liveness
    live: BTreeMap<(String, String), Live>,
    /// (cluster, addr) → open connections whose registration of it was replaced (#11043).
    superseded: BTreeMap<(String, String), BTreeSet<u64>>,
    now: u64,
    next_scan: u64,
}

impl Model {
    #[allow(clippy::too_many_arguments)]
    fn register(
        &mut self,
        cluster: &str,
        addr: &str,
        name: &str,
        id: i64,
        ha: &str,
        acting: Option<bool>,
        topics: &[(String, i32, i32)],
        version: (i64, i64),
        timeout: u64,
        conn: u64,
    ) -> Registered {
        self.clusters.entry(cluster.into()).or_default().insert(name.into());
        let mut first = !self.groups.contains_key(name);
        let group = self.groups.entry(name.into()).or_insert_with(|| Group {
            cluster: cluster.into(),
            addrs: BTreeMap::new(),
            acting: false,
        });
        group.acting = acting == Some(true);
        group.addrs.retain(|i, a| a != addr || *i == id);
        if let Some(holder) = group.addrs.get(&id).filter(|a| *a != addr) {
            if self.live.get(&(cluster.into(), holder.clone())).is_some_and(|l| l.version.1 > version.1) {
                self.live.remove(&(cluster.into(), addr.into()));
                return Registered::Conflict;
            }
        }
        if !group.addrs.contains_key(&id) && topics.len() == 1 {
            return Registered::Rejected;
        }
        first |= group.addrs.insert(id, addr.into()).is_none();
        let prime = acting.is_some() && id != 0 && group.addrs.keys().next() == Some(&id);
        let clear_write = prime && group.acting;
        if id == 0 || prime {
            let changed = self.live.get(&(cluster.into(), addr.into())).is_none_or(|l| l.version != version);
            for (topic, queues, perm) in topics {
                let map = self.topics.entry(topic.clone()).or_default();
                if first || changed || !map.contains_key(name) {
                    map.insert(name.into(), (*queues, *queues, if clear_write { perm & !2 } else { *perm }));
                }
            }
        }
        let live = Live { last: self.now, timeout, version, conn, ha: ha.into(), name: name.into(), id };
        if let Some(old) = self.live.insert((cluster.into(), addr.into()), live).filter(|old| old.conn != conn) {
            self.superseded.entry((cluster.into(), addr.into())).or_default().insert(old.conn);
        }
        let master = (id != 0).then(|| self.groups[name].addrs.get(&0).cloned()).flatten();
        Registered::Ok(master.and_then(|m| Some((m.clone(), self.live.get(&(cluster.into(), m))?.ha.clone()))))
    }

    /// One unregistration of `addr` in `name` (§10.4; every entry with that address goes).
    fn unregister(&mut self, cluster: &str, addr: &str, name: &str) {
        self.live.remove(&(cluster.into(), addr.into()));
        self.superseded.remove(&(cluster.into(), addr.into()));
        let Some(group) = self.groups.get_mut(name) else { return };
        group.addrs.retain(|_, a| a != addr);
        if group.addrs.is_empty() {
            self.groups.remove(name);
            let names = self.clusters.get_mut(cluster).unwrap();
            names.remove(name);
            if names.is_empty() {
                self.clusters.remove(cluster);
            }
            for queues in self.topics.values_mut() {
                queues.remove(name);
            }
            self.topics.retain(|_, m| !m.is_empty());
        } else if group.acting && !group.addrs.contains_key(&0) {
            self.topics.values_mut().filter_map(|m| m.get_mut(name)).for_each(|q| q.2 &= !2);
        }
    }

    /// A closed connection sends nothing more: it needs no fence.
    fn forget_conn(&mut self, conn: u64) {
        self.superseded.retain(|_, old| {
            old.remove(&conn);
            !old.is_empty()
        });
    }

    /// Unregisters every live entry matching `pick` (a closed connection, an expiry scan).
    fn unregister_live(&mut self, pick: impl Fn(&Live) -> bool) {
        let gone: Vec<_> =
            self.live.iter().filter(|(_, l)| pick(l)).map(|(k, l)| (k.clone(), l.name.clone())).collect();
        for ((cluster, addr), name) in gone {
            self.unregister(&cluster, &addr, &name);
        }
    }

    /// Time passes to `now`; a due scan expires entries silent past their timeout (§10.7).
    fn advance(&mut self, now: u64) {
        self.now = now;
        if now >= self.next_scan {
            self.unregister_live(|l| l.last + l.timeout < now);
            while self.next_scan <= now {
                self.next_scan += SCAN_INTERVAL;
            }
        }
    }

    fn change_perm(&mut self, name: &str, add: bool) -> usize {
        let queues: Vec<_> = self.topics.values_mut().filter_map(|m| m.get_mut(name)).collect();
        let count = queues.len();
        for q in queues {
            q.2 = if add { 6 } else { q.2 & !2 };
        }
        count
    }

    fn register_topic(&mut self, topic: &str, entries: &[(String, i32)]) {
        let known = |n: &String| self.groups.contains_key(n);
        if entries.is_empty() || (!self.topics.contains_key(topic) && !entries.iter().all(|(n, _)| known(n))) {
            return;
        }
        let valid: Vec<_> = entries.iter().take_while(|(n, _)| known(n)).cloned().collect();
        let map = self.topics.entry(topic.into()).or_default();
        for (name, queues) in valid {
            map.insert(name, (queues, queues, 6));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Driving both
// ---------------------------------------------------------------------------------------------

struct Pair {
    ns: NameServer,
    model: Model,
    opaque: i32,
}

fn request(code: RequestCode, fields: &[(&str, &str)]) -> RemotingCommand {
    let mut cmd = RemotingCommand::request(code);
    cmd.version = 479;
    for (k, v) in fields {
        cmd = cmd.with_field(k, *v);
    }
    cmd
}

fn identity(code: RequestCode, name: usize, slot: usize, id: i64) -> RemotingCommand {
    let addr = addr_of(name, slot);
    request(
        code,
        &[
            ("clusterName", cluster_of(name)),
            ("brokerAddr", &addr),
            ("brokerName", NAMES[name]),
            ("brokerId", &id.to_string()),
        ],
    )
}

fn version(counter: i64, state: i64) -> DataVersion {
    DataVersion { counter, state_version: state, timestamp: 1_700_000_000_000 }
}

impl Pair {
    fn new() -> Self {
        let ns = NameServer::new(Config::java_defaults("/h", "/r"), KvConfig::default(), Instant::ZERO);
        Self { ns, model: Model { next_scan: 5_000, ..Model::default() }, opaque: 0 }
    }

    /// Feeds `input` at the model's time and returns the outputs.
    fn input(&mut self, input: Input) -> Vec<Output> {
        self.ns.handle(Instant::from_millis(self.model.now), input);
        std::iter::from_fn(|| self.ns.poll_output()).collect()
    }

    /// Sends a request and returns its reply (`None` for oneway requests).
    fn send(&mut self, conn: u64, mut cmd: RemotingCommand) -> Option<RemotingCommand> {
        self.opaque += 1;
        cmd.opaque = self.opaque;
        let oneway = cmd.is_oneway();
        let out = self.input(Input::Received { conn: ConnId(conn), cmd });
        let replies: Vec<RemotingCommand> = out
            .into_iter()
            .filter_map(|o| match o {
                Output::Send { conn: c, cmd } if cmd.is_response() => {
                    assert_eq!(c, ConnId(conn));
                    Some(cmd)
                }
                _ => None,
            })
            .collect();
        if oneway {
            assert!(replies.is_empty());
            return None;
        }
        assert_eq!(replies.len(), 1);
        assert_eq!(replies[0].opaque, self.opaque);
        replies.into_iter().next()
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::Register { name, slot, id, conn, topics, counter, state, acting, timeout } => {
                let addr = addr_of(*name, *slot);
                let ha = format!("ha-{name}-{slot}");
                let topics: Vec<(String, i32, i32)> =
                    topics.iter().map(|(t, (q, p))| (TOPICS[*t].to_string(), *q, *p)).collect();
                let mut body = RegisterBrokerBody::default();
                body.topic_config_wrapper.data_version = version(*counter, *state);
                for (t, q, p) in &topics {
                    body.topic_config_wrapper.topic_config_table.insert(
                        TopicName::from(t.as_str()),
                        TopicConfig { perm: *p, ..TopicConfig::new(t.as_str(), *q) },
                    );
                }
                let mut cmd = identity(RequestCode::RegisterBroker, *name, *slot, *id)
                    .with_field("haServerAddr", ha.as_str())
                    .with_body(body.to_json(JsonStyle::Plain));
                match acting {
                    Some(a) => cmd = cmd.with_field("enableActingMaster", a.to_string()),
                    None => cmd.version = 400,
                }
                if let Some(ms) = timeout {
                    cmd = cmd.with_field("heartbeatTimeoutMillis", ms.to_string());
                }
                let reply = self.send(*conn, cmd).unwrap();
                let expected = self.model.register(
                    cluster_of(*name),
                    &addr,
                    NAMES[*name],
                    *id,
                    &ha,
                    *acting,
                    &topics,
                    (*counter, *state),
                    timeout.unwrap_or(120_000),
                    *conn,
                );
                let got = match reply.response_code() {
                    ResponseCode::SystemError => {
                        assert_eq!(reply.remark.as_deref(), Some("register broker failed"));
                        Registered::Rejected
                    }
                    ResponseCode::Success => {
                        let (master, ha) = (reply.field("masterAddr"), reply.field("haServerAddr"));
                        assert_eq!(master.is_some(), ha.is_some());
                        let result = master.zip(ha).map(|(m, h)| (m.to_string(), h.to_string()));
                        if expected == Registered::Conflict && result.is_none() {
                            Registered::Conflict
                        } else {
                            Registered::Ok(result)
                        }
                    }
                    other => panic!("{other:?} {:?}", reply.remark),
                };
                assert_eq!(got, expected, "register reply");
            }
            Op::Unregister { name, slot, id, conn } => {
                let reply = self.send(*conn, identity(RequestCode::UnregisterBroker, *name, *slot, *id)).unwrap();
                assert_eq!(reply.response_code(), ResponseCode::Success);
                let key = (cluster_of(*name).to_string(), addr_of(*name, *slot));
                // Any connection may unregister (Java), except one whose own registration of
                // this broker was replaced on another connection (the #11043 fence).
                let fenced = self.model.live.get(&key).is_some_and(|l| l.conn != *conn)
                    && self.model.superseded.get(&key).is_some_and(|old| old.contains(conn));
                if !fenced {
                    self.model.unregister(&key.0, &key.1, NAMES[*name]);
                }
            }
            Op::Heartbeat { name, slot } => {
                let mut cmd = identity(RequestCode::BrokerHeartbeat, *name, *slot, 0);
                cmd.flag = FLAG_ONEWAY;
                assert!(self.send(1, cmd).is_none());
                if let Some(l) = self.model.live.get_mut(&(cluster_of(*name).into(), addr_of(*name, *slot))) {
                    l.last = self.model.now;
                }
            }
            Op::QueryDataVersion { name, slot, counter, state } => {
                let cmd = identity(RequestCode::QueryDataVersion, *name, *slot, 0)
                    .with_body(version(*counter, *state).to_json(JsonStyle::Plain));
                let reply = self.send(1, cmd).unwrap();
                let live = self.model.live.get_mut(&(cluster_of(*name).into(), addr_of(*name, *slot)));
                let changed = live.as_ref().is_none_or(|l| l.version != (*counter, *state));
                assert_eq!(reply.field("changed"), Some(if changed { "true" } else { "false" }));
                assert_eq!(reply.body.is_empty(), live.is_none());
                if let Some(l) = live {
                    l.last = self.model.now;
                }
            }
            Op::Disconnect { conn } => {
                self.input(Input::Disconnected { conn: ConnId(*conn) });
                self.model.forget_conn(*conn);
                self.model.unregister_live(|l| l.conn == *conn);
            }
            Op::Idle { conn } => {
                let idle = core::time::Duration::from_secs(120);
                let last_io = Instant::from_millis(self.model.now.saturating_sub(120_000));
                let out = self.input(Input::Idle { conn: ConnId(*conn), last_io, idle });
                assert!(out.contains(&Output::Close { conn: ConnId(*conn) }));
                self.model.forget_conn(*conn);
                self.model.unregister_live(|l| l.conn == *conn);
            }
            Op::Advance { ms } => {
                let expired: BTreeSet<u64> = {
                    let now = self.model.now + ms;
                    let due = now >= self.model.next_scan;
                    self.model.live.values().filter(|l| due && l.last + l.timeout < now).map(|l| l.conn).collect()
                };
                self.model.advance(self.model.now + ms);
                let out = self.input(Input::Timeout);
                let closed: BTreeSet<u64> = out
                    .iter()
                    .filter_map(|o| match o {
                        Output::Close { conn } => Some(conn.0),
                        _ => None,
                    })
                    .collect();
                assert_eq!(closed, expired, "expired brokers' connections are closed");
            }
            Op::WipePerm { name } | Op::AddPerm { name } => {
                let add = matches!(op, Op::AddPerm { .. });
                let (code, field) = if add {
                    (RequestCode::AddWritePermOfBroker, "addTopicCount")
                } else {
                    (RequestCode::WipeWritePermOfBroker, "wipeTopicCount")
                };
                let reply = self.send(9, request(code, &[("brokerName", NAMES[*name])])).unwrap();
                let count = self.model.change_perm(NAMES[*name], add);
                assert_eq!(reply.field(field), Some(count.to_string().as_str()));
            }
            Op::DeleteTopic { topic, cluster } => {
                let cluster = cluster.map(|c| ["c1", "c2", "c3"][c]);
                let mut fields = vec![("topic", TOPICS[*topic])];
                fields.extend(cluster.map(|c| ("clusterName", c)));
                self.send(9, request(RequestCode::DeleteTopicInNamesrv, &fields)).unwrap();
                let names = match cluster {
                    None => NAMES.iter().map(ToString::to_string).collect(),
                    Some(c) => self.model.clusters.get(c).cloned().unwrap_or_default(),
                };
                if let Some(map) = self.model.topics.get_mut(TOPICS[*topic]) {
                    map.retain(|n, _| !names.contains(n));
                    if map.is_empty() {
                        self.model.topics.remove(TOPICS[*topic]);
                    }
                }
            }
            Op::RegisterTopic { topic, entries } => {
                let entries: Vec<(String, i32)> =
                    entries.iter().map(|(n, q)| (NAMES.get(*n).unwrap_or(&"ghost").to_string(), *q)).collect();
                let queue_datas: Vec<String> = entries
                    .iter()
                    .map(|(n, q)| format!(r#"{{"brokerName":"{n}","perm":6,"readQueueNums":{q},"topicSysFlag":0,"writeQueueNums":{q}}}"#))
                    .collect();
                let body = format!(r#"{{"brokerDatas":[],"queueDatas":[{}]}}"#, queue_datas.join(","));
                let reply = self
                    .send(
                        9,
                        request(RequestCode::RegisterTopicInNamesrv, &[("topic", TOPICS[*topic])])
                            .with_body(body.into_bytes()),
                    )
                    .unwrap();
                assert_eq!(reply.response_code(), ResponseCode::Success);
                self.model.register_topic(TOPICS[*topic], &entries);
            }
        }
    }

    /// The real tables and routes equal the model's; the invariants hold.
    fn compare(&self) {
        let routes = self.ns.routes();
        let model = &self.model;
        let topics: BTreeMap<String, BTreeMap<String, (i32, i32, i32)>> = routes
            .topic_queue_table()
            .iter()
            .map(|(t, m)| {
                let queues =
                    m.iter().map(|(n, q)| (n.to_string(), (q.read_queue_nums, q.write_queue_nums, q.perm))).collect();
                (t.to_string(), queues)
            })
            .collect();
        assert_eq!(topics, model.topics, "topics");
        let groups: BTreeMap<String, Group> = routes
            .broker_addr_table()
            .iter()
            .map(|(n, d)| {
                let addrs = d.broker_addrs.iter().map(|(id, a)| (id.0, a.to_string())).collect();
                (n.to_string(), Group { cluster: d.cluster.to_string(), addrs, acting: d.enable_acting_master })
            })
            .collect();
        assert_eq!(groups, model.groups, "broker groups");
        let clusters: BTreeMap<String, BTreeSet<String>> = routes
            .cluster_addr_table()
            .iter()
            .map(|(c, ns)| (c.to_string(), ns.iter().map(ToString::to_string).collect()))
            .collect();
        assert_eq!(clusters, model.clusters, "clusters");
        let live: BTreeMap<(String, String), Live> = routes
            .broker_live_table()
            .iter()
            .map(|(k, l)| {
                let live = Live {
                    last: l.last_update.as_millis(),
                    timeout: u64::try_from(l.heartbeat_timeout.as_millis()).unwrap(),
                    version: (l.data_version.counter, l.data_version.state_version),
                    conn: l.conn.0,
                    ha: l.ha_server_addr.clone().unwrap_or_default(),
                    name: l.broker_name.to_string(),
                    id: l.broker_id.0,
                };
                ((k.cluster.to_string(), k.broker_addr.to_string()), live)
            })
            .collect();
        assert_eq!(live, model.live, "live brokers");

        // Every topic's route: which groups, their queues and members, as a client parses it.
        for topic in TOPICS {
            let body = self.ns.route_body(&TopicName::from(topic), JsonStyle::Standard);
            let Some(expected) = model.topics.get(topic) else {
                assert_eq!(body, None, "{topic} has no route");
                continue;
            };
            let route: TopicRouteData = serde_json::from_slice(&body.expect("a route")).unwrap();
            let queues: BTreeMap<String, (i32, i32, i32)> = route
                .queue_datas
                .iter()
                .map(|q| (q.broker_name.to_string(), (q.read_queue_nums, q.write_queue_nums, q.perm)))
                .collect();
            assert_eq!(&queues, expected, "{topic} queues");
            let members: BTreeMap<String, BTreeMap<i64, String>> = route
                .broker_datas
                .iter()
                .map(|d| {
                    (d.broker_name.to_string(), d.broker_addrs.iter().map(|(i, a)| (i.0, a.to_string())).collect())
                })
                .collect();
            let expected_members = expected.keys().map(|n| (n.clone(), model.groups[n].addrs.clone())).collect();
            assert_eq!(members, expected_members, "{topic} brokers");
        }

        // Topics with equal route shapes have byte-identical bodies in both styles (the daemon
        // encodes once per shape), and a topic has a shape exactly when it has queues.
        for a in TOPICS {
            let a_name = TopicName::from(a);
            assert_eq!(self.ns.route_shape(&a_name).is_some(), model.topics.contains_key(a), "{a} shape");
            for b in TOPICS {
                let b_name = TopicName::from(b);
                let (Some(sa), Some(sb)) = (self.ns.route_shape(&a_name), self.ns.route_shape(&b_name)) else {
                    continue;
                };
                if sa == sb {
                    for style in [JsonStyle::Plain, JsonStyle::Standard] {
                        assert_eq!(self.ns.route_body(&a_name, style), self.ns.route_body(&b_name, style), "{a} ~ {b}");
                    }
                }
            }
        }

        // Invariants: every queue entry names a known group; no live entry outlives its
        // timeout by more than one scan interval.
        for (topic, queues) in routes.topic_queue_table() {
            for name in queues.keys() {
                assert!(routes.broker_addr_table().contains_key(name), "{topic} names unknown group {name}");
            }
        }
        for (key, live) in routes.broker_live_table() {
            assert!(
                live.expires_at().as_millis() + SCAN_INTERVAL > model.now,
                "{key:?} outlived its timeout at {}",
                model.now
            );
        }
        assert_eq!(self.ns.poll_timeout(), Some(Instant::from_millis(model.next_scan)));
    }
}

fn run(ops: &[Op]) {
    let mut pair = Pair::new();
    for (i, op) in ops.iter().enumerate() {
        pair.apply(op);
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pair.compare())).unwrap_or_else(|e| {
            eprintln!("after op {i}: {op:?}");
            std::panic::resume_unwind(e)
        });
    }
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256);
    ProptestConfig { cases, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn route_table_matches_the_model(ops in proptest::collection::vec(op(), 1..60)) {
        run(&ops);
    }
}
