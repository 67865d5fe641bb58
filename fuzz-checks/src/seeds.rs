//! Each target's seed inputs, built from the golden vectors: the real client frames of
//! `core/tests/testdata/real-client-requests.jsonl`, PROTOCOL.md §1.4's binary-header frame and
//! example bodies. `fuzz/seed.sh` writes them as libFuzzer's starting corpora
//! (`fuzz/corpus/<target>/<name>`); the smoke test runs them and mutates them.

use serde_json::Value;

/// One captured frame and what it carries.
struct Vector {
    code: i64,
    frame: Vec<u8>,
    body_text: String,
}

fn vectors() -> Vec<Vector> {
    include_str!("../../core/tests/testdata/real-client-requests.jsonl")
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("a vector is JSON");
            Vector {
                code: v["code"].as_i64().expect("a vector has a code"),
                frame: hex(v["frame_hex"].as_str().expect("a vector has its frame")),
                body_text: v["body_text"].as_str().unwrap_or_default().to_string(),
            }
        })
        .collect()
}

fn hex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .map(|b| char::from(b).to_digit(16).expect("hex digits") as u8)
        .collect();
    digits.chunks(2).map(|pair| pair[0] << 4 | pair[1]).collect()
}

/// The seeds of the target named `target` (as `fuzz/` names it), each with a file name; none
/// for an unknown name.
#[must_use]
pub fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    match target {
        "decode" => decode(),
        "bodies" => bodies(),
        "server" => server(),
        "controller" => controller(),
        _ => Vec::new(),
    }
}

/// Every real frame, and PROTOCOL.md §1.4's ROCKETMQ binary header frame.
fn decode() -> Vec<(String, Vec<u8>)> {
    let mut seeds: Vec<(String, Vec<u8>)> =
        vectors().into_iter().enumerate().map(|(i, v)| (format!("real-{i:02}-code-{}", v.code), v.frame)).collect();
    let binary = "0000002d 01000029 0069 00 01df 00000007 00000000 00000000 00000014 0005 746f706963 00000009 546f70696354657374";
    seeds.push(("protocol-1.4-binary".to_string(), hex(binary)));
    seeds
}

/// The selector byte ([`crate::bodies`]) and a body of that type.
fn bodies() -> Vec<(String, Vec<u8>)> {
    let vectors = vectors();
    let bodies_of = |code| vectors.iter().filter(move |v| v.code == code).map(|v| v.body_text.clone());
    let route = concat!(
        r#"{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","#,
        r#""cluster":"DefaultCluster","enableActingMaster":false},{"brokerAddrs":{0:"127.0.0.2:10911"},"#,
        r#""brokerName":"broker-b","cluster":"DefaultCluster","enableActingMaster":true,"zoneName":"zone1"}],"#,
        r#""filterServerTable":{"127.0.0.1:10911":["127.0.0.1:30000"]},"orderTopicConf":"a/bé中","#,
        r#""queueDatas":[{"brokerName":"broker-b","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}],"#,
        r#""topicQueueMappingByBroker":{"broker-a":{"bname":"broker-a","currIdMap":{0:0,1:3},"dirty":false,"#,
        r#""epoch":1,"scope":"__global__","topic":"T","totalQueues":8}}}"#,
    );
    let texts: [(u8, Vec<String>); 10] = [
        (0, core::iter::once(route.to_string()).chain(bodies_of(217)).collect()),
        (
            1,
            vec![
                concat!(
                    r#"{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"127.0.0.1:10911"},"brokerName":"broker-a","#,
                    r#""cluster":"DefaultCluster","enableActingMaster":false}},"clusterAddrTable":{"DefaultCluster":["broker-a"]}}"#,
                )
                .to_string(),
            ],
        ),
        (2, vec![r#"{"brokerAddr":"127.0.0.1:10911","topicList":["DefaultCluster","broker-a"]}"#.to_string()]),
        (3, vec![r#"{"table":{"TopicOrder":"broker-a:4;broker-b:4"}}"#.to_string()]),
        (
            4,
            vec![
                r#"{"counter":5,"stateVersion":0,"timestamp":1700000000000}"#.to_string(),
                "{'counter':5,timestamp:1}".to_string(),
            ],
        ),
        (
            5,
            vec![
                concat!(
                    r#"{"attributes":{"queue.type":"BatchCQ"},"order":false,"perm":6,"readQueueNums":4,"#,
                    r#""topicFilterType":"SINGLE_TAG","topicName":"TopicTest","topicSysFlag":0,"writeQueueNums":4}"#,
                )
                .to_string(),
            ],
        ),
        (
            6,
            vec![
                concat!(
                    r#"{"brokerMemberGroup":{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"#,
                    r#""brokerName":"broker-a","cluster":"DefaultCluster"}}"#,
                )
                .to_string(),
            ],
        ),
        (7, bodies_of(103).collect()),
        (
            8,
            vec![
                r#"{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicOrder":"broker-a:4;broker-b:4"},"ns":{"k":"v","n":null}}}"#
                    .to_string(),
            ],
        ),
        (9, vec!["# comment\nlistenPort = 9877\nkey:value\\\n  continued\nu=\\u0041\n".to_string()]),
    ];
    let mut seeds = Vec::new();
    for (selector, texts) in texts {
        for (i, text) in texts.into_iter().enumerate() {
            seeds.push((format!("type-{selector}-{i}"), [&[selector][..], text.as_bytes()].concat()));
        }
    }
    seeds
}

/// Every real frame in order on connection 1, then the timer far ahead; and a master and a
/// slave that register, a route query, the master's connection dropping and the timer.
fn server() -> Vec<(String, Vec<u8>)> {
    let mut frames = Vec::new();
    for v in vectors() {
        frames.extend_from_slice(&[4, 1]);
        frames.extend_from_slice(&u16::try_from(v.frame.len()).expect("a vector fits a record").to_be_bytes());
        frames.extend_from_slice(&v.frame);
    }
    frames.extend_from_slice(&[3, 0, 0xFF, 0xFF]);
    let scenario = [
        &[6, 1, 0, 0, 0, 0x0F, 1, 0, 0, 0][..], // tag 6: the master registers
        &[6, 2, 0, 1, 1, 0x0F, 1, 0, 0, 1],     // and the slave
        &[5, 3, 5, 0, 5, 1, 5, 11, 0],          // tag 5: a route query (code 105)
        &[1, 1],                                // tag 1: the master's connection drops
        &[3, 0, 0x40, 0x00],                    // tag 3: the timer runs
    ]
    .concat();
    vec![("real-frames".to_string(), frames), ("master-slave".to_string(), scenario)]
}

/// Two replicas of broker-a start (tag 4: 1012, 1013, 1003) and heartbeat (tag 5), replica 1
/// is elected (tag 6, 1002) and widens the set to {1, 2} (tag 6, 1001), its connection drops
/// (tag 0), the scans run (tag 1), a restart (tag 7); and every real frame on the controller's
/// port (tag 2).
fn controller() -> Vec<(String, Vec<u8>)> {
    let join = |conn: u8, id: u8| -> Vec<u8> { (0..3).flat_map(|which| [4, conn, which, 0, id - 1, 0]).collect() };
    let beat = |conn: u8, id: u8| [5, conn, 0, id - 1, 0, 0, 100, 0, 0, 1];
    let failover = [
        join(1, 1),
        join(2, 2),
        beat(1, 1).to_vec(),
        beat(2, 2).to_vec(),
        vec![6, 1, 0, 0, 0, 0],
        vec![6, 1, 1, 0, 0, 0b11],
        vec![0, 1],
        vec![1, 0, 0x04, 0x00],
        vec![7, 0, 1],
    ]
    .concat();
    let mut frames = Vec::new();
    for v in vectors() {
        frames.extend_from_slice(&[2, 1]);
        frames.extend_from_slice(&u16::try_from(v.frame.len()).expect("a vector fits a record").to_be_bytes());
        frames.extend_from_slice(&v.frame);
    }
    vec![("two-replicas-failover".to_string(), failover), ("real-frames".to_string(), frames)]
}
