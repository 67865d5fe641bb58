// S10 — an auto-created topic lands on one broker.
import { at } from "./common.js";

export default [
  {
    text: { en: "P1 sends to NewTopic, which no broker has; autoCreateTopicEnable is on.", zh: "P1 向 NewTopic 发送，没有任何 Broker 拥有它；autoCreateTopicEnable 已开启。" },
    focus: { nodes: ["P1"] },
  },
  {
    text: { en: "The first send falls back to the [[tbw102|TBW102]] route.", zh: "第一次发送回退到 [[tbw102|TBW102]] 路由。" },
    gate: { node: "broker-a", kinds: ["info"], text: "create new topic" }, what: { en: "a broker creates the topic", zh: "某个 Broker 创建该主题" },
    focus: { nodes: ["P1", "broker-a"] }, panel: { kind: "log", node: "broker-a" },
    after: (h) => ({ en: `broker-a created NewTopic at ${at(h)} and re-registered at once.`, zh: `broker-a 在 ${at(h)} 创建 NewTopic 并立即重新注册。` }),
  },
  {
    text: { en: "P1's 30 s poll replaces the provisional route.", zh: "P1 的 30 秒轮询替换临时路由。" },
    gate: { node: "P1", kinds: ["route-updated"], text: "NewTopic" }, what: { en: "P1's route poll", zh: "P1 的路由轮询" },
    focus: { nodes: ["P1", "NS-1"] }, panel: { kind: "route", node: "P1" },
    after: (h) => ({ en: `At ${at(h)} all NewTopic traffic is pinned to broker-a.`, zh: `${at(h)} 起 NewTopic 的全部流量固定在 broker-a。` }),
  },
];
