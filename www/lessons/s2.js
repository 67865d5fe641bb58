// S2 — "No route info of this topic".
import { A, AT_ONCE_MS, at, find, option, startOf } from "./common.js";

export default [
  {
    text: {
      en: "This time the brokers start late (broker-a at 20.01 s). P1 starts at 4 s and wants to send once a second.",
      zh: "这次 Broker 启动较晚（broker-a 在 20.01 秒）。P1 在 4 秒启动，每秒发送一次。",
    },
    focus: { nodes: ["P1", "broker-a", "broker-b"] },
  },
  // One step from P1's start to its first send's end: the send fails 992 ms after P1's poll is
  // answered, too soon after a stop there to be a prediction (issue 34).
  {
    text: {
      en: "NS-1 knows no broker yet. With no [[route]] cached, each send of P1 first asks NS-1 on demand (TopicTest, then the default topic [[tbw102|TBW102]]).",
      zh: "NS-1 还不知道任何 Broker。没有缓存[[route|路由]]时，P1 的每次发送都会先按需询问 NS-1（先 TopicTest，再默认主题 [[tbw102|TBW102]]）。",
    },
    ask: {
      q: {
        en: "Both queries come back empty. What happens to the first send?",
        zh: "两次查询都返回空。第一次发送会怎样？",
      },
      options: [
        option(
          "noroute",
          "It fails at once inside P1: “No route info of this topic”",
          "在 P1 内部立即失败：“No route info of this topic”",
        ),
        option("broker", "A broker rejects it", "被某个 Broker 拒绝"),
        option("waits", "It waits until a broker appears", "一直等到出现 Broker"),
      ],
      answer: "noroute",
      resolves: "gate",
      grade: (h) => (h.text.includes("No route info") ? "noroute" : "broker"),
    },
    gate: { node: "P1", kinds: ["send-failed"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P1", event: "send-failed" },
    what: { en: "the first send ends", zh: "第一次发送结束" },
    focus: { nodes: ["P1", "NS-1"], links: [["P1", "NS-1"]] },
    panel: { kind: "lane", node: "P1" },
    after: (h, snap, trace) => {
      const poll = find(trace, { node: "P1", kind: "route-not-found" });
      const p = poll ? at(poll) : "?";
      return {
        en: `NS-1 answered P1's poll TOPIC_NOT_EXIST at ${p}; at ${at(h)} the send failed: "${h.text.split(",")[0]}" — the error comes from P1's empty route, not from a broker.`,
        zh: `NS-1 在 ${p} 对 P1 的轮询回答 TOPIC_NOT_EXIST；${at(h)} 发送失败："${h.text.split(",")[0]}"——错误来自 P1 的空路由，而不是 Broker。`,
      };
    },
  },
  {
    text: { en: "broker-a boots and registers with both NameServers.", zh: "broker-a 启动并向两个 NameServer 注册。" },
    gate: { node: "NS-1", kinds: ["registered"], text: A },
    subject: { kind: "REGISTER_BROKER", from: "broker-a", to: "NS-1", event: "registered" },
    what: { en: "NS-1 registers broker-a", zh: "NS-1 注册 broker-a" },
    focus: { nodes: ["broker-a", "NS-1"], links: [["broker-a", "NS-1"]] },
    panel: { kind: "ns", node: "NS-1" },
    after: (h) => ({ en: `NS-1 knows broker-a at ${at(h)}.`, zh: `NS-1 在 ${at(h)} 得知 broker-a。` }),
  },
  {
    text: { en: "The next send's on-demand query now succeeds.", zh: "下一次发送的按需查询现在会成功。" },
    gate: { node: "P1", kinds: ["route-updated"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P1", event: "route-updated" },
    what: { en: "P1 gets a route", zh: "P1 拿到路由" },
    focus: { nodes: ["P1", "NS-1"] },
    panel: { kind: "route", node: "P1" },
    after: (h) => ({
      en: `P1 has a route at ${at(h)} (broker-a only) and the send succeeds.`,
      zh: `P1 在 ${at(h)} 拿到路由（只有 broker-a），发送成功。`,
    }),
  },
  {
    text: {
      en: "broker-b registers at 22 s. P1's route is no longer empty, so it stops asking on every send.",
      zh: "broker-b 在 22 秒注册。P1 的路由已不为空，所以不再每次发送都查询。",
    },
    ask: {
      q: { en: "When does P1 start sending to broker-b?", zh: "P1 何时开始向 broker-b 发送？" },
      options: [
        option("next", "On the next send, a second later", "下一次发送，一秒之后"),
        option("poll", "At P1's next 30 s route poll", "P1 下一次 30 秒路由轮询时"),
        option("never", "Never: P1 keeps the first route", "永远不会：P1 一直用第一份路由"),
      ],
      // "next": within a couple of P1's sends of broker-b starting; a poll comes much later.
      answer: "poll",
      resolves: "gate",
      grade: (h, s, trace, model) =>
        h.at - startOf(model, "broker-b") > 2 * sendEvery(model, "P1") + AT_ONCE_MS ? "poll" : "next",
    },
    gate: { node: "P1", kinds: ["route-updated"], text: "broker-b" },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P1", event: "route-updated" },
    what: { en: "P1's route includes broker-b", zh: "P1 的路由包含 broker-b" },
    focus: { nodes: ["P1", "broker-b"] },
    panel: { kind: "timer", node: "P1", timer: "route-poll" },
    after: (h) => ({
      en: `broker-b appears in P1's route only at the poll at ${at(h)}. On-demand refresh happens only while the route is empty.`,
      zh: `broker-b 直到 ${at(h)} 的轮询才出现在 P1 的路由中。只有路由为空时才会按需刷新。`,
    }),
  },
];

function sendEvery(model, producer) {
  return model.nodes.find((n) => n.name === producer).everyMs;
}
