//! Seeded random sequences over a small universe of brokers and topics.

use super::*;

/// A small seeded PRNG (xorshift64*): the same seed, the same sequence, on every machine.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % u64::try_from(n).unwrap()).unwrap()
    }
}

/// Seeded random requests over 3 clusters, 4 broker names × 2 ids and 10 topics: registrations
/// (JSON or zlib, varying versions and topic subsets), heartbeats, unregistrations, queries,
/// KV, permission changes and topic deletions. Every broker keeps its connection. Everything
/// it names carries the seed (`r{seed}`), so generators of different seeds and lanes share a
/// server without touching each other's state.
pub(crate) struct Random {
    v: Version,
    rng: Rng,
    s: Seq,
    tag: String,
    brokers: Vec<Broker>,
    topics: Vec<String>,
    counters: [i64; 8],
    /// Whether requests about the whole server (cluster info, all topics) are drawn too: not
    /// when other lanes change the same server concurrently.
    global: bool,
}

impl Random {
    /// The generator of `seed`; its brokers listen on ports `10911 + 100 * lane`.
    pub(crate) fn new(v: Version, seed: u64, lane: u32, global: bool) -> Self {
        let tag = format!("r{seed}");
        let bv = if v.is_4x() { 407 } else { 479 };
        let brokers: Vec<Broker> = (0..8)
            .map(|i| {
                let cluster = ["A", "B", "C"][(i / 2) % 3];
                broker(
                    &tag,
                    cluster,
                    &format!("n{}", i / 2),
                    20 + u8::try_from(i).unwrap(),
                    10911 + 100 * lane,
                    i64::try_from(i % 2).unwrap(),
                    1 + u32::try_from(i).unwrap(),
                    bv,
                )
            })
            .collect();
        let topics: Vec<String> = (0..10).map(|i| format!("{tag}T{i}")).collect();
        let s = Seq::new(format!("random/seed{seed}"), PROFILES[0]);
        Self { v, rng: Rng::new(seed), s, tag, brokers, topics, counters: [0; 8], global }
    }

    /// The steps drawn since the last call.
    pub(crate) fn drain(&mut self) -> Vec<Step> {
        self.s.drain()
    }

    /// Closes every broker's connection (each then leaves the server).
    pub(crate) fn close_all(&mut self) {
        for b in &self.brokers {
            self.s.close("close", b);
        }
    }

    /// Draws one request (an unregistration also waits for its effect).
    #[allow(clippy::too_many_lines)]
    pub(crate) fn step(&mut self) {
        let Self { v, rng, s, tag, brokers, topics, counters, global } = self;
        s.p = PROFILES[rng.below(PROFILES.len())];
        let b = &brokers[rng.below(brokers.len())];
        let topic = topics[rng.below(topics.len())].clone();
        match rng.below(16) {
            0..=3 => {
                let i = usize::try_from(b.conn - 1).unwrap();
                counters[i] += i64::try_from(rng.below(3)).unwrap();
                let mut picked: Vec<Topic> = Vec::new();
                for t in topics.iter() {
                    if rng.below(3) != 0 {
                        picked.push((
                            t.clone(),
                            1 + i32::try_from(rng.below(8)).unwrap(),
                            [6, 6, 7, 4, 2][rng.below(5)],
                            0,
                        ));
                    }
                }
                let compressed = rng.below(3) == 0;
                s.register(
                    "register",
                    b,
                    &broker_topics(b, &picked),
                    (counters[i], 1_700_000_000_000 + counters[i]),
                    &[],
                    compressed,
                    &[],
                );
            }
            4..=6 => {
                if rng.below(2) == 0 {
                    s.ask("route/plain", 105, &[("topic", &topic)]);
                } else {
                    s.ask("route/standard", 105, &[("topic", &topic), ("acceptStandardJsonOnly", "true")]);
                }
            }
            7 if *global => s.ask("cluster-info", 106, &[]),
            7 | 8 => s.ask("by-cluster", 224, &[("cluster", b.cluster.as_str())]),
            9 => {
                let i = usize::try_from(b.conn - 1).unwrap();
                s.query_data_version("data-version", b, (counters[i], 1_700_000_000_000 + counters[i]));
            }
            10 => s.ask("member-group", 901, &[("clusterName", b.cluster.as_str()), ("brokerName", b.name.as_str())]),
            11 => {
                if rng.below(2) == 0 {
                    s.ask("wipe", 205, &[("brokerName", b.name.as_str())]);
                } else {
                    s.ask("add", 327, &[("brokerName", b.name.as_str())]);
                }
            }
            12 => {
                if rng.below(3) == 0 {
                    s.unregister("unregister", b);
                } else if !v.is_4x() {
                    s.heartbeat("heartbeat", b);
                } else if *global {
                    s.ask("all-topics", 206, &[]);
                } else {
                    s.ask("kv-list", 219, &[("namespace", tag.as_str())]);
                }
            }
            13 => {
                let key = format!("k{}", rng.below(4));
                match rng.below(4) {
                    0 => s.ask(
                        "kv-put",
                        100,
                        &[("namespace", tag.as_str()), ("key", &key), ("value", &format!("v{}", rng.below(100)))],
                    ),
                    1 => s.ask("kv-get", 101, &[("namespace", tag.as_str()), ("key", &key)]),
                    2 => s.ask("kv-delete", 102, &[("namespace", tag.as_str()), ("key", &key)]),
                    _ => s.ask("kv-list", 219, &[("namespace", tag.as_str())]),
                }
            }
            14 => s.ask("delete-topic", 216, &[("topic", &topic)]),
            _ if *global => s.ask("all-topics", 206, &[]),
            _ => s.ask("route/plain", 105, &[("topic", &topic)]),
        }
    }
}

/// `steps` random requests of [`Random`] for seed `seed`, then every broker's connection closed.
pub(crate) fn random(v: Version, seed: u64, steps: usize) -> Sequence {
    let mut r = Random::new(v, seed, 0, true);
    for _ in 0..steps {
        r.step();
    }
    r.close_all();
    r.s.finish()
}
