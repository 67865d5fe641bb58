//! Live mode's [`ClusterView`]: running NameServer daemons at one wall-clock moment, assembled
//! from what their consoles answered, so the page draws a real cluster with the simulation's
//! diagram, tables and routes.
//!
//! Each daemon is one NameServer node, named by its RocketMQ address; each broker any running
//! one lists is a broker node (named by group, `-BID` for a slave). Times are wall-clock
//! milliseconds: a daemon's clock (ms since it started) is moved by its view's own pair
//! `wallMs` / `uptimeMs`, so several daemons share one time axis. Registrations between two
//! views of a daemon come back as the delta's `wire`, for the traffic layer.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use nameserver_core::view::{LiveRow, NsTables};
use serde::Deserialize;

use super::cluster::ClusterView;
use super::cursor::{Cursor, Delta};
use super::flights::WireEvent;
use super::lacks::Lacks;
use super::nodes::{NodeInfo, TimerInfo};
use super::routes::TopicRoute;

/// The part of a daemon's `/api/view` the assembly reads (the JSON has more).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DaemonView {
    /// Its RocketMQ listener, which names the NameServer.
    pub address: String,
    /// Wall-clock ms when the view was built (when its clock read `uptimeMs`).
    pub wall_ms: u64,
    /// Wall-clock ms when the daemon started (another value: it restarted).
    pub started_at_ms: u64,
    /// The tables, times on the daemon's clock.
    #[serde(flatten)]
    pub tables: NsTables,
}

/// A log line of a daemon, as its console sends it (what the assembly reads of it).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LogLine {
    /// Its kind (`channel-closed`, `expired`, …).
    pub kind: String,
    /// Its text.
    pub text: String,
}

/// A daemon's new view, with the one before it and its log lines around then.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ViewStep {
    /// The view before.
    pub prev: Option<DaemonView>,
    /// The new one.
    pub view: DaemonView,
    /// Its latest log lines (which say how a broker that left went).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<LogLine>>", optional))]
    pub recent: Vec<LogLine>,
}

/// One daemon as the page holds it at the asked time.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DaemonAnswer {
    /// Its console's URL, the node's name until a view arrives.
    pub label: String,
    /// Whether its console is reachable.
    pub up: bool,
    /// The view in force at the asked time (`None`: none yet).
    pub view: Option<DaemonView>,
    /// The chosen topic's route in that view (`None`: TOPIC_NOT_EXIST, or not read yet).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub route: Option<TopicRoute>,
    /// The topics it has routes for (`None`: not read yet).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub topics: Option<Vec<String>>,
    /// When it last listed each broker, by address, up to the asked time (wall-clock ms).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<BTreeMap<String, u64>>", optional))]
    pub heard: BTreeMap<String, u64>,
    /// Views received since the page's previous request, for the traffic layer.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<ViewStep>>", optional))]
    pub steps: Vec<ViewStep>,
}

/// What the page asks: the cluster at wall time `at`, with the chosen topic's routes.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LiveRequest {
    /// Wall-clock ms.
    pub at: u64,
    /// The topic whose routes are shown.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<String>", optional))]
    pub topic: String,
    /// The daemons, in the page's order.
    pub daemons: Vec<DaemonAnswer>,
}

/// A broker's node name: its group, with `-BID` unless it is the master.
fn broker_node_name(row: &LiveRow) -> String {
    if row.broker_id == 0 { row.broker_name.clone() } else { format!("{}-{}", row.broker_name, row.broker_id) }
}

impl DaemonView {
    /// Its clock's `ms` on the wall clock.
    #[must_use]
    pub fn wall(&self, ms: u64) -> u64 {
        self.wall_ms.saturating_sub(self.tables.uptime_ms).saturating_add(ms)
    }

    /// Its tables with every time on the wall clock.
    #[must_use]
    pub fn tables_on_wall(&self) -> NsTables {
        let mut t = self.tables.clone();
        t.uptime_ms = self.wall(t.uptime_ms);
        t.next_scan_ms = self.wall(t.next_scan_ms);
        for row in &mut t.brokers {
            row.last_update = self.wall(row.last_update);
            row.expires_at = self.wall(row.expires_at);
            row.scan_expire_at = self.wall(row.scan_expire_at);
            row.idle_close_at = row.idle_close_at.map(|ms| self.wall(ms));
            row.removal_at = self.wall(row.removal_at);
        }
        t
    }
}

impl ViewStep {
    /// The messages this step implies: a broker whose `lastUpdate` moved registered (and was
    /// answered); one that left closed its channel or unregistered, as the log says (one the
    /// scan expired sent nothing). Nothing across a restart.
    #[must_use]
    pub fn wire(&self) -> Vec<WireEvent> {
        let Some(prev) = self.prev.as_ref().filter(|p| p.started_at_ms == self.view.started_at_ms) else {
            return Vec::new();
        };
        let ns = &self.view.address;
        let message = |from: &str, to: &str, at: u64, category, response, what| WireEvent {
            id: None,
            from: from.into(),
            to: to.into(),
            sent_at: at,
            arrive_at: at + 1,
            category,
            response,
            what,
            lost: false,
        };
        let mut out = Vec::new();
        for row in &self.view.tables.brokers {
            let old = prev.tables.brokers.iter().find(|b| b.broker_addr == row.broker_addr);
            if old.is_some_and(|b| b.last_update == row.last_update) {
                continue;
            }
            let at = self.view.wall(row.last_update);
            let broker = broker_node_name(row);
            out.push(message(&broker, ns, at.saturating_sub(1), "register", false, "REGISTER_BROKER"));
            out.push(message(ns, &broker, at, "register", true, "REGISTER_BROKER"));
        }
        for row in &prev.tables.brokers {
            if self.view.tables.brokers.iter().any(|b| b.broker_addr == row.broker_addr) {
                continue;
            }
            let said = |kinds: &[&str]| {
                self.recent.iter().any(|l| kinds.contains(&l.kind.as_str()) && l.text.contains(&row.broker_addr))
            };
            if said(&["expired"]) {
                continue;
            }
            let at = self.view.wall(self.view.tables.uptime_ms);
            let broker = broker_node_name(row);
            let (category, what) = if said(&["channel-closed", "channel-idle"]) {
                ("close", "FIN")
            } else {
                ("unregister", "UNREGISTER_BROKER")
            };
            out.push(message(&broker, ns, at.saturating_sub(1), category, false, what));
        }
        out
    }
}

impl ClusterView {
    /// The daemons of `req` as one cluster at `req.at`. A daemon that is not reachable, or
    /// has sent no view yet, is a NameServer that is down (no tables).
    #[must_use]
    pub fn live(req: &LiveRequest) -> Self {
        let mut nodes = Vec::new();
        let mut ns = BTreeMap::new();
        let mut routes = BTreeMap::new();
        let mut heard = BTreeMap::new();
        let mut topics = BTreeMap::new();
        let mut brokers: Vec<&LiveRow> = Vec::new();
        let mut wire = Vec::new();
        for d in &req.daemons {
            let name = d.view.as_ref().map_or_else(|| d.label.clone(), |v| v.address.clone());
            let up = d.up && d.view.is_some();
            let timers = d.view.iter().map(|v| TimerInfo {
                label: "scan for expired brokers".into(),
                kind: "scan",
                at: v.wall(v.tables.next_scan_ms),
                period_ms: None,
                peer: None,
            });
            nodes.push(NodeInfo {
                id: u16::try_from(nodes.len()).unwrap_or(u16::MAX),
                name: name.clone(),
                role: "nameserver",
                state: if up { "up" } else { "down" },
                addr: name.clone(),
                group: None,
                broker_id: None,
                bound_to: None,
                timers: timers.collect(),
                stale_since: None,
            });
            let route = d.view.as_ref().and(d.route.clone()).filter(|_| !req.topic.is_empty());
            routes.insert(name.clone(), BTreeMap::from([(req.topic.clone(), route)]));
            wire.extend(d.steps.iter().flat_map(ViewStep::wire));
            if let (true, Some(view)) = (up, d.view.as_ref()) {
                ns.insert(name.clone(), view.tables_on_wall());
                for row in &view.tables.brokers {
                    if !brokers.iter().any(|b| b.broker_addr == row.broker_addr) {
                        brokers.push(row);
                    }
                }
                heard.insert(name.clone(), d.heard.clone());
                if let Some(list) = &d.topics {
                    topics.insert(name, list.clone());
                }
            }
        }
        brokers.sort_by(|a, b| a.broker_name.cmp(&b.broker_name).then(a.broker_id.cmp(&b.broker_id)));
        for row in brokers {
            nodes.push(NodeInfo {
                id: u16::try_from(nodes.len()).unwrap_or(u16::MAX),
                name: broker_node_name(row),
                role: "broker",
                state: "up",
                addr: row.broker_addr.clone(),
                group: Some(row.broker_name.clone()),
                broker_id: Some(row.broker_id),
                bound_to: None,
                timers: Vec::new(),
                stale_since: None,
            });
        }
        let lacks = Lacks::of(&nodes, &ns, &heard, &topics);
        Self {
            time: req.at,
            next: None,
            nodes,
            flights: Vec::new(),
            ns,
            routes,
            clients: BTreeMap::new(),
            consumers: BTreeMap::new(),
            faults: Vec::new(),
            stale: Vec::new(),
            measurements: Vec::new(),
            links: Vec::new(),
            isolations: Vec::new(),
            branches: Vec::new(),
            lacks,
            delta: Delta {
                reset: false,
                trace_from: 0,
                trace: Vec::new(),
                sends_from: 0,
                sends: Vec::new(),
                wire,
                cursor: Cursor { time: req.at, ..Cursor::default() },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn a_daemon_clock_moves_to_the_wall_clock_by_its_own_pair() {
        let mut v = DaemonView { wall_ms: 1_000_000, ..DaemonView::default() };
        v.tables.uptime_ms = 5_000;
        v.tables.next_scan_ms = 9_000;
        assert_eq!(v.wall(5_000), 1_000_000);
        assert_eq!(v.tables_on_wall().next_scan_ms, 1_004_000);
        assert_eq!(vec![v.wall(0)], vec![995_000]);
    }
}
