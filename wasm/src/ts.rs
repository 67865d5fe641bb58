//! TypeScript declarations for the plain objects the bindings return.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** One trace line: time (ms), node, kind and RocketMQ's log wording. */
export interface TraceEvent { seq: number; at: number; node: string; kind: TraceKind; text: string; }
export type TraceKind = "lifecycle" | "fault" | "registered" | "register-ok" | "register-failed" | "unregistered"
  | "expired" | "channel-closed" | "channel-idle" | "topic-changed" | "scan" | "route-updated" | "route-not-found"
  | "route-query-failed" | "send-ok" | "send-retry" | "send-failed" | "pull" | "rebalance" | "offset" | "info";
export interface TimerInfo { label: string; at: number; }
export interface NodeInfo {
  id: number; name: string; role: "nameserver" | "broker" | "producer" | "consumer";
  state: "not-started" | "up" | "frozen" | "shutting-down" | "down" | "powered-off";
  addr: string; group: string | null; brokerId: number | null; boundTo: string | null;
  timers: TimerInfo[]; staleSince: number | null;
}
export interface FlightInfo {
  id: number; from: string; to: string; sentAt: number; arriveAt: number;
  category: "register" | "unregister" | "route" | "send" | "pull" | "heartbeat" | "close" | "reset" | "failure" | "other";
  response: boolean; summary: string; held: boolean;
}
export interface QueueInfo { brokerName: string; readQueueNums: number; writeQueueNums: number; perm: number; topicSysFlag: number; }
export interface BrokerInfo { brokerName: string; cluster: string; brokerAddrs: Record<string, string>; zoneName: string | null; }
/** A topic route, shaped like the RocketMQ dashboard's Router view. */
export interface TopicRoute { brokerDatas: BrokerInfo[]; queueDatas: QueueInfo[]; orderTopicConf: string | null; }
export interface LiveRow {
  cluster: string; brokerAddr: string; brokerName: string; brokerId: number;
  lastUpdate: number; ageMs: number; timeoutMs: number; expiresAt: number;
}
export interface NameServerTables {
  name: string; state: string; nextScan: number | null; live: LiveRow[]; brokers: BrokerInfo[];
  clusters: Record<string, string[]>; topics: Record<string, QueueInfo[]>;
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
export interface BranchInfo { id: number; label: string; parent: number | null; forkAt: number | null; head: number; current: boolean; }
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
  | { type: "event"; text: string }
  | { type: "persistKv"; text: string }
  | { type: "persistConfig"; text: string };
"#;
