// @ts-check
// The two views of the truth: each NameServer's route for the topic beside the copy each of
// its clients cached, the rows that differ marked (struck through when gone, marked when new)
// and the difference said in plain words.
import { t } from "../app/i18n.js";
import { dur } from "../app/format.js";
import { esc, setHtml } from "../app/html.js";
import { STATE_ICON } from "../diagram/glyphs.js";
import { rich } from "../lessons/glossary.js";

const PERM = { 2: "W", 4: "R", 6: "RW", 7: "RWX" };
// Camel-case names may break between words in a narrow column (the text stays the name).
const soft = (name) => name.replace(/([a-z])([A-Z])/g, "$1<wbr>$2");

// A TopicRoute exactly as the dashboard's Topic → Router dialog lays it out. `marks`: brokerName →
// "gone" | "new" for rows that differ from the other view, and "addrs:" or "queues:" + brokerName
// → "changed" for a group whose members or queues differ.
export function routeHtml(route, marks = {}) {
  if (!route) return `<p class="no-route">${esc(t("noRoute"))}</p>`;
  const mark = (table, name) => {
    const m = marks[name] || marks[`${table}:${name}`];
    return m ? ` class="row-${m}" data-diff="${m}"` : "";
  };
  const bd = route.brokerDatas
    .map((b) => {
      const addrs = Object.entries(b.brokerAddrs)
        .map(([id, a]) => `${esc(id)}: <span class="nowrap">${esc(a)}</span>`)
        .join("<br>");
      return `<tr${mark("addrs", b.brokerName)}><td>${esc(b.brokerName)}</td><td class="mono addrs">{${addrs}}</td></tr>`;
    })
    .join("");
  const qd = route.queueDatas
    .map(
      (q) =>
        `<tr${mark("queues", q.brokerName)}><td>${esc(q.brokerName)}</td><td>${q.readQueueNums}</td><td>${q.writeQueueNums}</td><td>${q.perm} (${PERM[q.perm] || "?"})</td></tr>`,
    )
    .join("");
  const th = (names) => names.map((n) => `<th>${soft(n)}</th>`).join("");
  return `<table class="router"><caption>brokerDatas</caption><thead><tr>${th(["brokerName", "brokerAddrs"])}</tr></thead><tbody>${bd}</tbody></table>
<table class="router"><caption>queueDatas</caption><thead><tr>${th(["brokerName", "readQueueNums", "writeQueueNums", "perm"])}</tr></thead><tbody>${qd}</tbody></table>`;
}

function routeKey(route) {
  if (!route) return "none";
  const b = route.brokerDatas
    .map((x) => `${x.brokerName}${JSON.stringify(x.brokerAddrs)}`)
    .sort()
    .join(";");
  const q = route.queueDatas
    .map((x) => `${x.brokerName}:${x.readQueueNums}/${x.writeQueueNums}/${x.perm}`)
    .sort()
    .join(";");
  return `${b}|${q}`;
}

// Brokers a client's cached route has that its NameServer's lacks ("gone"), the reverse
// ("new"), and those both list differently ("changed": other members of the group, as when a
// master is gone and its slave stays, or other queues).
export function routeDiff(cached, truth) {
  const names = (r) => new Set(r ? r.brokerDatas.map((b) => b.brokerName) : []);
  const c = names(cached);
  const n = names(truth);
  return {
    gone: [...c].filter((x) => !n.has(x)),
    added: [...n].filter((x) => !c.has(x)),
    changed: [...c].filter((x) => n.has(x) && brokerText(cached, x) !== brokerText(truth, x)),
  };
}

// One group as a route lists it, in the node cards' words, showing only what `other` lists
// differently (all of it without `other`): its members "BID 0, 1", its queues and perm "w4 RW".
export function brokerText(route, name, other) {
  const part = (r) => {
    const b = r && r.brokerDatas.find((x) => x.brokerName === name);
    const q = r && r.queueDatas.find((x) => x.brokerName === name);
    return {
      members: b
        ? `BID ${Object.keys(b.brokerAddrs)
            .map(Number)
            .sort((x, y) => x - y)
            .join(", ")}`
        : "",
      queues: q
        ? `w${q.writeQueueNums}${q.readQueueNums === q.writeQueueNums ? "" : ` r${q.readQueueNums}`} ${PERM[q.perm] || q.perm}`
        : "",
    };
  };
  const mine = part(route);
  const theirs = other === undefined ? null : part(other);
  const shown = ["members", "queues"].filter((k) => !theirs || mine[k] !== theirs[k]);
  return shown
    .map((k) => mine[k])
    .filter(Boolean)
    .join(" · ");
}

// "P1 still sends to broker-b: NS-1 removed it 8.0 s ago; P1 asks again in 22.0 s."
export function staleSentence(client, snap) {
  const c = snap.clients[client];
  if (!c || !c.stale) return "";
  const truth = snap.routes[c.boundTo] ? snap.routes[c.boundTo][c.topic] : null;
  const d = routeDiff(c.route, truth);
  const node = snap.nodes.find((n) => n.name === client);
  const poll = node && node.timers.find((x) => x.kind === "route-poll");
  const vars = {
    c: client,
    ns: c.boundTo,
    s: dur(snap.time - c.staleSince),
    next: poll ? dur(Math.max(0, poll.at - snap.time)) : "?",
  };
  if (d.gone.length) return t("staleGone", { ...vars, b: d.gone.join(", ") });
  if (d.added.length) return t("staleNew", { ...vars, b: d.added.join(", ") });
  if (d.changed.length) {
    const b = d.changed[0];
    return t("staleMembers", { ...vars, b, was: brokerText(c.route, b, truth), now: brokerText(truth, b, c.route) });
  }
  return t("staleChanged", vars);
}

function marksFor(cached, truth) {
  const d = routeDiff(cached, truth);
  const addrs = (r, b) => JSON.stringify(r.brokerDatas.find((x) => x.brokerName === b).brokerAddrs);
  const queues = (r, b) => JSON.stringify(r.queueDatas.find((x) => x.brokerName === b) || null);
  const changed = d.changed.flatMap((b) => [
    ...(addrs(cached, b) !== addrs(truth, b) ? [[`addrs:${b}`, "changed"]] : []),
    ...(queues(cached, b) !== queues(truth, b) ? [[`queues:${b}`, "changed"]] : []),
  ]);
  return {
    cached: Object.fromEntries([...d.gone.map((b) => [b, "gone"]), ...changed]),
    truth: Object.fromEntries([...d.added.map((b) => [b, "new"]), ...changed]),
  };
}

function nsCard(n, route, topic, marks = {}) {
  const down = n.state !== "up";
  return `<article class="card route-card" data-testid="route-${esc(n.name)}" data-route-key="${esc(routeKey(route))}">
<h3>${esc(t("routeOf", { topic: topic || "—", who: n.name }))}</h3>
${down ? `<p class="badge bad">${STATE_ICON[n.state]} ${esc(t(`state_${n.state}`))}</p>` : ""}${down ? `<p class="no-route" data-testid="no-answer-${esc(n.name)}">${esc(t("noAnswer", { ns: n.name }))}</p>` : topic ? routeHtml(route, marks) : `<p class="muted">${esc(t("noTopicYet"))}</p>`}</article>`;
}

function clientCard(n, snap, topic) {
  const c = snap.clients[n.name];
  if (!c || n.state === "not-started") {
    return `<article class="card route-card client" data-testid="client-${esc(n.name)}"><h3>${esc(n.name)}</h3><p class="muted">${esc(t("notRunning"))}</p></article>`;
  }
  const truth = snap.routes[c.boundTo] && snap.routes[c.boundTo][topic];
  const marks = c.stale ? marksFor(c.route, truth).cached : {};
  // A NameServer that is down answers nothing: there is nothing to match.
  const boundDown = snap.nodes.some((x) => x.name === c.boundTo && x.state !== "up");
  const badge = boundDown
    ? `<p class="badge bad" data-testid="no-answer-for-${esc(n.name)}">${esc(t("noAnswerKept", { ns: c.boundTo, c: n.name }))}</p>`
    : c.stale
      ? `<p class="badge stale" data-testid="stale-${esc(n.name)}" data-stale-since="${c.staleSince}">⚠ ${rich(`[[stale|${t("stale", { s: dur(snap.time - c.staleSince) })}]]`)}</p><p class="stale-why" data-testid="stale-why-${esc(n.name)}">${esc(staleSentence(n.name, snap))}</p>`
      : `<p class="badge ok" data-testid="fresh-${esc(n.name)}">✓ ${esc(t("fresh", { ns: c.boundTo }))}</p>`;
  return `<article class="card route-card client${c.stale ? " is-stale" : ""}" data-testid="client-${esc(n.name)}" data-stale="${c.stale}" data-route-key="${esc(routeKey(c.route))}">
<h3>${esc(t("cachedRoute", { c: n.name, ns: c.boundTo }))}</h3>${badge}${c.route ? routeHtml(c.route, marks) : `<p class="no-route">${esc(t("noCache"))}</p>`}</article>`;
}

// One row per NameServer: its route, then each client bound to it, so the copies sit beside
// the table they were copied from.
export function renderRouteGrid(el, snap, meta) {
  const topic = meta.topics[0];
  const rows = [];
  const clients = snap.nodes.filter((x) => x.role === "producer" || x.role === "consumer");
  const boundOf = (c) =>
    snap.clients[c.name] ? snap.clients[c.name].boundTo : c.boundTo || (meta.bound || {})[c.name];
  for (const n of snap.nodes.filter((x) => x.role === "nameserver")) {
    const route = snap.routes[n.name] && snap.routes[n.name][topic];
    const mine = clients.filter((c) => boundOf(c) === n.name);
    const staleHere = mine.filter((c) => snap.clients[c.name] && snap.clients[c.name].stale);
    const marks = staleHere.length ? marksFor(snap.clients[staleHere[0].name].route, route).truth : {};
    rows.push(
      `<div class="route-row" data-ns="${esc(n.name)}">${nsCard(n, route, topic, marks)}${mine.map((c) => clientCard(c, snap, topic)).join("")}</div>`,
    );
  }
  const bound = new Set(snap.nodes.filter((x) => x.role === "nameserver").map((x) => x.name));
  const orphans = clients.filter((c) => !bound.has(boundOf(c)));
  if (orphans.length)
    rows.push(`<div class="route-row">${orphans.map((c) => clientCard(c, snap, topic)).join("")}</div>`);
  setHtml(el, rows.join(""));
}
