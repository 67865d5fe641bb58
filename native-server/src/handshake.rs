//! The start of every RocketMQ connection, as Java's `HandshakeHandler` and `TlsModeHandler`
//! run it (PROTOCOL.md §1.3): an optional PROXY protocol header first (whose client address
//! then stands for the peer everywhere), then TLS or plaintext by the first byte and
//! `tls.server.mode`. A connection refused here never reaches the owner.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf as _, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use crate::proxy::{self, Detection};
use crate::tls::TlsMode;
use crate::tls::reload::TlsPort;

/// A TLS record of type handshake: what a ClientHello starts with.
const TLS_HANDSHAKE: u8 = 0x16;

/// A connection ready for frames.
#[derive(Debug)]
pub(crate) enum Stream {
    /// Plaintext, with the bytes already read after any PROXY header.
    Plain(TcpStream, BytesMut),
    /// TLS, handshake done.
    Tls(Box<tokio_rustls::server::TlsStream<Prefixed>>),
}

/// A connection after its handshake: the stream and who the peer is.
pub(crate) struct Opened {
    pub(crate) stream: Stream,
    /// The client's address: the PROXY header's source, else the TCP peer.
    pub(crate) remote: SocketAddr,
    /// Whether it is TLS.
    pub(crate) tls: bool,
}

/// Runs the handshake on `tcp` from `peer`, waiting at most `patience` for each step's bytes.
///
/// # Errors
/// Why the connection is closed: a malformed PROXY header, a mode that refuses the
/// connection, a failed TLS handshake, the peer leaving or stalling, or the shutdown.
pub(crate) async fn open(
    tcp: TcpStream,
    peer: SocketAddr,
    tls: &TlsPort,
    patience: Option<Duration>,
    stop: &CancellationToken,
) -> Result<Opened, String> {
    tokio::select! {
        opened = within(patience, run(tcp, peer, tls)) => opened,
        () = stop.cancelled() => Err(String::from("shutting down")),
    }
}

async fn within<T>(patience: Option<Duration>, work: impl Future<Output = Result<T, String>>) -> Result<T, String> {
    match patience {
        Some(limit) => tokio::time::timeout(limit, work).await.unwrap_or_else(|_| {
            Err(format!("no handshake within {}s (serverChannelMaxIdleTimeSeconds)", limit.as_secs()))
        }),
        None => work.await,
    }
}

async fn run(mut tcp: TcpStream, peer: SocketAddr, tls: &TlsPort) -> Result<Opened, String> {
    let mut buf = BytesMut::with_capacity(1024);
    let mut remote = peer;
    loop {
        match proxy::detect(&buf) {
            Detection::NeedMore => read_more(&mut tcp, &mut buf).await?,
            Detection::Absent => break,
            Detection::Header { len, source } => {
                if let Some(source) = source {
                    tracing::debug!("PROXY protocol: {peer} carries the client {source}");
                    remote = source;
                }
                buf.advance(len);
                break;
            }
            Detection::Malformed(why) => return Err(why),
        }
    }
    // A header may be all that has arrived yet.
    if buf.is_empty() {
        read_more(&mut tcp, &mut buf).await?;
    }
    match (buf[0] == TLS_HANDSHAKE, tls.mode) {
        (true, TlsMode::Disabled) => Err(String::from(
            "Clients intend to establish an SSL connection while this server is running in SSL disabled mode",
        )),
        (true, _) => {
            let Some(config) = tls.config() else { return Err(String::from("TLS is not configured")) };
            let stream = tokio_rustls::TlsAcceptor::from(config)
                .accept(Prefixed { prefix: buf, inner: tcp })
                .await
                .map_err(|error| format!("TLS handshake failed: {error}"))?;
            Ok(Opened { stream: Stream::Tls(Box::new(stream)), remote, tls: true })
        }
        (false, TlsMode::Enforcing) => Err(String::from(
            "Clients intend to establish an insecure connection while this server is running in SSL enforcing mode",
        )),
        (false, _) => Ok(Opened { stream: Stream::Plain(tcp, buf), remote, tls: false }),
    }
}

async fn read_more(tcp: &mut TcpStream, buf: &mut BytesMut) -> Result<(), String> {
    match tcp.read_buf(buf).await {
        Ok(0) => Err(String::from("the peer closed the connection")),
        Ok(_) => Ok(()),
        Err(error) => Err(error.to_string()),
    }
}

/// A TCP stream whose first bytes were already read: they are read again first.
#[derive(Debug)]
pub(crate) struct Prefixed {
    prefix: BytesMut,
    inner: TcpStream,
}

impl AsyncRead for Prefixed {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, out: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        if !self.prefix.is_empty() {
            let n = self.prefix.len().min(out.remaining());
            out.put_slice(&self.prefix[..n]);
            self.prefix.advance(n);
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, out)
    }
}

impl AsyncWrite for Prefixed {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, data)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
