// @ts-check
// Every RocketMQ word the page uses, defined in a sentence or two (English and Chinese).
// Narration marks a term as [[id]] or [[id|shown words]]; it becomes a button that opens the
// definition in a popover (mouse, touch or keyboard), and the Glossary dialog lists them all.
import { lang } from "../app/i18n.js";
import { esc } from "../app/html.js";

const TERMS = {
  producer: {
    en: [
      "producer",
      "A client program that sends messages to a topic. It asks a NameServer where the topic's queues are, then sends each message straight to a broker.",
    ],
    zh: [
      "生产者",
      "向主题发送消息的客户端程序。它先向 NameServer 查询主题的队列在哪里，然后把每条消息直接发给 Broker。",
    ],
  },
  consumer: {
    en: [
      "consumer",
      "A client program that reads messages from a topic. Consumers of one consumer group share the topic's queues between them (see rebalance).",
    ],
    zh: ["消费者", "从主题读取消息的客户端程序。同一消费者组的消费者分摊主题的队列（见“重平衡”）。"],
  },
  broker: {
    en: [
      "broker",
      "A server that stores messages on disk and serves sends and pulls. Brokers are where the data lives; NameServers only know where the brokers are.",
    ],
    zh: ["Broker", "把消息存到磁盘并处理发送和拉取的服务器。数据在 Broker 上；NameServer 只知道 Broker 在哪里。"],
  },
  nameserver: {
    en: [
      "NameServer",
      "RocketMQ's directory: it keeps, in memory, which brokers are alive and which topics they hold, and answers clients' route queries. NameServers never talk to each other; each learns only from brokers' registrations.",
    ],
    zh: [
      "NameServer",
      "RocketMQ 的目录服务：它在内存中记录哪些 Broker 存活、各持有哪些主题，并回答客户端的路由查询。NameServer 之间从不通信，各自只从 Broker 的注册中获知信息。",
    ],
  },
  topic: {
    en: [
      "topic",
      "A named stream of messages, such as TopicTest. A topic is split into queues spread over one or more brokers.",
    ],
    zh: ["主题（Topic）", "一个有名字的消息流，例如 TopicTest。一个主题被分成若干队列，分布在一个或多个 Broker 上。"],
  },
  queue: {
    en: [
      "queue",
      "One ordered slice of a topic on one broker (a MessageQueue). Producers spread sends over the queues; each queue is read by one consumer of a group at a time.",
    ],
    zh: [
      "队列",
      "主题在某个 Broker 上的一个有序分片（MessageQueue）。生产者把发送分散到各队列；同一时刻每个队列只由组内一个消费者读取。",
    ],
  },
  route: {
    en: [
      "route",
      "TopicRouteData: which brokers hold a topic (brokerDatas, with each instance's address) and how many queues each has (queueDatas). Clients fetch it from a NameServer and cache it.",
    ],
    zh: [
      "路由",
      "TopicRouteData：哪些 Broker 持有该主题（brokerDatas，含每个实例的地址）以及各有多少队列（queueDatas）。客户端从 NameServer 获取并缓存它。",
    ],
  },
  group: {
    en: [
      "broker group",
      "Broker instances that share one brokerName: a master and its slaves holding the same data. Routes list groups, not machines.",
    ],
    zh: [
      "Broker 组",
      "共用同一个 brokerName 的 Broker 实例：一个主节点及其从节点，保存相同的数据。路由列出的是组，而不是机器。",
    ],
  },
  master: {
    en: [
      "master",
      "The instance of a broker group with BID 0: it accepts sends. Producers only send to groups whose master is alive.",
    ],
    zh: ["主节点", "Broker 组中 BID 为 0 的实例：它接收发送。生产者只向主节点存活的组发送。"],
  },
  slave: {
    en: [
      "slave",
      "An instance of a broker group with BID > 0: it copies the master's data and can serve reads. In classic master/slave it is never promoted automatically.",
    ],
    zh: [
      "从节点",
      "Broker 组中 BID 大于 0 的实例：它复制主节点的数据，可以提供读取。经典主从模式下它不会自动升为主节点。",
    ],
  },
  bid: {
    en: ["BID", "Broker id within a group: 0 is the master, 1, 2 … are slaves."],
    zh: ["BID", "组内的 Broker 编号：0 是主节点，1、2…… 是从节点。"],
  },
  register: {
    en: [
      "registration",
      "REGISTER_BROKER: a broker tells a NameServer who it is and which topics it holds. Sent to every NameServer at start and then every 30 s; it doubles as the broker's heartbeat.",
    ],
    zh: [
      "注册",
      "REGISTER_BROKER：Broker 告诉 NameServer 自己是谁、持有哪些主题。启动时以及之后每 30 秒发给每个 NameServer；它同时也是 Broker 的心跳。",
    ],
  },
  unregister: {
    en: [
      "unregister",
      "UNREGISTER_BROKER: sent by a broker that shuts down gracefully, so NameServers drop it at once.",
    ],
    zh: ["注销", "UNREGISTER_BROKER：优雅关闭的 Broker 发出的消息，NameServer 收到后立即移除它。"],
  },
  heartbeat: {
    en: [
      "client heartbeat",
      "HEART_BEAT: every 30 s each client tells each broker it uses that it is alive (and, for consumers, which group it is in).",
    ],
    zh: ["客户端心跳", "HEART_BEAT：每 30 秒，客户端告诉它使用的每个 Broker 自己还活着（消费者还会说明所属的组）。"],
  },
  livetable: {
    en: [
      "brokerLiveTable",
      "The NameServer's table of broker instances with the time each last registered. A broker silent for 120 s is removed.",
    ],
    zh: ["brokerLiveTable", "NameServer 中记录每个 Broker 实例最后注册时间的表。静默 120 秒的 Broker 会被移除。"],
  },
  scan: {
    en: [
      "scan",
      "scanNotActiveBroker: a NameServer job (every 10 s in 4.x, 5 s in 5.x) that removes brokers whose last registration is older than 120 s.",
    ],
    zh: [
      "扫描",
      "scanNotActiveBroker：NameServer 的定时任务（4.x 每 10 秒，5.x 每 5 秒），移除最后注册时间超过 120 秒的 Broker。",
    ],
  },
  idle: {
    en: [
      "idle close",
      "Netty closes a connection that carried nothing for 120 s; the NameServer then removes the broker on that connection at once. This, not the scan, usually removes a hung broker.",
    ],
    zh: [
      "空闲关闭",
      "一个连接 120 秒没有任何数据时，Netty 会关闭它；NameServer 随即移除该连接上的 Broker。通常是它，而不是扫描，移除挂起的 Broker。",
    ],
  },
  stale: {
    en: [
      "stale route",
      "A client's cached route that differs from its NameServer's table. Clients only refresh at their 30 s poll (or when they have no route at all).",
    ],
    zh: ["过期路由", "客户端缓存的路由与其 NameServer 的表不一致。客户端只在 30 秒轮询时刷新（或完全没有路由时）。"],
  },
  poll: {
    en: [
      "route poll",
      "Every 30 s (pollNameServerInterval) each client asks its NameServer for the routes of its topics. Nobody pushes routes to clients.",
    ],
    zh: [
      "路由轮询",
      "每 30 秒（pollNameServerInterval），客户端向它的 NameServer 查询所用主题的路由。没有人会向客户端推送路由。",
    ],
  },
  longpoll: {
    en: [
      "long-poll",
      "A consumer's pull that the broker holds open (up to 15 s here) until a message arrives, so messages reach consumers quickly without constant asking.",
    ],
    zh: [
      "长轮询",
      "消费者的拉取请求被 Broker 挂起（此处最长 15 秒），直到有消息到达，这样不必频繁询问也能很快收到消息。",
    ],
  },
  rebalance: {
    en: [
      "rebalance",
      "Consumers of one group divide the topic's queues among themselves, every 20 s and whenever their route changes. A queue missing from a consumer's route is not read.",
    ],
    zh: [
      "重平衡",
      "同一组的消费者在彼此之间分配主题的队列，每 20 秒以及路由变化时进行。不在消费者路由中的队列不会被读取。",
    ],
  },
  offset: {
    en: [
      "consumer offset",
      "How far a consumer group has read in each queue. Push consumers commit it to the broker every 5 s; a consumer that takes over a queue resumes there.",
    ],
    zh: [
      "消费位点",
      "消费者组在每个队列中读到的位置。Push 消费者每 5 秒把它提交给 Broker；接手队列的消费者从这里继续。",
    ],
  },
  tbw102: {
    en: [
      "TBW102",
      "The default topic every broker with autoCreateTopicEnable registers. A producer sending to an unknown topic uses TBW102's route, and the broker that receives the send creates the topic.",
    ],
    zh: [
      "TBW102",
      "开启 autoCreateTopicEnable 的 Broker 都会注册的默认主题。生产者向未知主题发送时使用 TBW102 的路由，收到发送的 Broker 会创建该主题。",
    ],
  },
  faultavoid: {
    en: [
      "sendLatencyFaultEnable",
      "A producer option (off by default): after a failed or slow send it avoids that broker for a while (600 s in 4.x, 10 s in 5.x). It lives in the producer's memory only.",
    ],
    zh: [
      "sendLatencyFaultEnable",
      "生产者选项（默认关闭）：发送失败或很慢之后，在一段时间内避开该 Broker（4.x 为 600 秒，5.x 为 10 秒）。它只存在于生产者的内存中。",
    ],
  },
  perm: {
    en: [
      "perm",
      "A queue's permissions as bits: 2 write, 4 read, 6 read+write. A broker whose write permission is wiped takes no new sends.",
    ],
    zh: ["perm", "队列权限位：2 写，4 读，6 读写。被撤销写权限的 Broker 不再接收新的发送。"],
  },
};

export function term(id) {
  const e = TERMS[id];
  if (!e) return null;
  const [name, def] = e[lang] || e.en;
  return { id, name, def };
}

// Narration with [[id]] / [[id|words]] marks, as HTML.
export function rich(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(/\[\[([a-z0-9]+)(?:\|([^\]]+))?\]\]/g)) {
    out.push(esc(text.slice(last, m.index)));
    const tm = term(m[1]);
    const shown = m[2] || (tm ? tm.name : m[1]);
    out.push(
      tm
        ? `<button type="button" class="term" data-term="${esc(tm.id)}" aria-haspopup="dialog" title="${esc(tm.def)}">${esc(shown)}</button>`
        : esc(shown),
    );
    last = m.index + m[0].length;
  }
  out.push(esc(text.slice(last)));
  return out.join("");
}

export class Glossary {
  constructor(dialog, list, pop) {
    this.dialog = dialog;
    this.list = list;
    this.pop = pop;
  }

  // Any [[term]] button anywhere in `root` opens its definition.
  bind(root) {
    root.addEventListener("click", (e) => {
      const b = e.target.closest("button.term[data-term]");
      if (b) this.show(b);
    });
  }

  show(button) {
    const tm = term(button.dataset.term);
    if (!tm) return;
    const pop = this.pop;
    if (pop.matches(":popover-open") && pop.dataset.term === tm.id) {
      pop.hidePopover();
      return;
    }
    pop.dataset.term = tm.id;
    pop.innerHTML = `<strong>${esc(tm.name)}</strong> ${esc(tm.def)}`;
    pop.showPopover();
    const r = button.getBoundingClientRect();
    const w = Math.min(320, window.innerWidth - 16);
    pop.style.width = `${w}px`;
    const left = Math.max(8, Math.min(window.innerWidth - w - 8, r.left));
    const below = r.bottom + 6;
    const h = pop.offsetHeight;
    const top = below + h < window.innerHeight - 8 ? below : Math.max(8, r.top - h - 6);
    pop.style.left = `${left}px`;
    pop.style.top = `${top}px`;
  }

  open() {
    const items = Object.keys(TERMS)
      .map((id) => /** @type {{ id: string, name: string, def: string }} */ (term(id)))
      .sort((a, b) => a.name.localeCompare(b.name, lang === "zh" ? "zh" : "en"));
    this.list.innerHTML = items
      .map((x) => `<dt id="term-${x.id}" data-term="${x.id}">${esc(x.name)}</dt><dd>${esc(x.def)}</dd>`)
      .join("");
    this.dialog.showModal();
  }
}
