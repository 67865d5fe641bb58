//! Authentication end to end with Java's own clients (issue 33): our daemon with `--acl-file`
//! and its default policies, a 5.5.0 broker that signs with
//! `innerClientAuthenticationCredentials`, and `mqadmin` of 5.5.0 and 4.9.7 signing with
//! `$ROCKETMQ_HOME/conf/tools.yml`. One broker JVM; no Java NameServer (Java's authenticates
//! nothing, so there is nothing to compare).

use super::{await_state, listed};

use nameserver_testkit::daemon::{Config, Daemon, nameserver_command};
use nameserver_testkit::java::{self, Version};

const ACL: &str = "accounts:\n  - accessKey: rocketmq2\n    secretKey: \"12345678\"\n    admin: true\n  \
                   - accessKey: RocketMQ\n    secretKey: \"87654321\"\n    admin: false\n";
const ADMIN_TOOLS: &str = "accessKey: rocketmq2\nsecretKey: 12345678\n";
const USER_TOOLS: &str = "accessKey: RocketMQ\nsecretKey: 87654321\n";

#[test]
#[ignore = "needs Java 17 and Maven Central: scripts/test.sh runs it in its own step"]
fn a_signing_broker_and_mqadmin_with_tools_yml_pass_our_authentication() {
    if java::skip_requested("the Java authentication run (a signing broker and mqadmin against ours)") {
        return;
    }
    let home = tempfile::Builder::new().prefix("nameserver-auth-").tempdir().unwrap();
    let acl = home.path().join("plain_acl.yml");
    std::fs::write(&acl, ACL).unwrap();
    let config = Config::write(home.path(), &[]);
    let ours = Daemon::spawn_configured(
        nameserver_command(std::path::Path::new(env!("CARGO_BIN_EXE_nameserver")), home.path()),
        "127.0.0.1",
        &config,
        &["--acl-file", acl.to_str().unwrap()],
    );
    let credentials = r#"{"accessKey":"RocketMQ","secretKey":"87654321"}"#;
    // 5.5.0 stores the inner account as a user at start, so it needs ACL 2.0's user store;
    // `authenticationEnabled` stays off (the broker does not check its own clients here).
    let acl2 = [
        ("innerClientAuthenticationCredentials", credentials),
        (
            "authenticationMetadataProvider",
            "org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider",
        ),
    ];
    let broker = java::start_broker(Version::V5_5_0, &[ours.addr], &acl2).unwrap_or_else(|e| panic!("{e}"));
    let broker_addr = broker.addr.expect("listening").to_string();
    await_state("the signing 5.5.0 broker registered under broker=signed", || listed(ours.addr).contains(&broker_addr));
    assert!(!ours.log().contains("refused request code"), "{}", ours.log());

    // The versions' mqadmin runs at once (each JVM start is most of a run's time).
    std::thread::scope(|scope| {
        for version in super::versions() {
            let addr = ours.addr;
            scope.spawn(move || mqadmin_runs(version, addr));
        }
    });
    drop(broker);
}

/// mqadmin of `version` against ours: an unsigned route lookup works; KV writes are refused
/// without tools.yml and with a non-admin key, and pass with an admin key.
fn mqadmin_runs(version: Version, ours: std::net::SocketAddr) {
    let v = version.as_str();
    let run = |args: &[&str], tools: Option<&str>| {
        let (_, output) = java::mqadmin_signing(version, ours, args, tools).unwrap_or_else(|e| panic!("{e}"));
        output
    };
    let route = run(&["topicRoute", "-t", "broker-a"], None);
    assert!(route.contains("brokerDatas"), "{v}: topicRoute unsigned:\n{route}");
    let update = ["updateKvConfig", "-s", "AuthNamespace", "-k", &format!("key-{v}"), "-v", "authValue"];
    let delete = ["deleteKvConfig", "-s", "AuthNamespace", "-k", &format!("key-{v}")];
    let not_admin =
        "User:RocketMQ has no permission to access NameServer:admin-write from 127.0.0.1, no matched policies.";
    for (who, tools, remark) in
        [("no tools.yml", None, "username cannot be null."), ("a non-admin key", Some(USER_TOOLS), not_admin)]
    {
        let output = run(&update, tools);
        assert!(output.contains("CODE: 16") && output.contains(remark), "{v}: updateKvConfig with {who}:\n{output}");
    }
    let output = run(&update, Some(ADMIN_TOOLS));
    assert!(output.contains("success"), "{v}: updateKvConfig with an admin key:\n{output}");
    let output = run(&delete, Some(ADMIN_TOOLS));
    assert!(output.contains("success"), "{v}: deleteKvConfig with an admin key:\n{output}");
    println!(
        "{v}: mqadmin topicRoute unsigned; updateKvConfig refused without tools.yml and with a non-admin key (CODE: 16); update and delete with an admin key"
    );
}
