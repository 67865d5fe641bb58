//! TLS on the RocketMQ port, as Java's remoting server serves it: `tls.server.mode`
//! permissive (TLS and plaintext on the one port, told apart by the first byte), enforcing
//! (plaintext refused), `tls.server.need.client.auth=require`, certificates reloaded when
//! their files change, and clear start-up errors. Certificates are made with rcgen at test
//! time; `openssl s_client` (Debian's openssl) is a second, independent client.

use crate::support;
use crate::tls_support;

use std::io::{Read as _, Write as _};
use std::time::{Duration, Instant};

use nameserver::tls::{TlsConfig, TlsMode};
use nameserver_core::codec;
use support::{Client, TestServer, decode, register_broker_frame, route_query};
use tls_support::{Pki, call, client_trusting, tls_connect};

/// A topic the real broker registers.
const TOPIC: &str = "TBW102";

async fn server(tls: TlsConfig) -> TestServer {
    TestServer::start_with(move |config| config.tls = tls).await
}

/// Registers the real broker over `stream` and checks the reply.
async fn register<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(stream: &mut S) {
    let reply = call(stream, &decode(&register_broker_frame())).await.expect("a register reply");
    assert_eq!(reply.code, 0, "{reply:?}");
}

#[tokio::test]
async fn permissive_serves_tls_and_plaintext_on_the_same_port() {
    let pki = Pki::new();
    let server = server(pki.server(TlsMode::Permissive)).await;
    // A broker registers in plaintext...
    let mut broker = Client::connect(server.addr).await;
    register(&mut broker.stream).await;
    // ...and a TLS client gets its route on the same port.
    let mut tls = tls_connect(&pki.client(false), server.addr, b"").await.expect("TLS handshake");
    let reply = call(&mut tls, &route_query(TOPIC, 1)).await.expect("a route over TLS");
    assert_eq!(reply.code, 0);
    assert!(String::from_utf8_lossy(&reply.body).contains("127.0.0.1:31911"));
    // A plaintext client still gets the same answer.
    let mut plain = Client::connect(server.addr).await;
    let plain_reply = plain.request(&route_query(TOPIC, 1)).await;
    assert_eq!(plain_reply.body, reply.body);
    // Both stay open for more.
    assert_eq!(call(&mut tls, &route_query(TOPIC, 2)).await.unwrap().opaque, 2);
}

#[tokio::test]
async fn enforcing_refuses_plaintext() {
    let pki = Pki::new();
    let server = server(pki.server(TlsMode::Enforcing)).await;
    let mut plain = Client::connect(server.addr).await;
    plain.send(&codec::encode_to_vec(&route_query(TOPIC, 1)).unwrap()).await;
    assert!(plain.closed_by_server().await, "a plaintext client is closed with no reply");
    let mut tls = tls_connect(&pki.client(false), server.addr, b"").await.expect("TLS handshake");
    register(&mut tls).await;
    assert_eq!(call(&mut tls, &route_query(TOPIC, 2)).await.unwrap().code, 0);
}

#[tokio::test]
async fn disabled_refuses_a_tls_client_and_serves_plaintext() {
    let pki = Pki::new();
    let server = server(TlsConfig { mode: TlsMode::Disabled, ..pki.server(TlsMode::Disabled) }).await;
    let outcome = tls_connect(&pki.client(false), server.addr, b"").await;
    assert!(outcome.is_err(), "the handshake fails: the server closes the connection");
    let mut plain = Client::connect(server.addr).await;
    assert_eq!(plain.request(&route_query(TOPIC, 1)).await.code, 17);
}

#[tokio::test]
async fn require_refuses_a_client_without_a_certificate() {
    let pki = Pki::new();
    let server = server(pki.server_requiring_clients(TlsMode::Permissive)).await;
    // TLS 1.3: the client may finish its side before the server refuses; either way nothing
    // is answered.
    match tls_connect(&pki.client(false), server.addr, b"").await {
        Err(_) => {}
        Ok(mut stream) => assert!(call(&mut stream, &route_query(TOPIC, 1)).await.is_none()),
    }
    // A client certificate from another CA is refused too.
    let stranger = Pki::new();
    let foreign = client_trusting(&pki.ca, Some((&stranger.client_cert, &stranger.client_key)));
    match tls_connect(&foreign, server.addr, b"").await {
        Err(_) => {}
        Ok(mut stream) => assert!(call(&mut stream, &route_query(TOPIC, 1)).await.is_none()),
    }
    let mut trusted = tls_connect(&pki.client(true), server.addr, b"").await.expect("TLS with a client certificate");
    assert_eq!(call(&mut trusted, &route_query(TOPIC, 1)).await.unwrap().code, 17);
}

#[tokio::test]
async fn openssl_s_client_completes_a_handshake_and_a_route_query() {
    if std::process::Command::new("openssl").arg("version").output().is_err() {
        eprintln!("SKIPPED: `openssl` is not installed (Debian package openssl); the rustls client tests still ran");
        return;
    }
    let pki = Pki::new();
    let server = server(pki.server(TlsMode::Permissive)).await;
    // The broker stays connected: its registration lives as long as its connection.
    let mut broker = Client::connect(server.addr).await;
    register(&mut broker.stream).await;
    let (addr, ca) = (server.addr.to_string(), pki.ca.clone());
    let frame = codec::encode_to_vec(&route_query(TOPIC, 7)).unwrap();
    let reply = tokio::task::spawn_blocking(move || {
        let mut child = std::process::Command::new("openssl")
            .args(["s_client", "-connect", &addr, "-servername", "localhost", "-verify_return_error", "-quiet"])
            .arg("-CAfile")
            .arg(&ca)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&frame).unwrap();
        stdin.flush().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut bytes = Vec::new();
        let started = Instant::now();
        let reply = loop {
            if let Ok(Some((cmd, _))) = codec::decode(&bytes, &nameserver_core::codec::Limits::DEFAULT) {
                break Some(cmd);
            }
            let mut chunk = [0u8; 4096];
            match stdout.read(&mut chunk) {
                Ok(0) | Err(_) => break None,
                Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            }
            assert!(started.elapsed() < support::PATIENCE, "openssl gave no reply");
        };
        drop(stdin);
        let _ = child.kill();
        let output = child.wait_with_output().unwrap();
        (reply, String::from_utf8_lossy(&output.stderr).into_owned())
    })
    .await
    .unwrap();
    let (reply, stderr) = reply;
    let reply = reply.unwrap_or_else(|| panic!("no reply through openssl s_client: {stderr}"));
    assert_eq!((reply.code, reply.opaque), (0, 7));
    assert!(String::from_utf8_lossy(&reply.body).contains("127.0.0.1:31911"));
}

#[tokio::test]
async fn an_encrypted_pkcs8_key_is_read_with_tls_server_key_password() {
    let pki = Pki::new();
    let encrypted = pki.dir.path().join("server-encrypted.key");
    let made = std::process::Command::new("openssl")
        .args(["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-passout", "pass:s3cret", "-in"])
        .arg(&pki.server_key)
        .arg("-out")
        .arg(&encrypted)
        .status();
    if !made.is_ok_and(|status| status.success()) {
        eprintln!("SKIPPED: `openssl` (Debian package openssl) is needed to encrypt the test key");
        return;
    }
    let with = |password: Option<&str>| TlsConfig {
        key_path: Some(encrypted.clone()),
        key_password: password.map(String::from),
        ..pki.server(TlsMode::Permissive)
    };
    let missing = with(None).build().unwrap_err().to_string();
    assert!(missing.contains("tls.server.keyPassword"), "{missing}");
    let wrong = with(Some("nope")).build().unwrap_err().to_string();
    assert!(wrong.contains("cannot decrypt"), "{wrong}");
    let server = server(with(Some("s3cret"))).await;
    let mut tls = tls_connect(&pki.client(false), server.addr, b"").await.expect("TLS handshake");
    assert_eq!(call(&mut tls, &route_query(TOPIC, 1)).await.unwrap().code, 17);
}

#[tokio::test]
async fn certificates_are_reloaded_when_their_files_change() {
    let (old, new) = (Pki::new(), Pki::new());
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("server.pem"), dir.path().join("server.key"));
    std::fs::copy(&old.server_cert, &cert).unwrap();
    std::fs::copy(&old.server_key, &key).unwrap();
    let tls =
        TlsConfig { cert_path: Some(cert.clone()), key_path: Some(key.clone()), ..old.server(TlsMode::Permissive) };
    let server = server(tls).await;
    assert!(tls_connect(&old.client(false), server.addr, b"").await.is_ok());
    assert!(tls_connect(&new.client(false), server.addr, b"").await.is_err(), "not yet the new certificate");
    // A half-written pair is reported and the certificate in use stays.
    std::fs::write(&cert, "not a certificate").unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert!(tls_connect(&old.client(false), server.addr, b"").await.is_ok(), "the old certificate stays");
    std::fs::copy(&new.server_cert, &cert).unwrap();
    std::fs::copy(&new.server_key, &key).unwrap();
    support::eventually("the new certificate is picked up", || async {
        tls_connect(&new.client(false), server.addr, b"").await.is_ok().then_some(())
    })
    .await;
    assert!(tls_connect(&old.client(false), server.addr, b"").await.is_err(), "the old certificate is gone");
}

#[test]
fn a_bad_certificate_path_is_a_clear_start_up_error() {
    let pki = Pki::new();
    let missing = TlsConfig { cert_path: Some("/nonexistent/server.pem".into()), ..pki.server(TlsMode::Permissive) };
    let error = missing.build().unwrap_err().to_string();
    assert!(error.starts_with("tls.server.certPath /nonexistent/server.pem: "), "{error}");
    let not_pem = TlsConfig { cert_path: Some(pki.server_key.clone()), ..pki.server(TlsMode::Permissive) };
    assert!(not_pem.build().unwrap_err().to_string().contains("no PEM certificate"));
    let mismatched = TlsConfig { key_path: Some(pki.client_key.clone()), ..pki.server(TlsMode::Permissive) };
    assert!(mismatched.build().unwrap_err().to_string().contains("do not fit together"));
    let nothing = TlsConfig { test_mode: false, ..TlsConfig::java_defaults() };
    assert!(nothing.build().unwrap_err().to_string().contains("no certificate is configured"));

    // The binary says so and exits before listening.
    let home = tempfile::tempdir().unwrap();
    let output = support::nameserver_command(home.path())
        .args(["--no-http", "--listen-port", "0", "-Dtls.server.certPath=/nonexistent/server.pem"])
        .arg(format!("-Dtls.server.keyPath={}", pki.server_key.display()))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("TLS: tls.server.certPath /nonexistent/server.pem: No such file"), "{stderr}");
    assert!(output.stdout.is_empty(), "no boot line: {}", String::from_utf8_lossy(&output.stdout));
}

#[test]
fn tls_settings_come_from_d_options_then_the_tls_config_file_as_in_java() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tls.properties");
    std::fs::write(
        &file,
        "tls.server.need.client.auth=REQUIRE\ntls.server.certPath=/from/file.pem\ntls.server.mode=disabled\ntls.test.mode.enable=false\n",
    )
    .unwrap();
    let mut system = std::collections::BTreeMap::new();
    system.insert(String::from("tls.config.file"), file.display().to_string());
    system.insert(String::from("tls.server.mode"), String::from("enforcing"));
    system.insert(String::from("tls.server.certPath"), String::from("/from/d.pem"));
    system.insert(String::from("tls.server.keyPath"), String::from("/from/d.key"));
    let tls = TlsConfig::from_system_properties(&system).unwrap();
    assert_eq!(tls.mode, TlsMode::Enforcing, "the mode is never read from the file");
    assert_eq!(tls.cert_path.as_deref(), Some(std::path::Path::new("/from/file.pem")), "the file wins");
    assert_eq!(tls.key_path.as_deref(), Some(std::path::Path::new("/from/d.key")));
    assert_eq!(tls.need_client_auth, nameserver::tls::ClientAuth::Require);
    assert!(!tls.test_mode);
    // Java's parsing: an unknown mode is permissive, an unknown client-auth mode is none.
    assert_eq!(TlsMode::parse("ENFORCING"), TlsMode::Permissive);
    assert_eq!(nameserver::tls::ClientAuth::parse("sometimes"), nameserver::tls::ClientAuth::None);
}

/// As an operator turns it on: `-D` options give the built binary its certificate and the
/// enforcing mode; a blocking TLS client registers a broker and gets its route, a plaintext
/// client is closed with no reply, and SIGTERM closes the TLS connection.
#[test]
fn the_binary_serves_tls_configured_by_d_options() {
    use nameserver_testkit::wire;

    let pki = Pki::new();
    let home = tempfile::tempdir().unwrap();
    let cert = format!("-Dtls.server.certPath={}", pki.server_cert.display());
    let key = format!("-Dtls.server.keyPath={}", pki.server_key.display());
    let args = ["--no-http", "-Dtls.server.mode=enforcing", "-Dtls.test.mode.enable=false", &cert, &key];
    let mut daemon = support::Daemon::start(home.path(), &args);

    let mut tls = wire::Client::connect_tls(daemon.addr, pki.client_config(false), support::PATIENCE)
        .expect("a TLS handshake with the binary");
    let registered = tls.call(&decode(&register_broker_frame())).unwrap().expect("a register reply");
    assert_eq!(decode(&registered).code, 0, "{:?}", decode(&registered));
    let route = decode(&tls.call(&route_query(TOPIC, 2)).unwrap().expect("a route reply"));
    assert_eq!((route.code, route.opaque), (0, 2), "{route:?}");
    assert!(String::from_utf8_lossy(&route.body).contains("127.0.0.1:31911"));

    let mut plain = wire::Client::connect(daemon.addr, support::PATIENCE).unwrap();
    plain.send(&route_query(TOPIC, 3)).unwrap();
    assert_eq!(plain.closed_by_server().unwrap(), 0, "a plaintext client is closed with no reply");

    assert!(daemon.terminate().success());
    assert_eq!(tls.closed_by_server().unwrap(), 0, "the TLS connection closes at shutdown, nothing more sent");
}
