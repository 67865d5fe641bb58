//! The route queries a connection answered from their frames in one batch, counted and timed
//! together.

use crate::observe::Observer;

/// GET_ROUTEINFO_BY_TOPIC.
pub(super) const ROUTE_QUERY: i32 = 105;

/// The route queries of one batch answered from their frames, reported together
/// (`Session::report_routes_answered`): each is measured from the batch's first read to the
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
    pub(super) fn started(&mut self, observe: &Observer) -> Option<std::time::Instant> {
        *self.started.get_or_insert_with(|| observe.start())
    }

    /// One more query answered with `response`.
    pub(super) fn answered(&mut self, conn: nameserver_core::ConnId, observe: &Observer, response: Option<i32>) {
        if let Some((_, count)) = self.answers[..self.len].iter_mut().find(|(code, _)| *code == response) {
            *count += 1;
        } else {
            if self.len == self.answers.len() {
                // A fourth code in one batch: report those so far under the same start.
                let started = self.started;
                std::mem::replace(self, Self { started, ..Self::default() }).report(conn, observe);
            }
            self.answers[self.len] = (response, 1);
            self.len += 1;
        }
        self.read += 1;
    }

    pub(super) fn report(self, conn: nameserver_core::ConnId, observe: &Observer) {
        if self.read == 0 {
            return;
        }
        observe.traffic.read_many(conn, ROUTE_QUERY, self.read);
        let elapsed = self.started.flatten().map(|started| started.elapsed());
        for &(response, count) in &self.answers[..self.len] {
            observe.routes_answered(conn, response, count, elapsed);
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
