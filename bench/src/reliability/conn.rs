//! One connection, one request at a time; route answers checked

use std::time::Instant;

use nameserver_core::json::from_fastjson;
use nameserver_core::protocol::RequestCode;
use nameserver_core::protocol::body::TopicRouteData;
pub(crate) use nameserver_testkit::AsyncClient as Conn;
pub(crate) use nameserver_testkit::frames::{register_broker as register, request};

use super::stats::Stats;

/// Asks for `topic`'s route and checks the answer: SUCCESS naming only `group` (when given),
/// or TOPIC_NOT_EXIST when `may_be_missing`.
pub(crate) async fn ask_route(
    conn: &mut Conn,
    stats: &Stats,
    topic: &str,
    group: Option<&str>,
    may_be_missing: bool,
    plain: bool,
) -> bool {
    let mut cmd = request(RequestCode::GetRouteInfoByTopic, &[("topic", topic)]);
    if plain {
        cmd.version = 121;
    }
    let started = Instant::now();
    let reply = match conn.call(cmd).await {
        Ok(reply) => reply,
        Err(error) => {
            stats.error(format!("route {topic}: {error}"));
            return false;
        }
    };
    stats.latency.record(started.elapsed());
    stats.queries.add();
    match reply.code {
        0 => {
            let route: TopicRouteData = match from_fastjson(&reply.body) {
                Ok(route) => route,
                Err(error) => {
                    stats.error(format!("route {topic}: body does not parse: {error}"));
                    return false;
                }
            };
            if !plain && serde_json_free_check(&reply.body).is_err() {
                stats.error(format!("route {topic}: not standard JSON for a 5.x client"));
            }
            if let Some(group) = group {
                let names = route
                    .broker_datas
                    .iter()
                    .map(|b| b.broker_name.as_str())
                    .chain(route.queue_datas.iter().map(|q| q.broker_name.as_str()));
                for name in names {
                    if name != group {
                        stats.error(format!("route {topic} names {name}, expected only {group}"));
                    }
                }
            }
            true
        }
        17 if may_be_missing => {
            stats.not_found.add();
            true
        }
        code => {
            stats.error(format!("route {topic}: code {code} {:?}", reply.remark));
            false
        }
    }
}

/// Standard JSON quotes every key: a plain-style integer key (`{0:"..."}`) is what a 5.x
/// client cannot read.
fn serde_json_free_check(body: &[u8]) -> Result<(), ()> {
    let mut in_string = false;
    let mut escaped = false;
    let mut previous = b' ';
    for &b in body {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b.is_ascii_digit() && matches!(previous, b'{' | b',') {
            return Err(());
        }
        if !b.is_ascii_whitespace() {
            previous = b;
        }
    }
    Ok(())
}
