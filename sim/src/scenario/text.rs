//! The text form of a [`Scenario`]: seed, cluster and timed script in a few lines that fit in a
//! URL.
//!
//! ```text
//! seed 42; profile 4.9; idle on; latency 2 1; autocreate on
//! namesrv serverChannelMaxIdleTimeSeconds 60
//! nameserver NS-1 start 0; nameserver NS-2 start 3
//! broker broker-a group broker-a id 0 start 1
//! topic TopicTest queues 4 on broker-a broker-b
//! producer P1 ns NS-1 start 4 topic TopicTest every 1
//! consumer C1 group CG1 ns NS-2 start 6 topic TopicTest
//! at 50 shutdown broker-b
//! ```
//!
//! Statements are separated by newlines or `;`. Times are seconds with up to three decimals.
//! `namesrv KEY VALUE` sets a key of every NameServer's configuration as `namesrv.properties`
//! would (`serverChannelMaxIdleTimeSeconds`, `scanNotActiveBrokerInterval`, ...; the latter
//! otherwise follows the profile).
//!
//! `at <seconds> <action>` lines script what happens to the cluster:
//!
//! | action | what it does |
//! |---|---|
//! | `shutdown X` | graceful stop: a broker unregisters, a consumer commits its offsets, then the process exits |
//! | `kill X` (or `crash X`) | `kill -9`: the process dies, the OS closes its connections |
//! | `poweroff X` | the machine goes dark: nothing is sent, not even a close |
//! | `freeze X`, `unfreeze X` | the process hangs with its sockets open, then resumes |
//! | `restart X` | a stopped node starts again (a broker keeps its disk; a consumer resumes at its committed offsets) |
//! | `cut A B`, `reset A B`, `heal A B` | packets between two nodes vanish, are refused, or flow again |
//! | `drop N`, `delay N MS` | the message in flight with id N is lost, or arrives MS later |
//! | `send P N` | producer P sends N messages now, one after another, each choosing its queue as usual (1 ≤ N ≤ 1000) |
//! | `create-topic G T Q` | `mqadmin updateTopic`: topic T with Q queues on broker group G |
//! | `autocreate on\|off`, `faulttolerance P on\|off` | `autoCreateTopicEnable` on every broker, `sendLatencyFaultEnable` on P |
//!
//! Any node can be killed and restarted, producers and consumers included.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::scenario::{Action, NodeSpec, Profile, Scenario, TopicSpec, namesrv_defaults};
use nameserver_core::time::Instant;

/// A scenario text that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The statement (1-based).
    pub statement: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "scenario statement {}: {}", self.statement, self.message)
    }
}

impl core::error::Error for ScenarioError {}

/// Formats milliseconds as seconds with at most three decimals (`1500` → `1.5`).
#[must_use]
pub fn seconds(ms: u64) -> String {
    let whole = ms / 1000;
    let frac = ms % 1000;
    if frac == 0 {
        return whole.to_string();
    }
    let mut s = alloc::format!("{whole}.{frac:03}");
    while s.ends_with('0') {
        s.pop();
    }
    s
}

fn parse_seconds(text: &str) -> Result<u64, String> {
    let bad = || alloc::format!("`{text}` is not a time in seconds");
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && frac.is_empty() || frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| bad())? };
    let mut frac_ms: u64 = if frac.is_empty() { 0 } else { frac.parse().map_err(|_| bad())? };
    for _ in frac.len()..3 {
        frac_ms *= 10;
    }
    whole.checked_mul(1000).and_then(|ms| ms.checked_add(frac_ms)).ok_or_else(bad)
}

fn on_off(text: &str) -> Result<bool, String> {
    match text {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(alloc::format!("expected on or off, got `{other}`")),
    }
}

/// Reads `key value` options after a node name.
struct Options<'a> {
    words: &'a [&'a str],
}

impl<'a> Options<'a> {
    fn get(&self, key: &str) -> Option<&'a str> {
        self.words.windows(2).find(|w| w[0] == key).map(|w| w[1])
    }

    fn time(&self, key: &str, default: u64) -> Result<Instant, String> {
        self.get(key).map_or(Ok(default), parse_seconds).map(Instant::from_millis)
    }
}

impl Scenario {
    /// Parses the text form.
    ///
    /// # Errors
    /// The first statement that is not understood, with why.
    pub fn parse(text: &str) -> Result<Self, ScenarioError> {
        let mut scenario = Self::default();
        for (index, statement) in text.split(['\n', ';']).enumerate() {
            let statement = statement.split('#').next().unwrap_or("").trim();
            if statement.is_empty() {
                continue;
            }
            let words: Vec<&str> = statement.split_whitespace().collect();
            scenario.apply_statement(&words).map_err(|message| ScenarioError { statement: index + 1, message })?;
        }
        scenario.validate().map_err(|message| ScenarioError { statement: 0, message })?;
        Ok(scenario)
    }

    fn apply_statement(&mut self, words: &[&str]) -> Result<(), String> {
        let arg = |i: usize| words.get(i).copied().ok_or_else(|| alloc::format!("`{}` needs more arguments", words[0]));
        let opts = Options { words: words.get(2..).unwrap_or(&[]) };
        match words[0] {
            "seed" => self.seed = arg(1)?.parse().map_err(|_| String::from("seed must be a number"))?,
            "profile" => {
                self.profile = match arg(1)? {
                    "4.9" | "4" => Profile::Classic,
                    "5.x" | "5" => Profile::Modern,
                    other => return Err(alloc::format!("unknown profile `{other}` (4.9 or 5.x)")),
                }
            }
            "idle" => self.idle_close = on_off(arg(1)?)?,
            "autocreate" => self.auto_create = on_off(arg(1)?)?,
            "namesrv" => {
                let (key, value) = (arg(1)?, arg(2)?);
                let mut config = namesrv_defaults();
                if !config.to_properties().contains_key(key) {
                    return Err(alloc::format!("`{key}` is not a NameServer configuration key"));
                }
                config.set(key, value).map_err(|e| e.to_string())?;
                self.namesrv.push((key.to_string(), value.to_string()));
            }
            "cluster" => self.cluster = arg(1)?.to_string(),
            "latency" => {
                self.latency_ms = arg(1)?.parse().map_err(|_| String::from("latency must be whole ms"))?;
                self.jitter_ms =
                    words.get(2).map_or(Ok(0), |j| j.parse().map_err(|_| String::from("jitter must be whole ms")))?;
            }
            "nameserver" => {
                self.nodes.push(NodeSpec::NameServer { name: arg(1)?.to_string(), start: opts.time("start", 0)? })
            }
            "broker" => {
                let name = arg(1)?.to_string();
                let group = opts.get("group").map_or_else(|| name.clone(), ToString::to_string);
                let id =
                    opts.get("id").map_or(Ok(0), |i| i.parse().map_err(|_| String::from("id must be a number")))?;
                self.nodes.push(NodeSpec::Broker { name, group, id, start: opts.time("start", 0)? });
            }
            "producer" => self.nodes.push(NodeSpec::Producer {
                name: arg(1)?.to_string(),
                ns: opts.get("ns").filter(|n| *n != "random").map(ToString::to_string),
                start: opts.time("start", 0)?,
                topic: opts.get("topic").unwrap_or("TopicTest").to_string(),
                every_ms: opts.get("every").map_or(Ok(1000), parse_seconds)?.max(1),
                fault_tolerance: opts.get("faulttolerance").map_or(Ok(false), on_off)?,
            }),
            "consumer" => self.nodes.push(NodeSpec::Consumer {
                name: arg(1)?.to_string(),
                group: opts.get("group").unwrap_or("CG1").to_string(),
                ns: opts.get("ns").filter(|n| *n != "random").map(ToString::to_string),
                start: opts.time("start", 0)?,
                topic: opts.get("topic").unwrap_or("TopicTest").to_string(),
            }),
            "topic" => {
                let on = words.iter().position(|w| *w == "on").ok_or("topic needs `on <group>…`")?;
                let queues = opts
                    .get("queues")
                    .map_or(Ok(4), |q| q.parse().map_err(|_| String::from("queues must be a number")))?;
                let groups: Vec<String> = words[on + 1..].iter().map(|g| (*g).to_string()).collect();
                if groups.is_empty() {
                    return Err(String::from("topic needs at least one group"));
                }
                self.topics.push(TopicSpec { name: arg(1)?.to_string(), queues, groups });
            }
            "at" => {
                let at = Instant::from_millis(parse_seconds(arg(1)?)?);
                let action = parse_action(&words[2..])?;
                self.push_action(at, action);
            }
            other => return Err(alloc::format!("unknown statement `{other}`")),
        }
        Ok(())
    }

    /// The text form, one statement per line.
    #[must_use]
    pub fn to_text(&self) -> String {
        self.statements().join("\n")
    }

    /// The compact text form (`;`-separated), for URLs.
    #[must_use]
    pub fn to_compact(&self) -> String {
        self.statements().join(";")
    }

    fn statements(&self) -> Vec<String> {
        let on = |b: bool| if b { "on" } else { "off" };
        let mut out = alloc::vec![
            alloc::format!("seed {}", self.seed),
            alloc::format!("profile {}", self.profile.name()),
            alloc::format!("idle {}", on(self.idle_close)),
            alloc::format!("latency {} {}", self.latency_ms, self.jitter_ms),
            alloc::format!("autocreate {}", on(self.auto_create)),
        ];
        if self.cluster != "DefaultCluster" {
            out.push(alloc::format!("cluster {}", self.cluster));
        }
        for (key, value) in &self.namesrv {
            out.push(alloc::format!("namesrv {key} {value}"));
        }
        for node in &self.nodes {
            out.push(match node {
                NodeSpec::NameServer { name, start } => {
                    alloc::format!("nameserver {name} start {}", seconds(start.as_millis()))
                }
                NodeSpec::Broker { name, group, id, start } => {
                    alloc::format!("broker {name} group {group} id {id} start {}", seconds(start.as_millis()))
                }
                NodeSpec::Producer { name, ns, start, topic, every_ms, fault_tolerance } => alloc::format!(
                    "producer {name} ns {} start {} topic {topic} every {} faulttolerance {}",
                    ns.as_deref().unwrap_or("random"),
                    seconds(start.as_millis()),
                    seconds(*every_ms),
                    on(*fault_tolerance)
                ),
                NodeSpec::Consumer { name, group, ns, start, topic } => alloc::format!(
                    "consumer {name} group {group} ns {} start {} topic {topic}",
                    ns.as_deref().unwrap_or("random"),
                    seconds(start.as_millis())
                ),
            });
        }
        for topic in &self.topics {
            out.push(alloc::format!("topic {} queues {} on {}", topic.name, topic.queues, topic.groups.join(" ")));
        }
        for event in &self.script {
            out.push(alloc::format!("at {} {}", seconds(event.at.as_millis()), action_text(&event.action)));
        }
        out
    }
}

/// The most messages one `send` action makes.
const MAX_BURST: u32 = 1000;

fn parse_action(words: &[&str]) -> Result<Action, String> {
    let arg = |i: usize| {
        words.get(i).map(|w| (*w).to_string()).ok_or_else(|| String::from("the action needs more arguments"))
    };
    let number = |i: usize| -> Result<u64, String> { arg(i)?.parse().map_err(|_| String::from("expected a number")) };
    let verb = words.first().copied().ok_or("`at` needs an action")?;
    Ok(match verb {
        "shutdown" => Action::Shutdown(arg(1)?),
        "kill" | "crash" => Action::Kill(arg(1)?),
        "freeze" => Action::Freeze(arg(1)?),
        "unfreeze" => Action::Unfreeze(arg(1)?),
        "poweroff" => Action::PowerOff(arg(1)?),
        "restart" => Action::Restart(arg(1)?),
        "cut" => Action::Cut(arg(1)?, arg(2)?),
        "reset" => Action::Reset(arg(1)?, arg(2)?),
        "heal" => Action::Heal(arg(1)?, arg(2)?),
        "drop" => Action::Drop(number(1)?),
        "delay" => Action::Delay(number(1)?, number(2)?),
        "create-topic" => Action::CreateTopic {
            group: arg(1)?,
            topic: arg(2)?,
            queues: i32::try_from(number(3)?).map_err(|_| String::from("too many queues"))?,
        },
        "autocreate" => Action::AutoCreate(on_off(&arg(1)?)?),
        "faulttolerance" => Action::FaultTolerance(arg(1)?, on_off(&arg(2)?)?),
        "send" => {
            let usage = "`send` needs a producer and a count, e.g. `send P1 5`";
            let (Some(producer), Some(count)) = (words.get(1), words.get(2)) else { return Err(String::from(usage)) };
            if words.len() > 3 {
                return Err(String::from(usage));
            }
            let count = count.parse::<u32>().ok().filter(|n| (1..=MAX_BURST).contains(n)).ok_or_else(|| {
                alloc::format!("`send` count must be a whole number from 1 to {MAX_BURST}, got `{count}`")
            })?;
            Action::Send((*producer).to_string(), count)
        }
        other => return Err(alloc::format!("unknown action `{other}`")),
    })
}

/// The text of one action, as the script writes it.
#[must_use]
pub fn action_text(action: &Action) -> String {
    let on = |b: bool| if b { "on" } else { "off" };
    match action {
        Action::Shutdown(n) => alloc::format!("shutdown {n}"),
        Action::Kill(n) => alloc::format!("kill {n}"),
        Action::Freeze(n) => alloc::format!("freeze {n}"),
        Action::Unfreeze(n) => alloc::format!("unfreeze {n}"),
        Action::PowerOff(n) => alloc::format!("poweroff {n}"),
        Action::Restart(n) => alloc::format!("restart {n}"),
        Action::Cut(a, b) => alloc::format!("cut {a} {b}"),
        Action::Reset(a, b) => alloc::format!("reset {a} {b}"),
        Action::Heal(a, b) => alloc::format!("heal {a} {b}"),
        Action::Drop(id) => alloc::format!("drop {id}"),
        Action::Delay(id, ms) => alloc::format!("delay {id} {ms}"),
        Action::CreateTopic { group, topic, queues } => alloc::format!("create-topic {group} {topic} {queues}"),
        Action::AutoCreate(b) => alloc::format!("autocreate {}", on(*b)),
        Action::FaultTolerance(n, b) => alloc::format!("faulttolerance {n} {}", on(*b)),
        Action::Send(n, count) => alloc::format!("send {n} {count}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_round_trip() {
        for ms in [0, 1, 10, 100, 1500, 11_002, 192_000, 71_900] {
            assert_eq!(parse_seconds(&seconds(ms)).unwrap(), ms);
        }
        assert_eq!(parse_seconds("4.01").unwrap(), 4010);
        assert!(parse_seconds("1.2345").is_err());
        assert!(parse_seconds("x").is_err());
        assert!(parse_seconds(".").is_err());
    }

    #[test]
    fn text_round_trips() {
        let text = "seed 7;profile 5.x;idle off;latency 3 0;autocreate off;nameserver NS-1 start 0;broker b group g id 1 start 1.5;producer P ns NS-1 start 4 topic T every 0.5 faulttolerance on;consumer C group G ns random start 6 topic T;topic T queues 8 on g;at 50 cut b NS-1;at 50 kill b;at 60 delay 17 250";
        let scenario = Scenario::parse(text).unwrap();
        assert_eq!(scenario.to_compact(), text);
        assert_eq!(Scenario::parse(&scenario.to_text()).unwrap(), scenario);
    }

    #[test]
    fn errors_name_the_statement() {
        let err = Scenario::parse("seed 1\nfrobnicate x").unwrap_err();
        assert_eq!(err.statement, 2);
        assert!(err.message.contains("frobnicate"));
        assert!(Scenario::parse("nameserver A; nameserver A").is_err());
        assert!(Scenario::parse("producer P ns NS-9").is_err());
        let lonely = Scenario::parse("broker b group g id 0; producer P topic T").unwrap_err();
        assert!(lonely.message.contains("`P` needs a nameserver"), "{}", lonely.message);
        assert!(Scenario::parse("broker b group g id 0; consumer C topic T").is_err());
        assert!(Scenario::parse("at 5 kill nobody").is_err());
        assert!(Scenario::parse("at 5").is_err());
    }

    #[test]
    fn send_bursts_parse_and_bad_ones_say_why() {
        let base = "nameserver NS-1; producer P1 ns NS-1; consumer C1";
        let s = Scenario::parse(&alloc::format!("{base}; at 4.5 send P1 5")).unwrap();
        assert_eq!(s.script[0].action, Action::Send(String::from("P1"), 5));
        assert_eq!(s.script[0].at, Instant::from_millis(4500));
        assert!(s.to_compact().ends_with("at 4.5 send P1 5"));
        assert_eq!(Scenario::parse(&s.to_compact()).unwrap(), s);
        for (bad, says) in [
            ("at 5 send P1", "needs a producer and a count"),
            ("at 5 send", "needs a producer and a count"),
            ("at 5 send P1 5 6", "needs a producer and a count"),
            ("at 5 send P1 0", "from 1 to 1000, got `0`"),
            ("at 5 send P1 1001", "from 1 to 1000, got `1001`"),
            ("at 5 send P1 many", "got `many`"),
            ("at 5 send C1 3", "`send C1` needs a producer, and `C1` is not one"),
            ("at 5 send P9 3", "`P9`, which is not a node"),
        ] {
            let err = Scenario::parse(&alloc::format!("{base}; {bad}")).unwrap_err();
            assert!(err.message.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn script_stays_in_time_order() {
        let s = Scenario::parse("nameserver A; at 9 kill A; at 3 freeze A; at 9 restart A").unwrap();
        let order: Vec<u64> = s.script.iter().map(|e| e.at.as_millis()).collect();
        assert_eq!(order, [3000, 9000, 9000]);
        assert_eq!(s.script[2].action, Action::Restart(String::from("A")));
    }
}
