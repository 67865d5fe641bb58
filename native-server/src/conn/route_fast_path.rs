//! The route fast path: a connection task answers GET_ROUTEINFO_BY_TOPIC from the latest
//! [`RouteSnapshot`](crate::snapshot::RouteSnapshot), without the owner, the bulk of all
//! traffic. A query is read straight from its frame when nothing is checked (no
//! `--acl-file`, `--auth` or `--allow-from`), else decoded and checked first
//! ([`Session::dispatch`]). Either way, while the connection has requests at the owner its
//! route queries go there too, so a connection sees its own earlier writes; and the snapshot
//! leaves to the owner what it cannot know (`RouteSnapshot::answer`).

use nameserver_core::codec;
use nameserver_core::protocol::RemotingCommand;

use super::{ROUTE_QUERY, Session};
use crate::observe::Observer;
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

/// The route queries of one batch answered from their frames, reported together
/// ([`Session::report_routes_answered`]): each is measured from the batch's first read to the
/// report, which is when its reply is ready to be written.
#[derive(Debug, Default)]
pub(super) struct RouteTally {
    /// When the batch's first query was read (`None` inside: nobody measures).
    started: Option<Option<std::time::Instant>>,
    /// Queries read and answered.
    read: u64,
    /// Answers by response code, in the order the codes first came (a route query gets one of
    /// a few); `len` of them in use.
    answers: [(Option<i32>, u64); 3],
    len: usize,
}

impl RouteTally {
    /// When the batch began, taking the time at its first query.
    fn started(&mut self, observe: &Observer) -> Option<std::time::Instant> {
        *self.started.get_or_insert_with(|| observe.start())
    }

    /// One more query answered with `response`.
    fn answered(&mut self, conn: nameserver_core::ConnId, observe: &Observer, response: Option<i32>) {
        self.read += 1;
        if let Some((_, count)) = self.answers[..self.len].iter_mut().find(|(code, _)| *code == response) {
            *count += 1;
            return;
        }
        if self.len == self.answers.len() {
            // A fourth code in one batch: report the rest so far under the same start.
            let started = self.started;
            let mut rest = std::mem::replace(self, Self { started, read: 1, ..Self::default() });
            rest.read -= 1;
            rest.report(conn, observe);
        }
        self.answers[self.len] = (response, 1);
        self.len += 1;
    }

    fn report(self, conn: nameserver_core::ConnId, observe: &Observer) {
        if self.read == 0 {
            return;
        }
        observe.traffic.read_many(conn, ROUTE_QUERY, self.read);
        let started = self.started.flatten();
        for &(response, count) in &self.answers[..self.len] {
            observe.routes_answered(conn, response, count, started);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use nameserver_core::ConnId;
    use nameserver_core::protocol::{RequestCode, ResponseCode};

    use super::*;

    #[test]
    fn a_batch_counts_every_answer_under_its_code_however_many_codes_it_sees() {
        let routes = Arc::new(arc_swap::ArcSwap::from_pointee(crate::snapshot::RouteSnapshot::empty()));
        let observe = Observer::new(true, routes, crate::clock::Clock::start(), None, Vec::new());
        let conn = ConnId(7);
        let mut tally = RouteTally::default();
        assert!(tally.started(&observe).is_some(), "measured when the console is on");
        // Five codes, more than the tally holds at once.
        for code in [0, 17, 0, 1, 2, 17, 3, 0] {
            tally.answered(conn, &observe, Some(code));
        }
        tally.report(conn, &observe);
        let slot = RequestCode::KNOWN.iter().position(|known| known.raw() == ROUTE_QUERY).unwrap();
        let totals = observe.metrics.totals(slot);
        assert_eq!(totals.count, 8);
        let of = |code: i32| ResponseCode::KNOWN.iter().position(|known| known.raw() == code).unwrap();
        assert_eq!((totals.responses[of(0)], totals.responses[of(17)]), (3, 2));
        assert_eq!(totals.responses.iter().sum::<u64>(), 8);

        RouteTally::default().report(conn, &observe);
        assert_eq!(observe.metrics.totals(slot).count, 8, "an empty batch reports nothing");
    }
}
