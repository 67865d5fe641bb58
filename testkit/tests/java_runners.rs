//! The Java runners end to end: a Java NameServer, a Java broker registering with it, and
//! mqadmin listing the cluster. Needs Java 17 and Maven Central (`--ignored`); slow (three JVMs).

use nameserver_testkit::java::{self, Version};

#[test]
#[ignore = "needs Java 17 and Maven Central; three JVMs"]
fn a_java_broker_registers_and_mqadmin_lists_it() {
    if java::skip_requested("the Java runners' end-to-end test") {
        return;
    }
    let version =
        std::env::var("JAVA_RUNNERS_VERSION").ok().and_then(|v| Version::parse(&v)).unwrap_or(Version::V5_5_0);
    let namesrv = java::start_namesrv(version, &[]).unwrap_or_else(|e| panic!("{e}"));
    let addr = namesrv.addr.unwrap();
    let broker = java::start_broker(version, &[addr], &[("brokerClusterName", "RunnerCluster")])
        .unwrap_or_else(|e| panic!("{e}"));
    // The broker registers right after it listens; mqadmin retries nothing, so wait on the
    // NameServer's own answer.
    let start = std::time::Instant::now();
    loop {
        let (code, out) = java::mqadmin(version, addr, &["clusterList"]).unwrap_or_else(|e| panic!("{e}"));
        if code == Some(0) && out.contains("RunnerCluster") && out.contains("broker-a") {
            break;
        }
        assert!(
            start.elapsed() < java::START_GUARD,
            "mqadmin never listed the broker; last output:\n{out}\nbroker log:\n{}",
            broker.log_tail(30)
        );
    }
    drop(broker);
    drop(namesrv);
}
