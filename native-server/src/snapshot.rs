//! Route snapshots: immutable, versioned GET_ROUTEINFO_BY_TOPIC answers.
//!
//! Route queries (code 105) outnumber every other request by orders of magnitude. The owner
//! task publishes a [`RouteSnapshot`] after every input that changed a route answer (it asks
//! the core with [`NameServer::poll_route_changes`] and touches only those topics), and
//! connection tasks answer route queries from the latest snapshot on their own core, without
//! a message to the owner and without waiting behind registrations or scans.
//!
//! Topics share their answer by [`RouteShape`]: in most clusters thousands of topics have the
//! same queues on the same groups, and within one state of the tables equal shapes have equal
//! bodies. Publishing gives each changed topic the [`RouteBodies`] of its shape, holding the
//! route as the core built it ([`NameServer::route_data`], once per shape); the body is
//! encoded in a JSON style the first time a client asks for it in that style, on that
//! client's connection, and shared from then on. So a topic is never cold: right after a
//! restart, or while a hundred brokers register, its first query costs one encoding per
//! shape, never a trip to the owner, and a broker registering 10,000 topics is answered
//! without encoding one.
//!
//! A snapshot answer is byte-identical to the core's: the request is read by the core's own
//! [`Request::parse`], the reply is decided by the core's own [`route_reply`] with the
//! snapshot as its [`RouteSource`], and the bodies are the core's [`TopicRouteData`] written
//! by its own writer. What a snapshot cannot answer exactly (zone-filtered queries, header
//! errors, a NameServer not yet serving routes, whose wait only the owner's clock can end)
//! is forwarded to the owner.

mod topic_routes;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use foldhash::fast::RandomState;
use nameserver_core::codec::{self, Limits};
use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::body::TopicRouteData;
use nameserver_core::protocol::{RemotingCommand, Request, RequestCode, ResponseCode};
use nameserver_core::route::{RouteShape, ShapeKey};
use nameserver_core::server::{RouteReply, RouteSource, route_reply};
use nameserver_core::{NameServer, TopicName};

use self::topic_routes::TopicRoutes;

/// The route answers of one moment.
#[derive(Clone, Debug, Default)]
pub struct RouteSnapshot {
    version: u64,
    serving: bool,
    /// Every topic with a route, in shards shared with the snapshots before and after (see
    /// `topic_routes.rs`). Looked up once per route query.
    routes: TopicRoutes,
}

/// The route of every topic of one [`RouteShape`] as of the snapshot that created it, with
/// its body in each JSON style (clients before 4.9.4 get the plain one) encoded on first use.
/// A route change gives the topic new bodies, so these always answer for the route state
/// they were built from.
#[derive(Debug)]
pub struct RouteBodies {
    route: TopicRouteData,
    plain: OnceLock<Vec<u8>>,
    standard: OnceLock<Vec<u8>>,
}

impl RouteBodies {
    fn new(route: TopicRouteData) -> Self {
        Self { route, plain: OnceLock::new(), standard: OnceLock::new() }
    }

    /// The body in standard JSON, as clients since 4.9.4 get it.
    #[must_use]
    pub fn standard(&self) -> &[u8] {
        self.standard.get_or_init(|| self.route.to_json(JsonStyle::Standard))
    }

    /// The body in fastjson's plain style, as older clients get it.
    #[must_use]
    pub fn plain(&self) -> &[u8] {
        self.plain.get_or_init(|| self.route.to_json(JsonStyle::Plain))
    }

    /// The body in `style`.
    #[must_use]
    pub fn body(&self, style: JsonStyle) -> &[u8] {
        match style {
            JsonStyle::Standard => self.standard(),
            JsonStyle::Plain => self.plain(),
        }
    }
}

/// What [`RouteSnapshot::answer`] did with a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastPath {
    /// The reply, with this response code, was appended to the output buffer (`None`: a
    /// oneway request, which gets no reply).
    Answered(Option<ResponseCode>),
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
        self.routes.names()
    }

    /// Whether `topic` has a route.
    #[must_use]
    pub fn has_topic(&self, topic: &str) -> bool {
        self.routes.get(topic).is_some()
    }

    /// `topic`'s route bodies (encoded when first read), if it has a route.
    #[must_use]
    pub fn route_bodies(&self, topic: &str) -> Option<Arc<RouteBodies>> {
        self.routes.get(topic).cloned()
    }

    /// The snapshot that reflects `ns` now, built from this one and the topics `ns` reports
    /// as changed since the previous call; `None` when no answer changed. Each changed topic
    /// gets the bodies of its shape, built once per shape in this call.
    #[must_use]
    pub fn advance(&self, ns: &mut NameServer) -> Option<Self> {
        let changes = ns.poll_route_changes();
        let ns = &*ns;
        let serving = ns.serving_routes();
        let mut shapes = Shapes { ns, by_key: HashMap::default(), by_shape: HashMap::default() };
        let routes = match changes {
            None => {
                let topics = ns.routes().topic_queue_table().len();
                TopicRoutes::empty(RandomState::default()).edit(topics, |routes| {
                    ns.for_each_route_shape(None, |topic, shape| {
                        if let Some(bodies) = shapes.bodies(topic, shape) {
                            routes.set(topic.as_str(), bodies);
                        }
                    });
                })
            }
            Some(changes) if changes.topics.is_empty() => {
                if serving == self.serving {
                    return None;
                }
                self.routes.clone()
            }
            Some(changes) => self.routes.edit(changes.topics.len(), |routes| {
                ns.for_each_route_shape(Some(&changes.topics), |topic, shape| match shapes.bodies(topic, shape) {
                    Some(bodies) => routes.set(topic.as_str(), bodies),
                    None => routes.remove(topic.as_str()),
                });
            }),
        };
        Some(Self { version: self.version + 1, serving, routes })
    }

    /// Answers `cmd` if it is a route query this snapshot can answer exactly as the core
    /// would, appending the reply frame to `out`.
    pub fn answer(&self, cmd: &RemotingCommand, limits: &Limits, out: &mut Vec<u8>) -> FastPath {
        if cmd.is_response() || cmd.request_code() != RequestCode::GetRouteInfoByTopic {
            return FastPath::Forward;
        }
        let Ok(Request::GetRouteInfo(query)) = Request::parse(cmd, limits) else { return FastPath::Forward };
        let Ok(reply) = route_reply(&self, cmd, &query) else { return FastPath::Forward };
        let Some(head) = reply.head(cmd, &query.topic) else { return FastPath::Answered(None) };
        let encoded = match reply {
            RouteReply::Found { route, style } => codec::encode_with_body(&head, route.body(style), out),
            _ => codec::encode(&head, out),
        };
        // A reply too large to encode is the owner's to report, as for every other request.
        match encoded {
            Ok(()) => FastPath::Answered(Some(head.response_code())),
            Err(_) => FastPath::Forward,
        }
    }
}

/// What only the owner can decide: whether a NameServer not yet serving routes is still
/// waiting (the snapshot's clock stopped at its publication), and zone-filtered routes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnerDecides;

impl<'a> RouteSource for &'a RouteSnapshot {
    type Route = &'a RouteBodies;
    type Unanswerable = OwnerDecides;

    fn serving(&self) -> Result<bool, OwnerDecides> {
        if self.serving { Ok(true) } else { Err(OwnerDecides) }
    }

    fn route(&self, topic: &TopicName) -> Option<&'a RouteBodies> {
        let &snapshot = self;
        snapshot.routes.get(topic.as_str()).map(|bodies| &**bodies)
    }

    fn zone_route(&self, _topic: &TopicName, _zone: &str) -> Result<Option<&'a RouteBodies>, OwnerDecides> {
        Err(OwnerDecides)
    }
}

/// The route bodies of one state of the tables, built once per shape. Topics are grouped by
/// [`ShapeKey`] first (one hash of a few words per topic, most topics sharing their queue
/// list), and each new key by its whole [`RouteShape`].
struct Shapes<'a> {
    ns: &'a NameServer,
    by_key: HashMap<ShapeKey<'a>, Option<Arc<RouteBodies>>, RandomState>,
    by_shape: HashMap<RouteShape<'a>, Option<Arc<RouteBodies>>, RandomState>,
}

impl<'a> Shapes<'a> {
    /// The bodies of `topic`, of `shape`; `None` when it has no route (TOPIC_NOT_EXIST).
    fn bodies(&mut self, topic: &TopicName, shape: Option<RouteShape<'a>>) -> Option<Arc<RouteBodies>> {
        let ns = self.ns;
        let shape = shape?;
        if let Some(bodies) = self.by_key.get(&shape.key()) {
            return bodies.clone();
        }
        let bodies = self
            .by_shape
            .entry(shape)
            .or_insert_with(|| ns.route_data(topic).map(|route| Arc::new(RouteBodies::new(route))))
            .clone();
        self.by_key.insert(shape.key(), bodies.clone());
        bodies
    }
}
