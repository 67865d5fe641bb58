// A tiny static file server for the browser tests: serves the repository root on 127.0.0.1,
// compressed as the browser accepts (brotli first, else gzip) and with an ETag (304 on
// revalidation), as the daemon's console does, so the page's weight is measured as a learner
// would download it from the daemon.
import { createServer } from "node:http";
import { readFileSync, statSync } from "node:fs";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".txt": "text/plain; charset=utf-8",
};

// The daemon's policy for /www/ and /pkg/ (native-server/src/http/page.rs), so the tests see the
// page under the same rules; hostile.test.mjs checks the two are equal.
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self' http: https:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

// Brotli at quality 4, the default level of the daemon's compression layer (tower-http): the
// same size within a few hundred bytes on the wasm.
const ENCODERS = {
  br: (body) => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }),
  gzip: (body) => gzipSync(body),
};
const zipped = new Map();
function compressed(file, etag, encoding, body) {
  const key = `${encoding} ${file}`;
  const hit = zipped.get(key);
  if (hit && hit.etag === etag) return hit.body;
  const z = ENCODERS[encoding](body);
  zipped.set(key, { etag, body: z });
  return z;
}

export function serve(root = ROOT, port = 0) {
  const server = createServer((req, res) => {
    let path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (path === "/" || path === "/www") {
      res.writeHead(302, { location: "/www/" }).end();
      return;
    }
    if (path.endsWith("/")) path += "index.html";
    const file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    let st;
    try {
      st = statSync(file);
    } catch {
      res.writeHead(404).end("not found");
      return;
    }
    if (!st.isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
    const type = TYPES[extname(file)] || "application/octet-stream";
    const head = {
      "content-type": type,
      "cache-control": "no-cache",
      etag,
      vary: "accept-encoding",
      "content-security-policy": CONTENT_SECURITY_POLICY,
      "referrer-policy": "no-referrer",
    };
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, head).end();
      return;
    }
    let body = readFileSync(file);
    const accepted = req.headers["accept-encoding"] || "";
    const encoding = /\bbr\b/.test(accepted) ? "br" : /gzip/.test(accepted) ? "gzip" : null;
    if (encoding && !/^image\/png/.test(type)) {
      body = compressed(file, etag, encoding, body);
      head["content-encoding"] = encoding;
    }
    head["content-length"] = body.length;
    res.writeHead(200, head);
    res.end(req.method === "HEAD" ? undefined : body);
  });
  return new Promise((ok) => server.listen(port, "127.0.0.1", () => ok(server)));
}

// `node tests/browser/lib/server.mjs [port]` prints the base URL and serves until killed.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const server = await serve(ROOT, Number(process.argv[2] || 0));
  console.log(`http://127.0.0.1:${server.address().port}`);
}
