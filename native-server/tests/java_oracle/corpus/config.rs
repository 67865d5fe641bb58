//! The NameServer's configuration: read, harmless updates, refused keys.

use super::*;

/// Configuration: read it, change harmless keys (the topic-list switches) and restore them,
/// try keys that are refused.
pub(super) fn config(p: Profile, v: Version, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("config/{}", p.name), p);
    let b = broker(tag, "C", "cfg", 12, 10911, 0, 1, 479.min(if v.is_4x() { 407 } else { 479 }));
    s.register("register", &b, &broker_topics(&b, &user_topics(tag, 2)), (1, 1_700_000_000_000), &[], false, &[]);
    s.ask("get", 319, &[]);
    s.ask_body("disable-all-topic-list", 318, &[], b"enableAllTopicList=false".to_vec());
    s.ask("all-topics-disabled", 206, &[]);
    s.ask_body("disable-topic-list", 318, &[], b"enableTopicList=false\n".to_vec());
    s.ask("by-cluster-disabled", 224, &[("cluster", b.cluster.as_str())]);
    s.ask("system-disabled", 304, &[]);
    s.ask("unit-disabled", 311, &[]);
    s.ask("has-unit-sub-disabled", 312, &[]);
    s.ask("has-unit-sub-ununit-disabled", 313, &[]);
    s.ask("get-changed", 319, &[]);
    s.ask_body("restore", 318, &[], b"enableAllTopicList=true\nenableTopicList=true".to_vec());
    s.ask("all-topics-restored", 206, &[]);
    s.ask_body("refused-config-store-path", 318, &[], b"configStorePath=/tmp/evil".to_vec());
    s.ask_body("refused-kv-path", 318, &[], b"kvConfigPath=/tmp/evil".to_vec());
    s.ask_body("refused-black-list", 318, &[], b"configBlackList=x".to_vec());
    s.ask_body("unknown-key", 318, &[], b"noSuchKey=1".to_vec());
    s.ask("empty-body", 318, &[]);
    s.ask_body("not-properties", 318, &[], vec![0xff, 0xfe, b'=']);
    s.ask_body("out-of-range", 318, &[], b"serverChannelMaxIdleTimeSeconds=18446744073709551615".to_vec());
    s.ask_body("restart-only", 318, &[], b"listenPort=1".to_vec());
    s.ask("get-final", 319, &[]);
    s.close("close", &b);
    s.finish()
}
