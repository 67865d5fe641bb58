// What a message looks like: a shape, a short word and a colour per category, so a type is
// never told by colour alone (the legend lists them once).
import { t } from "../app/i18n.js";
import { secs } from "../app/format.js";

const NS = "http://www.w3.org/2000/svg";

export const STATE_ICON = {
  up: "●",
  "not-started": "○",
  frozen: "❄",
  "shutting-down": "◐",
  down: "■",
  "powered-off": "⊘",
};

export const GLYPH = {
  register: { shape: "square", short: "REG", legend: "■" },
  unregister: { shape: "cross", short: "UNREG", legend: "✕" },
  route: { shape: "circle", short: "ROUTE", legend: "●" },
  send: { shape: "triangle", short: "SEND", legend: "▶" },
  pull: { shape: "hexagon", short: "PULL", legend: "⬡" },
  heartbeat: { shape: "diamond", short: "HB", legend: "◆" },
  close: { shape: "bar", short: "FIN", legend: "┃" },
  reset: { shape: "bolt", short: "RST", legend: "⚡" },
  failure: { shape: "xcircle", short: "ERR", legend: "⊗" },
  other: { shape: "circle", short: "MSG", legend: "○" },
};

export function svgEl(name, attrs = {}, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

export function camel(code) {
  return code.toLowerCase().replace(/(^|_)([a-z])/g, (_, __, c) => c.toUpperCase());
}

// The RocketMQ code a flight carries: the request code, or the one a response answers.
export function msgType(f) {
  if (f.type) return f.type;
  if (f.category === "close") return "FIN";
  if (f.category === "reset") return "RST";
  if (f.response) {
    const m = f.summary.match(/\(([A-Z_]+)\)/);
    return m ? m[1] : "RESPONSE";
  }
  return f.summary.split(" ")[0];
}

// Consumer-offset traffic has no category of its own; its code says what it is.
const OTHER_WORDS = {
  UPDATE_CONSUMER_OFFSET: "COMMIT",
  QUERY_CONSUMER_OFFSET: "OFFSET?",
  GET_MAX_OFFSET: "MAX?",
  GET_ALL_CONSUMER_OFFSET: "SYNC",
};

// The word drawn next to a message: ACK for a send's answer, else the category's short word.
export function shortWord(f) {
  if (f.response && f.category === "send") return "ACK";
  if (f.category === "other" && OTHER_WORDS[msgType(f)]) return OTHER_WORDS[msgType(f)];
  return (GLYPH[f.category] || GLYPH.other).short;
}

export function flightLabel(f) {
  const type = msgType(f);
  const name = /^[A-Z_]+$/.test(type) && type.length > 3 ? camel(type) : type;
  const resp = f.response && f.summary ? ` response ${f.summary.split(" ")[0]}` : f.response ? " response" : "";
  const held = f.held ? `, ${t("held")}` : "";
  return `${name}${resp} ${f.from} → ${f.to}, ${t("arrives", { t: secs(f.arriveAt) })}${held}`;
}

// The glyph of a category, centred on (0, 0); triangles turn with the direction of travel.
export function shape(category) {
  const kind = (GLYPH[category] || GLYPH.other).shape;
  switch (kind) {
    case "square":
      return svgEl("rect", { x: "-7", y: "-7", width: "14", height: "14", class: "shape" });
    case "diamond":
      return svgEl("path", { d: "M0,-9 L9,0 L0,9 L-9,0 z", class: "shape" });
    case "triangle": {
      const g = svgEl("g", { class: "rot" });
      g.appendChild(svgEl("path", { d: "M-8,-8 L9,0 L-8,8 z", class: "shape" }));
      return g;
    }
    case "cross":
      return svgEl("path", { d: "M-7,-7 L7,7 M7,-7 L-7,7", class: "shape stroke-only" });
    case "hexagon":
      return svgEl("path", { d: "M-8,0 L-4,-7 L4,-7 L8,0 L4,7 L-4,7 z", class: "shape" });
    case "bar":
      return svgEl("rect", { x: "-2.5", y: "-9", width: "5", height: "18", class: "shape" });
    case "bolt":
      return svgEl("path", { d: "M2,-10 L-6,1 L0,1 L-2,10 L6,-1 L0,-1 z", class: "shape" });
    case "xcircle": {
      const g = svgEl("g");
      g.appendChild(svgEl("circle", { r: "9", class: "shape" }));
      g.appendChild(svgEl("path", { d: "M-4,-4 L4,4 M4,-4 L-4,4", class: "x-mark" }));
      return g;
    }
    default:
      return svgEl("circle", { r: "8", class: "shape" });
  }
}

export function legendText() {
  const order = ["register", "unregister", "route", "send", "heartbeat", "pull", "close", "reset", "failure"];
  return order.map((c) => `${GLYPH[c].legend} ${t(`legend_${c}`)}`).join(" · ");
}
