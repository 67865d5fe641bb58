//! fleet: brokers come and go, clients ask, an auditor checks

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nameserver_core::BrokerId;
use nameserver_core::json::from_fastjson;
use nameserver_core::protocol::RequestCode;
use nameserver_core::protocol::body::ClusterInfo;
use nameserver_testkit::frames;

use super::args::FleetArgs;
use super::conn::{Conn, ask_route, register, request};
use super::monitor::{conclude, monitor, usage};
use super::stats::{Dice, Gauge, Stats, pause};

/// What one simulated broker is doing, as the auditor needs to know it.
#[derive(Clone, Copy, Debug)]
enum Phase {
    /// Not registered yet since it started, came back or unregistered.
    Starting,
    /// Registered (a SUCCESS reply arrived) and heartbeating; `since` is when that reply came.
    Live { since: Instant },
    /// Connected but silent since `last_sent` (its last register or heartbeat).
    Frozen { last_sent: Instant },
    /// Its connection was closed at `at`.
    Disconnected { at: Instant },
    /// An UNREGISTER_BROKER reply arrived at `at`.
    Unregistered { at: Instant },
}

#[derive(Clone, Copy, Debug)]
struct Tracked {
    phase: Phase,
    /// Bumped at every phase change, so the auditor can tell a phase that held throughout its
    /// query from one that changed in between.
    epoch: u64,
}

struct Fleet {
    names: Vec<(String, i64, String)>,
    tracked: Vec<Mutex<Tracked>>,
}

impl Fleet {
    fn set(&self, broker: usize, phase: Phase) {
        let mut t = self.tracked[broker].lock().unwrap();
        t.phase = phase;
        t.epoch += 1;
    }

    fn get(&self, broker: usize) -> Tracked {
        *self.tracked[broker].lock().unwrap()
    }
}

fn group_name(group: usize) -> String {
    format!("soak-g{group:03}")
}

fn group_topics(group: usize, count: usize) -> Vec<String> {
    (0..count).map(|k| format!("SoakTopic-{group:03}-{k:02}")).collect()
}

pub(crate) async fn fleet(args: FleetArgs) -> bool {
    let common = args.common.clone();
    let stats = Stats::new();
    let live = Arc::new(AtomicU64::new(0));
    let baseline = common.pid.and_then(|pid| usage(pid).ok());
    let groups = args.brokers.div_ceil(2);
    println!(
        "fleet: {} brokers in {groups} groups, {} clients, {} topics a group, heartbeatTimeoutMillis {}, {}s against {} \
         (daemon {:?})",
        args.brokers, args.clients, args.topics, args.heartbeat_timeout_ms, common.secs, common.addr, baseline
    );
    let fleet = Arc::new(Fleet {
        names: (0..args.brokers)
            .map(|b| {
                (group_name(b / 2), (b % 2) as i64, format!("127.0.{}.{}:{}", b / 200, b % 200 + 1, 10_911 + b % 2))
            })
            .collect(),
        tracked: (0..args.brokers).map(|_| Mutex::new(Tracked { phase: Phase::Starting, epoch: 0 })).collect(),
    });
    let mut tasks = Vec::new();
    let monitor_task = tokio::spawn(monitor(common.clone(), Arc::clone(&stats), Arc::clone(&live)));
    for b in 0..args.brokers {
        let (stats, live, fleet, args) = (Arc::clone(&stats), Arc::clone(&live), Arc::clone(&fleet), args.clone());
        tasks.push(tokio::spawn(async move {
            // Spread the start over two seconds.
            if pause(&stats, Duration::from_millis((b as u64 * 2000) / args.brokers as u64)).await {
                broker(b, &args, &stats, &live, &fleet).await;
            }
        }));
    }
    for c in 0..args.clients {
        let (stats, live, args) = (Arc::clone(&stats), Arc::clone(&live), args.clone());
        tasks.push(tokio::spawn(async move { client(c, &args, &stats, &live).await }));
    }
    {
        let (stats, live, fleet, args) = (Arc::clone(&stats), Arc::clone(&live), Arc::clone(&fleet), args.clone());
        tasks.push(tokio::spawn(async move { auditor(&args, &stats, &live, &fleet).await }));
    }
    pause(&stats, Duration::from_secs(common.secs)).await;
    conclude(&common, &stats, baseline, tasks, monitor_task).await
}

/// One broker: register, then heartbeat and re-register every second, with an episode of
/// flapping, freezing, unregistering or changing topics now and then.
async fn broker(b: usize, args: &FleetArgs, stats: &Stats, live: &AtomicU64, fleet: &Fleet) {
    let (name, id, addr) = fleet.names[b].clone();
    let group = b / 2;
    let cluster = format!("SoakCluster{}", group % 4);
    let mut dice = Dice::new(b as u64 + 1);
    let mut topics = group_topics(group, args.topics);
    let mut counter = 1_i64;
    let timeout = Duration::from_millis(args.heartbeat_timeout_ms);
    'connection: while !stats.stopping() {
        let mut conn = match Conn::connect(args.common.addr).await {
            Ok(conn) => conn,
            Err(error) => {
                stats.error(format!("{name}/{id} connect: {error}"));
                if pause(stats, Duration::from_secs(1)).await {
                    continue;
                }
                break;
            }
        };
        let gauge = Gauge::up(live);
        fleet.set(b, Phase::Starting);
        let mut tick = 0_u64;
        let calm = args.calm_secs.max(2);
        let mut next_episode = Instant::now() + Duration::from_secs(dice.between(calm / 6 + 1, calm * 2 / 3));
        loop {
            if stats.stopping() {
                break 'connection;
            }
            if tick % 3 == 0 || matches!(fleet.get(b).phase, Phase::Starting) {
                let cmd = register(&cluster, &name, id, &addr, &topics, counter, Some(args.heartbeat_timeout_ms));
                match conn.call(cmd).await {
                    Ok(reply) if reply.code == 0 => {
                        stats.registrations.add();
                        if !matches!(fleet.get(b).phase, Phase::Live { .. }) {
                            fleet.set(b, Phase::Live { since: Instant::now() });
                        }
                    }
                    Ok(reply) => stats.error(format!("{name}/{id} register: code {} {:?}", reply.code, reply.remark)),
                    Err(error) => {
                        stats.error(format!("{name}/{id} register: {error}"));
                        fleet.set(b, Phase::Disconnected { at: Instant::now() });
                        continue 'connection;
                    }
                }
            } else {
                let hb = frames::heartbeat(&cluster, &name, id, &addr);
                if let Err(error) = conn.send(hb).await {
                    stats.error(format!("{name}/{id} heartbeat: {error}"));
                }
                stats.heartbeats.add();
            }
            tick += 1;
            if Instant::now() >= next_episode {
                next_episode = Instant::now() + Duration::from_secs(dice.between(calm / 4 + 1, calm));
                match dice.below(100) {
                    // Flap: drop the connection (the NameServer unregisters at once) and come back.
                    0..=24 => {
                        stats.flaps.add();
                        drop(conn);
                        drop(gauge);
                        fleet.set(b, Phase::Disconnected { at: Instant::now() });
                        if pause(stats, Duration::from_millis(dice.between(100, 3000))).await {
                            continue 'connection;
                        }
                        break 'connection;
                    }
                    // Freeze: connected and silent until expired, then back.
                    25..=49 => {
                        stats.freezes.add();
                        fleet.set(b, Phase::Frozen { last_sent: Instant::now() });
                        let silent = timeout + Duration::from_millis(args.scan_ms * 2 + dice.between(1000, 4000));
                        if !pause(stats, silent).await {
                            break 'connection;
                        }
                        // Expired: the NameServer closed the connection, as Java's scan does.
                        let cmd =
                            register(&cluster, &name, id, &addr, &topics, counter, Some(args.heartbeat_timeout_ms));
                        match conn.call(cmd).await {
                            Err(_closed) => {
                                stats.expiry_closes.add();
                                fleet.set(b, Phase::Disconnected { at: Instant::now() });
                                continue 'connection;
                            }
                            Ok(reply) => {
                                stats.error(format!(
                                    "{name}/{id} expired, but its connection is still served: {reply:?}"
                                ));
                                fleet.set(b, Phase::Starting);
                            }
                        }
                    }
                    // Unregister, wait, come back.
                    50..=64 => match conn.call(frames::unregister_broker(&cluster, &name, id, &addr)).await {
                        Ok(reply) if reply.code == 0 => {
                            stats.unregisters.add();
                            fleet.set(b, Phase::Unregistered { at: Instant::now() });
                            if !pause(stats, Duration::from_millis(dice.between(500, 3000))).await {
                                break 'connection;
                            }
                            fleet.set(b, Phase::Starting);
                        }
                        Ok(reply) => stats.error(format!("{name}/{id} unregister: code {}", reply.code)),
                        Err(error) => stats.error(format!("{name}/{id} unregister: {error}")),
                    },
                    // A topic appears or goes away: the routes change.
                    _ => {
                        stats.topic_changes.add();
                        counter += 1;
                        if topics.len() > args.topics || dice.below(2) == 0 && topics.len() > 2 {
                            topics.pop();
                        } else {
                            topics.push(format!("SoakTopic-{group:03}-x{}", dice.below(3)));
                            topics.dedup();
                        }
                        tick = 0;
                        continue;
                    }
                }
            }
            if !pause(stats, Duration::from_millis(1000)).await {
                break 'connection;
            }
        }
    }
}

/// One client: route queries for random topics (a quarter of them as a 4.x client), and
/// every so often cluster info, the topic list or a KV put read back.
async fn client(c: usize, args: &FleetArgs, stats: &Stats, live: &AtomicU64) {
    let groups = args.brokers.div_ceil(2);
    let mut dice = Dice::new(10_000 + c as u64);
    let Ok(mut conn) = Conn::connect(args.common.addr).await else {
        stats.error(format!("client {c}: connect failed"));
        return;
    };
    let _live = Gauge::up(live);
    let mut n = 0_u64;
    while !stats.stopping() {
        n += 1;
        let ok = if n % 200 == 0 {
            let value = format!("{c}-{n}");
            let key = format!("client-{c}");
            let put = conn.call(frames::put_kv("soak", &key, &value)).await;
            let get = conn.call(frames::get_kv("soak", &key)).await;
            stats.owner_requests.add();
            stats.owner_requests.add();
            match (put, get) {
                (Ok(p), Ok(g)) if p.code == 0 && g.code == 0 && g.field("value") == Some(value.as_str()) => true,
                other => {
                    stats.error(format!("client {c}: KV put/get {other:?}"));
                    false
                }
            }
        } else if n % 50 == 0 {
            let code = if n % 100 == 0 {
                RequestCode::GetAllTopicListFromNameserver
            } else {
                RequestCode::GetBrokerClusterInfo
            };
            stats.owner_requests.add();
            match conn.call(request(code, &[])).await {
                Ok(reply) if reply.code == 0 => true,
                other => {
                    stats.error(format!("client {c}: {code:?} {other:?}"));
                    false
                }
            }
        } else {
            let group = dice.below(groups as u64) as usize;
            let topic = format!("SoakTopic-{group:03}-{:02}", dice.below(args.topics as u64));
            ask_route(&mut conn, stats, &topic, Some(&group_name(group)), true, c % 4 == 3).await
        };
        if !ok {
            break;
        }
        if !pause(stats, Duration::from_millis(args.client_pause_ms)).await {
            break;
        }
    }
}

/// Every two seconds: GET_BROKER_CLUSTER_INFO, compared with each broker's phase.
async fn auditor(args: &FleetArgs, stats: &Stats, live: &AtomicU64, fleet: &Fleet) {
    let Ok(mut conn) = Conn::connect(args.common.addr).await else {
        stats.error("auditor: connect failed");
        return;
    };
    let _live = Gauge::up(live);
    let timeout = Duration::from_millis(args.heartbeat_timeout_ms);
    // Margins for the clock of this tool against the daemon's, and for scheduling delays.
    let slack = Duration::from_millis(1500);
    let expired_after = timeout + Duration::from_millis(args.scan_ms) + slack;
    while pause(stats, Duration::from_secs(2)).await {
        let before: Vec<Tracked> = (0..fleet.names.len()).map(|b| fleet.get(b)).collect();
        let asked = Instant::now();
        let reply = match conn.call(frames::cluster_info()).await {
            Ok(reply) if reply.code == 0 => reply,
            other => {
                stats.error(format!("auditor: cluster info {other:?}"));
                break;
            }
        };
        stats.owner_requests.add();
        let info: ClusterInfo = match from_fastjson(&reply.body) {
            Ok(info) => info,
            Err(error) => {
                stats.error(format!("auditor: cluster info does not parse: {error}"));
                break;
            }
        };
        let mut present: BTreeMap<(String, i64), String> = BTreeMap::new();
        for (name, data) in info.broker_addr_table.iter() {
            for (BrokerId(id), addr) in &data.broker_addrs {
                present.insert((name.as_str().to_string(), *id), addr.as_str().to_string());
            }
        }
        stats.audits.add();
        for (b, (name, id, addr)) in fleet.names.iter().enumerate() {
            let after = fleet.get(b);
            if after.epoch != before[b].epoch {
                continue; // changed while the question was in flight: no verdict
            }
            let listed = present.get(&(name.clone(), *id)) == Some(addr);
            match after.phase {
                Phase::Live { since } if since < asked => {
                    stats.seen_present.add();
                    if !listed {
                        stats.error(format!(
                            "auditor: {name}/{id} is live (registered {:?} ago) but not listed",
                            since.elapsed()
                        ));
                    }
                }
                Phase::Frozen { last_sent } if asked.duration_since(last_sent) > expired_after => {
                    stats.seen_absent.add();
                    if listed {
                        stats.error(format!(
                            "auditor: {name}/{id} silent for {:?} but still listed",
                            asked.duration_since(last_sent)
                        ));
                    }
                }
                Phase::Disconnected { at } if asked.duration_since(at) > slack => {
                    stats.seen_absent.add();
                    if listed {
                        stats.error(format!(
                            "auditor: {name}/{id} disconnected {:?} ago but still listed",
                            asked.duration_since(at)
                        ));
                    }
                }
                Phase::Unregistered { at } if at < asked => {
                    stats.seen_absent.add();
                    if listed {
                        stats.error(format!("auditor: {name}/{id} unregistered but still listed"));
                    }
                }
                _ => {}
            }
        }
    }
}
