// Keeps the diagram's floating words apart: each label tries a few spots around its anchor
// and takes the first that overlaps neither a node box nor a label placed before it; a label
// with no free spot is hidden (its message keeps its shape and its accessible name).

const widths = new Map();
// How wide a text is in a font: the page hands in a canvas's measureText (main.js); until then
// (and in Node) an estimate from the font's size.
let measure = (text, font) => text.length * 0.6 * Number((/(\d+(?:\.\d+)?)px/.exec(font) || [0, 12])[1]);

export function setTextMeasure(fn) {
  measure = fn;
  widths.clear();
}

// Width of `text` in CSS px for a font shorthand like "700 12px system-ui".
export function textWidth(text, font) {
  const key = `${font}|${text}`;
  let w = widths.get(key);
  if (w === undefined) {
    w = measure(text, font);
    if (widths.size > 4000) widths.clear();
    widths.set(key, w);
  }
  return w;
}

export function overlaps(a, b, gap = 1) {
  return a.x < b.x + b.w + gap && b.x < a.x + a.w + gap && a.y < b.y + b.h + gap && b.y < a.y + a.h + gap;
}

// Places labels in order. `obstacles`: rects to avoid. `bounds`: {w, h}. Each label:
// {w, h, ax, ay, spots: [[dx, dy], …] (offsets of the box's top-left from the anchor)}.
// Returns, per label, {x, y} of its box or null when hidden.
export function place(labels, obstacles, bounds) {
  const taken = obstacles.slice();
  return labels.map((l) => {
    for (const [dx, dy] of l.spots) {
      const r = { x: l.ax + dx, y: l.ay + dy, w: l.w, h: l.h };
      if (r.x < 0 || r.y < 0 || r.x + r.w > bounds.w || r.y + r.h > bounds.h) continue;
      if (taken.some((o) => overlaps(r, o))) continue;
      taken.push(r);
      return r;
    }
    return null;
  });
}

// Spots around a point for a label of size w×h: right, left, above, below, then farther out.
export function around(w, h, d = 12) {
  return [
    [d, -h - 2],
    [d, 2],
    [-w - d, -h - 2],
    [-w - d, 2],
    [-w / 2, -h - d],
    [-w / 2, d],
    [d + 8, -h / 2],
    [-w - d - 8, -h / 2],
    [-w / 2, -h - d - 14],
    [-w / 2, d + 14],
  ];
}
