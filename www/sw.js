// Offline support: keeps a copy of the page and the WebAssembly package. Network first, so a
// new build is picked up at once; the copy answers when the network is gone.
const CACHE = "rmqsim-v2";
const FILES = [
  "./", "./index.html", "./style.css", "./main.js", "./worker.js", "./sim-client.js", "./diagram.js", "./tables.js",
  "./timeline.js", "./log.js", "./lessons.js", "./faults.js", "./controls.js", "./url.js", "./i18n.js", "./about.js",
  "./quiz.js", "./announce.js", "./live.js", "../pkg/nameserver_wasm.js", "../pkg/nameserver_wasm_bg.wasm",
];

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(
    caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (e) => {
  const req = e.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== location.origin) return;
  // A daemon's live data (and its endless event stream) is never cached.
  if (/^\/(api|metrics|healthz|rocketmq)(\/|$)/.test(url.pathname)) return;
  e.respondWith(
    fetch(req)
      .then((res) => {
        if (res.ok) {
          const copy = res.clone();
          caches.open(CACHE).then((c) => c.put(req, copy));
        }
        return res;
      })
      .catch(() => caches.match(req, { ignoreSearch: true }).then((hit) => hit || Response.error())),
  );
});
