//! A broker leaving: how long after a signal each NameServer still lists it (SIGTERM, kill -9,
//! SIGSTOP), Java's time first. A figure each, compared as a ratio, never a bound: both must
//! drop the broker within the one hang guard.

use std::net::SocketAddr;
use std::process::Command;
use std::time::{Duration, Instant};

use super::{HANG_GUARD, await_state, listed};

/// The idle time (`serverChannelMaxIdleTimeSeconds`) both NameServers of a cluster run with,
/// so that a stopped broker's silent connection is closed in the run rather than after Java's
/// default 120 s.
pub(crate) const IDLE_SECONDS: &str = "30";

/// How often the brokers register (`registerNameServerPeriod`, ms; the broker's floor): well
/// inside [`IDLE_SECONDS`], so a running broker's connection is never idle.
pub(crate) const REGISTER_PERIOD_MS: &str = "10000";

/// How long a removal took on each NameServer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Removal {
    pub(crate) java: Duration,
    pub(crate) ours: Duration,
}

impl Removal {
    /// Ours' time as a ratio of Java's, and who dropped the broker first.
    pub(crate) fn describe(self) -> String {
        let ratio = self.ours.as_secs_f64() / self.java.as_secs_f64().max(0.001);
        let first = if self.ours <= self.java { "ours" } else { "Java" };
        format!(
            "{ratio:.2}x Java's time ({first} first; Java {:.2} s, ours {:.2} s)",
            self.java.as_secs_f64(),
            self.ours.as_secs_f64()
        )
    }
}

/// Sends `signal` to `pid`.
pub(crate) fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill").args([&format!("-{signal}"), &pid.to_string()]).status().unwrap();
    assert!(status.success(), "kill -{signal} {pid}: {status}");
}

/// Sends `sig` to the broker `pid` at `broker`, then waits until neither NameServer lists it;
/// how long each took.
pub(crate) fn signal_until_gone(
    what: &str,
    pid: u32,
    sig: &str,
    broker: &str,
    java: SocketAddr,
    ours: SocketAddr,
) -> Removal {
    let start = Instant::now();
    signal(pid, sig);
    let (mut java_gone, mut ours_gone) = (None, None);
    while java_gone.is_none() || ours_gone.is_none() {
        if java_gone.is_none() && !listed(java).contains(broker) {
            java_gone = Some(start.elapsed());
        }
        if ours_gone.is_none() && !listed(ours).contains(broker) {
            ours_gone = Some(start.elapsed());
        }
        assert!(
            start.elapsed() < HANG_GUARD,
            "{what}: after SIG{sig} the broker is still listed (Java gone: {java_gone:?}, ours: {ours_gone:?})"
        );
        // Polling both servers' answers: the removal has no notification to wait on.
        std::thread::sleep(Duration::from_millis(10));
    }
    Removal { java: java_gone.unwrap(), ours: ours_gone.unwrap() }
}

/// SIGSTOP to the broker: silent, its connections stay open until each NameServer's idle close
/// drops it. Then SIGCONT: it registers again with both. How long each took to drop it.
pub(crate) fn stop_and_continue(what: &str, pid: u32, broker: &str, java: SocketAddr, ours: SocketAddr) -> Removal {
    let removal = signal_until_gone(what, pid, "STOP", broker, java, ours);
    signal(pid, "CONT");
    await_state(&format!("{what}: the broker listed by both again after SIGCONT"), || {
        listed(java).contains(broker) && listed(ours).contains(broker)
    });
    removal
}
