// Where each node of the diagram goes, in CSS pixels (the SVG's viewBox is its own size, so
// a font size in the stylesheet is the size on screen). A triangle: NameServers on top,
// brokers down the left, clients down the right, so broker↔NameServer, client↔NameServer and
// client↔broker lines each cross open space instead of other boxes.

// Box sizes and gaps per form factor; `rowH` is one clock row inside a NameServer box.
const FORMS = {
  wide: { pad: 12, nsW: 236, nsHead: 44, rowH: 17, bW: 224, bH: 80, cW: 224, cH: 80, gapX: 36, gapY: 50, stack: 10, groupGap: 22, groupLabel: 20 },
  narrow: { pad: 5, nsW: 184, nsHead: 22, rowH: 14, bW: 156, bH: 52, cW: 156, cH: 52, gapX: 8, gapY: 28, stack: 6, groupGap: 18, groupLabel: 12 },
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
      groups.push({ name: g, x: f.pad - 2, y: y0 - f.groupLabel, w: colW + 16, h: yb - f.stack - y0 + f.groupLabel + 8 });
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

// The segment between two boxes' borders along the line joining their centres, shifted
// sideways by `off` (requests and answers travel on either side of the link).
export function edge(A, B, off = 0) {
  if (!A || !B) return null;
  const dx = B.x - A.x;
  const dy = B.y - A.y;
  const len = Math.hypot(dx, dy) || 1;
  const ux = dx / len;
  const uy = dy / len;
  // Messages start and end clear of the boxes, so a glyph never covers a node's words.
  const leave = (box) => Math.min(box.w / 2 / Math.max(Math.abs(ux), 1e-6), box.h / 2 / Math.max(Math.abs(uy), 1e-6)) + 10;
  const ra = leave(A);
  const rb = leave(B);
  const nx = -uy * off;
  const ny = ux * off;
  return { x1: A.x + ux * ra + nx, y1: A.y + uy * ra + ny, x2: B.x - ux * rb + nx, y2: B.y - uy * rb + ny, ux, uy };
}
