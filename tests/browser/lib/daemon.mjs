// The real `nameserver` daemon for the live-mode and interop tests: started on 127.0.0.1 with
// ephemeral ports (RocketMQ and HTTP), serving this repository's page, plus a raw-frame broker
// over TCP.
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PATIENCE } from "./patience.mjs";
import { ROOT } from "./server.mjs";

function binary() {
  const bin = process.env.NAMESERVER_BIN || join(ROOT, process.env.CARGO_TARGET_DIR || "target", "debug", "nameserver");
  if (!existsSync(bin))
    execFileSync("cargo", ["build", "-p", "nameserver", "--locked"], { cwd: ROOT, stdio: "inherit" });
  return bin;
}

// Starts the daemon; resolves once it printed its RocketMQ address and, unless `http` is
// false (then it runs with --no-http), its HTTP console's.
export async function startDaemon(args = [], { http: withHttp = true } = {}) {
  const home = mkdtempSync(join(tmpdir(), "nameserver-live-"));
  const httpArgs = withHttp ? ["--http-bind", "127.0.0.1", "--http-port", "0", "--http-root", ROOT] : ["--no-http"];
  const child = spawn(
    binary(),
    [`-Duser.home=${home}`, "--bind-address", "127.0.0.1", "--listen-port", "0", ...httpArgs, ...args],
    {
      env: { ...process.env, HOME: home, ROCKETMQ_HOME: home, RUST_LOG: "warn" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const lines = createInterface({ input: child.stdout });
  const found = {};
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the daemon did not start")), PATIENCE);
    child.once("exit", (code) => reject(new Error(`the daemon exited (${code})`)));
    lines.on("line", (line) => {
      const boot = line.match(/^The Name Server boot success\. serializeType=JSON, address (\S+)$/);
      const http = line.match(/^HTTP console: (http:\/\/\S+?)\/? /);
      if (boot) found.tcp = boot[1];
      if (http) found.http = http[1];
      if (found.tcp && (found.http || !withHttp)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const [host, port] = found.tcp.split(":");
  return {
    tcp: { host, port: Number(port) },
    address: found.tcp,
    http: found.http,
    pid: child.pid,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((ok) => child.once("exit", ok));
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

// The real REGISTER_BROKER frame (broker-a of DemoCluster at 127.0.0.1:31911).
export function registerFrame() {
  const text = readFileSync(join(ROOT, "core/tests/testdata/real-client-requests.jsonl"), "utf8");
  const frame = text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((f) => f.code === 103);
  return Buffer.from(frame.frame_hex, "hex");
}

// The same frame from another broker: its header's brokerName and brokerAddr replaced (the
// body, topic configs only, stays as captured).
export function registerFrameAs(name, addr) {
  const frame = registerFrame();
  const mark = frame.readUInt32BE(4);
  if (mark >>> 24 !== 0) throw new Error("the captured frame's header is not JSON");
  const headerLen = mark & 0xffffff;
  const header = JSON.parse(frame.subarray(8, 8 + headerLen).toString("utf8"));
  header.extFields.brokerName = name;
  header.extFields.brokerAddr = addr;
  const head = Buffer.from(JSON.stringify(header), "utf8");
  const body = frame.subarray(8 + headerLen);
  const prefix = Buffer.alloc(8);
  prefix.writeUInt32BE(4 + head.length + body.length, 0);
  prefix.writeUInt32BE(head.length, 4);
  return Buffer.concat([prefix, head, body]);
}

// A broker that registers once and stays connected until closed (closing unregisters it);
// broker-a of the captured frame unless `as` gives another name and address.
export async function registerBroker(daemon, as = null) {
  const socket = connect(daemon.tcp.port, daemon.tcp.host);
  await new Promise((ok, fail) => socket.once("connect", ok).once("error", fail));
  const reply = new Promise((ok) => socket.once("data", ok));
  socket.write(as ? registerFrameAs(as.name, as.addr) : registerFrame());
  await reply;
  return {
    close: () => new Promise((ok) => socket.end(ok)),
  };
}
