//! The sockets between actors and the network: sending commands (as frames, encoded only when
//! read), closing connections, recording every message in the wire log, and delivering frames
//! that arrive.

use alloc::collections::btree_map::Entry;
use alloc::string::String;
use core::num::NonZeroU64;
use core::time::Duration;

use crate::Sim;
use crate::engine::actor::Actor;
use crate::engine::frame::Frame;
use crate::engine::history::WireRecord;
use crate::engine::net::{Category, Label, Link, Payload, WireType};
use crate::engine::queue::{CLASS_NORMAL, Ev};
use crate::node::message::Message;
use crate::node::trace::{NodeId, TraceKind};
use crate::node::{Failure, NodeState, Role};
use nameserver_core::names::ConnId;
use nameserver_core::protocol::{RemotingCommand, RequestCode};
use nameserver_core::time::Instant;

impl Sim {
    /// Sends a request from `me` to `to`, opening a connection if needed.
    pub(crate) fn send_to(&mut self, me: NodeId, to: NodeId, msg: Message) -> Option<ConnId> {
        let existing =
            self.node(me).conns.get(&to).copied().filter(|c| self.net.conns.get(c).is_some_and(|c| c.client_open));
        let conn = match existing {
            Some(conn) => conn,
            None => {
                let conn = self.net.open(me, to, self.now);
                self.node_mut(me).conns.insert(to, conn);
                conn
            }
        };
        self.send_on(conn, me, msg);
        Some(conn)
    }

    /// Puts `msg` on `conn` from `me` (nothing, as before, if it cannot be encoded).
    pub(crate) fn send_on(&mut self, conn: ConnId, me: NodeId, msg: Message) {
        if !self.net.conns.get(&conn).is_some_and(|c| c.open_at(me)) {
            return;
        }
        let label = self.label(me, msg.head());
        let Some(frame) = Frame::of(msg) else { return };
        self.transmit(conn, me, Payload::Frame(frame), Some(label));
    }

    pub(crate) fn transmit(&mut self, conn: ConnId, from: NodeId, payload: Payload, label: Option<Label>) {
        let Some(c) = self.net.conns.get(&conn) else { return };
        let to = c.peer(from);
        if self.net.link(from, to) == Link::Reset && payload != Payload::Rst {
            // A reject: the sender gets a reset back, the receiver never hears of it.
            let what = self.wire_type(conn, to, &payload, label.as_ref());
            self.record_wire(None, from, to, what, label.as_ref());
            self.net.close_side(conn, to);
            self.put_on_wire(conn, to, Payload::Rst, None);
            return;
        }
        self.put_on_wire(conn, from, payload, label);
    }

    /// Hands a payload to the network, schedules its arrival and records it in the wire log.
    fn put_on_wire(&mut self, conn: ConnId, from: NodeId, payload: Payload, label: Option<Label>) {
        let Some(to) = self.net.conns.get(&conn).map(|c| c.peer(from)) else { return };
        let what = self.wire_type(conn, to, &payload, label.as_ref());
        let sent = self.net.transmit(conn, from, payload, label.clone(), self.now, &mut self.rng);
        if let Some((id, at)) = sent {
            self.schedule(at, CLASS_NORMAL, Ev::Arrive(id));
        }
        let record = self.record_wire(sent, from, to, what, label.as_ref());
        if let (Some(label), false) = (&label, record.lost) {
            if !label.response && !label.oneway {
                self.expect_answer(conn, from, label.opaque, RequestCode::from(label.code));
            }
        }
    }

    /// What a payload carries; for an answer, the code of the request it answers (which it
    /// takes off the list of requests waiting for one).
    fn wire_type(
        &mut self,
        conn: ConnId,
        to: NodeId,
        payload: &Payload,
        label: Option<&Label>,
    ) -> (WireType, Category) {
        match (payload, label) {
            (Payload::Fin, _) => (WireType::Fin, Category::Close),
            (Payload::Rst, _) => (WireType::Rst, Category::Reset),
            (Payload::Frame(_), Some(label)) if label.response => {
                let asked = self.asked.remove(&(conn, to, label.opaque));
                let what = asked.map_or(WireType::UnknownAnswer, WireType::Command);
                (what, Category::of_frame(asked, Some(label.code)))
            }
            (Payload::Frame(_), Some(label)) => {
                let code = RequestCode::from(label.code);
                (WireType::Command(code), Category::of_frame(Some(code), None))
            }
            (Payload::Frame(_), None) => (WireType::UnknownAnswer, Category::Other),
        }
    }

    fn record_wire(
        &mut self,
        sent: Option<(u64, Instant)>,
        from: NodeId,
        to: NodeId,
        (what, category): (WireType, Category),
        label: Option<&Label>,
    ) -> WireRecord {
        let nominal = self.now + Duration::from_millis(self.net.latency_ms);
        let record = WireRecord {
            id: sent.and_then(|(id, _)| NonZeroU64::new(id)),
            sent_at: self.now,
            arrive_at: sent.map_or(nominal, |(_, at)| at),
            from,
            to,
            what,
            category,
            response: label.is_some_and(|l| l.response),
            lost: sent.is_none(),
        };
        self.history.wire.push(record);
        record
    }

    /// Remembers what a request on the wire asked, so its answer can be named. Entries whose
    /// answer can no longer come (the answering side closed) are dropped now and then.
    fn expect_answer(&mut self, conn: ConnId, requester: NodeId, opaque: i32, code: RequestCode) {
        self.asked.insert((conn, requester, opaque), code);
        if self.asked.len() >= self.asked_limit {
            let net = &self.net;
            self.asked
                .retain(|(conn, requester, _), _| net.conns.get(conn).is_some_and(|c| c.open_at(c.peer(*requester))));
            self.asked_limit = 2 * self.asked.len() + 64;
        }
    }

    /// Closes `me`'s side of `conn` and tells the peer with `how` (FIN or RST).
    pub(crate) fn close_conn(&mut self, conn: ConnId, me: NodeId, how: Payload) {
        if self.net.conns.get(&conn).is_some_and(|c| c.open_at(me)) {
            self.transmit(conn, me, how, None);
            self.net.close_side(conn, me);
        }
        self.after_close(me, conn);
    }

    /// Bookkeeping when `node`'s side of `conn` is gone: pending requests fail, the
    /// NameServer forgets brokers registered on it.
    pub(crate) fn after_close(&mut self, node: NodeId, conn: ConnId) {
        self.node_mut(node).conns.retain(|_, c| *c != conn);
        if !self.is_running(node) {
            return;
        }
        match &self.node(node).actor {
            Actor::NameServer(_) => self.ns_input(node, nameserver_core::Input::Disconnected { conn }),
            Actor::Broker(_) => self.with_actor(node, |actor, _| {
                if let Actor::Broker(b) = actor {
                    b.forget_conn(conn);
                }
            }),
            _ => {}
        }
    }

    pub(crate) fn arrive(&mut self, id: u64) {
        let Some(flight) = self.net.flights.get(&id) else { return };
        if flight.arrive_at != self.now {
            return;
        }
        let to = flight.to;
        if self.defer_if_frozen(to, Ev::Arrive(id)) {
            return;
        }
        let Some(flight) = self.net.flights.remove(&id) else { return };
        let state = self.node(to).state;
        let receiver_open = self.net.conns.get(&flight.conn).is_some_and(|c| c.open_at(to));
        match flight.payload {
            Payload::Fin | Payload::Rst => {
                if receiver_open {
                    let failure = if flight.payload == Payload::Rst { Failure::ConnectFailed } else { Failure::Closed };
                    self.net.close_side(flight.conn, to);
                    self.fail_pending(to, flight.conn, failure);
                    self.after_close(to, flight.conn);
                }
            }
            Payload::Frame(frame) => {
                if matches!(state, NodeState::PoweredOff) {
                    return;
                }
                if !receiver_open || matches!(state, NodeState::NotStarted | NodeState::Down) {
                    // Nobody listens on that socket any more: the OS answers with a reset.
                    if self.net.conns.get(&flight.conn).is_some_and(|c| c.open_at(flight.from)) {
                        self.net.close_side(flight.conn, to);
                        self.put_on_wire(flight.conn, to, Payload::Rst, None);
                    }
                    return;
                }
                self.deliver_frame(to, flight.from, flight.conn, frame);
            }
        }
    }

    pub(crate) fn deliver_frame(&mut self, to: NodeId, from: NodeId, conn: ConnId, frame: Frame) {
        let Some(msg) = frame.into_message() else {
            self.trace_line(to, TraceKind::Info, String::from("decode exception, close the channel"));
            self.close_conn(conn, to, Payload::Fin);
            return;
        };
        let is_server = self.net.conns.get(&conn).is_some_and(|c| c.server == to);
        if is_server && !self.net.conns.get(&conn).is_some_and(|c| c.accepted) {
            if let Some(c) = self.net.conns.get_mut(&conn) {
                c.accepted = true;
            }
            if matches!(self.node(to).actor, Actor::NameServer(_)) {
                let remote = self.remote_of(conn, from);
                self.ns_input(to, nameserver_core::Input::Connected { conn, remote });
            }
        }
        let (is_response, opaque) = (msg.head().is_response(), msg.head().opaque);
        if is_response {
            let Entry::Occupied(waiting) = self.node_mut(to).pending.entry(opaque) else { return };
            if waiting.get().conn != conn {
                return;
            }
            let pending = waiting.remove();
            self.respond(to, pending.purpose, Ok(msg), pending.to);
            return;
        }
        match self.node(to).role {
            Role::NameServer => {
                self.touch_conn(to, conn);
                self.ns_input(to, nameserver_core::Input::Received { conn, cmd: msg.into_command() });
            }
            Role::Broker => self.with_actor(to, |actor, cx| {
                if let Actor::Broker(b) = actor {
                    b.on_request(conn, &msg, from, cx);
                }
            }),
            Role::Producer | Role::Consumer => {}
        }
    }

    /// `ip:port` of the client end of `conn`, as the server would log it.
    pub(crate) fn remote_of(&self, conn: ConnId, client: NodeId) -> String {
        let host = self.dir.addr(client).split(':').next().unwrap_or("");
        let port = self.net.conns.get(&conn).map_or(0, |c| c.port);
        alloc::format!("{host}:{port}")
    }
}

impl Sim {
    /// Describes a frame `from` is about to send (kept small: views decode the rest).
    pub(crate) fn label(&self, _from: NodeId, cmd: &RemotingCommand) -> Label {
        Label { code: cmd.code, response: cmd.is_response(), oneway: cmd.is_oneway(), opaque: cmd.opaque }
    }
}
