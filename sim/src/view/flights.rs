//! Messages as the page shows them: what is on the wire now, and what was put on it.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use nameserver_core::protocol::{RequestCode, ResponseCode};
use serde::Serialize;

use crate::{Category, Flight, Frame, NodeId, NodeState, Payload, Sim, WireRecord, WireType};

/// A message on the wire now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FlightInfo {
    /// Its id (scripts drop or delay it by this id).
    pub id: u64,
    /// Sender.
    pub from: String,
    /// Receiver.
    pub to: String,
    /// Sent at (ms).
    pub sent_at: u64,
    /// Arrives at (ms).
    pub arrive_at: u64,
    /// Its [`Category`](crate::Category) name.
    #[cfg_attr(feature = "ts", ts(type = "MessageCategory"))]
    pub category: &'static str,
    /// Whether it is an answer.
    pub response: bool,
    /// One-line description.
    pub summary: String,
    /// Whether it waits at a frozen receiver.
    pub held: bool,
}

impl FlightInfo {
    /// Every message on the wire now.
    #[must_use]
    pub fn all(sim: &Sim) -> Vec<Self> {
        let name = |n: NodeId| sim.directory().name(n).to_owned();
        sim.net()
            .flights()
            .values()
            .map(|f| {
                let record = wire_record(sim, f);
                let (category, summary) = match f.payload() {
                    Payload::Fin => (Category::Close, String::from("FIN (connection closed)")),
                    Payload::Rst => (Category::Reset, String::from("RST (connection refused or reset)")),
                    Payload::Frame(frame) => {
                        let answers = record.map(WireRecord::what).filter(|w| matches!(w, WireType::Command(_)));
                        (record.map_or(Category::Other, WireRecord::category), summary(frame, answers))
                    }
                };
                let held =
                    sim.nodes()[usize::from(f.to().0)].state() == NodeState::Frozen && f.arrive_at() <= sim.now();
                Self {
                    id: f.id(),
                    from: name(f.from()),
                    to: name(f.to()),
                    sent_at: f.sent_at().as_millis(),
                    arrive_at: f.arrive_at().as_millis(),
                    category: category.name(),
                    response: f.label.as_ref().is_some_and(|l| l.response),
                    summary,
                    held,
                }
            })
            .collect()
    }
}

/// The wire log's record of a flight (the log is in sending order).
fn wire_record<'s>(sim: &'s Sim, flight: &Flight) -> Option<&'s WireRecord> {
    let wire = sim.history().wire();
    let first = wire.partition_point(|r| r.sent_at() < flight.sent_at());
    wire[first..]
        .iter()
        .take_while(|r| r.sent_at() == flight.sent_at())
        .find(|r| r.id().is_some_and(|id| id.get() == flight.id()))
}

/// One line describing a frame on the wire, as its receiver reads it; an answer names the
/// request it answers when that is known.
fn summary(frame: &Frame, answers: Option<WireType>) -> String {
    let Some(cmd) = frame.command() else {
        return String::from("frame");
    };
    if cmd.is_response() {
        let name = response_name(cmd.response_code());
        return match answers {
            Some(what) => alloc::format!("{name} ({})", what.name()),
            None => String::from(name),
        };
    }
    let code = cmd.request_code();
    let name = code.java_name().unwrap_or("UNKNOWN");
    let detail = match code {
        RequestCode::RegisterBroker | RequestCode::UnregisterBroker => cmd.field("brokerName"),
        RequestCode::GetRouteInfoByTopic | RequestCode::SendMessage | RequestCode::PullMessage => cmd.field("topic"),
        _ => None,
    };
    detail.map_or_else(|| String::from(name), |d| alloc::format!("{name} {d}"))
}

fn response_name(code: ResponseCode) -> &'static str {
    match code {
        ResponseCode::Success => "SUCCESS",
        ResponseCode::SystemError => "SYSTEM_ERROR",
        ResponseCode::TopicNotExist => "TOPIC_NOT_EXIST",
        ResponseCode::PullNotFound => "PULL_NOT_FOUND",
        ResponseCode::QueryNotFound => "QUERY_NOT_FOUND",
        ResponseCode::NoPermission => "NO_PERMISSION",
        ResponseCode::RequestCodeNotSupported => "REQUEST_CODE_NOT_SUPPORTED",
        _ => "ERROR",
    }
}

/// A message put on the wire, as it was sent. `id` is its flight id, or `None` when a cut
/// link swallowed it; `what` (`type` in JSON) is the request code's Java name (for an answer,
/// the request it answers), `FIN` or `RST`; `lost`: the network will not deliver it as sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WireEvent {
    /// Its flight id.
    pub id: Option<u64>,
    /// Sender.
    pub from: String,
    /// Receiver.
    pub to: String,
    /// Sent at (ms).
    pub sent_at: u64,
    /// When it arrives (or would have, at the base latency).
    pub arrive_at: u64,
    /// Its [`Category`](crate::Category) name.
    #[cfg_attr(feature = "ts", ts(type = "MessageCategory"))]
    pub category: &'static str,
    /// Whether it is an answer.
    pub response: bool,
    /// What it is.
    #[serde(rename = "type")]
    pub what: &'static str,
    /// Whether the network loses it.
    pub lost: bool,
}

impl WireEvent {
    /// `r` with its nodes named.
    #[must_use]
    pub fn of(sim: &Sim, r: &WireRecord) -> Self {
        let name = |n: NodeId| sim.directory().name(n).to_owned();
        Self {
            id: r.id().map(core::num::NonZeroU64::get),
            from: name(r.from()),
            to: name(r.to()),
            sent_at: r.sent_at().as_millis(),
            arrive_at: r.arrive_at().as_millis(),
            category: r.category().name(),
            response: r.response(),
            what: r.what().name(),
            lost: r.lost(),
        }
    }
}
