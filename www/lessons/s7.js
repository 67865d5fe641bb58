// S7 — two NameServers disagree.
import { B, at } from "./common.js";

export default [
  {
    text: { en: "At 75 s the link broker-b ↔ NS-2 is cut silently. Only NS-2 stops hearing broker-b.", zh: "75 秒时 broker-b ↔ NS-2 的链路被静默切断。只有 NS-2 听不到 broker-b。" },
    focus: { nodes: ["broker-b", "NS-2"], links: [["broker-b", "NS-2"]] },
  },
  {
    text: { en: "Wait for NS-2's idle close.", zh: "等待 NS-2 的空闲关闭。" },
    gate: { node: "NS-2", kinds: ["unregistered"], text: B }, what: { en: "NS-2 removes broker-b", zh: "NS-2 移除 broker-b" },
    focus: { nodes: ["NS-2", "broker-b"] }, panel: { kind: "divergence" },
    after: (h) => ({ en: `NS-2 removed broker-b at ${at(h)}; NS-1 still has it. C1 (on NS-2) and P1 (on NS-1) now see different clusters.`, zh: `NS-2 在 ${at(h)} 移除 broker-b；NS-1 仍保留它。C1（NS-2）与 P1（NS-1）看到的集群不同。` }),
  },
  {
    text: { en: "The link heals; watch convergence.", zh: "链路恢复，观察收敛。" },
    gate: { node: "NS-2", kinds: ["registered"], text: B }, what: { en: "NS-2 re-registers broker-b", zh: "NS-2 重新注册 broker-b" },
    focus: { nodes: ["NS-2", "broker-b"] }, panel: { kind: "ns", node: "NS-2" },
    after: (h) => ({ en: `NS-2 has broker-b again at ${at(h)}.`, zh: `NS-2 在 ${at(h)} 重新拥有 broker-b。` }),
  },
];
