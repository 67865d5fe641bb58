// A client nobody here wrote: the ali-ons npm client (protocol version 121, JSON headers
// without serializeTypeCurrentRPC, plain-fastjson routes) gets a route from our daemon after a
// real broker's frames register a topic. The daemon: NAMESERVER_BIN or target/debug/nameserver
// (tests/browser/lib/daemon.mjs, which the live-mode browser tests start it with too).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import net from "node:net";
import { startDaemon } from "../browser/lib/daemon.mjs";

const require = createRequire(import.meta.url);
const MQClient = require("ali-ons/lib/mq_client");
const ClientConfig = require("ali-ons/lib/client_config");

const vectors = readFileSync(new URL("../../core/tests/testdata/real-client-requests.jsonl", import.meta.url), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const frame = (code) => Buffer.from(vectors.find((v) => v.code === code).frame_hex, "hex");

let daemon;
let address;

before(async () => {
  daemon = await startDaemon([], { http: false });
  address = daemon.address;
});

after(() => daemon?.stop());

/** Sends real broker frames (REGISTER_BROKER, then REGISTER_TOPIC_IN_NAMESRV for TopicTest) and waits for both replies. */
async function registerBroker() {
  const [host, port] = address.split(":");
  const socket = net.connect(Number(port), host);
  await new Promise((r) => socket.once("connect", r));
  let buffered = Buffer.alloc(0);
  const replies = [];
  const done = new Promise((resolve) => {
    socket.on("data", (d) => {
      buffered = Buffer.concat([buffered, d]);
      while (buffered.length >= 4 && buffered.length >= 4 + buffered.readInt32BE(0)) {
        const len = buffered.readInt32BE(0);
        const headerLen = buffered.readInt32BE(4) & 0xffffff;
        replies.push(JSON.parse(buffered.subarray(8, 8 + headerLen).toString()));
        buffered = buffered.subarray(4 + len);
        if (replies.length === 2) resolve();
      }
    });
  });
  socket.write(frame(103));
  socket.write(frame(217));
  await done;
  return { socket, replies };
}

test("ali-ons gets a route from our NameServer and TOPIC_NOT_EXIST for an unknown topic", async () => {
  const { socket, replies } = await registerBroker();
  assert.deepEqual(replies.map((r) => r.code), [0, 0]);
  const client = new MQClient(new ClientConfig({ nameSrv: address, httpclient: {}, instanceName: "interop" }));
  await client.ready();
  try {
    const route = await client.getTopicRouteInfoFromNameServer("TopicTest", 3000);
    assert.equal(route.brokerDatas.length, 1);
    assert.equal(route.brokerDatas[0].brokerName, "broker-a");
    assert.equal(route.brokerDatas[0].brokerAddrs["0"], "127.0.0.1:31911");
    assert.equal(route.queueDatas[0].writeQueueNums, 4);
    await assert.rejects(client.getTopicRouteInfoFromNameServer("NoSuchTopic", 3000), /No topic route info in name server for the topic: NoSuchTopic/);
  } finally {
    await client.close();
    socket.destroy();
  }
});
