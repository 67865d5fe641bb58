//! The listening socket and the acceptor task.
//!
//! The acceptor takes a connection-limit permit before each accept (beyond the limit, new
//! peers wait in the listen backlog), closes a connection whose source already holds its cap
//! (`source.rs`), names the connection with a fresh [`ConnId`] and starts its task. The task
//! runs the handshake (a PROXY header, TLS: see `handshake.rs`), counting a listed proxy's
//! connection once its header is read: under the client it names, or for a `LOCAL` or
//! `UNKNOWN` header (the balancer's own health checks) under the proxy's address. It then
//! tells the owner about the connection under the client's address, and only then reads
//! frames, so the owner always knows a connection before hearing from it.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use nameserver_core::ConnId;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::conn::{Connection, Shared};
use crate::handshake::{self, Refusal};
use crate::messages::{ConnHandle, Inbound, ReplyBytes};
use crate::observe::{Deadline, Refused};
use crate::source::{NETWORK_SHARES, Over, SourceKey, SourceSlot};

/// Java's `serverSocketBacklog`.
const BACKLOG: u32 = 1024;
const MAX_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// Binds `bind_address:port` the way Java's NettyRemotingServer does (SO_REUSEADDR, backlog
/// 1024). `bind_address` may be an IP address or a host name.
///
/// # Errors
/// The address does not resolve, or the port cannot be bound.
pub async fn bind(bind_address: &str, port: u16) -> io::Result<TcpListener> {
    let mut last_error = None;
    for addr in tokio::net::lookup_host((bind_address, port)).await? {
        match bind_one(addr) {
            Ok(listener) => return Ok(listener),
            Err(error) => last_error = Some(error),
        }
    }
    Err(last_error
        .unwrap_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{bind_address} resolves to no address"))))
}

fn bind_one(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// Accepts connections until shutdown, then tells the owner that no more will come.
pub(crate) async fn accept(listener: TcpListener, shared: Arc<Shared>, limit: Arc<Semaphore>, queue: usize) {
    let stop = shared.shutdown.clone();
    let mut next_conn = 1;
    let mut backoff = Duration::from_millis(5);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&limit).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_closed) => break,
            },
            () = stop.cancelled() => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Running out of file descriptors is the usual cause: give closing
                    // connections a moment instead of spinning.
                    tracing::warn!("accept failed: {error}; retrying in {backoff:?}");
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        () = stop.cancelled() => break,
                    }
                    backoff = (backoff * 2).min(MAX_ACCEPT_BACKOFF);
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        backoff = Duration::from_millis(5);
        shared.observe.accepted();
        // Java sets TCP_NODELAY on every child channel; replies are small and latency-bound.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!("set TCP_NODELAY for {peer}: {error}");
        }
        // A listed proxy speaks for many sources: its connections are counted after the header.
        let fair = &shared.fairness;
        let slot = if fair.proxies.contains(peer.ip()) {
            None
        } else {
            match fair.admit(peer.ip()) {
                Ok(slot) => slot,
                Err(over) => {
                    over_cap(&shared, over, &peer.to_string());
                    continue;
                }
            }
        };
        let conn = ConnId(next_conn);
        next_conn += 1;
        tokio::spawn(start(conn, stream, peer, Arc::clone(&shared), (permit, slot), queue));
    }
    drop(listener);
    let _ = shared.owner.send(Inbound::AcceptStopped).await;
}

/// A connection refused for its source's cap: closed (by the caller dropping it), counted,
/// and said once a minute per source.
fn over_cap(shared: &Shared, Over { key, cap }: Over, who: &str) {
    shared.observe.refused(Refused::PerSource);
    let (what, flag) = if key.is_network() {
        ("per-network", format!("an IPv6 /64 may hold {NETWORK_SHARES} times --max-connections-per-source"))
    } else {
        ("per-source", String::from("--max-connections-per-source"))
    };
    if shared.fairness.warned.allow(SourceKey::of(key.ip()), what) {
        tracing::warn!(
            "refusing a connection from {who}: its source {key} already holds {cap} connections \
             ({flag}; NAT gateways that cannot send PROXY headers go in --per-source-exempt); \
             said once a minute per source"
        );
    }
}

/// One connection's handshake (PROXY header, TLS), then its task. The owner hears of the
/// connection only once the handshake is done, under the client's address.
async fn start(
    conn: ConnId,
    stream: TcpStream,
    peer: SocketAddr,
    shared: Arc<Shared>,
    (permit, slot): (OwnedSemaphorePermit, Option<SourceSlot>),
    queue: usize,
) {
    let fair = &shared.fairness;
    let rules =
        handshake::Rules { tls: &shared.tls, proxies: &fair.proxies, idle: shared.idle, deadline: fair.deadline };
    let begun = match handshake::or_stop(handshake::begin(stream, peer, &rules), &shared.shutdown).await {
        Ok(begun) => begun,
        Err(refused) => return handshake_refused(&shared, peer, refused),
    };
    // Held for the life of the connection: the source's count. A listed proxy's connection
    // is counted now, before it may wait for its first byte: under the client it names, or
    // (a health check's LOCAL or UNKNOWN header) under the proxy itself.
    let _slot = match slot {
        Some(slot) => Some(slot),
        None => match fair.admit(begun.remote.ip()) {
            Ok(slot) => slot,
            Err(over) => {
                let who =
                    if begun.proxied { format!("{} (by the proxy {peer})", begun.remote) } else { peer.to_string() };
                return over_cap(&shared, over, &who);
            }
        },
    };
    let opened = match handshake::or_stop(handshake::finish(begun, &rules), &shared.shutdown).await {
        Ok(opened) => opened,
        Err(refused) => return handshake_refused(&shared, peer, refused),
    };
    let remote = opened.remote.to_string();
    if opened.tls {
        tracing::debug!("TLS connection from {remote}");
    }
    let (outbound, replies) = mpsc::channel(queue.max(1));
    let close = shared.force_close.child_token();
    let unwritten = ReplyBytes::default();
    let handle = ConnHandle { outbound, close: close.clone(), remote: remote.clone(), unwritten: unwritten.clone() };
    // Before the task starts: it may answer (and report) route queries before the owner hears of it.
    shared.observe.connected(conn, &remote);
    if shared.owner.send(Inbound::Connected { conn, remote: remote.clone(), handle }).await.is_err() {
        return;
    }
    let connection = Connection {
        conn,
        remote,
        stream: opened.stream,
        outbound: replies,
        unwritten,
        close,
        shared: Arc::clone(&shared),
        permit,
        source: SourceKey::of(opened.remote.ip()),
        peer: opened.remote,
    };
    connection.run().await;
}

fn handshake_refused(shared: &Shared, peer: SocketAddr, refused: handshake::Refused) {
    let handshake::Refused { why, reason } = refused;
    let source = SourceKey::of(peer.ip());
    let what = match reason {
        Refusal::Quiet => {
            tracing::debug!("the connection from {peer} ended before any frame: {why}");
            return;
        }
        Refusal::Other => {
            shared.observe.frame_error();
            "handshake"
        }
        Refusal::ProxyUnlisted => {
            shared.observe.refused(Refused::ProxyUnlisted);
            "proxy-unlisted"
        }
        Refusal::ProxyMissing => {
            shared.observe.refused(Refused::ProxyMissing);
            "proxy-missing"
        }
        Refusal::Deadline => {
            shared.observe.deadline_close(Deadline::Handshake);
            "handshake-deadline"
        }
    };
    if shared.fairness.warned.allow(source, what) {
        tracing::warn!("closing the connection from {peer} before any frame: {why}; said once a minute per source");
    }
}
