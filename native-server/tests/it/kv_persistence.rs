//! The KV config on disk: PUT/GET/DELETE reach `kvConfig.json.journal` when answered and
//! `kvConfig.json` at a clean stop, the file reloads (Java's form too), answered changes
//! survive kill -9 (the journal is replayed, a torn last record dropped with a warning), and
//! a corrupt file or journal stops start-up.

use crate::support;

use std::fs;
use std::path::Path;

use nameserver::load_kv;
use nameserver::persist::journal_path;
use nameserver_core::protocol::RequestCode;
use support::{Daemon, TestServer, call_blocking, decode, encode, nameserver_command, request, server_config, within};

fn put(opaque: i32, key: &str, value: &str) -> nameserver_core::protocol::RemotingCommand {
    request(RequestCode::PutKvConfig, opaque, &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", key), ("value", value)])
}

fn get(opaque: i32, key: &str) -> nameserver_core::protocol::RemotingCommand {
    request(RequestCode::GetKvConfig, opaque, &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", key)])
}

#[tokio::test]
async fn put_get_delete_reach_the_kv_file_and_survive_a_restart() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    assert_eq!(within("put", client.request(&put(1, "TopicTest", "broker-a:4"))).await.code, 0);
    let value = within("get", client.request(&get(2, "TopicTest"))).await;
    assert_eq!(value.field("value"), Some("broker-a:4"));
    // Answered, so on disk: in the journal, kvConfig.json being written whole at the stop.
    assert!(journal_path(&server.kv_path()).is_file());
    assert!(!server.kv_path().exists());
    assert_eq!(load_kv(&server.kv_path()).unwrap().get("ORDER_TOPIC_CONFIG", "TopicTest"), Some("broker-a:4"));

    assert_eq!(within("put", client.request(&put(3, "Other", "broker-b:8"))).await.code, 0);
    assert_eq!(
        within(
            "delete",
            client.request(&request(
                RequestCode::DeleteKvConfig,
                4,
                &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "TopicTest")]
            ))
        )
        .await
        .code,
        0
    );
    let (result, dir, mut config) = server.stop().await;
    result.unwrap();
    assert_eq!(
        fs::read_to_string(&config.namesrv.kv_config_path).unwrap(),
        r#"{"configTable":{"ORDER_TOPIC_CONFIG":{"Other":"broker-b:8"}}}"#
    );
    assert!(!journal_path(config.namesrv.kv_config_path.as_ref()).exists(), "a clean stop leaves no journal");

    config.kv = load_kv(config.namesrv.kv_config_path.as_ref()).unwrap();
    let restarted = TestServer::start_in(dir, config).await;
    let mut client = restarted.client().await;
    assert_eq!(within("get after restart", client.request(&get(5, "Other"))).await.field("value"), Some("broker-b:8"));
    let missing = within("get deleted", client.request(&get(6, "TopicTest"))).await;
    assert_eq!(missing.code, 22, "QUERY_NOT_FOUND");
}

#[tokio::test]
async fn shutdown_flushes_the_latest_kv() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let mut burst = Vec::new();
    for i in 0..200 {
        burst.extend_from_slice(&support::encode(&put(i, &format!("t{i:03}"), &format!("broker-a:{i}"))));
    }
    client.send(&burst).await;
    for _ in 0..200 {
        within("put replies", client.read_frame()).await;
    }
    let (result, _dir, config) = server.stop().await;
    result.unwrap();
    let kv = load_kv(config.namesrv.kv_config_path.as_ref()).unwrap();
    assert_eq!(kv.len(), 200);
    assert_eq!(kv.get("ORDER_TOPIC_CONFIG", "t199"), Some("broker-a:199"));
}

#[tokio::test]
async fn a_kv_file_written_by_java_loads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kvConfig.json");
    // fastjson's output, with a null value as Java writes for keys put without a value.
    fs::write(
        &path,
        r#"{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicOrder":"broker-a:4;broker-b:4"},"ns":{"k":"v","nul":null}}}"#,
    )
    .unwrap();
    let mut config = server_config(dir.path());
    config.kv = load_kv(&path).unwrap();
    let server = TestServer::start_in(dir, config).await;
    let mut client = server.client().await;
    let reply = within("get", client.request(&get(1, "TopicOrder"))).await;
    assert_eq!(reply.field("value"), Some("broker-a:4;broker-b:4"));
}

#[test]
fn a_corrupt_kv_file_stops_start_up_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let kv = dir.path().join("kvConfig.json");
    let corrupt = r#"{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicTest":"broker-a:4""#;
    fs::write(&kv, corrupt).unwrap();
    let properties = dir.path().join("namesrv.properties");
    fs::write(&properties, format!("kvConfigPath={}\nlistenPort=0\nbindAddress=127.0.0.1\n", kv.display())).unwrap();
    let output = nameserver_command(dir.path()).args(["-c", &properties.display().to_string()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "must not start: {stderr}");
    assert!(stderr.contains(&format!("the KV config file {} is corrupt", kv.display())), "{stderr}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("boot success"));
    assert_eq!(fs::read_to_string(&kv).unwrap(), corrupt, "the file is left as it was");
}

fn put_in(opaque: i32, namespace: &str, key: &str, value: &str) -> Vec<u8> {
    encode(&request(RequestCode::PutKvConfig, opaque, &[("namespace", namespace), ("key", key), ("value", value)]))
}

/// A daemon on `kvConfig.json` under `home`, with its path.
fn daemon_on(home: &Path) -> (Daemon, std::path::PathBuf) {
    let kv = home.join("store").join("kvConfig.json");
    let properties = home.join("namesrv.properties");
    fs::write(&properties, format!("kvConfigPath={}\n", kv.display())).unwrap();
    (Daemon::start(home, &["-c", &properties.display().to_string(), "--no-http"]), kv)
}

/// Answered puts live through kill -9 in the journal; the next start replays it, and a clean
/// stop then leaves one whole `kvConfig.json` in Java's shape and no journal.
#[test]
fn answered_puts_survive_kill_9_and_a_clean_stop_leaves_java_a_whole_file() {
    let home = tempfile::tempdir().unwrap();
    let (mut daemon, kv) = daemon_on(home.path());
    let mut stream = daemon.connect();
    for i in 0..50 {
        let reply = decode(&call_blocking(&mut stream, &put_in(i, "ns", &format!("k{i:02}"), &format!("v{i}"))));
        assert_eq!(reply.code, 0, "{reply:?}");
    }
    let delete = request(RequestCode::DeleteKvConfig, 50, &[("namespace", "ns"), ("key", "k07")]);
    assert_eq!(decode(&call_blocking(&mut stream, &encode(&delete))).code, 0);
    daemon.child.kill().unwrap();
    daemon.child.wait().unwrap();
    assert!(!kv.exists(), "nothing was written whole yet");
    assert!(journal_path(&kv).is_file());

    let (mut daemon, _) = daemon_on(home.path());
    assert!(daemon.log().contains(&format!("replayed 51 KV changes from {}", journal_path(&kv).display())));
    let mut stream = daemon.connect();
    for i in [0, 7, 49] {
        let get = request(RequestCode::GetKvConfig, 100 + i, &[("namespace", "ns"), ("key", &format!("k{i:02}"))]);
        let reply = decode(&call_blocking(&mut stream, &encode(&get)));
        let expected = (i != 7).then(|| format!("v{i}"));
        assert_eq!(reply.field("value").map(String::from), expected, "k{i:02}: {reply:?}");
    }
    assert_eq!(decode(&call_blocking(&mut stream, &put_in(200, "ns", "late", "1"))).code, 0);
    assert!(daemon.terminate().success());

    assert!(!journal_path(&kv).exists(), "a clean stop leaves no journal");
    let text = fs::read_to_string(&kv).unwrap();
    let mut expected: Vec<String> = (0..50).filter(|i| *i != 7).map(|i| format!(r#""k{i:02}":"v{i}""#)).collect();
    expected.push(r#""late":"1""#.into());
    assert_eq!(text, format!(r#"{{"configTable":{{"ns":{{{}}}}}}}"#, expected.join(",")), "Java's shape, whole");
}

/// A crash in the middle of an append leaves a torn last record: it was never answered, so
/// the start drops it with a warning. Damage before the last record stops the start.
#[test]
fn a_torn_last_record_is_dropped_with_a_warning_and_a_damaged_journal_stops_the_start() {
    let home = tempfile::tempdir().unwrap();
    let (mut daemon, kv) = daemon_on(home.path());
    let mut stream = daemon.connect();
    for (i, key) in ["a", "b"].into_iter().enumerate() {
        assert_eq!(decode(&call_blocking(&mut stream, &put_in(i as i32, "ns", key, "value"))).code, 0);
    }
    daemon.child.kill().unwrap();
    daemon.child.wait().unwrap();
    let journal = fs::read(journal_path(&kv)).unwrap();
    // A 24-byte header, then two records of the same length.
    let record = (journal.len() - 24) / 2;
    let first = 24 + record;

    // The second record cut short, as a crash in the middle of its append leaves it.
    fs::write(journal_path(&kv), &journal[..journal.len() - 3]).unwrap();
    let (mut daemon, _) = daemon_on(home.path());
    let log = daemon.log();
    let warning = log.lines().find(|l| l.contains("ends in a torn record")).unwrap_or_else(|| panic!("{log}"));
    assert!(
        warning.contains("WARN") && warning.contains(&format!("({} bytes after 1 whole ones", record - 3)),
        "{warning}"
    );
    let mut stream = daemon.connect();
    let get = |key: &str| encode(&request(RequestCode::GetKvConfig, 9, &[("namespace", "ns"), ("key", key)]));
    assert_eq!(decode(&call_blocking(&mut stream, &get("a"))).field("value"), Some("value"));
    assert_eq!(decode(&call_blocking(&mut stream, &get("b"))).code, 22, "the torn put is not there");
    daemon.child.kill().unwrap();
    daemon.child.wait().unwrap();

    // A byte of the first record's value changed, the second record whole after it.
    let mut damaged = journal.clone();
    damaged[first - 1] ^= 0x20;
    fs::write(journal_path(&kv), &damaged).unwrap();
    let _ = fs::remove_file(&kv);
    let properties = home.path().join("namesrv.properties");
    let output = nameserver_command(home.path())
        .args([
            "-c",
            &properties.display().to_string(),
            "--no-http",
            "--bind-address",
            "127.0.0.1",
            "--listen-port",
            "0",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "must not start: {stderr}");
    assert!(
        stderr.contains(&format!(
            "the KV journal {} is corrupt (record 1 at byte 24: checksum mismatch, and more data follows it); refusing \
             to start",
            journal_path(&kv).display()
        )),
        "{stderr}"
    );
    assert_eq!(fs::read(journal_path(&kv)).unwrap(), damaged, "the journal is left as it was");
}
