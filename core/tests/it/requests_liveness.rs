//! UNREGISTER_BROKER (104), connection loss, idle, expiry; QUERY_DATA_VERSION (322) and
//! BROKER_HEARTBEAT (904).
//!
//! One NameServer driven through `Input::Received`, request code by request code
//! (PROTOCOL.md §5–§11): codes, remarks in Java's wording, response extFields and bodies byte
//! for byte where PROTOCOL.md gives them.
//!
//! Every test goes through [`Ns::check`], which asserts the reply invariants (exactly one
//! response, on the requesting connection, echoing `opaque`, flag exactly RESPONSE) and hands
//! the reply back.

use crate::common;

use nameserver_core::event::UnregisterReason;
use nameserver_core::protocol::body::{DataVersion, TopicConfig};
use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode};
use nameserver_core::{BrokerAddr, Config, ConnId, Event, Input, Instant, KvConfig, NameServer, Output};

use common::requests::*;

// ---------------------------------------------------------------------------------------------
// UNREGISTER_BROKER (104), connection loss, idle, expiry
// ---------------------------------------------------------------------------------------------

#[test]
fn unregister_removes_the_instance_and_its_group_routes() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    ns.register(&Broker::a1());
    let reply = ns.check(1, Broker::a0().unregister());
    assert_ok(&reply);
    assert_eq!(reply.ext_fields, None);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(
        ns.events()
            .iter()
            .any(|e| matches!(e, Event::BrokerUnregistered { reason: UnregisterReason::Request { .. }, .. }))
    );
    // A remaining member keeps the group's routes.
    let route = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(route.broker_datas[0].broker_addrs.len(), 1);
    ns.check(2, Broker::a1().unregister());
    assert_reply(&ns.route("TopicTest"), ResponseCode::TopicNotExist, Some(NOT_EXIST));
    assert_eq!(
        text(&ns.ask(RequestCode::GetBrokerClusterInfo, &[])),
        r#"{"brokerAddrTable":{},"clusterAddrTable":{}}"#
    );
}

/// Upstream bug apache/rocketmq#11043: an unregister decided for an old registration must not
/// remove the broker's fresher registration.
#[test]
fn stale_unregister_from_another_connection_keeps_the_fresh_registration() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    // The broker restarts and registers again on a new connection before the old one's
    // unregister arrives.
    let restarted = Broker { conn: 7, ..Broker::a0() };
    ns.at(1_000).register(&restarted);
    assert_ok(&ns.check(1, Broker::a0().unregister()));
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(ns.events().iter().any(|e| matches!(e, Event::StaleUnregisterIgnored { .. })));
    assert!(ns.parsed_route("TopicTest").is_some());
    // The old connection closing does not remove it either.
    ns.input(Input::Disconnected { conn: ConnId(1) });
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    // The real one does.
    ns.check(7, restarted.unregister());
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(ns.parsed_route("TopicTest").is_none());
}

/// Java's DefaultRequestProcessor.unregisterBroker serves UNREGISTER_BROKER whichever
/// connection sends it (an operator's tool, a broker's second NameServer client), and
/// RouteInfoManager.unRegisterBroker (5.1+) removes every entry of the group with that
/// address, whatever brokerId the request names.
#[test]
fn unregister_from_any_connection_removes_every_entry_with_that_address_as_java_does() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    ns.register(&Broker::a1());
    let wrong_id = Broker { id: 3, conn: ADMIN, ..Broker::a0() };
    assert_ok(&ns.check(ADMIN, wrong_id.unregister()));
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(!ns.events().iter().any(|e| matches!(e, Event::StaleUnregisterIgnored { .. })));
    let route = ns.parsed_route("TopicTest").unwrap();
    let addrs: Vec<&str> = route.broker_datas[0].broker_addrs.values().map(BrokerAddr::as_str).collect();
    assert_eq!(addrs, ["127.0.0.1:10921"], "only the slave is left");
}

/// The #11043 fence is narrow: only the connection that registered the broker itself and was
/// superseded by a newer registration elsewhere is ignored; once that connection has closed,
/// nothing is fenced any more.
#[test]
fn only_a_superseded_registering_connection_is_fenced() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    let restarted = Broker { conn: 7, ..Broker::a0() };
    ns.at(1_000).register(&restarted);
    // A third connection (mqadmin) is not fenced.
    assert_ok(&ns.check(ADMIN, Broker::a0().unregister()));
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    let fenced = ns.events().iter().any(|e| matches!(e, Event::StaleUnregisterIgnored { .. }));
    assert!(!fenced);
    // Registered again on 7; the old connection 1 closes and is forgotten.
    ns.at(2_000).register(&restarted);
    ns.input(Input::Disconnected { conn: ConnId(1) });
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
}

#[test]
fn connection_loss_removes_what_registered_on_it() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    ns.register(&Broker::a1());
    // A client connection closing changes nothing.
    ns.input(Input::Disconnected { conn: ConnId(ADMIN) });
    assert!(ns.out.is_empty(), "{:?}", ns.out);
    ns.input(Input::Disconnected { conn: ConnId(1) });
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(ns.live("DefaultCluster", "127.0.0.1:10921"));
    assert!(
        ns.events()
            .iter()
            .any(|e| matches!(e, Event::BrokerUnregistered { reason: UnregisterReason::ChannelClosed, .. }))
    );
    assert!(ns.closes().is_empty(), "already closed");
}

#[test]
fn idle_connection_is_closed_and_its_broker_removed() {
    let mut ns = Ns::new();
    ns.input(Input::Connected { conn: ConnId(1), remote: "127.0.0.1:50000".into() });
    ns.register(&Broker::a0());
    let idle = core::time::Duration::from_secs(120);
    ns.at(120_000).input(Input::Idle { conn: ConnId(1), last_io: Instant::ZERO, idle });
    assert_eq!(ns.closes(), [ConnId(1)]);
    // The numbers the rule compared come with the events: last read or write + idle <= now.
    let (last_io, now) = (Instant::ZERO, Instant::from_millis(120_000));
    assert!(
        ns.events().iter().any(|e| matches!(e, Event::ChannelIdle { remote, last_io: l, idle_ms: 120_000, now: n, .. }
        if remote == "127.0.0.1:50000" && *l == last_io && *n == now))
    );
    let reason = UnregisterReason::ChannelIdle { last_io, idle_ms: 120_000, now };
    assert!(ns.events().iter().any(|e| matches!(e, Event::BrokerUnregistered { reason: r, .. } if *r == reason)));
    assert_eq!(
        ns.events().iter().find(|e| matches!(e, Event::ChannelIdle { .. })).map(ToString::to_string).as_deref(),
        Some("NETTY SERVER PIPELINE: IDLE exception [127.0.0.1:50000]"),
        "the log line is Java's, without the numbers"
    );
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(ns.parsed_route("TopicTest").is_none());
    assert!(ns.ns.connections().is_empty());
}

#[test]
fn an_earlier_now_is_taken_as_the_latest_in_every_build() {
    let mut config = Config::java_defaults("/h", "/r");
    config.need_wait_for_service = true;
    config.wait_seconds_for_service = 10;
    let mut ns = NameServer::new(config, KvConfig::default(), Instant::ZERO);
    ns.handle(Instant::from_millis(12_000), Input::Timeout);
    assert!(ns.serving_routes());
    assert_eq!(ns.poll_timeout(), Some(Instant::from_millis(15_000)));
    // Neither a panic (debug or release) nor time going back: the wait stays over and the
    // scan already run is not run again.
    ns.handle(Instant::from_millis(1_000), Input::Connected { conn: ConnId(7), remote: "127.0.0.1:1".into() });
    assert_eq!(ns.now(), Instant::from_millis(12_000));
    assert!(ns.serving_routes());
    assert_eq!(ns.poll_timeout(), Some(Instant::from_millis(15_000)));
    assert!(ns.connections().contains_key(&ConnId(7)), "the input itself is processed");
}

#[test]
fn poll_timeout_wakes_the_driver_when_the_wait_for_service_ends() {
    let mut config = Config::java_defaults("/h", "/r");
    config.need_wait_for_service = true;
    config.wait_seconds_for_service = 3;
    let mut ns = NameServer::new(config.clone(), KvConfig::default(), Instant::ZERO);
    // Before the first scan (5 s) the wait's end comes first.
    assert_eq!(ns.poll_timeout(), Some(Instant::from_millis(3_000)));
    assert_eq!(ns.next_scan(), Instant::from_millis(5_000));
    ns.handle(Instant::from_millis(3_000), Input::Timeout);
    assert!(ns.serving_routes());
    assert_eq!(ns.poll_timeout(), Some(Instant::from_millis(5_000)));

    // A wait ending after the first scan: the scan, then the wait's end, then scans only.
    config.wait_seconds_for_service = 7;
    let mut ns = NameServer::new(config, KvConfig::default(), Instant::ZERO);
    assert_eq!(ns.poll_timeout(), Some(Instant::from_millis(5_000)));
    ns.handle(Instant::from_millis(5_000), Input::Timeout);
    assert_eq!(ns.poll_timeout(), Some(Instant::from_millis(7_000)));
    ns.handle(Instant::from_millis(7_000), Input::Timeout);
    assert_eq!(ns.poll_timeout(), Some(Instant::from_millis(10_000)));
}

#[test]
fn scans_run_every_interval_from_start_plus_five_seconds() {
    let mut ns = Ns::new();
    assert_eq!(ns.ns.poll_timeout(), Some(Instant::from_millis(5_000)));
    ns.tick(4_999);
    assert_eq!(ns.ns.poll_timeout(), Some(Instant::from_millis(5_000)));
    ns.tick(5_000);
    assert_eq!(ns.ns.poll_timeout(), Some(Instant::from_millis(10_000)));
    ns.tick(32_100);
    assert_eq!(ns.ns.poll_timeout(), Some(Instant::from_millis(35_000)), "missed scans collapse");
    let mut later =
        Ns::from(NameServer::new(Config::java_defaults("/h", "/r"), KvConfig::default(), Instant::from_millis(1_234)));
    assert_eq!(later.ns.poll_timeout(), Some(Instant::from_millis(6_234)));
    let mut fast = Ns::with(|c| c.scan_not_active_broker_interval = core::time::Duration::from_millis(1_000));
    fast.tick(5_000);
    assert_eq!(fast.ns.poll_timeout(), Some(Instant::from_millis(6_000)));
    later.tick(6_234);
    assert_eq!(later.ns.poll_timeout(), Some(Instant::from_millis(11_234)));
}

#[test]
fn default_timeout_expires_at_the_first_scan_after_120_seconds() {
    let mut ns = Ns::new();
    ns.at(1_000).register(&Broker::a0());
    // lastUpdate + 120 s = 121 000: the scans at 120 000 keep it, the one at 125 000 removes it.
    ns.tick(120_000);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    ns.tick(124_999);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    ns.tick(125_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert_eq!(ns.closes(), [ConnId(1)], "Java closes the expired broker's channel");
    assert!(ns.events().iter().any(|e| e.to_string().starts_with("The broker channel expired")), "{:?}", ns.events());
    assert!(ns.events().iter().any(|e| matches!(e, Event::BrokerExpired { timeout_ms: 120_000, .. })));
    assert!(ns.parsed_route("TopicTest").is_none());
}

#[test]
fn per_broker_timeout_and_the_strict_comparison() {
    let mut ns = Ns::new();
    // Expires at 15 000 exactly: the scan at 15 000 keeps it (not `<`), the next removes it.
    ns.at(5_000).register(&Broker { timeout: Some(10_000), ..Broker::a0() });
    ns.tick(15_000);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    ns.tick(20_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
}

#[test]
fn expiry_is_judged_by_any_input_after_the_scan_is_due() {
    let mut ns = Ns::new();
    ns.at(1_000).register(&Broker { timeout: Some(3_000), ..Broker::a0() });
    // No Timeout input was delivered; the next request runs the overdue scan first.
    ns.at(7_000);
    assert!(ns.parsed_route("TopicTest").is_none());
}

#[test]
fn re_registration_refreshes_liveness() {
    let mut ns = Ns::new();
    let b = Broker { timeout: Some(10_000), ..Broker::a0() };
    ns.at(1_000).register(&b);
    ns.at(9_000).register(&b);
    ns.tick(15_000);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    ns.tick(20_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
}

// ---------------------------------------------------------------------------------------------
// QUERY_DATA_VERSION (322) and BROKER_HEARTBEAT (904)
// ---------------------------------------------------------------------------------------------

#[test]
fn query_data_version_reports_changes_and_the_stored_version() {
    let mut ns = Ns::new();
    let b = Broker::a0();
    // Unknown broker: changed, no body.
    let reply = ns.check(1, b.query_data_version(Some(b.version)));
    assert_ok(&reply);
    assert_eq!(fields(&reply), [("changed", "true")]);
    assert!(reply.body.is_empty());
    ns.register(&b);
    let reply = ns.check(1, b.query_data_version(Some(b.version)));
    assert_eq!(fields(&reply), [("changed", "false")]);
    assert_eq!(text(&reply), r#"{"counter":1,"stateVersion":0,"timestamp":1700000000000}"#);
    // 4.9.x form without stateVersion: same version.
    let reply = ns.check(
        1,
        b.fill(RemotingCommand::request(RequestCode::QueryDataVersion))
            .with_body(br#"{"counter":1,"timestamp":1700000000000}"#.to_vec()),
    );
    assert_eq!(fields(&reply), [("changed", "false")]);
    for other in [
        DataVersion { counter: 2, ..b.version },
        DataVersion { state_version: 1, ..b.version },
        DataVersion { timestamp: 1, ..b.version },
    ] {
        let reply = ns.check(1, b.query_data_version(Some(other)));
        assert_eq!(fields(&reply), [("changed", "true")]);
        assert_eq!(text(&reply), r#"{"counter":1,"stateVersion":0,"timestamp":1700000000000}"#, "the stored one");
    }
    // No body: changed.
    assert_eq!(fields(&ns.check(1, b.query_data_version(None))), [("changed", "true")]);
}

#[test]
fn query_data_version_refreshes_liveness_even_when_changed() {
    let mut ns = Ns::new();
    let b = Broker { timeout: Some(10_000), ..Broker::a0() };
    ns.at(1_000).register(&b);
    ns.at(8_000).check(1, b.query_data_version(Some(DataVersion { counter: 99, ..b.version })));
    ns.tick(15_000);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"), "refreshed at 8 000, expires 18 000");
    ns.tick(20_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    // Brokers also send it oneway as a heartbeat: no reply, still a refresh.
    ns.at(21_000).register(&b);
    assert!(
        ns.send(1, oneway(b.query_data_version(Some(b.version)))).iter().all(|o| !matches!(o, Output::Send { .. }))
    );
}

#[test]
fn broker_heartbeat_refreshes_liveness_without_a_reply() {
    let mut ns = Ns::new();
    let b = Broker { timeout: Some(10_000), ..Broker::a0() };
    ns.at(1_000).register(&b);
    assert!(ns.at(9_000).send(1, b.heartbeat()).is_empty(), "oneway: no reply");
    ns.tick(15_000);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    ns.tick(20_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    // Answered when not oneway; an unknown broker is not created by a heartbeat.
    let mut hb = b.heartbeat();
    hb.flag = 0;
    assert_ok(&ns.check(1, hb));
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
}

#[test]
fn a_scan_moves_the_epoch_once_for_each_group_a_topic_loses() {
    // The same cluster but for one topic on two groups; every broker expires in one scan.
    // (Two topics each: a first registration of one topic is refused.)
    let moved = |with_extra: bool| {
        let mut ns = Ns::new();
        ns.at(1_000);
        for (name, addr, own, conn) in [
            ("broker-a", "127.0.0.1:10911", "A", 1),
            ("broker-b", "127.0.0.1:10921", "B", 2),
            ("broker-c", "127.0.0.1:10931", "C", 3),
        ] {
            let mut topics = vec![TopicConfig::new("Shared", 4), TopicConfig::new(own, 4)];
            if with_extra && conn < 3 {
                topics.push(TopicConfig::new("OnTwo", 4));
            }
            ns.register(&Broker::new(name, addr, 0, conn).topics(topics));
        }
        assert_eq!(ns.ns.routes().topic_queue_table().len(), if with_extra { 5 } else { 4 });
        let before = ns.ns.routes().epoch();
        ns.tick(125_000);
        assert!(ns.ns.routes().topic_queue_table().is_empty());
        ns.ns.routes().epoch() - before
    };
    // OnTwo loses both its groups in that scan: two changes, as two departures would make.
    assert_eq!(moved(true) - moved(false), 2);
}
