//! `tls.ciphers` and `tls.protocols` (Java 5.3.4+): a client offering only what is outside the
//! lists is refused at the handshake, one offering what is inside is served; the keys come
//! from `-D` and from `tls.config.file` as the other `tls.*` keys do; a name not served here is
//! a start-up error naming the key and value.

use crate::support;
use crate::tls_support;

use nameserver::tls::{Protocol, TlsConfig, TlsMode};
use rustls::CipherSuite as Suite;
use rustls::version::{TLS12, TLS13};
use support::{TestServer, route_query};
use tls_support::{Pki, call, client_offering, tls_connect};

const INSIDE_13: Suite = Suite::TLS13_AES_128_GCM_SHA256;
const OUTSIDE_13: Suite = Suite::TLS13_AES_256_GCM_SHA384;
/// The test PKI's keys are ECDSA: its TLS 1.2 suites are the ECDHE_ECDSA ones.
const INSIDE_12: Suite = Suite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256;
const OUTSIDE_12: Suite = Suite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384;

/// Handshakes offering `suites` and `versions`; the suite and version agreed, after a route
/// query was answered on the connection.
async fn try_handshake(
    pki: &Pki,
    server: &TestServer,
    suites: &[Suite],
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> Option<(Suite, rustls::ProtocolVersion)> {
    let connector = tokio_rustls::TlsConnector::from(client_offering(&pki.ca, suites, versions));
    let mut stream = tls_connect(&connector, server.addr, b"").await.ok()?;
    // TLS 1.3: a client may finish its side before the server refuses; the reply tells.
    let reply = call(&mut stream, &route_query("TBW102", 1)).await?;
    assert_eq!(reply.code, 17, "TOPIC_NOT_EXIST from an empty table: {reply:?}");
    let conn = stream.get_ref().1;
    Some((conn.negotiated_cipher_suite()?.suite(), conn.protocol_version()?))
}

#[tokio::test]
async fn a_client_offering_only_suites_outside_tls_ciphers_is_refused() {
    let pki = Pki::new();
    let ciphers = Some(vec![INSIDE_13, INSIDE_12]);
    let tls = TlsConfig { ciphers, ..pki.server(TlsMode::Permissive) };
    let server = TestServer::start_with(move |config| config.tls = tls).await;
    assert_eq!(try_handshake(&pki, &server, &[OUTSIDE_13], &[&TLS13]).await, None, "TLS 1.3 outside the list");
    assert_eq!(try_handshake(&pki, &server, &[OUTSIDE_12], &[&TLS12]).await, None, "TLS 1.2 outside the list");
    let served = try_handshake(&pki, &server, &[INSIDE_13], &[&TLS13]).await;
    assert_eq!(served, Some((INSIDE_13, rustls::ProtocolVersion::TLSv1_3)));
    let served = try_handshake(&pki, &server, &[OUTSIDE_12, INSIDE_12], &[&TLS12]).await;
    assert_eq!(served, Some((INSIDE_12, rustls::ProtocolVersion::TLSv1_2)));
    // A client offering everything gets a suite of the list.
    let (suite, _) = try_handshake(&pki, &server, &[], &[&TLS13, &TLS12]).await.expect("served");
    assert_eq!(suite, INSIDE_13);

    // Without the list the same clients are served: the refusals above are the list's.
    let tls = pki.server(TlsMode::Permissive);
    let open = TestServer::start_with(move |config| config.tls = tls).await;
    assert!(try_handshake(&pki, &open, &[OUTSIDE_13], &[&TLS13]).await.is_some());
    assert!(try_handshake(&pki, &open, &[OUTSIDE_12], &[&TLS12]).await.is_some());
}

#[tokio::test]
async fn a_client_of_a_version_outside_tls_protocols_is_refused() {
    let pki = Pki::new();
    for (only, other, version) in [
        (Protocol::Tls13, &TLS12, rustls::ProtocolVersion::TLSv1_3),
        (Protocol::Tls12, &TLS13, rustls::ProtocolVersion::TLSv1_2),
    ] {
        let tls = TlsConfig { protocols: Some(vec![only]), ..pki.server(TlsMode::Enforcing) };
        let server = TestServer::start_with(move |config| config.tls = tls).await;
        let name = only.name();
        assert_eq!(try_handshake(&pki, &server, &[], &[other]).await, None, "{name} only: the other version");
        let (_, agreed) =
            try_handshake(&pki, &server, &[], &[&TLS13, &TLS12]).await.unwrap_or_else(|| panic!("{name}: served"));
        assert_eq!(agreed, version, "{name} only");
    }
}

#[test]
fn the_binary_reads_the_lists_from_d_options_and_the_tls_config_file() {
    let pki = Pki::new();
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("tls.properties");
    // The file wins over -D, as for every key but the mode.
    std::fs::write(&file, "tls.ciphers=TLS_AES_128_GCM_SHA256\n").unwrap();
    let args = [
        format!("-Dtls.config.file={}", file.display()),
        String::from("-Dtls.ciphers=TLS_AES_256_GCM_SHA384"),
        String::from("-Dtls.protocols=TLSv1.3"),
        format!("-Dtls.server.certPath={}", pki.server_cert.display()),
        format!("-Dtls.server.keyPath={}", pki.server_key.display()),
        String::from("--no-http"),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let daemon = support::Daemon::start(home.path(), &args);
    assert!(!daemon.log().contains("is not a property this NameServer reads"), "{}", daemon.log());
    let connect = |suites: &[Suite], versions: &[&'static rustls::SupportedProtocolVersion]| {
        nameserver_testkit::wire::Client::connect_tls(
            daemon.addr,
            client_offering(&pki.ca, suites, versions),
            support::PATIENCE,
        )
        .and_then(|mut client| client.call(&route_query("TBW102", 1)))
        .ok()
        .flatten()
        .map(|frame| support::decode(&frame).code)
    };
    assert_eq!(connect(&[INSIDE_13], &[&TLS13]), Some(17), "the file's suite is served");
    assert_eq!(connect(&[OUTSIDE_13], &[&TLS13]), None, "the -D suite is not: the file won");
    assert_eq!(connect(&[INSIDE_12], &[&TLS12]), None, "TLS 1.2 is off (-D tls.protocols)");
}

/// Runs the binary with `args`; its standard error, after checking it exited before listening.
/// Its first line of output decides: none (it exited) or the boot line (it started: stopped,
/// and the test fails), so a daemon that starts cannot hang the test.
fn refused_start(home: &std::path::Path, args: &[String]) -> String {
    use std::io::BufRead as _;
    let mut child = support::nameserver_command(home)
        .args(["--no-http", "--listen-port", "0"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    if !line.is_empty() {
        let _ = child.kill();
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(line.is_empty(), "started with {args:?}: {line}");
    assert!(!output.status.success(), "{stderr}");
    stderr
}

#[test]
fn an_unserved_cipher_or_protocol_is_a_start_up_error_naming_key_and_value() {
    let home = tempfile::tempdir().unwrap();
    let cbc = "TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA";
    let stderr = refused_start(home.path(), &[format!("-Dtls.ciphers={cbc}")]);
    assert!(
        stderr.contains(&format!(
            "TLS: tls.ciphers={cbc}: `TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA` is not a cipher suite this NameServer serves; \
             it serves TLS_AES_256_GCM_SHA384, TLS_AES_128_GCM_SHA256,"
        )),
        "{stderr}"
    );
    let stderr = refused_start(home.path(), &[String::from("-Dtls.protocols=TLSv1.2,TLSv1.1")]);
    assert!(
        stderr.contains("TLS: tls.protocols=TLSv1.2,TLSv1.1: `TLSv1.1` is not a protocol this NameServer serves; it serves TLSv1.3, TLSv1.2"),
        "{stderr}"
    );
    // From the file as well, and even with TLS disabled (Java would not read the lists then:
    // here a typo does not wait for the day TLS is turned on).
    let file = home.path().join("tls.properties");
    std::fs::write(&file, "tls.protocols=TLSv1\n").unwrap();
    let stderr = refused_start(
        home.path(),
        &[format!("-Dtls.config.file={}", file.display()), String::from("-Dtls.server.mode=disabled")],
    );
    assert!(stderr.contains("TLS: tls.protocols=TLSv1: `TLSv1` is not a protocol"), "{stderr}");
    // Lists that leave nothing to serve together, or nothing for the certificate's key.
    let stderr = refused_start(
        home.path(),
        &[String::from("-Dtls.ciphers=TLS_AES_128_GCM_SHA256"), String::from("-Dtls.protocols=TLSv1.2")],
    );
    assert!(stderr.contains("tls.ciphers (TLS_AES_128_GCM_SHA256) and tls.protocols (TLSv1.2) leave no"), "{stderr}");
    let pki = Pki::new();
    let stderr = refused_start(
        home.path(),
        &[
            String::from("-Dtls.ciphers=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
            format!("-Dtls.server.certPath={}", pki.server_cert.display()),
            format!("-Dtls.server.keyPath={}", pki.server_key.display()),
        ],
    );
    assert!(stderr.contains("has no suite for the certificate's ECDSA key"), "{stderr}");
}
