//! HTTPS for the console (`--http-tls`), with the RocketMQ port's certificate (reloaded with
//! it). Handshakes run on tasks of their own, so that a slow or silent client never holds up
//! the others; finished connections are handed to the accept loop through [`TlsListener`],
//! each with the console slot it took before the TCP accept (a handshake holds a descriptor).

use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_rustls::server::TlsStream;
use tokio_util::sync::CancellationToken;

use crate::tls::reload::TlsPort;

/// How long a client may take over its handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections whose TLS handshake is done.
#[derive(Debug)]
pub(crate) struct TlsListener {
    ready: mpsc::Receiver<(TlsStream<TcpStream>, OwnedSemaphorePermit)>,
}

impl TlsListener {
    /// Accepts on `listener` until `stop`, a slot of `slots` for each connection, running each
    /// handshake with `port`'s certificate.
    pub(crate) fn new(
        mut listener: TcpListener,
        slots: Arc<Semaphore>,
        port: Arc<TlsPort>,
        stop: CancellationToken,
    ) -> io::Result<Self> {
        let (done, ready) = mpsc::channel(64);
        tokio::spawn(async move {
            loop {
                let (tcp, slot) = tokio::select! {
                    () = stop.cancelled() => return,
                    next = super::accept::Accept::next(&mut listener, &slots) => next,
                };
                let peer = tcp.peer_addr().map_or_else(|_| String::from("?"), |peer| peer.to_string());
                let Some(config) = port.config() else { return };
                let done = done.clone();
                tokio::spawn(async move {
                    let handshake = tokio_rustls::TlsAcceptor::from(config).accept(tcp);
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await {
                        Ok(Ok(stream)) => {
                            let _ = done.send((stream, slot)).await;
                        }
                        Ok(Err(error)) => tracing::debug!("HTTP console: TLS handshake with {peer} failed: {error}"),
                        Err(_) => tracing::debug!("HTTP console: no TLS handshake from {peer} in time"),
                    }
                });
            }
        });
        Ok(Self { ready })
    }
}

impl super::accept::Accept for TlsListener {
    type Io = TlsStream<TcpStream>;

    /// The slots were taken by the acceptor task, before each TCP accept.
    async fn next(&mut self, _slots: &Arc<Semaphore>) -> (Self::Io, OwnedSemaphorePermit) {
        match self.ready.recv().await {
            Some(ready) => ready,
            // The acceptor stopped: wait for the console's own shutdown.
            None => std::future::pending().await,
        }
    }
}
