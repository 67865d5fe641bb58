//! Scenarios as data: seed + cluster + timed script, with a compact text form that fits in a
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
use core::hash::{Hash, Hasher};
use core::time::Duration;

use crate::time::Instant;

/// Which RocketMQ version's timings the model follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// 4.9.x: scan every 10 s, fault isolation 600 s, brokers without acting-master headers.
    Classic,
    /// 5.x: scan every 5 s, fault isolation 10 s.
    Modern,
}

impl Profile {
    /// `4.9` or `5.x`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Classic => "4.9",
            Self::Modern => "5.x",
        }
    }

    /// The NameServer's `scanNotActiveBrokerInterval`.
    #[must_use]
    pub fn scan_interval_ms(self) -> u64 {
        match self {
            Self::Classic => 10_000,
            Self::Modern => 5_000,
        }
    }

    /// How long `sendLatencyFaultEnable` isolates a broker after a failure.
    #[must_use]
    pub fn isolation_ms(self) -> u64 {
        match self {
            Self::Classic => 600_000,
            Self::Modern => 10_000,
        }
    }

    /// The MQVersion ordinal brokers and clients send (V4_9_4 or V5_3_3).
    #[must_use]
    pub fn wire_version(self) -> i32 {
        match self {
            Self::Classic => 401,
            Self::Modern => 479,
        }
    }
}

/// A node of the model cluster.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NodeSpec {
    /// A NameServer.
    NameServer {
        /// Name, e.g. `NS-1`.
        name: String,
        /// Start time.
        start: Instant,
    },
    /// A broker instance.
    Broker {
        /// Name, e.g. `broker-a-s`.
        name: String,
        /// Group (brokerName), e.g. `broker-a`.
        group: String,
        /// brokerId: 0 master, 1.. slaves.
        id: i64,
        /// Start time.
        start: Instant,
    },
    /// A producer.
    Producer {
        /// Name, e.g. `P1`.
        name: String,
        /// The NameServer it binds to first; `None` = seeded random choice.
        ns: Option<String>,
        /// Start time.
        start: Instant,
        /// Topic it sends to.
        topic: String,
        /// Milliseconds between sends.
        every_ms: u64,
        /// `sendLatencyFaultEnable`.
        fault_tolerance: bool,
    },
    /// A consumer.
    Consumer {
        /// Name, e.g. `C1`.
        name: String,
        /// Consumer group.
        group: String,
        /// The NameServer it binds to first; `None` = seeded random choice.
        ns: Option<String>,
        /// Start time.
        start: Instant,
        /// Topic it consumes.
        topic: String,
    },
}

impl NodeSpec {
    /// The node's name.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Self::NameServer { name, .. }
            | Self::Broker { name, .. }
            | Self::Producer { name, .. }
            | Self::Consumer { name, .. } => name,
        }
    }

    /// When the node starts.
    #[must_use]
    pub fn start(&self) -> Instant {
        match self {
            Self::NameServer { start, .. }
            | Self::Broker { start, .. }
            | Self::Producer { start, .. }
            | Self::Consumer { start, .. } => *start,
        }
    }
}

/// A topic present on some broker groups from the start.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TopicSpec {
    /// Topic name.
    pub name: String,
    /// Read and write queues per group.
    pub queues: i32,
    /// Groups holding it.
    pub groups: Vec<String>,
}

/// Something the script (or the learner) does to the cluster.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Graceful shutdown (`mqshutdown broker`): unregister from every NameServer, then exit.
    Shutdown(String),
    /// `kill -9`: the process dies, the OS closes its connections.
    Kill(String),
    /// The process hangs with its sockets open.
    Freeze(String),
    /// A frozen process resumes.
    Unfreeze(String),
    /// The machine loses power: nothing is sent, not even a close.
    PowerOff(String),
    /// A stopped node starts again, empty.
    Restart(String),
    /// Packets between two nodes silently vanish.
    Cut(String, String),
    /// Connections between two nodes are reset, and new ones refused.
    Reset(String, String),
    /// A cut or reset link works again.
    Heal(String, String),
    /// The message in flight with this id is lost.
    Drop(u64),
    /// The message in flight with this id arrives this many milliseconds later.
    Delay(u64, u64),
    /// `mqadmin updateTopic` on a broker group.
    CreateTopic {
        /// The group.
        group: String,
        /// The topic.
        topic: String,
        /// How many read and write queues it gets.
        queues: i32,
    },
    /// `autoCreateTopicEnable` on every broker.
    AutoCreate(bool),
    /// `sendLatencyFaultEnable` on a producer.
    FaultTolerance(String, bool),
    /// A producer sends this many messages now, one after another.
    Send(String, u32),
}

impl Action {
    /// The nodes the action names, in order (the first is the one it hits).
    #[must_use]
    pub fn node_names(&self) -> Vec<&str> {
        match self {
            Self::Shutdown(n)
            | Self::Kill(n)
            | Self::Freeze(n)
            | Self::Unfreeze(n)
            | Self::PowerOff(n)
            | Self::Restart(n)
            | Self::FaultTolerance(n, _)
            | Self::Send(n, _) => alloc::vec![n.as_str()],
            Self::Cut(a, b) | Self::Reset(a, b) | Self::Heal(a, b) => alloc::vec![a.as_str(), b.as_str()],
            Self::Drop(_) | Self::Delay(..) | Self::CreateTopic { .. } | Self::AutoCreate(_) => Vec::new(),
        }
    }
}

/// An action at a time.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScriptEvent {
    /// The simulated time it happened at.
    pub at: Instant,
    /// The fault or command applied.
    pub action: Action,
}

/// A whole scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// PRNG seed.
    pub seed: u64,
    /// Timing profile.
    pub profile: Profile,
    /// Whether NameServers close idle connections (false: the "textbook" scan-only model).
    pub idle_close: bool,
    /// One-way link latency in ms.
    pub latency_ms: u64,
    /// Latency jitter, ± ms.
    pub jitter_ms: u64,
    /// Brokers' `autoCreateTopicEnable`.
    pub auto_create: bool,
    /// Cluster name of every broker.
    pub cluster: String,
    /// Nodes in declaration order (their index is their `NodeId`).
    pub nodes: Vec<NodeSpec>,
    /// Topics created at start.
    pub topics: Vec<TopicSpec>,
    /// Timed actions, in time order (stable for equal times).
    pub script: Vec<ScriptEvent>,
    /// NameServer configuration keys set by `namesrv KEY VALUE`, in order (checked when read).
    pub namesrv: Vec<(String, String)>,
}

// Written out so that a scenario without `namesrv` lines hashes as it did before they
// existed (the golden state hashes stay); naming every field makes a new one a compile error.
impl Hash for Scenario {
    fn hash<H: Hasher>(&self, h: &mut H) {
        let Self {
            seed,
            profile,
            idle_close,
            latency_ms,
            jitter_ms,
            auto_create,
            cluster,
            nodes,
            topics,
            script,
            namesrv,
        } = self;
        seed.hash(h);
        profile.hash(h);
        idle_close.hash(h);
        latency_ms.hash(h);
        jitter_ms.hash(h);
        auto_create.hash(h);
        cluster.hash(h);
        nodes.hash(h);
        topics.hash(h);
        script.hash(h);
        if !namesrv.is_empty() {
            namesrv.hash(h);
        }
    }
}

impl Default for Scenario {
    fn default() -> Self {
        Self {
            seed: 42,
            profile: Profile::Classic,
            idle_close: true,
            latency_ms: 2,
            jitter_ms: 1,
            auto_create: true,
            cluster: String::from("DefaultCluster"),
            nodes: Vec::new(),
            topics: Vec::new(),
            script: Vec::new(),
            namesrv: Vec::new(),
        }
    }
}

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

fn namesrv_defaults() -> crate::Config {
    crate::Config::java_defaults("/home/rocketmq", "/opt/rocketmq")
}

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

    /// Adds an action, keeping the script in time order (after actions at the same time).
    pub fn push_action(&mut self, at: Instant, action: Action) {
        let index = self.script.partition_point(|e| e.at <= at);
        self.script.insert(index, ScriptEvent { at, action });
    }

    /// The configuration every NameServer of this scenario starts with: Java's defaults, the
    /// profile's scan interval, then the `namesrv` lines.
    #[must_use]
    pub fn namesrv_config(&self) -> crate::Config {
        let mut config = namesrv_defaults();
        config.scan_not_active_broker_interval = Duration::from_millis(self.profile.scan_interval_ms());
        for (key, value) in &self.namesrv {
            // Checked by `parse`; a scenario built in code with a bad value keeps the default.
            let _ = config.set(key, value);
        }
        config
    }

    /// How long a NameServer connection may stay silent before it is closed: `None` with idle
    /// close off (`idle off`, or `serverChannelMaxIdleTimeSeconds` 0 as in Netty).
    #[must_use]
    pub fn idle_close_after(&self, config: &crate::Config) -> Option<Duration> {
        let secs = config.server_channel_max_idle_time_seconds;
        (self.idle_close && secs > 0).then(|| Duration::from_secs(secs))
    }

    /// The node index of `name`.
    #[must_use]
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name() == name)
    }

    fn validate(&self) -> Result<(), String> {
        for (i, node) in self.nodes.iter().enumerate() {
            if self.nodes[..i].iter().any(|n| n.name() == node.name()) {
                return Err(alloc::format!("two nodes are called `{}`", node.name()));
            }
            if let NodeSpec::Producer { ns: Some(ns), .. } | NodeSpec::Consumer { ns: Some(ns), .. } = node {
                if !matches!(self.nodes.iter().find(|n| n.name() == ns), Some(NodeSpec::NameServer { .. })) {
                    return Err(alloc::format!("`{}` binds to `{ns}`, which is not a nameserver", node.name()));
                }
            }
        }
        if self.nodes.len() > 64 {
            return Err(String::from("at most 64 nodes"));
        }
        for event in &self.script {
            if let Some(missing) = event.action.node_names().into_iter().find(|n| self.node_index(n).is_none()) {
                return Err(alloc::format!("the script names `{missing}`, which is not a node"));
            }
            if let Action::Send(name, _) = &event.action {
                if !matches!(self.nodes.iter().find(|n| n.name() == name), Some(NodeSpec::Producer { .. })) {
                    return Err(alloc::format!("`send {name}` needs a producer, and `{name}` is not one"));
                }
            }
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
