//! Async RocketMQ connections: [`Client`] speaks raw frames over TCP or TLS (what a test sends
//! may not be a frame at all) and can flood until the server stops reading it
//! ([`Client::stop_reading`]); [`AsyncClient`] decodes every frame with the core codec and
//! numbers its requests: one request at a time ([`AsyncClient::call`]), or a burst written at
//! once and its replies read back ([`AsyncClient::next_frame`]); [`CloggedPeer`] has stopped
//! reading; and one request over any stream, plaintext or TLS ([`call`]). The blocking client
//! is [`crate::wire::Client`].

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::{FLAG_ONEWAY, RemotingCommand, RequestCode};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::frames::{CLIENT_VERSION, request};
use crate::wait::PATIENCE;

/// A peer that speaks raw frames over TCP ([`Self::connect`]) or any stream, TLS included
/// ([`Self::over`]); every failure fails the test.
#[derive(Debug)]
pub struct Client<S = TcpStream> {
    /// The connection.
    pub stream: S,
    buf: Vec<u8>,
}

impl Client {
    /// Connects with `TCP_NODELAY`.
    ///
    /// # Panics
    /// The connection is refused.
    pub async fn connect(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).await.unwrap();
        stream.set_nodelay(true).unwrap();
        Self::over(stream)
    }

    /// Writes `burst` over and over, whole frames in order, reading nothing, until the write
    /// would block: the server has stopped reading this peer (its replies fill both windows).
    /// Returns the bytes written.
    ///
    /// # Panics
    /// `burst` is empty, or a write fails.
    pub async fn stop_reading(&mut self, burst: &[u8]) -> usize {
        assert!(!burst.is_empty(), "nothing to flood with");
        let (mut at, mut written) = (0, 0);
        loop {
            // tokio's `try_write` reports `WouldBlock` only once the socket itself refused.
            match self.stream.try_write(&burst[at..]) {
                Ok(n) => {
                    at = (at + n) % burst.len();
                    written += n;
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => return written,
                Err(error) => panic!("the flooding write failed: {error}"),
            }
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Client<S> {
    /// A client on an established stream (a TLS one: [`crate::pki::tls_connect`]).
    pub fn over(stream: S) -> Self {
        Self { stream, buf: Vec::new() }
    }

    /// Writes `bytes` (a frame, or something that is not one).
    ///
    /// # Panics
    /// The write fails.
    pub async fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.unwrap();
    }

    /// The next whole frame, prefix included; `None` if the server closed the connection.
    pub async fn next_frame(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Ok(Some(len)) = codec::frame_len(&self.buf, &Limits::DEFAULT) {
                if self.buf.len() >= len {
                    return Some(self.buf.drain(..len).collect());
                }
            }
            self.buf.reserve(64 * 1024);
            match self.stream.read_buf(&mut self.buf).await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
        }
    }

    /// The next whole frame.
    ///
    /// # Panics
    /// The server closed the connection.
    pub async fn read_frame(&mut self) -> Vec<u8> {
        self.next_frame().await.expect("the server closed the connection")
    }

    /// Sends one frame and returns the reply frame.
    ///
    /// # Panics
    /// Writing fails or the server closed the connection.
    pub async fn call(&mut self, bytes: &[u8]) -> Vec<u8> {
        self.send(bytes).await;
        self.read_frame().await
    }

    /// Sends `cmd` and decodes the reply.
    ///
    /// # Panics
    /// As [`Self::call`], or the reply is not one whole frame.
    pub async fn request(&mut self, cmd: &RemotingCommand) -> RemotingCommand {
        let frame = self.call(&codec::encode_to_vec(cmd).unwrap()).await;
        let (reply, used) = codec::decode(&frame, &Limits::DEFAULT).unwrap().expect("a whole frame");
        assert_eq!(used, frame.len());
        reply
    }

    /// Whether the server closes this connection (reading and discarding anything before).
    pub async fn closed_by_server(&mut self) -> bool {
        while self.next_frame().await.is_some() {}
        true
    }
}

/// A [`Client`] that sends route queries for `topic` (answered on its connection, never by the
/// owner) through a tiny receive window and has stopped reading ([`Client::stop_reading`]), so
/// its connection cannot finish until the peer reads (or the server gives up on it).
#[derive(Debug)]
pub struct CloggedPeer {
    client: Client,
}

impl CloggedPeer {
    /// Connects and floods until the server stops reading.
    ///
    /// # Panics
    /// The connection or a write fails.
    pub async fn flood(addr: SocketAddr, topic: &str) -> Self {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let mut client = Client::over(socket.connect(addr).await.unwrap());
        let burst: Vec<u8> = (0..1000)
            .flat_map(|opaque| {
                let mut cmd = request(RequestCode::GetRouteInfoByTopic, &[("topic", topic)]);
                cmd.version = CLIENT_VERSION;
                cmd.opaque = opaque;
                codec::encode_to_vec(&cmd).unwrap()
            })
            .collect();
        client.stop_reading(&burst).await;
        Self { client }
    }

    /// Reads every reply until the server closes the connection; the number of bytes read.
    pub async fn read_to_end(mut self) -> usize {
        let mut replies = Vec::new();
        let _ = self.client.stream.read_to_end(&mut replies).await;
        replies.len()
    }

    /// Waits, still reading nothing, until the server closes the connection: the peer's
    /// stalled write then fails.
    pub async fn closed_by_server(self) {
        let stream = self.client.stream;
        loop {
            if stream.writable().await.is_err() {
                return;
            }
            match stream.try_write(b"\0") {
                Ok(_) => {}
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                Err(_) => return,
            }
        }
    }
}

/// How long [`AsyncClient::call`] waits for its reply: a hang guard, not a speed limit.
pub const REPLY_PATIENCE: Duration = Duration::from_secs(10);

/// One connection; opaques count up from 1.
#[derive(Debug)]
pub struct AsyncClient {
    /// The socket (a burst may be written to it directly).
    pub stream: TcpStream,
    /// What was read and not yet decoded.
    pub buf: Vec<u8>,
    opaque: i32,
}

impl AsyncClient {
    /// Connects with `TCP_NODELAY`, as RocketMQ peers do.
    ///
    /// # Errors
    /// The connection is refused.
    pub async fn connect(addr: SocketAddr) -> io::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Self { stream, buf: Vec::with_capacity(8192), opaque: 0 })
    }

    /// `cmd` with the next opaque, and [`CLIENT_VERSION`] unless it names a version.
    pub fn prepare(&mut self, mut cmd: RemotingCommand) -> RemotingCommand {
        self.opaque = self.opaque.wrapping_add(1);
        cmd.opaque = self.opaque;
        cmd.version = if cmd.version == 0 { CLIENT_VERSION } else { cmd.version };
        cmd
    }

    /// Sends `cmd` and waits for the reply with its opaque (requests the server sends are
    /// skipped; a response to another opaque is an error).
    ///
    /// # Errors
    /// Writing or reading fails, the reply does not decode, or none came within
    /// [`REPLY_PATIENCE`].
    pub async fn call(&mut self, cmd: RemotingCommand) -> Result<RemotingCommand, String> {
        let cmd = self.prepare(cmd);
        let frame = codec::encode_to_vec(&cmd).map_err(|e| e.to_string())?;
        let exchange = async {
            self.stream.write_all(&frame).await.map_err(|e| format!("write: {e}"))?;
            loop {
                let reply = self.next_frame().await?.ok_or("the server closed the connection")?;
                if reply.is_response() && reply.opaque == cmd.opaque {
                    return Ok(reply);
                }
                if reply.is_response() {
                    return Err(format!("reply with opaque {} to request {}", reply.opaque, cmd.opaque));
                }
            }
        };
        tokio::time::timeout(REPLY_PATIENCE, exchange)
            .await
            .unwrap_or_else(|_| Err(format!("no reply to code {} within {REPLY_PATIENCE:?}", cmd.code)))
    }

    /// Sends `cmd` one-way: no reply comes.
    ///
    /// # Errors
    /// The write fails.
    pub async fn send(&mut self, cmd: RemotingCommand) -> Result<(), String> {
        let mut cmd = self.prepare(cmd);
        cmd.flag = FLAG_ONEWAY;
        let frame = codec::encode_to_vec(&cmd).map_err(|e| e.to_string())?;
        self.stream.write_all(&frame).await.map_err(|e| format!("write: {e}"))
    }

    /// The next frame the server sends; `None` once it closed the connection.
    ///
    /// # Errors
    /// Reading fails or a frame does not decode.
    pub async fn next_frame(&mut self) -> Result<Option<RemotingCommand>, String> {
        loop {
            match codec::decode(&self.buf, &Limits::DEFAULT) {
                Ok(Some((frame, used))) => {
                    self.buf.drain(..used);
                    return Ok(Some(frame));
                }
                Ok(None) => {}
                Err(error) => return Err(format!("undecodable reply: {error}")),
            }
            self.buf.reserve(8192);
            match self.stream.read_buf(&mut self.buf).await {
                Ok(0) => return Ok(None),
                Ok(_) => {}
                Err(error) => return Err(format!("read: {error}")),
            }
        }
    }
}

/// Writes `cmd` to any stream (plaintext or TLS) and reads one frame back; `None` if the
/// connection ends first.
///
/// # Panics
/// `cmd` does not encode, or neither a frame nor the end came within [`PATIENCE`].
pub async fn call<S: AsyncRead + AsyncWrite + Unpin>(stream: &mut S, cmd: &RemotingCommand) -> Option<RemotingCommand> {
    stream.write_all(&codec::encode_to_vec(cmd).unwrap()).await.ok()?;
    read_frame(stream).await
}

/// Reads one whole frame; `None` if the connection ends (or fails) first.
///
/// # Panics
/// Neither a frame nor the end came within [`PATIENCE`].
pub async fn read_frame<S: AsyncRead + Unpin>(stream: &mut S) -> Option<RemotingCommand> {
    let mut buf = Vec::new();
    loop {
        if let Ok(Some((cmd, _))) = codec::decode(&buf, &Limits::DEFAULT) {
            return Some(cmd);
        }
        let mut chunk = [0u8; 4096];
        match tokio::time::timeout(PATIENCE, stream.read(&mut chunk)).await {
            Ok(Ok(0) | Err(_)) => return None,
            Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
            Err(_) => panic!("no frame and no close within {PATIENCE:?}"),
        }
    }
}
