//! Issue 28, the owner's queue: one lane of at most 64 requests per connection, taken round
//! robin, 4,096 requests in all; past that a connection with requests queued gets SYSTEM_BUSY
//! (a oneway request is dropped) and one with none is admitted. Driven through the test hooks
//! of the console (`test-hooks` feature): the owner's intake paused and resumed, and the record
//! of the requests it took in and handled.

use super::*;

use std::collections::BTreeSet;
use std::net::SocketAddr;

const BUSY_REMARK: &str = "[OVERLOAD]system busy, start flow control for a while";

/// One line of the owner's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Noted {
    arrived: bool,
    conn: u64,
    code: i32,
    opaque: i32,
}

fn record(console: SocketAddr) -> Vec<Noted> {
    http(console, "GET", "/test-hooks/owner/record")
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            Noted {
                arrived: fields[0] == "arrived",
                conn: fields[1].parse().unwrap(),
                code: fields[2].parse().unwrap(),
                opaque: fields[3].parse().unwrap(),
            }
        })
        .collect()
}

/// Waits until the record has `count` entries for which `check` holds; the record then.
fn recorded(console: SocketAddr, what: &str, count: usize, check: impl Fn(&Noted) -> bool) -> Vec<Noted> {
    support::eventually_blocking(what, || {
        let record = record(console);
        (record.iter().filter(|noted| check(noted)).count() >= count).then_some(record)
    })
}

fn pause(console: SocketAddr) {
    http(console, "POST", "/test-hooks/owner/pause");
}

fn resume(console: SocketAddr) {
    http(console, "POST", "/test-hooks/owner/resume");
}

fn frames(cmds: impl IntoIterator<Item = RemotingCommand>) -> Vec<u8> {
    cmds.into_iter().flat_map(|cmd| codec::encode_to_vec(&cmd).unwrap()).collect()
}

fn oneway(mut cmd: RemotingCommand) -> RemotingCommand {
    cmd.flag |= FLAG_ONEWAY;
    cmd
}

fn topic_list(opaque: i32) -> RemotingCommand {
    request(RequestCode::GetAllTopicListFromNameserver, opaque, &[])
}

/// Writes `bytes` on a thread of its own (the daemon stops reading while the lane is full).
fn write_behind(peer: &Peer, bytes: Vec<u8>) -> std::thread::JoinHandle<()> {
    let mut stream = peer.stream.try_clone().unwrap();
    std::thread::spawn(move || stream.write_all(&bytes).unwrap())
}

/// Owner paused; A sends 1,000 two-way GET_ALL_TOPIC_LIST then 1,000 oneway
/// REGISTER_TOPIC_IN_NAMESRV, B one request (`b_request`); resumed. B's request waits behind at
/// most one of A's.
fn a_flood_delays_another_connection_by_one_request(what: &str, b_request: RemotingCommand) {
    let (server, console) = Server::start_with_console(&[], &[]);
    pause(console);
    let mut a = server.peer();
    let flood = frames(
        (0..1000)
            .map(topic_list)
            .chain((1000..2000).map(|o| oneway(request(RequestCode::RegisterTopicInNamesrv, o, &[("topic", "T")])))),
    );
    let writer = write_behind(&a, flood);
    let before = recorded(console, "A's lane full", 64, |n| n.arrived && n.code == 206);
    let a_conn = before.iter().find(|n| n.code == 206).unwrap().conn;
    let mut b = server.peer();
    let b_code = b_request.code;
    assert!(b.send(&frames([b_request])));
    recorded(console, "B's request taken in", 1, |n| n.arrived && n.code == b_code);
    resume(console);
    let record = recorded(console, "B's request handled", 1, |n| !n.arrived && n.code == b_code);
    let arrival = record.iter().position(|n| n.arrived && n.code == b_code).unwrap();
    let handled = record.iter().position(|n| !n.arrived && n.code == b_code).unwrap();
    let between = record[arrival..handled].iter().filter(|n| !n.arrived && n.conn == a_conn).count();
    eprintln!("FIGURES owner queue, {what}: {between} of A's requests handled between B's arrival and its handling");
    assert!(between <= 1, "{what}: {between} of A's requests went first:\n{:?}", &record[arrival..=handled]);
    // Everything is still answered: A's 1,000 two-way requests, B's if it is two-way.
    writer.join().unwrap();
    let answered: BTreeSet<i32> = (0..1000).map(|_| a.reply().opaque).collect();
    assert_eq!(answered, (0..1000).collect());
    assert_eq!(a.call(&topic_list(5000)).opaque, 5000, "A's next request is the next answered");
    if b_code != 904 {
        assert_eq!(b.reply().code, 0);
    }
}

#[test]
fn a_flood_delays_a_registration_by_at_most_one_request() {
    a_flood_delays_another_connection_by_one_request(
        "registration",
        register("C", "b", "127.0.0.3:10911", &["T1", "T2"], 7),
    );
}

#[test]
fn a_flood_delays_a_heartbeat_by_at_most_one_request() {
    let heartbeat = request(
        RequestCode::BrokerHeartbeat,
        7,
        &[("clusterName", "C"), ("brokerAddr", "127.0.0.3:10911"), ("brokerName", "b"), ("brokerId", "0")],
    );
    a_flood_delays_another_connection_by_one_request("heartbeat", oneway(heartbeat));
}

#[test]
fn a_full_owner_queue_refuses_loaded_connections_and_admits_an_idle_one() {
    let (server, console) = Server::start_with_console(&[], &[]);
    pause(console);
    let mut loaded: Vec<Peer> = (0..128).map(|_| server.peer()).collect();
    for peer in &mut loaded {
        assert!(peer.send(&frames((0..32).map(topic_list))));
    }
    support::eventually_blocking("4,096 requests queued", || {
        (metric(console, "nameserver_owner_queue_requests") == 4096).then_some(())
    });
    // A connection with nothing queued is admitted: a broker's registration.
    let mut broker = server.peer();
    assert!(broker.send(&frames([register("C", "b", "127.0.0.3:10911", &["T1", "T2"], 1)])));
    recorded(console, "the registration taken in", 1, |n| n.arrived && n.code == 103);
    // One more two-way request on a loaded connection: SYSTEM_BUSY with Java's remark, at once.
    let busy = loaded[0].call(&topic_list(32));
    assert_eq!((busy.code, busy.opaque, busy.remark.as_deref()), (2, 32, Some(BUSY_REMARK)));
    // A oneway one: dropped and counted.
    assert!(loaded[1].send(&frames([oneway(request(RequestCode::RegisterTopicInNamesrv, 32, &[("topic", "T")]))])));
    support::eventually_blocking("the oneway refusal counted", || {
        (metric(console, "nameserver_owner_queue_refused_total{request=\"oneway\"}") == 1).then_some(())
    });
    assert_eq!(metric(console, "nameserver_owner_queue_refused_total{request=\"two_way\"}"), 1);
    resume(console);
    assert_eq!(broker.reply().code, 0, "the registration");
    // Each admitted request answered once: 32 replies, then the next request's.
    for (i, peer) in loaded.iter_mut().enumerate() {
        let answered: BTreeSet<i32> = (0..32).map(|_| peer.reply().opaque).collect();
        assert_eq!(answered, (0..32).collect(), "connection {i}");
        assert_eq!(peer.call(&topic_list(100)).opaque, 100, "connection {i}: a reply more");
    }
    let record = record(console);
    let handled = record.iter().filter(|n| !n.arrived).count();
    assert_eq!(handled, 4096 + 1 + 128, "{} entries", record.len());
    assert!(!record.iter().any(|n| n.code == 217), "the refused oneway request reached the owner");
}

#[test]
fn a_frame_waiting_while_the_daemon_does_not_read_is_not_closed_by_its_deadline() {
    // Frame deadline 3 s (+1 s for a small frame).
    let (server, console) = Server::start_with_console(&[], &["--test-deadline-ms", "3000"]);
    pause(console);
    let mut peer = server.peer();
    assert!(peer.send(&frames((0..64).map(topic_list))));
    recorded(console, "the lane full", 64, |n| n.arrived);
    // A 65th request, which waits in the connection task (it stops reading), and the first
    // bytes of a 66th, which wait with it.
    let last = codec::encode_to_vec(&topic_list(65)).unwrap();
    assert!(peer.send(&[frames([topic_list(64)]), last[..10].to_vec()].concat()));
    // A frame begun later on another connection is closed by its deadline: the waiting one's
    // is past too, by the clock.
    let mut later = server.peer();
    assert!(later.send(&last[..10]));
    assert!(later.closes_without_a_frame(), "the frame deadline did not close the other connection");
    resume(console);
    let answered: BTreeSet<i32> = (0..65).map(|_| peer.reply().opaque).collect();
    assert_eq!(answered, (0..65).collect());
    assert!(peer.send(&last[10..]), "closed while the daemon did not read it");
    assert_eq!(peer.reply().opaque, 65);
}

/// Owner paused; twelve brokers' registrations queued, all but the first with 2,000 topics (a
/// first registration of one topic alone is refused, as Java refuses it: two);
/// resumed: the owner takes them in batches (`owner_loop.rs`), publishing one route snapshot
/// per batch, and a broker hears it is registered only once its topic is routed: a client
/// that asks at once finds it.
#[test]
fn a_batchs_replies_wait_until_its_routes_are_published() {
    let (server, console) = Server::start_with_console(&[], &[]);
    pause(console);
    let mut brokers = Vec::new();
    for i in 0..12_i32 {
        let more = if i == 0 { 1 } else { 2000 };
        let topics: Vec<String> =
            std::iter::once(format!("Q{i}")).chain((0..more).map(|j| format!("H{i}-{j}"))).collect();
        let topics: Vec<&str> = topics.iter().map(String::as_str).collect();
        let mut broker = server.peer();
        let registration = register("C", &format!("b{i}"), &format!("127.0.0.{}:10911", i + 1), &topics, i);
        assert!(broker.send(&frames([registration])));
        brokers.push(broker);
    }
    recorded(console, "every registration taken in", 12, |n| n.arrived && n.code == 103);
    let mut client = server.peer();
    resume(console);
    for (i, broker) in (0_i32..).zip(&mut brokers) {
        let reply = broker.reply();
        assert_eq!(reply.code, 0, "b{i} registered: {:?}", reply.remark);
        let route = client.call(&route_query(&format!("Q{i}"), 100 + i));
        assert_eq!(route.code, 0, "Q{i} is routed by the time b{i} hears it is registered");
    }
}
