// Share links: #v=1&seed=…&sc=<base64url of the compact scenario>&t=…&sel=…
const enc = new TextEncoder();
const dec = new TextDecoder();

export function toBase64Url(text) {
  let bin = "";
  for (const b of enc.encode(text)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64Url(s) {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4);
  const bin = atob(b64);
  return dec.decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

// The compact scenario minus its `seed` statement, which travels as its own parameter.
export function shareHash({ compact, time, selected, lesson, step }) {
  const parts = compact.split(";").map((s) => s.trim());
  const seedPart = parts.find((s) => /^seed \d+$/.test(s));
  const seed = seedPart ? seedPart.split(" ")[1] : "42";
  const rest = parts.filter((s) => s && s !== seedPart).join(";");
  const p = new URLSearchParams();
  p.set("v", "1");
  p.set("seed", seed);
  p.set("sc", toBase64Url(rest));
  p.set("t", String(Math.round(time)));
  if (selected) p.set("sel", selected);
  if (lesson) p.set("lesson", lesson);
  if (lesson && step !== undefined) p.set("step", String(step));
  return "#" + p.toString();
}

// Returns {text, time, selected, lesson, step} or null when the hash holds no scenario.
export function parseHash(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ""));
  const lesson = p.get("lesson") || null;
  const step = p.has("step") ? Number(p.get("step")) : undefined;
  const out = { time: Number(p.get("t") || 0), selected: p.get("sel") || null, lesson, step, text: null };
  if (p.get("v") === "1" && p.get("sc")) {
    const body = fromBase64Url(p.get("sc"));
    const seed = /^\d+$/.test(p.get("seed") || "") ? p.get("seed") : "42";
    out.text = `seed ${seed};` + body;
  }
  if (!Number.isFinite(out.time) || out.time < 0) out.time = 0;
  return out.text || out.lesson ? out : null;
}
