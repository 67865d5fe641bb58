//! Live configuration: UPDATE_NAMESRV_CONFIG changes the running server, is written to
//! `configStorePath`, and a restart with `-c` on that file keeps it; black-listed keys are
//! refused and nothing is written.

mod support;

use std::fs;
use std::time::Duration;

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
    for _ in 0..500 {
        if path.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
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
async fn black_listed_and_fixed_keys_are_refused_and_nothing_is_written() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let black = within("update kvConfigPath", client.request(&update(1, "kvConfigPath=/tmp/evil\n"))).await;
    assert_eq!((black.code, black.remark.as_deref()), (16, Some("Can not update config in black list.")));
    let fixed = within("update listenPort", client.request(&update(2, "listenPort=1\n"))).await;
    assert_eq!(fixed.code, 16);
    let injected =
        within("update with a line break", client.request(&update(3, "productEnvName=a\\nrocketmqHome=/tmp\n"))).await;
    assert_eq!(injected.code, 29, "INVALID_PARAMETER: {injected:?}");
    let (result, dir, config) = server.stop().await;
    result.unwrap();
    assert!(!std::path::Path::new(&config.namesrv.config_store_path).exists());
    assert!(!dir.path().join("evil").exists());
}
