//! One connection, one request at a time

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use nameserver_core::TopicName;
use nameserver_core::codec::{self, Limits};
use nameserver_core::json::{JsonStyle, WriteJson, from_fastjson};
use nameserver_core::protocol::body::{RegisterBrokerBody, TopicConfig, TopicRouteData};
use nameserver_core::protocol::{FLAG_ONEWAY, RemotingCommand, RequestCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::stats::Stats;

const REPLY_PATIENCE: Duration = Duration::from_secs(10);

pub(crate) struct Conn {
    pub(crate) stream: TcpStream,
    pub(crate) buf: Vec<u8>,
    opaque: i32,
}

impl Conn {
    pub(crate) async fn connect(addr: SocketAddr) -> io::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Self { stream, buf: Vec::with_capacity(8192), opaque: 0 })
    }

    pub(crate) fn prepare(&mut self, mut cmd: RemotingCommand) -> RemotingCommand {
        self.opaque = self.opaque.wrapping_add(1);
        cmd.opaque = self.opaque;
        cmd.version = if cmd.version == 0 { 479 } else { cmd.version };
        cmd
    }

    /// Sends `cmd` and waits for the reply with its opaque.
    pub(crate) async fn call(&mut self, cmd: RemotingCommand) -> Result<RemotingCommand, String> {
        let cmd = self.prepare(cmd);
        let frame = codec::encode_to_vec(&cmd).map_err(|e| e.to_string())?;
        let exchange = async {
            self.stream.write_all(&frame).await.map_err(|e| format!("write: {e}"))?;
            loop {
                match codec::decode(&self.buf, &Limits::DEFAULT) {
                    Ok(Some((reply, used))) => {
                        self.buf.drain(..used);
                        if reply.is_response() && reply.opaque == cmd.opaque {
                            return Ok(reply);
                        }
                        if reply.is_response() {
                            return Err(format!("reply with opaque {} to request {}", reply.opaque, cmd.opaque));
                        }
                        continue;
                    }
                    Ok(None) => {}
                    Err(error) => return Err(format!("undecodable reply: {error}")),
                }
                self.buf.reserve(8192);
                match self.stream.read_buf(&mut self.buf).await {
                    Ok(0) => return Err(String::from("the server closed the connection")),
                    Ok(_) => {}
                    Err(error) => return Err(format!("read: {error}")),
                }
            }
        };
        tokio::time::timeout(REPLY_PATIENCE, exchange)
            .await
            .unwrap_or_else(|_| Err(format!("no reply to code {} within {REPLY_PATIENCE:?}", cmd.code)))
    }

    pub(crate) async fn oneway(&mut self, cmd: RemotingCommand) -> Result<(), String> {
        let mut cmd = self.prepare(cmd);
        cmd.flag = FLAG_ONEWAY;
        let frame = codec::encode_to_vec(&cmd).map_err(|e| e.to_string())?;
        self.stream.write_all(&frame).await.map_err(|e| format!("write: {e}"))
    }
}

pub(crate) fn request(code: RequestCode, fields: &[(&str, &str)]) -> RemotingCommand {
    fields.iter().fold(RemotingCommand::request(code), |cmd, (k, v)| cmd.with_field(k, *v))
}

fn route_query(topic: &str) -> RemotingCommand {
    request(RequestCode::GetRouteInfoByTopic, &[("topic", topic)])
}

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
    let mut cmd = route_query(topic);
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

/// A REGISTER_BROKER of `name`/`id` at `addr` with `topics`.
pub(crate) fn register(
    cluster: &str,
    name: &str,
    id: i64,
    addr: &str,
    topics: &[String],
    counter: i64,
    timeout_ms: Option<u64>,
) -> RemotingCommand {
    let mut body = RegisterBrokerBody::default();
    body.topic_config_wrapper.data_version.counter = counter;
    body.topic_config_wrapper.data_version.timestamp = 1_700_000_000_000 + counter;
    for topic in topics {
        body.topic_config_wrapper
            .topic_config_table
            .insert(TopicName::from(topic.as_str()), TopicConfig::new(topic.as_str(), 4));
    }
    let id_text = id.to_string();
    let mut cmd = request(
        RequestCode::RegisterBroker,
        &[
            ("clusterName", cluster),
            ("brokerName", name),
            ("brokerAddr", addr),
            ("brokerId", &id_text),
            ("haServerAddr", addr),
            ("enableActingMaster", "false"),
        ],
    )
    .with_body(body.to_json(JsonStyle::Plain));
    if let Some(ms) = timeout_ms {
        cmd = cmd.with_field("heartbeatTimeoutMillis", ms.to_string());
    }
    cmd
}
