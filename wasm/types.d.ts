// Generated from the Rust types by ts-rs (wasm/src/types.rs); do not edit: run
// `UPDATE_TYPES=1 cargo test -p nameserver-wasm --features ts types`.

/** A trace line's kind. */
export type TraceKind = "lifecycle" | "fault" | "registered" | "register-ok" | "register-failed" | "unregistered" | "expired" | "channel-closed" | "channel-idle" | "topic-changed" | "kv" | "config" | "request" | "notified" | "scan" | "route-updated" | "route-not-found" | "route-query-failed" | "send-ok" | "send-retry" | "send-failed" | "pull" | "rebalance" | "offset" | "info";
/** Which NameServer event a line is. */
export type EventKind = "broker-registered" | "registration-rejected" | "registration-conflict" | "topic-registered" | "topic-changed" | "broker-expired" | "channel-destroyed" | "channel-idle" | "broker-unregistered" | "stale-unregister-ignored" | "broker-name-removed" | "cluster-removed" | "topic-removed-with-broker" | "topic-deleted" | "write-perm-changed" | "kv-put" | "kv-deleted" | "config-updated" | "config-update-refused" | "header-field-ignored" | "min-broker-id-changed";
/** The group an event is shown under. */
export type EventCategory = "registered" | "register-failed" | "unregistered" | "expired" | "channel-closed" | "channel-idle" | "topic-changed" | "kv" | "config" | "request" | "notified" | "info";
/** The level Java logs an event's line at. */
export type Severity = "info" | "warn";
/** What kind of process a node is. */
export type NodeRole = "nameserver" | "broker" | "producer" | "consumer";
/** A node's process state. */
export type NodeState = "not-started" | "up" | "frozen" | "shutting-down" | "down" | "powered-off";
/** An armed timer's stable id. */
export type TimerKind = "register" | "scan" | "route-poll" | "heartbeat" | "send" | "rebalance" | "pull-retry" | "long-poll" | "commit-offsets" | "slave-sync" | "idle-close";
/** What a message is about. */
export type MessageCategory = "register" | "unregister" | "route" | "send" | "pull" | "heartbeat" | "close" | "reset" | "failure" | "other";
/**
 * The cluster at the current time, with the logs since a [`Cursor`].
 */
export type ClusterView = { 
/**
 * Virtual time (ms).
 */
time: number, 
/**
 * When the next event is due (ms).
 */
next: number | null, 
/**
 * Every node with its state and timers.
 */
nodes: Array<NodeInfo>, 
/**
 * Messages on the wire now.
 */
flights: Array<FlightInfo>, 
/**
 * Each running NameServer's tables, by name (one that is not running has none).
 */
ns: { [key in string]: NsTables }, 
/**
 * What each NameServer would answer for each of the scenario's topics
 * ([`Scenario::topic_names`](crate::Scenario::topic_names)), by NameServer and topic
 * (`None`: TOPIC_NOT_EXIST, or not running).
 */
routes: { [key in string]: { [key in string]: TopicRoute | null } }, 
/**
 * Each running producer's and consumer's cached route, by name.
 */
clients: { [key in string]: ClientRoute }, 
/**
 * Each consumer's queues, by name.
 */
consumers: { [key in string]: ConsumerView }, 
/**
 * Every fault injected so far.
 */
faults: Array<FaultInfo>, 
/**
 * Intervals in which a client's route differed from its NameServer's.
 */
stale: Array<StaleWindow>, 
/**
 * What each fault did.
 */
measurements: Array<Measurement>, 
/**
 * Links that are not up.
 */
links: Array<LinkInfo>, 
/**
 * Brokers each producer's fault strategy isolates.
 */
isolations: Array<IsolationInfo>, 
/**
 * Every branch of the time machine.
 */
branches: Array<BranchInfo>, 
/**
 * Which running NameServer lacks what another one lists.
 */
lacks: Lacks, 
/**
 * The logs since the caller's cursor.
 */
delta: Delta, };
/**
 * Where a caller is in the current branch's logs.
 */
export type Cursor = { 
/**
 * The branch.
 */
branch: number, 
/**
 * Its time (ms).
 */
time: number, 
/**
 * Trace lines held.
 */
trace: number, 
/**
 * Finished sends held.
 */
sends: number, 
/**
 * Wire messages held.
 */
wire: number, };
/**
 * The logs since a cursor, and the cursor to pass next time.
 */
export type Delta = { 
/**
 * The caller's cursor was from another branch or a later time (or none): `trace` and
 * `sends` are whole and replace what it holds.
 */
reset: boolean, 
/**
 * The index of `trace`'s first line.
 */
traceFrom: number, 
/**
 * Trace lines from `trace_from` on.
 */
trace: Array<TraceEvent>, 
/**
 * The index of `sends`' first send.
 */
sendsFrom: number, 
/**
 * Finished sends from `sends_from` on.
 */
sends: Array<SendInfo>, 
/**
 * Messages put on the wire since the cursor, in sending order (empty on a reset).
 */
wire: Array<WireEvent>, 
/**
 * Where this delta leaves the caller.
 */
cursor: Cursor, };
/**
 * A node with its state and timers.
 */
export type NodeInfo = { 
/**
 * Its index in the scenario.
 */
id: number, 
/**
 * Its name (`NS-1`, `broker-a`, `P1`…).
 */
name: string, 
/**
 * `nameserver`, `broker`, `producer` or `consumer`.
 */
role: NodeRole, 
/**
 * Its [`NodeState`](crate::NodeState) name.
 */
state: NodeState, 
/**
 * Listen address.
 */
addr: string, 
/**
 * Broker group, for brokers.
 */
group: string | null, 
/**
 * Broker id, for brokers.
 */
brokerId: number | null, 
/**
 * The NameServer a running client asks.
 */
boundTo: string | null, 
/**
 * Armed timers, soonest first.
 */
timers: Array<TimerInfo>, 
/**
 * For clients: since when their route differs from their NameServer's.
 */
staleSince: number | null, };
/**
 * An armed timer. `kind` is a stable id ([`TimerKind::name`](crate::TimerKind::name) or
 * [`IDLE_CLOSE`](crate::IDLE_CLOSE)); `period_ms` the period (for one-shot waits, the wait)
 * the model uses; `peer` the node at the other end of an idle-close timer's connection.
 */
export type TimerInfo = { 
/**
 * What it does.
 */
label: string, 
/**
 * Its stable id.
 */
kind: TimerKind, 
/**
 * When it fires (ms).
 */
at: number, 
/**
 * Its period.
 */
periodMs: number | null, 
/**
 * The other end of an idle close.
 */
peer: string | null, };
/**
 * A message on the wire now.
 */
export type FlightInfo = { 
/**
 * Its id (scripts drop or delay it by this id).
 */
id: number, 
/**
 * Sender.
 */
from: string, 
/**
 * Receiver.
 */
to: string, 
/**
 * Sent at (ms).
 */
sentAt: number, 
/**
 * Arrives at (ms).
 */
arriveAt: number, 
/**
 * Its [`Category`](crate::Category) name.
 */
category: MessageCategory, 
/**
 * Whether it is an answer.
 */
response: boolean, 
/**
 * One-line description.
 */
summary: string, 
/**
 * Whether it waits at a frozen receiver.
 */
held: boolean, };
/**
 * A message put on the wire, as it was sent. `id` is its flight id, or `None` when a cut
 * link swallowed it; `what` (`type` in JSON) is the request code's Java name (for an answer,
 * the request it answers), `FIN` or `RST`; `lost`: the network will not deliver it as sent.
 */
export type WireEvent = { 
/**
 * Its flight id.
 */
id: number | null, 
/**
 * Sender.
 */
from: string, 
/**
 * Receiver.
 */
to: string, 
/**
 * Sent at (ms).
 */
sentAt: number, 
/**
 * When it arrives (or would have, at the base latency).
 */
arriveAt: number, 
/**
 * Its [`Category`](crate::Category) name.
 */
category: MessageCategory, 
/**
 * Whether it is an answer.
 */
response: boolean, 
/**
 * What it is.
 */
type: string, 
/**
 * Whether the network loses it.
 */
lost: boolean, };
/**
 * One trace line: time, node, kind and RocketMQ's log wording.
 */
export type TraceEvent = { 
/**
 * Its place in the trace.
 */
seq: number, 
/**
 * When (ms).
 */
at: number, 
/**
 * The node that wrote it.
 */
node: string, 
/**
 * Its [`TraceKind`](crate::TraceKind) name.
 */
kind: TraceKind, 
/**
 * The line.
 */
text: string, 
/**
 * The numbers of the rule that decided it, as the core gave them (absent: no rule).
 */
operands?: RuleOperands, };
/**
 * A rule's operands ([`Operands`]) as the page reads them: times in milliseconds, `rule`
 * naming which.
 */
export type RuleOperands = { "rule": "registered", 
/**
 * This registration (ms).
 */
lastUpdate: number, 
/**
 * Its timeout (ms).
 */
timeoutMs: number, 
/**
 * When its removal clock runs out (ms).
 */
deadline: number, } | { "rule": "expired", 
/**
 * The last registration or heartbeat (ms).
 */
lastUpdate: number, 
/**
 * The timeout (ms).
 */
timeoutMs: number, 
/**
 * `lastUpdate + timeoutMs` (ms).
 */
deadline: number, 
/**
 * When the scan ran (ms).
 */
now: number, } | { "rule": "idle-close", 
/**
 * The connection's last read or write (ms).
 */
lastIo: number, 
/**
 * The idle time (ms).
 */
idleMs: number, 
/**
 * `lastIo + idleMs` (ms).
 */
deadline: number, 
/**
 * When it was closed (ms).
 */
now: number, } | { "rule": "route", 
/**
 * How many broker groups it listed.
 */
groups: number, } | { "rule": "topic-not-exist" };
/**
 * A finished send with its attempts.
 */
export type SendInfo = { 
/**
 * The producer.
 */
producer: string, 
/**
 * The producer's send number.
 */
id: number, 
/**
 * When it started (ms).
 */
started: number, 
/**
 * When it finished (ms).
 */
finished: number, 
/**
 * `ok`, `failed` or `indeterminate`.
 */
outcome: "ok" | "failed" | "indeterminate", 
/**
 * Each attempt, in order.
 */
attempts: Array<SendAttemptInfo>, };
/**
 * One attempt of a send.
 */
export type SendAttemptInfo = { 
/**
 * The broker group it went to.
 */
broker: string, 
/**
 * When (ms).
 */
at: number, 
/**
 * `connect-failed`, `closed` or `timeout`; `None`: it succeeded.
 */
failure: "connect-failed" | "closed" | "timeout" | null, };
/**
 * One NameServer's tables at one moment.
 *
 * Reading is lenient: a peer daemon of an older build may lack fields added since, and is
 * still compared by what it has (a row needs only its keys, group, id and `lastUpdate`).
 */
export type NsTables = { 
/**
 * The NameServer's clock when the tables were read.
 */
uptimeMs: number, 
/**
 * Whether route queries are answered (`needWaitForService`).
 */
serving: boolean, 
/**
 * When the next expiry scan runs.
 */
nextScanMs: number, 
/**
 * `clusterAddrTable`: cluster → broker groups.
 */
clusterAddrTable: { [key in string]: Array<string> }, 
/**
 * `brokerAddrTable`: broker group → members (GET_BROKER_CLUSTER_INFO's shape).
 */
brokerAddrTable: { [key in string]: BrokerGroup }, 
/**
 * `brokerLiveTable`, in its order (cluster, then address).
 */
brokers: Array<LiveRow>, };
/**
 * One `brokerLiveTable` row with its removal clock: when this NameServer drops the broker if
 * nothing from it arrives ([`Removal`]).
 */
export type LiveRow = { 
/**
 * The live-table key: cluster.
 */
cluster: string, 
/**
 * The live-table key: the broker's address.
 */
brokerAddr: string, 
/**
 * Its group.
 */
brokerName: string, 
/**
 * Its id in the group (0: master).
 */
brokerId: number, 
/**
 * Empty when the registration had none (Java's null).
 */
haServerAddr: string, 
/**
 * Its last registration or heartbeat.
 */
lastUpdate: number, 
/**
 * How long it may stay silent (its `heartbeatTimeoutMillis`).
 */
timeoutMs: number, 
/**
 * `lastUpdate` + `timeoutMs`.
 */
expiresAt: number, 
/**
 * Its topic-config data version.
 */
dataVersion: DataVersion, 
/**
 * The first expiry scan that finds it expired.
 */
scanExpireAt: number, 
/**
 * The idle close of its channel (`null`: idle close off, or the channel not tracked).
 */
idleCloseAt: number | null, 
/**
 * The earlier of the two.
 */
removalAt: number, 
/**
 * Which one that is.
 */
removalBy: RemovalPath, };
/**
 * Which of a NameServer's two removal paths gets to a silent broker first (`idle` or
 * `scan` in JSON, as [`Self::name`]).
 */
export type RemovalPath = "idle" | "scan";
/**
 * A broker's topic-config data version. Equality covers all three fields (5.x).
 *
 * `Default` is the all-zero version Java gives a registration without a body. A JSON object
 * reads missing fields from [`Self::java_new`] instead: Java's `new DataVersion()` stamps
 * the wall clock, so a registration whose version lacks a timestamp always counts as
 * changed. The core has no wall clock, so such a version is marked
 * ([`Self::UNSTAMPED`]) and stamped with the NameServer's clock when it is stored.
 */
export type DataVersion = { 
/**
 * Bumped on every change.
 */
counter: number, 
/**
 * Set in controller/DLedger modes; 0 otherwise (absent in 4.9.x JSON).
 */
stateVersion: number, 
/**
 * Wall-clock milliseconds of the last change, as the broker saw it.
 */
timestamp: number, };
/**
 * One `brokerAddrTable` entry (`BrokerData`).
 */
export type BrokerGroup = { 
/**
 * The cluster the group first registered in.
 */
cluster: string, 
/**
 * The group's name.
 */
brokerName: string, 
/**
 * Broker id (a string key, as in standard JSON) → address.
 */
brokerAddrs: { [key in string]: string }, 
/**
 * The zone (5.x); absent when null.
 */
zoneName?: string, 
/**
 * Whether the group runs in acting-master mode (5.x).
 */
enableActingMaster: boolean, };
/**
 * A topic route.
 */
export type TopicRoute = { 
/**
 * The broker groups.
 */
brokerDatas: Array<BrokerInfo>, 
/**
 * The queues.
 */
queueDatas: Array<QueueInfo>, 
/**
 * The order-topic configuration.
 */
orderTopicConf: string | null, };
/**
 * A broker group in a route.
 */
export type BrokerInfo = { 
/**
 * The group.
 */
brokerName: string, 
/**
 * Its cluster.
 */
cluster: string, 
/**
 * Broker id (decimal, as the dashboard shows it) → address.
 */
brokerAddrs: { [key in string]: string }, 
/**
 * Its zone.
 */
zoneName: string | null, };
/**
 * A topic's queues on one broker group.
 */
export type QueueInfo = { 
/**
 * The broker group.
 */
brokerName: string, 
/**
 * Read queues.
 */
readQueueNums: number, 
/**
 * Write queues.
 */
writeQueueNums: number, 
/**
 * Permissions.
 */
perm: number, 
/**
 * Topic system flag.
 */
topicSysFlag: number, };
/**
 * A running producer's or consumer's cached route, the NameServer it asks and whether the
 * route is stale.
 */
export type ClientRoute = { 
/**
 * The client.
 */
name: string, 
/**
 * Its topic.
 */
topic: string, 
/**
 * The NameServer it asks.
 */
boundTo: string, 
/**
 * Its cached route.
 */
route: TopicRoute | null, 
/**
 * When the route last changed (ms).
 */
changedAt: number | null, 
/**
 * Whether it differs from its NameServer's.
 */
stale: boolean, 
/**
 * Since when.
 */
staleSince: number | null, };
/**
 * A consumer: its queues (empty while it is not running) and what its machine consumed
 * across restarts, with how many of those a second time.
 */
export type ConsumerView = { 
/**
 * The consumer.
 */
name: string, 
/**
 * Its group.
 */
group: string, 
/**
 * Its topic.
 */
topic: string, 
/**
 * Whether it runs.
 */
running: boolean, 
/**
 * Its queues.
 */
queues: Array<ConsumerQueue>, 
/**
 * Messages consumed.
 */
consumed: number, 
/**
 * Of which consumed again.
 */
duplicates: number, };
/**
 * One queue a consumer holds. `next_offset` is `None` while it asks the broker where to
 * start; `committed_offset` is what the instance it commits to holds for its group;
 * `max_offset` the queue's max offset on the instance it reads; `from` where the start
 * offset came from (`committed`, `first` or `max`); `pulling_from` the instance pulls go to.
 */
export type ConsumerQueue = { 
/**
 * The broker group.
 */
broker: string, 
/**
 * The queue.
 */
queueId: number, 
/**
 * The next offset to pull.
 */
nextOffset: number | null, 
/**
 * The group's committed offset on the broker.
 */
committedOffset: number | null, 
/**
 * The queue's max offset.
 */
maxOffset: number | null, 
/**
 * Where the start offset came from.
 */
from: "committed" | "first" | "max" | null, 
/**
 * The instance pulls go to.
 */
pullingFrom: string | null, };
/**
 * A fault injected (or scripted): when, the action as the script writes it, and the node it
 * names first.
 */
export type FaultInfo = { 
/**
 * When (ms).
 */
at: number, 
/**
 * The action, e.g. `kill broker-b`.
 */
action: string, 
/**
 * The node it names first.
 */
target: string | null, };
/**
 * An interval in which a client's route differed from its NameServer's.
 */
export type StaleWindow = { 
/**
 * The client.
 */
client: string, 
/**
 * From (ms).
 */
from: number, 
/**
 * To (ms); `None`: still stale.
 */
to: number | null, };
/**
 * What a fault did: when each NameServer removed the broker, when each client's route
 * changed, and the sends it affected.
 */
export type Measurement = { 
/**
 * When the fault happened (ms).
 */
at: number, 
/**
 * The action.
 */
action: string, 
/**
 * The node it names first.
 */
target: string | null, 
/**
 * Each NameServer and when it removed the broker (`None`: not yet).
 */
nsRemoval: Array<[string, number | null]>, 
/**
 * Each client and when its route changed (`None`: not yet).
 */
clientUpdate: Array<[string, number | null]>, 
/**
 * Send attempts since the fault.
 */
attempts: number, 
/**
 * Of which failed.
 */
failedAttempts: number, 
/**
 * Sends that failed.
 */
sendsFailed: number, 
/**
 * Sends that succeeded after a retry.
 */
sendsRetried: number, 
/**
 * Sends whose outcome the producer cannot know.
 */
sendsIndeterminate: number, };
/**
 * A link that is not up.
 */
export type LinkInfo = { 
/**
 * One end.
 */
a: string, 
/**
 * The other end.
 */
b: string, 
/**
 * `cut` or `reset`.
 */
state: "cut" | "reset", };
/**
 * A broker a producer's fault strategy isolates, until when (entries in the past are kept,
 * as the client keeps them).
 */
export type IsolationInfo = { 
/**
 * The producer.
 */
producer: string, 
/**
 * The broker group.
 */
broker: string, 
/**
 * Available again at (ms).
 */
until: number, };
/**
 * A branch of the time machine; `dropped`/`kept`: how many actions injected on its parent
 * after the fork point it dropped or kept.
 */
export type BranchInfo = { 
/**
 * Its id.
 */
id: number, 
/**
 * Its label.
 */
label: string, 
/**
 * The branch it forked from.
 */
parent: number | null, 
/**
 * When it forked (ms).
 */
forkAt: number | null, 
/**
 * How far it has run (ms).
 */
head: number, 
/**
 * Whether it is the one shown.
 */
current: boolean, 
/**
 * Actions injected on the parent later than the fork, dropped.
 */
dropped: number, 
/**
 * The same, kept.
 */
kept: number, };
/**
 * Every difference between the running NameServers' tables, NameServers in node order.
 */
export type Lacks = { 
/**
 * Each NameServer that lacks a broker another one lists.
 */
brokers: Array<BrokerLack>, 
/**
 * Each pair where one has routes for topics the other has none for (only where the topic
 * lists are known: live mode).
 */
topics: Array<TopicLack>, 
/**
 * Brokers several NameServers list, heard from at times [`CLOCK_GAP_MS`] or more apart:
 * the tables agree, but one NameServer's removal clock for the broker runs far ahead.
 */
clocks: Array<ClockGap>, };
/**
 * The brokers one NameServer lacks.
 */
export type BrokerLack = { 
/**
 * The NameServer.
 */
ns: string, 
/**
 * What it lacks, in the order the others list them.
 */
brokers: Array<MissingBroker>, 
/**
 * The other NameServers that list any of them.
 */
others: Array<string>, };
/**
 * A broker a NameServer lacks.
 */
export type MissingBroker = { 
/**
 * Its node's name (its address if no node has that address).
 */
name: string, 
/**
 * Its address (the live table's key, what is compared).
 */
addr: string, 
/**
 * When the lacking NameServer last listed it (`lastUpdate`), if that is known (live
 * mode keeps each daemon's history; `None` also for never).
 */
lastHeard: number | null, 
/**
 * The NameServer that heard from it last.
 */
freshest: string, 
/**
 * That `lastUpdate`.
 */
freshestHeard: number, };
/**
 * Topics `other` has routes for and `ns` has none for.
 */
export type TopicLack = { 
/**
 * The NameServer lacking them.
 */
ns: string, 
/**
 * The one that has them.
 */
other: string, 
/**
 * Which, in `other`'s order.
 */
topics: Array<string>, };
/**
 * A broker whose `lastUpdate` differs between NameServers that both list it.
 */
export type ClockGap = { 
/**
 * Its node's name (its address if no node has that address).
 */
name: string, 
/**
 * Its address.
 */
addr: string, 
/**
 * The NameServer that heard from it longest ago (the first such on a tie).
 */
stalest: string, 
/**
 * That `lastUpdate`.
 */
stalestHeard: number, 
/**
 * The NameServer that heard from it last.
 */
freshest: string, 
/**
 * That `lastUpdate`.
 */
freshestHeard: number, };
/**
 * What the page asks: the cluster at wall time `at`, with the chosen topic's routes.
 */
export type LiveRequest = { 
/**
 * Wall-clock ms.
 */
at: number, 
/**
 * The topic whose routes are shown.
 */
topic?: string, 
/**
 * The daemons, in the page's order.
 */
daemons: Array<DaemonAnswer>, };
/**
 * One daemon as the page holds it at the asked time.
 */
export type DaemonAnswer = { 
/**
 * Its console's URL, the node's name until a view arrives.
 */
label: string, 
/**
 * Whether its console is reachable.
 */
up: boolean, 
/**
 * The view in force at the asked time (`None`: none yet).
 */
view: DaemonView | null, 
/**
 * The chosen topic's route in that view (`None`: TOPIC_NOT_EXIST, or not read yet).
 */
route?: TopicRoute | null, 
/**
 * The topics it has routes for (`None`: not read yet).
 */
topics?: Array<string> | null, 
/**
 * When it last listed each broker, by address, up to the asked time (wall-clock ms).
 */
heard?: { [key in string]: number }, 
/**
 * Views received since the page's previous request, for the traffic layer.
 */
steps?: Array<ViewStep>, };
/**
 * The part of a daemon's `/api/view` the assembly reads (the JSON has more).
 */
export type DaemonView = { 
/**
 * Its RocketMQ listener, which names the NameServer.
 */
address: string, 
/**
 * Wall-clock ms when the view was built (when its clock read `uptimeMs`).
 */
wallMs: number, 
/**
 * Wall-clock ms when the daemon started (another value: it restarted).
 */
startedAtMs: number, 
/**
 * The NameServer's clock when the tables were read.
 */
uptimeMs: number, 
/**
 * Whether route queries are answered (`needWaitForService`).
 */
serving: boolean, 
/**
 * When the next expiry scan runs.
 */
nextScanMs: number, 
/**
 * `clusterAddrTable`: cluster → broker groups.
 */
clusterAddrTable: { [key in string]: Array<string> }, 
/**
 * `brokerAddrTable`: broker group → members (GET_BROKER_CLUSTER_INFO's shape).
 */
brokerAddrTable: { [key in string]: BrokerGroup }, 
/**
 * `brokerLiveTable`, in its order (cluster, then address).
 */
brokers: Array<LiveRow>, };
/**
 * A daemon's new view, with the one before it and its log lines around then.
 */
export type ViewStep = { 
/**
 * The view before.
 */
prev: DaemonView | null, 
/**
 * The new one.
 */
view: DaemonView, 
/**
 * Its latest log lines (which say how a broker that left went).
 */
recent?: Array<LogLine>, };
/**
 * A log line of a daemon, as its console sends it (what the assembly reads of it).
 */
export type LogLine = { 
/**
 * Its kind (`channel-closed`, `expired`, …).
 */
kind: string, 
/**
 * Its text.
 */
text: string, };
export type InjectedAction = { at: number, action: string, };
/**
 * A scenario as the model reads it: settings, nodes, topics, script and timings.
 */
export type ScenarioView = { seed: number, profile: "4.9" | "5.x", idleClose: boolean, latencyMs: number, jitterMs: number, autoCreate: boolean, cluster: string, namesrv: { [key in string]: string }, timings: Timings, nodes: Array<ScenarioNode>, topics: Array<string>, script: Array<FaultInfo>, };
export type Timings = { scanIntervalMs: number, idleCloseMs: number | null, brokerTimeoutMs: number, registerPeriodMs: number, routePollPeriodMs: number, isolationMs: number, };
export type ScenarioNode = { name: string, role: NodeRole, start: number, ns: string | null, topic: string | null, group: string | null, faultTolerance: boolean, everyMs: number | null, };
export type BuiltInScenario = { id: string, title: string, text: string, };
/**
 * A decoded frame.
 */
export type DecodedFrame = { code: number, codeName: string | null, language: string | null, version: number, opaque: number, flag: number, response: boolean, oneway: boolean, remark: string | null, extFields: { [key in string]: string } | null, serializeType: "JSON" | "ROCKETMQ", body: Uint8Array, bodyText: string | null, length: number, };
export type EncodeRequest = { code: number, opaque?: number, version?: number, flag?: number, language?: string, remark?: string, extFields?: { [key in string]: string }, body?: string, serializeType?: "JSON" | "ROCKETMQ", };
export type NameServerOutput = { "type": "send", conn: number, frame: Uint8Array, command: DecodedFrame, } | { "type": "close", conn: number, } | { "type": "notifyBroker", brokerAddr: string, frame: Uint8Array, command: DecodedFrame, } | { "type": "event", kind: EventKind, category: EventCategory, level: Severity, text: string, } | { "type": "persistKv", text: string, } | { "type": "persistConfig", text: string, };
