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
