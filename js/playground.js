#!/usr/bin/env node
// `rocketmq-nameserver-playground`: serves the teaching page shipped in this package (www/,
// and the WebAssembly build it loads from pkg/) on this machine, offline, without Rust or any
// other dependency: `npx rocketmq-nameserver-playground`, then open the URL it prints.
import { createServer } from "node:http";
import { createReadStream, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
// Only the page and the module it loads are served, never the rest of the package.
const SERVED = ["www", "pkg"];
const DEFAULT_PORT = 8090; // not 8080: the daemon's console takes that one
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".webmanifest": "application/manifest+json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
};

const USAGE = `Usage: rocketmq-nameserver-playground [--port PORT] [--host ADDR]

Serves the RocketMQ NameServer teaching page (a deterministic simulation of a cluster,
running in your browser) at http://ADDR:PORT/www/ until stopped with Ctrl-C.

  -p, --port PORT   port to listen on (default ${DEFAULT_PORT}, or any free port if that one
                    is taken; 0 picks a free port)
      --host ADDR   address to bind (default 127.0.0.1: this machine only)
  -h, --help        show this help
  -v, --version     show the package version`;

function fail(message) {
  console.error(`rocketmq-nameserver-playground: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      port: { type: "string", short: "p" },
      host: { type: "string", default: "127.0.0.1" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  }));
} catch (error) {
  fail(error.message);
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
if (options.version) {
  console.log(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
  process.exit(0);
}
const explicitPort = options.port !== undefined;
const port = explicitPort ? Number(options.port) : DEFAULT_PORT;
if (!Number.isInteger(port) || port < 0 || port > 65535 || (explicitPort && !/^\d+$/.test(options.port))) {
  fail(`--port must be a number from 0 to 65535, not \`${options.port}\``);
}
try {
  statSync(join(ROOT, "www", "index.html"));
  statSync(join(ROOT, "pkg", "nameserver_wasm_bg.wasm"));
} catch {
  console.error(`rocketmq-nameserver-playground: the page is missing from ${ROOT} (www/ and pkg/ ship in the npm package)`);
  process.exit(1);
}

/** The file under www/ or pkg/ that a request path names, or null. */
function fileFor(pathname) {
  const rel = normalize(pathname).replace(/^[/\\]+/, "");
  const top = rel.split(/[/\\]/)[0];
  if (!SERVED.includes(top)) return null;
  const file = join(ROOT, rel.endsWith("/") || rel === top ? join(rel, "index.html") : rel);
  return file.startsWith(join(ROOT, top) + sep) ? file : null;
}

const server = createServer((req, res) => {
  res.setHeader("x-content-type-options", "nosniff");
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD" }).end("only GET and HEAD\n");
    return;
  }
  let pathname;
  try {
    pathname = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
  } catch {
    res.writeHead(400).end("bad request path\n");
    return;
  }
  if (pathname === "/" || pathname === "/www") {
    res.writeHead(302, { location: "/www/" }).end();
    return;
  }
  const file = pathname.includes("\0") ? null : fileFor(pathname);
  let size;
  try {
    const st = file && statSync(file);
    size = st && st.isFile() ? st.size : null;
  } catch {
    size = null;
  }
  if (size === null) {
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
    return;
  }
  res.writeHead(200, {
    "content-type": TYPES[extname(file)] || "application/octet-stream",
    "content-length": size,
    "cache-control": "no-cache",
  });
  if (req.method === "HEAD") res.end();
  else createReadStream(file).pipe(res);
});

function listen(at) {
  const onError = (error) => {
    if (error.code === "EADDRINUSE" && !explicitPort) {
      console.error(`port ${at} is taken; using a free port instead (choose one with --port)`);
      listen(0);
      return;
    }
    console.error(`rocketmq-nameserver-playground: cannot listen on ${options.host}:${at}: ${error.message}`);
    process.exit(1);
  };
  server.once("error", onError);
  server.listen(at, options.host);
}

server.on("listening", () => {
  server.removeAllListeners("error");
  const { address, port: bound } = server.address();
  const host = address.includes(":") ? `[${address}]` : address;
  console.log(`RocketMQ NameServer playground: http://${host}:${bound}/www/`);
  console.log("Serving the page offline; press Ctrl-C to stop.");
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}
listen(port);
