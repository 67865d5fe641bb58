//! `/api/view` is a contract: the README documents it and daemons poll their peers' views, so
//! a rolling upgrade compares an old daemon's JSON with a new one's. Its shape (every key path
//! with its JSON type) is kept in `http_view.shape`, captured before the view moved into the
//! core; fields may be added, none may go or change type. `UPDATE_SHAPE=1` rewrites the file
//! after a deliberate addition.

use crate::http_support;
use crate::support;

use std::collections::BTreeSet;
use std::path::Path;

use http_support::ConsoleServer;
use serde_json::Value;
use support::{Client, decode, register_broker_frame};

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
