#!/usr/bin/env bash
# Writes seed corpora for the fuzz targets from the golden vectors (PROTOCOL.md examples and the
# real client frames in core/tests/testdata). The corpora are not committed (see .gitignore):
# run this once before `cargo +nightly fuzz run <target>`.
set -euo pipefail
cd "$(dirname "$0")"
python3 - <<'PY'
import json, os, struct

def write(target, name, data):
    os.makedirs(f"corpus/{target}", exist_ok=True)
    with open(f"corpus/{target}/{name}", "wb") as f:
        f.write(data)

vectors = [json.loads(l) for l in open("../core/tests/testdata/real-client-requests.jsonl")]
frames = [bytes.fromhex(v["frame_hex"]) for v in vectors]

# decode: every real frame, and PROTOCOL.md §1.4's ROCKETMQ binary header frame.
for i, frame in enumerate(frames):
    write("decode", f"real-{i:02}-code-{vectors[i]['code']}", frame)
write("decode", "protocol-1.4-binary", bytes.fromhex(
    "0000002d 01000029 0069 00 01df 00000007 00000000 00000000 00000014 0005 746f706963 00000009 546f70696354657374"
    .replace(" ", "")))

# bodies: selector byte (see fuzz_targets/bodies.rs) + a body of that type.
route = ('{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a",'
         '"cluster":"DefaultCluster","enableActingMaster":false},{"brokerAddrs":{0:"127.0.0.2:10911"},'
         '"brokerName":"broker-b","cluster":"DefaultCluster","enableActingMaster":true,"zoneName":"zone1"}],'
         '"filterServerTable":{"127.0.0.1:10911":["127.0.0.1:30000"]},"orderTopicConf":"a/b\u00e9\u4e2d",'
         '"queueDatas":[{"brokerName":"broker-b","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}],'
         '"topicQueueMappingByBroker":{"broker-a":{"bname":"broker-a","currIdMap":{0:0,1:3},"dirty":false,'
         '"epoch":1,"scope":"__global__","topic":"T","totalQueues":8}}}')
bodies = {
    0: [route],
    1: ['{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"127.0.0.1:10911"},"brokerName":"broker-a",'
        '"cluster":"DefaultCluster","enableActingMaster":false}},"clusterAddrTable":{"DefaultCluster":["broker-a"]}}'],
    2: ['{"brokerAddr":"127.0.0.1:10911","topicList":["DefaultCluster","broker-a"]}'],
    3: ['{"table":{"TopicOrder":"broker-a:4;broker-b:4"}}'],
    4: ['{"counter":5,"stateVersion":0,"timestamp":1700000000000}', "{'counter':5,timestamp:1}"],
    5: ['{"attributes":{"queue.type":"BatchCQ"},"order":false,"perm":6,"readQueueNums":4,'
        '"topicFilterType":"SINGLE_TAG","topicName":"TopicTest","topicSysFlag":0,"writeQueueNums":4}'],
    6: ['{"brokerMemberGroup":{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},'
        '"brokerName":"broker-a","cluster":"DefaultCluster"}}'],
    7: [v["body_text"] for v in vectors if v["code"] == 103],
    8: ['{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicOrder":"broker-a:4;broker-b:4"},"ns":{"k":"v","n":null}}}'],
    9: ["# comment\nlistenPort = 9877\nkey:value\\\n  continued\nu=\\u0041\n"],
}
bodies[0] += [v["body_text"] for v in vectors if v["code"] == 217]
for selector, texts in bodies.items():
    for i, text in enumerate(texts):
        write("bodies", f"type-{selector}-{i}", bytes([selector]) + text.encode())

# server: every real frame in order on connection 1 (tag 4), then the timer far ahead (tag 3).
seq = b"".join(bytes([4, 1]) + struct.pack(">H", len(f)) + f for f in frames)
write("server", "real-frames", seq + bytes([3, 0, 0xFF, 0xFF]))
# A master and a slave register (tag 6), a query (tag 5, code 105), the master's connection
# drops (tag 1), the timer runs (tag 3).
scenario = (bytes([6, 1, 0, 0, 0, 0x0F, 1, 0, 0, 0])
            + bytes([6, 2, 0, 1, 1, 0x0F, 1, 0, 0, 1])
            + bytes([5, 3, 5, 0, 5, 1, 5, 11, 0])
            + bytes([1, 1])
            + bytes([3, 0, 0x40, 0x00]))
write("server", "master-slave", scenario)

# controller (see fuzz_targets/controller.rs): two replicas of broker-a start (tag 4: 1012,
# 1013, 1003), heartbeat (tag 5), replica 1 is elected (tag 6, 1002) and widens the set to
# {1, 2} (tag 6, 1001), its connection drops (tag 0), the scans run (tag 1), a restart (tag 7).
def join(conn, ident):
    return b"".join(bytes([4, conn, which, 0, ident - 1, 0]) for which in range(3))
def beat(conn, ident):
    return bytes([5, conn, 0, ident - 1, 0, 0, 100, 0, 0, 1])
controller = (join(1, 1) + join(2, 2) + beat(1, 1) + beat(2, 2)
              + bytes([6, 1, 0, 0, 0, 0]) + bytes([6, 1, 1, 0, 0, 0b11])
              + bytes([0, 1]) + bytes([1, 0, 0x04, 0x00]) + bytes([7, 0, 1]))
write("controller", "two-replicas-failover", controller)
# Every real frame again, on the controller's port (tag 2).
write("controller", "real-frames", b"".join(bytes([2, 1]) + struct.pack(">H", len(f)) + f for f in frames))
PY
echo "seeded: $(ls corpus/decode | wc -l) decode, $(ls corpus/bodies | wc -l) bodies, $(ls corpus/server | wc -l) server, $(ls corpus/controller | wc -l) controller"
