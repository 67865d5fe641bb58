//! `/api/view` is a contract: the README documents it and daemons poll their peers' views, so
//! a rolling upgrade compares an old daemon's JSON with a new one's. Its shape (every key path
//! with its JSON type) is kept in `http_view.shape`, captured before the view moved into the
//! core; fields may be added, none may go or change type. `UPDATE_SHAPE=1` rewrites the file
//! after a deliberate addition. The JSON is the core's `NsTables`, and reads back as one.

use crate::http_support;
use crate::support;

use std::collections::BTreeSet;
use std::path::Path;

use http_support::ConsoleServer;
use nameserver_core::view::NsTables;
use nameserver_core::{ConnId, Input, Instant, NameServer};
use serde_json::Value;
use support::{Client, FrozenClock, decode, register_broker_frame};

async fn register(server: &ConsoleServer) -> Client {
    let mut broker = server.client().await;
    let reply = decode(&broker.call(&register_broker_frame()).await);
    assert_eq!(reply.code, 0, "registered: {reply:?}");
    broker
}

fn broker_count(view: &Value) -> usize {
    view["brokers"].as_array().map_or(0, Vec::len)
}

/// Every key path of `value` under `path` with its JSON type, array elements as `[]`.
fn shape(path: &str, value: &Value, out: &mut BTreeSet<String>) {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(items) => {
            for item in items {
                shape(&format!("{path}[]"), item, out);
            }
            "array"
        }
        Value::Object(map) => {
            for (key, item) in map {
                shape(&format!("{path}.{key}"), item, out);
            }
            "object"
        }
    };
    out.insert(format!("{path} {kind}"));
}

#[tokio::test]
async fn api_view_and_api_brokers_keep_their_json_shape() {
    let server = ConsoleServer::start().await;
    let _broker = register(&server).await;
    let mut lines = BTreeSet::new();
    let view = server.wait_json("/api/view", |v| broker_count(v) == 1).await;
    shape("/api/view", &view, &mut lines);
    shape("/api/brokers", &server.get_json("/api/brokers").await, &mut lines);
    server.stop().await.unwrap();

    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/http_view.shape");
    if std::env::var_os("UPDATE_SHAPE").is_some() {
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        std::fs::write(&file, text).unwrap();
        return;
    }
    let kept = std::fs::read_to_string(&file).unwrap();
    let missing: Vec<&str> = kept.lines().filter(|line| !lines.contains(*line)).collect();
    assert!(
        missing.is_empty(),
        "gone from the JSON or changed type (UPDATE_SHAPE=1 accepts additions):\n{}",
        missing.join("\n")
    );
}

#[tokio::test(start_paused = true)]
async fn api_view_reads_back_as_the_cores_tables_of_what_was_registered() {
    // The daemon's clock starts at 0, as the core NameServer's below: their scans agree.
    let _frozen = FrozenClock::new();
    let server = ConsoleServer::start().await;
    let _broker = register(&server).await;
    let view = server.wait_json("/api/view", |v| broker_count(v) == 1).await;
    let tables: NsTables = serde_json::from_value(view).expect("/api/view is NsTables");

    // The same registration, fed to a core NameServer at the same time, gives the same rows:
    // only the idle close (the daemon's channel clock) comes from the daemon.
    let row = &tables.brokers[0];
    let at = Instant::from_millis(row.last_update);
    let mut ns = NameServer::new(server.config.namesrv.clone(), server.config.kv.clone(), Instant::ZERO);
    ns.handle(at, Input::Connected { conn: ConnId(1), remote: "127.0.0.1:40000".into() });
    ns.handle(at, Input::Received { conn: ConnId(1), cmd: decode(&register_broker_frame()) });
    while ns.poll_output().is_some() {}
    let registered = NsTables::of(&ns, |_| row.idle_close_at.map(Instant::from_millis));
    assert_eq!(tables.brokers, registered.brokers);
    assert_eq!(tables.broker_addr_table, registered.broker_addr_table);
    assert_eq!(tables.cluster_addr_table, registered.cluster_addr_table);
    assert_eq!((row.broker_name.as_str(), row.broker_addr.as_str()), ("broker-a", "127.0.0.1:31911"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn api_view_and_the_simulation_list_a_broker_registered_the_same_way_alike() {
    use nameserver_core::protocol::RequestCode;
    use nameserver_sim::view::ClusterView;
    use nameserver_sim::{Payload, Timeline, built_in};

    // The simulation's first registration of broker-a with NS-1, as its bytes on the wire.
    let mut tl = Timeline::new(&built_in("S1").expect("S1"));
    let (ns1, broker_a) = {
        let names = tl.sim().directory().names();
        let id = |n: &str| names.iter().position(|x| x == n).expect(n);
        (id("NS-1"), id("broker-a"))
    };
    let mut frame = None;
    for ms in 0..20_000 {
        tl.seek(Instant::from_millis(ms));
        frame = tl.sim().net().flights().values().find_map(|f| match f.payload() {
            Payload::Frame(frame)
                if usize::from(f.to().0) == ns1
                    && usize::from(f.from().0) == broker_a
                    && frame.command().is_some_and(|cmd| cmd.request_code() == RequestCode::RegisterBroker) =>
            {
                Some(frame.bytes().into_owned())
            }
            _ => None,
        });
        if frame.is_some() {
            break;
        }
    }
    let frame = frame.expect("broker-a registers within 20 s");
    tl.seek(Instant::from_millis(tl.sim().now().as_millis() + 1_000));
    let simulated = ClusterView::of(&tl, None).ns.remove("NS-1").expect("NS-1 runs");

    // The same bytes to the daemon.
    let server = ConsoleServer::start().await;
    let mut broker = server.client().await;
    assert_eq!(decode(&broker.call(&frame).await).code, 0, "registered");
    let view = server.wait_json("/api/view", |v| broker_count(v) == 1).await;
    let daemon: NsTables = serde_json::from_value(view).expect("/api/view is NsTables");
    server.stop().await.unwrap();

    // Times aside (each NameServer's own clock), the rows are equal.
    let timeless = |tables: &NsTables| {
        let mut rows = tables.brokers.clone();
        for row in &mut rows {
            (row.last_update, row.expires_at, row.scan_expire_at, row.removal_at) = (0, 0, 0, 0);
            row.idle_close_at = row.idle_close_at.map(|_| 0);
        }
        rows
    };
    let rows = timeless(&daemon);
    assert_eq!((rows.len(), rows[0].broker_name.as_str(), rows[0].broker_id), (1, "broker-a", 0), "{rows:?}");
    let same: Vec<_> = timeless(&simulated).into_iter().filter(|r| r.broker_addr == rows[0].broker_addr).collect();
    assert_eq!(rows, same);
    assert_eq!(daemon.cluster_addr_table, simulated.cluster_addr_table);
}
