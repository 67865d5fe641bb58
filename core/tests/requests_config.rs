//! UPDATE_NAMESRV_CONFIG (318) and GET_NAMESRV_CONFIG (319).
//!
//! One NameServer driven through `Input::Received`, request code by request code
//! (PROTOCOL.md §5–§11): codes, remarks in Java's wording, response extFields and bodies byte
//! for byte where PROTOCOL.md gives them.
//!
//! Every test goes through [`Ns::check`], which asserts the reply invariants (exactly one
//! response, on the requesting connection, echoing `opaque`, flag exactly RESPONSE) and hands
//! the reply back.

mod common;

use nameserver_core::Output;
use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode};

use common::requests::*;

// ---------------------------------------------------------------------------------------------
// UPDATE_NAMESRV_CONFIG (318), GET_NAMESRV_CONFIG (319)
// ---------------------------------------------------------------------------------------------

fn update_config(body: &str) -> RemotingCommand {
    request(RequestCode::UpdateNamesrvConfig, &[]).with_body(body.as_bytes().to_vec())
}

fn get_config(ns: &mut Ns) -> String {
    let reply = ns.ask(RequestCode::GetNamesrvConfig, &[]);
    assert_ok(&reply);
    text(&reply).to_string()
}

/// Sends an update that must be refused as black-listed, and checks nothing changed.
#[track_caller]
fn assert_black_listed(body: &str) {
    let mut ns = Ns::new();
    let before = get_config(&mut ns);
    let reply = ns.check(ADMIN, update_config(body));
    assert_reply(&reply, ResponseCode::NoPermission, Some("Can not update config in black list."));
    assert_eq!(reply.response_code().raw(), 16);
    assert!(!ns.out.iter().any(|o| matches!(o, Output::PersistConfig(_))), "nothing persisted");
    assert_eq!(get_config(&mut ns), before, "nothing applied");
}

#[test]
fn cve_2023_33246_rocketmq_home_is_refused() {
    assert_black_listed("rocketmqHome=-c $@|sh . echo curl 127.0.0.1:9999/x;\n");
}

#[test]
fn cve_2023_37582_config_store_path_is_refused() {
    assert_black_listed("configStorePath=/etc/cron.d/x\nproductEnvName=* * * * * root sh -c id\n");
}

#[test]
fn kv_config_path_is_refused() {
    assert_black_listed("kvConfigPath=/tmp/kv.json");
}

#[test]
fn config_black_list_itself_is_refused() {
    assert_black_listed("configBlackList=");
}

#[test]
fn configured_black_list_is_refused_too() {
    let mut ns =
        Ns::with(|c| c.config_black_list = "configBlackList;configStorePath;kvConfigPath;productEnvName".into());
    let reply = ns.check(ADMIN, update_config("productEnvName=x"));
    assert_reply(&reply, ResponseCode::NoPermission, Some("Can not update config in black list."));
}

/// Java's DefaultRequestProcessor.updateConfig hands every key to Configuration.update, which
/// sets any NamesrvConfig or NettyServerConfig field: `mqadmin updateNamesrvConfig -k
/// clientRequestThreadPoolNums -v 16` succeeds there, so it does here, and is persisted.
#[test]
fn every_key_java_knows_is_accepted_and_persisted_like_javas_configuration_update() {
    let mut ns = Ns::new();
    let reply =
        ns.check(ADMIN, update_config("clientRequestThreadPoolNums=16\nlistenPort=9877\nenableTopicList=false\n"));
    assert_eq!(reply.response_code(), ResponseCode::Success);
    assert_eq!(
        reply.remark.as_deref(),
        Some(
            "takes effect after a restart: listenPort; kept with no effect in this NameServer: clientRequestThreadPoolNums"
        ),
        "the reply says which keys did not take effect at once"
    );
    let persisted = ns
        .out
        .iter()
        .find_map(|o| match o {
            Output::PersistConfig(bytes) => Some(String::from_utf8(bytes.clone()).unwrap()),
            _ => None,
        })
        .expect("persisted");
    assert!(persisted.contains("clientRequestThreadPoolNums=16\n") && persisted.contains("listenPort=9877\n"));
    let logged = ns.events().iter().map(ToString::to_string).find(|e| e.starts_with("updateConfig,")).unwrap();
    assert!(logged.contains("takes effect after a restart: listenPort"), "{logged}");
    let config = get_config(&mut ns);
    assert!(config.contains("clientRequestThreadPoolNums=16\n") && config.contains("enableTopicList=false\n"));
    // A runtime switch alone takes effect at once: Java's plain SUCCESS, no remark.
    assert_ok(&ns.check(ADMIN, update_config("enableTopicList=true")));
}

/// Java's Configuration.update ignores a key no config object has; here it is refused, so a
/// misspelt key is not silently lost.
#[test]
fn an_unknown_key_is_refused_with_a_clear_remark() {
    let mut ns = Ns::new();
    let reply = ns.check(ADMIN, update_config("enableTopicList=false\nlistenPrt=1"));
    assert_reply(
        &reply,
        ResponseCode::InvalidParameter,
        Some("Can not update config listenPrt: not a NamesrvConfig or NettyServerConfig key"),
    );
    assert!(!ns.out.iter().any(|o| matches!(o, Output::PersistConfig(_))));
    assert!(get_config(&mut ns).contains("enableTopicList=true\n"), "all or nothing");
    // A key kept as text still has Java's type.
    let reply = ns.check(ADMIN, update_config("serverWorkerThreads=many"));
    assert_eq!(reply.response_code(), ResponseCode::InvalidParameter);
}

#[test]
fn an_invalid_value_is_invalid_parameter() {
    let mut ns = Ns::new();
    for body in [
        "enableTopicList=maybe",
        "scanNotActiveBrokerInterval=0",
        "productEnvName=a\\nb",
        "enableAllTopicList=false\nwaitSecondsForService=x",
    ] {
        let reply = ns.check(ADMIN, update_config(body));
        assert_eq!(reply.response_code(), ResponseCode::InvalidParameter, "{body}");
        assert_eq!(reply.response_code().raw(), 29);
        assert!(!ns.out.iter().any(|o| matches!(o, Output::PersistConfig(_))));
    }
    assert!(get_config(&mut ns).contains("enableAllTopicList=true\n"), "all or nothing");
}

#[test]
fn a_good_update_applies_persists_and_shows_in_get() {
    let mut ns = Ns::new();
    let reply = ns.check(ADMIN, update_config("enableAllTopicList=false\nproductEnvName=prod env\n"));
    assert_ok(&reply);
    let persisted = ns
        .out
        .iter()
        .find_map(|o| match o {
            Output::PersistConfig(bytes) => Some(String::from_utf8(bytes.clone()).unwrap()),
            _ => None,
        })
        .expect("PersistConfig");
    assert!(persisted.contains("enableAllTopicList=false\n"));
    assert!(persisted.contains("productEnvName=prod env\n"));
    let parsed = nameserver_core::properties::parse(&persisted).unwrap();
    assert_eq!(parsed["kvConfigPath"], "/home/rmq/namesrv/kvConfig.json");
    let listed = get_config(&mut ns);
    assert!(listed.contains("enableAllTopicList=false\n"));
    assert!(listed.contains("productEnvName=prod env\n"));
    // Takes effect at once.
    assert_reply(&ns.ask(RequestCode::GetAllTopicListFromNameserver, &[]), ResponseCode::SystemError, Some("disable"));
}

#[test]
fn empty_update_changes_nothing_and_bad_properties_are_system_errors() {
    let mut ns = Ns::new();
    assert_ok(&ns.check(ADMIN, request(RequestCode::UpdateNamesrvConfig, &[])));
    assert!(ns.out.iter().all(|o| !matches!(o, Output::PersistConfig(_))));
    let reply = ns.check(ADMIN, update_config("a=\\u12"));
    assert_eq!(reply.response_code(), ResponseCode::SystemError);
    assert!(reply.remark.as_deref().unwrap().starts_with("string2Properties error"));
}

#[test]
fn get_config_lists_every_key_sorted_unescaped() {
    let mut ns = Ns::new();
    let listed = get_config(&mut ns);
    let keys: Vec<&str> = listed.lines().map(|l| l.split_once('=').unwrap().0).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted);
    for line in [
        "rocketmqHome=/opt/rocketmq",
        "kvConfigPath=/home/rmq/namesrv/kvConfig.json",
        "configStorePath=/home/rmq/namesrv/namesrv.properties",
        "configBlackList=configBlackList;configStorePath;kvConfigPath",
        "scanNotActiveBrokerInterval=5000",
        "listenPort=9876",
        "serverChannelMaxIdleTimeSeconds=120",
        "orderMessageEnable=false",
        "returnOrderTopicConfigToBroker=true",
    ] {
        assert!(listed.lines().any(|l| l == line), "{line}");
    }
}
