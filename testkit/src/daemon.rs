//! The built `nameserver` binary as a child process: started on an ephemeral port (with a
//! properties file written for it, if asked), its address read from its boot line, its log kept
//! in a file, stopped by SIGTERM.

use std::fmt::Write as _;
use std::io::BufRead as _;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};

use crate::proc::ProcSample;
use crate::wait::PATIENCE;

/// What the daemon prints on standard output once it listens (Java's line), before its address.
pub const BOOT_LINE: &str = "The Name Server boot success. serializeType=JSON, address ";

/// A running daemon; killed when dropped, so a failing test stops it too.
#[derive(Debug)]
pub struct Daemon {
    /// The process.
    pub child: Child,
    /// Its RocketMQ address.
    pub addr: SocketAddr,
    /// Holds the file its standard error goes to.
    logs: tempfile::TempDir,
}

impl Daemon {
    /// Runs `command` (a `nameserver`, see [`nameserver_command`]) with `args` plus
    /// `--bind-address bind --listen-port 0`, and waits for its boot line.
    ///
    /// # Panics
    /// It does not start, or its first line is not the boot line.
    #[must_use]
    pub fn spawn(command: Command, bind: &str, args: &[&str]) -> Self {
        Self::spawn_on(command, bind, 0, args)
    }

    /// [`Self::spawn`] on `port` (0: an ephemeral one), e.g. a restart where the peers expect it.
    ///
    /// # Panics
    /// As [`Self::spawn`].
    #[must_use]
    pub fn spawn_on(mut command: Command, bind: &str, port: u16, args: &[&str]) -> Self {
        let logs = tempfile::tempdir().unwrap();
        let stderr = std::fs::File::create(logs.path().join("stderr")).unwrap();
        let mut child = command
            .args(args)
            .args(["--bind-address", bind, "--listen-port", &port.to_string()])
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let address = line.trim().strip_prefix(BOOT_LINE).unwrap_or_else(|| panic!("no boot line, got {line:?}"));
        Self { addr: address.parse().unwrap(), child, logs }
    }

    /// [`Self::spawn`] with `-c` and the file `config` wrote.
    ///
    /// # Panics
    /// As [`Self::spawn`].
    #[must_use]
    pub fn spawn_configured(command: Command, bind: &str, config: &Config, args: &[&str]) -> Self {
        let path = config.properties.to_str().expect("a UTF-8 path");
        let all: Vec<&str> = ["-c", path].into_iter().chain(args.iter().copied()).collect();
        Self::spawn(command, bind, &all)
    }

    /// What it has written to standard error so far (its log; everything logged before the
    /// boot line is there once [`Self::spawn`] returns).
    ///
    /// # Panics
    /// The file is gone.
    #[must_use]
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.logs.path().join("stderr")).unwrap()
    }

    /// Sends SIGTERM and waits for the process to exit.
    ///
    /// # Panics
    /// The signal cannot be sent or the wait fails.
    pub fn terminate(&mut self) -> ExitStatus {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        self.child.wait().unwrap()
    }

    /// A blocking connection whose reads wait at most [`PATIENCE`].
    ///
    /// # Panics
    /// The connection fails.
    #[must_use]
    pub fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        stream
    }

    /// Its process id.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its resident memory, threads and descriptors now.
    ///
    /// # Panics
    /// It has exited.
    #[must_use]
    pub fn sample(&self) -> ProcSample {
        ProcSample::of(self.pid()).unwrap()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A properties file for the daemon's `-c`, as an operator writes one: `kvConfigPath` in
/// `store/` under the home (created by the daemon at its first write), then the settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// The properties file (also the daemon's `configStorePath`, where config updates land).
    pub properties: PathBuf,
    /// Its `kvConfigPath`.
    pub kv: PathBuf,
}

impl Config {
    /// Writes `home/namesrv.properties` with `kvConfigPath` and `settings` (`key=value` lines).
    ///
    /// # Panics
    /// The file cannot be written.
    #[must_use]
    pub fn write(home: &Path, settings: &[(&str, &str)]) -> Self {
        let kv = home.join("store").join("kvConfig.json");
        let properties = home.join("namesrv.properties");
        let mut text = format!("kvConfigPath={}\n", kv.display());
        for (key, value) in settings {
            writeln!(text, "{key}={value}").unwrap();
        }
        std::fs::write(&properties, text).unwrap();
        Self { properties, kv }
    }
}

/// `program` (the built `nameserver`) with a clean environment: `user.home` is `home` (given
/// as `-Duser.home`, which wins over the password database and `HOME`, as in the JVM; `HOME`
/// too), no `RUST_LOG`.
#[must_use]
pub fn nameserver_command(program: &Path, home: &Path) -> Command {
    let mut command = Command::new(program);
    command.arg(format!("-Duser.home={}", home.display()));
    command.env("HOME", home).env("ROCKETMQ_HOME", "/opt/rocketmq").env_remove("RUST_LOG");
    command
}
