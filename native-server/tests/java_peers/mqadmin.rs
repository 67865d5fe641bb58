//! The mqadmin commands run against both NameServers, and the one normaliser their output goes
//! through before it is compared.

use std::sync::LazyLock;

use regex::{Captures, Regex};

/// One mqadmin command of the run: a line of `mqadmin.commands`.
#[derive(Debug)]
pub(crate) struct Command {
    /// Its name in the comparison (`peers/mqadmin:<case>`).
    pub(crate) case: String,
    /// The arguments, before `-n`.
    pub(crate) args: Vec<String>,
    /// The request code it mostly sends to the NameServer (the table's `code` cell).
    pub(crate) code: i32,
    /// Text both outputs must hold: the command ran (4.9.x mqadmin exits 0 on a logging
    /// failure that runs nothing, so the exit code alone proves nothing).
    pub(crate) expect: String,
    /// It changes the broker (which both NameServers share): its phase runs against Java
    /// first, then against ours, never at once.
    pub(crate) changes_broker: bool,
}

/// The topic the run creates and deletes (`$TOPIC` in `mqadmin.commands`).
pub(crate) const TOPIC: &str = "PeerTopic";

/// The command list, one file so that the test and `scripts/interop/java-e2e.sh` (which runs
/// this test with larger counts) cannot drift apart.
const COMMANDS: &str = include_str!("mqadmin.commands");

/// The run, in phases: the commands of a phase run one after another in one JVM for each
/// NameServer; a phase starts when the one before has finished. After the phase that creates [`TOPIC`],
/// the test waits until both NameServers route it.
pub(crate) fn phases() -> Vec<Vec<Command>> {
    parse(COMMANDS).unwrap_or_else(|e| panic!("native-server/tests/java_peers/mqadmin.commands: {e}"))
}

/// The phases of a commands file (its format is described at its top).
fn parse(text: &str) -> Result<Vec<Vec<Command>>, String> {
    let mut phases: Vec<Vec<Command>> = Vec::new();
    for (n, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line == "phase" {
            phases.push(Vec::new());
            continue;
        }
        let fields: Vec<&str> = line.split(" | ").map(str::trim).collect();
        let [case, code, expect, runs, args] = fields[..] else {
            return Err(format!("line {n}: 5 fields separated by ` | `, not {}", fields.len()));
        };
        let changes_broker = match runs {
            "both" => false,
            "broker" => true,
            other => return Err(format!("line {n}: runs is `both` or `broker`, not `{other}`")),
        };
        let command = Command {
            case: case.to_string(),
            args: args.split_whitespace().map(|a| a.replace("$TOPIC", TOPIC)).collect(),
            code: code.parse().map_err(|e| format!("line {n}: code `{code}`: {e}"))?,
            expect: expect.to_string(),
            changes_broker,
        };
        phases.last_mut().ok_or_else(|| format!("line {n}: a command before the first `phase`"))?.push(command);
    }
    if phases.iter().any(Vec::is_empty) {
        return Err(String::from("a phase without commands"));
    }
    Ok(phases)
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
    (
        "timer backlog",
        "clusterList's timer progress `readBehind-offsetBehind(` reads `<live>(`: the broker's own timer backlog, read from the broker itself",
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
        .map(|l| figures(&times(&timer(&live(&own(&l))))))
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

/// clusterList's `0-0(0.0w, 0.0, 0.0)` → `<live>(0.0w, 0.0, 0.0)`: how far the broker's timer
/// is behind when asked (a message more or less in one run than in the other).
fn timer(line: &str) -> String {
    static PROGRESS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(^|\s)-?\d+--?\d+\(").unwrap());
    PROGRESS.replace_all(line, "${1}<live>(").into_owned()
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
    use super::{normalise, parse, phases};

    #[test]
    fn the_command_list_parses_and_a_malformed_line_is_refused() {
        let all = phases();
        assert_eq!(all.iter().map(Vec::len).sum::<usize>(), 29);
        let create = all.iter().flatten().find(|c| c.case == "updateTopic").expect("updateTopic");
        assert!(create.changes_broker && create.args.contains(&String::from("PeerTopic")), "{create:?}");
        assert!(parse("a | 1 | x | both | a\n").unwrap_err().contains("before the first"));
        assert!(parse("phase\na | 1 | x | once | a\n").unwrap_err().contains("line 2"));
        assert!(parse("phase\na | 1 | x\n").unwrap_err().contains("5 fields"));
    }

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
        let cluster = "TestCluster  broker-a  0  127.0.0.1:10911  V5_5_0  1-0(0.0w, 0.0, 0.0)  0  true\n";
        assert_eq!(
            normalise(cluster, &addrs),
            ["TestCluster  broker-a  0  127.0.0.1:10911  V5_5_0  <live>(<n.n>w, <n.n>, <n.n>)  0  true"]
        );
        assert_eq!(normalise("range 1-2 f(x)\n", &addrs), ["range 1-2 f(x)"], "only a count pair right before `(`");
        let status = "127.0.0.1:10911          putTps                          : 0.0 1.5\n";
        assert_eq!(normalise(status, &addrs), ["127.0.0.1:10911          putTps                          : <live>"]);
    }
}
