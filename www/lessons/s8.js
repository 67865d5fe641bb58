// S8 — master down, slave alive: reads survive, writes move away, nobody promotes the slave.
import { A, at, faultAt, find, option } from "./common.js";

export default [
  {
    text: {
      en: "At 50 s the [[master]] of group broker-a is killed; its [[slave]] broker-a-s stays up. Classic master/slave has no automatic promotion.",
      zh: "50 秒时 broker-a 组的[[master|主节点]]被杀死；它的[[slave|从节点]] broker-a-s 仍在运行。经典主从模式没有自动切换。",
    },
    focus: { nodes: ["broker-a", "broker-a-s"] },
  },
  {
    text: {
      en: "The OS closes the dead master's connections; the NameServers drop it at once.",
      zh: "操作系统关闭已死主节点的连接；NameServer 立即移除它。",
    },
    ask: {
      q: {
        en: "What does NS-1's route say about group broker-a now?",
        zh: "现在 NS-1 的路由里 broker-a 组是什么样子？",
      },
      options: [
        option("gone", "Nothing: the group is gone", "什么都没有：整个组消失了"),
        option("slave", "The group with only its slave, {1: broker-a-s}", "组里只剩从节点 {1: broker-a-s}"),
        option("promoted", "The slave, promoted to master, {0: broker-a-s}", "从节点被提升为主节点 {0: broker-a-s}"),
      ],
      answer: "slave",
      resolves: "gate",
      grade: (h, snap) => {
        const route = Object.values(snap.routes["NS-1"] || {})[0];
        const g = route && route.brokerDatas.find((b) => b.brokerName === "broker-a");
        return !g ? "gone" : g.brokerAddrs["0"] ? "promoted" : "slave";
      },
    },
    gate: { node: "NS-1", kinds: ["unregistered"], text: A },
    subject: { kind: "FIN", from: "broker-a", to: "NS-1", event: "unregistered" },
    what: { en: "NS-1 removes broker-a's master", zh: "NS-1 移除 broker-a 的主节点" },
    focus: { nodes: ["NS-1", "broker-a", "broker-a-s"] },
    panel: { kind: "ns", node: "NS-1" },
    after: (h) => ({
      en: `At ${at(h)} NS-1 kept group broker-a with only {1: broker-a-s}. Nobody promotes the slave.`,
      zh: `${at(h)} NS-1 的 broker-a 组只剩 {1: broker-a-s}。没有人提升从节点。`,
    }),
  },
  {
    text: { en: "P1 learns at its next route poll.", zh: "P1 在下一次路由轮询时得知。" },
    gate: { node: "P1", kinds: ["route-updated"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P1", event: "route-updated" },
    what: { en: "P1's route poll", zh: "P1 的路由轮询" },
    focus: { nodes: ["P1", "NS-1"] },
    panel: { kind: "route", node: "P1" },
    after: (h) => ({
      en: `At ${at(h)} P1's route lists broker-a with its slave only.`,
      zh: `${at(h)} P1 的路由中 broker-a 只剩从节点。`,
    }),
  },
  {
    text: {
      en: "C1 still has broker-a's queues, full of messages written before the crash.",
      zh: "C1 仍持有 broker-a 的队列，里面是崩溃前写入的消息。",
    },
    ask: {
      q: { en: "Can C1 keep reading broker-a's queues?", zh: "C1 还能继续读取 broker-a 的队列吗？" },
      options: [
        option("slave", "Yes, from the slave", "能，从从节点读取"),
        option("wait", "No, they wait for the master to return", "不能，要等主节点回来"),
      ],
      answer: "slave",
      resolves: "gate",
      grade: (h) => (/go to slave/.test(h.text) ? "slave" : "wait"),
    },
    gate: { node: "C1", kinds: ["info"], text: "pulls of broker-a's queues go to slave" },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-2", to: "C1", event: "info" },
    what: { en: "C1 moves its pulls", zh: "C1 转移拉取" },
    focus: { nodes: ["C1", "broker-a-s"], links: [["C1", "broker-a-s"]] },
    panel: { kind: "consumer", node: "C1" },
    after: (h) => ({
      en: `At ${at(h)} C1's pulls of broker-a's queues went to the slave: reads survive a dead master, writes do not.`,
      zh: `${at(h)} C1 对 broker-a 队列的拉取转到了从节点：主节点死了，读取还能继续，写入不能。`,
    }),
  },
  {
    text: {
      en: "The slave holds all of broker-a's messages and is alive.",
      zh: "从节点保存着 broker-a 的全部消息，而且活着。",
    },
    ask: {
      q: { en: "Does P1 send to group broker-a through its slave?", zh: "P1 会通过从节点向 broker-a 组发送吗？" },
      options: [
        option("yes", "Yes, the slave takes the writes", "会，由从节点接收写入"),
        option(
          "no",
          "No: producers write only to a master, so every send goes to broker-b",
          "不会：生产者只写主节点，所以全部发给 broker-b",
        ),
      ],
      answer: "no",
      resolves: "gate",
      grade: (h, snap, trace, model) => {
        const killed = faultAt(model, "kill broker-a");
        const update = find(trace, { node: "P1", kind: "route-updated", from: killed });
        const writes = trace.filter(
          (l) =>
            l.node === "P1" &&
            l.kind === "send-ok" &&
            l.at > (update ? update.at : killed) &&
            l.at <= h.at &&
            l.text.includes("brokerName=broker-a,"),
        );
        return writes.length ? "yes" : "no";
      },
    },
    gate: { at: 80000 },
    // No subject (gated on a time): the step watches the clocks, no message.
    subject: null,
    what: { en: "t = 80 s", zh: "t = 80 秒" },
    focus: { nodes: ["P1", "broker-b", "broker-a-s"] },
    panel: { kind: "lane", node: "P1" },
    after: () => ({
      en: "Since its poll, every send of P1 went to broker-b: a group without a master (BID 0) takes no writes.",
      zh: "自那次轮询起，P1 的每次发送都去了 broker-b：没有主节点（BID 0）的组不接收写入。",
    }),
  },
  {
    text: { en: "The master restarts at 150 s and registers again.", zh: "主节点在 150 秒重启并重新注册。" },
    gate: { node: "NS-1", kinds: ["registered"], text: A },
    subject: { kind: "REGISTER_BROKER", from: "broker-a", to: "NS-1", event: "registered" },
    what: { en: "broker-a re-registers", zh: "broker-a 重新注册" },
    focus: { nodes: ["NS-1", "broker-a"] },
    panel: { kind: "ns", node: "NS-1" },
    after: (h) => ({
      en: `Registered again at ${at(h)}; P1 writes to it after its next poll, and C1 moves its pulls back to the master.`,
      zh: `${at(h)} 重新注册；P1 在下一次轮询后恢复写入，C1 把拉取移回主节点。`,
    }),
  },
];
