//! What a GET_ROUTEINFO_BY_TOPIC gets, decided in one place for every driver.
//!
//! The handler asks [`route_reply`] with the [`NameServer`] as its [`RouteSource`]; a driver
//! answering from a snapshot of the routes asks it with the snapshot, which may leave to the
//! NameServer what only it knows (the wait for service, zone filtering).

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::vec::Vec;
use core::convert::Infallible;

use super::NameServer;
use crate::json::JsonStyle;
use crate::names::{BrokerAddr, BrokerName};
use crate::protocol::body::TopicRouteData;
use crate::protocol::request::RouteQuery;
use crate::protocol::{RemotingCommand, ResponseCode};

/// Java 5.1.0+'s FAQ link in TOPIC_NOT_EXIST remarks.
pub(super) const FAQ_URL: &str = "https://rocketmq.apache.org/docs/bestPractice/06FAQ";

/// The facts a route reply is made of: the [`NameServer`] itself, or a driver's snapshot of
/// its routes.
pub trait RouteSource {
    /// A topic's route, ready to be written in either JSON style.
    type Route;
    /// Why this source cannot decide a query and the NameServer must
    /// ([`core::convert::Infallible`] for the NameServer itself).
    type Unanswerable;
    /// Whether route queries are answered yet ([`NameServer::serving_routes`]).
    ///
    /// # Errors
    /// When this source cannot tell.
    fn serving(&self) -> Result<bool, Self::Unanswerable>;
    /// `topic`'s route ([`NameServer::route_data`]), `None` when it has none.
    fn route(&self, topic: &str) -> Option<Self::Route>;
    /// `topic`'s route as ZoneRouteRPCHook leaves it for a client in `zone`.
    ///
    /// # Errors
    /// When this source cannot filter by zone.
    fn zone_route(&self, topic: &str, zone: &str) -> Result<Option<Self::Route>, Self::Unanswerable>;
}

/// What a route query gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouteReply<R> {
    /// Nothing: the query is oneway.
    Nothing,
    /// SYSTEM_ERROR "name server not ready" (`needWaitForService`, still waiting).
    NotReady,
    /// SUCCESS with `route` written in `style`.
    Found {
        /// The route.
        route: R,
        /// The JSON style of the body.
        style: JsonStyle,
    },
    /// TOPIC_NOT_EXIST with Java 5.1+'s remark.
    TopicNotExist,
}

/// Decides the reply to `query` (sent `oneway` or not) from `source`. The rules, in
/// Java's order: not serving yet; the zone filter (plain JSON whatever the client version, a
/// quirk of the Java server, kept); the client's JSON style; oneway; a missing topic.
///
/// # Errors
/// When `source` cannot supply a fact the reply depends on.
pub fn route_reply<S: RouteSource + ?Sized>(
    source: &S,
    oneway: bool,
    query: &RouteQuery<'_>,
) -> Result<RouteReply<S::Route>, S::Unanswerable> {
    if !source.serving()? {
        return Ok(RouteReply::NotReady);
    }
    let (route, style) = match query.zone {
        Some(zone) => (source.zone_route(query.topic, zone)?, JsonStyle::Plain),
        None => (source.route(query.topic), if query.standard_json { JsonStyle::Standard } else { JsonStyle::Plain }),
    };
    if oneway {
        return Ok(RouteReply::Nothing);
    }
    Ok(match route {
        Some(route) => RouteReply::Found { route, style },
        None => RouteReply::TopicNotExist,
    })
}

impl<R> RouteReply<R> {
    /// The reply to the request of `opaque` (a query for `topic`) without its body, which a
    /// [`RouteReply::Found`] gets from its route; `None` for [`RouteReply::Nothing`].
    #[must_use]
    pub fn head(&self, opaque: i32, topic: &str) -> Option<RemotingCommand> {
        Some(match self {
            Self::Nothing => return None,
            Self::NotReady => {
                RemotingCommand::response(opaque, ResponseCode::SystemError).with_remark("name server not ready")
            }
            Self::Found { .. } => RemotingCommand::response(opaque, ResponseCode::Success),
            Self::TopicNotExist => RemotingCommand::response(opaque, ResponseCode::TopicNotExist).with_remark(format!(
                "No topic route info in name server for the topic: {topic}\nSee {FAQ_URL} for further details."
            )),
        })
    }
}

impl RouteSource for NameServer {
    type Route = TopicRouteData;
    type Unanswerable = Infallible;

    fn serving(&self) -> Result<bool, Infallible> {
        Ok(self.serving_routes())
    }

    fn route(&self, topic: &str) -> Option<TopicRouteData> {
        self.route_data(self.routes().topic_queue_table().get_key_value(topic)?.0)
    }

    /// ZoneRouteRPCHook: keep groups without a master or in the zone.
    fn zone_route(&self, topic: &str, zone: &str) -> Result<Option<TopicRouteData>, Infallible> {
        let Some(mut route) = self.route(topic) else { return Ok(None) };
        let mut dropped: BTreeSet<BrokerName> = BTreeSet::new();
        let mut dropped_addrs: Vec<BrokerAddr> = Vec::new();
        route.broker_datas.retain(|data| {
            let keep =
                data.master_addr().is_none() || data.zone_name.as_deref().is_some_and(|z| z.eq_ignore_ascii_case(zone));
            if !keep {
                dropped.insert(data.broker_name.clone());
                dropped_addrs.extend(data.broker_addrs.values().cloned());
            }
            keep
        });
        route.queue_datas.retain(|q| !dropped.contains(&q.broker_name));
        for addr in &dropped_addrs {
            route.filter_server_table.remove(addr.as_str());
        }
        Ok(Some(route))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::RequestCode;

    /// A source that knows routes but, like a snapshot, may not know the rest.
    struct Partial {
        serving: Option<bool>,
        zones: bool,
    }

    impl RouteSource for Partial {
        type Route = &'static str;
        type Unanswerable = ();

        fn serving(&self) -> Result<bool, ()> {
            self.serving.ok_or(())
        }

        fn route(&self, topic: &str) -> Option<&'static str> {
            (topic == "T").then_some("route")
        }

        fn zone_route(&self, topic: &str, _zone: &str) -> Result<Option<&'static str>, ()> {
            if self.zones { Ok(self.route(topic).map(|_| "zone route")) } else { Err(()) }
        }
    }

    fn query<'a>(topic: &'a str, standard_json: bool, zone: Option<&'a str>) -> RouteQuery<'a> {
        RouteQuery { topic, standard_json, zone }
    }

    #[test]
    fn rules_apply_in_javas_order() {
        let full = Partial { serving: Some(true), zones: true };
        let found = |route, style| Ok(RouteReply::Found { route, style });
        assert_eq!(route_reply(&full, false, &query("T", true, None)), found("route", JsonStyle::Standard));
        assert_eq!(route_reply(&full, false, &query("T", false, None)), found("route", JsonStyle::Plain));
        // Zone-filtered routes are plain JSON whatever the client asked for.
        assert_eq!(route_reply(&full, false, &query("T", true, Some("z"))), found("zone route", JsonStyle::Plain));
        assert_eq!(route_reply(&full, false, &query("X", true, None)), Ok(RouteReply::TopicNotExist));
        assert_eq!(route_reply(&full, true, &query("X", true, None)), Ok(RouteReply::Nothing));
        // Not serving comes first, even before a zone the source cannot filter by.
        let waiting = Partial { serving: Some(false), zones: false };
        assert_eq!(route_reply(&waiting, false, &query("T", true, Some("z"))), Ok(RouteReply::NotReady));
        // What the source cannot tell is never guessed, oneway or not.
        let snapshot = Partial { serving: Some(true), zones: false };
        assert_eq!(route_reply(&snapshot, true, &query("T", true, Some("z"))), Err(()));
        assert_eq!(route_reply(&Partial { serving: None, zones: true }, false, &query("T", true, None)), Err(()));
    }

    #[test]
    fn heads_carry_javas_codes_and_remarks() {
        let mut request = RemotingCommand::request(RequestCode::GetRouteInfoByTopic);
        request.opaque = 9;
        let head = |reply: RouteReply<()>| reply.head(request.opaque, "T");
        let not_ready = head(RouteReply::NotReady).unwrap();
        assert_eq!(
            (not_ready.response_code(), not_ready.remark.as_deref()),
            (ResponseCode::SystemError, Some("name server not ready"))
        );
        let missing = head(RouteReply::TopicNotExist).unwrap();
        assert_eq!(missing.response_code(), ResponseCode::TopicNotExist);
        assert!(
            missing.remark.as_deref().unwrap().starts_with("No topic route info in name server for the topic: T\nSee ")
        );
        assert_eq!(head(RouteReply::Found { route: (), style: JsonStyle::Plain }).unwrap().opaque, 9);
        assert_eq!(head(RouteReply::Nothing), None);
    }
}
