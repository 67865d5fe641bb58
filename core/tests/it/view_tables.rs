//! `NsTables::of`: a NameServer's tables as `/api/view` shows them, read the same way by every
//! driver, with each live row's removal clock.

use nameserver_core::Instant;
use nameserver_core::server::RemovalPath;
use nameserver_core::view::{BrokerGroup, LiveRow, NsTables};
use serde_json::json;

use crate::common::requests::{Broker, Ns, assert_ok};

#[test]
fn the_tables_list_what_was_registered_with_each_rows_removal_clock() {
    let mut ns = Ns::new();
    ns.at(7_300);
    assert_ok(&ns.register(&Broker { zone: Some("z1"), ..Broker::a0() }));
    ns.at(8_000);
    assert_ok(&ns.register(&Broker { zone: Some("z1"), ..Broker::a1().counter(2) }));
    // broker-a's master's channel idles out at 127 300 ms; the slave's is not tracked.
    let tables = NsTables::of(&ns.ns, |live| (live.broker_id.0 == 0).then(|| live.last_update + IDLE));
    assert_eq!((tables.uptime_ms, tables.serving, tables.next_scan_ms), (8_000, true, 10_000));
    assert_eq!(tables.cluster_addr_table, [("DefaultCluster".into(), vec!["broker-a".into()])].into());
    let group = BrokerGroup {
        cluster: "DefaultCluster".into(),
        broker_name: "broker-a".into(),
        broker_addrs: [("0".into(), "127.0.0.1:10911".into()), ("1".into(), "127.0.0.1:10921".into())].into(),
        zone_name: Some("z1".into()),
        enable_acting_master: false,
    };
    assert_eq!(tables.broker_addr_table, [("broker-a".into(), group)].into());
    let master = LiveRow {
        cluster: "DefaultCluster".into(),
        broker_addr: "127.0.0.1:10911".into(),
        broker_name: "broker-a".into(),
        broker_id: 0,
        ha_server_addr: "127.0.0.1:10912".into(),
        last_update: 7_300,
        timeout_ms: 120_000,
        expires_at: 127_300,
        data_version: Broker::a0().version,
        // Expired from 127 301 ms; scans every 5 s from 5 s.
        scan_expire_at: 130_000,
        idle_close_at: Some(127_300),
        removal_at: 127_300,
        removal_by: RemovalPath::Idle,
    };
    let slave = LiveRow {
        broker_addr: "127.0.0.1:10921".into(),
        broker_id: 1,
        ha_server_addr: "127.0.0.1:10922".into(),
        last_update: 8_000,
        expires_at: 128_000,
        data_version: Broker::a1().counter(2).version,
        idle_close_at: None,
        removal_at: 130_000,
        removal_by: RemovalPath::Scan,
        ..master.clone()
    };
    assert_eq!(tables.brokers, [master, slave]);
}

const IDLE: core::time::Duration = core::time::Duration::from_secs(120);

#[test]
fn a_later_idle_close_moves_the_removal_to_the_scan() {
    let mut ns = Ns::new();
    ns.at(7_300);
    assert_ok(&ns.register(&Broker::a0()));
    let mut row = NsTables::of(&ns.ns, |_| None).brokers.remove(0);
    assert_eq!((row.idle_close_at, row.removal_at, row.removal_by), (None, 130_000, RemovalPath::Scan));
    row.set_idle_close_at(Some(Instant::from_millis(129_500)));
    assert_eq!((row.idle_close_at, row.removal_at, row.removal_by), (Some(129_500), 129_500, RemovalPath::Idle));
    row.set_idle_close_at(Some(Instant::from_millis(131_000)));
    assert_eq!((row.idle_close_at, row.removal_at, row.removal_by), (Some(131_000), 130_000, RemovalPath::Scan));
}

#[test]
fn the_json_is_api_views_and_reads_back() {
    let mut ns = Ns::new();
    ns.at(7_300);
    assert_ok(&ns.register(&Broker::a0()));
    let tables = NsTables::of(&ns.ns, |live| Some(live.last_update + IDLE));
    let value = serde_json::to_value(&tables).unwrap();
    assert_eq!(value["uptimeMs"], 7_300);
    assert_eq!(value["nextScanMs"], 10_000);
    assert_eq!(value["clusterAddrTable"], json!({ "DefaultCluster": ["broker-a"] }));
    assert_eq!(
        value["brokerAddrTable"]["broker-a"],
        json!({ "cluster": "DefaultCluster", "brokerName": "broker-a", "brokerAddrs": { "0": "127.0.0.1:10911" }, "enableActingMaster": false }),
        "no zoneName when it is null"
    );
    let row = &value["brokers"][0];
    assert_eq!(row["dataVersion"], json!({ "counter": 1, "stateVersion": 0, "timestamp": 1_700_000_000_000_i64 }));
    assert_eq!(
        (&row["removalBy"], &row["idleCloseAt"], &row["haServerAddr"]),
        (&json!("idle"), &json!(127_300), &json!("127.0.0.1:10912"))
    );
    let back: NsTables = serde_json::from_value(value).unwrap();
    assert_eq!(back, tables);
}

/// A peer daemon built before the removal clocks (or any field added since) is still read: its
/// rows keep what it sent and are compared by it.
#[test]
fn a_view_from_an_older_daemon_is_read_with_what_it_has() {
    let old = json!({
        "brokers": [{
            "cluster": "DefaultCluster",
            "brokerAddr": "127.0.0.1:10911",
            "brokerName": "broker-a",
            "brokerId": 0,
            "lastUpdate": 7_300
        }]
    });
    let tables: NsTables = serde_json::from_value(old).expect("an older view reads");
    let listed = tables.listed(1_000);
    let row = &listed["127.0.0.1:10911"];
    assert_eq!((row.broker_name.as_str(), row.broker_id, row.last_heard), ("broker-a", 0, 8_300));
    assert_eq!(tables.brokers[0].removal_by, RemovalPath::Scan);
}
