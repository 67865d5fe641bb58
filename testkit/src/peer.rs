//! An external program a test runs beside ours: its own work directory, its output kept in a
//! log file, ready when a port accepts or a log line appears, stopped with SIGTERM then SIGKILL
//! when dropped (so a failing test stops it too).

use std::fmt;
use std::fs::File;
use std::io;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// When a started peer counts as ready.
#[derive(Clone, Debug)]
pub enum Ready {
    /// A TCP connection to this address succeeds.
    Port(SocketAddr),
    /// The log contains this text.
    LogLine(String),
    /// At once (a command run to completion, e.g. mqadmin).
    Started,
}

/// What to start.
#[derive(Debug)]
pub struct PeerSpec {
    /// A short name for messages ("java-namesrv-5.5.0").
    pub name: String,
    /// The program and its arguments, environment and directory (stdout/stderr are replaced).
    pub command: Command,
    /// The peer's own directory (its log is `peer.log` there); removed with the peer.
    pub dir: tempfile::TempDir,
    /// When it is ready.
    pub ready: Ready,
    /// How long it may take to get ready before we give up: a hang guard, not a timing claim.
    pub hang_guard: Duration,
    /// How long SIGTERM has before SIGKILL.
    pub grace: Duration,
}

/// Why a peer is not running.
#[derive(Debug)]
pub enum PeerError {
    /// What the peer needs is not on this machine and could not be fetched.
    Missing {
        /// What is missing.
        what: String,
        /// How to get it.
        how_to_get: String,
    },
    /// The program could not be started.
    Spawn {
        /// The peer.
        name: String,
        /// The error.
        error: io::Error,
    },
    /// It exited before it was ready.
    Exited {
        /// The peer.
        name: String,
        /// Its exit status.
        status: String,
        /// The end of its log.
        log_tail: String,
    },
    /// It was not ready within the hang guard.
    NotReady {
        /// The peer.
        name: String,
        /// The guard.
        after: Duration,
        /// The end of its log.
        log_tail: String,
    },
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing { what, how_to_get } => write!(f, "missing {what}; to get it: {how_to_get}"),
            Self::Spawn { name, error } => write!(f, "{name}: cannot start: {error}"),
            Self::Exited { name, status, log_tail } => {
                write!(f, "{name} exited before it was ready ({status}); its log ends:\n{log_tail}")
            }
            Self::NotReady { name, after, log_tail } => {
                write!(f, "{name} was not ready after {after:?} (hang guard); its log ends:\n{log_tail}")
            }
        }
    }
}

impl std::error::Error for PeerError {}

/// A running external program; dropping it stops it.
#[derive(Debug)]
pub struct ExternalPeer {
    name: String,
    child: Option<Child>,
    dir: tempfile::TempDir,
    log: PathBuf,
    grace: Duration,
    /// The address it was started to listen on, if any.
    pub addr: Option<SocketAddr>,
}

impl ExternalPeer {
    /// Starts the peer and waits until it is ready.
    ///
    /// # Errors
    /// The program cannot be spawned, exits first, or is not ready within the hang guard.
    pub fn start(spec: PeerSpec) -> Result<Self, PeerError> {
        let PeerSpec { name, mut command, dir, ready, hang_guard, grace } = spec;
        let log = dir.path().join("peer.log");
        let out = File::create(&log).map_err(|error| PeerError::Spawn { name: name.clone(), error })?;
        let err = out.try_clone().map_err(|error| PeerError::Spawn { name: name.clone(), error })?;
        // Its stdin is a pipe whose write end only this process holds: the pipe ends when this
        // process does, however it dies, which a wrapper can watch (the Java runners do).
        command.stdin(Stdio::piped()).stdout(out).stderr(err);
        let child = command.spawn().map_err(|error| PeerError::Spawn { name: name.clone(), error })?;
        let addr = match &ready {
            Ready::Port(addr) => Some(*addr),
            _ => None,
        };
        let mut peer = Self { name, child: Some(child), dir, log, grace, addr };
        peer.wait_ready(&ready, hang_guard)?;
        Ok(peer)
    }

    fn wait_ready(&mut self, ready: &Ready, hang_guard: Duration) -> Result<(), PeerError> {
        let start = Instant::now();
        loop {
            let done = match ready {
                Ready::Port(addr) => TcpStream::connect_timeout(addr, Duration::from_secs(1)).is_ok(),
                Ready::LogLine(text) => self.log_text().contains(text.as_str()),
                Ready::Started => true,
            };
            if done {
                return Ok(());
            }
            if let Some(status) = self.child.as_mut().and_then(|c| c.try_wait().ok().flatten()) {
                return Err(PeerError::Exited {
                    name: self.name.clone(),
                    status: status.to_string(),
                    log_tail: self.log_tail(40),
                });
            }
            if start.elapsed() > hang_guard {
                return Err(PeerError::NotReady {
                    name: self.name.clone(),
                    after: hang_guard,
                    log_tail: self.log_tail(40),
                });
            }
            // Polling the socket or the log file: the event we wait on has no notification.
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The peer's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The peer's own directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The process id, while it runs.
    #[must_use]
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Its combined stdout and stderr so far.
    #[must_use]
    pub fn log_text(&self) -> String {
        std::fs::read(&self.log).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default()
    }

    /// The last `lines` lines of its log.
    #[must_use]
    pub fn log_tail(&self, lines: usize) -> String {
        let text = self.log_text();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Waits for the program to exit by itself (a command such as mqadmin), up to `hang_guard`;
    /// returns its exit code (`None`: killed by a signal or by the guard).
    pub fn wait_exit(&mut self, hang_guard: Duration) -> Option<i32> {
        let start = Instant::now();
        while let Some(child) = self.child.as_mut() {
            if let Ok(Some(status)) = child.try_wait() {
                self.child = None;
                return status.code();
            }
            if start.elapsed() > hang_guard {
                self.stop();
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    /// SIGTERM, then SIGKILL after the grace period; waits for the exit.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else { return };
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        if let Some(pid) = i32::try_from(child.id()).ok().and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
        let start = Instant::now();
        while start.elapsed() < self.grace {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for ExternalPeer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The wrapper of [`watched`]. A background subshell reads the stdin pipe, which only sends
/// end-of-file when the test process is gone, then kills the program if it is still its parent
/// (so never a reused pid); `exec` keeps the program's pid, signals and exit code.
const WATCHDOG: &str = r#"( read -r _; me=$BASHPID; [ "$(cut -d' ' -f4 /proc/$me/stat)" = "$$" ] && kill -KILL "$$" ) <&0 &
exec "$@""#;

/// A command running `program` that dies with this process, even when this process is killed
/// by SIGKILL (which runs no destructor): started as an [`ExternalPeer`], whose stdin pipe ends
/// with this process, it is killed by a watchdog on that pipe.
#[must_use]
pub fn watched(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new("bash");
    command.arg("-c").arg(WATCHDOG).arg("watchdog").arg(program);
    command
}

/// Waits until process `pid` (any process, not only a child) has terminated, up to
/// `hang_guard`; true when it has (or never existed).
#[must_use]
pub fn wait_terminated(pid: u32, hang_guard: Duration) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let Some(pid) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) else { return true };
    let Ok(fd) = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()) else { return true };
    // A pidfd becomes readable when the process terminates.
    let timeout = Timespec { tv_sec: i64::try_from(hang_guard.as_secs()).unwrap_or(i64::MAX), tv_nsec: 0 };
    let mut fds = [PollFd::new(&fd, PollFlags::IN)];
    matches!(poll(&mut fds, Some(&timeout)), Ok(n) if n > 0)
}

/// A port on 127.0.0.1 the OS reports free now (bound, read, released).
///
/// # Errors
/// No port could be bound.
pub fn free_port() -> io::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}
