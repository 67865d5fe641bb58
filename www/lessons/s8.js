// S8 — master down, slave alive.
import { A, at } from "./common.js";

export default [
  {
    text: { en: "At 50 s the master broker-a is killed; its slave broker-a-s stays alive. Classic master/slave has no automatic promotion.", zh: "50 秒时主节点 broker-a 被杀死；从节点 broker-a-s 存活。经典主从模式没有自动切换。" },
    focus: { nodes: ["broker-a", "broker-a-s"] },
  },
  {
    text: { en: "The NameServers drop the master at once.", zh: "NameServer 立即移除主节点。" },
    gate: { node: "NS-1", kinds: ["unregistered"], text: A }, what: { en: "NS-1 removes broker-a's master", zh: "NS-1 移除 broker-a 主节点" },
    focus: { nodes: ["NS-1", "broker-a"] }, panel: { kind: "routes" },
    after: (h) => ({ en: `At ${at(h)} the route keeps group broker-a with only {1: slave}. Producers skip groups without a master (BID 0).`, zh: `${at(h)} 路由中 broker-a 组只剩 {1: 从节点}。生产者跳过没有主节点（BID 0）的组。` }),
  },
  {
    text: { en: "The master restarts at 150 s.", zh: "主节点在 150 秒重启。" },
    gate: { node: "NS-1", kinds: ["registered"], text: A }, what: { en: "broker-a re-registers", zh: "broker-a 重新注册" },
    focus: { nodes: ["NS-1", "broker-a"] }, panel: { kind: "ns", node: "NS-1" },
    after: (h) => ({ en: `Registered again at ${at(h)}; clients pick it up at their next polls.`, zh: `${at(h)} 重新注册；客户端在下一次轮询时获取。` }),
  },
];
