// S4 — kill -9 is not the 120 s case.
import { AT_ONCE_MS, B, at, faultAt, option, removedAt } from "./common.js";
import { secs } from "../app/format.js";

const KILL = "kill broker-b";

export default [
  {
    text: {
      en: "At 50 s broker-b's process is killed (kill -9). It sends no goodbye, but the operating system closes its TCP connections (FIN).",
      zh: "50 秒时 broker-b 进程被杀死（kill -9）。它来不及告别，但操作系统会关闭它的 TCP 连接（FIN）。",
    },
    focus: { nodes: ["broker-b"] },
  },
  {
    text: { en: "Watch the ┃ FIN messages reach the NameServers.", zh: "观察 ┃ FIN 到达 NameServer。" },
    ask: {
      q: { en: "No UNREGISTER was sent. When does NS-1 notice?", zh: "没有发送注销。NS-1 什么时候发现？" },
      options: [
        option("ms", "Milliseconds: the closed connection tells it", "几毫秒：连接关闭告诉了它"),
        option("120", "After 120 s without heartbeats", "120 秒没有心跳之后"),
        option("never", "Never, until an operator removes it", "永远不会，除非运维手动移除"),
      ],
      answer: "ms",
      resolves: "gate",
      grade: (h, s, trace, model) => (h.at - faultAt(model, KILL) < AT_ONCE_MS ? "ms" : "120"),
    },
    gate: { node: "NS-1", kinds: ["channel-closed", "unregistered", "channel-idle", "expired"], text: B },
    subject: { kind: "FIN", from: "broker-b", to: "NS-1", event: "channel-closed" },
    what: { en: "NS-1 sees broker-b go", zh: "NS-1 发现 broker-b 离开" },
    focus: {
      nodes: ["broker-b", "NS-1", "NS-2"],
      links: [
        ["broker-b", "NS-1"],
        ["broker-b", "NS-2"],
      ],
    },
    panel: { kind: "ns", node: "NS-1" },
    after: (h, s, trace, model) => {
      const r2 = removedAt(trace, "NS-2", B, faultAt(model, KILL));
      return {
        en: `At ${at(h)} NS-1 logged "the broker's channel destroyed" (NS-2 at ${r2 === null ? "—" : secs(r2)}): a crash with the OS alive is noticed in milliseconds, not 120 s.`,
        zh: `NS-1 在 ${at(h)} 记录 "the broker's channel destroyed"（NS-2 在 ${r2 === null ? "—" : secs(r2)}）。操作系统存活时的崩溃在毫秒内被发现，而不是 120 秒。`,
      };
    },
  },
  {
    text: {
      en: "The clients are not told: P1 still has broker-b in its cache.",
      zh: "客户端不会被通知：P1 的缓存里仍有 broker-b。",
    },
    ask: {
      q: { en: "When does P1 stop using broker-b?", zh: "P1 何时不再使用 broker-b？" },
      options: [
        option("now", "At once, like the NameServers", "立即，和 NameServer 一样"),
        option("poll", "At its next route poll, up to 30 s later", "下一次路由轮询时，最多晚 30 秒"),
        option("120", "After 120 s", "120 秒之后"),
      ],
      answer: "poll",
      resolves: "gate",
      grade: (h, s, trace, model) => {
        const killed = faultAt(model, KILL);
        const r = removedAt(trace, "NS-1", B, killed);
        return r !== null && h.at - r < AT_ONCE_MS
          ? "now"
          : h.at - killed <= model.timings.routePollPeriodMs + AT_ONCE_MS
            ? "poll"
            : "120";
      },
    },
    gate: { node: "P1", kinds: ["route-updated"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P1", event: "route-updated" },
    what: { en: "P1's route poll", zh: "P1 的路由轮询" },
    focus: { nodes: ["P1", "NS-1"] },
    panel: { kind: "stale", node: "P1" },
    after: (h) => ({
      en: `P1 dropped broker-b at ${at(h)}. Compare S3 (shutdown) and S5 (hang): same client lag, very different NameServer delays.`,
      zh: `P1 在 ${at(h)} 去掉 broker-b。对比 S3（关闭）与 S5（挂起）：客户端延迟相同，NameServer 的延迟差别很大。`,
    }),
  },
];
