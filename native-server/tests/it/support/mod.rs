//! Shared by the integration tests: the real client frames, a server on 127.0.0.1:0 with its
//! files in a temporary directory, a raw-frame client, and the core's own answers.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;

use nameserver::ServerConfig;
use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::{RemotingCommand, RequestCode};
use nameserver_core::{Config, ConnId, Input, Instant, KvConfig, NameServer, Output};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

// logs.rs and open_files.rs include this module too and use few of these.
#[allow(unused_imports)]
pub(crate) use nameserver_testkit::client::{Client, CloggedPeer};
#[allow(unused_imports)]
pub(crate) use nameserver_testkit::{PATIENCE, eventually, eventually_blocking, within};

/// One captured request frame.
#[derive(Clone, Debug)]
pub(crate) struct RealFrame {
    pub(crate) sender: String,
    pub(crate) code: i32,
    pub(crate) bytes: Vec<u8>,
}

/// The frames captured from a real rocketmq-rust broker/admin/client session and ali-ons.
pub(crate) fn real_frames() -> Vec<RealFrame> {
    include_str!("../../../../core/tests/testdata/real-client-requests.jsonl")
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            RealFrame {
                sender: value["sender"].as_str().unwrap().to_string(),
                code: i32::try_from(value["code"].as_i64().unwrap()).unwrap(),
                bytes: hex(value["frame_hex"].as_str().unwrap()),
            }
        })
        .collect()
}

/// The first real frame with `code`.
pub(crate) fn real_frame(code: i32) -> Vec<u8> {
    real_frames().into_iter().find(|f| f.code == code).unwrap().bytes
}

/// The real REGISTER_BROKER frame (broker-a of DemoCluster at 127.0.0.1:31911, 13 topics).
pub(crate) fn register_broker_frame() -> Vec<u8> {
    real_frame(103)
}

/// The ali-ons route query for `TopicTest` (version 121, opaque 1).
pub(crate) fn ali_ons_route_query() -> Vec<u8> {
    real_frames().into_iter().find(|f| f.sender.starts_with("ali-ons")).unwrap().bytes
}

pub(crate) fn hex(text: &str) -> Vec<u8> {
    let digits: String = text.chars().filter(char::is_ascii_hexdigit).collect();
    (0..digits.len()).step_by(2).map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap()).collect()
}

pub(crate) fn decode(bytes: &[u8]) -> RemotingCommand {
    let (cmd, used) = codec::decode(bytes, &Limits::DEFAULT).unwrap().expect("a whole frame");
    assert_eq!(used, bytes.len());
    cmd
}

pub(crate) fn encode(cmd: &RemotingCommand) -> Vec<u8> {
    codec::encode_to_vec(cmd).unwrap()
}

/// A JSON-header request with the given code, opaque and fields.
pub(crate) fn request(code: RequestCode, opaque: i32, fields: &[(&str, &str)]) -> RemotingCommand {
    let mut cmd = RemotingCommand::request(code);
    cmd.opaque = opaque;
    for (key, value) in fields {
        cmd = cmd.with_field(key, *value);
    }
    cmd
}

/// REGISTER_BROKER from a 5.x broker (version 479), master `big` of `BigCluster` at
/// 127.0.0.1:5, with a compressed `body`.
pub(crate) fn big_broker_register(opaque: i32, body: Vec<u8>) -> RemotingCommand {
    let fields = [
        ("clusterName", "BigCluster"),
        ("brokerName", "big"),
        ("brokerAddr", "127.0.0.1:5"),
        ("brokerId", "0"),
        ("haServerAddr", "127.0.0.1:6"),
        ("compressed", "true"),
    ];
    let mut cmd = request(RequestCode::RegisterBroker, opaque, &fields).with_body(body);
    cmd.version = 479;
    cmd
}

/// A route query as a Java 5.x client sends it.
pub(crate) fn route_query(topic: &str, opaque: i32) -> RemotingCommand {
    let mut cmd = request(RequestCode::GetRouteInfoByTopic, opaque, &[("topic", topic)]);
    cmd.version = 479;
    cmd
}

/// The opaque of an encoded frame.
pub(crate) fn opaque_of(frame: &[u8]) -> i32 {
    decode(frame).opaque
}

/// A server configuration whose files live in `dir`.
pub(crate) fn server_config(dir: &std::path::Path) -> ServerConfig {
    let mut namesrv = Config::java_defaults(&dir.display().to_string(), "/opt/rocketmq");
    namesrv.kv_config_path = dir.join("kvConfig.json").display().to_string();
    namesrv.config_store_path = dir.join("namesrv.properties").display().to_string();
    namesrv.bind_address = String::from("127.0.0.1");
    ServerConfig::new(namesrv, KvConfig::default())
}

/// A server running in this test's runtime.
pub(crate) struct TestServer {
    pub(crate) addr: SocketAddr,
    pub(crate) config: ServerConfig,
    pub(crate) dir: tempfile::TempDir,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<io::Result<()>>>,
}

impl TestServer {
    pub(crate) async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// Starts a server after `tweak` has adjusted its configuration.
    pub(crate) async fn start_with(tweak: impl FnOnce(&mut ServerConfig)) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut config = server_config(dir.path());
        tweak(&mut config);
        Self::start_in(dir, config).await
    }

    /// Starts a server with `config`, keeping `dir` alive as long as the server.
    pub(crate) async fn start_in(dir: tempfile::TempDir, config: ServerConfig) -> Self {
        Self::serve(dir, config, None).await
    }

    /// Starts a server with `config` and, if given, its HTTP console.
    pub(crate) async fn serve(
        dir: tempfile::TempDir,
        config: ServerConfig,
        console: Option<nameserver::http::Console>,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(nameserver::serve(listener, console, config.clone(), async move {
            let _ = stopped.await;
        }));
        Self { addr, config, dir, stop: Some(stop), task: Some(task) }
    }

    pub(crate) fn kv_path(&self) -> PathBuf {
        PathBuf::from(&self.config.namesrv.kv_config_path)
    }

    pub(crate) fn config_path(&self) -> PathBuf {
        PathBuf::from(&self.config.namesrv.config_store_path)
    }

    pub(crate) async fn client(&self) -> Client {
        Client::connect(self.addr).await
    }

    /// Triggers the shutdown and waits for `run` to return.
    pub(crate) async fn stop(mut self) -> (io::Result<()>, tempfile::TempDir, ServerConfig) {
        self.stop.take().unwrap().send(()).unwrap();
        let result = self.task.take().unwrap().await.unwrap();
        (result, self.dir, self.config)
    }
}

/// The core's own answers, from a fresh `NameServer` with the same configuration, fed the
/// same frames on one connection.
pub(crate) struct CoreModel {
    ns: NameServer,
}

impl CoreModel {
    pub(crate) const CONN: ConnId = ConnId(1);

    pub(crate) fn new(config: &ServerConfig) -> Self {
        let mut ns =
            NameServer::new(config.namesrv.clone(), config.kv.clone(), Instant::ZERO).with_limits(config.limits);
        ns.handle(Instant::ZERO, Input::Connected { conn: Self::CONN, remote: String::from("127.0.0.1:1") });
        Self { ns }
    }

    /// The reply frame the core writes for `frame`, if any.
    pub(crate) fn reply(&mut self, frame: &[u8]) -> Option<Vec<u8>> {
        self.reply_to(decode(frame))
    }

    pub(crate) fn reply_to(&mut self, cmd: RemotingCommand) -> Option<Vec<u8>> {
        self.ns.handle(Instant::ZERO, Input::Received { conn: Self::CONN, cmd });
        let mut reply = None;
        while let Some(output) = self.ns.poll_output() {
            if let Output::Send { conn: Self::CONN, cmd } = output {
                assert!(reply.is_none(), "one reply per request");
                reply = Some(encode(&cmd));
            }
        }
        reply
    }
}

/// Keeps tokio's paused clock from jumping while this value lives, so that only
/// `tokio::time::advance` moves time. (A paused current-thread runtime otherwise skips to the
/// next timer whenever it would block, even while a socket is about to become readable; a
/// running blocking task inhibits that.)
pub(crate) struct FrozenClock {
    // Held only to be dropped: that ends the blocking task.
    _release: std::sync::mpsc::Sender<()>,
}

impl FrozenClock {
    pub(crate) fn new() -> Self {
        let (release, wait) = std::sync::mpsc::channel::<()>();
        drop(tokio::task::spawn_blocking(move || {
            let _ = wait.recv();
        }));
        Self { _release: release }
    }
}

/// The `nameserver` binary, started on 127.0.0.1 with an ephemeral port
/// ([`nameserver_testkit::Daemon`], with this crate's binary).
pub(crate) struct Daemon(nameserver_testkit::Daemon);

impl Daemon {
    /// Starts the binary with `args` (plus `--bind-address 127.0.0.1 --listen-port 0`),
    /// `user.home` set to `home`, and waits for its boot line.
    pub(crate) fn start(home: &std::path::Path, args: &[&str]) -> Self {
        Self::start_bound(home, "127.0.0.1", args)
    }

    /// [`Self::start`] with `-c` and the file `config` wrote.
    pub(crate) fn configured(
        home: &std::path::Path,
        config: &nameserver_testkit::daemon::Config,
        args: &[&str],
    ) -> Self {
        Self::configured_env(home, config, args, &[])
    }

    /// [`Self::configured`] with `env` set in the daemon's environment.
    pub(crate) fn configured_env(
        home: &std::path::Path,
        config: &nameserver_testkit::daemon::Config,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        let mut command = nameserver_command(home);
        command.envs(env.iter().copied());
        Self(nameserver_testkit::Daemon::spawn_configured(command, "127.0.0.1", config, args))
    }

    /// [`Self::start`] listening on `bind` (port 0).
    pub(crate) fn start_bound(home: &std::path::Path, bind: &str, args: &[&str]) -> Self {
        Self(nameserver_testkit::Daemon::spawn(nameserver_command(home), bind, args))
    }
}

impl std::ops::Deref for Daemon {
    type Target = nameserver_testkit::Daemon;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Daemon {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

/// The `nameserver` binary with a clean environment: `user.home` is `home`, no `RUST_LOG`.
pub(crate) fn nameserver_command(home: &std::path::Path) -> std::process::Command {
    nameserver_testkit::daemon::nameserver_command(std::path::Path::new(env!("CARGO_BIN_EXE_nameserver")), home)
}

/// Sends one frame on a blocking socket and reads the reply frame.
pub(crate) fn call_blocking(stream: &mut std::net::TcpStream, bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    stream.write_all(bytes).unwrap();
    read_frame_blocking(stream)
}

pub(crate) fn read_frame_blocking(stream: &mut std::net::TcpStream) -> Vec<u8> {
    use std::io::Read as _;
    let mut prefix = [0; 4];
    stream.read_exact(&mut prefix).unwrap();
    let mut frame = prefix.to_vec();
    frame.resize(4 + usize::try_from(i32::from_be_bytes(prefix)).unwrap(), 0);
    stream.read_exact(&mut frame[4..]).unwrap();
    frame
}

/// CONTROLLER_GET_METADATA_INFO: any controller answers it.
pub(crate) const CONTROLLER_METADATA: i32 = 1005;

/// The binary with its embedded controller (`enableControllerInNamesrv=true`, group `group1`,
/// its files in `home`) on free ports of 127.0.0.1, killed when dropped.
pub(crate) struct ControllerDaemon {
    pub(crate) child: std::process::Child,
    /// The NameServer's port.
    pub(crate) namesrv: SocketAddr,
    /// The controller's port.
    pub(crate) controller: SocketAddr,
    /// The controller's first answer, to CONTROLLER_GET_METADATA_INFO.
    pub(crate) metadata: RemotingCommand,
}

impl ControllerDaemon {
    /// Starts it with `args` (no console), its standard output on `stdout`, and waits until
    /// the controller answers.
    pub(crate) fn start(home: &std::path::Path, args: &[&str], stdout: impl Into<std::process::Stdio>) -> Self {
        use nameserver_testkit::peer::free_port;
        let (port, controller_port) = (free_port().unwrap(), free_port().unwrap());
        let config = nameserver_testkit::daemon::Config::write(
            home,
            &[
                ("enableControllerInNamesrv", "true"),
                ("controllerDLegerGroup", "group1"),
                ("controllerDLegerPeers", &format!("n0-127.0.0.1:{controller_port}")),
                ("controllerDLegerSelfId", "n0"),
                ("controllerStorePath", &home.join("DLedgerController").display().to_string()),
            ],
        );
        let child = nameserver_command(home)
            .arg("-c")
            .arg(&config.properties)
            .args(["--no-http", "--bind-address", "127.0.0.1", "--listen-port", &port.to_string()])
            .args(args)
            .stdout(stdout)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let controller = SocketAddr::from(([127, 0, 0, 1], controller_port));
        let request = RemotingCommand::request(RequestCode::from(CONTROLLER_METADATA));
        let metadata = eventually_blocking("the controller answers", || {
            let mut stream = std::net::TcpStream::connect(controller).ok()?;
            Some(decode(&call_blocking(&mut stream, &encode(&request))))
        });
        Self { child, namesrv: SocketAddr::from(([127, 0, 0, 1], port)), controller, metadata }
    }
}

impl Drop for ControllerDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
