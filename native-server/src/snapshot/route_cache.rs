//! The route bodies built so far, bounded by bytes (`--route-cache-bytes`).
//!
//! A snapshot holds what each route is built from; its body in a JSON style is built on the
//! first query for it after a change, on the querying connection, and kept in that route's
//! [`Slot`] for the next queries. Every body kept counts against one budget shared by all
//! snapshots; past it, bodies are dropped in access order, least recently asked for first,
//! and the next query for one builds it again, byte for byte the same.
//!
//! Access order is tracked the way CLOCK does it (second chance), because an exact LRU list
//! would take a lock on every query, where route queries are the hot path: a query that finds
//! its body only sets the slot's `referenced` bit (and only when it is clear, so a hot route
//! writes nothing); bodies wait in a ring in the order they were built, and eviction takes
//! them from its front, giving each one asked for since it last came round one more turn. A
//! body just built has not been asked for again yet, so a route asked for once (a client
//! walking every topic) does not push out the routes asked for again and again. The lock is
//! taken when a body is built, never when one is found. There is no clock: the order is that
//! of the queries.

use std::collections::VecDeque;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use arc_swap::ArcSwapOption;
use nameserver_core::json::JsonStyle;

use super::RouteBodies;

/// What a kept body costs besides its bytes: the allocation of [`RouteBody`] and its ring entry.
const ENTRY_OVERHEAD: usize = 64;

/// The budget and the ring of built bodies, shared by every snapshot of one daemon.
#[derive(Debug)]
pub(super) struct RouteCache {
    budget: usize,
    /// What the bodies kept in slots cost (a body evicted while a connection still writes it
    /// out is no longer counted: it is freed when written).
    bytes: AtomicUsize,
    /// Bodies kept in slots.
    bodies: AtomicUsize,
    /// Bodies built so far.
    builds: AtomicUsize,
    ring: Mutex<VecDeque<(Weak<RouteBodies>, JsonStyle)>>,
}

/// What the route bodies of a snapshot's line cost now ([`super::RouteSnapshot::cache_stats`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheStats {
    /// What the bodies kept cost (the budget's measure: each body's length plus a fixed
    /// overhead).
    pub bytes: usize,
    /// Bodies kept.
    pub bodies: usize,
    /// Bodies built since the first snapshot.
    pub builds: usize,
}

/// Where one route keeps its body in one style, while the cache keeps it.
#[derive(Debug, Default)]
pub(super) struct Slot {
    body: ArcSwapOption<RouteBody>,
    /// Asked for since eviction last came round to it.
    referenced: AtomicBool,
}

/// One route's body in one JSON style, as built for a query.
#[derive(Debug)]
pub struct RouteBody {
    bytes: Box<[u8]>,
    cache: Arc<RouteCache>,
}

impl RouteCache {
    pub(super) fn new(budget: usize) -> Arc<Self> {
        Arc::new(Self {
            budget,
            bytes: AtomicUsize::new(0),
            bodies: AtomicUsize::new(0),
            builds: AtomicUsize::new(0),
            ring: Mutex::default(),
        })
    }

    pub(super) fn stats(&self) -> CacheStats {
        CacheStats { bytes: self.bytes(), bodies: self.bodies(), builds: self.builds.load(Ordering::Relaxed) }
    }

    fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    fn bodies(&self) -> usize {
        self.bodies.load(Ordering::Relaxed)
    }

    /// Calls `f` with the body of `route` in `style`: the kept one, else one built by `build`
    /// and kept.
    pub(super) fn with_body<R>(
        self: &Arc<Self>,
        route: &Arc<RouteBodies>,
        style: JsonStyle,
        build: impl FnOnce() -> Vec<u8>,
        f: impl FnOnce(&Arc<RouteBody>) -> R,
    ) -> R {
        let slot = route.slot_or_new(style);
        {
            let kept = slot.body.load();
            if let Some(body) = kept.as_ref() {
                if !slot.referenced.load(Ordering::Relaxed) {
                    slot.referenced.store(true, Ordering::Relaxed);
                }
                return f(body);
            }
        }
        let built = Arc::new(RouteBody::new(build(), Arc::clone(self)));
        let before = slot.body.compare_and_swap(&None::<Arc<RouteBody>>, Some(Arc::clone(&built)));
        if let Some(other) = before.as_ref() {
            // Another connection built it meanwhile: answer with the one kept.
            return f(other);
        }
        drop(before);
        self.bytes.fetch_add(built.cost(), Ordering::Relaxed);
        self.bodies.fetch_add(1, Ordering::Relaxed);
        self.keep(route, style);
        f(&built)
    }

    /// Puts a body just kept at the back of the ring, then evicts down to the budget.
    fn keep(&self, route: &Arc<RouteBodies>, style: JsonStyle) {
        let mut ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        ring.push_back((Arc::downgrade(route), style));
        // Entries of routes a change replaced, or of bodies evicted, wait for eviction to
        // reach them; while under budget it never does, so clear them out now and then.
        if ring.len() > 2 * self.bodies() + 64 {
            ring.retain(|(route, style)| {
                route.upgrade().is_some_and(|route| route.slot(*style).is_some_and(Slot::is_kept))
            });
        }
        // Each entry is passed over at most once for being referenced: the loop ends.
        let mut turns = 2 * ring.len();
        while self.bytes() > self.budget && turns > 0 {
            turns -= 1;
            let Some((weak, style)) = ring.pop_front() else { break };
            let Some(route) = weak.upgrade() else { continue };
            let Some(slot) = route.slot(style).filter(|slot| slot.is_kept()) else { continue };
            if slot.referenced.swap(false, Ordering::Relaxed) {
                ring.push_back((weak, style));
            } else {
                slot.drop_body();
            }
        }
    }

    fn forget(&self, body: &RouteBody) {
        self.bytes.fetch_sub(body.cost(), Ordering::Relaxed);
        self.bodies.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Slot {
    fn is_kept(&self) -> bool {
        self.body.load().is_some()
    }

    /// Takes the body out of the cache (eviction, or its route dropped by a change).
    pub(super) fn drop_body(&self) {
        if let Some(body) = self.body.swap(None) {
            body.cache.forget(&body);
        }
    }
}

impl RouteBody {
    fn new(bytes: Vec<u8>, cache: Arc<RouteCache>) -> Self {
        cache.builds.fetch_add(1, Ordering::Relaxed);
        Self { bytes: bytes.into_boxed_slice(), cache }
    }

    fn cost(&self) -> usize {
        self.bytes.len() + ENTRY_OVERHEAD
    }
}

impl Deref for RouteBody {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}
