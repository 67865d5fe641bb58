//! The mqadmin commands run against both NameServers, and the one normaliser their output goes
//! through before it is compared.

use std::sync::LazyLock;

use regex::{Captures, Regex};

/// One mqadmin command of the run.
pub(crate) struct Command {
    /// Its name in the comparison (`peers/mqadmin/<case>`).
    pub(crate) case: &'static str,
    /// The arguments, before `-n`.
    pub(crate) args: &'static [&'static str],
    /// The request code it mostly sends to the NameServer (the table's `code` cell).
    pub(crate) code: i32,
    /// Text both outputs must hold: the command ran (4.9.x mqadmin exits 0 on a logging
    /// failure that runs nothing, so the exit code alone proves nothing).
    pub(crate) expect: &'static str,
    /// It changes the broker (which both NameServers share): run against Java first, then
    /// against ours, never at once.
    pub(crate) changes_broker: bool,
}

const fn cmd(case: &'static str, args: &'static [&'static str], code: i32, expect: &'static str) -> Command {
    Command { case, args, code, expect, changes_broker: false }
}

const fn broker_cmd(case: &'static str, args: &'static [&'static str], code: i32, expect: &'static str) -> Command {
    Command { case, args, code, expect, changes_broker: true }
}

/// The topic the run creates and deletes.
pub(crate) const TOPIC: &str = "PeerTopic";

/// The run, in phases: the commands of a phase run at once (each against both NameServers);
/// a phase starts when the one before has finished. After the phase that creates [`TOPIC`],
/// the test waits until both NameServers route it.
pub(crate) fn phases() -> Vec<Vec<Command>> {
    vec![
        vec![
            cmd("clusterList", &["clusterList"], 106, "TestCluster"),
            cmd("clusterList-more", &["clusterList", "-m"], 106, "TestCluster"),
            cmd("topicList", &["topicList"], 206, "TestCluster"),
            cmd("topicList-cluster", &["topicList", "-c"], 106, "TestCluster"),
            cmd("getNamesrvConfig", &["getNamesrvConfig"], 319, "kvConfigPath"),
        ],
        vec![broker_cmd(
            "updateTopic",
            &["updateTopic", "-c", "TestCluster", "-t", TOPIC, "-r", "4", "-w", "4"],
            106,
            "success",
        )],
        vec![
            cmd("topicRoute", &["topicRoute", "-t", TOPIC], 105, "brokerDatas"),
            cmd("topicStatus", &["topicStatus", "-t", TOPIC], 105, "#Broker Name"),
            cmd("topicClusterList", &["topicClusterList", "-t", TOPIC], 105, "TestCluster"),
            cmd("allocateMQ", &["allocateMQ", "-t", TOPIC, "-i", "10.0.0.1,10.0.0.2"], 105, "10.0.0.1"),
            cmd("brokerStatus", &["brokerStatus", "-c", "TestCluster"], 106, "brokerVersionDesc"),
            cmd("getBrokerConfig", &["getBrokerConfig", "-c", "TestCluster"], 106, "brokerClusterName"),
            cmd(
                "updateKvConfig",
                &["updateKvConfig", "-s", "PeerNamespace", "-k", "peerKey", "-v", "peerValue"],
                100,
                "success",
            ),
        ],
        vec![
            cmd("deleteKvConfig", &["deleteKvConfig", "-s", "PeerNamespace", "-k", "peerKey"], 102, "success"),
            cmd("wipeWritePerm", &["wipeWritePerm", "-b", "broker-a"], 205, "wipe write perm of broker[broker-a]"),
            cmd("statsAll", &["statsAll"], 206, "#Topic"),
            cmd(
                "updateNamesrvConfig",
                &["updateNamesrvConfig", "-k", "orderMessageEnable", "-v", "true"],
                318,
                "success",
            ),
        ],
        vec![
            cmd("topicRoute-wiped", &["topicRoute", "-t", TOPIC], 105, "brokerDatas"),
            cmd("getNamesrvConfig-updated", &["getNamesrvConfig"], 319, "orderMessageEnable"),
        ],
        vec![cmd("addWritePerm", &["addWritePerm", "-b", "broker-a"], 327, "add write perm of broker[broker-a]")],
        vec![
            cmd("topicRoute-restored", &["topicRoute", "-t", TOPIC], 105, "brokerDatas"),
            broker_cmd("updateSubGroup", &["updateSubGroup", "-c", "TestCluster", "-g", "PeerGroup"], 106, "success"),
        ],
        vec![broker_cmd("deleteSubGroup", &["deleteSubGroup", "-c", "TestCluster", "-g", "PeerGroup"], 106, "success")],
        // The order configuration last but one: a broker told by a registration reply that a
        // topic is ordered bumps its data version, and its next registration restores the
        // write permission wipeWritePerm removed (4.9.7).
        vec![cmd(
            "updateOrderConf-put",
            &["updateOrderConf", "-t", TOPIC, "-v", "broker-a:4", "-m", "put"],
            100,
            "success",
        )],
        vec![cmd("updateOrderConf-get", &["updateOrderConf", "-t", TOPIC, "-m", "get"], 101, "broker-a:4")],
        vec![
            cmd("updateOrderConf-delete", &["updateOrderConf", "-t", TOPIC, "-m", "delete"], 102, "success"),
            broker_cmd("deleteTopic", &["deleteTopic", "-c", "TestCluster", "-t", TOPIC], 216, "success"),
        ],
        vec![
            cmd("topicRoute-deleted", &["topicRoute", "-t", TOPIC], 105, "No topic route info"),
            cmd("topicList-after", &["topicList"], 206, "TestCluster"),
        ],
    ]
}

/// What [`normalise`] does, rule by rule, as docs/PROTOCOL.md §18 lists it.
pub(crate) const RULES: &[(&str, &str)] = &[
    ("logging", "lines the JVM or the logging library prints (warnings, logback status) are dropped"),
    (
        "namesrv",
        "the NameServers' addresses (the one asked, and the other in the broker's `namesrvAddr`) read `<namesrv>`",
    ),
    (
        "own files",
        "getNamesrvConfig: the values of listenPort, rocketmqHome, kvConfigPath and configStorePath (each server's own port and temporary directory) read `<own>`",
    ),
    ("times", "dates, clock times and epoch milliseconds read `<time>`"),
    (
        "broker figures",
        "brokerStatus's `address key : value` lines keep the key: the values are the broker's live counters, read from the broker itself",
    ),
    ("figures", "decimal figures (TPS, load, disk ratios, response times) read `<n.n>`"),
    ("sets", "lines are sorted: mqadmin prints Java sets and hash maps in hash order"),
];

/// The one normaliser: `output` of a command run against the NameServer at `namesrv`.
pub(crate) fn normalise(output: &str, namesrvs: &[String]) -> Vec<String> {
    let mut lines: Vec<String> = output
        .lines()
        .filter(|l| !is_noise(l))
        .map(|l| namesrvs.iter().fold(l.to_string(), |l, addr| l.replace(addr.as_str(), "<namesrv>")))
        .map(|l| figures(&times(&live(&own(&l)))))
        .map(|l| l.trim_end().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    lines.sort();
    lines
}

fn is_noise(line: &str) -> bool {
    line.starts_with("WARNING: ")
        || line.starts_with("OpenJDK 64-Bit Server VM warning")
        || line.contains(" |-INFO in ")
        || line.contains(" |-WARN in ")
        || line.starts_with("SLF4J: ")
}

/// brokerStatus's `127.0.0.1:10911   putTps   : 0.0 0.0` → `127.0.0.1:10911   putTps   : <live>`.
fn live(line: &str) -> String {
    let mut words = line.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some(addr), Some(_key), Some(":")) if addr.parse::<std::net::SocketAddr>().is_ok() => {
            let at = line.find(" : ").map_or(line.len(), |i| i + 3);
            format!("{}<live>", &line[..at])
        }
        _ => line.to_string(),
    }
}

/// The getNamesrvConfig lines of each server's own port and files.
fn own(line: &str) -> String {
    match line.split_once('=') {
        Some((key, _)) if OWN_KEYS.contains(&key.trim()) => format!("{key}=  <own>"),
        _ => line.to_string(),
    }
}

const OWN_KEYS: [&str; 4] = ["listenPort", "rocketmqHome", "kvConfigPath", "configStorePath"];

/// Dates and clock times, and 13-digit runs (epoch milliseconds), as `<time>`.
fn times(line: &str) -> String {
    static DATE_TIME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d*)?").unwrap());
    // A run of digits after no digit or dot (regex has no look-behind: the character before is kept).
    static DIGITS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(^|[^\d.])(\d+)").unwrap());
    let line = DATE_TIME.replace_all(line, "<time>");
    DIGITS
        .replace_all(
            &line,
            |c: &Captures<'_>| {
                if c[2].len() == 13 { format!("{}<time>", &c[1]) } else { c[0].to_string() }
            },
        )
        .into_owned()
}

/// `12.5`, `0.0000` → `<n.n>`; not an IP address or a version (a second dot follows).
fn figures(line: &str) -> String {
    static FIGURE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(^|[^[:alnum:].])(\d+\.\d+)(\.?)").unwrap());
    FIGURE
        .replace_all(
            line,
            |c: &Captures<'_>| {
                if c[3].is_empty() { format!("{}<n.n>", &c[1]) } else { c[0].to_string() }
            },
        )
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::normalise;

    #[test]
    fn the_normaliser_hides_what_each_run_makes_its_own_and_nothing_else() {
        let out = "WARNING: x\nb 127.0.0.1:9876 2026-12-02 11:30:00,123 1764675000123 0.75 v5.5.0 10.0.0.1\na\n";
        let addrs = [String::from("127.0.0.1:9876")];
        assert_eq!(normalise(out, &addrs), ["a", "b <namesrv> <time> <time> <n.n> v5.5.0 10.0.0.1"]);
        assert_ne!(normalise("a 1\n", &addrs), normalise("a 2\n", &addrs), "integers are kept");
        // Versions, addresses, other digit runs and figures inside words stay.
        let kept = "v1.2.3 10.0.0.1:8080 17646750001234 176467500012 x1.5 1.5.";
        assert_eq!(normalise(&format!("{kept}\n"), &addrs), [kept]);
        assert_eq!(normalise("at 2026-12-02T11:30:00.5, 1764675000123,0.25\n", &addrs), ["at <time>, <time>,<n.n>"]);
        let status = "127.0.0.1:10911          putTps                          : 0.0 1.5\n";
        assert_eq!(normalise(status, &addrs), ["127.0.0.1:10911          putTps                          : <live>"]);
    }
}
