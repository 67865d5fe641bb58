//! Graceful shutdown with GO_AWAY (`enableShutdownGracefully=true`, Java 5.5.0's
//! `NettyRemotingServer.shutdown`, PROTOCOL.md §4): the server keeps serving for
//! `shutdownWaitTimeSeconds`, a request from a client newer than V5_3_1 gets GO_AWAY (1500,
//! "please go away", its opaque, the response flag) and is not processed, a oneway one is
//! dropped, older clients (4.9.7) are answered as before; `/readyz` says 503 throughout. With
//! the switch off nothing changes. Each window here is long (600 s) and ended by the test (a
//! second SIGTERM, or the library's `go_away_cut_short`), so nothing races its end.

use crate::http_support;
use crate::support;

use std::process::Command;

use http_support::ConsoleServer;
use nameserver::http::HttpOptions;
use nameserver_core::protocol::{FLAG_ONEWAY, RemotingCommand, RequestCode};
use support::{
    Daemon, call_blocking, decode, encode, eventually, eventually_blocking, register_broker_frame, request, within,
};
use tokio_util::sync::CancellationToken;

/// Java 5.5.0's MQVersion ordinal, and 4.9.7's.
const V5_5_0: i32 = 513;
const V4_9_7: i32 = 407;

/// A route query for TBW102 (the registered broker's topic) sent by a client of `version`.
fn route(version: i32, opaque: i32) -> RemotingCommand {
    let mut cmd = request(RequestCode::GetRouteInfoByTopic, opaque, &[("topic", "TBW102")]);
    cmd.version = version;
    cmd
}

fn put_kv(version: i32, opaque: i32, flag: i32) -> RemotingCommand {
    let mut cmd =
        request(RequestCode::PutKvConfig, opaque, &[("namespace", "goaway"), ("key", "k"), ("value", "written")]);
    cmd.version = version;
    cmd.flag = flag;
    cmd
}

fn get_kv(version: i32, opaque: i32) -> RemotingCommand {
    let mut cmd = request(RequestCode::GetKvConfig, opaque, &[("namespace", "goaway"), ("key", "k")]);
    cmd.version = version;
    cmd
}

/// The frame Java 5.5.0's remoting server writes for GO_AWAY: `createResponseCommand(GO_AWAY,
/// "please go away")` with the request's opaque and the response flag, fastjson's header (no
/// extFields, keys in order), no body.
fn java_go_away(opaque: i32) -> Vec<u8> {
    let header = format!(
        r#"{{"code":1500,"flag":1,"language":"JAVA","opaque":{opaque},"remark":"please go away","serializeTypeCurrentRPC":"JSON","version":513}}"#
    );
    let mut frame = Vec::new();
    frame.extend_from_slice(&(4 + u32::try_from(header.len()).unwrap()).to_be_bytes());
    frame.extend_from_slice(&u32::try_from(header.len()).unwrap().to_be_bytes());
    frame.extend_from_slice(header.as_bytes());
    frame
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_going_away_newer_clients_get_go_away_and_older_ones_their_answers() {
    let cut = CancellationToken::new();
    let server = ConsoleServer::start_with(HttpOptions::default(), |c| {
        c.go_away_window = Some(std::time::Duration::from_secs(600));
        c.go_away_cut_short = cut.clone();
    })
    .await;
    let (http, tcp) = (server.http, server.tcp);
    let mut broker = server.client().await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0);
    let mut new_client = server.client().await;
    let mut old_client = server.client().await;
    let before = old_client.call(&encode(&route(V4_9_7, 5))).await;
    assert_eq!(decode(&before).code, 0, "routed before the stop");
    let mut events = server.events().await;
    let stopped = server.begin_stop();
    within("the event stream ends at the stop", async { while events.next().await.is_some() {} }).await;

    let ready = http_support::request(http, "GET", "/readyz", &[], b"").await;
    assert_eq!(ready.status, 503, "{}", ready.text());
    // A 5.5.0 client: GO_AWAY, byte for byte as Java writes it, for a route query (answered on
    // the connection) and a KV write (the owner's), neither processed.
    assert_eq!(new_client.call(&encode(&route(V5_5_0, 77))).await, java_go_away(77));
    assert_eq!(new_client.call(&encode(&put_kv(V5_5_0, 78, 0))).await, java_go_away(78));
    // A oneway one is dropped unanswered: the next reply on the connection is the next call's.
    new_client.send(&encode(&put_kv(V5_5_0, 79, FLAG_ONEWAY))).await;
    assert_eq!(new_client.call(&encode(&get_kv(V5_5_0, 80))).await, java_go_away(80));
    // A 4.9.7 client: the same answer as before the stop; the KV writes above changed nothing.
    assert_eq!(old_client.call(&encode(&route(V4_9_7, 5))).await, before);
    assert_eq!(decode(&old_client.call(&encode(&get_kv(V4_9_7, 6))).await).code, 22, "QUERY_NOT_FOUND");
    // The listener still accepts during the window, as Java's does.
    let mut late = support::Client::connect(tcp).await;
    assert_eq!(late.call(&encode(&route(V4_9_7, 5))).await, before);
    assert_eq!(late.call(&encode(&route(V5_5_0, 9))).await, java_go_away(9));
    let ready = http_support::request(http, "GET", "/readyz", &[], b"").await;
    assert_eq!(ready.status, 503, "still not ready: {}", ready.text());

    cut.cancel();
    within("run returns once the window is cut short", stopped).await.unwrap().unwrap();
}

/// The real REGISTER_BROKER (broker-a, 13 topics with TBW102) as a broker of `version` sends it.
fn register_as(version: i32, opaque: i32) -> Vec<u8> {
    let mut cmd = decode(&register_broker_frame());
    cmd.version = version;
    cmd.opaque = opaque;
    encode(&cmd)
}

/// Java 5.5.0's answer to a route query for a topic no broker serves.
const TBW102_NOT_EXIST: &str = "No topic route info in name server for the topic: TBW102\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.";

/// A 5.5.0 broker's registration in the window gets GO_AWAY on its connection and on the
/// one its client opens to retry, and the client then closes the first (`NettyRemotingClient`
/// 5.5.0: "Receive GO_AWAY twice", then `invokeSync` closes the channel): the broker is gone
/// from the tables as on any channel close, and a 4.9.7 client asking here gets
/// TOPIC_NOT_EXIST for the rest of the window. A Java 5.5.0 NameServer does the same (frame for
/// frame, PROTOCOL.md §4); a 4.9.7 broker's registration in the window is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_told_to_go_away_that_closes_is_removed_as_java_removes_it() {
    let cut = CancellationToken::new();
    let server = ConsoleServer::start_with(HttpOptions::default(), |c| {
        c.go_away_window = Some(std::time::Duration::from_secs(600));
        c.go_away_cut_short = cut.clone();
    })
    .await;
    let tcp = server.tcp;
    let mut broker = server.client().await;
    assert_eq!(decode(&broker.call(&register_as(V5_5_0, 1)).await).code, 0);
    let mut old_client = server.client().await;
    let routed = old_client.call(&encode(&route(V4_9_7, 5))).await;
    assert_eq!(decode(&routed).code, 0, "routed before the stop");
    let mut events = server.events().await;
    let stopped = server.begin_stop();
    within("the event stream ends at the stop", async { while events.next().await.is_some() {} }).await;

    // The broker's periodic registration, then its client's retry on a new connection.
    assert_eq!(broker.call(&register_as(V5_5_0, 2)).await, java_go_away(2));
    let mut retry = support::Client::connect(tcp).await;
    assert_eq!(retry.call(&register_as(V5_5_0, 3)).await, java_go_away(3));
    // Told to go away, nothing changed: the route stands while its connection is open.
    assert_eq!(answer(&mut old_client, 6).await, answer_to(&routed, 6));
    drop(broker);
    // Asked on the one connection (the closure hands it to each look and takes it back).
    let old_client = std::sync::Arc::new(tokio::sync::Mutex::new(old_client));
    let gone = eventually("the broker's routes gone once its connection closed", || {
        let old_client = old_client.clone();
        async move {
            let reply = answer(&mut *old_client.lock().await, 7).await;
            (reply.code != 0).then_some(reply)
        }
    })
    .await;
    let mut old_client = std::sync::Arc::into_inner(old_client).expect("no look left").into_inner();
    assert_eq!((gone.code, gone.remark.as_deref()), (17, Some(TBW102_NOT_EXIST)), "TOPIC_NOT_EXIST as Java");
    // A 4.9.7 broker is served in the window, and its routes with it.
    let mut old_broker = support::Client::connect(tcp).await;
    assert_eq!(decode(&old_broker.call(&register_as(V4_9_7, 4)).await).code, 0);
    assert_eq!(answer(&mut old_client, 8).await, answer_to(&routed, 8));

    cut.cancel();
    within("run returns once the window is cut short", stopped).await.unwrap().unwrap();
}

/// The answer to a 4.9.7 client's route query for TBW102 with `opaque`.
async fn answer(client: &mut support::Client, opaque: i32) -> RemotingCommand {
    decode(&client.call(&encode(&route(V4_9_7, opaque))).await)
}

/// `frame`'s command as the answer to `opaque`.
fn answer_to(frame: &[u8], opaque: i32) -> RemotingCommand {
    let mut cmd = decode(frame);
    cmd.opaque = opaque;
    cmd
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_switch_off_a_newer_client_is_answered_as_before() {
    let server = ConsoleServer::start().await;
    let mut broker = server.client().await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0);
    let mut client = server.client().await;
    let before = client.call(&encode(&route(V5_5_0, 5))).await;
    assert_eq!(decode(&before).code, 0);
    // Sent before the stop and read after it: answered, not told to go away.
    let burst: Vec<u8> = (0..50).flat_map(|opaque| encode(&route(V5_5_0, opaque))).collect();
    client.send(&burst).await;
    let stopped = server.begin_stop();
    for opaque in 0..50 {
        let reply = decode(&within("a reply owed at shutdown", client.next_frame()).await.expect("answered"));
        assert_eq!((reply.opaque, reply.code), (opaque, 0));
    }
    assert!(within("closed after the last reply", client.closed_by_server()).await);
    within("run returns", stopped).await.unwrap().unwrap();
}

/// The binary, graceful from `-c` or the command line: GO_AWAY after SIGTERM, a second SIGTERM
/// ends the window and the daemon exits 0.
fn daemon_goes_away(daemon: &mut Daemon) {
    let mut new_client = daemon.connect();
    let mut old_client = daemon.connect();
    assert_eq!(decode(&call_blocking(&mut old_client, &register_broker_frame())).code, 0);
    let before = call_blocking(&mut old_client, &encode(&route(V4_9_7, 5)));
    let pid = daemon.pid().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    eventually_blocking("the GO_AWAY window begins", || daemon.log().contains("answering GO_AWAY").then_some(()));
    assert_eq!(call_blocking(&mut new_client, &encode(&route(V5_5_0, 77))), java_go_away(77));
    assert_eq!(call_blocking(&mut old_client, &encode(&route(V4_9_7, 5))), before);
    let mut late = daemon.connect();
    assert_eq!(call_blocking(&mut late, &encode(&route(V5_5_0, 8))), java_go_away(8));
    assert!(daemon.log().contains("GO_AWAY to 127.0.0.1:"), "{}", daemon.log());
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let exit = daemon.child.wait().unwrap();
    assert!(exit.success(), "{exit}\n{}", daemon.log());
    assert!(daemon.log().contains("the GO_AWAY window is over"), "{}", daemon.log());
}

#[test]
fn the_binary_goes_away_when_the_file_says_so() {
    let home = tempfile::tempdir().unwrap();
    let config = nameserver_testkit::daemon::Config::write(
        home.path(),
        &[("enableShutdownGracefully", "true"), ("shutdownWaitTimeSeconds", "600")],
    );
    let mut daemon = Daemon::configured(home.path(), &config, &["--no-http"]);
    assert!(daemon.log().contains("shutdown: serving 600s more"), "{}", daemon.log());
    daemon_goes_away(&mut daemon);
}

#[test]
fn the_binary_goes_away_when_the_command_line_says_so() {
    let home = tempfile::tempdir().unwrap();
    let args = ["--no-http", "--enable-shutdown-gracefully", "true", "--shutdown-wait-time-seconds", "600"];
    let mut daemon = Daemon::start(home.path(), &args);
    daemon_goes_away(&mut daemon);
}

/// UPDATE_NAMESRV_CONFIG (318) may switch it on only with `--remote-config all`, and, as the
/// other keys read at start, it applies after a restart: the run that took it still drains at
/// once, the next one goes away.
#[test]
fn an_update_under_remote_config_all_applies_after_a_restart() {
    let home = tempfile::tempdir().unwrap();
    let config = nameserver_testkit::daemon::Config::write(home.path(), &[]);
    let args = ["--no-http", "--remote-config", "all"];
    let mut daemon = Daemon::configured(home.path(), &config, &args);
    let mut peer = daemon.connect();
    let body = b"enableShutdownGracefully=true\nshutdownWaitTimeSeconds=600\n".to_vec();
    let update = request(RequestCode::UpdateNamesrvConfig, 1, &[]).with_body(body);
    let reply = decode(&call_blocking(&mut peer, &encode(&update)));
    assert_eq!(reply.code, 0, "{:?}", reply.remark);
    let remark = reply.remark.unwrap_or_default();
    assert!(remark.contains("after a restart: enableShutdownGracefully, shutdownWaitTimeSeconds"), "{remark}");
    let file = std::fs::read_to_string(&config.properties).unwrap();
    assert!(file.contains("enableShutdownGracefully=true") && file.contains("shutdownWaitTimeSeconds=600"), "{file}");
    // This run read the switch at start: one SIGTERM, and it drains and exits.
    assert!(daemon.terminate().success(), "{}", daemon.log());
    assert!(!daemon.log().contains("answering GO_AWAY"), "{}", daemon.log());

    let mut daemon = Daemon::configured(home.path(), &config, &args);
    daemon_goes_away(&mut daemon);
}
