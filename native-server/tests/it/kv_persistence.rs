//! The KV config on disk: PUT/GET/DELETE reach `kvConfig.json`, the file reloads (Java's form
//! too), the latest content is flushed on shutdown, and a corrupt file stops start-up.

use crate::support;

use std::fs;
use std::path::Path;

use nameserver::load_kv;
use nameserver_core::protocol::RequestCode;
use support::{TestServer, nameserver_command, request, server_config, within};

fn put(opaque: i32, key: &str, value: &str) -> nameserver_core::protocol::RemotingCommand {
    request(RequestCode::PutKvConfig, opaque, &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", key), ("value", value)])
}

fn get(opaque: i32, key: &str) -> nameserver_core::protocol::RemotingCommand {
    request(RequestCode::GetKvConfig, opaque, &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", key)])
}

/// Waits until the file holds `expected` (writes happen off the owner, a moment later).
async fn file_becomes(path: &Path, expected: &str) {
    let what = format!("{} becomes {expected}", path.display());
    support::eventually(&what, || async { fs::read_to_string(path).is_ok_and(|text| text == expected).then_some(()) })
        .await;
}

#[tokio::test]
async fn put_get_delete_reach_the_kv_file_and_survive_a_restart() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    assert_eq!(within("put", client.request(&put(1, "TopicTest", "broker-a:4"))).await.code, 0);
    let value = within("get", client.request(&get(2, "TopicTest"))).await;
    assert_eq!(value.field("value"), Some("broker-a:4"));
    file_becomes(&server.kv_path(), r#"{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicTest":"broker-a:4"}}}"#).await;

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
