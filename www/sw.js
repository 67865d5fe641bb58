// Offline support: keeps a copy of everything the page loaded. The page sends the list once it
// is ready (its own resources and its worker's), so the copy is taken from the HTTP cache and
// the WebAssembly is downloaded once. Network first, so a new build is picked up at once; the
// copy answers when the network is gone.
const CACHE = "rmqsim-v6";

self.addEventListener("install", (e) => {
  e.waitUntil(
    caches
      .open(CACHE)
      .then((c) => c.addAll(["./", "./index.html"]))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (e) => {
  e.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("message", (e) => {
  const urls = (e.data && e.data.cache) || [];
  const same = urls.filter((u) => new URL(u).origin === location.origin && !live(new URL(u).pathname));
  e.waitUntil(
    caches
      .open(CACHE)
      .then((c) => c.addAll([...new Set(same)]))
      .then(
        () => e.source && e.source.postMessage({ cached: same.length }),
        (err) => e.source && e.source.postMessage({ cached: 0, error: String(err) }),
      ),
  );
});

// A daemon's live data (and its endless event stream) is never cached.
function live(path) {
  return /^\/(api|metrics|healthz|readyz|rocketmq)(\/|$)/.test(path);
}

self.addEventListener("fetch", (e) => {
  const req = e.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== location.origin || live(url.pathname)) return;
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
