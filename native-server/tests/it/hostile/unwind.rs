//! A connection task that panics (an overflow, a bug) must still tell the owner it is gone:
//! otherwise its brokers stay registered and `nameserver_connections` counts it for the life
//! of the process. The panic is the `test-hooks` feature's request code.

use nameserver::test_hooks::PANIC_REQUEST_CODE;
use nameserver_core::protocol::RemotingCommand;

use crate::http_support::ConsoleServer;
use crate::support;

async fn connections(server: &ConsoleServer) -> f64 {
    let text = server.get("/metrics").await.text();
    let line = text.lines().find(|l| l.starts_with("nameserver_connections ")).expect("the gauge");
    line.rsplit_once(' ').unwrap().1.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_connection_task_still_removes_its_broker_and_its_count() {
    let server = ConsoleServer::start().await;
    let baseline = connections(&server).await;
    let mut peers = Vec::new();
    for i in 0..5 {
        let mut peer = server.client().await;
        let name = format!("broker-{i}");
        let addr = format!("127.0.0.1:{}", 20000 + i);
        let register = crate::reliability::register("C", &name, &addr, &["T1", "T2"], 1);
        assert_eq!(peer.request(&register).await.code, 0);
        peers.push(peer);
    }
    let brokers = |v: serde_json::Value| v["brokers"].as_array().map_or(usize::MAX, Vec::len);
    support::eventually("the view lists the 5 brokers", || async {
        (brokers(server.get_json("/api/brokers").await) == 5).then_some(())
    })
    .await;
    for peer in &mut peers {
        let mut boom = RemotingCommand::request(PANIC_REQUEST_CODE.into());
        boom.opaque = 2;
        peer.send(&support::encode(&boom)).await;
        assert!(peer.closed_by_server().await, "the panicking task's socket closes");
    }
    support::eventually("the panicked connections' brokers removed and the gauge at its baseline", || async {
        let left = brokers(server.get_json("/api/brokers").await);
        (left == 0 && connections(&server).await == baseline).then_some(())
    })
    .await;
    server.stop().await.unwrap();
}
