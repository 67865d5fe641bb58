// The opening chapter, for someone who has never heard of RocketMQ: who stores messages, who
// knows where they are, who asks, and why nobody is told when something changes.
import { AT_ONCE_MS, at, find, option } from "./common.js";

const steps = [
  {
    text: {
      en: "RocketMQ carries messages from [[producer|producers]] to [[consumer|consumers]]. [[broker|Brokers]] store them, in [[topic|topics]] split into [[queue|queues]]. Here: three brokers (left), producer P1 and consumer C1 (right), and on top two [[nameserver|NameServers]]. Press Continue to start the cluster.",
      zh: "RocketMQ 把消息从[[producer|生产者]]送到[[consumer|消费者]]。[[broker|Broker]] 保存消息，消息按[[topic|主题（Topic）]]存放，每个主题又分成若干[[queue|队列]]。左边是三个 Broker，右边是生产者 P1 和消费者 C1，上方是两个 [[nameserver|NameServer]]。点击“继续”启动集群。",
    },
    focus: { nodes: ["broker-a", "broker-a-s", "broker-b", "P1", "C1"] },
    reveal: [],
  },
  {
    text: {
      en: "A producer does not know where TopicTest lives. P1 starts at 4 s and must ask someone for the topic's [[route]] first: a table of its brokers, their addresses and queues.",
      zh: "生产者并不知道 TopicTest 在哪里。P1 在 4 秒启动，它必须先向某个节点询问这个主题的[[route|路由]]：一张表，列出它的 Broker、地址和队列。",
    },
    reveal: ["addresses", "tables"],
    ask: {
      q: { en: "Whom does P1 ask?", zh: "P1 去问谁？" },
      options: [
        option("ns", "Its NameServer, NS-1", "它的 NameServer：NS-1"),
        option("brokers", "Every broker, one by one", "逐个询问每个 Broker"),
        option("c1", "The consumer C1", "消费者 C1"),
      ],
      // The route arrives from the NameServer P1 is bound to.
      answer: "ns",
      resolves: "gate",
      grade: (h, snap) => (snap.clients.P1 && snap.clients.P1.boundTo === "NS-1" ? "ns" : "brokers"),
    },
    gate: { node: "P1", kinds: ["route-updated"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-1", to: "P1", event: "route-updated" },
    what: { en: "P1 receives TopicTest's route", zh: "P1 收到 TopicTest 的路由" },
    focus: { nodes: ["P1", "NS-1"], links: [["P1", "NS-1"]] },
    panel: { kind: "route", node: "P1" },
    after: (h) => ({
      en: `At ${at(h)} NS-1 answered: TopicTest has 4 queues on broker-a and 4 on broker-b. A NameServer is the cluster's phone book.`,
      zh: `${at(h)} NS-1 给出回答：TopicTest 在 broker-a 和 broker-b 上各有 4 个队列。NameServer 就是集群的“电话簿”。`,
    }),
  },
  {
    text: {
      en: "With the route in its cache, P1 sends one message a second, each straight to a broker (▶ SEND, and the broker's ACK back).",
      zh: "路由已在缓存中，P1 每秒发送一条消息，每条都直接发给某个 Broker（▶ SEND，Broker 回 ACK）。",
    },
    gate: { node: "P1", kinds: ["send-ok"] },
    subject: { kind: "SEND_MESSAGE", from: "broker-a", to: "P1", event: "send-ok" },
    what: { en: "P1's first message is stored", zh: "P1 的第一条消息被保存" },
    focus: { nodes: ["P1", "broker-a", "broker-b"] },
    panel: { kind: "lane", node: "P1" },
    after: (h) => {
      const b = (h.text.match(/brokerName=([\w-]+)/) || [])[1] || "?";
      return {
        en: `SEND_OK at ${at(h)}: ${b} stored it. Messages never pass through a NameServer.`,
        zh: `${at(h)} SEND_OK：${b} 保存了它。消息从不经过 NameServer。`,
      };
    },
  },
  {
    text: {
      en: "Two NameServers, so that one can fail; they never talk to each other. NS-2 started at 3 s.",
      zh: "两个 NameServer，一个坏了还有另一个；它们彼此从不通信。NS-2 在 3 秒启动。",
    },
    ask: {
      q: {
        en: "C1 starts at 6 s and asks NS-2 for TopicTest. What does NS-2 answer?",
        zh: "C1 在 6 秒启动，向 NS-2 查询 TopicTest。NS-2 会怎么回答？",
      },
      options: [
        option("route", "The full route", "完整的路由"),
        option("none", "TOPIC_NOT_EXIST: it knows no broker yet", "TOPIC_NOT_EXIST：它还不知道任何 Broker"),
        option("forward", "It asks NS-1 and passes the answer on", "它去问 NS-1，再转告答案"),
      ],
      answer: "none",
      resolves: "gate",
      grade: (h) => (h.kind === "route-not-found" ? "none" : "route"),
    },
    gate: { node: "C1", kinds: ["route-not-found", "route-updated"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-2", to: "C1", event: "route-not-found" },
    what: { en: "NS-2 answers C1", zh: "NS-2 回答 C1" },
    focus: { nodes: ["C1", "NS-2"], links: [["C1", "NS-2"]] },
    panel: { kind: "ns", node: "NS-2" },
    after: (h) => ({
      en: `At ${at(h)} NS-2 answered TOPIC_NOT_EXIST. Its table is empty: the brokers registered at start-up, before NS-2 ran, and nothing copies NS-1's table to it.`,
      zh: `${at(h)} NS-2 回答 TOPIC_NOT_EXIST。它的表是空的：Broker 在启动时注册，那时 NS-2 还没运行，也没有任何机制把 NS-1 的表复制给它。`,
    }),
  },
  {
    text: {
      en: "Brokers keep the phone books current: each broker [[register|registers]] with every NameServer at start and every 30 s (watch each broker's “register” clock); each registration restarts the NameServer's clock for that broker.",
      zh: "Broker 自己负责让“电话簿”保持最新：每个 Broker 在启动时以及之后每 30 秒向每个 NameServer [[register|注册]]一次。观察每个 Broker 上的“注册”时钟；每次注册都会让 NameServer 上该 Broker 的时钟重新开始。",
    },
    reveal: ["register", "removal"],
    gate: { node: "NS-2", kinds: ["registered"], text: "10.0.1.1:10911" },
    subject: { kind: "REGISTER_BROKER", from: "broker-a", to: "NS-2", event: "registered" },
    what: { en: "NS-2 learns broker-a", zh: "NS-2 得知 broker-a" },
    focus: { nodes: ["broker-a", "NS-2"], links: [["broker-a", "NS-2"]] },
    panel: { kind: "ns", node: "NS-2" },
    after: (h) => ({
      en: `broker-a's registration reached NS-2 at ${at(h)}. Now NS-2 knows it too.`,
      zh: `broker-a 的注册在 ${at(h)} 到达 NS-2。现在 NS-2 也知道它了。`,
    }),
  },
  {
    text: {
      en: "NS-2 knows the brokers now, but C1 still holds its empty answer.",
      zh: "NS-2 现在知道这些 Broker 了，但 C1 手里仍是那个空的回答。",
    },
    ask: {
      q: { en: "When does C1 get the route?", zh: "C1 什么时候拿到路由？" },
      options: [
        option("push", "At once: NS-2 tells C1", "立即：NS-2 通知 C1"),
        option("poll", "At C1's next route poll (every 30 s)", "在 C1 下一次路由轮询时（每 30 秒）"),
        option("never", "Never, until C1 restarts", "永远不会，除非 C1 重启"),
      ],
      // A push would land within milliseconds of NS-2 learning the broker; a poll comes later.
      answer: "poll",
      resolves: "gate",
      grade: (h, snap, trace) => {
        const learned = find(trace, { node: "NS-2", kind: "registered" });
        return learned && h.at - learned.at > AT_ONCE_MS ? "poll" : "push";
      },
    },
    gate: { node: "C1", kinds: ["route-updated"] },
    subject: { kind: "GET_ROUTEINFO_BY_TOPIC", from: "NS-2", to: "C1", event: "route-updated" },
    what: { en: "C1 gets the route", zh: "C1 拿到路由" },
    focus: { nodes: ["C1", "NS-2"] },
    panel: { kind: "timer", node: "C1", timer: "route-poll" },
    after: (h, snap, trace) => {
      const learned = find(trace, { node: "NS-2", kind: "registered" });
      const late = learned ? ((h.at - learned.at) / 1000).toFixed(1) : "?";
      return {
        en: `C1 got the route at ${at(h)}, at its own poll, ${late} s after NS-2 knew. Nobody pushes routes: clients ask, cache, and ask again every 30 s.`,
        zh: `C1 在 ${at(h)} 才拿到路由，是它自己的轮询，比 NS-2 得知晚了 ${late} 秒。没有人推送路由：客户端查询、缓存，每 30 秒再问一次。`,
      };
    },
  },
  {
    text: {
      en: "That is the whole job: brokers register, NameServers hold the phone book, clients ask and cache. What happens when a broker dies, hangs or loses its network? Lessons S3–S5 show three ways a broker goes, and why one of them takes 120 s. Choose a lesson in the Lesson menu, or explore freely.",
      zh: "这就是全部的工作：Broker 注册，NameServer 保存电话簿，客户端查询并缓存。如果 Broker 崩溃、挂起或断网会怎样？课程 S3–S5 展示了 Broker 离开的三种方式，以及为什么其中一种要 120 秒。在“课程”菜单中选一课，或自由探索。",
    },
    reveal: "all",
  },
];

export default steps;
