//! What the owner and the tasks around it send each other: the acceptor, the connection tasks
//! and the console send the owner [`Inbound`] messages; the owner answers a connection
//! through its [`ConnHandle`] and a console request through the request's own reply channel.
//!
//! This module sits below the owner, the connections and the console, and imports none of
//! them.

use nameserver_core::ConnId;
use nameserver_core::protocol::RemotingCommand;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// What the acceptor, the connection tasks and the console tell the owner.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// A connection was accepted (sent by the acceptor before the connection task starts).
    Connected { conn: ConnId, remote: String, handle: ConnHandle },
    /// A command the connection task did not answer itself; `at` is when it was decoded
    /// (when requests are measured).
    Received { conn: ConnId, cmd: RemotingCommand, at: Option<std::time::Instant> },
    /// A request from the HTTP console (a KV put or delete), run by the core as a client's
    /// would be. The reply goes to `reply` once any file it changed is written.
    /// It is no connection: it is neither counted nor logged as one.
    Request { cmd: RemotingCommand, at: Option<std::time::Instant>, reply: oneshot::Sender<RemotingCommand> },
    /// Nothing was read or written for `serverChannelMaxIdleTimeSeconds`.
    Idle { conn: ConnId },
    /// Shutting down: the connection has handed over everything it received.
    Drained { conn: ConnId },
    /// The connection is closed.
    Disconnected { conn: ConnId },
    /// The acceptor stopped: no `Connected` follows.
    AcceptStopped,
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
}
