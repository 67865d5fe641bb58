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
//! bodies. Publishing gives each changed topic the [`RouteBodies`] of its shape, which hold
//! only what the route is built from (the core's [`RouteRecipe`]; the broker groups are the
//! snapshot's, one copy each): a registration builds no route, it drops the bodies of the
//! routes it changed. A route's body in a JSON style is built the first time a client asks
//! for it after a change, on that client's connection, and shared from then on while the
//! bounded cache of `route_cache.rs` keeps it; one it evicted is built again on its next
//! query. So a topic is never cold (no query waits for the owner), a broker registering
//! 10,000 topics is answered without building one, and memory stays bounded however many
//! routes differ. A reply does not copy a large body into the connection's buffer: its
//! [`Outbox`] holds the cache's, and writes it with the bytes around it.
//!
//! A snapshot answer is byte-identical to the core's: the request is read by the core's own
//! [`Request::parse`], the reply is decided by the core's own [`route_reply`] with the
//! snapshot as its [`RouteSource`], and the bodies are the core's [`TopicRouteData`], built by
//! its own [`RouteRecipe::build`], written by its own writer. What a snapshot cannot answer exactly (zone-filtered queries, header
//! errors, a NameServer not yet serving routes, whose wait only the owner's clock can end)
//! is forwarded to the owner.

mod outbox;
mod route_cache;
mod topic_routes;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, OnceLock};

use foldhash::fast::RandomState;
use nameserver_core::codec::{self, Limits};
use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::body::TopicRouteData;
use nameserver_core::protocol::{RemotingCommand, Request, RequestCode, ResponseCode, RouteRequest};
use nameserver_core::route::{GroupRoute, RouteRecipe, RouteShape, ShapeKey};
use nameserver_core::server::{RouteReply, RouteSource, route_reply};
use nameserver_core::{BrokerName, NameServer};

pub use self::outbox::SHARED_FROM;
pub use self::route_cache::{CacheStats, RouteBody};
use self::route_cache::{RouteCache, Slot};
use self::topic_routes::TopicRoutes;

/// A connection's unwritten replies, sharing the large route bodies they carry with the cache.
pub type Outbox = outbox::Outbox<RouteBody>;

/// `--route-cache-bytes`' default: 16 MiB of route bodies.
pub const DEFAULT_ROUTE_CACHE_BYTES: usize = 16 << 20;

/// The route answers of one moment.
#[derive(Clone, Debug)]
pub struct RouteSnapshot {
    version: u64,
    serving: bool,
    /// Every topic with a route, in shards shared with the snapshots before and after (see
    /// `topic_routes.rs`). Looked up once per route query.
    routes: TopicRoutes,
    /// Every broker group as routes show it, shared with the snapshots before and after until
    /// a group changes.
    groups: Arc<Groups>,
    /// The bodies built so far, shared by every snapshot.
    cache: Arc<RouteCache>,
}

/// What the route of every topic of one [`RouteShape`] is built from, as of the snapshot that
/// created it, with its body in each JSON style (clients before 4.9.4 get the plain one) once
/// built. A route change gives the topic new bodies, so these always answer for the route
/// state they were made from.
#[derive(Debug)]
pub struct RouteBodies {
    recipe: RouteRecipe,
    /// Made by the first query: a registration replaces the bodies of every route it changes,
    /// and dropping a slot costs a walk of arc-swap's per-thread debt lists, so bodies never
    /// asked for must not carry any (half the owner's publishing when all routes differ).
    slots: OnceLock<Slots>,
}

#[derive(Debug, Default)]
struct Slots {
    plain: Slot,
    standard: Slot,
}

impl RouteBodies {
    fn new(recipe: RouteRecipe) -> Self {
        Self { recipe, slots: OnceLock::new() }
    }

    /// Where the body in `style` is kept, if a query ever asked for one.
    fn slot(&self, style: JsonStyle) -> Option<&Slot> {
        self.slots.get().map(|slots| slots.of(style))
    }

    fn slot_or_new(&self, style: JsonStyle) -> &Slot {
        self.slots.get_or_init(Slots::default).of(style)
    }
}

impl Slots {
    fn of(&self, style: JsonStyle) -> &Slot {
        match style {
            JsonStyle::Standard => &self.standard,
            JsonStyle::Plain => &self.plain,
        }
    }
}

/// A change replaced these bodies, or the topics are gone: what they kept leaves the cache.
impl Drop for RouteBodies {
    fn drop(&mut self) {
        if let Some(slots) = self.slots.get_mut() {
            slots.plain.drop_body();
            slots.standard.drop_body();
        }
    }
}

/// The broker groups of one snapshot by name.
#[derive(Clone, Debug, Default)]
struct Groups(HashMap<BrokerName, Arc<GroupRoute>, RandomState>);

impl Groups {
    /// Every group of `ns`.
    fn of(ns: &NameServer) -> Self {
        let mut groups = Self::default();
        for name in ns.routes().broker_addr_table().keys() {
            groups.refresh(ns, name);
        }
        groups
    }

    /// `name` as `ns` has it now, or gone.
    fn refresh(&mut self, ns: &NameServer, name: &BrokerName) {
        match ns.routes().group_route(name) {
            Some(group) => self.0.insert(name.clone(), Arc::new(group)),
            None => self.0.remove(name),
        };
    }

    fn route(&self, recipe: &RouteRecipe) -> TopicRouteData {
        recipe.build(|name| self.0.get(name).map(|group| GroupRoute::clone(group)))
    }
}

/// One topic's route in a snapshot, to be written out: the snapshot's [`RouteSource::Route`].
#[derive(Clone, Copy, Debug)]
pub struct RouteRef<'a> {
    bodies: &'a Arc<RouteBodies>,
    groups: &'a Groups,
    cache: &'a Arc<RouteCache>,
}

impl RouteRef<'_> {
    /// Calls `f` with the body in `style`, built now if the cache does not keep it.
    fn with_body<R>(self, style: JsonStyle, f: impl FnOnce(&Arc<RouteBody>) -> R) -> R {
        let Self { bodies, groups, cache } = self;
        cache.with_body(bodies, style, || groups.route(&bodies.recipe).to_json(style), f)
    }
}

/// A topic's route taken out of a snapshot ([`RouteSnapshot::route_bodies`]).
#[derive(Clone, Debug)]
pub struct Route {
    bodies: Arc<RouteBodies>,
    groups: Arc<Groups>,
    cache: Arc<RouteCache>,
}

impl Route {
    /// The body in `style`, as a client gets it.
    #[must_use]
    pub fn body(&self, style: JsonStyle) -> Arc<RouteBody> {
        RouteRef { bodies: &self.bodies, groups: &self.groups, cache: &self.cache }.with_body(style, Arc::clone)
    }

    /// The body in standard JSON, as clients since 4.9.4 get it.
    #[must_use]
    pub fn standard(&self) -> Arc<RouteBody> {
        self.body(JsonStyle::Standard)
    }

    /// The body in fastjson's plain style, as older clients get it.
    #[must_use]
    pub fn plain(&self) -> Arc<RouteBody> {
        self.body(JsonStyle::Plain)
    }

    /// Whether `other` is answered from the same bodies (its topic has the same shape).
    #[must_use]
    pub fn shares_bodies_with(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.bodies, &other.bodies)
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
    /// Version 0: no routes and not serving, so every query goes to the owner; bodies built
    /// later are kept up to [`DEFAULT_ROUTE_CACHE_BYTES`].
    #[must_use]
    pub fn empty() -> Self {
        Self::with_cache_bytes(DEFAULT_ROUTE_CACHE_BYTES)
    }

    /// [`Self::empty`], keeping at most `budget` bytes of route bodies in this snapshot and
    /// every one advanced from it (`--route-cache-bytes`).
    #[must_use]
    pub fn with_cache_bytes(budget: usize) -> Self {
        Self {
            version: 0,
            serving: false,
            routes: TopicRoutes::default(),
            groups: Arc::default(),
            cache: RouteCache::new(budget),
        }
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

    /// `topic`'s route (its bodies built when first read), if it has one.
    #[must_use]
    pub fn route_bodies(&self, topic: &str) -> Option<Route> {
        let bodies = Arc::clone(self.routes.get(topic)?);
        Some(Route { bodies, groups: Arc::clone(&self.groups), cache: Arc::clone(&self.cache) })
    }

    /// The route bodies built for this snapshot and every one of its line (advanced from the
    /// same first one), which share one budget.
    #[must_use]
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// The snapshot that reflects `ns` now, built from this one and the topics `ns` reports
    /// as changed since the previous call; `None` when no answer changed. Each changed topic
    /// gets the bodies of its shape, made once per shape in this call and built on the first
    /// query for them.
    #[must_use]
    pub fn advance(&self, ns: &mut NameServer) -> Option<Self> {
        let changes = ns.poll_route_changes();
        let ns = &*ns;
        let serving = ns.serving_routes();
        let changed = changes.as_ref().map_or(ns.routes().topic_queue_table().len(), |changes| changes.topics.len());
        let mut shapes = Shapes::new(ns, changed);
        let groups = match &changes {
            None => Arc::new(Groups::of(ns)),
            Some(changes) if changes.groups.is_empty() => Arc::clone(&self.groups),
            Some(changes) => {
                let mut groups = Groups::clone(&self.groups);
                for name in &changes.groups {
                    groups.refresh(ns, name);
                }
                Arc::new(groups)
            }
        };
        let routes = match changes {
            None => {
                let topics = ns.routes().topic_queue_table().len();
                TopicRoutes::empty(RandomState::default()).edit(topics, |routes| {
                    ns.for_each_route_shape(None, |topic, shape| {
                        if let Some(bodies) = shapes.bodies(shape) {
                            routes.set(topic.as_str(), bodies);
                        }
                    });
                })
            }
            Some(changes) if changes.topics.is_empty() => {
                if serving == self.serving && changes.groups.is_empty() {
                    return None;
                }
                self.routes.clone()
            }
            Some(changes) => self.routes.edit(changes.topics.len(), |routes| {
                ns.for_each_route_shape(Some(&changes.topics), |topic, shape| match shapes.bodies(shape) {
                    Some(bodies) => routes.set(topic.as_str(), bodies),
                    None => routes.remove(topic.as_str()),
                });
            }),
        };
        Some(Self { version: self.version + 1, serving, routes, groups, cache: Arc::clone(&self.cache) })
    }

    /// Answers `cmd` if it is a route query this snapshot can answer exactly as the core
    /// would, appending the reply frame to `out`.
    pub fn answer(&self, cmd: &RemotingCommand, limits: &Limits, out: &mut Outbox) -> FastPath {
        if cmd.is_response() || cmd.request_code() != RequestCode::GetRouteInfoByTopic {
            return FastPath::Forward;
        }
        let Ok(Request::GetRouteInfo(query)) = Request::parse(cmd, limits) else { return FastPath::Forward };
        self.answer_route(&RouteRequest { opaque: cmd.opaque, oneway: cmd.is_oneway(), query: query.query() }, out)
    }

    /// [`Self::answer`] for a route query read straight from its frame
    /// ([`codec::route_request`]: nothing decoded into a command, nothing allocated).
    pub fn answer_route(&self, request: &RouteRequest<'_>, out: &mut Outbox) -> FastPath {
        let Ok(reply) = route_reply(&self, request.oneway, &request.query) else { return FastPath::Forward };
        let encoded = match reply {
            RouteReply::Nothing => return FastPath::Answered(None),
            // Nearly every reply: its header written from the template, not encoded anew, and
            // its body shared with the cache when large.
            RouteReply::Found { route, style } => route
                .with_body(style, |body| match &FOUND_HEAD.template {
                    Some(head) => {
                        head.encode_head(request.opaque, body.len(), out.bytes_mut()).map(|()| out.push_body(body))
                    }
                    None => codec::encode_with_body(&found_head(request.opaque), body, out.bytes_mut()),
                })
                .map(|()| FOUND_HEAD.code),
            reply => match reply.head(request.opaque, request.query.topic) {
                Some(head) => codec::encode(&head, out.bytes_mut()).map(|()| head.response_code()),
                None => return FastPath::Answered(None),
            },
        };
        // A reply too large to encode is the owner's to report, as for every other request.
        match encoded {
            Ok(code) => FastPath::Answered(Some(code)),
            Err(_) => FastPath::Forward,
        }
    }
}

/// The header of a route query's reply that found a route (`opaque` aside, the same for every
/// query), as the core's [`RouteReply::head`] makes it.
fn found_head(opaque: i32) -> RemotingCommand {
    let found = RouteReply::Found { route: (), style: JsonStyle::Plain };
    found.head(opaque, "").unwrap_or_else(|| RemotingCommand::response(opaque, ResponseCode::Success))
}

/// [`found_head`] encoded once, and its response code.
static FOUND_HEAD: LazyLock<FoundHead> = LazyLock::new(|| {
    let head = found_head(0);
    FoundHead { template: codec::HeadTemplate::new(&head), code: head.response_code() }
});

/// [`FOUND_HEAD`]: the template (`None` if the header cannot have one) and the reply's code.
struct FoundHead {
    template: Option<codec::HeadTemplate>,
    code: ResponseCode,
}

/// What only the owner can decide: whether a NameServer not yet serving routes is still
/// waiting (the snapshot's clock stopped at its publication), and zone-filtered routes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnerDecides;

impl<'a> RouteSource for &'a RouteSnapshot {
    type Route = RouteRef<'a>;
    type Unanswerable = OwnerDecides;

    fn serving(&self) -> Result<bool, OwnerDecides> {
        if self.serving { Ok(true) } else { Err(OwnerDecides) }
    }

    fn route(&self, topic: &str) -> Option<RouteRef<'a>> {
        let &snapshot = self;
        let (groups, cache) = (&*snapshot.groups, &snapshot.cache);
        snapshot.routes.get(topic).map(|bodies| RouteRef { bodies, groups, cache })
    }

    fn zone_route(&self, _topic: &str, _zone: &str) -> Result<Option<RouteRef<'a>>, OwnerDecides> {
        Err(OwnerDecides)
    }
}

/// The route bodies of one state of the tables, made once per shape. Topics are grouped by
/// [`ShapeKey`] first (one hash of a few words per topic, most topics sharing their queue
/// list), and each new key by its whole [`RouteShape`].
struct Shapes<'a> {
    ns: &'a NameServer,
    by_key: HashMap<ShapeKey<'a>, Option<Arc<RouteBodies>>, RandomState>,
    by_shape: HashMap<RouteShape<'a>, Option<Arc<RouteBodies>>, RandomState>,
}

/// The most topics [`Shapes`] makes room for up front.
const SHAPES_ROOM: usize = 1 << 14;

impl<'a> Shapes<'a> {
    /// For `topics` changed topics: with every route different each is a shape of its own,
    /// and growing the maps one doubling at a time cost more than filling them.
    fn new(ns: &'a NameServer, topics: usize) -> Self {
        let room = topics.min(SHAPES_ROOM);
        Self {
            ns,
            by_key: HashMap::with_capacity_and_hasher(room, RandomState::default()),
            by_shape: HashMap::with_capacity_and_hasher(room, RandomState::default()),
        }
    }

    /// The bodies of a topic of `shape`; `None` when it has no route (TOPIC_NOT_EXIST).
    fn bodies(&mut self, shape: Option<RouteShape<'a>>) -> Option<Arc<RouteBodies>> {
        let ns = self.ns;
        let shape = shape?;
        if let Some(bodies) = self.by_key.get(&shape.key()) {
            return bodies.clone();
        }
        let bodies = self
            .by_shape
            .entry(shape)
            .or_insert_with(|| ns.route_recipe(shape).map(|recipe| Arc::new(RouteBodies::new(recipe))))
            .clone();
        self.by_key.insert(shape.key(), bodies.clone());
        bodies
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nameserver_core::protocol::body::QueueData;
    use nameserver_core::route::TopicQueues;

    #[test]
    fn bodies_get_slots_only_when_asked_for() {
        let cache = RouteCache::new(1 << 20);
        let recipe = || RouteRecipe::of_queues(TopicQueues::one(QueueData::default()));
        // A registration replaces the bodies of every route it changes: those never asked for
        // are dropped without a slot.
        let unasked = Arc::new(RouteBodies::new(recipe()));
        assert!(unasked.slots.get().is_none());
        drop(unasked);

        let asked = Arc::new(RouteBodies::new(recipe()));
        let len = cache.with_body(&asked, JsonStyle::Standard, || b"{}".to_vec(), |body| body.len());
        assert_eq!(len, 2);
        assert!(asked.slot(JsonStyle::Standard).is_some());
        assert_eq!(cache.stats().bodies, 1);
        drop(asked);
        assert_eq!(cache.stats().bodies, 0, "a dropped route's body leaves the cache");
    }
}
