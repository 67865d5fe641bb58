// @ts-check
// Where a card goes beside a node's box (client rects, as getBoundingClientRect gives them):
// the free spot nearest the box, inside `area`, at least `gap` from the box and on none of the
// boxes in `avoid`; at equal distance right first, then left, below, above, lined up with the
// box. Null where no spot is free: the caller docks the card instead. The spots tried are a
// grid of `step` pixels plus the edges of the box and of the area.
const SIDES = ["right", "left", "below", "above"];
const order = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

export function placeBeside(box, card, area, avoid = [], gap = 8, step = 8) {
  const { width: w, height: h } = card;
  const axis = (lo, hi, near) => {
    const out = new Set(near.filter((v) => v >= lo && v <= hi));
    for (let v = lo; v <= hi; v += step) out.add(v);
    if (hi >= lo) out.add(hi);
    return [...out];
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
      const side = dx > 0 ? (x >= box.right ? "right" : "left") : y >= box.bottom ? "below" : "above";
      const off = dx > 0 ? Math.abs(y - box.top) : Math.abs(x - box.left);
      const key = [Math.round(Math.hypot(dx, dy)), SIDES.indexOf(side), off];
      if (!best || order(key, best.key) < 0) best = { side, x, y, key };
    }
  return best && { side: best.side, x: best.x, y: best.y };
}
