//! A blocking raw-frame connection: what a broker or a client sends, frame by frame.

use std::io::{self, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::RemotingCommand;

/// One TCP connection speaking RocketMQ remoting frames.
#[derive(Debug)]
pub struct Conn {
    stream: TcpStream,
}

impl Conn {
    /// Connects; reads wait at most `hang_guard` for a reply.
    ///
    /// # Errors
    /// The connection fails.
    pub fn connect(addr: SocketAddr, hang_guard: Duration) -> io::Result<Self> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(hang_guard))?;
        Ok(Self { stream })
    }

    /// Writes raw bytes (a frame, or something that is not one).
    ///
    /// # Errors
    /// The write fails.
    pub fn send_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
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
    pub fn read_frame(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut prefix = [0; 4];
        match self.stream.read_exact(&mut prefix) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof || e.kind() == io::ErrorKind::ConnectionReset => {
                return Ok(None);
            }
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
        self.read_frame()
    }

    /// Waits until the peer closes the connection, discarding what it sends before.
    ///
    /// # Errors
    /// The hang guard ran out first.
    pub fn wait_closed(&mut self) -> io::Result<()> {
        while self.read_frame()?.is_some() {}
        Ok(())
    }
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
