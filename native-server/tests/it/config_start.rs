//! What the binary says about itself and its configuration at start: `--version` with the
//! commit, a warning for every key accepted but not implemented, and the GO_AWAY window taken
//! from `shutdownWaitTimeSeconds` when `enableShutdownGracefully` is on.

use crate::support;

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use support::{
    CloggedPeer, call_blocking, decode, encode, nameserver_command, register_broker_frame, route_query, within,
};

#[test]
fn version_names_the_version_and_the_commit() {
    let home = tempfile::tempdir().unwrap();
    let output = nameserver_command(home.path()).arg("--version").output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let expected = format!("nameserver {} (commit {})\n", env!("CARGO_PKG_VERSION"), nameserver::version::COMMIT);
    assert_eq!(text, expected);
    let commit = nameserver::version::COMMIT;
    assert!(commit == "unknown" || commit.chars().all(|c| c.is_ascii_hexdigit()), "{commit}");
}

#[test]
fn a_bad_drain_time_is_refused_at_start() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("namesrv.properties");
    std::fs::write(&file, "enableShutdownGracefully=true\nshutdownWaitTimeSeconds=soon\n").unwrap();
    let output = nameserver_command(home.path()).args(["-c", &file.display().to_string()]).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("shutdownWaitTimeSeconds") && stderr.contains("soon"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unimplemented_keys_warn_and_the_drain_time_is_honoured() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("namesrv.properties");
    std::fs::write(
        &file,
        "controllerDLegerGroup=g\ntls.server.mode=enforcing\nserverWorkerThreads=32\n\
         orderMessageEnable=true\nenableShutdownGracefully=true\nshutdownWaitTimeSeconds=1\n",
    )
    .unwrap();
    let mut child = nameserver_command(home.path())
        .args(["-c", &file.display().to_string(), "--bind-address", "127.0.0.1", "--listen-port", "0", "--no-http"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut boot = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut boot).unwrap();
    let addr: std::net::SocketAddr = boot.trim().rsplit(' ').next().unwrap().parse().unwrap();
    let stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for line in BufReader::new(stderr).lines() {
            lines.push(line.unwrap());
        }
        lines
    });

    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(support::PATIENCE)).unwrap();
    assert_eq!(decode(&call_blocking(&mut stream, &register_broker_frame())).code, 0);
    assert_eq!(decode(&call_blocking(&mut stream, &encode(&route_query("TBW102", 1)))).code, 0);
    let flood = CloggedPeer::flood(addr, "TBW102").await;

    let started = Instant::now();
    std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let exit = tokio::task::spawn_blocking(move || child.wait().unwrap()).await.unwrap();
    let took = started.elapsed();
    let lines = log.join().unwrap();
    let text = lines.join("\n");
    assert!(exit.success(), "{exit}\n{text}");
    assert!(took >= Duration::from_millis(900), "the clogged connection held the drain: {took:?}\n{text}");
    // The file's 1 s is the GO_AWAY window (Java's sleep); the drain after it keeps its 5 s.
    assert!(text.contains("shutdown: serving 1s more"), "{text}");
    assert!(text.contains("the GO_AWAY window is over"), "{text}");
    assert!(text.contains("connections still busy after 5s, closing them"), "{text}");
    let warned = |key: &str| lines.iter().any(|l| l.contains("WARN") && l.contains(&format!("config: {key}")));
    for key in ["controllerDLegerGroup=g", "tls.server.mode=enforcing", "serverWorkerThreads=32"] {
        assert!(warned(key), "no warning for {key}:\n{text}");
    }
    for key in ["orderMessageEnable", "enableShutdownGracefully", "shutdownWaitTimeSeconds"] {
        assert!(!warned(key), "{key} is implemented:\n{text}");
    }
    within("the peer is closed", flood.closed_by_server()).await;
}
