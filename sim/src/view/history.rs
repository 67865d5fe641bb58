//! The logs and records of a run as the page shows them: trace lines, finished sends,
//! faults, measurements, stale windows and branches.

use alloc::borrow::ToOwned;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use core::time::Duration;

use serde::Serialize;

use crate::scenario::text::action_text;
use crate::{
    Failure, FaultMeasurement, FaultRecord, NodeId, Operands, SendOutcome, SendRecord, Sim, Timeline, TraceEntry,
};

/// One trace line: time, node, kind and RocketMQ's log wording.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TraceEvent {
    /// Its place in the trace.
    pub seq: u64,
    /// When (ms).
    pub at: u64,
    /// The node that wrote it.
    pub node: String,
    /// Its [`TraceKind`](crate::TraceKind) name.
    #[cfg_attr(feature = "ts", ts(type = "TraceKind"))]
    pub kind: &'static str,
    /// The line.
    pub text: String,
    /// The numbers of the rule that decided it, as the core gave them (absent: no rule).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub operands: Option<RuleOperands>,
}

impl TraceEvent {
    /// `e` with its node named.
    #[must_use]
    pub fn of(sim: &Sim, e: &TraceEntry) -> Self {
        Self {
            seq: e.seq(),
            at: e.at().as_millis(),
            node: sim.directory().name(e.node()).to_owned(),
            kind: e.kind().name(),
            text: e.text().to_owned(),
            operands: e.operands().map(RuleOperands::from),
        }
    }
}

/// A rule's operands ([`Operands`]) as the page reads them: times in milliseconds, `rule`
/// naming which.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "rule", rename_all = "kebab-case", rename_all_fields = "camelCase")]
pub enum RuleOperands {
    /// A broker registered: removable after `deadline` = `lastUpdate + timeoutMs`.
    Registered {
        /// This registration (ms).
        last_update: u64,
        /// Its timeout (ms).
        timeout_ms: u64,
        /// When its removal clock runs out (ms).
        deadline: u64,
    },
    /// A scan's expiry: `lastUpdate + timeoutMs` (= `deadline`) `< now`.
    Expired {
        /// The last registration or heartbeat (ms).
        last_update: u64,
        /// The timeout (ms).
        timeout_ms: u64,
        /// `lastUpdate + timeoutMs` (ms).
        deadline: u64,
        /// When the scan ran (ms).
        now: u64,
    },
    /// An idle close: `lastIo + idleMs` (= `deadline`) `<= now`.
    IdleClose {
        /// The connection's last read or write (ms).
        last_io: u64,
        /// The idle time (ms).
        idle_ms: u64,
        /// `lastIo + idleMs` (ms).
        deadline: u64,
        /// When it was closed (ms).
        now: u64,
    },
    /// A route answer listing `groups` broker groups.
    Route {
        /// How many broker groups it listed.
        groups: u32,
    },
    /// A route answer of TOPIC_NOT_EXIST.
    TopicNotExist,
}

impl From<Operands> for RuleOperands {
    fn from(o: Operands) -> Self {
        match o {
            Operands::Registered { last_update, timeout_ms, deadline } => {
                Self::Registered { last_update: last_update.as_millis(), timeout_ms, deadline: deadline.as_millis() }
            }
            Operands::Expired { last_update, timeout_ms, now } => Self::Expired {
                last_update: last_update.as_millis(),
                timeout_ms,
                deadline: (last_update + Duration::from_millis(timeout_ms)).as_millis(),
                now: now.as_millis(),
            },
            Operands::IdleClose { last_io, idle_ms, now } => Self::IdleClose {
                last_io: last_io.as_millis(),
                idle_ms,
                deadline: (last_io + Duration::from_millis(idle_ms)).as_millis(),
                now: now.as_millis(),
            },
            Operands::Route { groups } => Self::Route { groups },
            Operands::TopicNotExist => Self::TopicNotExist,
        }
    }
}

/// One attempt of a send.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SendAttemptInfo {
    /// The broker group it went to.
    pub broker: String,
    /// When (ms).
    pub at: u64,
    /// `connect-failed`, `closed` or `timeout`; `None`: it succeeded.
    #[cfg_attr(feature = "ts", ts(type = "\"connect-failed\" | \"closed\" | \"timeout\" | null"))]
    pub failure: Option<&'static str>,
}

/// A finished send with its attempts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SendInfo {
    /// The producer.
    pub producer: String,
    /// The producer's send number.
    pub id: u64,
    /// When it started (ms).
    pub started: u64,
    /// When it finished (ms).
    pub finished: u64,
    /// `ok`, `failed` or `indeterminate`.
    #[cfg_attr(feature = "ts", ts(type = "\"ok\" | \"failed\" | \"indeterminate\""))]
    pub outcome: &'static str,
    /// Each attempt, in order.
    pub attempts: Vec<SendAttemptInfo>,
}

impl SendInfo {
    /// `s` with its producer and brokers named.
    #[must_use]
    pub fn of(sim: &Sim, s: &SendRecord) -> Self {
        Self {
            producer: sim.directory().name(s.producer()).to_owned(),
            id: s.id(),
            started: s.started().as_millis(),
            finished: s.finished().as_millis(),
            outcome: match s.outcome() {
                SendOutcome::Ok => "ok",
                SendOutcome::Failed => "failed",
                SendOutcome::Indeterminate => "indeterminate",
            },
            attempts: s
                .attempts()
                .iter()
                .map(|a| SendAttemptInfo {
                    broker: sim.directory().group_name(a.group()).to_string(),
                    at: a.at().as_millis(),
                    failure: a.failure().map(|f| match f {
                        Failure::ConnectFailed => "connect-failed",
                        Failure::Closed => "closed",
                        Failure::Timeout => "timeout",
                    }),
                })
                .collect(),
        }
    }
}

/// A fault injected (or scripted): when, the action as the script writes it, and the node it
/// names first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FaultInfo {
    /// When (ms).
    pub at: u64,
    /// The action, e.g. `kill broker-b`.
    pub action: String,
    /// The node it names first.
    pub target: Option<String>,
}

impl FaultInfo {
    /// `f` with its target named.
    #[must_use]
    pub fn of(sim: &Sim, f: &FaultRecord) -> Self {
        Self {
            at: f.at().as_millis(),
            action: action_text(f.action()),
            target: f.target().map(|t| sim.directory().name(t).to_owned()),
        }
    }
}

/// What a fault did: when each NameServer removed the broker, when each client's route
/// changed, and the sends it affected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Measurement {
    /// When the fault happened (ms).
    pub at: u64,
    /// The action.
    pub action: String,
    /// The node it names first.
    pub target: Option<String>,
    /// Each NameServer and when it removed the broker (`None`: not yet).
    pub ns_removal: Vec<(String, Option<u64>)>,
    /// Each client and when its route changed (`None`: not yet).
    pub client_update: Vec<(String, Option<u64>)>,
    /// Send attempts since the fault.
    pub attempts: u32,
    /// Of which failed.
    pub failed_attempts: u32,
    /// Sends that failed.
    pub sends_failed: u32,
    /// Sends that succeeded after a retry.
    pub sends_retried: u32,
    /// Sends whose outcome the producer cannot know.
    pub sends_indeterminate: u32,
}

impl Measurement {
    /// `m` with its nodes named.
    #[must_use]
    pub fn of(sim: &Sim, m: &FaultMeasurement) -> Self {
        let name = |n: NodeId| sim.directory().name(n).to_owned();
        Self {
            at: m.at().as_millis(),
            action: m.action().to_owned(),
            target: m.target().map(name),
            ns_removal: m.ns_removal().iter().map(|&(n, t)| (name(n), t.map(|t| t.as_millis()))).collect(),
            client_update: m.client_update().iter().map(|&(n, t)| (name(n), t.map(|t| t.as_millis()))).collect(),
            attempts: m.attempts(),
            failed_attempts: m.failed_attempts(),
            sends_failed: m.sends_failed(),
            sends_retried: m.sends_retried(),
            sends_indeterminate: m.sends_indeterminate(),
        }
    }
}

/// An interval in which a client's route differed from its NameServer's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct StaleWindow {
    /// The client.
    pub client: String,
    /// From (ms).
    pub from: u64,
    /// To (ms); `None`: still stale.
    pub to: Option<u64>,
}

impl StaleWindow {
    /// `w` with its client named.
    #[must_use]
    pub fn of(sim: &Sim, w: &crate::observe::StaleWindow) -> Self {
        Self {
            client: sim.directory().name(w.client()).to_owned(),
            from: w.from().as_millis(),
            to: w.to().map(|t| t.as_millis()),
        }
    }
}

/// A branch of the time machine; `dropped`/`kept`: how many actions injected on its parent
/// after the fork point it dropped or kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BranchInfo {
    /// Its id.
    pub id: usize,
    /// Its label.
    pub label: String,
    /// The branch it forked from.
    pub parent: Option<usize>,
    /// When it forked (ms).
    pub fork_at: Option<u64>,
    /// How far it has run (ms).
    pub head: u64,
    /// Whether it is the one shown.
    pub current: bool,
    /// Actions injected on the parent later than the fork, dropped.
    pub dropped: usize,
    /// The same, kept.
    pub kept: usize,
}

impl BranchInfo {
    /// Every branch of `timeline`.
    #[must_use]
    pub fn all(timeline: &Timeline) -> Vec<Self> {
        let current = timeline.current_branch();
        timeline
            .branches()
            .iter()
            .map(|b| Self {
                id: b.id(),
                label: timeline.label(b.id()),
                parent: b.parent().map(|p| p.0),
                fork_at: b.parent().map(|p| p.1.as_millis()),
                head: b.head().as_millis(),
                current: b.id() == current,
                dropped: b.dropped(),
                kept: b.kept(),
            })
            .collect()
    }
}
