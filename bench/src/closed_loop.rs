//! One connection of a closed-loop load: `depth` requests in flight, the reply to each one
//! answered by the next request in its slot, until the load ends. The route load and the
//! controller load both run on it.

use std::time::{Duration, Instant};

use bytes::{Buf, BytesMut};
use nameserver_testkit::frames::{OPAQUE_BASE, OPAQUE_SPAN};
use nameserver_testkit::scan::{Reply, next_reply};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// What a load keeps of one connection.
pub(crate) trait ClosedLoop {
    /// Requests in flight at once: the slots.
    fn depth(&self) -> usize;
    /// Appends slot `slot`'s next request to [`Self::out`], sent at `now`.
    fn push(&mut self, slot: usize, now: Instant);
    /// Requests appended and not written yet.
    fn out(&mut self) -> &mut Vec<u8>;
    fn in_flight(&self) -> usize;
    /// The connection failed (`io`) or went silent: everything in flight is lost.
    fn lose_all(&mut self, io: bool);
    /// A frame that could not be read (counted; the connection is given up).
    fn malformed(&mut self);
    /// The load's phase at `now`, read once for every reply of one read.
    fn phase(&self, now: Instant) -> Option<usize>;
    fn reply(&mut self, reply: &Reply, now: Instant, phase: Option<usize>);
}

/// The opaque of slot `slot`'s next request: it says which slot it is, and `generation` makes
/// it differ from the slot's last one.
pub(crate) fn next_opaque(generation: &mut u32, depth: usize, slot: usize) -> i32 {
    let generations = OPAQUE_SPAN / depth as u32;
    *generation = (*generation + 1) % generations;
    OPAQUE_BASE + (*generation * depth as u32 + slot as u32) as i32
}

/// Fills every slot, then answers each reply with the next request until none is in flight.
pub(crate) async fn drive(conn: &mut impl ClosedLoop, mut stream: TcpStream, mut inbuf: BytesMut, timeout: Duration) {
    let now = Instant::now();
    for slot in 0..conn.depth() {
        conn.push(slot, now);
    }
    loop {
        let out = conn.out();
        if !out.is_empty() {
            if stream.write_all(out).await.is_err() {
                return conn.lose_all(true);
            }
            out.clear();
        }
        if conn.in_flight() == 0 {
            return;
        }
        if inbuf.capacity() - inbuf.len() < 16 * 1024 {
            inbuf.reserve(64 * 1024);
        }
        match tokio::time::timeout(timeout, stream.read_buf(&mut inbuf)).await {
            Ok(Ok(n)) if n > 0 => {}
            Ok(_) => return conn.lose_all(true),
            Err(_) => return conn.lose_all(false),
        }
        let now = Instant::now();
        let phase = conn.phase(now);
        loop {
            let reply = match next_reply(&inbuf) {
                Ok(Some(reply)) => reply,
                Ok(None) => break,
                Err(_) => {
                    conn.malformed();
                    return conn.lose_all(true);
                }
            };
            inbuf.advance(reply.frame_len);
            conn.reply(&reply, now, phase);
        }
    }
}
