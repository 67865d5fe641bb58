//! HTTPS for the console (`--http-tls`), with the RocketMQ port's certificate (reloaded with
//! it). Handshakes run on tasks of their own, so that a slow or silent client never holds up
//! the others; finished connections are handed to axum through [`TlsListener`].

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::server::TlsStream;
use tokio_util::sync::CancellationToken;

use crate::tls::reload::TlsPort;

/// How long a client may take over its handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections whose TLS handshake is done.
#[derive(Debug)]
pub(crate) struct TlsListener {
    ready: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local: SocketAddr,
}

impl TlsListener {
    /// Accepts on `listener` until `stop`, running each handshake with `port`'s certificate.
    pub(crate) fn new(listener: TcpListener, port: Arc<TlsPort>, stop: CancellationToken) -> io::Result<Self> {
        let local = listener.local_addr()?;
        let (done, ready) = mpsc::channel(64);
        tokio::spawn(async move {
            loop {
                let (tcp, peer) = tokio::select! {
                    () = stop.cancelled() => return,
                    accepted = listener.accept() => match accepted {
                        Ok(accepted) => accepted,
                        Err(error) => {
                            tracing::debug!("HTTP console: accept failed: {error}");
                            tokio::time::sleep(Duration::from_millis(20)).await;
                            continue;
                        }
                    },
                };
                let Some(config) = port.config() else { return };
                let done = done.clone();
                tokio::spawn(async move {
                    let handshake = tokio_rustls::TlsAcceptor::from(config).accept(tcp);
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await {
                        Ok(Ok(stream)) => {
                            let _ = done.send((stream, peer)).await;
                        }
                        Ok(Err(error)) => tracing::debug!("HTTP console: TLS handshake with {peer} failed: {error}"),
                        Err(_) => tracing::debug!("HTTP console: no TLS handshake from {peer} in time"),
                    }
                });
            }
        });
        Ok(Self { ready, local })
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(ready) => ready,
            // The acceptor stopped: wait for axum's own shutdown.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        Ok(self.local)
    }
}
