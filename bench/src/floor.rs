//! The floor: a server that speaks the protocol and nothing else.
//!
//! Per connection it reads bytes, splits and decodes each frame with the core codec (the
//! header must be read to echo `opaque`), and answers every request with SUCCESS and one fixed
//! body of the size of a real route reply, encoded with the core codec — no request parsing,
//! no lookup, no owner task, no snapshot. Replies to a batch of requests go out in one write.
//! What it serves per second on a machine is the ceiling for any NameServer built on this
//! codec and runtime there.

use std::io;
use std::sync::Arc;

use bytes::{Buf, BytesMut};
use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::{RemotingCommand, ResponseCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Serves until the listener fails.
///
/// # Errors
/// Accepting fails.
pub async fn serve(listener: TcpListener, body: Arc<[u8]>) -> io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        tokio::spawn(connection(stream, Arc::clone(&body)));
    }
}

async fn connection(mut stream: TcpStream, body: Arc<[u8]>) {
    let limits = Limits::DEFAULT;
    let mut inbuf = BytesMut::with_capacity(64 * 1024);
    let mut out = Vec::with_capacity(64 * 1024);
    loop {
        match codec::frame_len(&inbuf, &limits) {
            Ok(Some(len)) if len > inbuf.len() => inbuf.reserve(len - inbuf.len()),
            Ok(_) if inbuf.capacity() - inbuf.len() < 4096 => inbuf.reserve(64 * 1024),
            Ok(_) => {}
            Err(_) => return,
        }
        match stream.read_buf(&mut inbuf).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        loop {
            match codec::decode(&inbuf, &limits) {
                Ok(Some((cmd, used))) => {
                    inbuf.advance(used);
                    if !cmd.is_oneway() && !cmd.is_response() {
                        let reply = RemotingCommand::response_to(&cmd, ResponseCode::Success);
                        if codec::encode_with_body(&reply, &body, &mut out).is_err() {
                            return;
                        }
                    }
                }
                Ok(None) => break,
                Err(_) => return,
            }
        }
        if !out.is_empty() {
            if stream.write_all(&out).await.is_err() {
                return;
            }
            out.clear();
        }
    }
}
