//! The start of every RocketMQ connection, as Java's `HandshakeHandler` and `TlsModeHandler`
//! run it (PROTOCOL.md §1.3), except that a PROXY protocol header is read only from the
//! networks `--proxy-protocol-from` lists, and required from them (its client address then
//! stands for the peer everywhere); from anyone else a connection opening with a PROXY
//! signature is closed. Then TLS or plaintext by the first byte and `tls.server.mode`. The
//! PROXY header and the TLS handshake must be done within a deadline from the accept; the
//! first byte of a plaintext connection may wait the idle time. A connection refused here
//! never reaches the owner.
//!
//! It runs in two steps, so the listener can count a listed proxy's connection under its
//! source between them: [`begin`] (the PROXY header, or from others the check that none
//! comes) and [`finish`] (TLS or plaintext).

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf as _, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::proxy::{self, Detection};
use crate::source::SourceList;
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
    /// The client's address: a listed proxy's PROXY header's source, else the TCP peer.
    pub(crate) remote: SocketAddr,
    /// Whether it is TLS.
    pub(crate) tls: bool,
}

/// What a handshake is held to.
pub(crate) struct Rules<'a> {
    pub(crate) tls: &'a TlsPort,
    /// `--proxy-protocol-from`: the peers that must start with a PROXY header, and the only
    /// ones whose header is read.
    pub(crate) proxies: &'a SourceList,
    /// `serverChannelMaxIdleTimeSeconds`: how long a connection may stay silent before its
    /// first byte (`None`: for ever).
    pub(crate) idle: Option<Duration>,
    /// How long after the accept a PROXY header and a TLS handshake must be done.
    pub(crate) deadline: Duration,
}

/// A connection whose PROXY header (if any) is read: who it is from, and what to finish.
pub(crate) struct Begun {
    tcp: TcpStream,
    /// Bytes read after any PROXY header.
    buf: BytesMut,
    /// The client's address: a listed proxy's PROXY header's source, else the TCP peer.
    pub(crate) remote: SocketAddr,
    /// Whether a listed proxy's header named the client (then `remote` is its address).
    pub(crate) proxied: bool,
    deadline: Instant,
    idle: Option<Instant>,
}

/// Why a connection was closed during its handshake.
#[derive(Debug)]
pub(crate) struct Refused {
    pub(crate) why: String,
    pub(crate) reason: Refusal,
}

/// The kinds of [`Refused`] that are counted and logged apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A malformed header or frame start, a TLS failure, the idle time.
    Other,
    /// The peer closed the connection with nothing half-sent (a health check's
    /// connect-and-close, a PROXY `LOCAL` header alone), or the shutdown: not the peer's fault.
    Quiet,
    /// A PROXY signature from a peer `--proxy-protocol-from` does not list.
    ProxyUnlisted,
    /// No PROXY header from a listed peer.
    ProxyMissing,
    /// The PROXY header or TLS handshake was not done within the handshake deadline.
    Deadline,
}

impl Refused {
    fn other(why: impl Into<String>) -> Self {
        Self { why: why.into(), reason: Refusal::Other }
    }

    fn quiet(why: impl Into<String>) -> Self {
        Self { why: why.into(), reason: Refusal::Quiet }
    }
}

/// `work` (a handshake step), or the shutdown's refusal.
pub(crate) async fn or_stop<T>(
    work: impl Future<Output = Result<T, Refused>>,
    stop: &CancellationToken,
) -> Result<T, Refused> {
    tokio::select! {
        done = work => done,
        () = stop.cancelled() => Err(Refused::quiet("shutting down")),
    }
}

/// The first step on `tcp` from `peer` under `rules`: from a listed proxy its PROXY header,
/// from anyone else the first bytes, which must not be a PROXY signature.
///
/// # Errors
/// Why the connection is closed: a PROXY header where none is allowed or none where one is
/// required, a malformed header, the handshake deadline, the idle time, the peer leaving.
pub(crate) async fn begin(mut tcp: TcpStream, peer: SocketAddr, rules: &Rules<'_>) -> Result<Begun, Refused> {
    let accepted = Instant::now();
    let deadline = crate::clock::after(accepted, rules.deadline);
    let idle = rules.idle.map(|idle| crate::clock::after(accepted, idle));
    let mut buf = BytesMut::with_capacity(1024);
    let mut remote = peer;
    let mut proxied = false;
    if rules.proxies.contains(peer.ip()) {
        loop {
            match proxy::detect(&buf) {
                Detection::NeedMore => read_more(&mut tcp, &mut buf, Wait::Deadline(deadline, rules.deadline)).await?,
                Detection::Absent => {
                    return Err(Refused {
                        why: format!(
                            "{peer} is listed in --proxy-protocol-from but sent no PROXY protocol header first"
                        ),
                        reason: Refusal::ProxyMissing,
                    });
                }
                Detection::Header { len, source } => {
                    if let Some(source) = source {
                        tracing::debug!("PROXY protocol: {peer} carries the client {source}");
                        remote = source;
                        proxied = true;
                    }
                    buf.advance(len);
                    break;
                }
                Detection::Malformed(why) => return Err(Refused::other(why)),
            }
        }
    } else {
        loop {
            match proxy::signature(&buf) {
                // The first byte may be long in coming: a 5.x client opens a silent connection.
                None if buf.is_empty() => read_more(&mut tcp, &mut buf, Wait::Idle(idle)).await?,
                None => read_more(&mut tcp, &mut buf, Wait::Deadline(deadline, rules.deadline)).await?,
                Some(true) => {
                    return Err(Refused {
                        why: format!(
                            "a PROXY protocol header from {peer}, which --proxy-protocol-from does not list; \
                             list the load balancers that send one (the header is never read from other peers)"
                        ),
                        reason: Refusal::ProxyUnlisted,
                    });
                }
                Some(false) => break,
            }
        }
    }
    Ok(Begun { tcp, buf, remote, proxied, deadline, idle })
}

/// The second step: TLS or plaintext by the first byte after any PROXY header and the mode.
///
/// # Errors
/// Why the connection is closed: a mode that refuses the connection, a failed TLS handshake,
/// the handshake deadline, the idle time, the peer leaving.
pub(crate) async fn finish(begun: Begun, rules: &Rules<'_>) -> Result<Opened, Refused> {
    let Begun { mut tcp, mut buf, remote, deadline, idle, .. } = begun;
    // A header may be all that has arrived yet.
    if buf.is_empty() {
        read_more(&mut tcp, &mut buf, Wait::Idle(idle)).await?;
    }
    match (buf[0] == TLS_HANDSHAKE, rules.tls.mode) {
        (true, TlsMode::Disabled) => Err(Refused::other(
            "Clients intend to establish an SSL connection while this server is running in SSL disabled mode",
        )),
        (true, _) => {
            let Some(config) = rules.tls.config() else { return Err(Refused::other("TLS is not configured")) };
            let accept = tokio_rustls::TlsAcceptor::from(config).accept(Prefixed { prefix: buf, inner: tcp });
            let stream = tokio::time::timeout_at(deadline, accept)
                .await
                .map_err(|_| late("the TLS handshake", rules.deadline))?
                .map_err(|error| Refused::other(format!("TLS handshake failed: {error}")))?;
            Ok(Opened { stream: Stream::Tls(Box::new(stream)), remote, tls: true })
        }
        (false, TlsMode::Enforcing) => Err(Refused::other(
            "Clients intend to establish an insecure connection while this server is running in SSL enforcing mode",
        )),
        (false, _) => Ok(Opened { stream: Stream::Plain(tcp, buf), remote, tls: false }),
    }
}

/// How long a read in the handshake may wait.
enum Wait {
    /// Until the idle time from the accept is up (`None`: for ever).
    Idle(Option<Instant>),
    /// Until the handshake deadline (and how long that is, for the log line).
    Deadline(Instant, Duration),
}

fn late(what: &str, deadline: Duration) -> Refused {
    Refused { why: format!("{what} was not done within {:?} of the accept", deadline), reason: Refusal::Deadline }
}

async fn read_more(tcp: &mut TcpStream, buf: &mut BytesMut, wait: Wait) -> Result<(), Refused> {
    let read = match wait {
        Wait::Idle(None) => tcp.read_buf(buf).await,
        Wait::Idle(Some(at)) => tokio::time::timeout_at(at, tcp.read_buf(buf))
            .await
            .map_err(|_| Refused::other("no handshake within serverChannelMaxIdleTimeSeconds of the accept"))?,
        Wait::Deadline(at, deadline) => {
            tokio::time::timeout_at(at, tcp.read_buf(buf)).await.map_err(|_| late("the PROXY header", deadline))?
        }
    };
    match read {
        Ok(0) if buf.is_empty() => Err(Refused::quiet("the peer closed the connection")),
        Ok(0) => Err(Refused::other("the peer closed the connection half-way")),
        Ok(_) => Ok(()),
        // A TCP probe that resets instead of closing (SO_LINGER 0, as many load balancers do).
        Err(error) if buf.is_empty() && error.kind() == io::ErrorKind::ConnectionReset => {
            Err(Refused::quiet("the peer reset the connection"))
        }
        Err(error) => Err(Refused::other(error.to_string())),
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

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt as _;

    use super::*;
    use crate::tls::TlsConfig;

    #[tokio::test]
    async fn a_deadline_too_far_for_the_clock_is_never_rather_than_a_panic() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        let (tcp, peer) = listener.accept().await.unwrap();
        client.write_all(&[0, 0, 0, 4]).await.unwrap();
        let (tls, _) = TlsPort::new(&TlsConfig::disabled()).unwrap();
        let proxies = SourceList::default();
        let rules = Rules { tls: &tls, proxies: &proxies, idle: Some(Duration::MAX), deadline: Duration::MAX };
        let opened = finish(begin(tcp, peer, &rules).await.unwrap(), &rules).await.unwrap();
        assert!(!opened.tls && opened.remote == peer);
    }
}
