//! Route snapshots: immutable, versioned, pre-encoded GET_ROUTEINFO_BY_TOPIC answers.
//!
//! Route queries (code 105) outnumber every other request by orders of magnitude. The owner
//! task publishes a [`RouteSnapshot`] after every input that changed a route answer (it asks
//! the core with [`NameServer::take_route_changes`] and re-encodes only those topics, once
//! per [`RouteShape`]: topics with the same queues on the same groups share one body), and
//! connection tasks answer route queries from the latest snapshot on their own core, without
//! a message to the owner and without waiting behind registrations or scans.
//!
//! A snapshot answer is byte-identical to the core's: the bodies come from
//! [`NameServer::route_body`], the request is read by the core's own [`Request::parse`], and
//! the reply is built with [`RemotingCommand::response_to`]. What a snapshot cannot answer
//! exactly (zone-filtered queries, header errors, a NameServer not yet serving routes) is
//! forwarded to the owner.

use std::collections::HashMap;

use foldhash::fast::RandomState;
use std::sync::Arc;

use nameserver_core::codec::{self, Limits};
use nameserver_core::json::JsonStyle;
use nameserver_core::protocol::{RemotingCommand, Request, RequestCode, ResponseCode};
use nameserver_core::route::RouteShape;
use nameserver_core::server::topic_not_exist;
use nameserver_core::{NameServer, TopicName};

/// The route answers of one moment, ready to send.
#[derive(Clone, Debug, Default)]
pub struct RouteSnapshot {
    version: u64,
    serving: bool,
    /// Looked up once per route query: a fast hasher, seeded per process.
    routes: HashMap<Arc<str>, Arc<RouteBodies>, RandomState>,
}

/// One topic's route body in both JSON styles (clients before 4.9.4 get the plain one).
#[derive(Debug)]
struct RouteBodies {
    plain: Vec<u8>,
    standard: Vec<u8>,
}

/// What [`RouteSnapshot::answer`] did with a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastPath {
    /// The reply (if the request wants one) was appended to the output buffer.
    Answered,
    /// The snapshot cannot answer this command exactly; the owner must.
    Forward,
}

impl RouteSnapshot {
    /// Version 0: no routes and not serving, so every query goes to the owner.
    #[must_use]
    pub fn empty() -> Self {
        Self::default()
    }

    /// Increases by one with every published change.
    #[must_use]
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Whether route queries are being answered ([`NameServer::serving_routes`]).
    #[must_use]
    pub fn serving(&self) -> bool {
        self.serving
    }

    /// Number of topics with a route.
    #[must_use]
    pub fn topics(&self) -> usize {
        self.routes.len()
    }

    /// The topics with a route, in no particular order (read-only views).
    pub fn topic_names(&self) -> impl Iterator<Item = &str> {
        self.routes.keys().map(|topic| &**topic)
    }

    /// `topic`'s route body in standard JSON, as clients since 4.9.4 get it (read-only views).
    #[must_use]
    pub fn route_body(&self, topic: &str) -> Option<&[u8]> {
        self.routes.get(topic).map(|bodies| bodies.standard.as_slice())
    }

    /// The snapshot that reflects `ns` now, built from this one and the topics `ns` reports
    /// as changed since the previous call; `None` when no answer changed.
    #[must_use]
    pub fn advance(&self, ns: &mut NameServer) -> Option<Self> {
        let changes = ns.take_route_changes();
        let ns = &*ns;
        let serving = ns.serving_routes();
        let mut shapes = Shapes { ns, encoded: HashMap::default() };
        let routes = match changes {
            None => ns
                .routes()
                .topic_queue_table()
                .keys()
                .filter_map(|topic| Some((Arc::from(topic.as_str()), shapes.bodies(topic)?)))
                .collect(),
            Some(changes) if changes.topics.is_empty() => {
                if serving == self.serving {
                    return None;
                }
                self.routes.clone()
            }
            Some(changes) => {
                let mut routes = self.routes.clone();
                for topic in &changes.topics {
                    match shapes.bodies(topic) {
                        Some(bodies) => routes.insert(Arc::from(topic.as_str()), bodies),
                        None => routes.remove(topic.as_str()),
                    };
                }
                routes
            }
        };
        Some(Self { version: self.version + 1, serving, routes })
    }

    /// Answers `cmd` if it is a route query this snapshot can answer exactly as the core
    /// would, appending the reply frame to `out`.
    pub fn answer(&self, cmd: &RemotingCommand, limits: &Limits, out: &mut Vec<u8>) -> FastPath {
        if !self.serving || cmd.is_response() || cmd.request_code() != RequestCode::GetRouteInfoByTopic {
            return FastPath::Forward;
        }
        let Ok(Request::GetRouteInfo(query)) = Request::parse(cmd, limits) else { return FastPath::Forward };
        if query.zone.is_some() {
            return FastPath::Forward;
        }
        if cmd.is_oneway() {
            return FastPath::Answered;
        }
        let encoded = match self.routes.get(query.topic.as_str()) {
            Some(bodies) => {
                let body = if query.standard_json { &bodies.standard } else { &bodies.plain };
                codec::encode_with_body(&RemotingCommand::response_to(cmd, ResponseCode::Success), body, out)
            }
            None => codec::encode(&topic_not_exist(cmd, &query.topic), out),
        };
        // A reply too large to encode is the owner's to report, as for every other request.
        if encoded.is_ok() { FastPath::Answered } else { FastPath::Forward }
    }
}

/// The route bodies of one state of the tables, encoded once per shape.
struct Shapes<'a> {
    ns: &'a NameServer,
    encoded: HashMap<RouteShape<'a>, Option<Arc<RouteBodies>>, RandomState>,
}

impl Shapes<'_> {
    fn bodies(&mut self, topic: &TopicName) -> Option<Arc<RouteBodies>> {
        let ns = self.ns;
        let shape = ns.route_shape(topic)?;
        let bodies = self.encoded.entry(shape).or_insert_with(|| {
            let plain = ns.route_body(topic, JsonStyle::Plain)?;
            let standard = ns.route_body(topic, JsonStyle::Standard)?;
            Some(Arc::new(RouteBodies { plain, standard }))
        });
        bodies.clone()
    }
}
