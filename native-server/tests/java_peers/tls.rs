//! TLS with real Java clients (issue 29): Java 5.5.0's producer (`TlsRoutes.java`) and mqadmin
//! with `-Dtls.enable=true`, checking our certificate against the test CA
//! (`tls.client.authServer`, `tls.client.trustCertPath`), get a route from our daemon in
//! permissive mode (whose `tls.ciphers` comes from its `tls.config.file`) and in enforcing mode;
//! the same producer with `-Dtls.ciphers` set to a suite outside the permissive daemon's list is
//! refused there and served by the other; a 5.5.0 producer with `-Dtls.protocols=TLSv1.2` is
//! refused by a daemon with `tls.protocols=TLSv1.3`. In enforcing mode a plaintext
//! PUT_KV_CONFIG (100) over raw TCP is closed unanswered and stores nothing: `kvConfig.json` is
//! the same after a clean stop (Java's #10110, fixed in 5.5.0).
//!
//! No Java broker: a registration over the wire gives the route, and the clients only ask the
//! NameServer. One JVM per client configuration (TLS settings are a JVM's system properties),
//! two at a time; it runs beside the peers run (`scripts/test.sh java-peers`, `--ignored`);
//! `NAMESERVER_SKIP_JAVA=1` skips it.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Instant;

use nameserver_testkit::Pki;
use nameserver_testkit::daemon::{Config, Daemon, nameserver_command};
use nameserver_testkit::frames;
use nameserver_testkit::java::{self, Version};
use nameserver_testkit::wait::PATIENCE;
use nameserver_testkit::wire::TlsStream;
use nameserver_testkit::wire::{self, Client};

const TOPIC: &str = "TlsTopic";
const BROKER: &str = "tls-broker";
const BROKER_ADDR: &str = "127.0.0.1:30911";
/// The permissive daemon's `tls.ciphers`; the Java client outside it offers [`OUTSIDE`] alone.
const CIPHERS: &str = "TLS_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";
const OUTSIDE: &str = "TLS_AES_256_GCM_SHA384";
/// The KV table the enforcing daemon starts with, as Java writes it.
const KV_FILE: &str = r#"{"configTable":{"TLS29":{"before":"1"}}}"#;

fn daemon(home: &Path, config: &Config, args: &[String]) -> Daemon {
    let args: Vec<&str> = args.iter().map(String::as_str).chain(["--no-http"]).collect();
    Daemon::spawn_configured(
        nameserver_command(Path::new(env!("CARGO_BIN_EXE_nameserver")), home),
        "127.0.0.1",
        config,
        &args,
    )
}

/// The registering connection stays silent while the JVMs run, which on a busy machine took
/// longer than the 120 s idle close: an hour of it, and of the registration's timeout.
const QUIET_BROKER: [(&str, &str); 1] = [("serverChannelMaxIdleTimeSeconds", "3600")];

/// Registers the broker over TLS; the connection holds the registration.
fn register(pki: &Pki, addr: SocketAddr) -> Client<TlsStream> {
    let mut client = Client::connect_tls(addr, pki.client_config(false), PATIENCE).expect("TLS to our daemon");
    // Two topics: one alone would read as a split registration's piece (PROTOCOL.md §10.3).
    let topics = [TOPIC.to_string(), String::from("TlsOther")];
    let body = frames::register_broker("TlsCluster", BROKER, 0, BROKER_ADDR, &topics, 1, None).body;
    let broker = frames::BrokerSpec { name: BROKER.to_string(), addr: BROKER_ADDR.to_string() };
    // Registered once: an hour's timeout, so a slow run's last route query still finds it.
    let cmd = frames::register_command(&broker, &body, false, 1)
        .with_field("heartbeatTimeoutMillis", "3600000")
        .with_body(body);
    let reply = wire::decode(&client.call(&cmd).unwrap().expect("a register reply")).unwrap();
    assert_eq!(reply.code, 0, "{reply:?}");
    client
}

/// The Java client's TLS settings: on, checking the server against the test CA.
fn java_tls(pki: &Pki, extra: &[&str]) -> Vec<String> {
    let mut jvm = vec![
        String::from("-Dtls.enable=true"),
        String::from("-Dtls.test.mode.enable=false"),
        String::from("-Dtls.client.authServer=true"),
        format!("-Dtls.client.trustCertPath={}", pki.ca.display()),
    ];
    jvm.extend(extra.iter().map(|s| (*s).to_string()));
    jvm
}

/// `TlsRoutes.java` with `jvm` against each of `namesrvs`: one `ROUTE` line each.
fn routes(jvm: &[String], namesrvs: &[SocketAddr]) -> Vec<String> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/java_peers/TlsRoutes.java");
    let jvm: Vec<&str> = jvm.iter().map(String::as_str).collect();
    let addrs: Vec<String> = namesrvs.iter().map(ToString::to_string).collect();
    let args: Vec<&str> = [TOPIC].into_iter().chain(addrs.iter().map(String::as_str)).collect();
    let (code, out) =
        java::run_source_with_jvm(Version::V5_5_0, &source, &jvm, &args).unwrap_or_else(|e| panic!("{e}"));
    // The exit code alone proves nothing: every NameServer must have its line, then DONE.
    assert!(out.lines().any(|l| l == "DONE"), "TlsRoutes did not finish (exit {code:?}):\n{out}");
    let lines: Vec<String> = out.lines().filter(|l| l.starts_with("ROUTE ")).map(String::from).collect();
    assert_eq!(lines.len(), namesrvs.len(), "{out}");
    lines
}

fn served(line: &str, addr: SocketAddr) -> bool {
    line == format!("ROUTE {addr} OK {BROKER}x4")
}

fn refused(line: &str, addr: SocketAddr) -> bool {
    line.starts_with(&format!("ROUTE {addr} FAILED "))
}

/// mqadmin topicRoute with `jvm`: its output, checked to hold the broker's address.
fn mqadmin_route(jvm: &[String], addr: SocketAddr) -> String {
    let jvm: Vec<&str> = jvm.iter().map(String::as_str).collect();
    let (code, out) = java::mqadmin_with_jvm(Version::V5_5_0, addr, &jvm, &["topicRoute", "-t", TOPIC])
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.contains(&format!("\"{BROKER_ADDR}\"")) && out.contains(BROKER), "mqadmin (exit {code:?}):\n{out}");
    out
}

#[test]
#[ignore = "needs Java 17 and Maven Central: scripts/test.sh runs it in its own step"]
fn java_clients_over_tls() {
    if java::skip_requested("TLS with Java clients") {
        return;
    }
    let started = Instant::now();
    let elapsed = || started.elapsed().as_secs_f64();
    let pki = Pki::new();
    let cert = format!("-Dtls.server.certPath={}", pki.server_cert.display());
    let key = format!("-Dtls.server.keyPath={}", pki.server_key.display());
    let no_test_mode = String::from("-Dtls.test.mode.enable=false");

    // Permissive, its cipher list in the tls.config.file as an operator keeps it.
    let p_home = tempfile::tempdir().unwrap();
    let tls_file = p_home.path().join("tls.properties");
    std::fs::write(&tls_file, format!("tls.ciphers={CIPHERS}\n")).unwrap();
    let file = format!("-Dtls.config.file={}", tls_file.display());
    let permissive = daemon(
        p_home.path(),
        &Config::write(p_home.path(), &QUIET_BROKER),
        &[file, no_test_mode.clone(), cert.clone(), key.clone()],
    );
    // Enforcing, with a KV table on disk.
    let e_home = tempfile::tempdir().unwrap();
    let e_config = Config::write(e_home.path(), &QUIET_BROKER);
    std::fs::create_dir_all(e_config.kv.parent().unwrap()).unwrap();
    std::fs::write(&e_config.kv, KV_FILE).unwrap();
    let mode = String::from("-Dtls.server.mode=enforcing");
    let mut enforcing =
        daemon(e_home.path(), &e_config, &[mode.clone(), no_test_mode.clone(), cert.clone(), key.clone()]);
    // TLS 1.3 only.
    let t_home = tempfile::tempdir().unwrap();
    let tls13 = String::from("-Dtls.protocols=TLSv1.3");
    let tls13_only =
        daemon(t_home.path(), &Config::write(t_home.path(), &QUIET_BROKER), &[mode, no_test_mode, cert, key, tls13]);
    let (p, e, t) = (permissive.addr, enforcing.addr, tls13_only.addr);
    let _brokers = [register(&pki, p), register(&pki, e), register(&pki, t)];

    // In enforcing mode a plaintext PUT_KV_CONFIG is closed unanswered, and stores nothing.
    let mut plain = Client::connect(e, PATIENCE).unwrap();
    plain.send(&frames::put_kv("TLS29", "sneaked", "in")).unwrap();
    assert_eq!(plain.closed_by_server().unwrap(), 0, "closed with no reply");
    let mut tls = Client::connect_tls(e, pki.client_config(false), PATIENCE).unwrap();
    let ask = |client: &mut Client<TlsStream>, key: &str| {
        wire::decode(&client.call(&frames::get_kv("TLS29", key)).unwrap().expect("a reply")).unwrap()
    };
    assert_eq!(ask(&mut tls, "before").code, 0, "the table on disk is served");
    assert_eq!(ask(&mut tls, "sneaked").code, 22, "QUERY_NOT_FOUND: the plaintext put was not processed");
    println!("plaintext PUT_KV refused by the enforcing daemon after {:.1} s", elapsed());

    let (default_tls, outside, tls12) = (
        java_tls(&pki, &[]),
        java_tls(&pki, &[&format!("-Dtls.ciphers={OUTSIDE}")]),
        java_tls(&pki, &["-Dtls.protocols=TLSv1.2"]),
    );
    let ((inside_lines, outside_lines), (tls12_lines, admin)) = std::thread::scope(|s| {
        let inside = s.spawn(|| routes(&default_tls, &[p, e, t]));
        let outside = routes(&outside, &[p, e]);
        let inside = inside.join().unwrap();
        println!("Java producers done after {:.1} s", elapsed());
        let admin = s.spawn(|| (mqadmin_route(&default_tls, p), mqadmin_route(&default_tls, e)));
        let tls12 = routes(&tls12, &[t, e]);
        let admin = admin.join().unwrap();
        ((inside, outside), (tls12, admin))
    });
    println!("mqadmin done after {:.1} s", elapsed());
    for line in inside_lines.iter().chain(&outside_lines).chain(&tls12_lines) {
        println!("  {line}");
    }
    assert!(served(&inside_lines[0], p), "permissive, default client: {}", inside_lines[0]);
    assert!(served(&inside_lines[1], e), "enforcing, default client: {}", inside_lines[1]);
    assert!(served(&inside_lines[2], t), "TLSv1.3 only, default client: {}", inside_lines[2]);
    assert!(refused(&outside_lines[0], p), "a cipher outside tls.ciphers: {}", outside_lines[0]);
    assert!(served(&outside_lines[1], e), "the same client without a list to meet: {}", outside_lines[1]);
    assert!(refused(&tls12_lines[0], t), "TLSv1.2 against TLSv1.3 only: {}", tls12_lines[0]);
    assert!(served(&tls12_lines[1], e), "the same client where TLSv1.2 is on: {}", tls12_lines[1]);
    assert!(!admin.0.is_empty() && !admin.1.is_empty());
    // Refused for the reason meant, in the daemons' words (the client only says it could not send).
    let said = |daemon: &Daemon, what: &str| {
        let log = daemon.log();
        assert!(log.contains(what), "no `{what}` in:\n{log}");
    };
    said(&permissive, "TLS handshake failed: peer is incompatible: NoCipherSuitesInCommon");
    said(&tls13_only, "TLS handshake failed: peer is incompatible: Tls12NotOfferedOrEnabled");
    said(&enforcing, "Clients intend to establish an insecure connection");

    // A clean stop writes the table whole: the same as before the plaintext put.
    drop(tls);
    assert!(enforcing.terminate().success());
    let after = std::fs::read_to_string(&e_config.kv).unwrap();
    let (before, after): (serde_json::Value, serde_json::Value) =
        (serde_json::from_str(KV_FILE).unwrap(), serde_json::from_str(&after).unwrap());
    assert_eq!(after, before, "kvConfig.json after the stop");
    assert!(!e_config.kv.with_extension("json.journal").exists(), "no journal left");
    println!("kvConfig.json unchanged; total {:.1} s", elapsed());
}
