// Where each node of the diagram goes, in CSS pixels (the SVG's viewBox is its own size, so
// a font size in the stylesheet is the size on screen). A triangle: NameServers on top,
// brokers down the left, clients down the right, so broker↔NameServer, client↔NameServer and
// client↔broker lines cross open space; `route` steers a line around a box still in its way.

// Box sizes and gaps per form factor; `rowH` is one clock row inside a NameServer box.
const FORMS = {
  wide: {
    pad: 12,
    nsW: 236,
    nsHead: 44,
    rowH: 17,
    bW: 224,
    bH: 80,
    cW: 224,
    cH: 80,
    gapX: 36,
    gapY: 50,
    stack: 10,
    groupGap: 22,
    groupLabel: 20,
  },
  narrow: {
    pad: 5,
    nsW: 184,
    nsHead: 22,
    rowH: 14,
    bW: 156,
    bH: 52,
    cW: 156,
    cH: 52,
    gapX: 8,
    gapY: 28,
    stack: 6,
    groupGap: 18,
    groupLabel: 12,
  },
};

function formFor(width) {
  return width < 640 ? "narrow" : "wide";
}

// Nodes of `meta` placed in a box `width` wide. Returns {pos: name → {x, y, w, h} (centre and
// size), groups: [{name, x, y, w, h}], width, height, form}.
export function layout(meta, width, formName = formFor(width)) {
  const f = FORMS[formName];
  const nss = meta.nodes.filter((n) => n.role === "nameserver");
  const brokers = meta.nodes.filter((n) => n.role === "broker");
  const clients = meta.nodes.filter((n) => n.role === "producer" || n.role === "consumer");
  const groupNames = [...new Set(brokers.map((b) => b.group))];
  const pos = {};
  const nsH = f.nsHead + f.rowH * Math.max(1, brokers.length) + 8;
  const nsW = Math.min(f.nsW, (width - 2 * f.pad - f.gapX) / Math.max(1, Math.min(2, nss.length)));

  // NameServers: centred rows, wrapping when the width runs out.
  const perRow = Math.max(1, Math.floor((width - 2 * f.pad + f.gapX) / (nsW + f.gapX)));
  let y = f.pad;
  for (let i = 0; i < nss.length; i += perRow) {
    const row = nss.slice(i, i + perRow);
    const total = row.length * nsW + (row.length - 1) * f.gapX;
    let x = (width - total) / 2;
    for (const n of row) {
      pos[n.name] = { x: x + nsW / 2, y: y + nsH / 2, w: nsW, h: nsH };
      x += nsW + f.gapX;
    }
    y += nsH + f.stack;
  }
  const top = y - f.stack + f.gapY;

  // Brokers down the left, a frame around each group of more than one instance.
  const colW = Math.min(f.bW, (width - 2 * f.pad - f.gapY) / 2);
  const groups = [];
  let yb = top;
  for (const g of groupNames) {
    const members = brokers.filter((b) => b.group === g).sort((a, b) => a.brokerId - b.brokerId);
    const framed = members.length > 1;
    if (framed) yb += f.groupLabel;
    const y0 = yb;
    for (const m of members) {
      pos[m.name] = { x: f.pad + (framed ? 6 : 0) + colW / 2, y: yb + f.bH / 2, w: colW, h: f.bH };
      yb += f.bH + f.stack;
    }
    if (framed) {
      groups.push({
        name: g,
        x: f.pad - 2,
        y: y0 - f.groupLabel,
        w: colW + 16,
        h: yb - f.stack - y0 + f.groupLabel + 8,
      });
      yb += 8;
    }
    yb += f.groupGap - f.stack;
  }

  // Clients down the right, spread over the brokers' height so their lines fan out.
  const brokersBottom = brokers.length ? yb - f.groupGap : top;
  const cW = Math.min(f.cW, colW);
  const n = clients.length;
  const span = Math.max(brokersBottom - top, n * f.cH + Math.max(0, n - 1) * f.stack);
  const gap = n > 1 ? Math.min(f.cH * 0.8, (span - n * f.cH) / (n - 1)) : 0;
  let yc = top + (span - (n * f.cH + Math.max(0, n - 1) * gap)) / 2;
  for (const c of clients) {
    pos[c.name] = { x: width - f.pad - cW / 2, y: yc + f.cH / 2, w: cW, h: f.cH };
    yc += f.cH + gap;
  }
  const bottom = top + span;
  return { pos, groups, width, height: Math.ceil(bottom + f.pad), form: formName, f };
}

// Room kept between a path and a box it passes: about a glyph's half size. (A glyph that comes
// closer passes under the box's edge, never over its words.)
const CLEARANCE = 10;
// Where a line may leave a box: from its centre towards the other end (null), or from a point
// on one side ([x, y] in half sizes from the centre), outwards: the middle of each side, and on
// each side near both of its corners.
const ANCHORS = [null];
for (const f of [0, -0.7, 0.7]) ANCHORS.push([-1, f], [1, f], [f, -1], [f, 1]);

// The path between nodes `a` and `b` of a layout's `pos`: the line between their centres, or,
// when that line runs over another node, the shortest one between side anchors that keeps clear
// of every other box (so a moving message never covers a node's words). Shifted sideways by
// `off`: requests and answers travel on either side of the link. Null when a node has no place.
export function route(pos, a, b, off = 0) {
  const seg = a <= b ? path(pos, a, b) : reverse(path(pos, b, a));
  return seg && shift(seg, off);
}

function reverse(seg) {
  return seg && { x1: seg.x2, y1: seg.y2, x2: seg.x1, y2: seg.y1, ux: -seg.ux, uy: -seg.uy };
}

function path(pos, a, b) {
  const A = pos[a];
  const B = pos[b];
  if (!A || !B) return null;
  const others = Object.keys(pos)
    .filter((n) => n !== a && n !== b)
    .map((n) => pos[n]);
  let best = null;
  for (const sa of ANCHORS) {
    for (const sb of ANCHORS) {
      const seg = between(A, sa, B, sb);
      if (!seg || others.some((o) => crosses(seg, o, CLEARANCE))) continue;
      // The centres' line when it is clear; else fewest side anchors, then the shortest.
      const cost = (sa ? 1e6 : 0) + (sb ? 1e6 : 0) + Math.hypot(seg.x2 - seg.x1, seg.y2 - seg.y1);
      if (!best || cost < best.cost) best = { ...seg, cost };
    }
  }
  return best || between(A, null, B, null);
}

function shift(seg, off) {
  const nx = -seg.uy * off;
  const ny = seg.ux * off;
  return { x1: seg.x1 + nx, y1: seg.y1 + ny, x2: seg.x2 + nx, y2: seg.y2 + ny, ux: seg.ux, uy: seg.uy };
}

// From box A to box B, each end at an anchor (null: the centre). Messages start and end 10 px
// clear of the boxes, so a glyph never covers its own ends' words. Null when the line from a
// side anchor would run back over its own box.
function between(A, sa, B, sb) {
  // 10 px out from the side, along its normal.
  const at = (box, side) => {
    if (!side) return box;
    const [nx, ny] = Math.abs(side[0]) === 1 ? [side[0], 0] : [0, side[1]];
    return { x: box.x + (side[0] * box.w) / 2 + nx * 10, y: box.y + (side[1] * box.h) / 2 + ny * 10 };
  };
  const pa = at(A, sa);
  const pb = at(B, sb);
  const dx = pb.x - pa.x;
  const dy = pb.y - pa.y;
  const len = Math.hypot(dx, dy) || 1;
  const ux = dx / len;
  const uy = dy / len;
  const leave = (box) =>
    Math.min(box.w / 2 / Math.max(Math.abs(ux), 1e-6), box.h / 2 / Math.max(Math.abs(uy), 1e-6)) + 10;
  const ra = sa ? 0 : leave(A);
  const rb = sb ? 0 : leave(B);
  if (ra + rb >= len) return null;
  const seg = { x1: pa.x + ux * ra, y1: pa.y + uy * ra, x2: pb.x - ux * rb, y2: pb.y - uy * rb, ux, uy };
  if ((sa && crosses(seg, A, 5)) || (sb && crosses(seg, B, 5))) return null;
  return seg;
}

// Whether a segment comes within `margin` of a box (centre and size), by clipping the segment
// to the grown box (Liang–Barsky).
function crosses(seg, box, margin) {
  const x0 = box.x - box.w / 2 - margin;
  const x1 = box.x + box.w / 2 + margin;
  const y0 = box.y - box.h / 2 - margin;
  const y1 = box.y + box.h / 2 + margin;
  const dx = seg.x2 - seg.x1;
  const dy = seg.y2 - seg.y1;
  let t0 = 0;
  let t1 = 1;
  for (const [p, q] of [
    [-dx, seg.x1 - x0],
    [dx, x1 - seg.x1],
    [-dy, seg.y1 - y0],
    [dy, y1 - seg.y1],
  ]) {
    if (p === 0) {
      if (q < 0) return false;
    } else {
      const r = q / p;
      if (p < 0) t0 = Math.max(t0, r);
      else t1 = Math.min(t1, r);
      if (t0 > t1) return false;
    }
  }
  return true;
}

// Where a card goes beside a box (client rects): the nearest spot in `area` `gap` off it, on no
// box of `avoid`; at a tie right, left, below, above (the box's edges are tried first, then a
// grid). Null if none.
const SIDES = ["right", "left", "below", "above"];
export function placeBeside(box, card, area, avoid = [], gap = 8) {
  const { width: w, height: h } = card;
  const axis = (lo, hi, near) => {
    const out = near.filter((v) => v >= lo && v <= hi);
    for (let v = lo; v <= hi; v += 8) out.push(v);
    return out;
  };
  const xs = axis(area.left, area.right - w, [box.right + gap, box.left - gap - w, box.left, box.right - w]);
  const ys = axis(area.top, area.bottom - h, [box.bottom + gap, box.top - gap - h, box.top, box.bottom - h]);
  const on = (x, y, r, m) => x < r.right + m && r.left - m < x + w && y < r.bottom + m && r.top - m < y + h;
  let best = null;
  for (const x of xs)
    for (const y of ys) {
      if (on(x, y, box, gap) || avoid.some((r) => on(x, y, r, 0))) continue;
      const dx = Math.max(box.left - x - w, x - box.right, 0);
      const dy = Math.max(box.top - y - h, y - box.bottom, 0);
      const k = Math.round(Math.hypot(dx, dy)) * 4 + (dx > 0 ? (x > box.right ? 0 : 1) : y > box.bottom ? 2 : 3);
      if (!best || k < best.k) best = { x, y, k };
    }
  return best && { side: SIDES[best.k % 4], x: best.x, y: best.y };
}
