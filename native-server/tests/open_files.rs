//! The open-files limit: under a 256 soft limit (hard 8192) the daemon raises its soft limit
//! at start, logs the old and new values, warns that the hard limit is below
//! --max-connections, and answers 400 concurrent connections with no failed accept.

// A binary of its own: it raises this process's open-files limit, which every daemon another
// test started from this process would inherit.
#[path = "it/support/mod.rs"]
#[allow(dead_code)] // this binary uses a few of the shared helpers
mod support;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::process::{Command, Stdio};

use nameserver_core::protocol::RequestCode;
use support::{PATIENCE, encode, read_frame_blocking, request};

const CONNECTIONS: i32 = 400;

#[test]
fn under_a_low_soft_limit_every_connection_is_answered() {
    // This test's own 400 sockets must fit under its own limit.
    rlimit::increase_nofile_limit(4096).unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new("prlimit")
        .arg("--nofile=256:8192")
        .arg(env!("CARGO_BIN_EXE_nameserver"))
        .args(["--bind-address", "127.0.0.1", "--listen-port", "0", "--no-http"])
        .env("HOME", home.path())
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prlimit (util-linux) runs the daemon");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().rsplit(' ').next().unwrap().to_string();
    assert!(line.contains("boot success"), "{line:?}");

    let mut streams: Vec<std::net::TcpStream> = (0..CONNECTIONS)
        .map(|_| {
            let stream = std::net::TcpStream::connect(&addr).unwrap();
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
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let mut log = String::new();
    child.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert!(child.wait().unwrap().success(), "{log}");
    assert!(log.contains("open files: soft limit raised from 256 to 8192 (hard 8192)"), "{log}");
    assert!(log.contains("the hard limit 8192 is below --max-connections 10000"), "{log}");
    assert!(!log.contains("accept failed"), "{log}");
}
