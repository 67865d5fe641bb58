// A user's program against the published types: compiled with tsc --noEmit by scripts/test-package.sh.
import init, { Simulation, NameServer, decodeFrame, encodeFrame, builtInScenarios } from "rocketmq-nameserver";
import type {
  TraceEvent,
  NodeInfo,
  ClientRoute,
  Measurement,
  NameServerOutput,
  WireEvent,
  TimerInfo,
  LiveRow,
  InjectedAction,
  BranchInfo,
  ClusterView,
  Delta,
  NsTables,
} from "rocketmq-nameserver";

await init();

const ids: string[] = builtInScenarios().map((s) => s.id);
const sim = Simulation.builtIn(ids[0]);
sim.seek(75_000);
const lines: TraceEvent[] = sim.step();
const view: ClusterView = sim.view(null);
const nodes: NodeInfo[] = view.nodes;
const p1: ClientRoute | undefined = view.clients["P1"];
const firstQueue: number | undefined = p1?.route?.queueDatas[0]?.writeQueueNums;
const measurements: Measurement[] = view.measurements;
const when: number | null = measurements[0]?.nsRemoval[0]?.[1] ?? null;
sim.advance(10_000);
const since: Delta = sim.view(view.delta.cursor).delta;
const sent: WireEvent[] = since.wire;
const lostIds: (number | null)[] = sent.filter((m) => m.lost).map((m) => m.id);
const periods: (number | null)[] = nodes.flatMap((n) => n.timers).map((t: TimerInfo) => t.periodMs);
const rows: LiveRow[] = view.ns["NS-1"]?.brokers ?? [];
const by: ("idle" | "scan")[] = rows.map((r) => r.removalBy);
const later: InjectedAction[] = sim.laterInjected();
const forked: number = sim.fork(true);
const dropped: number[] = sim.view(since.cursor).branches.map((b: BranchInfo) => b.dropped);
console.log(lostIds, periods, by, later, forked, dropped, since.reset, since.trace.length);

const ns = new NameServer(0, "scanNotActiveBrokerInterval=5000", undefined);
ns.connect(1, "127.0.0.1:1", 1);
ns.receive(1, encodeFrame({ code: 105, extFields: { topic: "T" } }), 2);
const out = ns.pollOutput() as NameServerOutput | undefined;
if (out?.type === "send") {
  const code: number = out.command.code;
  const frame: Uint8Array = out.frame;
  console.log(code, frame.length, decodeFrame(frame)?.remark);
}
const tables: NsTables = ns.tables();
console.log(tables.brokers.length, tables.serving);

// @ts-expect-error seek takes milliseconds as a number
sim.seek("10");

console.log(lines.length, nodes.length, firstQueue, when, sim.traceHash());
