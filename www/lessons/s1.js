// S1 — who talks to whom: registration and discovery.
import { A, AT_ONCE_MS, B, at, find, option } from "./common.js";

export default [
  {
    text: {
      en: "Two NameServers (NS-1, NS-2), a [[group|broker group]] broker-a ([[master]] + [[slave]]), a master broker-b, producer P1 bound to NS-1 and consumer C1 bound to NS-2. NameServers never talk to each other. Press Continue to boot the cluster.",
      zh: "两个 NameServer（NS-1、NS-2），[[group|Broker 组]] broker-a（[[master|主]] + [[slave|从]]），主节点 broker-b，绑定 NS-1 的生产者 P1 和绑定 NS-2 的消费者 C1。NameServer 之间从不通信。点击“继续”启动集群。",
    },
    focus: { nodes: ["NS-1", "NS-2"] },
  },
  // The registration's fate at NS-2 is asked before broker-a boots: its refusal comes 1 ms after
  // NS-1's acceptance, too soon after any stop to be a prediction (issue 34).
  {
    text: {
      en: "broker-a boots at 1.0 s and [[register|registers]] with every NameServer: the message goes broker → NameServer. NS-1 is running; NS-2 only starts at 3 s.",
      zh: "broker-a 在 1.0 秒启动，并向每个 NameServer [[register|注册]]：消息方向是 Broker → NameServer。NS-1 已在运行；NS-2 在 3 秒才启动。",
    },
    ask: {
      q: { en: "What happens to broker-a's registration with NS-2?", zh: "broker-a 向 NS-2 的注册会怎样？" },
      options: [
        option(
          "fails",
          "It fails; the broker tries again at its next periodic registration",
          "失败；Broker 在下一次周期注册时再试",
        ),
        option("queued", "It waits in a queue until NS-2 starts", "在队列里等到 NS-2 启动"),
        option("forwarded", "NS-1 forwards it to NS-2", "由 NS-1 转发给 NS-2"),
      ],
      answer: "fails",
      resolves: "gate",
      grade: (h) => (h.kind === "register-failed" ? "fails" : "queued"),
    },
    gate: { node: "broker-a", kinds: ["register-failed", "register-ok"], text: "10.0.0.2" },
    subject: { kind: "RST", from: "NS-2", to: "broker-a", event: "register-failed" },
    what: { en: "broker-a's registration with NS-2 ends", zh: "broker-a 向 NS-2 的注册结束" },
    focus: { nodes: ["broker-a", "NS-2"], links: [["broker-a", "NS-2"]] },
    panel: { kind: "log", node: "broker-a" },
    after: (h, snap, trace) => {
      const ns1 = find(trace, { node: "NS-1", kind: "registered", text: A });
      const ok = ns1 ? at(ns1) : "?";
      return {
        en: `Refused at ${at(h)}: "connect … failed", while NS-1 had registered broker-a at ${ok}. NS-1 and NS-2 disagree from the very first seconds.`,
        zh: `${at(h)} 被拒绝："connect … failed"，而 NS-1 已在 ${ok} 注册了 broker-a。NS-1 与 NS-2 从最初几秒就不一致。`,
      };
    },
  },
  {
    text: {
      en: "broker-b boots at 2.0 s and registers too. Watch its registration reach NS-1.",
      zh: "broker-b 在 2.0 秒启动，同样去注册。看它的注册到达 NS-1。",
    },
    gate: { node: "NS-1", kinds: ["registered"], text: B },
    subject: { kind: "REGISTER_BROKER", from: "broker-b", to: "NS-1", event: "registered" },
    what: { en: "NS-1 registers broker-b", zh: "NS-1 注册 broker-b" },
    focus: { nodes: ["broker-b", "NS-1"], links: [["broker-b", "NS-1"]] },
    panel: { kind: "ns", node: "NS-1" },
    after: (h) => ({
      en: `NS-1 logged "new broker registered" at ${at(h)}.`,
      zh: `NS-1 在 ${at(h)} 记录 "new broker registered"。`,
    }),
  },
  {
    text: {
      en: "P1 starts at 4 s and asks its NameServer (NS-1) for TopicTest's [[route]].",
      zh: "P1 在 4 秒启动，向它的 NameServer（NS-1）查询 TopicTest 的[[route|路由]]。",
    },
    gate: { node: "P1", kinds: ["route-updated"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P1", event: "route-updated" },
    what: { en: "P1 receives a route", zh: "P1 收到路由" },
    focus: { nodes: ["P1", "NS-1"], links: [["P1", "NS-1"]] },
    panel: { kind: "route", node: "P1" },
    after: (h) => ({
      en: `P1 has the full route at ${at(h)}: 4 write queues on broker-a and 4 on broker-b.`,
      zh: `P1 在 ${at(h)} 拿到完整路由：broker-a 与 broker-b 各 4 个写队列。`,
    }),
  },
  {
    text: {
      en: "C1 starts at 6 s bound to NS-2, which is still empty.",
      zh: "C1 在 6 秒启动，绑定的 NS-2 仍然是空的。",
    },
    gate: { node: "C1", kinds: ["route-not-found"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-2", to: "C1", event: "route-not-found" },
    what: { en: "C1's first route query is answered", zh: "C1 的首次路由查询得到应答" },
    focus: { nodes: ["C1", "NS-2"], links: [["C1", "NS-2"]] },
    panel: { kind: "route", node: "C1" },
    after: (h) => ({
      en: `NS-2 answered TOPIC_NOT_EXIST at ${at(h)}: the brokers' start-up registrations reached NS-2 before it was running.`,
      zh: `NS-2 在 ${at(h)} 回答 TOPIC_NOT_EXIST：Broker 启动时的注册早于 NS-2 启动。`,
    }),
  },
  {
    text: {
      en: "Brokers register again every 30 s; the first periodic registration is 10 s after start. Watch broker-a's register clock.",
      zh: "Broker 每 30 秒重新注册；第一次周期注册在启动后 10 秒。观察 broker-a 的注册时钟。",
    },
    gate: { node: "NS-2", kinds: ["registered"], text: A },
    subject: { kind: "REGISTER_BROKER", from: "broker-a", to: "NS-2", event: "registered" },
    what: { en: "NS-2 learns broker-a", zh: "NS-2 得知 broker-a" },
    focus: { nodes: ["broker-a", "NS-2"], links: [["broker-a", "NS-2"]] },
    panel: { kind: "timer", node: "broker-a", timer: "register" },
    after: (h) => ({
      en: `NS-2 registered broker-a at ${at(h)}. It was empty from 3 s until then.`,
      zh: `NS-2 在 ${at(h)} 注册了 broker-a。从 3 秒到此刻它一直是空的。`,
    }),
  },
  {
    text: { en: "C1 keeps its empty answer until it asks again.", zh: "C1 会一直保持那个空的回答，直到它再次查询。" },
    ask: {
      q: {
        en: "NS-2 now knows broker-a. When will C1 have queues to read?",
        zh: "NS-2 已经知道 broker-a。C1 何时才有队列可读？",
      },
      options: [
        option("now", "Within a second: NS-2 tells it", "一秒之内：NS-2 会通知它"),
        option("poll", "At C1's next 30 s route poll", "在 C1 下一次 30 秒路由轮询时"),
        option("restart", "Only after C1 restarts", "只有 C1 重启之后"),
      ],
      answer: "poll",
      resolves: "gate",
      grade: (h, snap, trace) => {
        const learned = find(trace, { node: "NS-2", kind: "registered" });
        return learned && h.at - learned.at > AT_ONCE_MS ? "poll" : "now";
      },
    },
    gate: { node: "C1", kinds: ["route-updated"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-2", to: "C1", event: "route-updated" },
    what: { en: "C1's route poll", zh: "C1 的路由轮询" },
    focus: { nodes: ["C1", "NS-2"] },
    panel: { kind: "timer", node: "C1", timer: "route-poll" },
    after: (h) => ({
      en: `C1 has queues at ${at(h)}, although the cluster was healthy all along. Nobody pushes routes to clients.`,
      zh: `C1 在 ${at(h)} 才拿到队列，尽管集群一直是健康的。没有人向客户端推送路由。`,
    }),
  },
  {
    text: {
      en: "Watch each NameServer's clocks: one per broker, running toward that broker's removal. Every registration winds them back to full, so every [[scan]] finds nothing to remove.",
      zh: "观察每个 NameServer 上的时钟：每个 Broker 一个，倒数到该 Broker 被移除的时刻。每次注册都会把它拨回满格，因此每次[[scan|扫描]]都没有可移除的 Broker。",
    },
    gate: { at: 75000 },
    // No subject (gated on a time): the step watches the clocks, no message.
    subject: null,
    what: { en: "t = 75 s", zh: "t = 75 秒" },
    focus: { nodes: ["NS-1", "NS-2"] },
    panel: { kind: "ns", node: "NS-1" },
    after: () => ({
      en: "75 s: no broker expired. Registration is one-way and NameServers are independent.",
      zh: "75 秒：没有 Broker 过期。注册是单向的，NameServer 彼此独立。",
    }),
  },
];
