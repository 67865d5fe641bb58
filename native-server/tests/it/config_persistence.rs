//! Live configuration: UPDATE_NAMESRV_CONFIG changes the running server, is written to
//! `configStorePath`, and a restart with `-c` on that file keeps it; black-listed keys are
//! refused and nothing is written.

use crate::support;

use std::fs;

use nameserver_core::config::RemoteConfig;
use nameserver_core::properties;
use nameserver_core::protocol::{RemotingCommand, RequestCode};
use support::{TestServer, nameserver_command, request, within};

fn update(opaque: i32, body: &str) -> RemotingCommand {
    request(RequestCode::UpdateNamesrvConfig, opaque, &[]).with_body(body.as_bytes().to_vec())
}

#[tokio::test]
async fn an_update_applies_at_once_persists_and_survives_a_restart() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let all_topics = request(RequestCode::GetAllTopicListFromNameserver, 1, &[]);
    assert_eq!(within("topic list", client.request(&all_topics)).await.code, 0);

    assert_eq!(within("update", client.request(&update(2, "enableAllTopicList=false\n"))).await.code, 0);
    let refused = within("topic list after update", client.request(&all_topics)).await;
    assert_eq!((refused.code, refused.remark.as_deref()), (1, Some("disable")));
    let shown = within("get config", client.request(&request(RequestCode::GetNamesrvConfig, 3, &[]))).await;
    assert!(String::from_utf8_lossy(&shown.body).contains("\nenableAllTopicList=false\n"));

    let path = server.config_path();
    support::eventually("the configuration file is written", || async { path.exists().then_some(()) }).await;
    let written = properties::parse(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(written["enableAllTopicList"], "false");
    assert_eq!(written["configStorePath"], path.display().to_string());

    // mqnamesrv -c <that file>: the update is still in effect.
    let printed =
        nameserver_command(server.dir.path()).args(["-c", &path.display().to_string(), "-p"]).output().unwrap();
    assert!(printed.status.success());
    assert!(String::from_utf8_lossy(&printed.stdout).contains("\nenableAllTopicList=false\n"));
}

#[tokio::test]
async fn black_listed_and_unknown_keys_are_refused_and_nothing_is_written() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let black = within("update kvConfigPath", client.request(&update(1, "kvConfigPath=/tmp/evil\n"))).await;
    assert_eq!((black.code, black.remark.as_deref()), (16, Some("Can not update config in black list.")));
    let unknown = within("update an unknown key", client.request(&update(2, "noSuchKey=1\n"))).await;
    assert_eq!(unknown.code, 29, "INVALID_PARAMETER: {unknown:?}");
    let injected =
        within("update with a line break", client.request(&update(3, "productEnvName=a\\nrocketmqHome=/tmp\n"))).await;
    assert_eq!(injected.code, 29, "INVALID_PARAMETER: {injected:?}");
    let (result, dir, config) = server.stop().await;
    result.unwrap();
    assert!(!std::path::Path::new(&config.namesrv.config_store_path).exists());
    assert!(!dir.path().join("evil").exists());
}

/// Java accepts and persists every known key that names no path; those read only at start-up
/// (here listenPort) are said to take effect after a restart (`--remote-config all`).
#[tokio::test]
async fn a_restart_only_key_is_accepted_persisted_and_said_to_need_a_restart() {
    let server = TestServer::start_with(|config| config.remote_config = RemoteConfig::All).await;
    let mut client = server.client().await;
    let reply = within("update listenPort", client.request(&update(1, "listenPort=19876\n"))).await;
    assert_eq!(reply.code, 0, "{reply:?}");
    assert!(reply.remark.as_deref().is_some_and(|r| r.contains("after a restart: listenPort")), "{reply:?}");
    let path = server.config_path();
    support::eventually("the configuration file is written", || async { path.exists().then_some(()) }).await;
    let written = properties::parse(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(written["listenPort"], "19876");
}

/// As in a container whose config directory the daemon's user may not write: every write of
/// the `-c` file fails (its temporary file's name is taken by a directory, which stops root
/// too). Java answers SUCCESS and keeps the change in memory; this daemon keeps it too, logs
/// and counts the failure, but answers SYSTEM_ERROR saying the change holds in memory only (a
/// deliberate difference: an answered change is on disk), and a SIGTERM still ends with
/// status 0.
#[test]
fn a_failed_config_write_is_answered_system_error_logged_counted_and_the_stop_still_exits_0() {
    use std::io::{BufRead as _, BufReader, Read as _, Write as _};
    use std::process::Stdio;

    use support::{PATIENCE, call_blocking, decode, encode};

    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("namesrv.properties");
    fs::write(&file, "enableAllTopicList=true\n").unwrap();
    let mut child = nameserver_command(home.path())
        .args(["-c", &file.display().to_string(), "--bind-address", "127.0.0.1", "--listen-port", "0"])
        .args(["--http-port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (mut boot, mut console) = (String::new(), String::new());
    stdout.read_line(&mut boot).unwrap();
    stdout.read_line(&mut console).unwrap();
    let tcp: std::net::SocketAddr = boot.trim().rsplit(' ').next().unwrap().parse().unwrap();
    let http = console.strip_prefix("HTTP console: http://").unwrap().split('/').next().unwrap().to_string();
    let stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut text = String::new();
        BufReader::new(stderr).read_to_string(&mut text).unwrap();
        text
    });

    // Read at start; now a directory, not empty, stands where it goes: every write fails, even
    // as root, and what is in the way is left as it was.
    fs::remove_file(&file).unwrap();
    fs::create_dir(&file).unwrap();
    fs::write(file.join("kept"), "enableAllTopicList=true\n").unwrap();
    let mut stream = std::net::TcpStream::connect(tcp).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let reply = decode(&call_blocking(&mut stream, &encode(&update(1, "enableAllTopicList=false\n"))));
    assert_eq!(reply.code, 1, "SYSTEM_ERROR, where Java answers SUCCESS: {reply:?}");
    let remark = reply.remark.as_deref().unwrap_or_default();
    assert!(remark.starts_with("the change holds in memory only: the config file could not be written"), "{remark}");
    let all_topics = request(RequestCode::GetAllTopicListFromNameserver, 2, &[]);
    let refused = decode(&call_blocking(&mut stream, &encode(&all_topics)));
    assert_eq!((refused.code, refused.remark.as_deref()), (1, Some("disable")), "the change is in effect");
    // The reply waited for the write, so the failure is already counted.
    let mut scrape = std::net::TcpStream::connect(&http).unwrap();
    scrape.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(scrape, "GET /metrics HTTP/1.1\r\nHost: {http}\r\nConnection: close\r\n\r\n").unwrap();
    let mut metrics = String::new();
    scrape.read_to_string(&mut metrics).unwrap();
    assert!(metrics.contains("\nnameserver_file_write_failures_total{file=\"config\"} 1\n"), "{metrics}");

    let status = std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    let log = log.join().unwrap();
    assert!(exit.success(), "a clean drain exits 0 whatever the writes did: {exit}\n{log}");
    let failed = log
        .lines()
        .find(|l| l.contains("persist config to") && l.contains("failed"))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(failed.contains("ERROR") && failed.contains(&file.display().to_string()), "{failed}");
    let lost = log.lines().find(|l| l.contains("does not hold the latest config")).unwrap_or_else(|| panic!("{log}"));
    assert!(lost.contains("ERROR") && lost.contains("lost"), "{lost}");
    assert_eq!(fs::read_to_string(file.join("kept")).unwrap(), "enableAllTopicList=true\n", "nothing was written over");
}
