//! The embedded controller (`enableControllerInNamesrv=true`) over the wire: brokers get ids,
//! heartbeat, elect a master and are told of a failover with 1008; the event log brings the
//! same ids and epochs back after a restart, a torn last record is dropped, a damaged log and
//! every misconfiguration stop the daemon before it serves, naming the key.

use crate::support;

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use nameserver::controller::ControllerPort;
use nameserver::controller::settings::{self, LOG_FILE};
use nameserver::http::{Console, HttpOptions};
use nameserver_core::protocol::RemotingCommand;
use nameserver_testkit::AsyncClient;
use nameserver_testkit::client::read_frame;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use support::{nameserver_command, server_config, within};

const CLUSTER: &str = "DefaultCluster";
const GROUP: &str = "broker-a";

/// A daemon with its controller, its files in `dir`.
struct Daemon {
    controller: SocketAddr,
    http: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<io::Result<()>>,
}

fn store(dir: &Path) -> PathBuf {
    dir.join("DLedgerController")
}

async fn start(dir: &Path) -> Daemon {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let controller_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let controller = controller_listener.local_addr().unwrap();
    let properties: BTreeMap<String, String> = [
        ("enableControllerInNamesrv", String::from("true")),
        ("controllerDLegerGroup", String::from("group1")),
        ("controllerDLegerPeers", format!("n0-127.0.0.1:{}", controller.port())),
        ("controllerDLegerSelfId", String::from("n0")),
        ("controllerStorePath", store(dir).display().to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let port = listener.local_addr().unwrap().port();
    let settings = settings::from_properties(&properties, &dir.display().to_string(), port).unwrap().unwrap();
    let controller_port = ControllerPort::open(controller_listener, settings).unwrap();
    let http_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let http = http_listener.local_addr().unwrap();
    let console = Console { listener: http_listener, options: HttpOptions::default() };
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(nameserver::serve_with_controller(
        listener,
        Some(console),
        Some(controller_port),
        server_config(dir),
        async move {
            let _ = stopped.await;
        },
    ));
    Daemon { controller, http, stop, task }
}

impl Daemon {
    async fn stop(self) {
        self.stop.send(()).unwrap();
        within("the daemon stops", self.task).await.unwrap().unwrap();
    }

    async fn broker(&self) -> AsyncClient {
        AsyncClient::connect(self.controller).await.unwrap()
    }
}

fn request(code: i32, fields: &[(&str, &str)]) -> RemotingCommand {
    let mut cmd = RemotingCommand { code, ..RemotingCommand::default() };
    for (key, value) in fields {
        cmd = cmd.with_field(key, *value);
    }
    cmd
}

async fn call(client: &mut AsyncClient, code: i32, fields: &[(&str, &str)]) -> RemotingCommand {
    client.call(request(code, fields)).await.unwrap()
}

/// A broker's start as Java's `ReplicasManager` makes it: 1012 for an id, 1013 to apply it
/// (its address and a check code), 1003 to register; returns the id.
async fn join(client: &mut AsyncClient, addr: &str) -> i64 {
    let next = call(client, 1012, &[("clusterName", CLUSTER), ("brokerName", GROUP)]).await;
    assert_eq!(next.code, 0, "{next:?}");
    let id = next.field("nextBrokerId").unwrap().to_string();
    let code = format!("{addr};1733090000000");
    let fields =
        [("clusterName", CLUSTER), ("brokerName", GROUP), ("appliedBrokerId", &id), ("registerCheckCode", &code)];
    let applied = call(client, 1013, &fields).await;
    assert_eq!(applied.code, 0, "{applied:?}");
    let fields = [("clusterName", CLUSTER), ("brokerName", GROUP), ("brokerId", &id), ("brokerAddress", addr)];
    let registered = call(client, 1003, &fields).await;
    assert_eq!(registered.code, 0, "{registered:?}");
    id.parse().unwrap()
}

/// A broker's oneway 904.
async fn heartbeat(client: &mut AsyncClient, id: i64, addr: &str) {
    let id = id.to_string();
    let fields = [
        ("clusterName", CLUSTER),
        ("brokerName", GROUP),
        ("brokerAddr", addr),
        ("brokerId", &id),
        ("epoch", "0"),
        ("maxOffset", "100"),
        ("heartbeatTimeoutMills", "10000"),
    ];
    client.send(request(904, &fields)).await.unwrap();
}

/// 1004's (master id, master epoch, sync-state set epoch) for the group.
async fn replica_info(client: &mut AsyncClient) -> (String, String, String) {
    let info = call(client, 1004, &[("brokerName", GROUP)]).await;
    assert_eq!(info.code, 0, "{info:?}");
    let field = |key: &str| info.field(key).unwrap_or("-").to_string();
    let body: serde_json::Value = serde_json::from_slice(&info.body).unwrap();
    (field("masterBrokerId"), field("masterEpoch"), body["syncStateSetEpoch"].to_string())
}

/// The next 1008 a broker's own port receives.
async fn role_changed(port: &TcpListener) -> RemotingCommand {
    let (mut stream, _) = within("the controller connects to the broker", port.accept()).await.unwrap();
    let notice = read_frame(&mut stream).await.expect("a frame");
    assert_eq!((notice.code, notice.is_oneway()), (1008, true), "{notice:?}");
    notice
}

/// Two brokers of one group: ids 1 and 2, broker 1 elected and the set grown to {1, 2}.
/// Returns their controller connections and their own ports.
async fn two_brokers(daemon: &Daemon) -> [(AsyncClient, TcpListener, String); 2] {
    let mut brokers = Vec::new();
    for expected in [1, 2] {
        let port = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = port.local_addr().unwrap().to_string();
        let mut client = daemon.broker().await;
        assert_eq!(join(&mut client, &addr).await, expected);
        heartbeat(&mut client, expected, &addr).await;
        brokers.push((client, port, addr));
    }
    let [mut first, second]: [_; 2] = brokers.try_into().unwrap_or_else(|_| unreachable!());
    let elected = call(&mut first.0, 1002, &[("clusterName", CLUSTER), ("brokerName", GROUP), ("brokerId", "1")]).await;
    assert_eq!((elected.code, elected.field("masterBrokerId")), (0, Some("1")), "{elected:?}");
    // Every replica heartbeating is told.
    for port in [&first.1, &second.1] {
        let notice = role_changed(port).await;
        assert_eq!((notice.field("masterBrokerId"), notice.field("masterEpoch")), (Some("1"), Some("1")));
    }
    let fields = [("brokerName", GROUP), ("masterBrokerId", "1"), ("masterEpoch", "1")];
    let grown = first
        .0
        .call(request(1001, &fields).with_body(br#"{"syncStateSet":[1,2],"syncStateSetEpoch":1}"#.to_vec()))
        .await
        .unwrap();
    assert_eq!(grown.code, 0, "{grown:?}");
    [first, second]
}

#[tokio::test]
async fn brokers_get_ids_elect_and_fail_over_through_the_controller_port() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path()).await;
    let [(master, _master_port, _), (mut slave, slave_port, _)] = two_brokers(&daemon).await;
    assert_eq!(replica_info(&mut slave).await, ("1".into(), "1".into(), "2".into()));
    // The master's connection closes (kill -9): the controller elects the slave from the set
    // and tells it.
    drop(master);
    let notice = role_changed(&slave_port).await;
    assert_eq!((notice.field("masterBrokerId"), notice.field("masterEpoch")), (Some("2"), Some("2")));
    assert_eq!(replica_info(&mut slave).await, ("2".into(), "2".into(), "3".into()));
    // The console shows the group as the controller holds it.
    let api = crate::http_support::request(daemon.http, "GET", "/api/controller", &[], b"").await;
    let view: serde_json::Value = serde_json::from_slice(&api.body).unwrap();
    let group = &view["brokerGroups"][0];
    assert_eq!(view["enabled"], true, "{view}");
    assert_eq!((group["brokerName"].as_str(), group["masterId"].as_i64()), (Some(GROUP), Some(2)), "{view}");
    assert_eq!((group["masterEpoch"].as_i64(), group["syncStateSetEpoch"].as_i64()), (Some(2), Some(3)), "{view}");
    assert_eq!(group["syncStateSet"], serde_json::json!([2]), "{view}");
    assert_eq!(view["elections"]["newMasterElected"], 2, "{view}");
    let metrics = crate::http_support::request(daemon.http, "GET", "/metrics", &[], b"").await.text();
    let series = r#"rocketmq_controller_master_epoch{cluster="DefaultCluster",broker="broker-a"} 2"#;
    assert!(metrics.contains(series), "{metrics}");
    assert!(metrics.contains(r#"rocketmq_controller_election_total{result="new_master_elected"} 2"#), "{metrics}");
    // A code the controller does not serve, and a route query (no route table on this port).
    let other = call(&mut slave, 105, &[("topic", "TBW102")]).await;
    assert_eq!(other.code, 3, "REQUEST_CODE_NOT_SUPPORTED: {other:?}");
    daemon.stop().await;
}

#[tokio::test]
async fn a_restart_replays_the_log_with_the_same_ids_and_epochs() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path()).await;
    let [(mut master, ..), _] = two_brokers(&daemon).await;
    let before = replica_info(&mut master).await;
    drop(master);
    daemon.stop().await;

    let daemon = start(dir.path()).await;
    let mut client = daemon.broker().await;
    assert_eq!(replica_info(&mut client).await, before, "the same master and epochs");
    let next = call(&mut client, 1012, &[("clusterName", CLUSTER), ("brokerName", GROUP)]).await;
    assert_eq!(next.field("nextBrokerId"), Some("3"), "ids 1 and 2 are still taken: {next:?}");
    // A broker that restarts with its id and check code keeps it.
    let port = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = port.local_addr().unwrap().to_string();
    let code = format!("{addr};1733090000000");
    let retry =
        [("clusterName", CLUSTER), ("brokerName", GROUP), ("appliedBrokerId", "3"), ("registerCheckCode", &code)];
    assert_eq!(call(&mut client, 1013, &retry).await.code, 0);
    daemon.stop().await;
}

#[tokio::test]
async fn a_torn_last_record_is_dropped_and_the_rest_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path()).await;
    let [(mut master, ..), _] = two_brokers(&daemon).await;
    let before = replica_info(&mut master).await;
    drop(master);
    daemon.stop().await;
    // A crash in the middle of an append: a record's first bytes and nothing after.
    let log = store(dir.path()).join(LOG_FILE);
    let whole = std::fs::read(&log).unwrap();
    let mut torn = whole.clone();
    torn.extend_from_slice(&[40, 0, 0, 0, 1, 2]);
    std::fs::write(&log, &torn).unwrap();

    let daemon = start(dir.path()).await;
    let mut client = daemon.broker().await;
    assert_eq!(replica_info(&mut client).await, before);
    assert_eq!(std::fs::read(&log).unwrap(), whole, "the torn bytes are cut off");
    daemon.stop().await;
}

/// A two-way 904 (answered once the controller took it) with an epoch, as `(cluster,
/// address)` claim it.
async fn heartbeat_at(client: &mut AsyncClient, cluster: &str, id: &str, addr: &str, epoch: i32) {
    let epoch = epoch.to_string();
    let fields = [
        ("clusterName", cluster),
        ("brokerName", GROUP),
        ("brokerAddr", addr),
        ("brokerId", id),
        ("epoch", &epoch),
        ("maxOffset", "100"),
        ("heartbeatTimeoutMills", "10000"),
    ];
    assert_eq!(call(client, 904, &fields).await.code, 0);
}

/// Quirk Q16's epochs are followed only from a registered replica at its registered address,
/// once per registration: spoofed heartbeats with rising epochs elect nobody again.
#[tokio::test]
async fn only_a_registered_replicas_first_later_epoch_elects_the_master_again() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path()).await;
    let [(_master, _, _), (mut slave, slave_port, slave_addr)] = two_brokers(&daemon).await;
    let mut spoofer = daemon.broker().await;
    for epoch in 5..10 {
        heartbeat_at(&mut spoofer, CLUSTER, "2", "127.0.0.1:1", epoch).await;
        heartbeat_at(&mut spoofer, CLUSTER, "9", &slave_addr, epoch).await;
        heartbeat_at(&mut spoofer, "OtherCluster", "2", &slave_addr, epoch).await;
    }
    assert_eq!(replica_info(&mut spoofer).await, ("1".into(), "1".into(), "2".into()), "no election");
    // The slave reports the epoch its file holds (as after a move from another controller):
    // the master is elected again above it, once, whatever it reports next.
    heartbeat_at(&mut slave, CLUSTER, "2", &slave_addr, 5).await;
    let notice = role_changed(&slave_port).await;
    assert_eq!((notice.field("masterBrokerId"), notice.field("masterEpoch")), (Some("1"), Some("6")));
    for epoch in [7, 8, 50] {
        heartbeat_at(&mut slave, CLUSTER, "2", &slave_addr, epoch).await;
    }
    assert_eq!(replica_info(&mut spoofer).await, ("1".into(), "6".into(), "3".into()), "one election");
    daemon.stop().await;
}

/// Runs the binary with `file` as `-c` and returns its stderr; it must fail.
fn refused(home: &Path, file: &str) -> String {
    let path = home.join("namesrv.properties");
    std::fs::write(&path, file).unwrap();
    let output = nameserver_command(home)
        .args(["-c", &path.display().to_string(), "--listen-port", "0", "--no-http"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "it started: {stderr}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("boot success"), "it served first");
    stderr
}

#[test]
fn a_misconfigured_controller_stops_the_daemon_naming_the_key() {
    let home = tempfile::tempdir().unwrap();
    let good = "enableControllerInNamesrv=true\ncontrollerDLegerGroup=group1\ncontrollerDLegerPeers=n0-127.0.0.1:0\n\
                controllerDLegerSelfId=n0\n";
    let without = |key: &str| good.lines().filter(|l| !l.starts_with(key)).collect::<Vec<_>>().join("\n");
    for key in ["controllerDLegerGroup", "controllerDLegerPeers", "controllerDLegerSelfId"] {
        let stderr = refused(home.path(), &without(key));
        assert!(stderr.contains(&format!("{key}: missing")), "{key}: {stderr}");
    }
    let three = good.replace("n0-127.0.0.1:0", "n0-127.0.0.1:0;n1-127.0.0.1:1;n2-127.0.0.1:2");
    assert!(refused(home.path(), &three).contains("controllerDLegerPeers: 3 controllers"));
    let jraft = format!("{good}controllerType=jRaft\n");
    assert!(refused(home.path(), &jraft).contains("controllerType"));
    let unclean = format!("{good}enableElectUncleanMaster=yes\n");
    assert!(refused(home.path(), &unclean).contains("enableElectUncleanMaster"));
    // A damaged event log (a bad record with another after it) is no crash of ours.
    let store = home.path().join("store");
    std::fs::create_dir_all(&store).unwrap();
    let mut damaged = b"NSCTLOG\x01".to_vec();
    damaged.extend_from_slice(&[4, 0, 0, 0, 9, 9, 9, 9, 1, 2, 3, 4]);
    damaged.extend_from_slice(&[4, 0, 0, 0, 9, 9, 9, 9, 1, 2, 3, 4]);
    std::fs::write(store.join(LOG_FILE), damaged).unwrap();
    let stored = format!("{good}controllerStorePath={}\n", store.display());
    let stderr = refused(home.path(), &stored);
    assert!(stderr.contains("controllerStorePath") && stderr.contains("damaged"), "{stderr}");
}
