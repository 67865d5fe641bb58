//! The built-in scenarios S1–S10 of the teaching page, and their variants, as scenario text.

use crate::scenario::Scenario;

/// The base cluster of every scenario: classic 4.9 timings, seed 42, two NameServers, a
/// master/slave group and a master, one producer bound to NS-1 and one consumer bound to NS-2.
pub const BASE: &str = "seed 42
profile 4.9
idle on
latency 2 1
autocreate on
nameserver NS-1 start 0
nameserver NS-2 start 3
broker broker-a group broker-a id 0 start 1
broker broker-a-s group broker-a id 1 start 1.5
broker broker-b group broker-b id 0 start 2
topic TopicTest queues 4 on broker-a broker-b
producer P1 ns NS-1 start 4 topic TopicTest every 1
consumer C1 group CG1 ns NS-2 start 6 topic TopicTest";

/// `(id, title, text)` of every built-in scenario; the text is [`BASE`] plus the lines given.
pub const BUILT_IN: &[(&str, &str, &str)] = &[
    ("S1", "Who talks to whom: registration and discovery", ""),
    (
        "S2",
        "\"No route info of this topic\"",
        // broker-a starts just after P1's send at 20.000 has failed (its two on-demand
        // queries are answered by 20.009), so that send fails and the one at 21 succeeds.
        "broker broker-a start 20.01\nbroker broker-a-s start 20.5\nbroker broker-b start 22",
    ),
    ("S3", "Graceful shutdown unregisters at once, but clients still lag", "at 50 shutdown broker-b"),
    ("S4", "kill -9 is not the 120 s case", "at 50 kill broker-b"),
    ("S5", "Silent failure: the 120 s clock", "at 75 freeze broker-b"),
    ("S5-scan-only", "Silent failure, textbook scan-only model", "idle off\nat 75 freeze broker-b"),
    ("S5-phase", "Silent failure 0.2 s earlier in the heartbeat cycle", "at 71.9 freeze broker-b"),
    (
        "S6",
        "A dead broker still gets sends: sendLatencyFaultEnable off",
        "at 75 freeze broker-b\nat 120 unfreeze broker-b",
    ),
    (
        "S6-fault-4.9",
        "sendLatencyFaultEnable on, 4.9 isolation (600 s)",
        "producer P1 ns NS-1 start 4 topic TopicTest every 1 faulttolerance on\nat 75 freeze broker-b\nat 120 unfreeze broker-b",
    ),
    (
        "S6-fault-5.x",
        "sendLatencyFaultEnable on, 5.x isolation (10 s)",
        "profile 5.x\nproducer P1 ns NS-1 start 4 topic TopicTest every 1 faulttolerance on\nat 75 freeze broker-b\nat 120 unfreeze broker-b",
    ),
    (
        "S7",
        "Two NameServers disagree",
        // Healed at 300: broker-b's 312 registration reaches NS-2, C1's 336.01 poll takes its
        // queues back and it catches up from the offsets it committed when it dropped them.
        "at 75 cut broker-b NS-2\nat 300 heal broker-b NS-2",
    ),
    (
        "S8",
        "Master down, slave alive",
        // C2 starts while the master is down and reads broker-a's backlog from the slave.
        "consumer C2 group CG2 ns NS-1 start 60 topic TopicTest\nat 50 kill broker-a\nat 150 restart broker-a",
    ),
    (
        "S9",
        "NameServers fail",
        // NS-1 comes back at 120, empty until the brokers' registrations at 131–132.
        "producer P2 ns NS-1 start 110 topic TopicTest every 1\nat 50 kill NS-1\nat 100 kill NS-2\nat 120 restart NS-1",
    ),
    (
        "S10",
        "An auto-created topic lands on one broker",
        "producer P1 ns NS-1 start 4 topic NewTopic every 45\nconsumer C1 group CG1 ns NS-2 start 6 topic NewTopic",
    ),
    (
        "S10-burst",
        "Several sends in the first seconds: the topic lands on both brokers",
        // Five sends in a row rotate through the provisional route's 8 queues (4 per broker),
        // so both brokers see NewTopic before P1's 34.01 poll.
        "producer P1 ns NS-1 start 4 topic NewTopic every 45\nconsumer C1 group CG1 ns NS-2 start 6 topic NewTopic\nat 4.5 send P1 5",
    ),
];

/// The full text of a built-in scenario: [`BASE`] with later lines replacing node lines of
/// the same name.
#[must_use]
pub fn built_in_text(id: &str) -> Option<alloc::string::String> {
    let (_, _, extra) = BUILT_IN.iter().find(|(i, _, _)| *i == id)?;
    let mut lines: alloc::vec::Vec<alloc::string::String> = BASE.lines().map(alloc::string::String::from).collect();
    for line in extra.lines() {
        let words: alloc::vec::Vec<&str> = line.split_whitespace().collect();
        let replaces = |existing: &alloc::string::String| {
            let old: alloc::vec::Vec<&str> = existing.split_whitespace().collect();
            match (words.first(), old.first()) {
                (Some(&"broker" | &"producer" | &"consumer" | &"nameserver"), Some(kind)) => {
                    words.len() > 1 && old.len() > 1 && old[0] == *kind && old[1] == words[1]
                }
                (Some(&k), Some(&o)) => matches!(k, "idle" | "profile" | "seed" | "latency" | "autocreate") && k == o,
                _ => false,
            }
        };
        if let Some(existing) = lines.iter_mut().find(|l| replaces(l)) {
            // A node line that only gives a new start time keeps the other options.
            if words[0] == "broker" && words.len() == 4 && words[2] == "start" {
                let mut parts: alloc::vec::Vec<alloc::string::String> =
                    existing.split_whitespace().map(alloc::string::String::from).collect();
                if let Some(i) = parts.iter().position(|p| p == "start") {
                    parts[i + 1] = alloc::string::String::from(words[3]);
                }
                *existing = parts.join(" ");
            } else {
                *existing = alloc::string::String::from(line);
            }
        } else {
            lines.push(alloc::string::String::from(line));
        }
    }
    Some(lines.join("\n"))
}

/// A built-in scenario by id (`S1` … `S10` and their variants).
#[must_use]
pub fn built_in(id: &str) -> Option<Scenario> {
    Scenario::parse(&built_in_text(id)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_parses() {
        for (id, _, _) in BUILT_IN {
            let scenario = built_in(id).unwrap_or_else(|| panic!("{id}"));
            assert!(scenario.nodes.len() >= 7, "{id}");
        }
        let s2 = built_in("S2").unwrap();
        assert_eq!(s2.nodes[2].start().as_millis(), 20_010);
        assert_eq!(s2.nodes.len(), 7);
        let s10 = built_in("S10").unwrap();
        assert!(
            s10.nodes.iter().all(|n| !matches!(n, crate::NodeSpec::Producer { topic, .. } if topic == "TopicTest"))
        );
    }
}
