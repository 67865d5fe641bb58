// S5 — silent failure: the 120 s clock.
import { AT_ONCE_MS, B, at, faultAt, option, lastRegistration, removedAt } from "./common.js";
import { dur, secs, span } from "../app/format.js";

const FREEZE = "freeze broker-b";

// When the clock of the rule that removed broker-b started (ms): the idle close's last byte or
// the scan's last registration, as the removal's operands give them; null without them.
function removalClockFrom(o) {
  if (o && o.rule === "idle-close") return o.lastIo;
  if (o && o.rule === "expired") return o.lastUpdate;
  return null;
}

export default [
  {
    text: {
      en: "At 75 s broker-b hangs: its sockets stay open, no FIN or RST is sent, and packets to it vanish. This is what a hung process, a power cut or a pulled cable look like from outside.",
      zh: "75 秒时 broker-b 挂起：连接保持打开，不发送 FIN 或 RST，发往它的数据包消失。从外部看，进程挂死、断电、拔网线都是这样。",
    },
    focus: { nodes: ["broker-b"] },
  },
  {
    text: { en: "The freeze happens.", zh: "冻结发生。" },
    gate: { node: "broker-b", kinds: ["fault"] },
    // No subject (gated on a fault): the freeze is the script's, no message.
    subject: null,
    what: { en: "broker-b freezes", zh: "broker-b 冻结" },
    focus: { nodes: ["broker-b"] },
    panel: { kind: "ns", node: "NS-1" },
    after: (h) => ({
      en: `Frozen at ${at(h)}. The NameServers see nothing: no message says "I am gone". Their clocks for broker-b keep running down.`,
      zh: `${at(h)} 冻结。NameServer 什么也看不到：没有任何消息说“我不在了”。它们为 broker-b 计的时钟继续走。`,
    }),
  },
  {
    text: {
      en: "P1 keeps choosing broker-b's queues. Each such send waits for the whole 3000 ms sendMsgTimeout.",
      zh: "P1 仍会选择 broker-b 的队列。每次这样的发送都要等满 3000 ms 的 sendMsgTimeout。",
    },
    gate: { node: "P1", kinds: ["send-failed"], text: "timeout" },
    // No subject (gated on a timer): sendMsgTimeout runs out on an answer that never comes.
    subject: null,
    what: { en: "a send to broker-b times out", zh: "一次发往 broker-b 的发送超时" },
    focus: { nodes: ["P1", "broker-b"], links: [["P1", "broker-b"]] },
    panel: { kind: "lane", node: "P1" },
    after: (h) => ({
      en: `At ${at(h)}: "sendDefaultImpl call timeout". One attempt used the whole 3 s, so no retry (unlike S3), and nobody knows whether broker-b stored it.`,
      zh: `${at(h)}："sendDefaultImpl call timeout"。一次尝试就用完了 3 秒，所以没有重试（不同于 S3），也没人知道 broker-b 是否存下了它。`,
    }),
  },
  {
    text: {
      en: "Now the 120 s clock. Look at NS-1's clock for broker-b.",
      zh: "现在是 120 秒时钟。看 NS-1 上 broker-b 的时钟。",
    },
    ask: {
      q: { en: "When will NS-1 remove broker-b?", zh: "NS-1 何时移除 broker-b？" },
      options: [
        option("freeze", "Right after the freeze at 75 s", "75 秒冻结后立即"),
        option("idle", "120 s after its last registration (≈192 s)", "最后一次注册后 120 秒（约 192 秒）"),
        option("later", "120 s after the freeze (195 s)", "冻结后 120 秒（195 秒）"),
      ],
      answer: "idle",
      resolves: "gate",
      // By the rule that fired: its clock ran from the last registration (the idle close's last
      // byte, or the scan's last update), or from the freeze.
      grade: (h, snap, trace, model) => {
        const frozen = faultAt(model, FREEZE);
        if (h.at - frozen < AT_ONCE_MS) return "freeze";
        const from = removalClockFrom(h.operands);
        if (from !== null) return frozen - from < AT_ONCE_MS ? "later" : "idle";
        const last = lastRegistration(trace, "broker-b", "10.0.0.1", frozen);
        const silence = model.timings.idleCloseMs ?? model.timings.brokerTimeoutMs;
        return last !== null && Math.abs(h.at - last - silence) < AT_ONCE_MS ? "idle" : "later";
      },
    },
    gate: { node: "NS-1", kinds: ["unregistered"], text: B },
    // No subject (gated on a timer): the idle close, or with it off the scan, fires on a clock,
    // no message.
    subject: null,
    what: { en: "NS-1 removes broker-b", zh: "NS-1 移除 broker-b" },
    focus: { nodes: ["NS-1", "broker-b"], links: [["broker-b", "NS-1"]] },
    panel: { kind: "ns", node: "NS-1" },
    // In the words of the rule that fired, with the numbers the rule card quotes (the line's
    // operands): the idle close, or with it off the scan's expiry.
    after: (h, s, trace, model) => {
      const since = dur(h.at - faultAt(model, FREEZE));
      const o = h.operands || {};
      if (o.rule === "idle-close")
        return {
          en: `NS-1 removed broker-b at ${at(h)}: nothing had come on its connection for ${span(o.idleMs)} since the last byte at ${secs(o.lastIo)}, so the [[idle|idle close]] shut it, ${since} after the freeze. P1's copy is now stale.`,
          zh: `NS-1 在 ${at(h)} 移除 broker-b：它的连接自 ${secs(o.lastIo)} 的最后一个字节起已静默 ${span(o.idleMs)}，于是[[idle|空闲关闭]]关掉了它，即冻结后 ${since}。P1 的副本现在过期了。`,
        };
      if (o.rule === "expired")
        return {
          en: `NS-1 removed broker-b at ${at(h)}: its [[scan]] found the last registration ${secs(o.lastUpdate)} + ${span(o.timeoutMs)} = ${secs(o.deadline)} already past, ${since} after the freeze: in the scan-only model no connection is closed, the scan alone removes. P1's copy is now stale.`,
          zh: `NS-1 在 ${at(h)} 移除 broker-b：它的[[scan|扫描]]发现最后注册 ${secs(o.lastUpdate)} + ${span(o.timeoutMs)} = ${secs(o.deadline)} 已经过去，即冻结后 ${since}：在仅扫描模式下没有连接被关闭，只有扫描会移除。P1 的副本现在过期了。`,
        };
      return {
        en: `NS-1 removed broker-b at ${at(h)}, ${since} after the freeze. P1's copy is now stale.`,
        zh: `NS-1 在 ${at(h)} 移除 broker-b，即冻结后 ${since}。P1 的副本现在过期了。`,
      };
    },
  },
  {
    text: {
      en: "NS-1 knows; P1 does not. Its card shows STALE: its copy of the route still lists broker-b.",
      zh: "NS-1 知道了，P1 却不知道。它的卡片显示 STALE：它的路由副本里仍有 broker-b。",
    },
    ask: {
      q: { en: "When does P1 stop sending to broker-b?", zh: "P1 何时不再向 broker-b 发送？" },
      options: [
        option("removal", "As soon as NS-1 removes it", "NS-1 一移除就停止"),
        option("poll", "At P1's next route poll after the removal", "移除之后 P1 的下一次路由轮询时"),
        option("never", "Never: P1 keeps timing out", "永远不会：P1 一直超时"),
      ],
      answer: "poll",
      resolves: "gate",
      grade: (h, s, trace, model) => {
        const r = removedAt(trace, "NS-1", B, faultAt(model, FREEZE));
        return r !== null && h.at - r < AT_ONCE_MS ? "removal" : "poll";
      },
    },
    gate: { node: "P1", kinds: ["route-updated"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P1", event: "route-updated" },
    what: { en: "P1's route poll", zh: "P1 的路由轮询" },
    focus: { nodes: ["P1", "NS-1"] },
    panel: { kind: "stale", node: "P1" },
    after: (h, s, trace, model) => ({
      en: `P1 dropped broker-b at ${at(h)}: ${dur(h.at - faultAt(model, FREEZE))} after the freeze. Every send to broker-b in between timed out.`,
      zh: `P1 在 ${at(h)} 去掉 broker-b：冻结后 ${dur(h.at - faultAt(model, FREEZE))}。期间每次发往 broker-b 的发送都超时。`,
    }),
  },
];
