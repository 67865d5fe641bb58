//! The open-files limit: under a 256 soft limit (hard 8192) the daemon raises its soft limit
//! at start, logs the old and new values, warns that the hard limit is below
//! --max-connections, and answers 400 concurrent connections with no failed accept.

// A binary of its own: it raises this process's open-files limit, which every daemon another
// test started from this process would inherit.
#[path = "it/support/mod.rs"]
#[allow(dead_code)] // this binary uses a few of the shared helpers
mod support;

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};

use nameserver_core::protocol::RequestCode;
use support::{PATIENCE, encode, read_frame_blocking, request};

const CONNECTIONS: i32 = 400;

#[test]
fn under_a_low_soft_limit_every_connection_is_answered() {
    // This test's own 400 sockets must fit under its own limit.
    rlimit::increase_nofile_limit(4096).unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut prlimit = Command::new("prlimit");
    prlimit.arg("--nofile=256:8192").arg(env!("CARGO_BIN_EXE_nameserver"));
    prlimit.arg(format!("-Duser.home={}", home.path().display()));
    prlimit.env("HOME", home.path()).env_remove("RUST_LOG");
    let mut daemon = nameserver_testkit::Daemon::spawn(prlimit, "127.0.0.1", &["--no-http"]);
    let addr = daemon.addr;

    let mut streams: Vec<std::net::TcpStream> = (0..CONNECTIONS)
        .map(|_| {
            let stream = std::net::TcpStream::connect(addr).unwrap();
            stream.set_read_timeout(Some(PATIENCE)).unwrap();
            stream
        })
        .collect();
    // Every connection is open at once, then each asks and is answered.
    for (opaque, stream) in (0..).zip(streams.iter_mut()) {
        let cmd = request(RequestCode::GetKvConfig, opaque, &[("namespace", "n"), ("key", "k")]);
        stream.write_all(&encode(&cmd)).unwrap();
    }
    for (opaque, stream) in (0..).zip(streams.iter_mut()) {
        let reply = support::decode(&read_frame_blocking(stream));
        assert_eq!((reply.opaque, reply.code), (opaque, 22), "GET_KV_CONFIG of a missing key");
    }
    drop(streams);
    let status = daemon.terminate();
    let log = daemon.log();
    assert!(status.success(), "{log}");
    assert!(log.contains("open files: soft limit raised from 256 to 8192 (hard 8192)"), "{log}");
    assert!(log.contains("the hard limit 8192 is below --max-connections 10000"), "{log}");
    assert!(!log.contains("accept failed"), "{log}");
}

/// Under a 512 limit, 1 000 console connections that never send a request cannot starve port
/// 9876: the console holds at most 128 (the rest wait in its backlog), a RocketMQ client still
/// connects, registers and has a KV put on disk when it is answered, and the held connections
/// are closed at the header deadline.
#[test]
fn silent_console_connections_never_take_the_rocketmq_ports_descriptors() {
    use std::io::Read as _;

    rlimit::increase_nofile_limit(4096).unwrap();
    let home = tempfile::tempdir().unwrap();
    let kv = home.path().join("kvConfig.json");
    let properties = home.path().join("namesrv.properties");
    std::fs::write(&properties, format!("kvConfigPath={}\n", kv.display())).unwrap();
    let mut child = Command::new("prlimit")
        .arg("--nofile=512:512")
        .arg(env!("CARGO_BIN_EXE_nameserver"))
        .args(["-c", properties.to_str().unwrap(), "--bind-address", "127.0.0.1", "--listen-port", "0"])
        .args(["--http-bind", "127.0.0.1", "--http-port", "0"])
        .env("HOME", home.path())
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("prlimit (util-linux) runs the daemon");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (mut boot, mut console) = (String::new(), String::new());
    stdout.read_line(&mut boot).unwrap();
    stdout.read_line(&mut console).unwrap();
    let tcp = boot.trim().rsplit(' ').next().unwrap().to_string();
    let http = console.strip_prefix("HTTP console: http://").unwrap().split('/').next().unwrap().to_string();

    let held: Vec<std::net::TcpStream> = (0..1000).map(|_| std::net::TcpStream::connect(&http).unwrap()).collect();
    let mut broker = std::net::TcpStream::connect(&tcp).unwrap();
    broker.set_read_timeout(Some(PATIENCE)).unwrap();
    let put = request(RequestCode::PutKvConfig, 1, &[("namespace", "ns"), ("key", "k"), ("value", "v")]);
    broker.write_all(&encode(&put)).unwrap();
    let reply = support::decode(&read_frame_blocking(&mut broker));
    assert_eq!(reply.code, 0, "{reply:?}");
    // On disk once answered: in kvConfig.json or its journal, which a start replays.
    let on_disk = nameserver::load_kv(&kv).unwrap();
    assert_eq!(on_disk.get("ns", "k"), Some("v"), "answered before it was on disk: {on_disk:?}");
    let route = request(RequestCode::GetRouteInfoByTopic, 2, &[("topic", "TBW102")]);
    broker.write_all(&encode(&route)).unwrap();
    assert_eq!(support::decode(&read_frame_blocking(&mut broker)).code, 17, "answered: no such topic yet");

    // The first connections the console took are closed at its header deadline (10 s).
    let mut first = held.into_iter().next().unwrap();
    first.set_read_timeout(Some(PATIENCE * 2)).unwrap();
    let mut byte = [0; 1];
    assert!(matches!(first.read(&mut byte), Ok(0)), "a silent console connection stays open");

    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(child.wait().unwrap().success());
}
