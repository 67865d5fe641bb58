//! One task per TCP connection: frames in, replies out.
//!
//! The task reads bytes into a buffer, decodes whole frames with the core codec (reserving the
//! frame's full length once its prefix is known, never more than the frame limit; a frame of
//! megabytes is read 64 KiB at a time, yielding to other tasks between reads), answers
//! route queries from the latest [`RouteSnapshot`] and hands every other command to the
//! owner through the connection's lane of the [`Intake`]. Replies from the owner arrive on a
//! bounded queue and are encoded here, off the owner's core. Requests are pipelined: any
//! number may be in flight, answered in any order and matched by `opaque`, as in Java.
//!
//! Back-pressure never reaches other peers. When the connection's lane holds its 64 requests,
//! this task keeps the next one and stops reading from the peer until the owner takes one;
//! when the owner's queue is full as a whole, it answers SYSTEM_BUSY itself (see [`Intake`]).
//! When more than [`HIGH_WATER`] bytes of replies wait for a peer that does not read, this
//! task stops reading from it and stops taking replies off its queue; once that queue is
//! full, or holds more than
//! [`MAX_UNWRITTEN_REPLY_BYTES`](crate::messages::MAX_UNWRITTEN_REPLY_BYTES), the owner closes
//! the connection instead of waiting. A decode error closes this connection only ("decode
//! exception", as Java logs it).
//!
//! Two deadlines keep a peer from holding its slot with a trickle: a frame must be complete
//! within the base deadline (10 s) plus a second per 64 KiB it announces, counted from its
//! first bytes and not counting the time this task did not read from the peer; and a peer
//! that leaves [`HIGH_WATER`] bytes of replies or more unread for a whole idle period is
//! closed even if it reads now and then (a write does not restart that clock, as it restarts
//! the idle one).

use std::io::{self, IoSlice};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use bytes::{Buf, BufMut as _, BytesMut};
use nameserver_core::ConnId;
use nameserver_core::auth::{Refusal, Verdict};
use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::{RemotingCommand, ResponseCode, WhileGoingAway};
use nameserver_core::server::IdleClock;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{Notify, OwnedSemaphorePermit, mpsc};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

mod deadlines;
mod drain;
mod end;
mod route_fast_path;
mod route_tally;

use self::deadlines::{HIGH_WATER, PeerDeadlines};
use self::end::End;
use self::route_tally::{ROUTE_QUERY, RouteTally};
use crate::handshake::Stream;
use crate::intake::{Admission, BUSY_REMARK, Intake};
use crate::messages::{Handed, Inbound, ReplyBytes, queued_size};
use crate::snapshot::{Outbox, RouteSnapshot};
use crate::source::SourceKey;

/// Requests that only read: sent oneway, nobody reads the answer, so they are dropped here.
/// GET_ROUTEINFO_BY_TOPIC (105), GET_BROKER_CLUSTER_INFO (106), GET_KV_CONFIG (101),
/// GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206), GET_KVLIST_BY_NAMESPACE (219),
/// GET_TOPICS_BY_CLUSTER (224), GET_SYSTEM_TOPIC_LIST_FROM_NS (304), GET_UNIT_TOPIC_LIST (311),
/// GET_HAS_UNIT_SUB_TOPIC_LIST (312), GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST (313),
/// GET_NAMESRV_CONFIG (319) and GET_BROKER_MEMBER_GROUP (901).
const ONEWAY_READS: [i32; 12] = [ROUTE_QUERY, 106, 101, 206, 219, 224, 304, 311, 312, 313, 319, 901];
/// Free buffer space ensured before each read.
const READ_CHUNK: usize = 8 * 1024;
/// Slices handed to one vectored write: eight large route replies and the bytes between them
/// (200 KB on 100 brokers), most of what a socket buffer takes at once.
const WRITE_SLICES: usize = 16;
/// Most bytes taken from the socket in one read. A large frame (a registration of thousands of
/// topics, megabytes) is read this much at a time, yielding between reads, so that a task
/// copying it never holds a worker while route queries on other connections wait behind it.
const READ_MAX: usize = 64 * 1024;

/// What every connection task of one server shares.
#[derive(Debug)]
pub(crate) struct Shared {
    /// The owner's channel (`Connected`, sent by the acceptor).
    pub(crate) owner: mpsc::Sender<Inbound>,
    /// The connections' lanes to the owner.
    pub(crate) intake: Arc<Intake>,
    /// The latest route snapshot (`None`: a port that answers no route query itself, the
    /// controller's).
    pub(crate) routes: Option<Arc<ArcSwap<RouteSnapshot>>>,
    /// Frame and body limits.
    pub(crate) limits: Limits,
    /// Whether requests are read here ([`Handed::read`]): the port's machine is a NameServer,
    /// given the same limits.
    pub(crate) reads: bool,
    /// A connection task is reading a heavy request ([`read_here`]).
    pub(crate) reading_heavy: std::sync::atomic::AtomicBool,
    /// `serverChannelMaxIdleTimeSeconds`; `None` when 0 (never close idle connections).
    pub(crate) idle: Option<Duration>,
    /// Cancelled when the server starts shutting down.
    pub(crate) shutdown: CancellationToken,
    /// Begun while a graceful shutdown still serves: newer clients get GO_AWAY.
    pub(crate) going_away: crate::going_away::GoingAway,
    /// Cancelled when the shutdown grace period is over; every connection's close token is
    /// a child of it.
    pub(crate) force_close: CancellationToken,
    /// Request metrics and route query samples for the HTTP console.
    pub(crate) observe: Arc<crate::observe::Observer>,
    /// TLS on this port (`tls.server.mode` and the certificate in use).
    pub(crate) tls: Arc<crate::tls::reload::TlsPort>,
    /// Who may send what (`--acl-file`, `--auth`, `--allow-from`).
    pub(crate) auth: Arc<crate::acl::Auth>,
    /// Listed proxies, per-source caps and the handshake deadline.
    pub(crate) fairness: crate::source::Fairness,
}

/// [`Handed::read`] on this task, but for a heavy request (a registration of thousands of
/// topics: milliseconds to decode) while another task reads one: that one goes unread, for
/// the owner. Reading one heavy request at a time here, besides the owner's one, leaves a core
/// to the route queries; reading all at once held their replies up for tens of milliseconds.
fn read_here(cmd: RemotingCommand, shared: &Shared, at: Option<std::time::Instant>) -> Handed {
    read_one_heavy(cmd, &shared.reading_heavy, &shared.limits, at)
}

/// [`read_here`] with `reading` the flag of the task reading a heavy request.
fn read_one_heavy(
    cmd: RemotingCommand,
    reading: &std::sync::atomic::AtomicBool,
    limits: &Limits,
    at: Option<std::time::Instant>,
) -> Handed {
    use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
    if queued_size(&cmd) < crate::intake::HEAVY_BYTES {
        return Handed::read(cmd, limits, at);
    }
    if reading.compare_exchange(false, true, Acquire, Relaxed).is_err() {
        return Handed::unread(cmd, at);
    }
    // Lowered however the read ends: a panic in it must not leave every later heavy request
    // to the owner.
    struct Lower<'a>(&'a std::sync::atomic::AtomicBool);
    impl Drop for Lower<'_> {
        fn drop(&mut self) {
            self.0.store(false, Release);
        }
    }
    let _lower = Lower(reading);
    Handed::read(cmd, limits, at)
}

/// The wait for room in a connection's lane, made only when `waiting` (a `select!` branch
/// turned off still builds its future, and making a `Notified` and dropping it is work).
async fn room_made_for(room: &Notify, waiting: bool) {
    if waiting {
        room.notified().await;
    } else {
        std::future::pending::<()>().await;
    }
}

/// A connection task before it starts.
#[derive(Debug)]
pub(crate) struct Connection {
    pub(crate) conn: ConnId,
    pub(crate) remote: String,
    pub(crate) stream: Stream,
    pub(crate) outbound: mpsc::Receiver<RemotingCommand>,
    /// Bytes of replies waiting for the peer, shared with the owner's
    /// [`crate::messages::ConnHandle`].
    pub(crate) unwritten: ReplyBytes,
    pub(crate) close: CancellationToken,
    pub(crate) shared: Arc<Shared>,
    /// Held for the life of the connection (the connection limit).
    pub(crate) permit: OwnedSemaphorePermit,
    /// Who it comes from, for warnings said once a minute per source.
    pub(crate) source: SourceKey,
    /// Who it comes from: the TCP peer, or the client a listed proxy names (what
    /// `--allow-from` is matched against).
    pub(crate) peer: SocketAddr,
}

impl Connection {
    /// Serves the connection until it closes, then tells the owner.
    pub(crate) async fn run(self) {
        let Self { conn, remote, stream, outbound, unwritten, close, shared, permit, source, peer } = self;
        tracing::debug!("NETTY SERVER PIPELINE: channelActive, the channel[{remote}]");
        let goodbye = Goodbye { conn, intake: Arc::clone(&shared.intake) };
        let mut session = Session {
            conn,
            peer,
            source,
            told_to_go_away: false,
            room: shared.intake.room(conn),
            pending: None,
            outbound,
            unwritten,
            published: 0,
            close,
            channel: shared.observe.last_io(conn),
            limits: shared.limits,
            shared,
            inbuf: BytesMut::with_capacity(READ_CHUNK),
            out: Outbox::default(),
            owner_pending: 0,
            idle_clock: IdleClock::new(nameserver_core::Instant::ZERO),
            draining: false,
            drained_sent: false,
            owner_gone: false,
            idle_sent: false,
            large_read: false,
            deadlines: PeerDeadlines::default(),
            tally: RouteTally::default(),
        };
        session.touch();
        let end = match stream {
            Stream::Plain(mut tcp, read) => {
                session.inbuf.extend_from_slice(&read);
                let (mut reader, mut writer) = tcp.split();
                session
                    .serve(&mut reader, &mut writer, |reader, inbuf, max| {
                        drain::read_socket(reader.as_ref(), inbuf, max)
                    })
                    .await
            }
            Stream::Tls(tls) => {
                let (mut reader, mut writer) = tokio::io::split(*tls);
                session.serve(&mut reader, &mut writer, drain::read_ready).await
            }
        };
        end.report(&remote, source, &session.shared.observe, &session.shared.fairness);
        tracing::debug!("NETTY SERVER PIPELINE: channelInactive, the channel[{remote}]");
        drop(goodbye);
        drop(permit);
    }
}

/// Tells the owner that a connection has ended, also when its task panicked: otherwise its
/// brokers would stay registered and the connection counted for the life of the process.
struct Goodbye {
    conn: ConnId,
    intake: Arc<Intake>,
}

impl Drop for Goodbye {
    fn drop(&mut self) {
        if std::thread::panicking() {
            tracing::error!("connection {:?}: its task panicked; removing what it registered", self.conn);
        }
        // After everything it handed over. Refused only once the owner has stopped, when
        // nothing is left to clean.
        self.intake.push(self.conn, Inbound::Disconnected { conn: self.conn });
    }
}

/// A connection's state while it runs (the socket is borrowed separately, split in halves).
struct Session {
    conn: ConnId,
    /// The source requests are checked against.
    peer: SocketAddr,
    /// What warnings about it are said once a minute under.
    source: SourceKey,
    /// A GO_AWAY was sent (logged once per connection).
    told_to_go_away: bool,
    /// Notified when the owner takes one of this connection's requests.
    room: Arc<Notify>,
    /// A request its full lane did not take yet; nothing more is read or decoded meanwhile.
    pending: Option<Handed>,
    outbound: mpsc::Receiver<RemotingCommand>,
    /// Shared with the owner: its queue's bytes plus `published`.
    unwritten: ReplyBytes,
    /// The unwritten bytes of `out` as last added to `unwritten`.
    published: usize,
    close: CancellationToken,
    shared: Arc<Shared>,
    limits: Limits,
    /// Bytes read and not yet decoded.
    inbuf: BytesMut,
    /// Replies not yet written.
    out: Outbox,
    /// Requests forwarded to the owner that still await a reply. While there are any, route
    /// queries go to the owner too, so a connection sees its own earlier writes.
    owner_pending: usize,
    /// The last read or write, on the NameServer's clock: the idle close counts from it.
    idle_clock: IdleClock,
    /// Where the idle clock's last read or write is published for the console's removal
    /// clocks.
    channel: Option<Arc<crate::observe::LastIo>>,
    draining: bool,
    drained_sent: bool,
    owner_gone: bool,
    idle_sent: bool,
    /// The last read took part of a large frame: yield before the next.
    large_read: bool,
    /// The frame and backlog deadlines.
    deadlines: PeerDeadlines,
    /// The route queries answered from their frames since the batch began.
    tally: RouteTally,
}

impl Session {
    /// Serves frames over `reader` and `writer` until the connection ends. At shutdown,
    /// `drain` takes in what the peer had already sent, without waiting for more.
    async fn serve<R, W>(&mut self, reader: &mut R, writer: &mut W, drain: impl Fn(&mut R, &mut BytesMut, usize)) -> End
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        let idle = self.shared.idle;
        let idle_timer = tokio::time::sleep_until(self.idle_due(idle.unwrap_or(Duration::ZERO)));
        let frame_timer = tokio::time::sleep_until(Instant::now());
        let backlog_timer = tokio::time::sleep_until(Instant::now());
        // Awaited once each, not made anew on every turn of the loop: a fresh wait registers
        // with its token's list of waiters and leaves it again, under a lock, and the shutdown
        // token is every connection's. This connection's child of it has a lock of its own.
        let closed = self.close.clone().cancelled_owned();
        let shutdown = self.shared.shutdown.child_token().cancelled_owned();
        tokio::pin!(idle_timer, frame_timer, backlog_timer, closed, shutdown);
        let room = Arc::clone(&self.room);
        loop {
            if std::mem::take(&mut self.large_read) {
                // Behind whatever else is ready: a 64 KiB copy per turn, not megabytes.
                tokio::task::yield_now().await;
            }
            if let Err(end) = self.process_buffered() {
                return end;
            }
            if self.draining && !self.drained_sent && self.pending.is_none() && !self.has_whole_frame() {
                // Everything received before the shutdown has been handed over; once the
                // owner has answered it, it drops this connection's queue.
                self.drained_sent = true;
                if let Err(end) = self.forward(Inbound::Drained { conn: self.conn }) {
                    return end;
                }
            }
            let unwritten = self.out.len();
            if self.owner_gone && unwritten == 0 {
                // Everything owed is written: end with a FIN rather than a bare close.
                let _ = writer.shutdown().await;
                return End::Finished;
            }
            let take_replies = !self.owner_gone && unwritten < HIGH_WATER;
            let read_more = !self.draining && unwritten < HIGH_WATER && self.pending.is_none();
            self.deadlines.reading(read_more);
            // Only while this task reads: a frame waiting behind unread replies is not late.
            let frame_due = if read_more {
                self.deadlines.frame_due(&self.inbuf, &self.limits, self.shared.fairness.deadline)
            } else {
                None
            };
            if let Some(due) = frame_due
                && frame_timer.deadline() != due
            {
                frame_timer.as_mut().reset(due);
            }
            let backlog_due = self.deadlines.backlog_due(self.unwritten.get(), idle);
            if let Some(due) = backlog_due
                && backlog_timer.deadline() != due
            {
                backlog_timer.as_mut().reset(due);
            }
            if read_more && self.inbuf.capacity() - self.inbuf.len() < READ_CHUNK / 2 {
                self.inbuf.reserve(READ_CHUNK);
            }
            let mut slices = [IoSlice::new(&[]); WRITE_SLICES];
            let filled = self.out.slices(&mut slices);
            tokio::select! {
                biased;
                () = &mut closed => return End::ClosedByServer,
                () = &mut shutdown, if !self.draining => {
                    self.draining = true;
                    drain(reader, &mut self.inbuf, self.limits.max_frame);
                }
                result = writer.write_vectored(&slices[..filled]), if unwritten > 0 => match result {
                    Ok(0) => return End::Io(io::ErrorKind::WriteZero.into()),
                    Ok(n) => self.wrote(n),
                    Err(error) => return End::Io(error),
                },
                reply = self.outbound.recv(), if take_replies => match reply {
                    Some(cmd) => {
                        if let Err(end) = self.push_reply(&cmd) {
                            return end;
                        }
                    }
                    None => self.owner_gone = true,
                },
                // Made only while a request waits: a branch turned off is still built.
                () = room_made_for(&room, self.pending.is_some()), if self.pending.is_some() => {}
                result = read_some(reader, &mut self.inbuf), if read_more => match result {
                    Ok(0) => return End::PeerClosed,
                    Ok(_) => {
                        self.touch();
                        self.large_read = self.reading_large_frame();
                    }
                    Err(error) => return End::Io(error),
                },
                () = &mut frame_timer, if frame_due.is_some() => {
                    return End::FrameDeadline(codec::frame_len(&self.inbuf, &self.limits).ok().flatten());
                }
                () = &mut backlog_timer, if backlog_due.is_some() => return End::SlowReader(self.unwritten.get()),
                () = &mut idle_timer, if idle.is_some() && !self.idle_sent => {
                    let idle = idle.unwrap_or(Duration::ZERO);
                    if self.idle_clock.expired(self.shared.observe.clock.now(), idle) {
                        self.idle_sent = true;
                        if let Err(end) = self.forward(Inbound::Idle {
                            conn: self.conn,
                            last_io: self.idle_clock.last(),
                            idle,
                        }) {
                            return end;
                        }
                    } else {
                        idle_timer.as_mut().reset(self.idle_due(idle));
                    }
                }
            }
        }
    }

    /// Decodes and dispatches whole frames while the peer keeps up with its replies and its
    /// lane has room.
    fn process_buffered(&mut self) -> Result<(), End> {
        let processed = self.process_frames();
        self.report_routes_answered();
        processed
    }

    fn process_frames(&mut self) -> Result<(), End> {
        if let Some(handed) = self.pending.take() {
            self.hand_over(handed)?;
        }
        while self.pending.is_none() && self.out.len() < HIGH_WATER {
            let len = match codec::frame_len(&self.inbuf, &self.limits) {
                Ok(Some(len)) => len,
                Ok(None) => break,
                Err(error) => return Err(End::Decode(error)),
            };
            if self.inbuf.len() < len {
                // The prefix was checked against the frame limit: reserve the rest once.
                self.inbuf.reserve(len - self.inbuf.len());
                break;
            }
            if self.answered_from_frame(len) {
                self.inbuf.advance(len);
                self.deadlines.frame_taken();
                self.publish_unwritten();
                continue;
            }
            let decoded = if len > HIGH_WATER && self.inbuf.len() == len {
                // A large frame (a registration of many topics) alone in the buffer: its bytes
                // become the body rather than a copy, and the connection keeps no large buffer.
                let frame = std::mem::replace(&mut self.inbuf, BytesMut::with_capacity(READ_CHUNK));
                codec::decode_owned(frame.into(), &self.limits)
            } else {
                codec::decode(&self.inbuf[..len], &self.limits).map(|cmd| cmd.map(|(cmd, _)| cmd))
            };
            let cmd = match decoded {
                Ok(Some(cmd)) => cmd,
                Ok(None) => break,
                Err(error) => return Err(End::Decode(error)),
            };
            if !self.inbuf.is_empty() {
                self.inbuf.advance(len);
            }
            self.deadlines.frame_taken();
            self.dispatch(cmd)?;
        }
        self.deadlines.rest_buffered(self.inbuf.len());
        Ok(())
    }

    fn dispatch(&mut self, cmd: RemotingCommand) -> Result<(), End> {
        #[cfg(feature = "test-hooks")]
        assert!(
            cmd.code != crate::test_hooks::PANIC_REQUEST_CODE,
            "{}: a connection task panics",
            crate::test_hooks::MARKER
        );
        self.shared.observe.traffic.read(self.conn, cmd.code);
        // Before the snapshot or the owner sees it: a route answer is checked as any other.
        if let Verdict::Refuse(refusal) = self.shared.auth.check(self.peer.ip(), &cmd) {
            return self.refuse(&cmd, &refusal);
        }
        if self.shared.going_away.has_begun() {
            match nameserver_core::protocol::while_going_away(&cmd) {
                WhileGoingAway::Serve => {}
                WhileGoingAway::Drop => return Ok(()),
                WhileGoingAway::Answer(reply) => return self.go_away(&cmd, &reply),
            }
        }
        if cmd.is_oneway() && !cmd.is_response() && ONEWAY_READS.contains(&cmd.code) {
            // Nobody reads the answer: computing it would only take the owner's time from others.
            self.shared.observe.oneway_read_dropped();
            return Ok(());
        }
        let at = self.shared.observe.start();
        if self.answered_from_snapshot(&cmd, at) {
            return Ok(());
        }
        let handed = if self.shared.reads { read_here(cmd, &self.shared, at) } else { Handed::unread(cmd, at) };
        self.hand_over(handed)
    }

    /// Answers a refused request NO_PERMISSION with the refusal's remark (a oneway one gets no
    /// reply); counted, and said once a minute per source.
    fn refuse(&mut self, cmd: &RemotingCommand, refusal: &Refusal) -> Result<(), End> {
        let at = self.shared.observe.start();
        self.shared.observe.auth_refused(refusal.class);
        if self.shared.fairness.warned.allow(self.source, "auth") {
            tracing::warn!(
                "refused request code {} ({}) from {}: {}; said once a minute per source",
                cmd.code,
                refusal.class,
                self.peer,
                refusal.remark
            );
        }
        if cmd.is_oneway() || cmd.is_response() {
            return Ok(());
        }
        let reply = refusal.reply_to(cmd);
        self.answer_here(cmd.code, &reply, at)
    }

    /// Answers GO_AWAY to `cmd` here, without the owner; the first on this connection is logged.
    fn go_away(&mut self, cmd: &RemotingCommand, reply: &RemotingCommand) -> Result<(), End> {
        if !self.told_to_go_away {
            self.told_to_go_away = true;
            tracing::info!(
                "shutting down: GO_AWAY to {} (request code {}, opaque {}, version {})",
                self.peer,
                cmd.code,
                cmd.opaque,
                cmd.version
            );
        }
        let at = self.shared.observe.start();
        self.answer_here(cmd.code, reply, at)
    }

    /// Sends `reply` to a request of `code` answered in this task, not by the owner.
    fn answer_here(&mut self, code: i32, reply: &RemotingCommand, at: Option<std::time::Instant>) -> Result<(), End> {
        let encoded = codec::encode(reply, self.out.bytes_mut()).map_err(|error| End::Encode(error.to_string()));
        self.publish_unwritten();
        self.shared.observe.traffic.written(self.conn, reply.code);
        self.shared.observe.answered_here(self.conn, code, reply.code, at);
        encoded
    }

    /// Puts a request in the connection's lane; one that does not fit waits in `pending`, one
    /// refused for a full owner queue is answered SYSTEM_BUSY here (a oneway one is dropped).
    fn hand_over(&mut self, handed: Handed) -> Result<(), End> {
        let (two_way, at) = (!handed.cmd.is_oneway() && !handed.cmd.is_response(), handed.at);
        match self.shared.intake.request(self.conn, handed) {
            Admission::Queued => {
                if two_way {
                    self.owner_pending += 1;
                }
                Ok(())
            }
            Admission::Full(handed) => {
                self.pending = Some(handed);
                Ok(())
            }
            Admission::Busy(cmd) if two_way => {
                let busy = RemotingCommand::response_to(&cmd, ResponseCode::SystemBusy).with_remark(BUSY_REMARK);
                self.answer_here(cmd.code, &busy, at)
            }
            Admission::Busy(_) => Ok(()),
            Admission::Closed => Err(End::Finished),
        }
    }

    /// Hands the owner a message about this connection, after the requests before it.
    fn forward(&self, message: Inbound) -> Result<(), End> {
        if self.shared.intake.push(self.conn, message) { Ok(()) } else { Err(End::Finished) }
    }

    fn push_reply(&mut self, cmd: &RemotingCommand) -> Result<(), End> {
        if cmd.is_response() {
            self.owner_pending = self.owner_pending.saturating_sub(1);
        }
        let encoded = codec::encode(cmd, self.out.bytes_mut()).map_err(|error| End::Encode(error.to_string()));
        // Off the queue and into `out`: counted once, as what `out` holds.
        self.publish_unwritten();
        self.shared.observe.traffic.written(self.conn, cmd.code);
        self.unwritten.sub(queued_size(cmd));
        encoded
    }

    fn wrote(&mut self, n: usize) {
        self.out.advance(n);
        self.touch();
        self.publish_unwritten();
    }

    /// Brings the shared count up to date with what `out` holds unwritten.
    fn publish_unwritten(&mut self) {
        let now = self.out.len();
        if now > self.published {
            self.unwritten.add(now - self.published);
        } else {
            self.unwritten.sub(self.published - now);
        }
        self.published = now;
    }

    /// A read or a write: the idle close counts from now.
    fn touch(&mut self) {
        self.idle_clock.touch(self.shared.observe.clock.at(Instant::now()));
        if let Some(channel) = &self.channel {
            channel.publish(self.idle_clock);
        }
    }

    /// When the idle close is due (unless touched before), on tokio's clock: a timer armed
    /// here finds the idle clock expired when it fires.
    fn idle_due(&self, idle: Duration) -> Instant {
        self.shared.observe.clock.deadline(self.idle_clock.deadline(idle))
    }

    /// Whether the buffer holds the start of a frame larger than one read.
    fn reading_large_frame(&self) -> bool {
        matches!(codec::frame_len(&self.inbuf, &self.limits), Ok(Some(len)) if len > READ_MAX && self.inbuf.len() < len)
    }

    fn has_whole_frame(&self) -> bool {
        matches!(codec::frame_len(&self.inbuf, &self.limits), Ok(Some(len)) if self.inbuf.len() >= len)
    }
}

/// One read of at most [`READ_MAX`] bytes.
async fn read_some<R: AsyncRead + Unpin>(reader: &mut R, inbuf: &mut BytesMut) -> io::Result<usize> {
    let mut limited = inbuf.limit(READ_MAX);
    reader.read_buf(&mut limited).await
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use nameserver_core::protocol::RequestCode;

    use super::*;

    #[test]
    fn one_heavy_request_is_read_here_at_a_time() {
        let heavy = || {
            RemotingCommand::request(RequestCode::GetAllTopicListFromNameserver)
                .with_body(vec![b' '; crate::intake::HEAVY_BYTES])
        };
        let light = || RemotingCommand::request(RequestCode::GetAllTopicListFromNameserver);
        let reading = AtomicBool::new(false);
        let read = |cmd| read_one_heavy(cmd, &reading, &Limits::DEFAULT, None).parsed.is_some();
        assert!(read(heavy()), "no other is being read");
        assert!(!reading.load(std::sync::atomic::Ordering::Relaxed), "the flag goes down after it");
        reading.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(!read(heavy()), "another is being read: the owner reads this one");
        assert!(read(light()), "a light one is read here all the same");
    }
}
