// S7 — two NameServers disagree: a silent cut between broker-b and NS-2.
import { B, at, faultAt, find, option } from "./common.js";
import { secs } from "../app/format.js";

const brokerBSends = (trace, from, to) =>
  trace.filter(
    (l) =>
      l.node === "P1" && l.kind === "send-ok" && l.at > from && l.at <= to && l.text.includes("brokerName=broker-b,"),
  ).length;

export default [
  {
    text: {
      en: "At 75 s the link between broker-b and NS-2 is cut silently: NS-2 stops hearing broker-b, while NS-1 still does. P1 asks NS-1 for routes, C1 asks NS-2.",
      zh: "75 秒时 broker-b 与 NS-2 之间的链路被静默切断：NS-2 听不到 broker-b 了，NS-1 仍能听到。P1 向 NS-1 查询路由，C1 向 NS-2 查询。",
    },
    focus: { nodes: ["broker-b", "NS-2"], links: [["broker-b", "NS-2"]] },
  },
  {
    text: {
      en: "broker-b keeps registering every 30 s, but nothing reaches NS-2.",
      zh: "broker-b 仍每 30 秒注册一次，但都到不了 NS-2。",
    },
    ask: {
      q: { en: "What do the NameServers do about broker-b?", zh: "两个 NameServer 会如何处理 broker-b？" },
      options: [
        option(
          "ns2",
          "Only NS-2 removes it, 120 s after the last registration it heard",
          "只有 NS-2 移除它，在它听到的最后一次注册之后 120 秒",
        ),
        option("both", "Both remove it: NameServers agree with each other", "两个都移除：NameServer 会彼此同步"),
        option("neither", "Neither: the broker is alive", "都不移除：Broker 还活着"),
      ],
      answer: "ns2",
      resolves: "gate",
      grade: (h, snap, trace, model) =>
        find(trace, { node: "NS-1", kind: "unregistered", text: B, from: faultAt(model, "cut broker-b NS-2") })
          ? "both"
          : "ns2",
    },
    gate: { node: "NS-2", kinds: ["unregistered"], text: B },
    // No subject (gated on a timer): the 120 s expiry scan removes broker-b, whose registrations the cut link swallows.
    subject: null,
    what: { en: "NS-2 removes broker-b", zh: "NS-2 移除 broker-b" },
    focus: { nodes: ["NS-2", "NS-1", "broker-b"] },
    panel: { kind: "divergence" },
    after: (h) => ({
      en: `NS-2 removed broker-b at ${at(h)}; NS-1 still lists it. Nothing makes them agree: they never talk.`,
      zh: `NS-2 在 ${at(h)} 移除了 broker-b；NS-1 仍保留它。没有任何机制让它们一致：它们从不通信。`,
    }),
  },
  {
    text: {
      en: "C1 reads what NS-2 says; P1 writes where NS-1 says.",
      zh: "C1 按 NS-2 的说法读取；P1 按 NS-1 的说法写入。",
    },
    ask: {
      q: { en: "What happens to the messages P1 writes to broker-b?", zh: "P1 写到 broker-b 的消息会怎样？" },
      options: [
        option("stop", "P1 stops writing there", "P1 不再写到那里"),
        option("stranded", "P1 keeps writing; C1 stops reading", "P1 继续写，C1 不再读"),
        option("fine", "C1 still reads them through NS-1", "C1 仍会通过 NS-1 读取它们"),
      ],
      // Sends to broker-b within the last route poll period: P1 still uses its route.
      answer: "stranded",
      resolves: "gate",
      grade: (h, snap, trace, model) =>
        brokerBSends(trace, h.at - model.timings.routePollPeriodMs, h.at + 1) > 0 ? "stranded" : "stop",
    },
    gate: { node: "C1", kinds: ["rebalance"], text: "remove unnecessary mq" },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-2", to: "C1", event: "rebalance" },
    what: { en: "C1 gives up broker-b's queues", zh: "C1 放弃 broker-b 的队列" },
    focus: { nodes: ["C1", "P1", "broker-b"] },
    panel: { kind: "consumer", node: "C1" },
    after: (h) => ({
      en: `At ${at(h)} C1 took NS-2's route without broker-b, committed its broker-b offsets and dropped those queues; P1 (on NS-1) still writes half its messages there.`,
      zh: `${at(h)} C1 拿到 NS-2 的路由（没有 broker-b）：它提交了 broker-b 的位点并丢弃这些队列。P1（依据 NS-1）仍把约一半的消息写到那里。`,
    }),
  },
  {
    text: {
      en: "The link heals at 300 s; broker-b's next registration reaches NS-2.",
      zh: "链路在 300 秒恢复；broker-b 的下一次注册到达 NS-2。",
    },
    gate: { node: "NS-2", kinds: ["registered"], text: B },
    subject: { kind: "REGISTER_BROKER", from: "broker-b", to: "NS-2", event: "registered" },
    what: { en: "NS-2 registers broker-b again", zh: "NS-2 重新注册 broker-b" },
    focus: { nodes: ["NS-2", "broker-b"], links: [["broker-b", "NS-2"]] },
    panel: { kind: "consumer", node: "C1" },
    after: (h, snap, trace) => {
      const dropped = find(trace, { node: "C1", kind: "rebalance", text: "remove unnecessary mq" });
      const n = dropped ? brokerBSends(trace, dropped.at, h.at) : 0;
      return {
        en: `NS-2 knows broker-b again at ${at(h)}; the NameServers agree. ${n} messages wait unread on broker-b.`,
        zh: `NS-2 在 ${at(h)} 重新知道了 broker-b；两个 NameServer 再次一致。broker-b 上有 ${n} 条消息等待读取。`,
      };
    },
  },
  {
    text: {
      en: "C1 will take broker-b's queues back at its next route poll.",
      zh: "C1 会在下一次路由轮询时重新接手 broker-b 的队列。",
    },
    ask: {
      q: { en: "Where does C1 start reading broker-b's queues?", zh: "C1 从哪里开始读取 broker-b 的队列？" },
      options: [
        option("zero", "From the first message again (duplicates)", "从第一条消息重新开始（重复消费）"),
        option("committed", "At the offset it committed when it dropped them", "从它丢弃队列时提交的位点开始"),
        option("newest", "At the newest message, skipping the backlog", "从最新的消息开始，跳过积压"),
      ],
      answer: "committed",
      resolves: "gate",
      grade: (h) =>
        /resume at offset \d+, the offset committed/.test(h.text)
          ? "committed"
          : /start at offset 0/.test(h.text)
            ? "zero"
            : "newest",
    },
    gate: {
      node: "C1",
      kinds: ["rebalance"],
      text: "add a new mq, MessageQueue [topic=TopicTest, brokerName=broker-b",
    },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-2", to: "C1", event: "rebalance" },
    what: { en: "C1 takes broker-b's queues back", zh: "C1 接手 broker-b 的队列" },
    focus: { nodes: ["C1", "broker-b"], links: [["C1", "broker-b"]] },
    panel: { kind: "consumer", node: "C1" },
    after: (h) => {
      const off = (h.text.match(/offset (\d+)/) || [])[1] || "?";
      return {
        en: `At ${at(h)} C1 resumed broker-b's queues at offset ${off}, where it had committed: it now reads the backlog, each message exactly once.`,
        zh: `${at(h)} C1 从位点 ${off}（它提交过的位置）继续读取 broker-b 的队列：积压的每条消息恰好消费一次。`,
      };
    },
  },
  {
    text: {
      en: "Two NameServers can disagree for as long as a link is down, and each client believes its own. Operators watch for this by comparing the NameServers' tables.",
      zh: "只要链路断开，两个 NameServer 就可能一直不一致，而每个客户端只相信自己那一个。运维人员通过比较各 NameServer 的表来发现这种情况。",
    },
    gate: { at: 345000 },
    // No subject (gated on a time): the step watches the clocks, no message.
    subject: null,
    what: { en: "t = 345 s", zh: "t = 345 秒" },
    focus: { nodes: ["NS-1", "NS-2"] },
    panel: { kind: "consumer", node: "C1" },
    after: () => ({ en: `By ${secs(345000)} C1 has caught up.`, zh: `到 ${secs(345000)} C1 已追上进度。` }),
  },
];
