// S6 — why a dead broker still gets sends: sendLatencyFaultEnable off.
import { at, faultAt, find, option, removedAt } from "./common.js";
import { secs } from "../app/format.js";

const B = "10.0.1.3:10911";
const UNFREEZE = "unfreeze broker-b";

export default [
  {
    text: {
      en: "broker-b freezes at 75 s and comes back at 120 s. P1 runs with [[faultavoid|sendLatencyFaultEnable]] off, the default.",
      zh: "broker-b 在 75 秒冻结，120 秒恢复。P1 使用默认设置：[[faultavoid|sendLatencyFaultEnable]] 关闭。",
    },
    focus: { nodes: ["broker-b", "P1"] },
  },
  {
    text: { en: "Sends picking broker-b start to time out.", zh: "选中 broker-b 的发送开始超时。" },
    gate: { node: "P1", kinds: ["send-failed"], text: "timeout" },
    // No subject (gated on a timer): sendMsgTimeout runs out on an answer that never comes.
    subject: null,
    what: { en: "a send to broker-b times out", zh: "一次发往 broker-b 的发送超时" },
    focus: { nodes: ["P1", "broker-b"], links: [["P1", "broker-b"]] },
    panel: { kind: "lane", node: "P1" },
    after: (h) => ({ en: `First timeout at ${at(h)}.`, zh: `第一次超时在 ${at(h)}。` }),
  },
  {
    text: { en: "P1 has just lost 3 s on broker-b.", zh: "P1 刚在 broker-b 上浪费了 3 秒。" },
    ask: {
      q: { en: "Does P1 now avoid broker-b until it recovers?", zh: "P1 接下来会避开 broker-b 直到它恢复吗？" },
      options: [
        option("avoids", "Yes, it remembers the failure", "会，它记住了这次失败"),
        option("keeps", "No: it keeps choosing broker-b's queues in turn", "不会：它照样轮流选择 broker-b 的队列"),
      ],
      answer: "keeps",
      resolves: "gate",
      // Settled by P1's next timeout: before broker-b comes back, P1 did not avoid it.
      grade: (h, s, trace, model) => (h.at < faultAt(model, UNFREEZE) ? "keeps" : "avoids"),
    },
    gate: { node: "P1", kinds: ["send-failed"], text: "timeout" },
    // No subject (gated on a timer): sendMsgTimeout runs out on an answer that never comes.
    subject: null,
    what: { en: "P1's next send to broker-b", zh: "P1 下一次发往 broker-b 的发送" },
    focus: { nodes: ["P1", "broker-b"] },
    panel: { kind: "lane", node: "P1" },
    after: (h) => ({
      en: `At ${at(h)} another send timed out on broker-b: P1 keeps choosing its queues in turn, and nothing remembers the failure.`,
      zh: `${at(h)} 又一次发送在 broker-b 上超时：P1 照样轮流选择它的队列，没有任何东西记住这次失败。`,
    }),
  },
  {
    text: {
      en: "broker-b stays frozen until 120 s: silent for 45 s, well under the 120 s idle limit.",
      zh: "broker-b 一直冻结到 120 秒：静默 45 秒，远低于 120 秒的空闲上限。",
    },
    ask: {
      q: {
        en: "Will any NameServer remove broker-b before it answers again?",
        zh: "在 broker-b 再次应答之前，会有 NameServer 移除它吗？",
      },
      options: [option("no", "No", "不会"), option("yes", "Yes, and it registers again", "会，之后它再重新注册")],
      answer: "no",
      resolves: "gate",
      grade: (h, s, trace, model) => {
        const frozen = faultAt(model, "freeze broker-b");
        return removedAt(trace, "NS-1", B, frozen) === null && removedAt(trace, "NS-2", B, frozen) === null
          ? "no"
          : "yes";
      },
    },
    gate: { node: "P1", kinds: ["send-ok"], text: "brokerName=broker-b" },
    subject: { kind: "SEND_MESSAGE", from: "broker-b", to: "P1", event: "send-ok" },
    what: { en: "a send to broker-b succeeds", zh: "一次发往 broker-b 的发送成功" },
    focus: { nodes: ["P1", "broker-b", "NS-1"] },
    panel: { kind: "ns", node: "NS-1" },
    after: (h, s, trace, model) => {
      const first = find(trace, { node: "P1", kind: "send-failed", text: "timeout" });
      const back = faultAt(model, UNFREEZE);
      const n = trace.filter(
        (l) => l.node === "P1" && l.kind === "send-failed" && l.text.includes("timeout") && l.at <= back,
      ).length;
      const timeouts = first ? `${n} sends timed out, the first at ${at(first)}` : `${n} sends timed out`;
      const timeoutsZh = first ? `${n} 次发送超时，第一次在 ${at(first)}` : `${n} 次发送超时`;
      return {
        en: `Back at ${secs(back)}, SEND_OK on broker-b at ${at(h)}: no NameServer ever noticed (${timeouts}). Fault avoidance lives in each client only: compare S6-fault-4.9 and S6-fault-5.x.`,
        zh: `${secs(back)} 恢复，${at(h)} broker-b 上 SEND_OK：没有任何 NameServer 察觉（${timeoutsZh}）。故障规避只存在于各客户端中：对比 S6-fault-4.9 与 S6-fault-5.x。`,
      };
    },
  },
];
