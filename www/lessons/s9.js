// S9 — the NameServers fail.
import { at } from "./common.js";

export default [
  {
    text: { en: "NS-1 crashes at 50 s, NS-2 at 100 s; NS-1 restarts empty at 130 s. P2 starts at 110 s while no NameServer is up.", zh: "NS-1 在 50 秒崩溃，NS-2 在 100 秒崩溃；NS-1 在 130 秒空表重启。P2 在 110 秒启动，此时没有 NameServer 可用。" },
    focus: { nodes: ["NS-1", "NS-2"] },
  },
  {
    text: { en: "P1's next poll fails and it switches NameServer.", zh: "P1 下一次轮询失败并切换 NameServer。" },
    gate: { node: "P1", kinds: ["route-query-failed"] }, what: { en: "P1's poll fails", zh: "P1 的轮询失败" },
    focus: { nodes: ["P1", "NS-1"] }, panel: { kind: "route", node: "P1" },
    after: (h) => ({ en: `At ${at(h)} P1 switches to NS-2; its cached route is kept.`, zh: `${at(h)} P1 切换到 NS-2；缓存路由被保留。` }),
  },
  {
    text: { en: "With both NameServers down, running clients keep working from their caches; a new producer cannot start.", zh: "两个 NameServer 都宕机时，运行中的客户端依靠缓存继续工作；新的生产者无法开始。" },
    gate: { node: "P2", kinds: ["send-failed"], text: "No route info" }, what: { en: "P2's first send", zh: "P2 的第一次发送" },
    focus: { nodes: ["P2", "P1"] }, panel: { kind: "lane", node: "P2" },
    after: (h) => ({ en: `"No route info of this topic" at ${at(h)}, while P1 still sends fine.`, zh: `${at(h)} 出现 "No route info of this topic"，而 P1 仍在正常发送。` }),
  },
  {
    text: { en: "NS-1 restarts empty and refills from the next registrations.", zh: "NS-1 空表重启，依靠下一轮注册重新填充。" },
    gate: { node: "P2", kinds: ["route-updated"] }, what: { en: "P2 gets a route", zh: "P2 拿到路由" },
    focus: { nodes: ["P2", "NS-1"] }, panel: { kind: "ns", node: "NS-1" },
    after: (h) => ({ en: `P2 has a route at ${at(h)}.`, zh: `P2 在 ${at(h)} 拿到路由。` }),
  },
];
