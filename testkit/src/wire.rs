//! A blocking raw-frame client, what a broker or a client sends frame by frame, over TCP or
//! TLS ([`Client::connect_tls`]). The async one is `client::Client` (named, not linked: it
//! links here, and a link back would put the two modules on a cycle).

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::RemotingCommand;
use rustls::pki_types::ServerName;

/// A blocking TLS connection.
pub type TlsStream = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

/// One connection speaking RocketMQ remoting frames.
#[derive(Debug)]
pub struct Client<S = TcpStream> {
    stream: S,
}

impl Client {
    /// Connects; reads wait at most `hang_guard` for a reply.
    ///
    /// # Errors
    /// The connection fails.
    pub fn connect(addr: SocketAddr, hang_guard: Duration) -> io::Result<Self> {
        Ok(Self { stream: tcp(addr, hang_guard)? })
    }

    /// Writes `burst` over and over, whole frames in order, reading nothing, until the write
    /// would block: the server has stopped reading this peer. Returns the bytes written.
    ///
    /// # Errors
    /// A write fails, or `burst` is empty.
    pub fn stop_reading(&mut self, burst: &[u8]) -> io::Result<usize> {
        if burst.is_empty() {
            return Err(io::Error::other("nothing to flood with"));
        }
        self.stream.set_nonblocking(true)?;
        let (mut at, mut written) = (0, 0);
        let outcome = loop {
            match self.stream.write(&burst[at..]) {
                Ok(n) => {
                    at = (at + n) % burst.len();
                    written += n;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break Ok(written),
                Err(e) => break Err(e),
            }
        };
        self.stream.set_nonblocking(false)?;
        outcome
    }
}

impl Client<TlsStream> {
    /// Connects and completes a TLS handshake with `config` for `localhost`; reads wait at most
    /// `hang_guard`.
    ///
    /// # Errors
    /// The connection or the handshake fails.
    pub fn connect_tls(addr: SocketAddr, config: Arc<rustls::ClientConfig>, hang_guard: Duration) -> io::Result<Self> {
        let name = ServerName::try_from("localhost").map_err(io::Error::other)?;
        let tls = rustls::ClientConnection::new(config, name).map_err(io::Error::other)?;
        let mut stream = rustls::StreamOwned::new(tls, tcp(addr, hang_guard)?);
        while stream.conn.is_handshaking() {
            stream.conn.complete_io(&mut stream.sock)?;
        }
        Ok(Self { stream })
    }
}

impl<S: Read + Write> Client<S> {
    /// Writes raw bytes (a frame, or something that is not one).
    ///
    /// # Errors
    /// The write fails.
    pub fn send_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)?;
        self.stream.flush()
    }

    /// Encodes and writes `cmd`.
    ///
    /// # Errors
    /// The write fails.
    pub fn send(&mut self, cmd: &RemotingCommand) -> io::Result<()> {
        let bytes = codec::encode_to_vec(cmd).map_err(|e| io::Error::other(e.to_string()))?;
        self.send_raw(&bytes)
    }

    /// The next whole frame, prefix included; `None` when the peer closed the connection.
    ///
    /// # Errors
    /// A read fails or times out (the hang guard).
    pub fn next_frame(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut prefix = [0; 4];
        match self.stream.read_exact(&mut prefix) {
            Ok(()) => {}
            Err(e) if is_close(&e) => return Ok(None),
            Err(e) => return Err(e),
        }
        let len = usize::try_from(i32::from_be_bytes(prefix)).map_err(|_| io::Error::other("negative frame length"))?;
        let mut frame = prefix.to_vec();
        frame.resize(4 + len, 0);
        self.stream.read_exact(&mut frame[4..])?;
        Ok(Some(frame))
    }

    /// Sends `cmd` and returns the reply frame (`None`: the peer closed the connection).
    ///
    /// # Errors
    /// Writing or reading fails.
    pub fn call(&mut self, cmd: &RemotingCommand) -> io::Result<Option<Vec<u8>>> {
        self.send(cmd)?;
        self.next_frame()
    }

    /// Waits until the peer closes the connection, discarding what it sends before; the number
    /// of frames it sent.
    ///
    /// # Errors
    /// The hang guard ran out first.
    pub fn closed_by_server(&mut self) -> io::Result<usize> {
        let mut frames = 0;
        while self.next_frame()?.is_some() {
            frames += 1;
        }
        Ok(frames)
    }
}

fn tcp(addr: SocketAddr, hang_guard: Duration) -> io::Result<TcpStream> {
    let stream = TcpStream::connect(addr)?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(hang_guard))?;
    stream.set_write_timeout(Some(hang_guard))?;
    Ok(stream)
}

/// A close as reads see it: an end of stream, a reset, or a TLS close without `close_notify`.
fn is_close(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::UnexpectedEof | io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted
    )
}

/// Decodes one whole frame with the core's codec.
///
/// # Errors
/// The frame does not decode.
pub fn decode(frame: &[u8]) -> Result<RemotingCommand, String> {
    match codec::decode(frame, &Limits::DEFAULT) {
        Ok(Some((cmd, _))) => Ok(cmd),
        Ok(None) => Err(String::from("incomplete frame")),
        Err(e) => Err(e.to_string()),
    }
}
