//! Apache RocketMQ from Maven Central, run beside ours: a NameServer, a broker and mqadmin.
//!
//! Jars come only through Maven, by artifact name (`scripts/java/fetch.sh VERSION`, cached in
//! `~/.cache/nameserver-java/VERSION/lib`). Each process gets a temporary `ROCKETMQ_HOME` that
//! is also its `user.home`, so every file it writes stays there, and a small heap. Only
//! `NAMESERVER_SKIP_JAVA=1` skips Java tests ([`skip_requested`]); a missing JDK or an
//! unreachable Maven Central is a [`PeerError::Missing`], which fails a test.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use crate::class_archive::ClassArchive;
use crate::peer::{ExternalPeer, PeerError, PeerSpec, Ready, free_port};

/// The Apache RocketMQ releases the project compares itself with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// 4.9.7: the classic line most brokers still run (fastjson 1.2.69).
    V4_9_7,
    /// 5.3.3: the last 5.x release writing bodies with fastjson 1.2.83.
    V5_3_3,
    /// 5.5.0: "Java" for this project (bodies by fastjson2).
    V5_5_0,
}

impl Version {
    /// Every version, oldest first.
    pub const ALL: [Self; 3] = [Self::V4_9_7, Self::V5_3_3, Self::V5_5_0];

    /// The release as Maven spells it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V4_9_7 => "4.9.7",
            Self::V5_3_3 => "5.3.3",
            Self::V5_5_0 => "5.5.0",
        }
    }

    /// The release by name.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == text)
    }

    /// Whether this is a 4.x release (logback files under `$ROCKETMQ_HOME/conf`, no bind address).
    #[must_use]
    pub const fn is_4x(self) -> bool {
        matches!(self, Self::V4_9_7)
    }
}

/// The repository's root (the test kit lives in `testkit/`).
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// True when `NAMESERVER_SKIP_JAVA=1`: the caller should skip, and this says so on stderr.
#[must_use]
pub fn skip_requested(what: &str) -> bool {
    let skip = std::env::var("NAMESERVER_SKIP_JAVA").is_ok_and(|v| v == "1");
    if skip {
        eprintln!("SKIPPED (NAMESERVER_SKIP_JAVA=1): {what}");
    }
    skip
}

/// The `java` to run: `$JAVA_HOME/bin/java`, else `java` on the PATH.
#[must_use]
pub fn java_program() -> PathBuf {
    match std::env::var_os("JAVA_HOME") {
        Some(home) if !home.is_empty() => Path::new(&home).join("bin").join("java"),
        _ => PathBuf::from("java"),
    }
}

/// `java -version`'s text.
///
/// # Errors
/// [`PeerError::Missing`] when no JDK runs.
pub fn java_version() -> Result<String, PeerError> {
    let out = Command::new(java_program()).arg("-version").output().map_err(|e| missing_jdk(&e.to_string()))?;
    if !out.status.success() {
        return Err(missing_jdk(&out.status.to_string()));
    }
    Ok(String::from_utf8_lossy(&out.stderr).trim().to_string())
}

fn missing_jdk(why: &str) -> PeerError {
    PeerError::Missing {
        what: format!("a Java runtime ({} failed: {why})", java_program().display()),
        how_to_get: String::from("install OpenJDK 17 (apt-get install openjdk-17-jdk-headless) or set JAVA_HOME"),
    }
}

/// The directory holding `version`'s jars, fetched through Maven if they are not cached yet.
///
/// # Errors
/// [`PeerError::Missing`] when Maven cannot fetch them.
pub fn fetch(version: Version) -> Result<PathBuf, PeerError> {
    let script = repo_root().join("scripts/java/fetch.sh");
    let missing = |why: String| PeerError::Missing {
        what: format!("Apache RocketMQ {} jars ({why})", version.as_str()),
        how_to_get: format!(
            "scripts/java/fetch.sh {} (needs Maven and Maven Central), or NAMESERVER_SKIP_JAVA=1 to skip Java tests",
            version.as_str()
        ),
    };
    let out = Command::new("bash")
        .arg(&script)
        .arg(version.as_str())
        .output()
        .map_err(|e| missing(format!("cannot run {}: {e}", script.display())))?;
    if !out.status.success() {
        return Err(missing(String::from_utf8_lossy(&out.stderr).trim().to_string()));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// A fresh `ROCKETMQ_HOME` with the logging configuration each version needs: 4.9.x reads
/// `conf/logback_{namesrv,broker,tools}.xml` and does not start without them; 5.x is pointed at
/// a small file of ours (its own parses for seconds). Logs go to `logs/` inside it.
fn rocketmq_home(name: &str) -> Result<tempfile::TempDir, PeerError> {
    let spawn = |error| PeerError::Spawn { name: name.to_string(), error };
    let dir = tempfile::Builder::new().prefix("nameserver-java-").tempdir().map_err(spawn)?;
    let conf = dir.path().join("conf");
    std::fs::create_dir_all(&conf).map_err(spawn)?;
    std::fs::create_dir_all(dir.path().join("home")).map_err(spawn)?;
    for (file, package) in [
        ("logback_namesrv.xml", "ch.qos.logback"),
        ("logback_broker.xml", "ch.qos.logback"),
        ("logback_tools.xml", "ch.qos.logback"),
        ("rmq.logback.xml", "org.apache.rocketmq.logging.ch.qos.logback"),
    ] {
        std::fs::write(
            conf.join(file),
            logback_xml(package, &dir.path().join("logs").join(file.replace(".xml", ".log"))),
        )
        .map_err(spawn)?;
    }
    Ok(dir)
}

/// One file appender for everything at INFO.
fn logback_xml(package: &str, log: &Path) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<configuration>
  <appender name="FILE" class="{package}.core.FileAppender">
    <file>{}</file>
    <append>true</append>
    <encoder><pattern>%d{{yyyy-MM-dd HH:mm:ss.SSS}} %-5level %logger{{32}} - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
"#,
        log.display()
    )
}

/// `java` with the test heap, the classpath of `version`, and every path inside `home`.
fn java_command(lib: &Path, home: &Path, jvm_extra: &[&str], main_class: &str) -> Command {
    java_command_with(lib, None, home, jvm_extra, main_class)
}

/// [`java_command`] with `jar` after `version`'s jars on the class path.
fn java_command_with(lib: &Path, jar: Option<&Path>, home: &Path, jvm_extra: &[&str], main_class: &str) -> Command {
    let mut command = crate::peer::watched(java_program());
    let user_home = home.join("home");
    command
        .args(jvm_extra)
        .current_dir(home)
        .env("ROCKETMQ_HOME", home)
        .env("HOME", &user_home)
        .args(["-Xms128m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:-UsePerfData", "-Djava.net.preferIPv4Stack=true"])
        .arg(format!("-Duser.home={}", user_home.display()))
        .arg(format!("-Drocketmq.home.dir={}", home.display()))
        .arg(format!("-Drmq.logback.configurationFile={}", home.join("conf/rmq.logback.xml").display()))
        .arg("-Drocketmq.client.logUseSlf4j=true")
        .arg("-cp")
        .arg(match jar {
            Some(jar) => format!("{}/*:{}", lib.display(), jar.display()),
            None => format!("{}/*", lib.display()),
        })
        .arg(main_class);
    command
}

/// Writes `key=value` lines.
fn properties(entries: &[(String, String)]) -> String {
    let mut text = String::new();
    for (key, value) in entries {
        let _ = writeln!(text, "{key}={value}");
    }
    text
}

/// How long a JVM may take to listen: 10–20 s on a busy 2-core machine, so a generous guard.
pub const START_GUARD: Duration = Duration::from_secs(180);

/// Starts a Java NameServer of `version` on a free port of 127.0.0.1, configured by `extra`
/// properties on top of the test defaults; ready when its port accepts.
///
/// # Errors
/// Missing jars or JDK, or the JVM exits or does not listen in time.
pub fn start_namesrv(version: Version, extra: &[(&str, &str)]) -> Result<ExternalPeer, PeerError> {
    let name = format!("java-namesrv-{}", version.as_str());
    let home = rocketmq_home(&name)?;
    let port = free_port().map_err(|error| PeerError::Spawn { name: name.clone(), error })?;
    let mut entries = vec![
        (String::from("listenPort"), port.to_string()),
        (String::from("rocketmqHome"), home.path().display().to_string()),
        (String::from("kvConfigPath"), home.path().join("home/namesrv/kvConfig.json").display().to_string()),
        (String::from("configStorePath"), home.path().join("home/namesrv/namesrv.properties").display().to_string()),
    ];
    if !version.is_4x() {
        entries.push((String::from("bindAddress"), String::from("127.0.0.1")));
    }
    let server = Server { name, home, port, main_class: "org.apache.rocketmq.namesrv.NamesrvStartup", jvm_extra: &[] };
    server.start(version, "namesrv.properties", entries, extra, &[], Duration::from_secs(10))
}

/// A Java server about to start: its home, its port, its entry point.
struct Server {
    name: String,
    home: tempfile::TempDir,
    port: u16,
    main_class: &'static str,
    jvm_extra: &'static [&'static str],
}

impl Server {
    /// Writes `entries` then `extra` to `conf` in its home and starts it with `-c conf args...`;
    /// ready when its port accepts.
    fn start(
        self,
        version: Version,
        conf: &str,
        mut entries: Vec<(String, String)>,
        extra: &[(&str, &str)],
        args: &[String],
        grace: Duration,
    ) -> Result<ExternalPeer, PeerError> {
        let lib = fetch(version)?;
        entries.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let file = self.home.path().join(conf);
        std::fs::write(&file, properties(&entries))
            .map_err(|error| PeerError::Spawn { name: self.name.clone(), error })?;
        let mut command = java_command(&lib, self.home.path(), self.jvm_extra, self.main_class);
        command.arg("-c").arg(&file).args(args);
        ExternalPeer::start(PeerSpec {
            name: self.name,
            command,
            dir: self.home,
            ready: Ready::Port(SocketAddr::from(([127, 0, 0, 1], self.port))),
            hang_guard: START_GUARD,
            grace,
        })
    }
}

/// Java 17 closes the JDK internals 4.9.x brokers reach into; these open them again.
const JAVA17_OPENS_FOR_4X: [&str; 6] = [
    "--add-exports",
    "java.base/jdk.internal.ref=ALL-UNNAMED",
    "--add-opens",
    "java.base/java.nio=ALL-UNNAMED",
    "--add-exports",
    "java.base/sun.nio.ch=ALL-UNNAMED",
];

/// A 4.9.x broker's JVM: [`JAVA17_OPENS_FOR_4X`], and the disk use (a fraction) above which it
/// refuses messages as "disk full", a system property in 4.9.x (a key, in percent, in 5.x).
const BROKER_JVM_4X: [&str; 7] = [
    JAVA17_OPENS_FOR_4X[0],
    JAVA17_OPENS_FOR_4X[1],
    JAVA17_OPENS_FOR_4X[2],
    JAVA17_OPENS_FOR_4X[3],
    JAVA17_OPENS_FOR_4X[4],
    JAVA17_OPENS_FOR_4X[5],
    "-Drocketmq.broker.diskSpaceWarningLevelRatio=0.98",
];

/// Starts a Java broker of `version` registering with every NameServer of `namesrvs` (in that
/// order, `namesrvAddr=a;b`), configured by a `broker.conf` of the test defaults (its own free
/// ports, store under its home) and `extra`; ready when its port accepts.
///
/// # Errors
/// Missing jars or JDK, or the JVM exits or does not listen in time.
pub fn start_broker(
    version: Version,
    namesrvs: &[SocketAddr],
    extra: &[(&str, &str)],
) -> Result<ExternalPeer, PeerError> {
    start_broker_with_topics(version, namesrvs, extra, &[])
}

/// [`start_broker`] with `topics` (4 read and 4 write queues each, read-write) already in the
/// broker's own topic file (`store/config/topics.json`, where a broker keeps the topics it
/// was told to create): it loads them at start and registers them, as a broker that has run
/// for a while does. The cheap way to a broker with thousands of topics.
///
/// # Errors
/// As [`start_broker`].
pub fn start_broker_with_topics(
    version: Version,
    namesrvs: &[SocketAddr],
    extra: &[(&str, &str)],
    topics: &[String],
) -> Result<ExternalPeer, PeerError> {
    // Its ports are free when chosen, not reserved: another program may take one before the
    // broker binds it (port+1 is often a client connection's own port). Then again, on others.
    let mut attempt = 0;
    loop {
        attempt += 1;
        match start_broker_once(version, namesrvs, extra, topics, None) {
            Err(PeerError::Exited { log_tail, .. }) if attempt < 3 && log_tail.contains("BindException") => {}
            other => return other,
        }
    }
}

/// Starts a Java broker of `version` again on the store and port of `previous`, a broker of
/// [`start_broker`] that has died (kill -9): what an operator's restart does, so the broker
/// finds its own files (a controller-mode broker its `brokerIdentity`). `extra` as there.
///
/// # Errors
/// As [`start_broker`]; the port is not chosen again, so one taken meanwhile is an error.
pub fn restart_broker(
    version: Version,
    namesrvs: &[SocketAddr],
    extra: &[(&str, &str)],
    previous: &ExternalPeer,
) -> Result<ExternalPeer, PeerError> {
    let port = previous.addr.map(|a| a.port()).ok_or_else(|| PeerError::Spawn {
        name: previous.name().to_string(),
        error: std::io::Error::other("the previous broker had no port"),
    })?;
    start_broker_once(version, namesrvs, extra, &[], Some((&previous.dir().join("store"), port)))
}

/// Whether a listener can bind 127.0.0.1:`port` now.
fn port_free(port: u16) -> bool {
    std::net::TcpListener::bind(("127.0.0.1", port)).is_ok()
}

fn start_broker_once(
    version: Version,
    namesrvs: &[SocketAddr],
    extra: &[(&str, &str)],
    topics: &[String],
    reuse: Option<(&Path, u16)>,
) -> Result<ExternalPeer, PeerError> {
    let namesrv = namesrvs.iter().map(ToString::to_string).collect::<Vec<_>>().join(";");
    let name = format!("java-broker-{}", version.as_str());
    let home = rocketmq_home(&name)?;
    // The broker also listens on port-2 (fast remoting) and port+1 (HA).
    let port = match reuse {
        Some((_, port)) => port,
        None => loop {
            let port = free_port().map_err(|error| PeerError::Spawn { name: name.clone(), error })?;
            if port > 1024 && port < 65000 && port_free(port + 1) && port_free(port - 2) {
                break port;
            }
        },
    };
    let store = reuse.map_or_else(|| home.path().join("store"), |(store, _)| store.to_path_buf());
    if !topics.is_empty() {
        let spawn = |error| PeerError::Spawn { name: name.clone(), error };
        std::fs::create_dir_all(store.join("config")).map_err(spawn)?;
        std::fs::write(store.join("config/topics.json"), topics_json(topics)).map_err(spawn)?;
    }
    let entries = vec![
        (String::from("brokerClusterName"), String::from("TestCluster")),
        (String::from("brokerName"), String::from("broker-a")),
        (String::from("brokerId"), String::from("0")),
        (String::from("listenPort"), port.to_string()),
        (String::from("brokerIP1"), String::from("127.0.0.1")),
        (String::from("namesrvAddr"), namesrv.clone()),
        (String::from("storePathRootDir"), store.display().to_string()),
        (String::from("storePathCommitLog"), store.join("commitlog").display().to_string()),
        (String::from("mappedFileSizeCommitLog"), String::from("67108864")),
        (String::from("mappedFileSizeConsumeQueue"), String::from("300000")),
        (String::from("diskMaxUsedSpaceRatio"), String::from("95")),
        // A shared test machine's disk is often past the default 90 %, at which the broker
        // refuses every message ("service not available now ... the broker's disk is full").
        (String::from("diskSpaceWarningLevelRatio"), String::from("98")),
    ];
    let jvm_extra: &'static [&'static str] = if version.is_4x() { &BROKER_JVM_4X } else { &[] };
    let server = Server { name, home, port, main_class: "org.apache.rocketmq.broker.BrokerStartup", jvm_extra };
    let args = [String::from("-n"), namesrv];
    server.start(version, "broker.conf", entries, extra, &args, Duration::from_secs(20))
}

/// The broker's topic file holding `topics` (the shape 4.9.x and 5.x brokers write and read).
fn topics_json(topics: &[String]) -> String {
    let table: serde_json::Map<String, serde_json::Value> = topics
        .iter()
        .map(|topic| {
            let config = serde_json::json!({
                "topicName": topic, "readQueueNums": 4, "writeQueueNums": 4, "perm": 6,
                "topicFilterType": "SINGLE_TAG", "topicSysFlag": 0, "order": false,
            });
            (topic.clone(), config)
        })
        .collect();
    // The broker reads the data version along with the table (a file without one fails to load).
    serde_json::json!({ "topicConfigTable": table, "dataVersion": { "counter": 1, "timestamp": 0 } }).to_string()
}

/// Runs `mqadmin args... -n namesrv` of `version` to completion; returns its exit code and output.
/// A run that timed out waiting for a reply, or could not send, runs again (three runs at most).
///
/// # Errors
/// Missing jars or JDK, or it does not finish within the hang guard.
pub fn mqadmin(version: Version, namesrv: SocketAddr, args: &[&str]) -> Result<(Option<i32>, String), PeerError> {
    mqadmin_signing(version, namesrv, args, None)
}

/// [`mqadmin`] with `tools_yml` as `$ROCKETMQ_HOME/conf/tools.yml` (`accessKey`, `secretKey`):
/// mqadmin then signs its requests (`AclClientRPCHook`).
///
/// # Errors
/// As [`mqadmin`].
pub fn mqadmin_signing(
    version: Version,
    namesrv: SocketAddr,
    args: &[&str],
    tools_yml: Option<&str>,
) -> Result<(Option<i32>, String), PeerError> {
    mqadmin_run(version, namesrv, &[], args, tools_yml)
}

/// [`mqadmin`] with `jvm` options before the main class, as `JAVA_OPT` gives them (e.g.
/// `-Dtls.enable=true`).
///
/// # Errors
/// As [`mqadmin`].
pub fn mqadmin_with_jvm(
    version: Version,
    namesrv: SocketAddr,
    jvm: &[&str],
    args: &[&str],
) -> Result<(Option<i32>, String), PeerError> {
    mqadmin_run(version, namesrv, jvm, args, None)
}

fn mqadmin_run(
    version: Version,
    namesrv: SocketAddr,
    jvm: &[&str],
    args: &[&str],
    tools_yml: Option<&str>,
) -> Result<(Option<i32>, String), PeerError> {
    let namesrv_text = namesrv.to_string();
    let args: Vec<&str> = args.iter().copied().chain(["-n", namesrv_text.as_str()]).collect();
    let main = "org.apache.rocketmq.tools.command.MQAdminStartup";
    let mut attempt = 1;
    loop {
        let (code, out) =
            run_to_completion(version, Program::class("mqadmin", main), jvm, &args, tools_yml, START_GUARD)?;
        let Some(why) = MQADMIN_TRANSIENT.into_iter().find(|e| out.contains(e)).filter(|_| attempt < 3) else {
            return Ok((code, out));
        };
        println!("{}: mqadmin {}: {why} against {namesrv}; again", version.as_str(), args[0]);
        attempt += 1;
    }
}

/// What makes mqadmin run again (up to three times in all): its own timeouts are a few
/// seconds, which a loaded machine exceeds, and a NameServer closes a connection idle for its
/// idle time, which a slow mqadmin may open early and write on late (4.9.7's
/// `RemotingSendRequestException`, seen against Java).
pub(crate) const MQADMIN_TRANSIENT: [&str; 2] = ["RemotingTimeoutException", "RemotingSendRequestException"];

/// Runs the Java program in `source` (one `.java` file, compiled at start by the JDK's
/// source-file mode) with `version`'s jars on its class path, to completion; returns its exit
/// code and output. Its client logging goes to files in its own home, not to its output.
///
/// # Errors
/// Missing jars or JDK, or it does not finish within the hang guard.
pub fn run_source(version: Version, source: &Path, args: &[&str]) -> Result<(Option<i32>, String), PeerError> {
    run_source_with_jvm(version, source, &[], args)
}

/// [`run_source`] with `jvm` options before the source file (e.g. `-Dtls.enable=true`).
///
/// # Errors
/// As [`run_source`].
pub fn run_source_with_jvm(
    version: Version,
    source: &Path,
    jvm: &[&str],
    args: &[&str],
) -> Result<(Option<i32>, String), PeerError> {
    run_source_guarded(version, source, jvm, args, START_GUARD)
}

/// [`run_source`] with a hang guard of `guard` rather than [`START_GUARD`] (a long run).
///
/// # Errors
/// As [`run_source`].
pub fn run_source_within(
    version: Version,
    source: &Path,
    args: &[&str],
    guard: Duration,
) -> Result<(Option<i32>, String), PeerError> {
    run_source_guarded(version, source, &[], args, guard)
}

fn run_source_guarded(
    version: Version,
    source: &Path,
    jvm: &[&str],
    args: &[&str],
    guard: Duration,
) -> Result<(Option<i32>, String), PeerError> {
    let main = source.to_str().ok_or_else(|| PeerError::Spawn {
        name: String::from("java-source"),
        error: std::io::Error::other(format!("not a UTF-8 path: {}", source.display())),
    })?;
    // 4.9.x clients log through slf4j (the kit's `rocketmq.client.logUseSlf4j`) to logback,
    // which without a file of its own prints DEBUG to the console.
    let jvm: Vec<&str> =
        ["-Dlogback.configurationFile=conf/logback_tools.xml"].into_iter().chain(jvm.iter().copied()).collect();
    run_to_completion(version, Program::class("source", main), &jvm, args, None, guard)
}

/// What [`run_to_completion`] runs.
pub(crate) struct Program<'a> {
    /// A short name: the run's name, and its class-data archive's (a source file's: its stem).
    pub(crate) what: &'a str,
    /// The main class, or a source file.
    pub(crate) main: &'a str,
    /// A jar of ours after the version's jars on the class path.
    pub(crate) jar: Option<&'a Path>,
}

impl<'a> Program<'a> {
    const fn class(what: &'a str, main: &'a str) -> Self {
        Self { what, main, jar: None }
    }
}

/// `java jvm_extra... main args...` of `version` in a fresh home (with `tools_yml` as its
/// `conf/tools.yml`), to completion within `guard`.
pub(crate) fn run_to_completion(
    version: Version,
    program: Program<'_>,
    jvm_extra: &[&str],
    args: &[&str],
    tools_yml: Option<&str>,
    guard: Duration,
) -> Result<(Option<i32>, String), PeerError> {
    let Program { what, main, jar } = program;
    let lib = fetch(version)?;
    let name = format!("java-{what}-{}", version.as_str());
    let home = rocketmq_home(&name)?;
    if let Some(text) = tools_yml {
        std::fs::write(home.path().join("conf/tools.yml"), text)
            .map_err(|error| PeerError::Spawn { name: name.clone(), error })?;
    }
    let kind = match what {
        "source" => Path::new(main).file_stem().map_or_else(|| what.to_string(), |s| s.to_string_lossy().into_owned()),
        _ => what.to_string(),
    };
    let archive = ClassArchive::open(&lib.with_file_name("class-archives"), &kind, jdk_key());
    let archive_options = archive.as_ref().map(ClassArchive::jvm_options).unwrap_or_default();
    // A short run: the first JIT tier alone costs less CPU than it saves.
    let jvm: Vec<&str> = ["-XX:TieredStopAtLevel=1"]
        .into_iter()
        .chain(archive_options.iter().map(String::as_str))
        .chain(jvm_extra.iter().copied())
        .collect();
    let mut command = java_command_with(&lib, jar, home.path(), &jvm, main);
    command.args(args);
    let mut peer = ExternalPeer::start(PeerSpec {
        name,
        command,
        dir: home,
        ready: Ready::Started,
        hang_guard: guard,
        grace: Duration::from_secs(5),
    })?;
    let code = peer.wait_exit(guard);
    if let Some(archive) = archive {
        archive.finish();
    }
    Ok((code, peer.log_text()))
}

/// The JDK's `java -version`, read once: archives are kept per JDK.
fn jdk_key() -> &'static str {
    static KEY: OnceLock<String> = OnceLock::new();
    KEY.get_or_init(|| java_version().unwrap_or_default())
}

/// Starts a Java program of ours, one source file run by the JDK's source launcher against
/// `version`'s jars (a client: a producer, an admin tool), with `args`; ready once its log
/// holds `ready_line`. Its output is the peer's log; stopped like the servers when dropped.
///
/// # Errors
/// Missing jars or JDK, or the program exits or does not print `ready_line` in time.
pub fn start_program(
    version: Version,
    source: &Path,
    args: &[String],
    ready_line: &str,
) -> Result<ExternalPeer, PeerError> {
    let lib = fetch(version)?;
    let stem = source.file_stem().map_or_else(|| String::from("program"), |s| s.to_string_lossy().into_owned());
    let name = format!("java-{stem}-{}", version.as_str());
    let home = rocketmq_home(&name)?;
    let jvm_extra: &[&str] = if version.is_4x() { &JAVA17_OPENS_FOR_4X } else { &[] };
    let source = source.to_str().ok_or_else(|| PeerError::Spawn {
        name: name.clone(),
        error: std::io::Error::other(format!("{} is not a UTF-8 path", source.display())),
    })?;
    let mut command = java_command(&lib, home.path(), jvm_extra, source);
    command.args(args);
    ExternalPeer::start(PeerSpec {
        name,
        command,
        dir: home,
        ready: Ready::LogLine(ready_line.to_string()),
        hang_guard: START_GUARD,
        grace: Duration::from_secs(5),
    })
}
