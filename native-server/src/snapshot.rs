//! Route snapshots: immutable, versioned GET_ROUTEINFO_BY_TOPIC answers, encoded ahead.
//!
//! Route queries (code 105) outnumber every other request by orders of magnitude. The owner
//! task publishes a [`RouteSnapshot`] after every input that changed a route answer (it asks
//! the core with [`NameServer::take_route_changes`] and touches only those topics), and
//! connection tasks answer route queries from the latest snapshot on their own core, without
//! a message to the owner and without waiting behind registrations or scans.
//!
//! Bodies are encoded for the topics clients ask for. A topic's first query goes to the
//! owner, which answers it from the core and then *warms* the topic: it encodes the body into
//! the topic's slot of the current snapshot. From then on the body is re-encoded whenever the
//! route changes. Topics nobody asks for cost no encoding and no body memory, so a broker
//! registering 10,000 topics is answered without encoding one. Encoding happens once per
//! [`RouteShape`] and snapshot: topics with the same queues on the same groups share a body.
//!
//! A snapshot answer is byte-identical to the core's: the bodies come from
//! [`NameServer::route_body`], the request is read by the core's own [`Request::parse`], and
//! the reply is built with [`RemotingCommand::response_to`]. What a snapshot cannot answer
//! exactly (a topic not warm yet, zone-filtered queries, header errors, a NameServer not yet
//! serving routes) is forwarded to the owner.

use std::collections::HashMap;
use std::hash::BuildHasher as _;
use std::sync::Arc;

use arc_swap::ArcSwapOption;
use foldhash::fast::RandomState;
use nameserver_core::codec::{self, Limits};
use nameserver_core::json::JsonStyle;
use nameserver_core::protocol::{RemotingCommand, Request, RequestCode, ResponseCode};
use nameserver_core::route::RouteShape;
use nameserver_core::server::topic_not_exist;
use nameserver_core::{NameServer, TopicName};

/// The route answers of one moment.
#[derive(Clone, Debug, Default)]
pub struct RouteSnapshot {
    version: u64,
    serving: bool,
    /// Every topic with queues. Looked up once per route query: a fast hasher, seeded per
    /// process.
    routes: HashMap<Arc<str>, Arc<Slot>, RandomState>,
}

/// One topic's route as of the snapshot that created the slot: empty until the topic is
/// warmed. A route change gives the topic a new slot, so a warm slot always holds the body of
/// the route state it was created for.
#[derive(Debug, Default)]
struct Slot(ArcSwapOption<RouteBodies>);

/// One topic's route body in both JSON styles (clients before 4.9.4 get the plain one).
#[derive(Debug)]
pub struct RouteBodies {
    plain: Vec<u8>,
    standard: Vec<u8>,
}

impl RouteBodies {
    /// The body in standard JSON, as clients since 4.9.4 get it.
    #[must_use]
    pub fn standard(&self) -> &[u8] {
        &self.standard
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

    /// Number of topics with queues.
    #[must_use]
    pub fn topics(&self) -> usize {
        self.routes.len()
    }

    /// The topics with queues, in no particular order (read-only views).
    pub fn topic_names(&self) -> impl Iterator<Item = &str> {
        self.routes.keys().map(|topic| &**topic)
    }

    /// Whether `topic` has queues (its route may still be unencoded).
    #[must_use]
    pub fn has_topic(&self, topic: &str) -> bool {
        self.routes.contains_key(topic)
    }

    /// `topic`'s encoded route bodies, if it is warm.
    #[must_use]
    pub fn route_bodies(&self, topic: &str) -> Option<Arc<RouteBodies>> {
        self.routes.get(topic)?.0.load_full()
    }

    /// The snapshot that reflects `ns` now, built from this one and the topics `ns` reports
    /// as changed since the previous call; `None` when no answer changed. Warm topics are
    /// re-encoded; new and cold ones get an empty slot.
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
                .map(|topic| (Arc::from(topic.as_str()), self.next_slot(&mut shapes, topic)))
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
                    if ns.route_shape(topic).is_none() {
                        routes.remove(topic.as_str());
                        continue;
                    }
                    let slot = self.next_slot(&mut shapes, topic);
                    match routes.get_mut(topic.as_str()) {
                        Some(old) => *old = slot,
                        None => {
                            routes.insert(Arc::from(topic.as_str()), slot);
                        }
                    }
                }
                routes
            }
        };
        Some(Self { version: self.version + 1, serving, routes })
    }

    /// A new slot for `topic`: encoded if it was warm here, else empty.
    fn next_slot(&self, shapes: &mut Shapes<'_>, topic: &TopicName) -> Arc<Slot> {
        let warm = self.routes.get(topic.as_str()).is_some_and(|slot| slot.0.load().is_some());
        let slot = Slot::default();
        if warm {
            slot.0.store(shapes.bodies(topic));
        }
        Arc::new(slot)
    }

    /// Encodes `topic`'s route into its slot if it has queues and is not warm yet, sharing
    /// the body of a topic of the same shape warmed earlier in this snapshot (`warmed`
    /// remembers them). `ns` must be the state this snapshot reflects (the owner calls it
    /// right after a step). Returns whether it encoded anything.
    pub fn warm(&self, ns: &NameServer, topic: &TopicName, warmed: &mut Warmed) -> bool {
        let Some(slot) = self.routes.get(topic.as_str()) else { return false };
        if slot.0.load().is_some() {
            return false;
        }
        let Some(shape) = ns.route_shape(topic) else { return false };
        if warmed.version != self.version {
            *warmed = Warmed { version: self.version, ..Warmed::default() };
        }
        let key = warmed.by_shape.hasher().hash_one(shape);
        let siblings = warmed.by_shape.entry(key).or_default();
        // The hash only narrows the search: a sibling counts if its shape is equal.
        let shared = siblings
            .iter()
            .find(|(sibling, _)| ns.route_shape(sibling) == Some(shape))
            .map(|(_, bodies)| Arc::clone(bodies));
        let bodies = shared.or_else(|| {
            let bodies = Shapes { ns, encoded: HashMap::default() }.bodies(topic)?;
            siblings.push((topic.clone(), Arc::clone(&bodies)));
            Some(bodies)
        });
        let encoded = bodies.is_some();
        slot.0.store(bodies);
        encoded
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
        let encoded = match self.routes.get(query.topic.as_str()) {
            Some(slot) => {
                let bodies = slot.0.load();
                let Some(bodies) = bodies.as_deref() else { return FastPath::Forward };
                if cmd.is_oneway() {
                    return FastPath::Answered(None);
                }
                let body = if query.standard_json { &bodies.standard } else { &bodies.plain };
                codec::encode_with_body(&RemotingCommand::response_to(cmd, ResponseCode::Success), body, out)
                    .map(|()| ResponseCode::Success)
            }
            None if cmd.is_oneway() => return FastPath::Answered(None),
            None => codec::encode(&topic_not_exist(cmd, &query.topic), out).map(|()| ResponseCode::TopicNotExist),
        };
        // A reply too large to encode is the owner's to report, as for every other request.
        match encoded {
            Ok(code) => FastPath::Answered(Some(code)),
            Err(_) => FastPath::Forward,
        }
    }
}

/// The topics warmed in one snapshot, by the hash of their shape (see
/// [`RouteSnapshot::warm`]).
#[derive(Debug, Default)]
pub struct Warmed {
    version: u64,
    by_shape: HashMap<u64, Vec<(TopicName, Arc<RouteBodies>)>, RandomState>,
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
