//! One connection of a closed-loop load: `depth` requests in flight, the reply to each one
//! answered by the next request in its slot, until the load ends. The route load and the
//! controller load both run on it.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use bytes::{Buf, BytesMut};
use nameserver_testkit::frames::{OPAQUE_BASE, OPAQUE_SPAN};
use nameserver_testkit::scan::{Reply, next_reply};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// What a load keeps of one connection.
pub(crate) trait ClosedLoop {
    /// Its requests in flight and the bytes not written yet.
    fn slots(&mut self) -> &mut Slots;
    /// Appends slot `slot`'s next request to [`Slots::out`], sent at `now`.
    fn push(&mut self, slot: usize, now: Instant);
    /// Where connection errors and unreadable frames count.
    fn errors(&mut self) -> &mut Errors;
    /// The load's phase at `now`, read once for every reply of one read.
    fn phase(&self, now: Instant) -> Option<usize>;
    fn reply(&mut self, reply: &Reply, now: Instant, phase: Option<usize>);
}

/// Errors by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Errors {
    /// Connections that failed or closed.
    pub io: u64,
    /// Requests never answered: their connection failed or went silent past the timeout.
    pub lost: u64,
    /// Replies with a code other than SUCCESS, by code.
    pub codes: BTreeMap<i32, u64>,
    /// Replies that match no request in flight, or that do not parse.
    pub protocol: u64,
}

impl Errors {
    /// Every error.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.io + self.lost + self.protocol + self.codes.values().sum::<u64>()
    }

    pub(crate) fn merge(&mut self, other: &Self) {
        self.io += other.io;
        self.lost += other.lost;
        self.protocol += other.protocol;
        for (code, n) in &other.codes {
            *self.codes.entry(*code).or_default() += n;
        }
    }

    /// Counts a reply's code when it is not SUCCESS.
    pub(crate) fn reply_code(&mut self, code: i32) {
        if code != 0 {
            *self.codes.entry(code).or_default() += 1;
        }
    }
}

/// A connection's request slots: which request each has in flight, and the requests appended
/// and not written yet.
#[derive(Debug)]
pub(crate) struct Slots {
    /// Each slot's request in flight: when it was written and its opaque.
    sent: Vec<Option<(Instant, i32)>>,
    generation: u32,
    in_flight: usize,
    /// Requests appended and not written yet.
    pub(crate) out: Vec<u8>,
}

impl Slots {
    /// `depth` free slots, with room for `request_bytes` of each one's request.
    pub(crate) fn new(depth: usize, request_bytes: usize) -> Self {
        Self { sent: vec![None; depth], generation: 0, in_flight: 0, out: Vec::with_capacity(depth * request_bytes) }
    }

    pub(crate) fn depth(&self) -> usize {
        self.sent.len()
    }

    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Takes slot `slot` for a request sent at `now`; its opaque, which says which slot it is
    /// and differs from the slot's last one.
    pub(crate) fn send(&mut self, slot: usize, now: Instant) -> i32 {
        let depth = self.depth();
        let generations = OPAQUE_SPAN / depth as u32;
        self.generation = (self.generation + 1) % generations;
        let opaque = OPAQUE_BASE + (self.generation * depth as u32 + slot as u32) as i32;
        self.sent[slot] = Some((now, opaque));
        self.in_flight += 1;
        opaque
    }

    /// Frees the slot a reply with `opaque` answers: the slot and when its request was sent;
    /// `None` when it answers no request in flight (a protocol error).
    pub(crate) fn answer(&mut self, opaque: i32) -> Option<(usize, Instant)> {
        let slot = opaque.wrapping_sub(OPAQUE_BASE).unsigned_abs() as usize % self.depth();
        let sent = self.sent[slot].filter(|&(_, theirs)| theirs == opaque)?.0;
        self.sent[slot] = None;
        self.in_flight -= 1;
        Some((slot, sent))
    }

    /// Gives up every request in flight; how many there were.
    fn lose_all(&mut self) -> u64 {
        std::mem::take(&mut self.in_flight) as u64
    }
}

/// Fills every slot, then answers each reply with the next request until none is in flight.
pub(crate) async fn drive(conn: &mut impl ClosedLoop, mut stream: TcpStream, mut inbuf: BytesMut, timeout: Duration) {
    let now = Instant::now();
    for slot in 0..conn.slots().depth() {
        conn.push(slot, now);
    }
    loop {
        let out = &mut conn.slots().out;
        if !out.is_empty() {
            if stream.write_all(out).await.is_err() {
                return lose_all(conn, true);
            }
            out.clear();
        }
        if conn.slots().in_flight() == 0 {
            return;
        }
        if inbuf.capacity() - inbuf.len() < 16 * 1024 {
            inbuf.reserve(64 * 1024);
        }
        match tokio::time::timeout(timeout, stream.read_buf(&mut inbuf)).await {
            Ok(Ok(n)) if n > 0 => {}
            Ok(_) => return lose_all(conn, true),
            Err(_) => return lose_all(conn, false),
        }
        let now = Instant::now();
        let phase = conn.phase(now);
        loop {
            let reply = match next_reply(&inbuf) {
                Ok(Some(reply)) => reply,
                Ok(None) => break,
                Err(_) => {
                    conn.errors().protocol += 1;
                    return lose_all(conn, true);
                }
            };
            inbuf.advance(reply.frame_len);
            conn.reply(&reply, now, phase);
        }
    }
}

/// The connection failed (`io`) or went silent: everything in flight is lost.
fn lose_all(conn: &mut impl ClosedLoop, io: bool) {
    let lost = conn.slots().lose_all();
    let errors = conn.errors();
    errors.io += u64::from(io);
    errors.lost += lost;
}
