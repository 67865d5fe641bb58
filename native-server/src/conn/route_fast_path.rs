//! The route fast path: a connection task answers GET_ROUTEINFO_BY_TOPIC from the latest
//! [`RouteSnapshot`](crate::snapshot::RouteSnapshot), without the owner, the bulk of all
//! traffic. A query is read straight from its frame when nothing is checked (no
//! `--acl-file`, `--auth` or `--allow-from`), else decoded and checked first
//! ([`Session::dispatch`]). Either way, while the connection has requests at the owner its
//! route queries go there too, so a connection sees its own earlier writes; and the snapshot
//! leaves to the owner what it cannot know (`RouteSnapshot::answer`).

use nameserver_core::codec;
use nameserver_core::protocol::RemotingCommand;

use super::Session;
use super::route_tally::ROUTE_QUERY;
use crate::snapshot::FastPath;

impl Session {
    /// Answers the route query that is the buffer's first frame (`len` bytes) straight from
    /// its bytes, as [`Self::dispatch`] would answer it decoded, when nothing else could be
    /// owed first: no check to make (open auth), no GO_AWAY to send, no earlier request of
    /// this connection still with the owner. `false`: not answered, decode it.
    pub(super) fn answered_from_frame(&mut self, len: usize) -> bool {
        if self.owner_pending > 0 || !self.shared.auth.is_open() || self.shared.going_away.has_begun() {
            return false;
        }
        let Some(routes) = &self.shared.routes else { return false };
        let Some(request) = codec::route_request(&self.inbuf[..len]) else { return false };
        let observe = &self.shared.observe;
        if request.oneway {
            observe.traffic.read(self.conn, ROUTE_QUERY);
            observe.oneway_read_dropped();
            return true;
        }
        let at = self.tally.started(observe);
        let FastPath::Answered(response) = routes.load().answer_route(&request, &mut self.out) else {
            return false;
        };
        if let Some(at) = at {
            observe.route_sample(self.conn, request.query.topic, at);
        }
        self.tally.answered(self.conn, observe, response.map(i32::from));
        true
    }

    /// Counts and measures the route queries [`Self::answered_from_frame`] answered since the
    /// last call: once per batch read, not once per query (two clock reads and a few shared
    /// counters each, a tenth of what answering one costs).
    pub(super) fn report_routes_answered(&mut self) {
        std::mem::take(&mut self.tally).report(self.conn, &self.shared.observe);
    }

    /// Answers the decoded route query `cmd` (asked at `at`) from the snapshot, unless the
    /// owner has this connection's earlier requests. `false`: not answered, hand it over.
    pub(super) fn answered_from_snapshot(&mut self, cmd: &RemotingCommand, at: Option<std::time::Instant>) -> bool {
        if self.owner_pending > 0 {
            return false;
        }
        let Some(routes) = &self.shared.routes else { return false };
        let FastPath::Answered(response) = routes.load().answer(cmd, &self.limits, &mut self.out) else {
            return false;
        };
        self.publish_unwritten();
        if let Some(response) = response {
            self.shared.observe.traffic.written(self.conn, response.raw());
        }
        let topic = cmd.field("topic").unwrap_or_default();
        self.shared.observe.route_answered(self.conn, topic, response.map(i32::from), at);
        true
    }
}
