//! The HTTP console as the `nameserver` binary starts it: the address on stdout and in the
//! log, the page served from the repository by default, `--no-http`, and a taken port.

use crate::support;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Stdio};

use support::{PATIENCE, nameserver_command};

/// The binary on ephemeral ports: (child, RocketMQ address, HTTP address).
fn start(home: &std::path::Path, args: &[&str]) -> (Child, SocketAddr, SocketAddr) {
    let mut child = nameserver_command(home)
        .args(["--bind-address", "127.0.0.1", "--listen-port", "0", "--http-port", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (mut boot, mut http) = (String::new(), String::new());
    stdout.read_line(&mut boot).unwrap();
    stdout.read_line(&mut http).unwrap();
    let tcp = boot.trim().rsplit(' ').next().unwrap().parse().unwrap_or_else(|_| panic!("boot line {boot:?}"));
    let url = http.strip_prefix("HTTP console: http://").unwrap_or_else(|| panic!("HTTP line {http:?}"));
    let addr = url.split('/').next().unwrap().parse().unwrap();
    (child, tcp, addr)
}

/// GET `path`: (status line, body).
fn get(addr: SocketAddr, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_string(), body.to_string())
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn the_daemon_serves_the_console_and_the_repositorys_page() {
    let home = tempfile::tempdir().unwrap();
    let (child, tcp, http) = start(home.path(), &[]);
    assert_eq!(get(http, "/healthz").0, "HTTP/1.1 200 OK");
    assert_eq!(get(http, "/rocketmq/nsaddr").1, tcp.to_string());
    let (status, page) = get(http, "/www/");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(page.contains("RocketMQ NameServer playground"), "the repository's www/ by default");
    assert_eq!(get(http, "/www/main.js").0, "HTTP/1.1 200 OK");
    stop(child);
}

/// The daemon's log up to (and including) the first line containing `until`.
fn log_until(home: &std::path::Path, args: &[&str], until: &str) -> String {
    let mut child = nameserver_command(home)
        .args(["--bind-address", "127.0.0.1", "--listen-port", "0"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut log = String::new();
    while !log.contains(until) {
        assert!(stderr.read_line(&mut log).unwrap() > 0, "never logged {until:?}: {log}");
    }
    stop(child);
    log
}

#[test]
fn the_console_address_is_logged_and_no_http_turns_it_off() {
    let home = tempfile::tempdir().unwrap();
    let log = log_until(home.path(), &["--http-port", "0"], "HTTP console on");
    let line = log.lines().last().unwrap();
    assert!(line.contains("INFO"), "{line}");
    assert!(line.contains("HTTP console on http://127.0.0.1:") && line.contains("(read-only)"), "{line}");
    // Every path an operator points something at: a browser, a scraper, probes, clients.
    for path in ["/www/?live", "/api", "/api/events", "/metrics", "/healthz", "/readyz", "/rocketmq/nsaddr"] {
        assert!(line.contains(&format!(" {path}")), "the line lacks {path}: {line}");
    }
    let log = log_until(home.path(), &["--http-port", "0", "--http-token", "t0ken"], "HTTP console on");
    assert!(log.contains("(KV writes with the token)") && !log.contains("t0ken"), "{log}");
    let log = log_until(home.path(), &["--no-http"], "boot success");
    assert!(!log.contains("HTTP"), "{log}");
}

#[test]
fn a_port_given_with_http_port_must_be_free() {
    let home = tempfile::tempdir().unwrap();
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let output = nameserver_command(home.path())
        .args(["--bind-address", "127.0.0.1", "--listen-port", "0", "--http-port", &port])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&format!("cannot listen on 127.0.0.1:{port} (--http-port)")), "{stderr}");
}

#[test]
fn peers_come_from_the_flag_or_the_environment_and_bad_ones_are_refused() {
    let home = tempfile::tempdir().unwrap();
    // Two daemons: B, then A naming B (and itself, as a list shared by every NameServer would)
    // in NAMESERVER_HTTP_PEERS.
    let (b, _, b_http) = start(home.path(), &[]);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let a_port = listener.local_addr().unwrap().port();
    drop(listener);
    let mut a = nameserver_command(home.path())
        .args(["--bind-address", "127.0.0.1", "--listen-port", "0", "--http-port", &a_port.to_string()])
        .env("NAMESERVER_HTTP_PEERS", format!("http://{b_http}, http://127.0.0.1:{a_port}/"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(a.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    stdout.read_line(&mut line).unwrap();
    let a_http: SocketAddr = format!("127.0.0.1:{a_port}").parse().unwrap();
    let peers = support::eventually_blocking("both peers reachable", || {
        let peers: serde_json::Value = serde_json::from_str(&get(a_http, "/api/peers").1).unwrap();
        peers["peers"].as_array().unwrap().iter().all(|p| p["reachable"] == true).then_some(peers)
    });
    let urls: Vec<(&str, bool)> =
        peers["peers"].as_array().unwrap().iter().map(|p| (p["url"].as_str().unwrap(), p["self"] == true)).collect();
    let (b_url, a_url) = (format!("http://{b_http}"), format!("http://127.0.0.1:{a_port}"));
    assert_eq!(urls, [(b_url.as_str(), false), (a_url.as_str(), true)]);
    stop(a);
    stop(b);

    for (args, env, expected) in [
        (vec!["--http-peers", "https://ns-2:8080"], None, "not https://"),
        (vec!["--http-peers", "http://ns-1:8080,ns-2:8080"], None, "write http://ns-2:8080"),
        (vec![], Some("http://ns-1:8080/?x"), "without ? or #"),
    ] {
        let mut command = nameserver_command(home.path());
        command.args(["--bind-address", "127.0.0.1", "--listen-port", "0", "--http-port", "0"]).args(&args);
        if let Some(env) = env {
            command.env("NAMESERVER_HTTP_PEERS", env);
        }
        let output = command.output().unwrap();
        assert!(!output.status.success(), "{args:?} {env:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--http-peers") && stderr.contains(expected), "{stderr}");
    }
}
