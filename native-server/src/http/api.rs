//! The JSON views (`/api/...`), built from the published view and the route snapshot, and the
//! token-gated KV writes.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode};
use nameserver_core::view::{BrokerGroup, LiveRow, NsTables};
use serde::Serialize;
use tokio::sync::oneshot;

use super::Ctx;
use crate::messages::Inbound;
use crate::observe::View;

/// How long a KV write waits for the owner's answer.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

pub(crate) fn json(body: impl Into<axum::body::Body>) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body.into()).into_response()
}

pub(crate) fn error(status: StatusCode, message: &str) -> Response {
    let mut response = json(serde_json::json!({ "error": message }).to_string());
    *response.status_mut() = status;
    response
}

fn to_json(value: &impl Serialize) -> Response {
    match serde_json::to_string(value) {
        Ok(body) => json(body),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

/// `GET /api`: what there is.
pub(crate) async fn index() -> Response {
    json(
        serde_json::json!({
            "view": "/api/view",
            "cluster": "/api/cluster",
            "brokers": "/api/brokers",
            "topics": "/api/topics",
            "route": "/api/routes/{topic}",
            "kv": "/api/kv",
            "kvEntry": "/api/kv/{namespace}/{key}",
            "config": "/api/config",
            "peers": "/api/peers",
            "controller": "/api/controller",
            "events": "/api/events",
            "metrics": "/metrics",
            "health": "/healthz",
            "addressServer": "/rocketmq/nsaddr",
            "page": "/www/?live",
        })
        .to_string(),
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PageView<'a> {
    #[serde(flatten)]
    view: &'a View,
    /// The tables, each `brokerLiveTable` row with its removal clock as of now.
    #[serde(flatten)]
    tables: NsTables,
    /// The NameServer's clock now (the view may be older).
    now_ms: u64,
    /// Wall-clock milliseconds when this daemon started (a new value: it restarted).
    started_at_ms: u64,
    /// A random name of this run of the daemon.
    instance: &'a str,
    /// The RocketMQ listener.
    address: String,
    connections: u64,
    topic_count: usize,
    /// Changes whenever a route answer may have changed: time to refetch routes.
    routes_version: u64,
    kv_entries: usize,
}

/// The live page's whole state, as `/api/view` and the `view` events carry it.
pub(crate) fn page_view(ctx: &Ctx) -> String {
    let view = ctx.observer.view.load();
    let routes = ctx.observer.routes.load();
    let page = PageView {
        view: &view,
        tables: view.tables_now(ctx.observer.idle),
        now_ms: ctx.observer.now().as_millis(),
        started_at_ms: ctx.observer.started_wall_ms,
        instance: &ctx.observer.instance,
        address: ctx.rocketmq.to_string(),
        connections: ctx.observer.metrics.open.load(Relaxed),
        topic_count: routes.topics(),
        routes_version: routes.version(),
        kv_entries: view.kv.len(),
    };
    serde_json::to_string(&page).unwrap_or_default()
}

/// `GET /api/controller`: the embedded controller's broker groups (`{"enabled":false}`
/// without one).
pub(crate) async fn controller(State(ctx): State<Ctx>) -> Response {
    json(super::controller::body(&ctx.observer))
}

/// `GET /api/view`.
pub(crate) async fn view(State(ctx): State<Ctx>) -> Response {
    json(page_view(&ctx))
}

/// `GET /api/cluster`: GET_BROKER_CLUSTER_INFO's body, as the dashboard's Cluster page reads it.
pub(crate) async fn cluster(State(ctx): State<Ctx>) -> Response {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Cluster<'a> {
        broker_addr_table: &'a BTreeMap<String, BrokerGroup>,
        cluster_addr_table: &'a BTreeMap<String, Vec<String>>,
    }
    let view = ctx.observer.view.load();
    let tables = &view.tables;
    to_json(&Cluster { broker_addr_table: &tables.broker_addr_table, cluster_addr_table: &tables.cluster_addr_table })
}

/// `GET /api/brokers`: `brokerLiveTable`, each row with its heartbeat age now.
pub(crate) async fn brokers(State(ctx): State<Ctx>) -> Response {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Row {
        #[serde(flatten)]
        broker: LiveRow,
        age_ms: u64,
        expires_in_ms: i64,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Brokers {
        now_ms: u64,
        brokers: Vec<Row>,
    }
    let tables = ctx.observer.view.load().tables_now(ctx.observer.idle);
    let now = ctx.observer.now().as_millis();
    let brokers = tables
        .brokers
        .into_iter()
        .map(|broker| Row {
            age_ms: now.saturating_sub(broker.last_update),
            expires_in_ms: i64::try_from(broker.expires_at).unwrap_or(i64::MAX)
                - i64::try_from(now).unwrap_or(i64::MAX),
            broker,
        })
        .collect();
    to_json(&Brokers { now_ms: now, brokers })
}

/// `GET /api/topics`: every topic with a route, sorted.
pub(crate) async fn topics(State(ctx): State<Ctx>) -> Response {
    let routes = ctx.observer.routes.load();
    let mut topics: Vec<&str> = routes.topic_names().collect();
    topics.sort_unstable();
    to_json(&serde_json::json!({ "routesVersion": routes.version(), "topics": topics }))
}

/// `GET /api/routes/{topic}`: exactly the body a client gets for GET_ROUTEINFO_BY_TOPIC
/// (standard JSON): `brokerDatas` and `queueDatas`, the dashboard's Router dialog.
pub(crate) async fn route(State(ctx): State<Ctx>, Path(topic): Path<String>) -> Response {
    match ctx.observer.routes.load().route_bodies(&topic) {
        Some(bodies) => json(bodies.standard().to_vec()),
        None => error(StatusCode::NOT_FOUND, &format!("No topic route info in name server for the topic: {topic}")),
    }
}

/// `GET /api/kv`: `kvConfig.json`'s content.
pub(crate) async fn kv(State(ctx): State<Ctx>) -> Response {
    json(ctx.observer.view.load().kv.to_json())
}

/// `GET /api/kv/{namespace}/{key}`.
pub(crate) async fn kv_get(State(ctx): State<Ctx>, Path((namespace, key)): Path<(String, String)>) -> Response {
    let view = ctx.observer.view.load();
    match view.kv.get(&namespace, &key) {
        Some(value) => to_json(&serde_json::json!({ "namespace": namespace, "key": key, "value": value })),
        None => error(StatusCode::NOT_FOUND, &format!("No config item, Namespace: {namespace} Key: {key}")),
    }
}

/// `GET /api/config`: every configuration key with its value.
pub(crate) async fn config(State(ctx): State<Ctx>) -> Response {
    to_json(&*ctx.observer.view.load().config)
}

/// `PUT /api/kv/{namespace}/{key}` (body: the value), with the token only.
pub(crate) async fn kv_put(
    State(ctx): State<Ctx>,
    Path((namespace, key)): Path<(String, String)>,
    value: String,
) -> Response {
    let cmd = RemotingCommand::request(RequestCode::PutKvConfig)
        .with_field("namespace", namespace)
        .with_field("key", key)
        .with_field("value", value);
    write(&ctx, cmd).await
}

/// `DELETE /api/kv/{namespace}/{key}`, with the token only.
pub(crate) async fn kv_delete(State(ctx): State<Ctx>, Path((namespace, key)): Path<(String, String)>) -> Response {
    let cmd =
        RemotingCommand::request(RequestCode::DeleteKvConfig).with_field("namespace", namespace).with_field("key", key);
    write(&ctx, cmd).await
}

/// Sends a write to the owner as a RocketMQ admin tool would, so the core applies, logs and
/// persists it exactly as over TCP.
async fn write(ctx: &Ctx, cmd: RemotingCommand) -> Response {
    match ask_owner(ctx, cmd).await {
        Ok(reply) if reply.response_code() == ResponseCode::Success => {
            to_json(&serde_json::json!({ "ok": true, "code": reply.code }))
        }
        // Applied, but not on disk.
        Ok(reply) if reply.response_code() == ResponseCode::SystemError => {
            error(StatusCode::INTERNAL_SERVER_ERROR, reply.remark.as_deref().unwrap_or("system error"))
        }
        Ok(reply) => error(StatusCode::BAD_REQUEST, reply.remark.as_deref().unwrap_or("refused")),
        Err(response) => response,
    }
}

/// Sends `cmd` to the owner as a console request (not a connection) and returns the reply,
/// or the response to give when there is none.
async fn ask_owner(ctx: &Ctx, cmd: RemotingCommand) -> Result<RemotingCommand, Response> {
    let (reply, answer) = oneshot::channel();
    let at = Some(std::time::Instant::now());
    let answered = async {
        ctx.owner.send(Inbound::Request { cmd, at, reply }).await.ok()?;
        answer.await.ok()
    };
    match tokio::time::timeout(WRITE_TIMEOUT, answered).await {
        Ok(Some(reply)) => Ok(reply),
        Ok(None) | Err(_) => {
            Err(error(StatusCode::SERVICE_UNAVAILABLE, "the NameServer did not answer (shutting down?)"))
        }
    }
}
