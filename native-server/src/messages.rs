//! What the owner and the tasks around it send each other: the acceptor, the connection tasks
//! and the console send the owner [`Inbound`] messages; the owner answers a connection
//! through its [`ConnHandle`] and a console request through the request's own reply channel.
//!
//! This module sits below the owner, the connections and the console, and imports none of
//! them.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use nameserver_core::protocol::{Parsed, RemotingCommand, Request};
use nameserver_core::{ConnId, Limits};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// What the acceptor, the connection tasks and the console tell the owner.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// A connection was accepted (sent by the acceptor before the connection task starts).
    Connected { conn: ConnId, remote: String, handle: ConnHandle },
    /// A command the connection task did not answer itself ([`Handed`]).
    Received { conn: ConnId, cmd: RemotingCommand, parsed: Option<Parsed>, at: Option<std::time::Instant> },
    /// A request from the HTTP console (a KV put or delete), the core's `Input::Request`: run
    /// as a client's would be, answered by `Output::Answer`. The reply goes to `reply` once
    /// any file it changed is written. It is no connection: it is neither counted nor logged
    /// as one.
    Request { cmd: RemotingCommand, at: Option<std::time::Instant>, reply: oneshot::Sender<RemotingCommand> },
    /// Nothing was read or written for `serverChannelMaxIdleTimeSeconds` (`idle`) since
    /// `last_io`.
    Idle { conn: ConnId, last_io: nameserver_core::Instant, idle: std::time::Duration },
    /// Shutting down: the connection has handed over everything it received.
    Drained { conn: ConnId },
    /// The connection is closed.
    Disconnected { conn: ConnId },
    /// The acceptor stopped: no `Connected` follows.
    AcceptStopped,
}

impl Inbound {
    /// The connection it is about, if it is about one.
    pub(crate) fn conn(&self) -> Option<ConnId> {
        match self {
            Self::Connected { conn, .. }
            | Self::Received { conn, .. }
            | Self::Idle { conn, .. }
            | Self::Drained { conn }
            | Self::Disconnected { conn } => Some(*conn),
            Self::Request { .. } | Self::AcceptStopped => None,
        }
    }
}

/// The owner's side of one connection.
#[derive(Debug)]
pub(crate) struct ConnHandle {
    /// Commands to write to the peer; `try_send` only.
    pub(crate) outbound: mpsc::Sender<RemotingCommand>,
    /// Cancel to close the connection at once.
    pub(crate) close: CancellationToken,
    /// The peer, for log lines.
    pub(crate) remote: String,
    /// Bytes of replies waiting for the peer, shared with the connection task.
    pub(crate) unwritten: ReplyBytes,
}

/// A peer that does not read its replies (said at WARN): the caller closes its connection.
#[derive(Debug)]
pub(crate) struct Clogged;

impl ConnHandle {
    /// Queues `cmd` for the peer without waiting. A peer that leaves too many replies or
    /// bytes unread gets [`Clogged`]; a connection already gone drops the reply.
    pub(crate) fn deliver(&self, cmd: RemotingCommand) -> Result<(), Clogged> {
        let (waiting, size) = (self.unwritten.get(), queued_size(&cmd));
        if waiting > 0 && waiting + size > MAX_UNWRITTEN_REPLY_BYTES {
            tracing::warn!(
                "closeChannel: the channel[{}] does not read its replies ({waiting} bytes waiting, {size} more \
                 would pass {MAX_UNWRITTEN_REPLY_BYTES}), closing it",
                self.remote
            );
            return Err(Clogged);
        }
        // Counted before it is queued: the connection takes it off when it takes the reply.
        self.unwritten.add(size);
        if let Err(error) = self.outbound.try_send(cmd) {
            self.unwritten.sub(size);
            if let TrySendError::Full(_) = error {
                tracing::warn!(
                    "closeChannel: the channel[{}] does not read its replies ({} waiting), closing it",
                    self.remote,
                    self.outbound.max_capacity()
                );
                return Err(Clogged);
            }
        }
        Ok(())
    }
}

/// Most bytes of replies a connection may have waiting (in its queue, and encoded but not
/// written) before one more closes it, besides the queue's count: a peer that asks for large
/// answers and reads none holds this much of the daemon's memory at most. A reply larger than
/// this alone still goes to a connection with nothing waiting.
pub(crate) const MAX_UNWRITTEN_REPLY_BYTES: usize = 4 * 1024 * 1024;

/// The bytes of replies waiting for one peer: the owner adds each reply's
/// [`queued_size`] as it queues it, the connection task takes it off when it takes the reply,
/// and counts what it has encoded and not yet written.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReplyBytes(Arc<AtomicUsize>);

impl ReplyBytes {
    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    pub(crate) fn add(&self, bytes: usize) {
        self.0.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Takes off bytes added before (never more than were added).
    pub(crate) fn sub(&self, bytes: usize) {
        self.0.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// A command a connection task hands the owner: `parsed` when the task read it (on a
/// NameServer's port, every request but a compressed registration and a heavy one while
/// another task reads one: [`Handed::read`]), `at` when it was decoded (when requests are
/// measured).
#[derive(Debug)]
pub(crate) struct Handed {
    pub(crate) cmd: RemotingCommand,
    pub(crate) parsed: Option<Parsed>,
    pub(crate) at: Option<std::time::Instant>,
}

impl Handed {
    /// `cmd` as it came, for the owner to read.
    pub(crate) const fn unread(cmd: RemotingCommand, at: Option<std::time::Instant>) -> Self {
        Self { cmd, parsed: None, at }
    }

    /// `cmd` read here with `limits` (those the owner's NameServer has), unless it is a
    /// response (never read) or a compressed registration: inflating waits for the owner's
    /// turn, so that what the lanes hold stays near the bytes they count.
    pub(crate) fn read(cmd: RemotingCommand, limits: &Limits, at: Option<std::time::Instant>) -> Self {
        let parsed = (!cmd.is_response() && !Request::inflates(&cmd)).then(|| Parsed::read(&cmd, limits));
        Self { cmd, parsed, at }
    }

    /// What the lanes count of it: [`queued_size`], and a read registration's body twice
    /// (its topics, decoded, take about as much again as their JSON).
    pub(crate) fn queued_size(&self) -> usize {
        let decoded = match self.parsed.as_ref().map(Parsed::request) {
            Some(Ok(Request::RegisterBroker(_))) => self.cmd.body.len(),
            _ => 0,
        };
        queued_size(&self.cmd) + decoded
    }
}

/// About the encoded size of `cmd` (a little over it: the JSON header's fixed fields are
/// counted generously), cheap to compute on the owner's core.
pub(crate) fn queued_size(cmd: &RemotingCommand) -> usize {
    let fields: usize = cmd.ext_fields.iter().flatten().map(|(key, value)| key.len() + value.len() + 6).sum();
    256 + cmd.body.len() + cmd.remark.as_ref().map_or(0, String::len) + fields
}

#[cfg(test)]
mod tests {
    use nameserver_core::protocol::{FLAG_RESPONSE, RequestCode};

    use super::*;

    fn registration(compressed: bool) -> RemotingCommand {
        let cmd = RemotingCommand::request(RequestCode::RegisterBroker)
            .with_field("clusterName", "c")
            .with_field("brokerAddr", "10.0.0.1:10911")
            .with_field("brokerName", "b")
            .with_field("brokerId", "0")
            .with_body(br#"{"topicConfigSerializeWrapper":{"topicConfigTable":{"T":{"topicName":"T"}}}}"#.to_vec());
        if compressed { cmd.with_field("compressed", "true") } else { cmd }
    }

    #[test]
    fn requests_are_read_here_but_for_compressed_registrations_and_responses() {
        let read = |cmd: RemotingCommand| Handed::read(cmd, &Limits::DEFAULT, None);
        let plain = read(registration(false));
        assert!(matches!(plain.parsed.as_ref().map(Parsed::request), Some(Ok(Request::RegisterBroker(_)))));
        assert_eq!(plain.queued_size(), queued_size(&plain.cmd) + plain.cmd.body.len(), "its topics counted twice");

        let compressed = read(registration(true));
        assert!(compressed.parsed.is_none(), "inflated on the owner's turn, not here");
        assert_eq!(compressed.queued_size(), queued_size(&compressed.cmd));

        let mut response = registration(false);
        response.flag |= FLAG_RESPONSE;
        assert!(read(response).parsed.is_none());

        // A malformed request is read too: the owner answers with the error read here.
        let bad = read(RemotingCommand::request(RequestCode::UnregisterBroker));
        assert!(matches!(bad.parsed.as_ref().map(Parsed::request), Some(Err(_))));
        assert_eq!(bad.queued_size(), queued_size(&bad.cmd));
    }
}
