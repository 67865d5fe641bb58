// S9 — the NameServers fail: clients live on their caches, a new client cannot start, a
// restarted NameServer is empty until the brokers register again.
import { at, faultAt, option } from "./common.js";

const sendsBetween = (trace, node, from, to) =>
  trace.filter((l) => l.node === node && l.kind === "send-ok" && l.at > from && l.at <= to).length;

export default [
  {
    text: {
      en: "NS-1 crashes at 50 s and NS-2 at 100 s; NS-1 restarts at 120 s. A new producer, P2, starts at 110 s, when no NameServer is up.",
      zh: "NS-1 在 50 秒崩溃，NS-2 在 100 秒崩溃；NS-1 在 120 秒重启。新的生产者 P2 在 110 秒启动，那时没有任何 NameServer 在运行。",
    },
    focus: { nodes: ["NS-1", "NS-2", "P2"] },
  },
  {
    text: { en: "NS-1 is gone. P1's next route poll goes to it.", zh: "NS-1 没了。P1 的下一次路由轮询发往它。" },
    gate: { node: "P1", kinds: ["route-query-failed"] },
    subject: { kind: "RST", from: "NS-1", to: "P1", event: "route-query-failed" },
    what: { en: "P1's poll fails", zh: "P1 的轮询失败" },
    focus: { nodes: ["P1", "NS-1", "NS-2"] },
    panel: { kind: "log", node: "P1" },
    after: (h) => ({
      en: `At ${at(h)} P1's poll failed and it switched to NS-2, keeping its cached route.`,
      zh: `${at(h)} P1 的轮询失败，它切换到 NS-2，缓存的路由保留。`,
    }),
  },
  {
    text: {
      en: "At 100 s NS-2 dies too: no NameServer is left.",
      zh: "100 秒时 NS-2 也宕机了：一个 NameServer 都不剩。",
    },
    ask: {
      q: { en: "What happens to P1 and C1?", zh: "P1 和 C1 会怎样？" },
      options: [
        option("stop", "They stop: without a NameServer there are no routes", "它们停下来：没有 NameServer 就没有路由"),
        option("cache", "They keep sending and consuming on their cached routes", "它们依靠缓存的路由继续发送和消费"),
      ],
      answer: "cache",
      resolves: "gate",
      grade: (h, snap, trace, model) =>
        sendsBetween(trace, "P1", faultAt(model, "kill NS-2"), h.at) > 0 ? "cache" : "stop",
    },
    gate: { at: 110000 },
    // No subject (gated on a time): the step watches the clocks, no message.
    subject: null,
    what: { en: "t = 110 s", zh: "t = 110 秒" },
    focus: { nodes: ["P1", "C1", "broker-a", "broker-b"] },
    panel: { kind: "lane", node: "P1" },
    after: (h, snap, trace, model) => {
      const n = sendsBetween(trace, "P1", faultAt(model, "kill NS-2"), h.at);
      return {
        en: `From 100 s to ${at(h)} P1 sent ${n} messages with no NameServer up: brokers do not need NameServers to serve.`,
        zh: `从 100 秒到 ${at(h)}，在没有 NameServer 的情况下 P1 发送了 ${n} 条消息：Broker 服务不依赖 NameServer。`,
      };
    },
  },
  {
    text: { en: "P2 starts now. It has no route cached.", zh: "P2 现在启动。它没有缓存任何路由。" },
    ask: {
      q: { en: "Can P2 send?", zh: "P2 能发送吗？" },
      options: [
        option("yes", "Yes: a broker tells it the route", "能：某个 Broker 会告诉它路由"),
        option("no", "No: “No route info of this topic”", "不能：“No route info of this topic”"),
      ],
      answer: "no",
      resolves: "gate",
      grade: (h) => (/No route info/.test(h.text) ? "no" : "yes"),
    },
    gate: { node: "P2", kinds: ["send-failed", "send-ok"] },
    subject: { kind: "RST", from: "NS-1", to: "P2", event: "send-failed" },
    what: { en: "P2's first send", zh: "P2 的第一次发送" },
    focus: { nodes: ["P2"] },
    panel: { kind: "lane", node: "P2" },
    after: (h) => ({
      en: `At ${at(h)} P2 failed: "No route info of this topic", while P1 still sends from its cache.`,
      zh: `${at(h)} P2 失败："No route info of this topic"，而 P1 仍靠缓存发送。`,
    }),
  },
  {
    text: { en: "NS-1 restarts at 120 s and P2 asks it at once.", zh: "NS-1 在 120 秒重启，P2 立刻向它查询。" },
    ask: {
      q: { en: "Does the restarted NS-1 know the brokers?", zh: "重启后的 NS-1 还知道这些 Broker 吗？" },
      options: [
        option("saved", "Yes, it saved its tables", "知道，它保存了自己的表"),
        option("empty", "No: it starts empty until the brokers register again", "不知道：在 Broker 重新注册前它是空的"),
      ],
      answer: "empty",
      resolves: "gate",
      grade: (h) => (h.kind === "route-not-found" ? "empty" : "saved"),
    },
    gate: { node: "P2", kinds: ["route-not-found", "route-updated"], text: "10.0.0.1" },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P2", event: "route-not-found" },
    what: { en: "NS-1 answers P2", zh: "NS-1 回答 P2" },
    focus: { nodes: ["NS-1", "P2"], links: [["P2", "NS-1"]] },
    panel: { kind: "ns", node: "NS-1" },
    after: (h) => ({
      en: `At ${at(h)} the restarted NS-1 answered TOPIC_NOT_EXIST: a NameServer keeps its tables in memory only.`,
      zh: `${at(h)} 重启后的 NS-1 回答 TOPIC_NOT_EXIST：NameServer 只把表保存在内存中。`,
    }),
  },
  {
    text: { en: "The brokers' next registrations refill it.", zh: "Broker 的下一轮注册会重新填满它。" },
    gate: { node: "P2", kinds: ["route-updated"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P2", event: "route-updated" },
    what: { en: "P2 gets a route", zh: "P2 拿到路由" },
    focus: { nodes: ["NS-1", "P2", "broker-a", "broker-b"] },
    panel: { kind: "ns", node: "NS-1" },
    after: (h) => ({
      en: `P2 has a route at ${at(h)}, about 11 s after NS-1 came back: the time to the brokers' next registration.`,
      zh: `P2 在 ${at(h)} 拿到路由，距 NS-1 恢复约 11 秒：正是到 Broker 下一次注册的时间。`,
    }),
  },
];
