//! Shared by the reliability tests (`hostile/`, `security.rs`): the `nameserver` binary
//! started with a properties file, blocking raw peers, a witness client that checks route
//! answers while something hostile happens, `/proc` readings of the daemon, and hand-built
//! hostile bytes (zlib streams included, written here so no compressor is needed).

use std::io::{self, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nameserver_core::TopicName;
use nameserver_core::codec::{self, Limits};
use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::body::{RegisterBrokerBody, TopicConfig};
use nameserver_core::protocol::{RemotingCommand, RequestCode};

use nameserver_testkit::daemon::Config;

use crate::support::{Daemon, PATIENCE};

/// The `nameserver` binary with its home, `-c` properties file and KV file in a temporary
/// directory.
pub(crate) struct Server {
    pub(crate) daemon: Daemon,
    pub(crate) home: tempfile::TempDir,
    /// The `-c` file (also `configStorePath`).
    pub(crate) properties: PathBuf,
    pub(crate) kv: PathBuf,
}

impl Server {
    /// Starts the binary with `kvConfigPath` in its home plus `settings` (properties lines)
    /// and `args`, without the HTTP console.
    pub(crate) fn start(settings: &[(&str, &str)], args: &[&str]) -> Self {
        // The HTTP console is not under test here, and would take 127.0.0.1:8080.
        Self::start_with(settings, &[&["--no-http"], args].concat())
    }

    /// [`Self::start`] with the HTTP console on 127.0.0.1 (any port), and its address.
    pub(crate) fn start_with_console(settings: &[(&str, &str)], args: &[&str]) -> (Self, SocketAddr) {
        let server = Self::start_with(settings, &[&["--http-bind", "127.0.0.1", "--http-port", "0"], args].concat());
        let console = crate::support::eventually_blocking("the console's address in the log", || {
            let log = server.daemon.log();
            let (_, rest) = log.split_once("HTTP console on http://")?;
            rest.split('/').next()?.parse().ok()
        });
        (server, console)
    }

    /// [`Self::start`] with glibc's malloc held to one arena (`MALLOC_ARENA_MAX=1`): a memory
    /// test then sees a leak rather than each thread's arena taking its first large
    /// registration at a different round.
    pub(crate) fn start_one_arena(settings: &[(&str, &str)], args: &[&str]) -> Self {
        Self::start_env(settings, &[&["--no-http"], args].concat(), &[("MALLOC_ARENA_MAX", "1")])
    }

    fn start_with(settings: &[(&str, &str)], args: &[&str]) -> Self {
        Self::start_env(settings, args, &[])
    }

    fn start_env(settings: &[(&str, &str)], args: &[&str], env: &[(&str, &str)]) -> Self {
        let home = tempfile::tempdir().unwrap();
        let config = Config::write(home.path(), settings);
        let daemon = Daemon::configured_env(home.path(), &config, args, env);
        Self { daemon, home, properties: config.properties, kv: config.kv }
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.daemon.addr
    }

    pub(crate) fn pid(&self) -> u32 {
        self.daemon.child.id()
    }

    /// A blocking peer with read and write timeouts of [`PATIENCE`].
    pub(crate) fn peer(&self) -> Peer {
        Peer::connect(self.addr())
    }

    /// The daemon's resident memory, threads and open file descriptors now.
    pub(crate) fn usage(&self) -> Usage {
        Usage::of(self.pid())
    }
}

/// What `/proc/<pid>` says about a process.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Usage {
    /// `VmRSS` in KiB.
    pub(crate) rss_kib: u64,
    /// `VmHWM` (peak resident) in KiB.
    pub(crate) peak_kib: u64,
    pub(crate) threads: u64,
    pub(crate) fds: usize,
}

impl Usage {
    pub(crate) fn of(pid: u32) -> Self {
        let sample = nameserver_testkit::ProcSample::of(pid).unwrap();
        Self { rss_kib: sample.rss_kib, peak_kib: sample.hwm_kib, threads: sample.threads, fds: sample.fds }
    }

    pub(crate) fn rss_mib(self) -> f64 {
        self.rss_kib as f64 / 1024.0
    }
}

/// Waits until `check` holds for the daemon's usage (it settles after connections close).
pub(crate) fn settles(server: &Server, what: &str, check: impl Fn(Usage) -> bool) -> Usage {
    crate::support::eventually_blocking(what, || Some(server.usage()).filter(|usage| check(*usage)))
}

/// A blocking raw peer.
pub(crate) struct Peer {
    pub(crate) stream: TcpStream,
    buf: Vec<u8>,
}

impl Peer {
    pub(crate) fn connect(addr: SocketAddr) -> Self {
        Self::over(TcpStream::connect(addr).unwrap())
    }

    /// A peer whose connection comes from `source` (on Linux any address of 127.0.0.0/8):
    /// the daemon tells sources apart by address.
    pub(crate) fn connect_from(addr: SocketAddr, source: &str) -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap();
        let stream = runtime.block_on(async {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind(SocketAddr::new(source.parse().unwrap(), 0)).unwrap();
            socket.connect(addr).await
        });
        let stream = stream.unwrap().into_std().unwrap();
        stream.set_nonblocking(false).unwrap();
        Self::over(stream)
    }

    fn over(stream: TcpStream) -> Self {
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        stream.set_write_timeout(Some(PATIENCE)).unwrap();
        stream.set_nodelay(true).unwrap();
        Self { stream, buf: Vec::new() }
    }

    /// Writes `bytes`; `false` if the server had already closed the connection.
    pub(crate) fn send(&mut self, bytes: &[u8]) -> bool {
        self.stream.write_all(bytes).is_ok()
    }

    /// The next whole frame, or why there is none: `Err(UnexpectedEof)` or a reset when the
    /// server closed the connection, `Err(WouldBlock | TimedOut)` after [`PATIENCE`].
    pub(crate) fn next_frame(&mut self) -> io::Result<Vec<u8>> {
        loop {
            if let Ok(Some(len)) = codec::frame_len(&self.buf, &Limits::DEFAULT) {
                if self.buf.len() >= len {
                    return Ok(self.buf.drain(..len).collect());
                }
            }
            let mut chunk = [0; 64 * 1024];
            match self.stream.read(&mut chunk)? {
                0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                n => self.buf.extend_from_slice(&chunk[..n]),
            }
        }
    }

    /// The next reply, decoded.
    pub(crate) fn reply(&mut self) -> RemotingCommand {
        let frame = self.next_frame().unwrap_or_else(|error| panic!("no reply: {error}"));
        codec::decode(&frame, &Limits::DEFAULT).unwrap().unwrap().0
    }

    pub(crate) fn call(&mut self, cmd: &RemotingCommand) -> RemotingCommand {
        assert!(self.send(&codec::encode_to_vec(cmd).unwrap()), "the server closed the connection");
        self.reply()
    }

    /// Whether the server closes the connection (within [`PATIENCE`]) without sending
    /// anything first.
    pub(crate) fn closed_without_reply(&mut self) -> bool {
        match self.next_frame() {
            Ok(frame) => panic!("expected a close, got a frame of {} bytes", frame.len()),
            Err(error) => is_close(&error),
        }
    }

    /// Whether the server closes the connection (within [`PATIENCE`]) with no RocketMQ frame
    /// first (bytes that are not a whole frame, such as a TLS alert, may come).
    pub(crate) fn closes_without_a_frame(&mut self) -> bool {
        let mut chunk = [0; 4096];
        loop {
            match self.stream.read(&mut chunk) {
                Ok(0) => return true,
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    if matches!(codec::decode(&self.buf, &Limits::DEFAULT), Ok(Some(_))) {
                        return false;
                    }
                }
                Err(error) => return is_close(&error),
            }
        }
    }

    /// Reads and discards until the server closes the connection; the number of frames read,
    /// or `None` if it stayed open for [`PATIENCE`].
    pub(crate) fn frames_until_close(&mut self) -> Option<usize> {
        let mut frames = 0;
        loop {
            match self.next_frame() {
                Ok(_) => frames += 1,
                Err(error) if is_close(&error) => return Some(frames),
                Err(_) => return None,
            }
        }
    }

    /// Whether nothing arrives for `quiet` while the connection stays open.
    pub(crate) fn silent_for(&mut self, quiet: Duration) -> bool {
        self.stream.set_read_timeout(Some(quiet)).unwrap();
        let mut byte = [0; 1];
        let silent = matches!(self.stream.read(&mut byte),
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut));
        self.stream.set_read_timeout(Some(PATIENCE)).unwrap();
        silent && self.buf.is_empty()
    }
}

fn is_close(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::UnexpectedEof | io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted
    )
}

/// A request with JSON header, `opaque` and fields.
pub(crate) fn request(code: RequestCode, opaque: i32, fields: &[(&str, &str)]) -> RemotingCommand {
    let mut cmd = RemotingCommand::request(code);
    cmd.opaque = opaque;
    cmd.version = 479;
    for (key, value) in fields {
        cmd = cmd.with_field(key, *value);
    }
    cmd
}

pub(crate) fn route_query(topic: &str, opaque: i32) -> RemotingCommand {
    request(RequestCode::GetRouteInfoByTopic, opaque, &[("topic", topic)])
}

/// REGISTER_BROKER of broker `name` (id 0, cluster `cluster`, address `addr`) with `topics`,
/// JSON body. (A first registration with a single topic is refused, as in Java: give two.)
pub(crate) fn register(cluster: &str, name: &str, addr: &str, topics: &[&str], opaque: i32) -> RemotingCommand {
    let mut body = RegisterBrokerBody::default();
    body.topic_config_wrapper.data_version.counter = 1;
    for topic in topics {
        body.topic_config_wrapper.topic_config_table.insert(TopicName::from(*topic), TopicConfig::new(*topic, 4));
    }
    request(
        RequestCode::RegisterBroker,
        opaque,
        &[
            ("clusterName", cluster),
            ("brokerName", name),
            ("brokerAddr", addr),
            ("brokerId", "0"),
            ("haServerAddr", addr),
            ("enableActingMaster", "false"),
        ],
    )
    .with_body(body.to_json(JsonStyle::Plain))
}

/// The topic the witness's broker serves.
pub(crate) const WITNESS_TOPIC: &str = "WitnessTopic";

/// A well-behaved client that registers a broker and then asks for its route every few
/// milliseconds on its own connection, checking every answer against the first.
pub(crate) struct Witness {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Watched>,
}

/// What a [`Witness`] saw.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Watched {
    /// Correct answers received.
    pub(crate) answers: usize,
    /// The longest wait for one of them.
    pub(crate) slowest: Duration,
}

/// How often the witness's broker registers again (a Java broker's default period).
const WITNESS_HEARTBEAT: Duration = Duration::from_secs(30);

/// How long a witness's answer may take before the test fails: a hang guard (load makes
/// anything late); the slowest answer is reported as a figure.
pub(crate) const WITNESS_PATIENCE: Duration = PATIENCE;

impl Witness {
    pub(crate) fn start(server: &Server) -> Self {
        let mut peer = server.peer();
        let registration = |opaque| {
            register("WitnessCluster", "witness-broker", "127.0.0.1:40911", &[WITNESS_TOPIC, "WitnessTopic2"], opaque)
        };
        let registered = peer.call(&registration(1));
        assert_eq!(registered.code, 0, "witness registration: {registered:?}");
        let expected = peer.call(&route_query(WITNESS_TOPIC, 2));
        assert_eq!(expected.code, 0, "witness route: {expected:?}");
        // A stall shows as a slow answer (reported by `finish`), not as a timeout here.
        peer.stream.set_read_timeout(Some(Duration::from_secs(300))).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut watched = Watched { answers: 0, slowest: Duration::ZERO };
            let mut opaque = 3;
            let mut heartbeat = Instant::now() + WITNESS_HEARTBEAT;
            while !stopping.load(Ordering::Relaxed) || watched.answers == 0 {
                // As a real broker does: a test slowed past the 120 s expiry keeps its witness.
                if Instant::now() >= heartbeat {
                    let again = peer.call(&registration(opaque));
                    assert_eq!((again.code, again.opaque), (0, opaque), "witness re-registration: {again:?}");
                    opaque += 1;
                    heartbeat = Instant::now() + WITNESS_HEARTBEAT;
                }
                let started = Instant::now();
                let reply = peer.call(&route_query(WITNESS_TOPIC, opaque));
                let took = started.elapsed();
                assert_eq!((reply.code, reply.opaque), (0, opaque), "witness answer {}: {reply:?}", watched.answers);
                assert_eq!(reply.body, expected.body, "witness answer {} changed", watched.answers);
                watched.answers += 1;
                watched.slowest = watched.slowest.max(took);
                opaque += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            watched
        });
        Self { stop, thread }
    }

    /// Stops the witness and checks what it saw: correct answers all along (at least one
    /// after the stop was asked for), none slower than [`WITNESS_PATIENCE`].
    pub(crate) fn finish(self) -> Watched {
        self.stop.store(true, Ordering::Relaxed);
        let watched = match self.thread.join() {
            Ok(watched) => watched,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        assert!(watched.slowest < WITNESS_PATIENCE, "the witness waited {:?} for an answer", watched.slowest);
        watched
    }
}

/// A frame with a JSON header of exactly `header` and `body`.
pub(crate) fn json_frame(header: &[u8], body: &[u8]) -> Vec<u8> {
    typed_frame(0, header, body)
}

/// A frame with serialize type `kind`, `header` and `body`.
pub(crate) fn typed_frame(kind: u8, header: &[u8], body: &[u8]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(8 + header.len() + body.len());
    frame.extend_from_slice(&u32::try_from(4 + header.len() + body.len()).unwrap().to_be_bytes());
    frame.extend_from_slice(&((u32::from(kind) << 24) | u32::try_from(header.len()).unwrap()).to_be_bytes());
    frame.extend_from_slice(header);
    frame.extend_from_slice(body);
    frame
}

// ---------------------------------------------------------------------------------------------
// zlib streams (RFC 1950/1951) with fixed Huffman codes, so the tests need no compressor.
// ---------------------------------------------------------------------------------------------

/// Bits packed least significant first, as DEFLATE wants.
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn new() -> Self {
        Self { out: vec![0x78, 0xDA], acc: 0, n: 0 }
    }

    /// `value`'s low `count` bits, least significant first (header fields, extra bits).
    fn put(&mut self, value: u32, count: u32) {
        self.acc |= u64::from(value) << self.n;
        self.n += count;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code, most significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        let reversed = code.reverse_bits() >> (32 - len);
        self.put(reversed, len);
    }

    /// A literal/length symbol with the fixed code.
    fn symbol(&mut self, symbol: u32) {
        match symbol {
            0..=143 => self.code(0x30 + symbol, 8),
            144..=255 => self.code(0x190 + symbol - 144, 9),
            256..=279 => self.code(symbol - 256, 7),
            _ => self.code(0xC0 + symbol - 280, 8),
        }
    }

    /// A match of `len` (3..=258) bytes `dist` (1..=32768) back.
    fn matched(&mut self, len: u32, dist: u32) {
        const LEN_BASE: [u32; 29] = [
            3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
            227, 258,
        ];
        const LEN_EXTRA: [u32; 29] =
            [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
        const DIST_BASE: [u32; 30] = [
            1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
            4097, 6145, 8193, 12289, 16385, 24577,
        ];
        const DIST_EXTRA: [u32; 30] =
            [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
        let l = if len == 258 { 28 } else { LEN_BASE.iter().rposition(|&b| b <= len).unwrap().min(27) };
        self.symbol(257 + l as u32);
        self.put(len - LEN_BASE[l], LEN_EXTRA[l]);
        let d = DIST_BASE.iter().rposition(|&b| b <= dist).unwrap();
        self.code(d as u32, 5);
        self.put(dist - DIST_BASE[d], DIST_EXTRA[d]);
    }

    fn finish(mut self, adler: u32) -> Vec<u8> {
        self.symbol(256);
        if self.n > 0 {
            self.put(0, 8 - self.n);
        }
        self.out.extend_from_slice(&adler.to_be_bytes());
        self.out
    }
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(4096) {
        for &byte in chunk {
            a += u32::from(byte);
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    (b << 16) | a
}

/// A zlib stream that inflates to `n` zero bytes (n ≡ 1 mod 258 keeps it simple): about
/// 13 bits of input per 258 bytes of output.
pub(crate) fn zlib_zeros(n: usize) -> Vec<u8> {
    assert!(n % 258 == 1, "n must be 1 + 258 k");
    let mut bits = Bits::new();
    bits.put(1, 1); // BFINAL
    bits.put(1, 2); // BTYPE = fixed Huffman
    bits.symbol(0);
    for _ in 0..n / 258 {
        bits.matched(258, 1);
    }
    // Adler-32 of n zeros: a = 1, b = n.
    bits.finish(((n % 65521) as u32) << 16 | 1)
}

/// A zlib stream of `data`, compressed only by matching each byte against the one `dist`
/// bytes back (enough for records of equal length that differ in a few bytes).
pub(crate) fn zlib_against(data: &[u8], dist: usize) -> Vec<u8> {
    let mut bits = Bits::new();
    bits.put(1, 1);
    bits.put(1, 2);
    let mut i = 0;
    while i < data.len() {
        let mut run = 0;
        if i >= dist {
            while run < 258 && i + run < data.len() && data[i + run] == data[i + run - dist] {
                run += 1;
            }
        }
        if run >= 3 {
            bits.matched(run as u32, dist as u32);
            i += run;
        } else {
            bits.symbol(u32::from(data[i]));
            i += 1;
        }
    }
    bits.finish(adler32(data))
}
