//! Authentication on 9876 (`--acl-file`, `--auth`, `--allow-from`), end to end against the
//! binary: the attacks an unsigned peer could make, route queries refused before the
//! snapshot answers them, the replay the signature cannot stop, source lists, the reload of
//! the ACL file and the start-up errors. Requests are signed with the core's `sign`, which
//! the Java vectors check (core/tests).

use crate::reliability::{Peer, Server, request, route_query};
use crate::support;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use nameserver_core::TopicName;
use nameserver_core::auth::{AccessKey, SecretKey, sign};
use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::body::{RegisterBrokerBody, TopicConfig};
use nameserver_core::protocol::{FLAG_ONEWAY, RemotingCommand, RequestCode};

const NO_PERMISSION: i32 = 16;
const NO_ACCESS_KEY: &str = "username cannot be null.";
/// An account with `admin: true`.
const ADMIN: (&str, &str) = ("rocketmq2", "12345678");
/// An account without it.
const USER: (&str, &str) = ("RocketMQ", "87654321");
const ACL: &str = "globalWhiteRemoteAddresses:\n  - 10.10.103.*\naccounts:\n  - accessKey: RocketMQ\n    \
                   secretKey: 87654321\n    admin: false\n  - accessKey: rocketmq2\n    secretKey: 12345678\n    \
                   admin: true\n";

/// Writes `text` as an ACL file of mode 0600 in `dir`.
fn acl_file(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("plain_acl.yml");
    std::fs::write(&path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    path
}

/// `cmd` signed as `AclClientRPCHook` signs it with `account`.
fn signed(mut cmd: RemotingCommand, (access_key, secret): (&str, &str)) -> RemotingCommand {
    sign(&mut cmd, &AccessKey::new(access_key).unwrap(), &SecretKey::new(secret).unwrap());
    cmd
}

/// The daemon with the console and the ACL file [`ACL`] (in its own directory), plus `args`.
fn start(args: &[&str]) -> (Server, SocketAddr, tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let acl = acl_file(dir.path(), ACL);
    let (server, console) = Server::start_with_console(&[], &[&["--acl-file", acl.to_str().unwrap()], args].concat());
    (server, console, dir, acl)
}

/// One GET to the console: its status and body.
fn get(console: SocketAddr, path: &str) -> (u16, String) {
    let response = crate::http_support::request_blocking(console, "GET", path);
    (response.status, response.text())
}

fn post(console: SocketAddr, path: &str) {
    let response = crate::http_support::request_blocking(console, "POST", path);
    assert_eq!(response.status, 200, "POST {path}: {}", response.text());
}

/// `nameserver_requests_refused_total{reason="auth",class="CLASS"}`.
fn refused(console: SocketAddr, class: &str) -> u64 {
    let series = format!("nameserver_requests_refused_total{{reason=\"auth\",class=\"{class}\"}} ");
    let (_, text) = get(console, "/metrics");
    text.lines().find_map(|line| line.strip_prefix(&series)?.parse().ok()).unwrap_or_else(|| panic!("no {series}"))
}

#[track_caller]
fn assert_refused(reply: &RemotingCommand, remark: &str) {
    assert_eq!((reply.code, reply.remark.as_deref()), (NO_PERMISSION, Some(remark)), "{reply:?}");
}

fn registration(addr: &str, state_version: i64, opaque: i32) -> RemotingCommand {
    let mut body = RegisterBrokerBody::default();
    body.topic_config_wrapper.data_version.counter = 1;
    body.topic_config_wrapper.data_version.state_version = state_version;
    for topic in ["T1", "T2"] {
        body.topic_config_wrapper.topic_config_table.insert(TopicName::from(topic), TopicConfig::new(topic, 4));
    }
    let fields = [
        ("clusterName", "C"),
        ("brokerName", "broker-a"),
        ("brokerAddr", addr),
        ("brokerId", "0"),
        ("haServerAddr", addr),
        ("enableActingMaster", "false"),
    ];
    request(RequestCode::RegisterBroker, opaque, &fields).with_body(body.to_json(JsonStyle::Plain))
}

fn kv(code: RequestCode, opaque: i32, key: &str, value: Option<&str>) -> RemotingCommand {
    let mut fields = vec![("namespace", "ns"), ("key", key)];
    fields.extend(value.map(|v| ("value", v)));
    request(code, opaque, &fields)
}

/// The attack list of the issue, from a peer that signs nothing, under the default policies a
/// file brings: each gets NO_PERMISSION with Java 5.5.0's text, is counted under its class,
/// and nothing changes: the route, the KV table, the configuration, `/readyz`.
#[test]
fn an_unsigned_peer_is_refused_every_write_and_admin_read_under_the_file_defaults() {
    let (server, console, _dir, _) = start(&[]);
    let mut broker = server.peer();
    assert_eq!(broker.call(&signed(registration("127.0.0.1:10911", 0, 1), USER)).code, 0, "a signed broker registers");
    let mut admin = server.peer();
    assert_eq!(admin.call(&signed(kv(RequestCode::PutKvConfig, 2, "k", Some("v")), ADMIN)).code, 0);
    let mut attacker = server.peer();
    let route_before = attacker.call(&route_query("T1", 3));
    assert_eq!(route_before.code, 0, "route-read stays open: {route_before:?}");
    assert_eq!(get(console, "/readyz").0, 200);
    let config = |peer: &mut Peer| peer.call(&signed(request(RequestCode::GetNamesrvConfig, 4, &[]), USER)).body;
    let config_before = config(&mut admin);

    let broker_fields =
        [("clusterName", "C"), ("brokerName", "broker-a"), ("brokerAddr", "127.0.0.1:10911"), ("brokerId", "0")];
    let attacks = [
        ("unregister the broker", request(RequestCode::UnregisterBroker, 10, &broker_fields)),
        ("wipe its write permission", request(RequestCode::WipeWritePermOfBroker, 11, &[("brokerName", "broker-a")])),
        ("delete a topic", request(RequestCode::DeleteTopicInNamesrv, 12, &[("topic", "T1")])),
        ("put KV", kv(RequestCode::PutKvConfig, 13, "k", Some("pwned"))),
        ("steal the master's slot", registration("6.6.6.6:10911", 1 << 40, 14)),
        ("read the paths", request(RequestCode::GetNamesrvConfig, 15, &[])),
        (
            "hold back every route",
            request(RequestCode::UpdateNamesrvConfig, 16, &[]).with_body(b"needWaitForService=true\n".to_vec()),
        ),
    ];
    for (what, attack) in attacks {
        let reply = attacker.call(&attack);
        assert_eq!((reply.code, reply.opaque), (NO_PERMISSION, attack.opaque), "{what}: {reply:?}");
        assert_eq!(reply.remark.as_deref(), Some(NO_ACCESS_KEY), "{what}");
    }
    // A key no account has, and a known key with a signature made with another secret.
    let stranger =
        attacker.call(&signed(request(RequestCode::DeleteTopicInNamesrv, 20, &[("topic", "T1")]), ("nobody", "x")));
    assert_refused(&stranger, "User:nobody is not found.");
    let forged =
        attacker.call(&signed(request(RequestCode::DeleteTopicInNamesrv, 21, &[("topic", "T1")]), (ADMIN.0, "guess")));
    assert_refused(&forged, "check signature failed.");

    assert_eq!(attacker.call(&route_query("T1", 30)).body, route_before.body, "the route is unchanged");
    assert_eq!(get(console, "/readyz").0, 200, "/readyz is unchanged");
    assert_eq!(config(&mut admin), config_before, "the configuration is unchanged");
    let value = admin.call(&signed(kv(RequestCode::GetKvConfig, 31, "k", None), USER));
    assert_eq!((value.code, value.field("value")), (0, Some("v")), "the KV table is unchanged");
    assert_eq!(refused(console, "broker"), 2);
    assert_eq!(refused(console, "admin-write"), 6);
    assert_eq!(refused(console, "admin-read"), 1);
    assert_eq!(refused(console, "route-read"), 0);
    assert!(
        server.daemon.log().contains("refused request code 104 (broker) from 127.0.0.1:"),
        "{}",
        server.daemon.log()
    );
}

/// Under `--auth route-read=signed` an unsigned GET_ROUTEINFO_BY_TOPIC is refused by the
/// connection task, although the route snapshot holds the answer: with the owner paused,
/// a signed query is still answered (from the snapshot) and the unsigned one gets 16; neither
/// reaches the owner. A oneway one gets no reply and is counted.
#[test]
fn an_unsigned_route_query_under_route_read_signed_is_refused_before_the_snapshot_answers() {
    let (server, console, _dir, _) = start(&["--auth", "route-read=signed"]);
    let mut broker = server.peer();
    assert_eq!(broker.call(&signed(registration("127.0.0.1:10911", 0, 1), USER)).code, 0);
    let mut client = server.peer();
    assert_eq!(client.call(&signed(route_query("T1", 2), USER)).code, 0, "the route is there");
    post(console, "/test-hooks/owner/pause");
    let answered = client.call(&signed(route_query("T1", 3), USER));
    assert_eq!(answered.code, 0, "with the owner paused, only the snapshot can answer: {answered:?}");
    let mut unsigned = route_query("T1", 4);
    unsigned.flag |= FLAG_ONEWAY;
    assert!(client.send(&support::encode(&unsigned)));
    assert_refused(&client.call(&route_query("T1", 5)), NO_ACCESS_KEY);
    let (_, record) = get(console, "/test-hooks/owner/record");
    let routed = record.lines().any(|line| line.split_whitespace().nth(2) == Some("105"));
    assert!(!routed, "a route query reached the owner:\n{record}");
    post(console, "/test-hooks/owner/resume");
    assert_eq!(refused(console, "route-read"), 2, "the oneway one is counted");
}

/// The signature covers the fields and the body, not the request code: a captured signed
/// GET_KV_CONFIG re-sent as DELETE_KV_CONFIG verifies. Only `admin` on admin-write stops it
/// for other accounts; TLS stops the capture (docs/PROTOCOL.md §19).
#[test]
fn a_captured_signed_get_kv_resent_as_delete_kv_is_accepted_for_an_admin_key_only() {
    let (server, _console, _dir, _) = start(&[]);
    let mut peer = server.peer();
    assert_eq!(peer.call(&signed(kv(RequestCode::PutKvConfig, 1, "k", Some("v")), ADMIN)).code, 0);
    let value = |peer: &mut Peer| peer.call(&signed(kv(RequestCode::GetKvConfig, 2, "k", None), USER)).code;

    let mut captured = signed(kv(RequestCode::GetKvConfig, 3, "k", None), USER);
    assert_eq!(peer.call(&captured).code, 0);
    captured.code = RequestCode::DeleteKvConfig.raw();
    let reply = peer.call(&captured);
    assert_refused(
        &reply,
        "User:RocketMQ has no permission to access NameServer:admin-write from 127.0.0.1, no matched policies.",
    );
    assert_eq!(value(&mut peer), 0, "the key is still there");

    let mut captured = signed(kv(RequestCode::GetKvConfig, 4, "k", None), ADMIN);
    assert_eq!(peer.call(&captured).code, 0);
    captured.code = RequestCode::DeleteKvConfig.raw();
    assert_eq!(peer.call(&captured).code, 0, "the documented limit: the code is not signed");
    assert_eq!(value(&mut peer), 22, "the key is gone (QUERY_NOT_FOUND)");
}

/// `--allow-from`: a signed admin request from a source outside the class's list gets ACL
/// 2.0's no-permission text; from a listed one it passes. Without a file the list alone
/// applies, to unsigned requests.
#[test]
fn a_request_from_an_unlisted_source_is_refused_with_or_without_a_file() {
    let (server, console, _dir, _) = start(&["--allow-from", "admin-write=127.0.0.2,broker=127.0.0.0/8"]);
    let put = |opaque| signed(kv(RequestCode::PutKvConfig, opaque, "k", Some("v")), ADMIN);
    assert_refused(
        &server.peer().call(&put(1)),
        "User:rocketmq2 has no permission to access NameServer:admin-write from 127.0.0.1, no matched policies.",
    );
    assert_eq!(Peer::connect_from(server.addr(), "127.0.0.2").call(&put(2)).code, 0);
    assert_eq!(refused(console, "admin-write"), 1);

    let (bare, console) = Server::start_with_console(&[], &["--allow-from", "admin-write=127.0.0.2"]);
    let put = kv(RequestCode::PutKvConfig, 3, "k", Some("v"));
    assert_refused(
        &bare.peer().call(&put),
        "User:anonymous has no permission to access NameServer:admin-write from 127.0.0.1, no matched policies.",
    );
    assert_eq!(Peer::connect_from(bare.addr(), "127.0.0.2").call(&put).code, 0);
    assert_eq!(bare.peer().call(&registration("127.0.0.1:10911", 0, 4)).code, 0, "other classes stay open");
    assert_eq!(refused(console, "admin-write"), 1);
}

/// A changed ACL file is read again (as the TLS files are): a key added is accepted once the
/// daemon says it reloaded; a broken file is refused and the accounts in use stay.
#[test]
fn the_acl_file_is_reloaded_when_it_changes_and_a_broken_one_is_not_used() {
    let (server, _console, dir, _) = start(&[]);
    let newcomer = ("newcomer", "fresh-secret");
    let put = |opaque| signed(kv(RequestCode::PutKvConfig, opaque, "k", Some("v")), newcomer);
    let mut peer = server.peer();
    assert_refused(&peer.call(&put(1)), "User:newcomer is not found.");

    acl_file(dir.path(), &format!("{ACL}  - accessKey: newcomer\n    secretKey: fresh-secret\n    admin: true\n"));
    support::eventually_blocking("the reload is logged", || {
        server.daemon.log().contains("the ACL file changed: reloaded 3 accounts from the ACL file").then_some(())
    });
    assert_eq!(peer.call(&put(2)).code, 0, "the new key works");

    acl_file(dir.path(), "accounts:\n  - accessKey: newcomer\n");
    support::eventually_blocking("the broken file is reported", || {
        server.daemon.log().contains("has no secretKey); keeping the accounts in use").then_some(())
    });
    assert_eq!(peer.call(&put(3)).code, 0, "the accounts in use stay");
}

/// What the operator is told at start: a line per class, what the file leaves unread, a file
/// others can read; and a clear error, before anything listens, for a file that cannot be
/// used or a policy that needs one.
#[test]
fn the_start_says_each_class_s_policy_and_a_bad_acl_file_or_policy_stops_it() {
    let home = tempfile::tempdir().unwrap();
    let acl = home.path().join("plain_acl.yml");
    std::fs::write(&acl, ACL).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&acl, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let path = acl.to_str().unwrap();
    let daemon = support::Daemon::start(
        home.path(),
        &["--no-http", "--acl-file", path, "--allow-from", "admin-write=10.0.0.0/8"],
    );
    let log = daemon.log();
    for line in [
        "auth: route-read (105, 106, 901): open (the AccessKey is not read), from any source",
        "auth: broker (103, 104, 217, 322, 904): signed (a known account's valid signature), from any source",
        "auth: admin-write (100, 102, 205, 216, 318, 327): admin (a valid signature from an account with admin: true), from 10.0.0.0/8 only",
        "`globalWhiteRemoteAddresses` is ignored",
        "its group or other users can read it (mode 644); chmod 600 it",
    ] {
        assert!(log.contains(line), "no {line:?} in:\n{log}");
    }
    drop(daemon);

    let fails = |args: &[&str]| {
        let output = support::nameserver_command(home.path()).args(["--no-http"]).args(args).output().unwrap();
        assert!(!output.status.success(), "{args:?} started");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    for (text, said) in [
        ("accounts: [\n", "is not YAML"),
        ("accounts:\n  - accessKey: ak\n", "accounts[0] (ak) has no secretKey"),
        (
            "accounts:\n  - {accessKey: ak, secretKey: s}\n  - {accessKey: ak, secretKey: t}\n",
            "two accounts have the accessKey `ak`",
        ),
        ("globalWhiteRemoteAddresses: []\n", "has no `accounts:` list"),
    ] {
        std::fs::write(&acl, text).unwrap();
        let stderr = fails(&["--acl-file", path]);
        assert!(stderr.contains(&format!("the ACL file {path}: ")) && stderr.contains(said), "{text:?}: {stderr}");
    }
    let missing = home.path().join("missing.yml");
    let stderr = fails(&["--acl-file", missing.to_str().unwrap()]);
    assert!(stderr.contains("cannot read it"), "{stderr}");
    let stderr = fails(&["--auth", "broker=signed"]);
    assert!(
        stderr.contains("--auth broker=signed verifies signatures, which needs the accounts of --acl-file"),
        "{stderr}"
    );
    let stderr = fails(&["--auth", "brokers=open"]);
    assert!(stderr.contains("--auth") && stderr.contains("route-read, broker, admin-read, admin-write"), "{stderr}");
}

/// A compressed registration (`compressed=true`, as a 5.x broker sends with
/// `compressedRegister`) is signed over the bytes sent, before they are inflated.
#[test]
fn a_compressed_registration_is_verified_over_its_compressed_body() {
    let (server, _console, _dir, _) = start(&[]);
    let plain = registration("127.0.0.1:10911", 0, 1);
    let body = RegisterBrokerBody::decode(&plain.body, false, plain.version, usize::MAX).unwrap();
    let compressed = plain.with_field("compressed", "true").with_body(body.encode_compressed(479));
    let mut peer = server.peer();
    let mut tampered = signed(compressed.clone(), USER);
    tampered.body[8] ^= 1;
    assert_refused(&peer.call(&tampered), "check signature failed.");
    assert_eq!(peer.call(&signed(compressed, USER)).code, 0);
    assert_eq!(peer.call(&route_query("T1", 2)).code, 0, "it registered");
}
