//! NameServer nodes: the real [`NameServer`] behind a simulated socket layer that closes idle
//! connections by the core's [`IdleClock`], as the daemon's connection tasks do.

use alloc::collections::BTreeMap;
use alloc::string::ToString;
use alloc::vec::Vec;
use core::time::Duration;

use crate::engine::history::Removal;
use crate::engine::net::Payload;
use crate::engine::queue::{CLASS_NORMAL, Ev};
use crate::node::TimerKind;
use crate::node::operands::Operands;
use crate::node::trace::{NodeId, TraceKind};
use crate::{Actor, Sim};
use nameserver_core::event::Event;
use nameserver_core::names::ConnId;
use nameserver_core::server::{IdleClock, Input, NameServer, Output};

/// A NameServer process: the core state machine plus an idle clock per connection.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NsNode {
    /// The real NameServer.
    pub(crate) ns: NameServer,
    /// Last read or write per open connection.
    pub(crate) idle_clocks: BTreeMap<ConnId, IdleClock>,
}

impl NsNode {
    /// The real NameServer.
    #[must_use]
    pub fn ns(&self) -> &NameServer {
        &self.ns
    }
}

impl NsNode {
    /// Wraps a NameServer.
    #[must_use]
    pub fn new(ns: NameServer) -> Self {
        Self { ns, idle_clocks: BTreeMap::new() }
    }

    /// The period of one of its timers: the scan's.
    #[must_use]
    pub(crate) fn timer_period(&self, kind: TimerKind) -> Option<Duration> {
        (kind == TimerKind::Scan).then(|| self.ns.config().scan_not_active_broker_interval)
    }
}

impl Sim {
    /// Feeds one input to the NameServer on `node` and carries out what it asks for.
    pub(crate) fn ns_input(&mut self, node: NodeId, input: Input) {
        let now = self.now;
        let route_reply = match &input {
            Input::Received { cmd, .. }
                if cmd.request_code() == nameserver_core::protocol::RequestCode::GetRouteInfoByTopic =>
            {
                Some(cmd.opaque)
            }
            _ => None,
        };
        self.stale_dirty = true;
        let Actor::NameServer(ns) = &mut self.node_mut(node).actor else { return };
        ns.ns.handle(now, input);
        let mut outputs = Vec::new();
        while let Some(out) = ns.ns.poll_output() {
            outputs.push(out);
        }
        for out in outputs {
            match out {
                Output::Send { conn, cmd } => {
                    self.touch_conn(node, conn);
                    if route_reply.is_some_and(|o| o == cmd.opaque)
                        && cmd.response_code() == nameserver_core::protocol::ResponseCode::Success
                    {
                        self.remember_route_answer(&cmd.body);
                    }
                    self.send_on(conn, node, cmd.into());
                }
                Output::Close { conn } => self.close_conn(conn, node, Payload::Fin),
                Output::Events(events) => {
                    for event in events {
                        if let Event::BrokerUnregistered { broker_addr, .. } = &event {
                            let broker_addr = broker_addr.to_string();
                            self.history.removals.push(Removal { at: now, ns: node, broker_addr });
                        }
                        let operands = Operands::of(&event);
                        self.trace_rule(node, event.kind().category().into(), event.to_string(), operands);
                    }
                }
                // The model's brokers have no server side, and no scenario turns on
                // notifyMinBrokerIdChanged: nothing would take the notice. Nothing sends
                // `Input::Request`, so no answer comes.
                Output::NotifyBroker { .. }
                | Output::KvChanged(_)
                | Output::PersistConfig(_)
                | Output::Answer { .. } => {}
            }
        }
        self.sync_ns_timer(node);
    }

    /// Keeps one timer armed at the NameServer's `poll_timeout`: the next scan, or the end of
    /// `needWaitForService` if that comes first.
    pub(crate) fn sync_ns_timer(&mut self, node: NodeId) {
        let Actor::NameServer(ns) = &self.node(node).actor else { return };
        let Some(at) = ns.ns.poll_timeout() else { return };
        if self.node(node).timers.get(&TimerKind::Scan) != Some(&at) {
            let incarnation = self.node(node).incarnation;
            self.node_mut(node).timers.insert(TimerKind::Scan, at);
            self.schedule(at, CLASS_NORMAL, Ev::Timer(node, TimerKind::Scan, incarnation));
        }
    }

    /// The NameServer's timer fired; the trace names a scan only if one was due.
    pub(crate) fn ns_scan(&mut self, node: NodeId) {
        let Actor::NameServer(ns) = &self.node(node).actor else { return };
        let scan_due = ns.ns.next_scan() <= self.now;
        let before = self.trace().len();
        self.ns_input(node, Input::Timeout);
        let Actor::NameServer(ns) = &self.node(node).actor else { return };
        if !scan_due {
            return;
        }
        let live = ns.ns.routes().broker_live_table().len();
        let expired = self.trace()[before..].iter().filter(|e| e.kind == TraceKind::Expired).count();
        self.trace_line(node, TraceKind::Scan, alloc::format!("scanNotActiveBroker: {live} live, {expired} expired"));
    }

    /// Records activity on a NameServer connection and makes sure an idle check is pending.
    pub(crate) fn touch_conn(&mut self, node: NodeId, conn: ConnId) {
        let Some(idle) = self.idle_close_after(node) else { return };
        let now = self.now;
        let incarnation = self.node(node).incarnation;
        let Actor::NameServer(ns) = &mut self.node_mut(node).actor else { return };
        if let Some(clock) = ns.idle_clocks.get_mut(&conn) {
            clock.touch(now);
        } else {
            let clock = IdleClock::new(now);
            ns.idle_clocks.insert(conn, clock);
            self.schedule(clock.deadline(idle), CLASS_NORMAL, Ev::Idle(node, conn, incarnation));
        }
    }

    /// When NameServer `node` closes a silent connection (`None`: it does not).
    pub(crate) fn idle_close_after(&self, node: NodeId) -> Option<Duration> {
        let Actor::NameServer(ns) = &self.node(node).actor else { return None };
        self.scenario.idle_close_after(ns.ns.config())
    }

    /// An idle check is due: close the connection if it carried nothing for the idle time.
    pub(crate) fn idle_check(&mut self, node: NodeId, conn: ConnId, incarnation: u32) {
        if self.node(node).incarnation != incarnation {
            return;
        }
        let Some(idle) = self.idle_close_after(node) else { return };
        if self.defer_if_frozen(node, Ev::Idle(node, conn, incarnation)) {
            return;
        }
        let open = self.net.conns.get(&conn).is_some_and(|c| c.open_at(node));
        let now = self.now;
        let Actor::NameServer(ns) = &mut self.node_mut(node).actor else { return };
        let Some(clock) = ns.idle_clocks.get(&conn).copied() else { return };
        if !open {
            ns.idle_clocks.remove(&conn);
            return;
        }
        if !clock.expired(now, idle) {
            self.schedule(clock.deadline(idle), CLASS_NORMAL, Ev::Idle(node, conn, incarnation));
            return;
        }
        ns.idle_clocks.remove(&conn);
        self.ns_input(node, Input::Idle { conn, last_io: clock.last(), idle });
    }
}
