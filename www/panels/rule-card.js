// @ts-check
// The rule lit as it fires (issue 34): when a lesson's awaited event arrives, a card beside the
// node it happened on says the rule that decided it, in words, with the numbers the core gave
// with the event (the trace line's `operands`). Nothing here adds or compares times: the sums
// and deadlines are the model's too. The card goes when the step changes, the lesson ends or
// the clock goes back before the event.
import { lang } from "../app/i18n.js";
import { secs, span as spanText } from "../app/format.js";
import { rich } from "../lessons/glossary.js";
import { esc, setHtml } from "../app/html.js";
import { placeBeside } from "../diagram/layout.js";

// A number the card quotes, marked with the operand it is so tests can hold it to the view.
const num = (op, ms, text) => `<b data-op="${op}" data-ms="${ms}">${esc(text)}</b>`;
const t3 = (op, ms) => num(op, ms, secs(ms));
const span = (op, ms) => num(op, ms, spanText(ms));

// The broker a NameServer's line names, by the address its text quotes.
function brokerOf(line, nodes) {
  const n = (nodes || []).find((x) => x.role === "broker" && x.addr && line.text.includes(x.addr));
  return n ? n.name : "?";
}

// The card's title and sentence for a trace line with operands, as HTML in the page's language
// ([[term]] marks become glossary buttons); null for a line no rule decided.
export function ruleCard(line, nodes) {
  const o = line.operands;
  if (!o) return null;
  const zh = lang === "zh";
  const broker = esc(brokerOf(line, nodes));
  const node = esc(line.node);
  switch (o.rule) {
    case "expired": {
      const [l, tm, d, now] = [
        t3("lastUpdate", o.lastUpdate),
        span("timeoutMs", o.timeoutMs),
        t3("deadline", o.deadline),
        t3("now", o.now),
      ];
      return zh
        ? {
            title: rich("规则：[[scan|扫描]]发现过期"),
            body: `最后注册 ${l} + ${tm} = ${d} &lt; 现在 ${now} → 移除 ${broker}`,
          }
        : {
            title: rich("Rule: the [[scan]] finds it expired"),
            body: `last registration ${l} + ${tm} = ${d} &lt; now ${now} → remove ${broker}`,
          };
    }
    case "idle-close": {
      const [l, idle, d, now] = [
        t3("lastIo", o.lastIo),
        span("idleMs", o.idleMs),
        t3("deadline", o.deadline),
        t3("now", o.now),
      ];
      return zh
        ? {
            title: rich("规则：[[idle|空闲关闭]]"),
            body: `此连接静默 ${idle}（最后收发 ${l} + ${idle} = ${d} ≤ 现在 ${now}）→ 空闲关闭，移除 ${broker}`,
          }
        : {
            title: rich("Rule: [[idle|idle close]]"),
            body: `silent ${idle} on this connection (last byte ${l} + ${idle} = ${d} ≤ now ${now}) → idle close, ${broker} removed`,
          };
    }
    case "registered": {
      const [l, tm, d] = [t3("lastUpdate", o.lastUpdate), span("timeoutMs", o.timeoutMs), t3("deadline", o.deadline)];
      return zh
        ? {
            title: rich("规则：[[register|注册]]重置移除时钟"),
            body: `${node} 此前没有 ${broker} 的记录 → 最后注册 ${l}，截止 ${l} + ${tm} = ${d}；截止前没有再次注册，${rich("[[scan|扫描]]")}才会移除它`,
          }
        : {
            title: rich("Rule: a [[register|registration]] winds the removal clock"),
            body: `${node} had no entry for ${broker} → last registration ${l}, deadline ${l} + ${tm} = ${d}; a ${rich("[[scan]]")} removes it only if no registration comes before`,
          };
    }
    case "renewed": {
      const [l, tm, d, was] = [
        t3("lastUpdate", o.lastUpdate),
        span("timeoutMs", o.timeoutMs),
        t3("deadline", o.deadline),
        t3("before", o.before),
      ];
      return zh
        ? {
            title: rich("规则：再次[[register|注册]]让移除时钟重新开始"),
            body: `${node} 又收到 ${broker} 的注册（心跳）→ 最后注册 ${l}，截止 ${l} + ${tm} = ${d}（原为 ${was}）`,
          }
        : {
            title: rich("Rule: a renewed [[register|registration]] restarts the removal clock"),
            body: `${node} hears ${broker} again (its heartbeat) → last registration ${l}, deadline ${l} + ${tm} = ${d} (was ${was})`,
          };
    }
    case "route": {
      const g = num("groups", o.groups, String(o.groups));
      return zh
        ? { title: rich("规则：[[route|路由]]应答"), body: `应答列出 ${g} 个 Broker 组 → ${node} 向这些组发送/拉取` }
        : {
            title: rich("Rule: the [[route]] answer"),
            body: `the answer lists ${g} broker group${o.groups === 1 ? "" : "s"} → ${node} uses them`,
          };
    }
    case "topic-not-exist":
      return zh
        ? {
            title: rich("规则：[[route|路由]]应答"),
            body: `应答为 <b data-op="code">TOPIC_NOT_EXIST</b>：NameServer 没有该主题的 Broker → ${node} 没有队列`,
          }
        : {
            title: rich("Rule: the [[route]] answer"),
            body: `the answer is <b data-op="code">TOPIC_NOT_EXIST</b>: the NameServer knows no broker for the topic → ${node} has no queues`,
          };
    default:
      return null;
  }
}

// A renewal between two drawn snapshots: the first live row, NameServer by NameServer, whose
// broker registered again (the same entry, a later `lastUpdate`), as a line for `ruleCard`
// with the model's own numbers (its `expiresAt` the deadline, and the one it replaced); null if
// none. No event stands for it: a renewal changes a row and writes no trace line.
export function renewalOf(before, snap) {
  if (!before || !snap || snap.time < before.time) return null;
  for (const [ns, tables] of Object.entries(snap.ns || {})) {
    const old = before.ns && before.ns[ns];
    if (!tables || !old) continue;
    for (const row of tables.live) {
      const was = old.live.find((r) => r.brokerAddr === row.brokerAddr && r.cluster === row.cluster);
      if (!was || row.lastUpdate <= was.lastUpdate) continue;
      return {
        node: ns,
        at: row.lastUpdate,
        text: row.brokerAddr,
        operands: {
          rule: "renewed",
          lastUpdate: row.lastUpdate,
          timeoutMs: row.timeoutMs,
          deadline: row.expiresAt,
          before: was.expiresAt,
        },
      };
    }
  }
  return null;
}

export class RuleCard {
  // `wrap`: the diagram's wrapper (the card is placed inside it); `svg`: the diagram; `sheet`:
  // the lesson panel, which on a phone is a sheet fixed over the page's bottom.
  constructor(store, wrap, svg, sheet) {
    this.store = store;
    this.wrap = wrap;
    this.svg = svg;
    this.sheet = sheet;
    this.hit = null;
    this.key = null;
    // The snapshot drawn before, and the step whose renewal was told (once a step: every
    // broker renews every 30 s on every NameServer).
    this.before = null;
    this.renewedIn = null;
    this.el = document.createElement("aside");
    this.el.className = "rule-card";
    this.el.dataset.testid = "rule-card";
    this.el.setAttribute("role", "status");
    this.el.hidden = true;
    // First in the wrapper: docked, it takes its own room above the diagram.
    wrap.prepend(this.el);
    store.subscribe((state, action) => this.on(state, action));
    new ResizeObserver(() => this.place()).observe(wrap);
  }

  on(state, action) {
    const lesson = state.lesson;
    const key = lesson && lesson.id !== null ? `${lesson.id}:${lesson.step}` : null;
    if (action.type === "gateHit") {
      this.key = key;
      this.show(action.hit, state);
      return;
    }
    const snap = state.view && state.view.snap;
    if (action.type === "answer") {
      const before = this.before;
      this.before = snap;
      // In a step playing to its event, the first renewal, unless a rule's card is up.
      if (key !== null && key !== this.renewedIn && !this.hit && state.playback.playing) {
        const renewal = renewalOf(before, snap);
        if (renewal) {
          this.renewedIn = this.key = key;
          this.show(renewal, state);
          return;
        }
      }
    }
    if (!this.hit) return;
    // A new step, the end of the lesson, or a clock gone back before the event: the rule has
    // not fired (yet) on what is drawn.
    if (key !== this.key || (snap && snap.time < this.hit.at)) this.hide();
  }

  show(hit, state) {
    const snap = state.view && state.view.snap;
    const card = ruleCard(hit, snap && snap.nodes);
    if (!card) return this.hide();
    this.hit = hit;
    const el = this.el;
    el.dataset.node = hit.node;
    el.dataset.rule = hit.operands.rule;
    // (A renewal is no trace line.)
    if (hit.seq === undefined) delete el.dataset.seq;
    else el.dataset.seq = String(hit.seq);
    el.dataset.at = String(hit.at);
    el.lang = lang === "zh" ? "zh-CN" : "en";
    setHtml(el, `<p class="rule-title">${card.title}</p><p class="rule-body">${card.body}</p>`);
    el.hidden = false;
    this.place();
  }

  hide() {
    this.hit = null;
    this.el.hidden = true;
    this.svg.style.height = "";
  }

  // Beside its node, on no node's box (it would hide the state the rule is about); where no
  // such spot is free (a phone's diagram has none), docked: in the page's flow above the
  // diagram, under the header and the clock (a learner reads the clock while the rule is
  // explained), the diagram drawn smaller by its height while it is shown.
  place() {
    if (!this.hit || this.el.hidden) return;
    const node = this.svg.querySelector(`[data-node="${CSS.escape(this.hit.node)}"] .box`);
    if (!node) return;
    const el = this.el;
    el.classList.remove("docked");
    this.svg.style.height = "";
    const wrap = this.wrap.getBoundingClientRect();
    const box = node.getBoundingClientRect();
    const boxes = [...this.svg.querySelectorAll("[data-node] .box")].map((b) => b.getBoundingClientRect());
    Object.assign(el.style, {
      left: "0px",
      top: "0px",
      maxWidth: `${Math.min(280, Math.max(160, wrap.width - 16))}px`,
    });
    const card = el.getBoundingClientRect();
    // Where it can be seen: the diagram, on screen, above a sheet fixed over the page.
    const area = {
      left: wrap.left,
      right: wrap.right,
      top: Math.max(wrap.top, 0),
      bottom: Math.min(wrap.bottom, window.innerHeight),
    };
    const sheet = this.sheet && !this.sheet.hidden && getComputedStyle(this.sheet).position === "fixed";
    if (sheet) area.bottom = Math.min(area.bottom, this.sheet.getBoundingClientRect().top);
    const p = placeBeside(box, card, area, boxes);
    el.dataset.side = p ? p.side : "docked";
    el.classList.toggle("docked", !p);
    if (!p) {
      Object.assign(el.style, { left: "", top: "", maxWidth: "" });
      // The diagram gives the card its room, drawn smaller: the stage stays as tall as it was
      // (a phone's lesson sheet keeps its room, and no node goes under it).
      const taken = this.wrap.getBoundingClientRect().height - wrap.height;
      this.svg.style.height = `${Math.max(wrap.height / 2, wrap.height - taken)}px`;
      return;
    }
    Object.assign(el.style, { left: `${Math.round(p.x - wrap.left)}px`, top: `${Math.round(p.y - wrap.top)}px` });
  }
}
