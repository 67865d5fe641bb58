// S3 — a graceful shutdown unregisters at once, but clients still lag.
import { AT_ONCE_MS, B, at, faultAt, option, removedAt } from "./common.js";
import { dur, secs } from "../app/format.js";

const SHUTDOWN = "shutdown broker-b";

export default [
  {
    text: {
      en: "At 50 s broker-b is shut down gracefully (mqshutdown broker): before exiting, it tells every NameServer it is leaving.",
      zh: "50 秒时 broker-b 被优雅关闭（mqshutdown broker）：退出前，它会告诉每个 NameServer 自己要离开了。",
    },
    focus: { nodes: ["broker-b"] },
  },
  {
    text: { en: "Watch the ✕ UNREGISTER_BROKER messages.", zh: "观察 ✕ UNREGISTER_BROKER 消息。" },
    ask: {
      q: { en: "How long after the shutdown does NS-1 drop broker-b?", zh: "关闭之后多久 NS-1 移除 broker-b？" },
      options: [
        option("ms", "Milliseconds: the broker says goodbye", "几毫秒：Broker 主动告别"),
        option("scan", "Up to 10 s, at the next scan", "最多 10 秒，在下一次扫描时"),
        option("120", "About 120 s, when its heartbeats are missed", "约 120 秒，心跳超时后"),
      ],
      answer: "ms",
      resolves: "gate",
      grade: (h, s, trace, model) => {
        const since = h.at - faultAt(model, SHUTDOWN);
        return since < AT_ONCE_MS ? "ms" : since <= model.timings.scanIntervalMs + AT_ONCE_MS ? "scan" : "120";
      },
    },
    gate: { node: "NS-1", kinds: ["unregistered"], text: B },
    subject: { kind: "UNREGISTER_BROKER", from: "broker-b", to: "NS-1", event: "unregistered" },
    what: { en: "NS-1 removes broker-b", zh: "NS-1 移除 broker-b" },
    focus: {
      nodes: ["broker-b", "NS-1", "NS-2"],
      links: [
        ["broker-b", "NS-1"],
        ["broker-b", "NS-2"],
      ],
    },
    panel: { kind: "ns", node: "NS-1" },
    after: (h, s, trace, model) => ({
      en: `NS-1 removed broker-b at ${at(h)} (NS-2 at ${fmt(removedAt(trace, "NS-2", B, faultAt(model, SHUTDOWN)))}): "unregisterBroker, remove from brokerLiveTable". P1's cached route is now STALE.`,
      zh: `NS-1 在 ${at(h)} 移除 broker-b（NS-2 在 ${fmt(removedAt(trace, "NS-2", B, faultAt(model, SHUTDOWN)))}）。P1 的缓存路由现在已过期（STALE）。`,
    }),
  },
  {
    text: {
      en: "P1 still lists broker-b in its cached route, so some sends still pick broker-b's queues.",
      zh: "P1 缓存的路由里仍有 broker-b，所以有些发送仍会选中 broker-b 的队列。",
    },
    ask: {
      q: { en: "What happens to a send that picks broker-b now?", zh: "此时选中 broker-b 的发送会怎样？" },
      options: [
        option(
          "retried",
          "It fails fast (connection refused) and is retried at once on broker-a",
          "快速失败（连接被拒绝），并立即在 broker-a 上重试",
        ),
        option("lost", "The message is lost", "消息丢失"),
        option("waits", "It waits 120 s for broker-b", "等待 broker-b 120 秒"),
      ],
      answer: "retried",
      resolves: "gate",
      grade: (h) => (h.kind === "send-retry" ? "retried" : "lost"),
    },
    gate: { node: "P1", kinds: ["send-retry", "send-failed"] },
    subject: { kind: "RST", from: "broker-b", to: "P1", event: "send-retry" },
    what: { en: "a send to broker-b", zh: "一次发往 broker-b 的发送" },
    focus: { nodes: ["P1", "broker-b", "broker-a"] },
    panel: { kind: "stale", node: "P1" },
    after: (h) => ({
      en: `Retried at ${at(h)}: the lane shows a 2-attempt bar, and the send still ends SEND_OK.`,
      zh: `${at(h)} 重试：泳道中显示两次尝试，发送最终仍为 SEND_OK。`,
    }),
  },
  {
    text: {
      en: "P1 learns only at its next 30 s [[route]] poll.",
      zh: "P1 只有在下一次 30 秒[[route|路由]]轮询时才会得知。",
    },
    gate: { node: "P1", kinds: ["route-updated"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P1", event: "route-updated" },
    what: { en: "P1's route poll", zh: "P1 的路由轮询" },
    focus: { nodes: ["P1", "NS-1"] },
    panel: { kind: "timer", node: "P1", timer: "route-poll" },
    after: (h, s, trace, model) => {
      const r = removedAt(trace, "NS-1", B, faultAt(model, SHUTDOWN));
      return {
        en: `P1 dropped broker-b at ${at(h)}: the NameServer knew at ${fmt(r)}, the client ${r === null ? "?" : dur(h.at - r)} later. No send was lost.`,
        zh: `P1 在 ${at(h)} 去掉 broker-b：NameServer 在 ${fmt(r)} 已知道，客户端晚了 ${r === null ? "?" : dur(h.at - r)}。没有丢失发送。`,
      };
    },
  },
  {
    text: { en: "C1, bound to NS-2, polls on its own schedule.", zh: "绑定 NS-2 的 C1 按自己的节奏轮询。" },
    gate: { node: "C1", kinds: ["route-updated"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-2", to: "C1", event: "route-updated" },
    what: { en: "C1's route poll", zh: "C1 的路由轮询" },
    focus: { nodes: ["C1", "NS-2"] },
    panel: { kind: "measure" },
    after: (h) => ({
      en: `C1 stops pulling broker-b's queues after ${at(h)}. Measurements sum it up: removal in milliseconds, clients up to 30 s later.`,
      zh: `C1 在 ${at(h)} 之后不再拉取 broker-b 的队列。测量结果总结：移除只需几毫秒，客户端最多晚 30 秒。`,
    }),
  },
];

function fmt(ms) {
  return ms === null ? "—" : secs(ms);
}
