//! TypeScript declarations for the plain objects the bindings return.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const SECTION: &str = TYPES;

/// The declarations, also read by the test that holds their unions to the core's lists.
#[cfg_attr(
    not(test),
    expect(dead_code, reason = "wasm-bindgen copies it into the section at compile time, which rustc does not count")
)]
const TYPES: &str = r#"
/** One trace line: time (ms), node, kind and RocketMQ's log wording. */
export interface TraceEvent { seq: number; at: number; node: string; kind: TraceKind; text: string; }
/** A NameServer's line has its event's `EventCategory` as kind; the others are clients' and brokers'. */
export type TraceKind = "lifecycle" | "fault" | "registered" | "register-ok" | "register-failed" | "unregistered"
  | "expired" | "channel-closed" | "channel-idle" | "topic-changed" | "kv" | "config" | "request" | "notified"
  | "scan" | "route-updated" | "route-not-found" | "route-query-failed" | "send-ok" | "send-retry" | "send-failed"
  | "pull" | "rebalance" | "offset" | "info";
/** Which NameServer event a line is: one per event the core emits. */
export type EventKind = "broker-registered" | "registration-rejected" | "registration-conflict" | "topic-registered"
  | "topic-changed" | "broker-expired" | "channel-destroyed" | "channel-idle" | "broker-unregistered"
  | "stale-unregister-ignored" | "broker-name-removed" | "cluster-removed" | "topic-removed-with-broker"
  | "topic-deleted" | "write-perm-changed" | "kv-put" | "kv-deleted" | "config-updated" | "config-update-refused"
  | "header-field-ignored" | "min-broker-id-changed";
/** The group an event is shown under (the console's `kind`, the simulation's trace kind). */
export type EventCategory = "registered" | "register-failed" | "unregistered" | "expired" | "channel-closed"
  | "channel-idle" | "topic-changed" | "kv" | "config" | "request" | "notified" | "info";
/** The level Java logs an event's line at. */
export type Severity = "info" | "warn";
/**
 * An armed timer. `kind` is a stable id: "register" | "scan" | "route-poll" | "heartbeat" | "send"
 * | "rebalance" | "pull-retry" | "long-poll" | "commit-offsets" | "slave-sync" | "idle-close".
 * `periodMs` is the period (for one-shot
 * waits, the wait) the model uses; `peer` is the node at the other end of an idle-close timer's
 * connection.
 */
export interface TimerInfo { label: string; kind: TimerKind; at: number; periodMs: number | null; peer: string | null; }
export type TimerKind = "register" | "scan" | "route-poll" | "heartbeat" | "send" | "rebalance" | "pull-retry"
  | "long-poll" | "commit-offsets" | "slave-sync" | "idle-close";
export interface NodeInfo {
  id: number; name: string; role: "nameserver" | "broker" | "producer" | "consumer";
  state: "not-started" | "up" | "frozen" | "shutting-down" | "down" | "powered-off";
  addr: string; group: string | null; brokerId: number | null; boundTo: string | null;
  timers: TimerInfo[]; staleSince: number | null;
}
export type MessageCategory = "register" | "unregister" | "route" | "send" | "pull" | "heartbeat" | "close" | "reset"
  | "failure" | "other";
export interface FlightInfo {
  id: number; from: string; to: string; sentAt: number; arriveAt: number;
  category: MessageCategory; response: boolean; summary: string; held: boolean;
}
/**
 * A message put on the wire, as it was sent. `id` is its flight id, or null when a cut link
 * swallowed it (it never became a flight). `type` is the request code's Java name
 * (`REGISTER_BROKER`, `GET_ROUTEINFO_BY_TOPIC`, `SEND_MESSAGE`, ...; for an answer, the request it
 * answers), `FIN` or `RST`. `lost`: the network will not deliver it as sent (cut link, or a
 * resetting link that answers with a RST instead); `arriveAt` is then when it would have
 * arrived at the base latency. Later delays, drops and freezes show in `flights()`, not here.
 */
export interface WireEvent {
  id: number | null; from: string; to: string; sentAt: number; arriveAt: number;
  category: MessageCategory; response: boolean; type: string; lost: boolean;
}
export interface QueueInfo { brokerName: string; readQueueNums: number; writeQueueNums: number; perm: number; topicSysFlag: number; }
export interface BrokerInfo { brokerName: string; cluster: string; brokerAddrs: Record<string, string>; zoneName: string | null; }
/** A topic route, shaped like the RocketMQ dashboard's Router view. */
export interface TopicRoute { brokerDatas: BrokerInfo[]; queueDatas: QueueInfo[]; orderTopicConf: string | null; }
/** A broker's topic-config data version. */
export interface DataVersion { counter: number; stateVersion: number; timestamp: number; }
/**
 * A brokerLiveTable row as `view().ns` and the daemon's `/api/view` show it, with its removal
 * clock (times in ms on the NameServer's clock; `haServerAddr` "" when none): `idleCloseAt` is
 * when the idle close of the broker's channel fires (null with idle close off, no tracked
 * channel, or in `NameServer.tables()`), `scanExpireAt` the first scan that finds it expired,
 * `removalAt` the earlier of the two and `removalBy` which one.
 */
export interface LiveRow {
  cluster: string; brokerAddr: string; brokerName: string; brokerId: number; haServerAddr: string;
  lastUpdate: number; timeoutMs: number; expiresAt: number; dataVersion: DataVersion;
  scanExpireAt: number; idleCloseAt: number | null; removalAt: number; removalBy: "idle" | "scan";
}
/** A brokerAddrTable entry (BrokerData). */
export interface BrokerGroup {
  cluster: string; brokerName: string; brokerAddrs: Record<string, string>; zoneName?: string; enableActingMaster: boolean;
}
/** One NameServer's tables, in the JSON of the daemon's `/api/view`. */
export interface NsTables {
  uptimeMs: number; serving: boolean; nextScanMs: number; clusterAddrTable: Record<string, string[]>;
  brokerAddrTable: Record<string, BrokerGroup>; brokers: LiveRow[];
}
/** Where a caller is in the current branch's logs: pass the last view's `delta.cursor` back. */
export interface Cursor { branch: number; time: number; trace: number; sends: number; wire: number; }
/**
 * The logs since a cursor. `reset`: the cursor was from another branch or a later time (or
 * none), so `trace` and `sends` are whole and `wire` is empty.
 */
export interface Delta {
  reset: boolean; traceFrom: number; trace: TraceEvent[]; sendsFrom: number; sends: SendInfo[]; wire: WireEvent[];
  cursor: Cursor;
}
/**
 * The cluster now (`Simulation.view`): `ns` holds each running NameServer's tables, `routes`
 * what each NameServer answers for each of the scenario's topics (null: none), `clients` each
 * running client's route, `consumers` each consumer.
 */
export interface ClusterView {
  time: number; next: number | null; nodes: NodeInfo[]; flights: FlightInfo[]; ns: Record<string, NsTables>;
  routes: Record<string, Record<string, TopicRoute | null>>; clients: Record<string, ClientRoute>;
  consumers: Record<string, ConsumerView>; faults: FaultInfo[]; stale: StaleWindow[]; measurements: Measurement[];
  links: LinkInfo[]; isolations: IsolationInfo[]; branches: BranchInfo[]; delta: Delta;
}
export interface ClientRoute {
  name: string; topic: string; boundTo: string; route: TopicRoute | null; changedAt: number | null;
  stale: boolean; staleSince: number | null;
}
export interface Measurement {
  at: number; action: string; target: string | null;
  nsRemoval: [string, number | null][]; clientUpdate: [string, number | null][];
  attempts: number; failedAttempts: number; sendsFailed: number; sendsRetried: number; sendsIndeterminate: number;
}
export interface StaleWindow { client: string; from: number; to: number | null; }
export interface SendAttemptInfo { broker: string; at: number; failure: "connect-failed" | "closed" | "timeout" | null; }
export interface SendInfo {
  producer: string; id: number; started: number; finished: number;
  outcome: "ok" | "failed" | "indeterminate"; attempts: SendAttemptInfo[];
}
/**
 * One queue a consumer holds. `nextOffset` is null while it asks the broker where to start;
 * `committedOffset` is what the instance it commits to (the master, else a slave) holds for
 * its group (null: none, or that broker is down); `maxOffset` is the queue's max offset on the
 * instance it reads. `from` says where the start offset came from: "committed" (the group's
 * committed offset), "first" (nothing committed yet: a new group reads from offset 0) or
 * "max" (no offset at all: CONSUME_FROM_LAST_OFFSET). `pullingFrom` is the instance pulls go to.
 */
export interface ConsumerQueue {
  broker: string; queueId: number; nextOffset: number | null; committedOffset: number | null;
  maxOffset: number | null; from: "committed" | "first" | "max" | null; pullingFrom: string | null;
}
/**
 * A consumer: its queues (empty while it is not running) and what its machine consumed across
 * restarts, with how many of those were consumed a second time.
 */
export interface ConsumerView {
  name: string; group: string; topic: string; running: boolean; queues: ConsumerQueue[];
  consumed: number; duplicates: number;
}
export interface FaultInfo { at: number; action: string; target: string | null; }
export interface LinkInfo { a: string; b: string; state: "cut" | "reset"; }
export interface IsolationInfo { producer: string; broker: string; until: number; }
/** A branch; `dropped`/`kept`: how many actions injected on its parent after the fork point it dropped or kept. */
export interface BranchInfo {
  id: number; label: string; parent: number | null; forkAt: number | null; head: number; current: boolean;
  dropped: number; kept: number;
}
/** An action injected on the current branch, as the script writes it. */
export interface InjectedAction { at: number; action: string; }
/**
 * The model's periods and timeouts for a scenario, in ms. `scanIntervalMs` is
 * scanNotActiveBrokerInterval (the profile's, or a `namesrv` line's); `idleCloseMs` is when a
 * NameServer closes a silent connection (serverChannelMaxIdleTimeSeconds; null with `idle off`
 * or 0); `brokerTimeoutMs` how long a registration stays valid; `isolationMs` how long
 * sendLatencyFaultEnable isolates a broker.
 */
export interface Timings {
  scanIntervalMs: number; idleCloseMs: number | null; brokerTimeoutMs: number; registerPeriodMs: number;
  routePollPeriodMs: number; isolationMs: number;
}
/**
 * A scenario node as written: `ns` is the NameServer a client is configured with (null: random);
 * `faultTolerance` is a producer's sendLatencyFaultEnable at start, `everyMs` the time between its sends.
 */
export interface ScenarioNode {
  name: string; role: "nameserver" | "broker" | "producer" | "consumer"; start: number;
  ns: string | null; topic: string | null; group: string | null; faultTolerance: boolean; everyMs: number | null;
}
/**
 * A scenario as the model reads it. `namesrv`: the `namesrv KEY VALUE` lines; `topics`: the
 * clients' topics, then the created ones; `script`: the timed actions with the node each names first.
 */
export interface ScenarioView {
  seed: number; profile: "4.9" | "5.x"; idleClose: boolean; latencyMs: number; jitterMs: number; autoCreate: boolean;
  cluster: string; namesrv: Record<string, string>; timings: Timings; nodes: ScenarioNode[]; topics: string[];
  script: FaultInfo[];
}
export interface BuiltInScenario { id: string; title: string; text: string; }
export interface DecodedFrame {
  code: number; codeName: string | null; language: string | null; version: number; opaque: number; flag: number;
  response: boolean; oneway: boolean; remark: string | null; extFields: Record<string, string> | null;
  serializeType: "JSON" | "ROCKETMQ"; body: Uint8Array; bodyText: string | null; length: number;
}
export interface EncodeRequest {
  code: number; opaque?: number; version?: number; flag?: number; language?: string; remark?: string;
  extFields?: Record<string, string>; body?: string; serializeType?: "JSON" | "ROCKETMQ";
}
export type NameServerOutput =
  | { type: "send"; conn: number; frame: Uint8Array; command: DecodedFrame }
  | { type: "close"; conn: number }
  | { type: "notifyBroker"; brokerAddr: string; frame: Uint8Array; command: DecodedFrame }
  | { type: "event"; kind: EventKind; category: EventCategory; level: Severity; text: string }
  | { type: "persistKv"; text: string }
  | { type: "persistConfig"; text: string };
"#;

#[cfg(test)]
mod tests {
    use nameserver_core::event::{EventCategory, EventKind, Severity};
    use nameserver_sim::TraceKind;

    use super::TYPES;

    /// The members of `export type {name} = "a" | "b" | …;`, in order.
    fn union(name: &str) -> Vec<&'static str> {
        let head = format!("export type {name} = ");
        let start = TYPES.find(&head).unwrap_or_else(|| panic!("no type {name}")) + head.len();
        let end = start + TYPES[start..].find(';').unwrap_or_else(|| panic!("{name} does not end"));
        TYPES[start..end].split('|').map(|m| m.trim().trim_matches('"')).collect()
    }

    #[test]
    fn the_typescript_unions_are_the_cores_lists() {
        assert_eq!(union("TraceKind"), TraceKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>());
        assert_eq!(union("EventKind"), EventKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>());
        assert_eq!(union("EventCategory"), EventCategory::ALL.iter().map(|c| c.name()).collect::<Vec<_>>());
        assert_eq!(union("Severity"), Severity::ALL.iter().map(|s| s.name()).collect::<Vec<_>>());
    }
}
