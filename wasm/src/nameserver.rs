//! `NameServer`: the real NameServer state machine for JavaScript drivers (a Node.js server,
//! a traffic inspector). JS owns sockets and time; this owns the tables.

use nameserver_core::codec::{self, Limits};
use nameserver_core::event_run::EventRun;
use nameserver_core::names::ConnId;
use nameserver_core::time::Instant;
use nameserver_core::{Config, Input, KvConfig, Output};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::codec::frame_dto;
use crate::convert::{millis, to_js};
use crate::dto;

fn instant(ms: f64) -> Result<Instant, JsError> {
    millis(ms, "time")
}

fn conn(id: f64) -> Result<ConnId, JsError> {
    if !(0.0..=9_007_199_254_740_991.0).contains(&id) || id.fract() != 0.0 {
        return Err(JsError::new(&format!("a connection id must be a non-negative integer, got {id}")));
    }
    Ok(ConnId(id as u64))
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "NameServerOutput"))]
pub(crate) enum OutputDto {
    Send {
        conn: u64,
        #[serde(with = "bytes")]
        #[cfg_attr(feature = "ts", ts(type = "Uint8Array"))]
        frame: Vec<u8>,
        command: dto::Frame,
    },
    Close {
        conn: u64,
    },
    NotifyBroker {
        #[serde(rename = "brokerAddr")]
        broker_addr: String,
        #[serde(with = "bytes")]
        #[cfg_attr(feature = "ts", ts(type = "Uint8Array"))]
        frame: Vec<u8>,
        command: dto::Frame,
    },
    Event {
        #[cfg_attr(feature = "ts", ts(type = "EventKind"))]
        kind: &'static str,
        #[cfg_attr(feature = "ts", ts(type = "EventCategory"))]
        category: &'static str,
        #[cfg_attr(feature = "ts", ts(type = "Severity"))]
        level: &'static str,
        text: String,
    },
    PersistKv {
        text: String,
    },
    PersistConfig {
        text: String,
    },
}

mod bytes {
    pub(crate) fn serialize<S: serde::Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(b)
    }
}

/// One NameServer. Feed it connection events and frames with timestamps; drain its outputs.
#[wasm_bindgen]
pub struct NameServer {
    inner: nameserver_core::NameServer,
    now: Instant,
    /// The rest of the run of events being handed out one by one.
    events: EventRun,
}

#[wasm_bindgen]
impl NameServer {
    /// A NameServer started at `nowMs`, configured by optional `namesrv.properties` text and
    /// optional `kvConfig.json` text. Throws on a bad value.
    #[wasm_bindgen(constructor)]
    pub fn new(now_ms: f64, properties: Option<String>, kv_config: Option<String>) -> Result<Self, JsError> {
        let now = instant(now_ms)?;
        let mut config = Config::java_defaults("/home/rocketmq", "/opt/rocketmq");
        if let Some(text) = properties {
            let entries = nameserver_core::properties::parse(&text).map_err(|e| JsError::new(&e.to_string()))?;
            for (k, v) in entries {
                config.set(&k, &v).map_err(|e| JsError::new(&e.to_string()))?;
            }
        }
        let kv = match kv_config {
            Some(text) => {
                KvConfig::from_json(text.as_bytes()).map_err(|e| JsError::new(&format!("bad kvConfig.json: {e}")))?
            }
            None => KvConfig::default(),
        };
        Ok(Self { inner: nameserver_core::NameServer::new(config, kv, now), now, events: EventRun::new() })
    }

    fn input(&mut self, now_ms: f64, input: Input) -> Result<(), JsError> {
        let now = instant(now_ms)?;
        if now < self.now {
            return Err(JsError::new(&format!("time went backwards: {now_ms} < {}", self.now.as_millis())));
        }
        self.now = now;
        self.inner.handle(now, input);
        Ok(())
    }

    /// A connection was accepted from `remote` (e.g. `"127.0.0.1:53000"`).
    pub fn connect(&mut self, conn_id: f64, remote: String, now_ms: f64) -> Result<(), JsError> {
        self.input(now_ms, Input::Connected { conn: conn(conn_id)?, remote })
    }

    /// One whole frame arrived. Throws on an undecodable frame (close that connection).
    /// Returns the number of bytes used, so several frames can be fed from one buffer.
    pub fn receive(&mut self, conn_id: f64, frame: &[u8], now_ms: f64) -> Result<usize, JsError> {
        let conn = conn(conn_id)?;
        match codec::decode(frame, &Limits::DEFAULT) {
            Ok(Some((cmd, used))) => {
                self.input(now_ms, Input::Received { conn, cmd })?;
                Ok(used)
            }
            Ok(None) => Err(JsError::new("incomplete frame: feed a whole frame")),
            Err(e) => Err(JsError::new(&format!("decode exception: {e}"))),
        }
    }

    /// A connection closed.
    pub fn disconnect(&mut self, conn_id: f64, now_ms: f64) -> Result<(), JsError> {
        self.input(now_ms, Input::Disconnected { conn: conn(conn_id)? })
    }

    /// A connection was idle for `serverChannelMaxIdleTimeSeconds` since its last read or
    /// write at `last_io_ms` (omitted: the idle time ran out just now, at
    /// `now_ms - serverChannelMaxIdleTimeSeconds`). The event's operands quote both.
    pub fn idle(&mut self, conn_id: f64, now_ms: f64, last_io_ms: Option<f64>) -> Result<(), JsError> {
        let idle = core::time::Duration::from_secs(self.inner.config().server_channel_max_idle_time_seconds);
        let last_io = match last_io_ms {
            Some(ms) => millis(ms, "lastIoMs")?,
            None => {
                Instant::from_millis(instant(now_ms)?.as_millis().saturating_sub(nameserver_core::time::millis(idle)))
            }
        };
        self.input(now_ms, Input::Idle { conn: conn(conn_id)?, last_io, idle })
    }

    /// Time passed (call at `pollTimeout()`).
    pub fn tick(&mut self, now_ms: f64) -> Result<(), JsError> {
        self.input(now_ms, Input::Timeout)
    }

    /// When to call `tick` next, in milliseconds.
    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.inner.poll_timeout().map(|t| t.as_millis() as f64)
    }

    /// The next output, or `undefined`: `{type: "send", conn, frame, command}`,
    /// `{type: "close", conn}`, `{type: "notifyBroker", brokerAddr, frame, command}` (open a
    /// connection to the broker's address and write the oneway frame), `{type: "event", kind,
    /// category, level, text}` (the core's event vocabulary: `EventKind`, `EventCategory`,
    /// `Severity`),
    /// `{type: "persistKv", text}` (the whole `kvConfig.json` after a KV change),
    /// `{type: "persistConfig", text}`.
    #[wasm_bindgen(js_name = pollOutput, unchecked_return_type = "NameServerOutput | undefined")]
    pub fn poll_output(&mut self) -> Result<JsValue, JsError> {
        if self.events.is_empty() {
            match self.inner.poll_output() {
                Some(Output::Events(run)) => self.events = run,
                Some(out) => return self.output(out),
                None => return Ok(JsValue::UNDEFINED),
            }
        }
        let Some(e) = self.events.pop_front() else { return Ok(JsValue::UNDEFINED) };
        let kind = e.kind();
        to_js(&OutputDto::Event {
            kind: kind.name(),
            category: kind.category().name(),
            level: kind.severity().name(),
            text: e.to_string(),
        })
    }

    /// One output other than events, as a plain object.
    fn output(&self, out: Output) -> Result<JsValue, JsError> {
        let dto = match out {
            Output::Send { conn, cmd } => {
                let frame = codec::encode_to_vec(&cmd).map_err(|e| JsError::new(&e.to_string()))?;
                let len = frame.len();
                OutputDto::Send { conn: conn.0, frame, command: frame_dto(cmd, len) }
            }
            Output::Close { conn } => OutputDto::Close { conn: conn.0 },
            Output::NotifyBroker { broker_addr, cmd } => {
                let frame = codec::encode_to_vec(&cmd).map_err(|e| JsError::new(&e.to_string()))?;
                let len = frame.len();
                OutputDto::NotifyBroker { broker_addr: broker_addr.into_string(), frame, command: frame_dto(cmd, len) }
            }
            // Never here: runs are taken apart by `poll_output`, and JS drivers send no
            // `Input::Request`.
            Output::Events(_) | Output::Answer { .. } => return Ok(JsValue::UNDEFINED),
            // The whole file, as a JS driver writes it (the daemon journals the change instead).
            Output::KvChanged(_) => {
                OutputDto::PersistKv { text: String::from_utf8_lossy(&self.inner.kv().to_json()).into_owned() }
            }
            Output::PersistConfig(bytes) => {
                OutputDto::PersistConfig { text: String::from_utf8_lossy(&bytes).into_owned() }
            }
        };
        to_js(&dto)
    }

    /// The tables, in the JSON of the daemon's `/api/view` (`idleCloseAt` null: the driver
    /// keeps the channels).
    #[wasm_bindgen(unchecked_return_type = "NsTables")]
    pub fn tables(&self) -> Result<JsValue, JsError> {
        to_js(&nameserver_core::view::NsTables::of(&self.inner, |_| None))
    }

    /// The route the NameServer answers for `topic`, or `null`.
    #[wasm_bindgen(unchecked_return_type = "TopicRoute | null")]
    pub fn route(&self, topic: &str) -> Result<JsValue, JsError> {
        match self.inner.route_data(&topic.into()) {
            Some(r) => to_js(&nameserver_sim::view::TopicRoute::from(&r)),
            None => Ok(JsValue::NULL),
        }
    }
}
