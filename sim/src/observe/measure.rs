//! Derived measurements: how long each fault took to reach each NameServer and each client,
//! what happened to sends meanwhile, and when clients' routes were stale.
//!
//! Every removal, route update and send is attributed to at most one fault: the latest one at
//! or before it that could have caused it (see [`Sim::measurements`]), so two faults on one
//! broker do not both claim the same removal.

use alloc::string::String;
use alloc::vec::Vec;

use crate::Sim;
use crate::node::trace::NodeId;
use crate::node::{GroupId, Role, SendOutcome};
use crate::scenario::text::action_text;
use crate::scenario::{Action, NodeSpec};
use nameserver_core::time::Instant;

/// What a fault can take away: a broker, from every NameServer or (a link fault) from one peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Reach {
    broker: NodeId,
    peer: Option<NodeId>,
}

/// For one fault: when each NameServer and each client learned of it, and the sends it hit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultMeasurement {
    /// When the fault happened.
    pub(crate) at: Instant,
    /// The action, as the script writes it.
    pub(crate) action: String,
    /// The node it hit.
    pub(crate) target: Option<NodeId>,
    /// For each NameServer: when it removed the target broker (if it did).
    pub(crate) ns_removal: Vec<(NodeId, Option<Instant>)>,
    /// For each client: when its route stopped listing the target broker (if it did).
    pub(crate) client_update: Vec<(NodeId, Option<Instant>)>,
    /// Send attempts to the target's group after the fault.
    pub(crate) attempts: u32,
    /// Of those, the ones that failed.
    pub(crate) failed_attempts: u32,
    /// Sends that failed for good after the fault.
    pub(crate) sends_failed: u32,
    /// Sends that succeeded only after a retry.
    pub(crate) sends_retried: u32,
    /// Sends whose outcome is unknown (an attempt timed out).
    pub(crate) sends_indeterminate: u32,
}

impl FaultMeasurement {
    /// When the fault happened.
    #[must_use]
    pub fn at(&self) -> Instant {
        self.at
    }

    /// The action, as the script writes it.
    #[must_use]
    pub fn action(&self) -> &str {
        &self.action
    }

    /// The node it hit.
    #[must_use]
    pub fn target(&self) -> Option<NodeId> {
        self.target
    }

    /// For each NameServer: when it removed the target broker (if it did).
    #[must_use]
    pub fn ns_removal(&self) -> &[(NodeId, Option<Instant>)] {
        &self.ns_removal
    }

    /// For each client: when its route stopped listing the target broker (if it did).
    #[must_use]
    pub fn client_update(&self) -> &[(NodeId, Option<Instant>)] {
        &self.client_update
    }

    /// Send attempts to the target's group after the fault.
    #[must_use]
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Of those, the ones that failed.
    #[must_use]
    pub fn failed_attempts(&self) -> u32 {
        self.failed_attempts
    }

    /// Sends that failed for good after the fault.
    #[must_use]
    pub fn sends_failed(&self) -> u32 {
        self.sends_failed
    }

    /// Sends that succeeded only after a retry.
    #[must_use]
    pub fn sends_retried(&self) -> u32 {
        self.sends_retried
    }

    /// Sends whose outcome is unknown (an attempt timed out).
    #[must_use]
    pub fn sends_indeterminate(&self) -> u32 {
        self.sends_indeterminate
    }
}

/// An interval in which a client's route differed from its NameServer's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleWindow {
    /// The client.
    pub(crate) client: NodeId,
    /// The start of the measured span.
    pub(crate) from: Instant,
    /// To (`None`: still stale).
    pub(crate) to: Option<Instant>,
}

impl StaleWindow {
    /// The client.
    #[must_use]
    pub fn client(&self) -> NodeId {
        self.client
    }

    /// The start of the measured span.
    #[must_use]
    pub fn from(&self) -> Instant {
        self.from
    }

    /// To (`None`: still stale).
    #[must_use]
    pub fn to(&self) -> Option<Instant> {
        self.to
    }
}

/// Since when `client` has been stale.
#[must_use]
pub fn stale_since(sim: &Sim, client: NodeId) -> Option<Instant> {
    if !sim.is_stale(client) {
        return None;
    }
    sim.history().stale.iter().rev().find(|m| m.client == client && m.stale).map(|m| m.at)
}

/// Every stale window so far.
#[must_use]
pub fn stale_windows(sim: &Sim) -> Vec<StaleWindow> {
    let mut open: Vec<StaleWindow> = Vec::new();
    let mut done = Vec::new();
    for mark in &sim.history().stale {
        if mark.stale {
            open.push(StaleWindow { client: mark.client, from: mark.at, to: None });
        } else if let Some(i) = open.iter().position(|w| w.client == mark.client) {
            let mut w = open.remove(i);
            w.to = Some(mark.at);
            done.push(w);
        }
    }
    done.extend(open);
    done.sort_by_key(|w| (w.from, w.client));
    done
}

/// What `action` can take away, if anything: a broker process fault (shutdown, kill,
/// freeze, power off, restart) reaches that broker everywhere; a cut or reset link with a
/// broker at one end reaches it at the other end only.
fn reach(sim: &Sim, action: &Action) -> Option<Reach> {
    let node = |name: &str| sim.scenario().node_index(name).map(|i| NodeId(i as u16));
    let broker = |id: NodeId| sim.directory().roles[usize::from(id.0)] == Role::Broker;
    match action {
        Action::Shutdown(n) | Action::Kill(n) | Action::Freeze(n) | Action::PowerOff(n) | Action::Restart(n) => {
            node(n).filter(|id| broker(*id)).map(|id| Reach { broker: id, peer: None })
        }
        Action::Cut(a, b) | Action::Reset(a, b) => {
            let (a, b) = (node(a)?, node(b)?);
            match (broker(a), broker(b)) {
                (true, _) => Some(Reach { broker: a, peer: Some(b) }),
                (false, true) => Some(Reach { broker: b, peer: Some(a) }),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The broker an action brings back (unfreeze, heal), which ends the attribution of sends
/// to the fault before it.
fn recovers(sim: &Sim, action: &Action) -> Option<NodeId> {
    let node = |name: &str| sim.scenario().node_index(name).map(|i| NodeId(i as u16));
    let broker = |id: &NodeId| sim.directory().roles[usize::from(id.0)] == Role::Broker;
    match action {
        Action::Unfreeze(n) => node(n).filter(broker),
        Action::Heal(a, b) => node(a).filter(broker).or_else(|| node(b).filter(broker)),
        _ => None,
    }
}

fn group_of(sim: &Sim, broker: NodeId) -> Option<GroupId> {
    match &sim.scenario().nodes[usize::from(broker.0)] {
        NodeSpec::Broker { group, .. } => {
            sim.directory().group(&nameserver_core::names::BrokerName::from(group.as_str()))
        }
        _ => None,
    }
}

/// Measurements for every fault so far.
///
/// A NameServer's removal of a broker is attributed to the latest fault at or before it
/// that could cause it (a process fault on that broker, or a link fault between that
/// broker and that NameServer); a client's route update that stops listing the broker, to
/// the fault of the latest removal of it before the update; a send to a broker group, to
/// the latest fault at or before its start on a broker of that group, unless that broker
/// was brought back (unfreeze, heal) in between. Each fault lists only what is attributed
/// to it.
#[must_use]
pub fn measurements(sim: &Sim) -> Vec<FaultMeasurement> {
    let h = sim.history();
    let reach: Vec<Option<Reach>> = h.faults.iter().map(|f| reach(sim, &f.action)).collect();
    let latest = |at: Instant, could: &dyn Fn(usize) -> bool| {
        h.faults.iter().enumerate().rev().filter(|(_, f)| f.at <= at).map(|(i, _)| i).find(|i| could(*i))
    };
    let removal_cause: Vec<Option<usize>> = h
        .removals
        .iter()
        .map(|r| {
            let broker = *sim.directory().by_addr.get(&r.broker_addr)?;
            latest(r.at, &|i| reach[i].is_some_and(|x| x.broker == broker && x.peer.is_none_or(|p| p == r.ns)))
        })
        .collect();
    let clients: Vec<NodeId> = (0..sim.nodes().len())
        .map(|i| NodeId(i as u16))
        .filter(|id| matches!(sim.directory().roles[usize::from(id.0)], Role::Producer | Role::Consumer))
        .collect();
    // The fault each send is attributed to.
    let send_cause: Vec<Option<usize>> = h
        .sends
        .iter()
        .map(|send| {
            let groups: Vec<GroupId> = send.attempts.iter().map(|a| a.group).collect();
            let concerns =
                |broker: Option<NodeId>| broker.and_then(|b| group_of(sim, b)).is_some_and(|g| groups.contains(&g));
            let i = latest(send.started, &|i| {
                concerns(reach[i].map(|x| x.broker)) || concerns(recovers(sim, &h.faults[i].action))
            })?;
            reach[i].map(|_| i)
        })
        .collect();
    h.faults
        .iter()
        .enumerate()
        .map(|(index, fault)| {
            let broker = reach[index].map(|x| x.broker);
            let addr = broker.map(|b| sim.directory().addr(b));
            let ns_removal = sim
                .directory()
                .nameservers
                .iter()
                .map(|ns| {
                    let at = h
                        .removals
                        .iter()
                        .zip(&removal_cause)
                        .find(|(r, cause)| **cause == Some(index) && r.ns == *ns)
                        .map(|(r, _)| r.at);
                    (*ns, at)
                })
                .collect();
            let client_update = clients
                .iter()
                .map(|client| {
                    let at = addr.and_then(|addr| client_update(sim, *client, addr, index, &removal_cause));
                    (*client, at)
                })
                .collect();
            let mut m = FaultMeasurement {
                at: fault.at,
                action: action_text(&fault.action),
                target: fault.target,
                ns_removal,
                client_update,
                attempts: 0,
                failed_attempts: 0,
                sends_failed: 0,
                sends_retried: 0,
                sends_indeterminate: 0,
            };
            let Some(group) = broker.and_then(|b| group_of(sim, b)) else { return m };
            for (send, _) in h.sends.iter().zip(&send_cause).filter(|(_, cause)| **cause == Some(index)) {
                let hits: Vec<_> = send.attempts.iter().filter(|a| a.group == group).collect();
                m.attempts += hits.len() as u32;
                m.failed_attempts += hits.iter().filter(|a| a.failure.is_some()).count() as u32;
                match send.outcome {
                    SendOutcome::Ok if send.attempts.len() > 1 => m.sends_retried += 1,
                    SendOutcome::Ok => {}
                    SendOutcome::Failed => m.sends_failed += 1,
                    SendOutcome::Indeterminate => m.sends_indeterminate += 1,
                }
            }
            m
        })
        .collect()
}

/// When `client`'s route first stopped listing `addr` because of a removal attributed to
/// fault `fault`: the first update that drops it after such a removal, with no later
/// removal of it (by another fault) in between.
fn client_update(
    sim: &Sim,
    client: NodeId,
    addr: &str,
    fault: usize,
    removal_cause: &[Option<usize>],
) -> Option<Instant> {
    let h = sim.history();
    let mut listed = false;
    for change in h.route_changes.iter().filter(|c| c.client == client) {
        let lists = change.addrs.iter().any(|a| a == addr);
        if listed && !lists {
            let cause = h
                .removals
                .iter()
                .zip(removal_cause)
                .rev()
                .find(|(r, _)| r.broker_addr == addr && r.at <= change.at)
                .and_then(|(_, cause)| *cause);
            if cause == Some(fault) {
                return Some(change.at);
            }
        }
        listed = lists;
    }
    None
}
