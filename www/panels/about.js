// @ts-check
// "About this model": the RocketMQ version profile, the defaults in force, and every
// simplification with the source file that implements (or leaves out) the behaviour.
import { t, lang } from "../app/i18n.js";
import { esc } from "../app/html.js";

const L = (en, zh) => (lang === "zh" ? zh : en);

// A period as the table writes it: `10 s`, `120 000 ms` for the expiry rule.
const s = (ms) => `${ms / 1000} s`;
const groupedMs = (ms) => `${String(ms).replace(/\B(?=(\d{3})+$)/g, " ")} ms`;

// The values in force come from the model (`timings` of the scenario view), not from here.
function defaults({ timings: tm }) {
  return [
    ["scanNotActiveBrokerInterval", s(tm.scanIntervalMs), "NamesrvConfig / NamesrvController", "scan-interval"],
    [
      L("broker expiry (scan)", "Broker 过期（扫描）"),
      `last + ${groupedMs(tm.brokerTimeoutMs)} < now`,
      "RouteInfoManager.scanNotActiveBroker",
      "expiry",
    ],
    [
      "serverChannelMaxIdleTimeSeconds",
      tm.idleCloseMs === null ? L("off (scan only)", "关（仅扫描）") : s(tm.idleCloseMs),
      "NettyServerConfig, NettyRemotingServer (IdleStateHandler ALL_IDLE)",
      "idle",
    ],
    [
      "registerNameServerPeriod",
      L(`${s(tm.registerPeriodMs)} (first at +10 s)`, `${s(tm.registerPeriodMs)}（首次 +10 秒）`),
      "BrokerConfig, BrokerController.start",
      "register",
    ],
    [
      "pollNameServerInterval",
      L(`${s(tm.routePollPeriodMs)} (first at +10 ms)`, `${s(tm.routePollPeriodMs)}（首次 +10 毫秒）`),
      "ClientConfig, MQClientInstance",
      "poll",
    ],
    ["heartbeatBrokerInterval", "30 s", "ClientConfig, MQClientInstance", "heartbeat"],
    ["sendMsgTimeout", "3000 ms", "DefaultMQProducer", "timeout"],
    [
      "retryTimesWhenSendFailed",
      L("2 (3 attempts, all inside sendMsgTimeout)", "2（共 3 次尝试，都在 sendMsgTimeout 内）"),
      "DefaultMQProducerImpl.sendDefaultImpl",
      "retries",
    ],
    ["sendLatencyFaultEnable", L("off by default", "默认关闭"), "ClientConfig", "fault-enable"],
    [
      L("fault isolation after a timeout", "超时后的故障隔离"),
      s(tm.isolationMs),
      "MQFaultStrategy (latencyMax / notAvailableDuration)",
      "isolation",
    ],
    [
      "autoCreateTopicEnable",
      L("on (TBW102 template)", "开（TBW102 模板）"),
      "BrokerConfig, TopicConfigManager",
      "autocreate",
    ],
  ];
}

const SIMPLIFICATIONS = [
  [
    L(
      "The NameServer is the real state machine; only its socket layer is simulated (connections, idle tracking).",
      "NameServer 是真实的状态机；只有套接字层是模拟的（连接、空闲跟踪）。",
    ),
    "core/src/server/, sim/src/engine/namesrv.rs",
  ],
  [
    L(
      "Brokers are small actors: registration every 30 s, unregister on shutdown, re-register on topic creation, in-memory queues. No commit log, no HA replication traffic.",
      "Broker 是简化的参与者：每 30 秒注册、关闭时注销、创建主题时立即注册、内存队列。没有 CommitLog，没有主从复制流量。",
    ),
    "sim/src/actors/broker.rs",
  ],
  [
    L(
      "Producers send one synchronous message at a time; async and oneway sends are not modelled.",
      "生产者每次只同步发送一条消息；不模拟异步和单向发送。",
    ),
    "sim/src/actors/producer.rs",
  ],
  [
    L(
      "Consumers: push consumer, clustering mode, long polling; offsets committed to the broker every 5 s and when a queue is dropped, a taken queue resumes at its committed offset; a rebalance follows each route change at once (Java waits for its 20 s tick); one consumer per group holds every queue; no retry topics.",
      "消费者：Push 消费者、集群模式、长轮询；位点每 5 秒以及丢弃队列时提交给 Broker，接手的队列从已提交位点继续；路由变化后立即重平衡（Java 会等 20 秒的周期）；每组一个消费者持有全部队列；没有重试主题。",
    ),
    "sim/src/actors/consumer.rs",
  ],
  [
    L(
      "Clients share one route cache and the 30 s poll; a client binds to one NameServer and switches only when that channel fails.",
      "客户端共享路由缓存和 30 秒轮询；客户端绑定一个 NameServer，只有该连接失败时才切换。",
    ),
    "sim/src/actors/client.rs",
  ],
  [
    L(
      "Network: per-link latency 2 ms ± 1 ms (seeded), TCP order per connection; cut = silent drop, reset = RST. No bandwidth, no packet loss besides faults.",
      "网络：每条链路延迟 2 ms ± 1 ms（有种子），每个连接保持 TCP 顺序；切断=静默丢包，重置=RST。没有带宽限制，除故障外不丢包。",
    ),
    "sim/src/engine/net.rs",
  ],
  [
    L("Faults are applied exactly at their scripted millisecond.", "故障在脚本指定的毫秒精确生效。"),
    "sim/src/engine/faults.rs",
  ],
  [
    L(
      "Master/slave is classic mode: no DLedger, no automatic promotion.",
      "主从为经典模式：没有 DLedger，没有自动切换。",
    ),
    "sim/src/actors/broker.rs, sim/src/actors/consumer.rs",
  ],
  [
    L(
      "Time is virtual (milliseconds); everything is deterministic from the seed.",
      "时间是虚拟的（毫秒）；一切由种子决定。",
    ),
    "sim/src/engine/mod.rs, sim/src/engine/rng.rs",
  ],
  [
    L(
      "Scan-only mode switches off the Netty idle close: the textbook model where only the scan removes silent brokers.",
      "仅扫描模式关闭 Netty 空闲关闭：教科书模型，只有扫描会移除静默的 Broker。",
    ),
    "sim/src/scenario/mod.rs (idle on/off)",
  ],
];

// `model`: the scenario view (`Simulation.scenarioView()`): its profile, idle switch and timings.
export function renderAbout(el, model) {
  const { profile, idleClose: idle } = model;
  const rows = defaults(model)
    .map(
      ([k, v, src, id]) =>
        `<tr data-default="${id}"><th scope="row">${esc(k)}</th><td data-testid="default-${id}">${esc(v)}</td><td class="mono small">${esc(src)}</td></tr>`,
    )
    .join("");
  const simp = SIMPLIFICATIONS.map(
    ([text, src]) => `<li>${esc(text)} <span class="mono small">(${esc(src)})</span></li>`,
  ).join("");
  el.innerHTML = `<p>${esc(t("aboutIntro"))}</p>
<fieldset><legend>${esc(t("aboutProfile"))}</legend>
<label class="radio"><input type="radio" name="profile" value="4.9" ${profile === "4.9" ? "checked" : ""} data-testid="profile-4.9"> 4.9.x (rocketmq-all-4.9.4)</label>
<label class="radio"><input type="radio" name="profile" value="5.x" ${profile === "5.x" ? "checked" : ""} data-testid="profile-5.x"> 5.x (master)</label></fieldset>
<fieldset><legend>${esc(t("aboutIdle"))}</legend>
<label class="radio"><input type="radio" name="idle" value="on" ${idle ? "checked" : ""} data-testid="idle-on"> ${esc(t("idleOn"))}</label>
<label class="radio"><input type="radio" name="idle" value="off" ${idle ? "" : "checked"} data-testid="idle-off"> ${esc(t("idleOff"))}</label></fieldset>
<h3>${esc(t("aboutDefaults"))} — <span data-testid="about-profile">${esc(profile)}</span></h3>
<div class="table-wrap"><table class="defaults">${rows}</table></div>
<h3>${esc(t("aboutSimplifications"))}</h3><ul class="simplifications" data-testid="simplifications">${simp}</ul>`;
}
