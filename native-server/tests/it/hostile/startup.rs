//! What a start must survive and say. UPDATE_NAMESRV_CONFIG persists into the `-c` file, so a
//! number its Java type cannot hold (refused over the wire since, see `security.rs`) may
//! still sit in a file an older version or an operator wrote: it used to overflow the idle and
//! drain deadlines, closing every connection with a panic and exiting 101 at SIGTERM.

use super::*;

const HUGE: &str = "18446744073709551615";

#[test]
fn numbers_past_their_java_type_in_the_file_are_clamped_with_a_warning() {
    let mut server = Server::start(
        &[
            ("serverChannelMaxIdleTimeSeconds", HUGE),
            ("enableShutdownGracefully", "true"),
            ("shutdownWaitTimeSeconds", HUGE),
            ("waitSecondsForService", "99999999999"),
        ],
        &[],
    );
    let log = server.daemon.log();
    for (key, value) in [
        ("serverChannelMaxIdleTimeSeconds", HUGE),
        ("shutdownWaitTimeSeconds", HUGE),
        ("waitSecondsForService", "99999999999"),
    ] {
        let said = format!("{key}={value} is outside the range of its Java type; using 2147483647");
        assert!(log.contains(&said), "no warning {said:?} in:\n{log}");
    }
    let mut peer = server.peer();
    assert_eq!(peer.call(&register("C", "b", "127.0.0.1:10911", &["T1", "T2"], 1)).code, 0);
    for opaque in 2..5 {
        let reply = peer.call(&route_query("T1", opaque));
        assert_eq!((reply.code, reply.opaque), (0, opaque));
    }
    // SIGTERM opens the GO_AWAY window (clamped: 68 years, a saturated deadline); a second
    // one ends it and the daemon exits 0.
    let pid = server.daemon.pid().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    support::eventually_blocking("the GO_AWAY window begins", || {
        server.daemon.log().contains("answering GO_AWAY").then_some(())
    });
    let status = server.daemon.terminate();
    assert_eq!(status.code(), Some(0), "log:\n{}", server.daemon.log());
}

#[test]
fn each_way_in_left_open_is_warned_about_at_start() {
    let open_port = "serves anyone who reaches it";
    let plaintext = "tls.server.need.client.auth=require, but tls.server.mode=permissive still serves plaintext";
    let any_certificate = "without tls.server.trustCertPath any certificate passes";
    let home = tempfile::tempdir().unwrap();

    let quiet = support::Daemon::start(home.path(), &["--no-http"]);
    let log = quiet.log();
    assert!(![open_port, plaintext, any_certificate].iter().any(|w| log.contains(w)), "{log}");
    drop(quiet);

    let loopback = support::Daemon::start(home.path(), &["--no-http", "-Dtls.server.need.client.auth=require"]);
    let log = loopback.log();
    assert!(log.contains(plaintext) && log.contains(any_certificate) && !log.contains(open_port), "{log}");
    drop(loopback);

    let everywhere = support::Daemon::start_bound(home.path(), "0.0.0.0", &["--no-http"]);
    let log = everywhere.log();
    assert!(log.contains(open_port) && log.contains("WARN"), "{log}");
}

#[test]
fn a_weak_or_visible_console_token_is_warned_about_and_any_origin_with_one_refused() {
    let visible = "--http-token on the command line is visible";
    let short = "the console's token has 5 bytes";
    let home = tempfile::tempdir().unwrap();
    let console = ["--http-bind", "127.0.0.1", "--http-port", "0"];

    let on_the_line = support::Daemon::start(home.path(), &[&console[..], &["--http-token", "s3cr3"]].concat());
    let log = on_the_line.log();
    assert!(log.contains(visible) && log.contains(short), "{log}");
    drop(on_the_line);

    let file = home.path().join("token");
    std::fs::write(&file, "0123456789abcdef0123456789abcdef\n").unwrap();
    let from_file =
        support::Daemon::start(home.path(), &[&console[..], &["--http-token-file", file.to_str().unwrap()]].concat());
    let log = from_file.log();
    assert!(!log.contains(visible) && !log.contains("the console's token has"), "{log}");
    drop(from_file);

    let any_origin = support::nameserver_command(home.path())
        .args(console)
        .args(["--bind-address", "127.0.0.1", "--listen-port", "0"])
        .args(["--http-token-file", file.to_str().unwrap(), "--http-allow-origin", "*"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&any_origin.stderr);
    assert!(!any_origin.status.success(), "started with '*' and a token: {said}");
    assert!(said.contains("--http-allow-origin '*' with a token"), "{said}");
}
