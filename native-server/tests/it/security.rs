//! Security regressions, end to end: UPDATE_NAMESRV_CONFIG (318) over TCP against the
//! `nameserver` binary started with `-c namesrv.properties`.
//!
//! CVE-2023-33246: unauthenticated config updates let an attacker point `rocketmqHome` (and
//! on the NameServer `kvConfigPath`) somewhere of their choosing. CVE-2023-37582: the first
//! fix checked `configStorePathName` (a typo) instead of `configStorePath`, so the whole
//! configuration could still be written to any path, with lines of the attacker's choosing
//! (PROTOCOL.md §12.5). Every key that names a path, a home directory or the black list is
//! refused with NO_PERMISSION (16), nothing is applied, and the persisted file is unchanged
//! byte for byte. The core's unit-level versions are in core/tests/it/requests_config.rs.

mod auth;

use crate::reliability;
use crate::support;

use std::fs;
use std::path::Path;

use nameserver_core::protocol::{RemotingCommand, RequestCode};
use reliability::{Peer, Server, request};

const NO_PERMISSION: i32 = 16;
const INVALID_PARAMETER: i32 = 29;
const BLACK_LISTED: &str = "Can not update config in black list.";

fn update(body: &str, opaque: i32) -> RemotingCommand {
    request(RequestCode::UpdateNamesrvConfig, opaque, &[]).with_body(body.as_bytes().to_vec())
}

fn get_config(peer: &mut Peer) -> String {
    let reply = peer.call(&request(RequestCode::GetNamesrvConfig, 1000, &[]));
    assert_eq!(reply.code, 0);
    String::from_utf8(reply.body).unwrap()
}

/// Sends each body as an UPDATE_NAMESRV_CONFIG and checks: NO_PERMISSION with `remark` (or
/// starting with it, when it ends in "; ");
/// the properties file, the KV directory and GET_NAMESRV_CONFIG unchanged; nothing written
/// where the attacker pointed (`evil`, inside the daemon's home).
#[track_caller]
fn assert_refused(bodies: &[&str], remark: &str) {
    assert_refused_with(bodies, NO_PERMISSION, remark);
}

/// [`assert_refused`] with the expected response code.
fn assert_refused_with(bodies: &[&str], code: i32, remark: &str) {
    // Java's mode: these refusals hold even where every key Java knows may change.
    let server = Server::start(&[("productEnvName", "center")], &["--remote-config", "all"]);
    let evil = server.home.path().join("evil");
    let file_before = fs::read(&server.properties).unwrap();
    let mut peer = server.peer();
    let config_before = get_config(&mut peer);
    for (opaque, body) in (1..).zip(bodies) {
        let body = body.replace("$EVIL", &evil.display().to_string());
        let reply = peer.call(&update(&body, opaque));
        assert_eq!((reply.code, reply.opaque), (code, opaque), "{body:?}: {reply:?}");
        let said = reply.remark.unwrap_or_default();
        assert!(said == remark || (remark.ends_with("; ") && said.starts_with(remark)), "{body:?}: {said}");
    }
    // The connection is still served, and nothing changed anywhere.
    assert_eq!(get_config(&mut peer), config_before, "a refused update changed the configuration");
    assert_eq!(fs::read(&server.properties).unwrap(), file_before, "the persisted configuration file changed");
    assert!(!evil.exists(), "something was written where the attacker pointed");
    assert_no_temp_files(server.home.path());
    assert!(!server.kv.exists(), "no KV file appeared");
}

fn assert_no_temp_files(dir: &Path) {
    for entry in fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name();
        let name = name.to_string_lossy();
        assert!(!name.ends_with(".tmp") && !name.ends_with(".bak"), "{name} appeared");
    }
}

#[test]
fn cve_2023_33246_rocketmq_home_is_refused_over_tcp() {
    assert_refused(
        &[
            "rocketmqHome=-c $@|sh . echo curl 127.0.0.1:9999/x;\n",
            "rocketmqHome=$EVIL\n",
            // Mixed with an updatable key: all or nothing.
            "productEnvName=pwned\nrocketmqHome=$EVIL\n",
        ],
        BLACK_LISTED,
    );
}

#[test]
fn cve_2023_33246_kv_config_path_is_refused_over_tcp() {
    assert_refused(
        &["kvConfigPath=$EVIL/kvConfig.json\n", "enableAllTopicList=false\nkvConfigPath=$EVIL\n"],
        BLACK_LISTED,
    );
}

#[test]
fn cve_2023_37582_config_store_path_is_refused_over_tcp() {
    assert_refused(
        &[
            // The published exploit: move the store, then a value with a line of its own.
            "configStorePath=$EVIL/cron\nproductEnvName=* * * * * root sh -c id\n",
            "configStorePath=$EVIL\n",
        ],
        BLACK_LISTED,
    );
}

#[test]
fn cve_2023_37582_config_store_path_name_is_refused_over_tcp() {
    // The key the first fix checked by mistake. It names nothing here (nor in Java), and a key
    // Java does not know is refused.
    assert_refused_with(
        &["configStorePathName=$EVIL\n"],
        INVALID_PARAMETER,
        "Can not update config configStorePathName: not a NamesrvConfig or NettyServerConfig key",
    );
}

#[test]
fn cve_2023_37582_config_black_list_is_refused_over_tcp() {
    // Emptying the black list would unlock the keys above.
    assert_refused(&["configBlackList=\n", "configBlackList=nothing\nconfigStorePath=$EVIL\n"], BLACK_LISTED);
}

#[test]
fn cve_2023_37582_spellings_of_a_path_key_are_refused_over_tcp() {
    // Java's properties syntax offers other spellings of the same key: escapes, ':' or a space
    // as separator, leading blanks, line continuations. They all read as `configStorePath`.
    assert_refused(
        &[
            "configStore\\u0050ath=$EVIL\n",
            "  configStorePath : $EVIL\n",
            "configStorePath $EVIL\n",
            "configStore\\\n    Path=$EVIL\n",
            "\\u006bvConfigPath=$EVIL\n",
            "# comment\n! comment\nrocketmqHome\t=$EVIL\n",
        ],
        BLACK_LISTED,
    );
}

#[test]
fn cve_2023_37582_unknown_path_like_keys_are_refused_over_tcp() {
    // Unknown keys, which a later version might read as paths, are refused (Java drops them).
    for key in ["brokerConfigPath", "storePathRootDir"] {
        assert_refused_with(
            &[&format!("{key}=$EVIL\n")],
            INVALID_PARAMETER,
            &format!("Can not update config {key}: not a NamesrvConfig or NettyServerConfig key"),
        );
    }
}

#[test]
fn restart_only_keys_are_accepted_persisted_and_said_so_over_tcp() {
    // Java's Configuration.update accepts ports and addresses; they name no path. They apply
    // at the next start, and the reply says so (with `--remote-config all`, Java's mode).
    let server = Server::start(&[], &["--remote-config", "all"]);
    let mut peer = server.peer();
    let reply = peer.call(&update("listenPort=19877\nserverChannelMaxIdleTimeSeconds=60\n", 1));
    assert_eq!(reply.code, 0, "{reply:?}");
    assert_eq!(
        reply.remark.as_deref(),
        Some("takes effect after a restart: listenPort, serverChannelMaxIdleTimeSeconds")
    );
    let persisted = fs::read_to_string(&server.properties).unwrap();
    assert!(persisted.contains("listenPort=19877\n"), "{persisted}");
    // Still served on the port it started with.
    assert_eq!(server.peer().call(&update("", 2)).code, 0);
}

/// By default (`--remote-config runtime`) a key read only at start is refused as if
/// black-listed: a persisted `listenPort=1` would move or stop the daemon at its next start,
/// unseen until then. Keys that apply at once still change; `off` refuses those too.
#[test]
fn restart_only_keys_are_refused_by_default_and_every_key_with_remote_config_off() {
    let server = Server::start(&[], &[]);
    let file_before = fs::read(&server.properties).unwrap();
    let mut peer = server.peer();
    for (opaque, body) in (1..).zip([
        "listenPort=1\n",
        "bindAddress=10.0.0.1\n",
        "serverChannelMaxIdleTimeSeconds=1\n",
        "enableShutdownGracefully=true\n",
        "shutdownWaitTimeSeconds=1\n",
        "enableTopicList=false\nlistenPort=1\n",
    ]) {
        let reply = peer.call(&update(body, opaque));
        assert_eq!((reply.code, reply.remark.as_deref()), (NO_PERMISSION, Some(BLACK_LISTED)), "{body:?}");
    }
    assert!(get_config(&mut peer).contains("enableTopicList=true\n"), "nothing of a refused update applies");
    assert_eq!(fs::read(&server.properties).unwrap(), file_before, "the file is unchanged");
    assert_eq!(peer.call(&update("enableTopicList=false\n", 10)).code, 0, "a runtime key still changes");

    let off = Server::start(&[], &["--remote-config", "off"]);
    let file_before = fs::read(&off.properties).unwrap();
    let mut peer = off.peer();
    let reply = peer.call(&update("enableTopicList=false\n", 1));
    assert_eq!((reply.code, reply.remark.as_deref()), (NO_PERMISSION, Some(BLACK_LISTED)));
    assert_eq!(fs::read(&off.properties).unwrap(), file_before);
}

#[test]
fn cve_2023_37582_a_line_break_in_a_value_is_refused_over_tcp() {
    // The content half of the exploit: a value that would write lines of its own into the
    // persisted file. INVALID_PARAMETER (29), nothing applied or written.
    let server = Server::start(&[], &[]);
    let file_before = fs::read(&server.properties).unwrap();
    let mut peer = server.peer();
    for (opaque, body) in [(1, "productEnvName=x\\nconfigStorePath=/tmp/x\n"), (2, "productEnvName=a\\rb\n")] {
        let reply = peer.call(&update(body, opaque));
        assert_eq!(reply.code, 29, "{body:?}: {reply:?}");
    }
    assert!(get_config(&mut peer).contains("productEnvName=center\n"));
    assert_eq!(fs::read(&server.properties).unwrap(), file_before);
}

#[test]
fn a_configured_black_list_is_honoured_over_tcp() {
    let server =
        Server::start(&[("configBlackList", "configBlackList;configStorePath;kvConfigPath;productEnvName")], &[]);
    let file_before = fs::read(&server.properties).unwrap();
    let mut peer = server.peer();
    let reply = peer.call(&update("productEnvName=x\n", 1));
    assert_eq!((reply.code, reply.remark.as_deref()), (NO_PERMISSION, Some(BLACK_LISTED)));
    assert_eq!(fs::read(&server.properties).unwrap(), file_before);
}

#[test]
fn an_allowed_key_is_applied_and_persisted_over_tcp() {
    // The control: the file above stays unchanged because the update was refused, not
    // because updates are never written.
    let server = Server::start(&[], &[]);
    let mut peer = server.peer();
    let reply = peer.call(&update("enableAllTopicList=false\n", 1));
    assert_eq!(reply.code, 0, "{reply:?}");
    let text = support::eventually_blocking("the update is persisted", || {
        fs::read_to_string(&server.properties).ok().filter(|text| text.contains("enableAllTopicList=false\n"))
    });
    assert!(text.contains(&format!("kvConfigPath={}\n", server.kv.display())), "{text}");
    assert!(get_config(&mut peer).contains("enableAllTopicList=false\n"));
}

/// A number its Java type cannot hold would be persisted and overflow a deadline at the next
/// start (`hostile::startup`): refused with INVALID_PARAMETER, nothing changed.
#[test]
fn numbers_outside_their_java_type_are_refused_over_tcp() {
    for (key, value, min, max) in [
        ("serverChannelMaxIdleTimeSeconds", "18446744073709551615", 0, i64::from(i32::MAX)),
        ("shutdownWaitTimeSeconds", "18446744073709551615", 0, i64::from(i32::MAX)),
        ("waitSecondsForService", "2147483648", 0, i64::from(i32::MAX)),
        ("scanNotActiveBrokerInterval", "0", 1, i64::MAX),
    ] {
        let remark = format!("invalid value `{value}` for {key}: expected an integer from {min} to {max}");
        assert_refused_with(&[&format!("{key}={value}\n")], INVALID_PARAMETER, &remark);
    }
}

/// Broker and cluster names outside Java's topic charset register, as in Java, and the log
/// says so once per name (escaped), however often they register again.
#[test]
fn names_outside_javas_charset_register_with_one_warning_each() {
    let server = Server::start(&[], &[]);
    let mut peer = server.peer();
    let (cluster, broker, addr) = ("c l", "<b>x</b>", "127.0.0.1:10911");
    for round in 0..4 {
        let register = reliability::register(cluster, broker, addr, &["T1", "T2"], round * 2);
        assert_eq!(peer.call(&register).code, 0, "round {round}");
        let fields = [("clusterName", cluster), ("brokerName", broker), ("brokerAddr", addr), ("brokerId", "0")];
        assert_eq!(peer.call(&request(RequestCode::UnregisterBroker, round * 2 + 1, &fields)).code, 0);
    }
    // The owner warns about a name before it takes the next request, but its event lines
    // ("new broker registered") are written by a thread of their own: wait for those.
    assert_eq!(peer.call(&request(RequestCode::GetBrokerClusterInfo, 99, &[])).code, 0);
    let log = support::eventually_blocking("four registrations in the log", || {
        let log = server.daemon.log();
        (log.matches("new broker registered").count() >= 4).then_some(log)
    });
    let count = |text: &str| log.lines().filter(|line| line.contains(text)).count();
    assert_eq!(count("new broker registered"), 4, "{log}");
    let warnings = log.lines().filter(|line| line.contains("WARN") && line.contains("outside Java's charset"));
    assert_eq!(warnings.count(), 2, "{log}");
    assert_eq!(count(r#"the broker name "<b>x</b>" is outside Java's charset ^[%|a-zA-Z0-9_-]+$"#), 1, "{log}");
    assert_eq!(count(r#"the cluster name "c l" is outside Java's charset ^[%|a-zA-Z0-9_-]+$"#), 1, "{log}");
}
