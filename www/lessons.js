// Lessons: the built-in scenarios, narrated. Each step waits for a simulation event (a trace
// line), never for a wall-clock delay; Continue is enabled only once it has happened.
import { t, pick, secs, dur } from "./i18n.js";

const A = "10.0.1.1:10911";
const B = "10.0.1.3:10911";
const at = (h) => secs(h.at);

export const LESSONS = {
  S1: [
    { text: { en: "Two NameServers (NS-1, NS-2), broker group broker-a (master + slave), master broker-b, producer P1 bound to NS-1 and consumer C1 bound to NS-2. NameServers never talk to each other. Press Continue to boot the cluster.", zh: "两个 NameServer（NS-1、NS-2），broker-a 主从组，主节点 broker-b，绑定 NS-1 的生产者 P1 和绑定 NS-2 的消费者 C1。NameServer 之间从不通信。点击“继续”启动集群。" } },
    { text: { en: "broker-a boots at 1.0 s and registers with every NameServer: the arrow goes broker → NameServer.", zh: "broker-a 在 1.0 秒启动，并向每个 NameServer 注册：箭头方向是 Broker → NameServer。" },
      gate: { node: "NS-1", kinds: ["registered"], text: A }, what: { en: "NS-1 registers broker-a", zh: "NS-1 注册 broker-a" },
      after: (h) => ({ en: `NS-1 logged "new broker registered" at ${at(h)}.`, zh: `NS-1 在 ${at(h)} 记录 "new broker registered"。` }) },
    { text: { en: "The same registration to NS-2 cannot succeed: NS-2 only starts at 3 s.", zh: "发往 NS-2 的同一次注册无法成功：NS-2 在 3 秒才启动。" },
      gate: { node: "broker-a", kinds: ["register-failed"] }, what: { en: "broker-a's registration with NS-2 fails", zh: "broker-a 向 NS-2 注册失败" },
      after: (h) => ({ en: `Refused at ${at(h)}. NS-1 and NS-2 disagree from the very first seconds.`, zh: `${at(h)} 被拒绝。NS-1 与 NS-2 从最初几秒就不一致。` }) },
    { text: { en: "P1 starts at 4 s and asks its NameServer (NS-1) for TopicTest's route.", zh: "P1 在 4 秒启动，向它的 NameServer（NS-1）查询 TopicTest 的路由。" },
      gate: { node: "P1", kinds: ["route-updated"] }, what: { en: "P1 receives a route", zh: "P1 收到路由" },
      after: (h) => ({ en: `P1 has the full route at ${at(h)}: 4 write queues on broker-a and 4 on broker-b.`, zh: `P1 在 ${at(h)} 拿到完整路由：broker-a 与 broker-b 各 4 个写队列。` }) },
    { text: { en: "C1 starts at 6 s bound to NS-2, which is still empty.", zh: "C1 在 6 秒启动，绑定的 NS-2 仍然是空的。" },
      gate: { node: "C1", kinds: ["route-not-found"] }, what: { en: "C1's first route query is answered", zh: "C1 的首次路由查询得到应答" },
      after: (h) => ({ en: `NS-2 answered TOPIC_NOT_EXIST at ${at(h)}: the brokers' startup registrations reached NS-2 before it was running.`, zh: `NS-2 在 ${at(h)} 回答 TOPIC_NOT_EXIST：Broker 启动时的注册早于 NS-2 启动。` }) },
    { text: { en: "Brokers register again every 30 s; the first periodic registration is 10 s after start.", zh: "Broker 每 30 秒重新注册；第一次周期注册在启动后 10 秒。" },
      gate: { node: "NS-2", kinds: ["registered"], text: A }, what: { en: "NS-2 learns broker-a", zh: "NS-2 得知 broker-a" },
      after: (h) => ({ en: `NS-2 registered broker-a at ${at(h)}. It was empty from 3 s until then.`, zh: `NS-2 在 ${at(h)} 注册了 broker-a。从 3 秒到此刻它一直是空的。` }) },
    { text: { en: "C1 keeps its empty route until its next 30 s poll. Nobody pushes routes to clients.", zh: "C1 会一直保持空路由，直到下一次 30 秒轮询。没有人向客户端推送路由。" },
      gate: { node: "C1", kinds: ["route-updated"] }, what: { en: "C1's route poll", zh: "C1 的路由轮询" },
      after: (h) => ({ en: `C1 has queues at ${at(h)}, although the cluster was healthy all along.`, zh: `C1 在 ${at(h)} 才拿到队列，尽管集群一直是健康的。` }) },
    { text: { en: "Watch the heartbeat ages in each brokerLiveTable: they reset every 30 s, and every scan finds nothing to remove.", zh: "观察每个 brokerLiveTable 中的心跳间隔：每 30 秒重置，每次扫描都没有可移除的 Broker。" },
      gate: { at: 75000 }, what: { en: "t = 75 s", zh: "t = 75 秒" },
      after: () => ({ en: "75 s: no broker expired. Registration is one-way and NameServers are independent.", zh: "75 秒：没有 Broker 过期。注册是单向的，NameServer 彼此独立。" }) },
  ],
  S2: [
    { text: { en: "The brokers start late (broker-a at 20.01 s); P1 starts at 4 s and sends once a second.", zh: "Broker 启动较晚（broker-a 在 20.01 秒）；P1 在 4 秒启动，每秒发送一次。" } },
    { text: { en: "P1's first route poll reaches NS-1, which knows no broker yet.", zh: "P1 的首次路由轮询到达 NS-1，而 NS-1 还不知道任何 Broker。" },
      gate: { node: "P1", kinds: ["route-not-found"] }, what: { en: "P1's poll is answered", zh: "P1 的轮询得到应答" },
      after: (h) => ({ en: `TOPIC_NOT_EXIST at ${at(h)}.`, zh: `${at(h)} 返回 TOPIC_NOT_EXIST。` }) },
    { text: { en: "Each send first queries the route on demand (TopicTest, then TBW102). Both fail, so the send fails at once without touching any broker.", zh: "每次发送先按需查询路由（TopicTest，然后 TBW102）。两者都失败，发送立即失败，根本没有接触 Broker。" },
      gate: { node: "P1", kinds: ["send-failed"], text: "No route info" }, what: { en: "the first send fails", zh: "第一次发送失败" },
      after: (h) => ({ en: `At ${at(h)}: "No route info of this topic: TopicTest" — the error comes from P1's empty route, not from a broker.`, zh: `${at(h)}："No route info of this topic: TopicTest"——错误来自 P1 的空路由，而不是 Broker。` }) },
    { text: { en: "broker-a boots and registers with both NameServers.", zh: "broker-a 启动并向两个 NameServer 注册。" },
      gate: { node: "NS-1", kinds: ["registered"], text: A }, what: { en: "NS-1 registers broker-a", zh: "NS-1 注册 broker-a" },
      after: (h) => ({ en: `NS-1 knows broker-a at ${at(h)}.`, zh: `NS-1 在 ${at(h)} 得知 broker-a。` }) },
    { text: { en: "The next send's on-demand query now succeeds.", zh: "下一次发送的按需查询现在会成功。" },
      gate: { node: "P1", kinds: ["route-updated"] }, what: { en: "P1 gets a route", zh: "P1 拿到路由" },
      after: (h) => ({ en: `P1 has a route at ${at(h)} (broker-a only) and the send succeeds.`, zh: `P1 在 ${at(h)} 拿到路由（只有 broker-a），发送成功。` }) },
    { text: { en: "broker-b registers at 22 s, but P1 will not ask again per send: its route is no longer empty.", zh: "broker-b 在 22 秒注册，但 P1 不会再逐次查询：它的路由已不为空。" },
      gate: { node: "P1", kinds: ["route-updated"], text: "broker-b" }, what: { en: "P1's 30 s poll", zh: "P1 的 30 秒轮询" },
      after: (h) => ({ en: `broker-b appears in P1's route only at the poll at ${at(h)}. On-demand refresh happens only while the route is empty.`, zh: `broker-b 直到 ${at(h)} 的轮询才出现在 P1 的路由中。只有路由为空时才会按需刷新。` }) },
  ],
  S3: [
    { text: { en: "At 50 s broker-b is shut down gracefully (mqshutdown broker): it unregisters from every NameServer before exiting.", zh: "50 秒时 broker-b 被优雅关闭（mqshutdown broker）：退出前向每个 NameServer 注销。" } },
    { text: { en: "Watch the UNREGISTER_BROKER messages.", zh: "观察 UNREGISTER_BROKER 消息。" },
      gate: { node: "NS-1", kinds: ["unregistered"], text: B }, what: { en: "NS-1 removes broker-b", zh: "NS-1 移除 broker-b" },
      after: (h, s) => ({ en: `NS-1 removed broker-b at ${at(h)} (NS-2 at ${removal(s, "NS-2")}): "unregisterBroker, remove from brokerLiveTable". P1's cached route is now STALE.`, zh: `NS-1 在 ${at(h)} 移除 broker-b（NS-2 在 ${removal(s, "NS-2")}）。P1 的缓存路由现在已过期（STALE）。` }) },
    { text: { en: "P1 still lists broker-b. A send that picks a broker-b queue fails fast (connection refused) and is retried at once on broker-a.", zh: "P1 仍列出 broker-b。选中 broker-b 队列的发送会快速失败（连接被拒绝），并立即在 broker-a 上重试。" },
      gate: { node: "P1", kinds: ["send-retry"] }, what: { en: "a send to broker-b", zh: "一次发往 broker-b 的发送" },
      after: (h) => ({ en: `Retried at ${at(h)}: the lane shows a 2-attempt bar, and the send still ends SEND_OK.`, zh: `${at(h)} 重试：泳道中显示两次尝试，发送最终仍为 SEND_OK。` }) },
    { text: { en: "P1's next 30 s poll brings the new route.", zh: "P1 下一次 30 秒轮询带来新路由。" },
      gate: { node: "P1", kinds: ["route-updated"] }, what: { en: "P1's route poll", zh: "P1 的路由轮询" },
      after: (h, s) => ({ en: `P1 dropped broker-b at ${at(h)}: the NameServer knew at ${removal(s, "NS-1")}, the client ${dur(h.at - removalMs(s, "NS-1"))} later. No send was lost.`, zh: `P1 在 ${at(h)} 去掉 broker-b：NameServer 在 ${removal(s, "NS-1")} 已知道，客户端晚了 ${dur(h.at - removalMs(s, "NS-1"))}。没有丢失发送。` }) },
    { text: { en: "C1, bound to NS-2, polls on its own schedule.", zh: "绑定 NS-2 的 C1 按自己的节奏轮询。" },
      gate: { node: "C1", kinds: ["route-updated"] }, what: { en: "C1's route poll", zh: "C1 的路由轮询" },
      after: (h) => ({ en: `C1 stops pulling broker-b's queues after ${at(h)}.`, zh: `C1 在 ${at(h)} 之后不再拉取 broker-b 的队列。` }) },
  ],
  S4: [
    { text: { en: "At 50 s broker-b's process is killed (kill -9). No UNREGISTER is sent, but the OS closes its sockets.", zh: "50 秒时 broker-b 进程被杀死（kill -9）。没有发送注销，但操作系统会关闭它的连接。" } },
    { text: { en: "Watch the FIN messages reach the NameServers.", zh: "观察 FIN 到达 NameServer。" },
      gate: { node: "NS-1", kinds: ["channel-closed"], text: B }, what: { en: "NS-1 sees the channel close", zh: "NS-1 发现连接关闭" },
      after: (h, s) => ({ en: `At ${at(h)} NS-1 logged "the broker's channel destroyed, … clean it's data structure at once" (NS-2 at ${removal(s, "NS-2")}). A crash with the OS alive is noticed in milliseconds, not 120 s.`, zh: `NS-1 在 ${at(h)} 记录 "the broker's channel destroyed"（NS-2 在 ${removal(s, "NS-2")}）。操作系统存活时的崩溃在毫秒内被发现，而不是 120 秒。` }) },
    { text: { en: "The client side is the same as a graceful shutdown: P1 waits for its poll.", zh: "客户端一侧与优雅关闭相同：P1 等待它的轮询。" },
      gate: { node: "P1", kinds: ["route-updated"] }, what: { en: "P1's route poll", zh: "P1 的路由轮询" },
      after: (h) => ({ en: `P1 dropped broker-b at ${at(h)}. Compare S3 (shutdown) and S5 (hang): same client lag, very different NameServer delays.`, zh: `P1 在 ${at(h)} 去掉 broker-b。对比 S3（关闭）与 S5（挂起）：客户端延迟相同，NameServer 的延迟差别很大。` }) },
  ],
  S5: [
    { text: { en: "At 75 s broker-b hangs: the socket stays open, no FIN or RST is sent, and packets to it vanish. Its last registration arrived at ≈72.00 s.", zh: "75 秒时 broker-b 挂起：连接保持打开，不发送 FIN 或 RST，发往它的数据包消失。它最后一次注册在约 72.00 秒到达。" } },
    { text: { en: "The freeze happens.", zh: "冻结发生。" }, gate: { node: "broker-b", kinds: ["fault"] }, what: { en: "broker-b freezes", zh: "broker-b 冻结" },
      after: (h) => ({ en: `Frozen at ${at(h)}. The NameServers see nothing: no message says "I am gone".`, zh: `${at(h)} 冻结。NameServer 什么也看不到：没有任何消息说“我不在了”。` }) },
    { text: { en: "P1 keeps choosing broker-b's queues. Each such send waits the whole 3000 ms sendMsgTimeout.", zh: "P1 仍会选择 broker-b 的队列。每次这样的发送都要等满 3000 ms 的 sendMsgTimeout。" },
      gate: { node: "P1", kinds: ["send-failed"], text: "timeout" }, what: { en: "a send to broker-b times out", zh: "一次发往 broker-b 的发送超时" },
      after: (h) => ({ en: `At ${at(h)}: "sendDefaultImpl call timeout". The first attempt used the whole budget, so there was no retry (contrast S3). The outcome is indeterminate.`, zh: `${at(h)}："sendDefaultImpl call timeout"。第一次尝试用完了全部时间，因此没有重试（对比 S3）。结果未知。` }) },
    { text: { en: "Now the 120 s clock: each NameServer closes a connection that has been idle for 120 s (Netty IdleStateHandler) and removes the broker at once.", zh: "现在是 120 秒时钟：每个 NameServer 关闭空闲 120 秒的连接（Netty IdleStateHandler），并立即移除该 Broker。" },
      gate: { node: "NS-1", kinds: ["unregistered"], text: B }, what: { en: "NS-1 removes broker-b", zh: "NS-1 移除 broker-b" },
      after: (h, s) => ({ en: `NS-1 removed broker-b at ${at(h)} ("NETTY SERVER PIPELINE: IDLE exception"), ${dur(h.at - 75000)} after the freeze. P1's cached route is now STALE.`, zh: `NS-1 在 ${at(h)} 移除 broker-b（"NETTY SERVER PIPELINE: IDLE exception"），冻结后 ${dur(h.at - 75000)}。P1 的缓存路由现在已过期（STALE）。` }) },
    { text: { en: "P1 learns only at its next 30 s route poll.", zh: "P1 只能在下一次 30 秒路由轮询时得知。" },
      gate: { node: "P1", kinds: ["route-updated"] }, what: { en: "P1's route poll", zh: "P1 的路由轮询" },
      after: (h) => ({ en: `P1 dropped broker-b at ${at(h)}: ${dur(h.at - 75000)} after the freeze. Every send to broker-b in between timed out.`, zh: `P1 在 ${at(h)} 去掉 broker-b：冻结后 ${dur(h.at - 75000)}。期间每次发往 broker-b 的发送都超时。` }) },
  ],
  S6: [
    { text: { en: "broker-b freezes at 75 s and comes back at 120 s, before any NameServer expiry. sendLatencyFaultEnable is off (the default).", zh: "broker-b 在 75 秒冻结，120 秒恢复，早于任何 NameServer 过期。sendLatencyFaultEnable 关闭（默认）。" } },
    { text: { en: "Sends picking broker-b time out, one after another.", zh: "选中 broker-b 的发送一个接一个超时。" },
      gate: { node: "P1", kinds: ["send-failed"], text: "timeout" }, what: { en: "a send to broker-b times out", zh: "一次发往 broker-b 的发送超时" },
      after: (h) => ({ en: `First timeout at ${at(h)}. Without fault avoidance P1 keeps choosing broker-b.`, zh: `第一次超时在 ${at(h)}。没有故障规避时，P1 会继续选择 broker-b。` }) },
    { text: { en: "broker-b unfreezes at 120 s.", zh: "broker-b 在 120 秒解冻。" },
      gate: { node: "broker-b", kinds: ["fault"], text: "unfreeze" }, what: { en: "broker-b unfreezes", zh: "broker-b 解冻" },
      after: (h) => ({ en: `Back at ${at(h)}. The NameServers never removed broker-b.`, zh: `${at(h)} 恢复。NameServer 从未移除 broker-b。` }) },
    { text: { en: "Sends to broker-b succeed again.", zh: "发往 broker-b 的发送再次成功。" },
      gate: { node: "P1", kinds: ["send-ok"], text: "brokerName=broker-b" }, what: { en: "a send to broker-b succeeds", zh: "一次发往 broker-b 的发送成功" },
      after: (h) => ({ en: `SEND_OK on broker-b at ${at(h)}. Now compare the scenario list's S6-fault-4.9 (isolated for 600 s) and S6-fault-5.x (10 s): fault avoidance lives in each client's memory; the NameServer plays no part.`, zh: `${at(h)} broker-b 上 SEND_OK。再对比场景列表中的 S6-fault-4.9（隔离 600 秒）与 S6-fault-5.x（10 秒）：故障规避只存在于每个客户端的内存中，NameServer 不参与。` }) },
  ],
  S7: [
    { text: { en: "At 75 s the link broker-b ↔ NS-2 is cut silently. Only NS-2 stops hearing broker-b.", zh: "75 秒时 broker-b ↔ NS-2 的链路被静默切断。只有 NS-2 听不到 broker-b。" } },
    { text: { en: "Wait for NS-2's idle close.", zh: "等待 NS-2 的空闲关闭。" }, gate: { node: "NS-2", kinds: ["unregistered"], text: B }, what: { en: "NS-2 removes broker-b", zh: "NS-2 移除 broker-b" },
      after: (h) => ({ en: `NS-2 removed broker-b at ${at(h)}; NS-1 still has it. The divergence indicator names the missing broker. C1 (on NS-2) and P1 (on NS-1) now see different clusters.`, zh: `NS-2 在 ${at(h)} 移除 broker-b；NS-1 仍保留它。分歧提示指出了缺失的 Broker。C1（NS-2）与 P1（NS-1）看到的集群不同。` }) },
    { text: { en: "Heal at 250 s and watch convergence.", zh: "250 秒恢复链路，观察收敛。" }, gate: { node: "NS-2", kinds: ["registered"], text: B }, what: { en: "NS-2 re-registers broker-b", zh: "NS-2 重新注册 broker-b" },
      after: (h) => ({ en: `NS-2 has broker-b again at ${at(h)}.`, zh: `NS-2 在 ${at(h)} 重新拥有 broker-b。` }) },
  ],
  S8: [
    { text: { en: "At 50 s the master broker-a is killed; its slave broker-a-s stays alive. Classic master/slave has no automatic promotion.", zh: "50 秒时主节点 broker-a 被杀死；从节点 broker-a-s 存活。经典主从模式没有自动切换。" } },
    { text: { en: "The NameServers drop the master at once.", zh: "NameServer 立即移除主节点。" }, gate: { node: "NS-1", kinds: ["unregistered"], text: A }, what: { en: "NS-1 removes broker-a's master", zh: "NS-1 移除 broker-a 主节点" },
      after: (h) => ({ en: `At ${at(h)} the route keeps group broker-a with only {1: slave}. Producers skip groups without a master (BID 0).`, zh: `${at(h)} 路由中 broker-a 组只剩 {1: 从节点}。生产者跳过没有主节点（BID 0）的组。` }) },
    { text: { en: "C2 starts at 60 s and reads broker-a's backlog from the slave.", zh: "C2 在 60 秒启动，从从节点读取 broker-a 的积压消息。" }, gate: { node: "C2", kinds: ["route-updated"] }, what: { en: "C2 gets its route", zh: "C2 拿到路由" },
      after: (h) => ({ en: `C2's route at ${at(h)} lists the slave; consumers fall back to it (findBrokerAddressInSubscribe).`, zh: `C2 在 ${at(h)} 的路由中列出了从节点；消费者会回退到从节点读取。` }) },
    { text: { en: "The master restarts at 150 s.", zh: "主节点在 150 秒重启。" }, gate: { node: "NS-1", kinds: ["registered"], text: A }, what: { en: "broker-a re-registers", zh: "broker-a 重新注册" },
      after: (h) => ({ en: `Registered again at ${at(h)}; clients pick it up at their next polls.`, zh: `${at(h)} 重新注册；客户端在下一次轮询时获取。` }) },
  ],
  S9: [
    { text: { en: "NS-1 crashes at 50 s, NS-2 at 100 s; NS-1 restarts empty at 130 s. P2 starts at 110 s while no NameServer is up.", zh: "NS-1 在 50 秒崩溃，NS-2 在 100 秒崩溃；NS-1 在 130 秒空表重启。P2 在 110 秒启动，此时没有 NameServer 可用。" } },
    { text: { en: "P1's next poll fails and it switches NameServer.", zh: "P1 下一次轮询失败并切换 NameServer。" }, gate: { node: "P1", kinds: ["route-query-failed"] }, what: { en: "P1's poll fails", zh: "P1 的轮询失败" },
      after: (h) => ({ en: `At ${at(h)} P1 switches to NS-2; its cached route is kept.`, zh: `${at(h)} P1 切换到 NS-2；缓存路由被保留。` }) },
    { text: { en: "With both NameServers down, running clients keep working from their caches; a new producer cannot start.", zh: "两个 NameServer 都宕机时，运行中的客户端依靠缓存继续工作；新的生产者无法开始。" },
      gate: { node: "P2", kinds: ["send-failed"], text: "No route info" }, what: { en: "P2's first send", zh: "P2 的第一次发送" },
      after: (h) => ({ en: `"No route info of this topic" at ${at(h)}, while P1 still sends fine.`, zh: `${at(h)} 出现 "No route info of this topic"，而 P1 仍在正常发送。` }) },
    { text: { en: "NS-1 restarts empty and refills from the next registrations.", zh: "NS-1 空表重启，依靠下一轮注册重新填充。" }, gate: { node: "P2", kinds: ["route-updated"] }, what: { en: "P2 gets a route", zh: "P2 拿到路由" },
      after: (h) => ({ en: `P2 has a route at ${at(h)}.`, zh: `P2 在 ${at(h)} 拿到路由。` }) },
  ],
  S10: [
    { text: { en: "P1 sends to NewTopic, which no broker has; autoCreateTopicEnable is on.", zh: "P1 向 NewTopic 发送，没有任何 Broker 拥有它；autoCreateTopicEnable 已开启。" } },
    { text: { en: "The first send falls back to the TBW102 route.", zh: "第一次发送回退到 TBW102 路由。" }, gate: { node: "broker-a", kinds: ["info"], text: "create new topic" }, what: { en: "a broker creates the topic", zh: "某个 Broker 创建该主题" },
      after: (h) => ({ en: `broker-a created NewTopic at ${at(h)} and re-registered at once.`, zh: `broker-a 在 ${at(h)} 创建 NewTopic 并立即重新注册。` }) },
    { text: { en: "P1's 30 s poll replaces the provisional route.", zh: "P1 的 30 秒轮询替换临时路由。" }, gate: { node: "P1", kinds: ["route-updated"], text: "NewTopic" }, what: { en: "P1's route poll", zh: "P1 的路由轮询" },
      after: (h) => ({ en: `At ${at(h)} all NewTopic traffic is pinned to broker-a.`, zh: `${at(h)} 起 NewTopic 的全部流量固定在 broker-a。` }) },
  ],
};

function removalMs(snap, ns) {
  const m = snap.measurements[snap.measurements.length - 1];
  const r = m && m.nsRemoval.find(([n]) => n === ns);
  return r && r[1] !== null ? r[1] : NaN;
}

function removal(snap, ns) {
  const ms = removalMs(snap, ns);
  return Number.isNaN(ms) ? "—" : secs(ms);
}

// Drives one lesson through the page's controls (`app`).
export class LessonRunner {
  constructor(app, els) {
    this.app = app;
    this.els = els;
    this.active = null;
    els.cont.addEventListener("click", () => this.next());
    els.replay.addEventListener("click", () => this.replay());
    els.free.addEventListener("click", () => this.freePlay());
  }

  get gate() {
    return this.active && this.active.waiting ? this.active.steps[this.active.index].gate : null;
  }

  async start(id, index = 0) {
    const steps = LESSONS[id];
    if (!steps) return;
    this.active = { id, steps, index: 0, waiting: false, done: false };
    await this.app.loadBuiltIn(id);
    this.els.panel.hidden = false;
    this.els.title.textContent = `${id} — ${this.app.scenarioTitle(id)}`;
    await this.enter(0);
    for (let i = 1; i <= index && i < steps.length; i++) {
      await this.enter(i);
      if (this.active.waiting) await this.app.runGate(steps[i].gate);
    }
  }

  async enter(index) {
    const a = this.active;
    a.index = index;
    const step = a.steps[index];
    const h = await this.app.hashes();
    a.start = { time: h.time, stateHash: h.stateHash };
    a.waiting = !!step.gate;
    a.observed = null;
    this.show();
  }

  async next() {
    const a = this.active;
    if (!a || a.waiting) return;
    if (a.index + 1 >= a.steps.length) {
      a.done = true;
      this.show();
      return;
    }
    await this.enter(a.index + 1);
    if (a.waiting) this.app.play();
  }

  async replay() {
    const a = this.active;
    if (!a) return;
    this.app.pause();
    await this.app.seek(a.start.time);
    a.waiting = !!a.steps[a.index].gate;
    a.observed = null;
    this.show();
  }

  freePlay() {
    if (!this.active) return;
    this.active = null;
    this.els.panel.hidden = true;
    this.app.announce(t("freePlayOn"));
  }

  // The page reached the gating event.
  gateHit(hit, snap) {
    const a = this.active;
    if (!a || !a.waiting) return;
    a.waiting = false;
    const step = a.steps[a.index];
    a.observed = step.after ? pick(step.after(hit, snap)) : t("observed", { t: secs(hit.at) });
    this.show();
    this.app.announce(a.observed);
  }

  show() {
    const a = this.active;
    const { panel, text, wait, cont, progress } = this.els;
    if (!a) return;
    const step = a.steps[a.index];
    panel.dataset.step = String(a.index);
    panel.dataset.waiting = String(a.waiting);
    panel.dataset.done = String(!!a.done);
    progress.textContent = t("lessonStep", { n: a.index + 1, total: a.steps.length });
    text.replaceChildren();
    const p = document.createElement("p");
    p.textContent = pick(step.text);
    text.appendChild(p);
    if (a.observed) {
      const o = document.createElement("p");
      o.className = "observed";
      o.dataset.testid = "observed";
      o.textContent = `✓ ${a.observed}`;
      text.appendChild(o);
    }
    if (a.done) {
      const d = document.createElement("p");
      d.className = "observed";
      d.textContent = t("lessonDone");
      text.appendChild(d);
    }
    wait.textContent = a.waiting ? `◔ ${t("waitingFor", { what: pick(step.what) })}` : "";
    cont.disabled = a.waiting || a.done;
    cont.textContent = a.index + 1 >= a.steps.length ? t("finish") : t("continue");
  }

  state() {
    const a = this.active;
    return a && { id: a.id, step: a.index, steps: a.steps.length, waiting: a.waiting, done: !!a.done, startTime: a.start && a.start.time, startHash: a.start && a.start.stateHash };
  }
}
