// S10 — an auto-created topic lands where the first sends happen to go.
import { at, option } from "./common.js";

const creators = (trace, to) => [
  ...new Set(
    trace
      .filter((l) => l.at <= to && l.kind === "info" && l.text.startsWith("create new topic [NewTopic]"))
      .map((l) => l.node),
  ),
];

export default [
  {
    text: {
      en: "P1 sends to NewTopic, which no broker has; brokers may create it ([[tbw102|autoCreateTopicEnable]] is on). P1 sends once every 45 s.",
      zh: "P1 向 NewTopic 发送，没有任何 Broker 拥有它；Broker 可以自动创建它（[[tbw102|autoCreateTopicEnable]] 已开启）。P1 每 45 秒发送一次。",
    },
    focus: { nodes: ["P1"] },
  },
  {
    text: {
      en: "P1's first send, at 49 s, finds no route for NewTopic.",
      zh: "P1 在 49 秒的第一次发送找不到 NewTopic 的路由。",
    },
    ask: {
      q: { en: "What does P1 do?", zh: "P1 会怎么做？" },
      options: [
        option(
          "tbw",
          "It uses the route of the default topic TBW102: every broker that may create topics",
          "使用默认主题 TBW102 的路由：所有允许创建主题的 Broker",
        ),
        option("fails", "It fails with “No route info of this topic”", "以“No route info of this topic”失败"),
      ],
      answer: "tbw",
      resolves: "gate",
      grade: (h) => (/broker-a .*broker-b/.test(h.text) ? "tbw" : "fails"),
    },
    gate: { node: "P1", kinds: ["route-updated", "send-failed"], text: "NewTopic" },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P1", event: "route-updated" },
    what: { en: "P1 gets a route for NewTopic", zh: "P1 拿到 NewTopic 的路由" },
    focus: { nodes: ["P1", "NS-1"] },
    panel: { kind: "route", node: "P1" },
    after: (h) => ({
      en: `At ${at(h)} P1 took TBW102's route, broker-a and broker-b, as a provisional route for NewTopic.`,
      zh: `${at(h)} P1 把 TBW102 的路由（broker-a 和 broker-b）当作 NewTopic 的临时路由。`,
    }),
  },
  {
    text: { en: "The send goes to one queue of one broker.", zh: "这次发送只去了一个 Broker 的一个队列。" },
    ask: {
      q: { en: "Which brokers create NewTopic?", zh: "哪些 Broker 会创建 NewTopic？" },
      options: [
        option("one", "Only the broker that received the send", "只有收到这次发送的 Broker"),
        option("all", "Every broker of the provisional route", "临时路由里的每个 Broker"),
      ],
      answer: "one",
      resolves: "gate",
      grade: (h, snap, trace) => (creators(trace, h.at).length > 1 ? "all" : "one"),
    },
    gate: { at: 60000 },
    // No subject (gated on a time): the step watches the clocks, no message.
    subject: null,
    what: { en: "t = 60 s", zh: "t = 60 秒" },
    focus: { nodes: ["broker-a", "broker-b"] },
    panel: { kind: "log", node: "broker-a" },
    after: (h, snap, trace) => ({
      en: `By ${at(h)} only ${creators(trace, h.at).join(", ") || "—"} created NewTopic and registered it at once.`,
      zh: `到 ${at(h)} 只有 ${creators(trace, h.at).join("、") || "—"} 创建了 NewTopic 并立即注册。`,
    }),
  },
  {
    text: {
      en: "P1's next route poll replaces the provisional route with the real one.",
      zh: "P1 的下一次路由轮询用真实路由替换临时路由。",
    },
    gate: { node: "P1", kinds: ["route-updated"], text: "NewTopic" },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P1", event: "route-updated" },
    what: { en: "P1's route poll", zh: "P1 的路由轮询" },
    focus: { nodes: ["P1", "NS-1"] },
    panel: { kind: "route", node: "P1" },
    after: (h) => ({
      en: `From ${at(h)} P1's route holds only broker-a: all NewTopic traffic is pinned to one broker, though two could serve it.`,
      zh: `从 ${at(h)} 起 P1 的路由只有 broker-a：NewTopic 的全部流量固定在一个 Broker 上，尽管本可以有两个。`,
    }),
  },
  {
    load: "S10-burst",
    text: {
      en: "Now the same cluster, but at 4.5 s P1 sends 5 messages at once, before any broker has created NewTopic.",
      zh: "同样的集群，但 P1 在 4.5 秒一次发送 5 条消息，那时还没有任何 Broker 创建 NewTopic。",
    },
    ask: {
      q: { en: "How many brokers create NewTopic this time?", zh: "这次有几个 Broker 创建 NewTopic？" },
      options: [option("one", "One", "一个"), option("both", "Both", "两个")],
      answer: "both",
      resolves: "gate",
      grade: (h, snap, trace) => (creators(trace, h.at).length > 1 ? "both" : "one"),
    },
    gate: { at: 10000 },
    // No subject (gated on a time): the burst's scenario runs to 10 s, no message.
    subject: null,
    what: { en: "t = 10 s", zh: "t = 10 秒" },
    focus: { nodes: ["P1", "broker-a", "broker-b"] },
    panel: { kind: "lane", node: "P1" },
    after: (h, snap, trace) => ({
      en: `${creators(trace, h.at).join(" and ")} created it: the five sends spread over both brokers' queues before either registered NewTopic.`,
      zh: `${creators(trace, h.at).join(" 和 ")} 都创建了它：五次发送在任何一个注册 NewTopic 之前就分散到了两个 Broker 的队列上。`,
    }),
  },
  {
    text: { en: "P1's next poll brings the real route.", zh: "P1 的下一次轮询带来真实路由。" },
    gate: { node: "P1", kinds: ["route-updated"], text: "NewTopic" },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P1", event: "route-updated" },
    what: { en: "P1's route poll", zh: "P1 的路由轮询" },
    focus: { nodes: ["P1", "NS-1"] },
    panel: { kind: "route", node: "P1" },
    after: (h) => ({
      en: `At ${at(h)} the route holds both brokers. Where an auto-created topic lands depends on timing; in production, create topics with mqadmin.`,
      zh: `${at(h)} 路由包含两个 Broker。自动创建的主题落在哪里取决于时机；生产环境请用 mqadmin 创建主题。`,
    }),
  },
];
