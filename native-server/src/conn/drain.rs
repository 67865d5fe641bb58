//! What a connection takes in at shutdown: the bytes its peer had already sent, read without
//! waiting for more (the connection task then answers them and closes).

use std::io;

use bytes::BytesMut;
use tokio::io::AsyncRead;
use tokio::net::TcpStream;

/// Bytes taken per read.
const CHUNK: usize = 8 * 1024;

/// At shutdown, on a plaintext connection: takes in what the peer had already sent.
pub(super) fn read_socket(stream: &TcpStream, inbuf: &mut BytesMut, max: usize) {
    // Read the socket itself: tokio may not have seen the readiness event for bytes that
    // have already arrived, and its `try_read` would then report `WouldBlock`.
    let Ok(mut socket) = duplicate(stream) else { return };
    let mut chunk = vec![0; CHUNK];
    while inbuf.len() < max {
        match io::Read::read(&mut socket, &mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => inbuf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// At shutdown, on a TLS connection: takes in what is readable now, without waiting (bytes
/// still encrypted in the socket are only as visible as tokio's readiness makes them).
pub(super) fn read_ready<R: AsyncRead + Unpin>(reader: &mut R, inbuf: &mut BytesMut, max: usize) {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let mut chunk = vec![0; CHUNK];
    while inbuf.len() < max {
        let mut buf = tokio::io::ReadBuf::new(&mut chunk);
        match std::pin::Pin::new(&mut *reader).poll_read(&mut cx, &mut buf) {
            std::task::Poll::Ready(Ok(())) if !buf.filled().is_empty() => inbuf.extend_from_slice(buf.filled()),
            _ => break,
        }
    }
}

/// A second handle on the same non-blocking socket, read without tokio's readiness cache.
#[cfg(unix)]
fn duplicate(stream: &TcpStream) -> io::Result<std::net::TcpStream> {
    use std::os::fd::AsFd as _;
    Ok(std::net::TcpStream::from(stream.as_fd().try_clone_to_owned()?))
}

#[cfg(windows)]
fn duplicate(stream: &TcpStream) -> io::Result<std::net::TcpStream> {
    use std::os::windows::io::AsSocket as _;
    let socket = std::net::TcpStream::from(stream.as_socket().try_clone_to_owned()?);
    socket.set_nonblocking(true)?;
    Ok(socket)
}

#[cfg(not(any(unix, windows)))]
fn duplicate(_stream: &TcpStream) -> io::Result<std::net::TcpStream> {
    Err(io::ErrorKind::Unsupported.into())
}
