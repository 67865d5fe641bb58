//! The console's accept loop. The console shares the process's descriptors with port 9876, so
//! it holds at most [`HttpOptions::max_connections`](super::HttpOptions) at once (the rest
//! wait in the listen backlog, holding no descriptor), and a connection must send a request's
//! headers within [`HttpOptions::header_timeout`](super::HttpOptions) of connecting or of its
//! last response, so that silent connections cannot keep the slots.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

/// Where connections come from: each arrives with the slot it holds.
pub(crate) trait Accept {
    type Io: AsyncRead + AsyncWrite + Unpin + Send + 'static;
    /// The next connection, taken only once a slot is free.
    fn next(&mut self, slots: &Arc<Semaphore>) -> impl Future<Output = (Self::Io, OwnedSemaphorePermit)> + Send;
}

impl Accept for TcpListener {
    type Io = TcpStream;

    async fn next(&mut self, slots: &Arc<Semaphore>) -> (TcpStream, OwnedSemaphorePermit) {
        let slot = Arc::clone(slots).acquire_owned().await.expect("the slots are never closed");
        loop {
            match self.accept().await {
                Ok((tcp, _peer)) => return (tcp, slot),
                Err(error) => {
                    // Out of descriptors, most often: wait for some to be given back.
                    tracing::debug!("HTTP console: accept failed: {error}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    }
}

/// Serves `app` on connections from `source`, each holding one of `slots`, until `quit`; then
/// lets each connection finish the response it is writing and returns once all have closed.
pub(crate) async fn serve(
    mut source: impl Accept,
    slots: Arc<Semaphore>,
    app: Router,
    header_timeout: Duration,
    quit: CancellationToken,
) -> io::Result<()> {
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(header_timeout);
    loop {
        let (io, slot) = tokio::select! {
            () = quit.cancelled() => break,
            next = source.next(&slots) => next,
        };
        let connection = graceful.watch(http.serve_connection(TokioIo::new(io), TowerToHyperService::new(app.clone())));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!("HTTP console: connection ended: {error}");
            }
            drop(slot);
        });
    }
    graceful.shutdown().await;
    Ok(())
}
