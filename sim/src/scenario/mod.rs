//! Scenarios as data: seed, cluster and a timed script. Their text form, which fits in a
//! URL, is read and written by [`text`].
//!
//! Any node can be killed and restarted, producers and consumers included.

pub(crate) mod built_in;
pub mod text;

use alloc::string::String;
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};
use core::time::Duration;

use nameserver_core::time::Instant;

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

pub(crate) fn namesrv_defaults() -> nameserver_core::Config {
    nameserver_core::Config::java_defaults("/home/rocketmq", "/opt/rocketmq")
}

impl Scenario {
    /// Adds an action, keeping the script in time order (after actions at the same time).
    pub fn push_action(&mut self, at: Instant, action: Action) {
        let index = self.script.partition_point(|e| e.at <= at);
        self.script.insert(index, ScriptEvent { at, action });
    }

    /// The configuration every NameServer of this scenario starts with: Java's defaults, the
    /// profile's scan interval, then the `namesrv` lines.
    #[must_use]
    pub fn namesrv_config(&self) -> nameserver_core::Config {
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
    pub fn idle_close_after(&self, config: &nameserver_core::Config) -> Option<Duration> {
        let secs = config.server_channel_max_idle_time_seconds;
        (self.idle_close && secs > 0).then(|| Duration::from_secs(secs))
    }

    /// The topics the scenario names, in its order: its clients' first, then the created ones.
    #[must_use]
    pub fn topic_names(&self) -> Vec<&str> {
        let clients = self.nodes.iter().filter_map(|n| match n {
            NodeSpec::Producer { topic, .. } | NodeSpec::Consumer { topic, .. } => Some(topic.as_str()),
            _ => None,
        });
        let mut names: Vec<&str> = Vec::new();
        for name in clients.chain(self.topics.iter().map(|t| t.name.as_str())) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }

    /// The node index of `name`.
    #[must_use]
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name() == name)
    }

    pub(crate) fn validate(&self) -> Result<(), String> {
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
        let has_nameserver = self.nodes.iter().any(|n| matches!(n, NodeSpec::NameServer { .. }));
        if let Some(client) =
            self.nodes.iter().find(|n| matches!(n, NodeSpec::Producer { .. } | NodeSpec::Consumer { .. }))
            && !has_nameserver
        {
            return Err(alloc::format!("`{}` needs a nameserver to ask for routes, and there is none", client.name()));
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
}

/// Removes the last occurrence of `event` from a script.
pub(crate) fn remove_last(script: &mut Vec<ScriptEvent>, event: &ScriptEvent) -> bool {
    let Some(index) = script.iter().rposition(|e| e == event) else { return false };
    script.remove(index);
    true
}
