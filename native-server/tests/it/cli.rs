//! The `nameserver` binary as an operator meets it: `-p` output, `-c` properties files, flags
//! that override them, clear errors, `--help`, the boot line and SIGTERM.

use crate::support;

use std::fs;
use std::path::Path;

use nameserver::load_kv;
use nameserver_core::protocol::RequestCode;
use support::{Daemon, call_blocking, decode, encode, nameserver_command, request};

/// Runs the binary with `args` and returns (success, stdout, stderr).
fn run(home: &Path, args: &[&str]) -> (bool, String, String) {
    let output = nameserver_command(home).args(args).output().unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn print_config_item_prints_javas_keys_sorted_and_exits_0() {
    let home = tempfile::tempdir().unwrap();
    let (ok, stdout, stderr) = run(home.path(), &["-p"]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let mut sorted = lines.clone();
    sorted.sort_unstable();
    assert_eq!(lines, sorted, "sorted by key");
    let h = home.path().display();
    for expected in [
        "listenPort=9876".to_string(),
        "bindAddress=0.0.0.0".to_string(),
        "scanNotActiveBrokerInterval=5000".to_string(),
        "serverChannelMaxIdleTimeSeconds=120".to_string(),
        format!("kvConfigPath={h}/namesrv/kvConfig.json"),
        format!("configStorePath={h}/namesrv/namesrv.properties"),
        "rocketmqHome=/opt/rocketmq".to_string(),
        "serverWorkerThreads=8".to_string(),
    ] {
        assert!(lines.contains(&expected.as_str()), "missing {expected} in\n{stdout}");
    }
}

#[test]
fn config_file_keys_apply_and_flags_override_them() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("namesrv.properties");
    fs::write(
        &file,
        "# a comment\n! another\nlistenPort = 9877\nbindAddress:10.0.0.1\norderMessageEnable=TRUE\n\
         scanNotActiveBrokerInterval 3000\nsomeFutureKey=kept \\\n  across lines\n",
    )
    .unwrap();
    let path = file.display().to_string();
    let (ok, stdout, stderr) = run(home.path(), &["-c", &path, "-p", "-n", "10.0.0.9:9876"]);
    assert!(ok, "{stderr}");
    for expected in [
        "listenPort=9877",
        "bindAddress=10.0.0.1",
        "orderMessageEnable=true",
        "scanNotActiveBrokerInterval=3000",
        "someFutureKey=kept across lines",
        &format!("configStorePath={path}"),
    ] {
        assert!(stdout.lines().any(|l| l == expected), "missing {expected} in\n{stdout}");
    }
    let (ok, stdout, _) =
        run(home.path(), &["--configFile", &path, "--listen-port", "9999", "--bind-address", "127.0.0.1", "-p"]);
    assert!(ok);
    assert!(stdout.lines().any(|l| l == "listenPort=9999"));
    assert!(stdout.lines().any(|l| l == "bindAddress=127.0.0.1"));
}

#[test]
fn bad_configuration_fails_with_a_clear_message() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("namesrv.properties");
    fs::write(&file, "listenPort=70000\n").unwrap();
    let path = file.display().to_string();
    let (ok, _, stderr) = run(home.path(), &["-c", &path]);
    assert!(!ok);
    assert!(stderr.contains(&path) && stderr.contains("listenPort") && stderr.contains("70000"), "{stderr}");

    fs::write(&file, "enableTopicList=yes\n").unwrap();
    let (ok, _, stderr) = run(home.path(), &["-c", &path, "-p"]);
    assert!(!ok);
    assert!(stderr.contains("enableTopicList") && stderr.contains("true or false"), "{stderr}");

    let missing = home.path().join("missing.properties").display().to_string();
    let (ok, _, stderr) = run(home.path(), &["-c", &missing]);
    assert!(!ok);
    assert!(stderr.contains("cannot read the config file") && stderr.contains(&missing), "{stderr}");

    let (ok, _, stderr) = run(home.path(), &["--listen-port", "http"]);
    assert!(!ok);
    assert!(stderr.contains("--listen-port"), "{stderr}");
}

#[test]
fn a_route_cache_below_1mib_or_not_a_size_stops_the_start_naming_the_flag() {
    let home = tempfile::tempdir().unwrap();
    for value in ["512KiB", "1048575", "lots", "16 MB", ""] {
        let (ok, _, stderr) = run(home.path(), &["--route-cache-bytes", value, "-p"]);
        assert!(!ok, "{value}");
        assert!(stderr.contains("--route-cache-bytes"), "{value}: {stderr}");
    }
    let output =
        nameserver_command(home.path()).env("NAMESERVER_ROUTE_CACHE_BYTES", "1KiB").arg("-p").output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("--route-cache-bytes") && stderr.contains("1MiB"), "{stderr}");
    for value in ["1MiB", "1048576", "2GiB"] {
        let (ok, _, stderr) = run(home.path(), &["--route-cache-bytes", value, "-p"]);
        assert!(ok, "{value}: {stderr}");
    }
}

#[test]
fn help_speaks_to_rocketmq_operators() {
    let home = tempfile::tempdir().unwrap();
    let (ok, stdout, _) = run(home.path(), &["--help"]);
    assert!(ok);
    for word in [
        "mqnamesrv",
        "--configFile",
        "--printConfigItem",
        "--namesrvAddr",
        "--listen-port",
        "9876",
        "kvConfig.json",
        "RUST_LOG",
    ] {
        assert!(stdout.contains(word), "--help lacks {word}:\n{stdout}");
    }
}

#[test]
fn boots_serves_and_exits_0_on_sigterm_with_the_kv_flushed() {
    let home = tempfile::tempdir().unwrap();
    let mut daemon = Daemon::start(home.path(), &[]);
    let mut stream = daemon.connect();
    let put = request(RequestCode::PutKvConfig, 1, &[("namespace", "ns"), ("key", "k"), ("value", "v")]);
    assert_eq!(decode(&call_blocking(&mut stream, &encode(&put))).code, 0);

    let status = std::process::Command::new("kill").args(["-TERM", &daemon.child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let exit = daemon.child.wait().unwrap();
    assert!(exit.success(), "exit status {exit}");
    let kv = load_kv(&home.path().join("namesrv").join("kvConfig.json")).unwrap();
    assert_eq!(kv.get("ns", "k"), Some("v"), "the default kvConfigPath is $user.home/namesrv/kvConfig.json");
}
