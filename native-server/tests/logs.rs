//! Log lines in RocketMQ's words: registrations, idle closes, unregistrations, expiries, and
//! the KV table printed one minute after start and every ten minutes after.

// A binary of its own: tracing caches whether a log call site is wanted once per process, so
// daemon code that other tests run on threads without a subscriber could hide lines from the
// thread-scoped subscriber these tests capture with.
#[path = "it/support/mod.rs"]
#[allow(dead_code)] // this binary uses a few of the shared helpers
mod support;

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use support::{FrozenClock, TestServer, decode, register_broker_frame};

/// Everything logged on this thread (the current-thread runtime runs every server task here).
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn install(&self) -> tracing::subscriber::DefaultGuard {
        let writer = self.clone();
        let subscriber = tracing_subscriber::fmt().with_ansi(false).with_writer(move || writer.clone()).finish();
        tracing::subscriber::set_default(subscriber)
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }

    /// Waits (yielding to the server's tasks) until a line containing `words` is logged.
    async fn wait_for(&self, words: &str) -> String {
        for _ in 0..10_000 {
            let text = self.text();
            if let Some(line) = text.lines().find(|l| l.contains(words)) {
                return line.to_string();
            }
            tokio::task::yield_now().await;
        }
        panic!("never logged {words:?}; the log is:\n{}", self.text());
    }
}

#[tokio::test(start_paused = true)]
async fn registration_kv_print_and_idle_close_are_logged_as_java_does() {
    let _frozen = FrozenClock::new();
    let log = Captured::default();
    let _guard = log.install();
    let server = TestServer::start_with(|c| {
        c.kv.put("ORDER_TOPIC_CONFIG", "TopicTest", "broker-a:4");
    })
    .await;
    let mut broker = server.client().await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0);
    let registered = log.wait_for("new broker registered").await;
    assert!(registered.contains(" INFO "), "{registered}");
    assert!(registered.ends_with(
        "new broker registered, BrokerAddrInfo [clusterName=DemoCluster, brokerAddr=127.0.0.1:31911] HAService: 127.0.0.1:10912"
    ));

    tokio::time::advance(Duration::from_secs(61)).await;
    log.wait_for("configTable SIZE: 1").await;
    log.wait_for("configTable NS: ORDER_TOPIC_CONFIG Key: TopicTest Value: broker-a:4").await;

    // Exactly 120 s after the last read or write: idle, and not yet expired (that needs more
    // than 120 s since the registration).
    tokio::time::advance(Duration::from_secs(59)).await;
    let idle = log.wait_for("NETTY SERVER PIPELINE: IDLE exception [127.0.0.1:").await;
    assert!(idle.contains(" WARN "), "{idle}");
    log.wait_for("the broker's channel destroyed, 127.0.0.1:31911, clean it's data structure at once").await;
    log.wait_for("unregisterBroker, remove from brokerLiveTable OK, BrokerAddrInfo [clusterName=DemoCluster, brokerAddr=127.0.0.1:31911]").await;
    assert!(!log.text().contains("expired"), "removed for idleness, not by expiry");
}

#[tokio::test(start_paused = true)]
async fn expiry_is_logged_as_java_does() {
    let _frozen = FrozenClock::new();
    let log = Captured::default();
    let _guard = log.install();
    let server = TestServer::start_with(|c| c.namesrv.server_channel_max_idle_time_seconds = 0).await;
    let mut broker = server.client().await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0);
    tokio::time::advance(Duration::from_secs(126)).await;
    let expired = log.wait_for("The broker channel expired").await;
    assert!(expired.contains(" WARN "), "{expired}");
    assert!(expired.ends_with(
        "The broker channel expired, BrokerAddrInfo [clusterName=DemoCluster, brokerAddr=127.0.0.1:31911] 120000ms"
    ));
}
