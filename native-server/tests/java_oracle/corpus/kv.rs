//! The KV table, and the characters JSON writers disagree on.

use super::*;

/// The KV table: put, get, list, overwrite, delete, with values fastjson escapes.
pub(super) fn kv(p: Profile, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("kv/{}", p.name), p);
    let ns = format!("{tag}NS");
    let ns = ns.as_str();
    s.ask("put", 100, &[("namespace", ns), ("key", "k1"), ("value", "v1")]);
    s.ask("get", 101, &[("namespace", ns), ("key", "k1")]);
    s.ask("list", 219, &[("namespace", ns)]);
    let esc = format!("{tag}Escapes");
    let esc = esc.as_str();
    s.ask(
        "put-escapes",
        100,
        &[("namespace", esc), ("key", "k/2"), ("value", "a/b \"q\" \\ é\u{7f}\u{2028}\u{1}\t</x>")],
    );
    s.ask("get-escapes", 101, &[("namespace", esc), ("key", "k/2")]);
    s.ask("list-escapes", 219, &[("namespace", esc)]);
    s.ask("delete-escapes", 102, &[("namespace", esc), ("key", "k/2")]);
    s.ask("put-2", 100, &[("namespace", ns), ("key", "k/2"), ("value", "v2")]);
    s.ask("put-empty-value", 100, &[("namespace", ns), ("key", "k3"), ("value", "")]);
    s.ask("get-empty-value", 101, &[("namespace", ns), ("key", "k3")]);
    s.ask("overwrite", 100, &[("namespace", ns), ("key", "k1"), ("value", "v1b")]);
    s.ask("get-overwritten", 101, &[("namespace", ns), ("key", "k1")]);
    s.ask("delete", 102, &[("namespace", ns), ("key", "k1")]);
    s.ask("get-deleted", 101, &[("namespace", ns), ("key", "k1")]);
    s.ask("delete-again", 102, &[("namespace", ns), ("key", "k1")]);
    s.ask("delete-2", 102, &[("namespace", ns), ("key", "k/2")]);
    s.ask("delete-3", 102, &[("namespace", ns), ("key", "k3")]);
    s.ask("list-emptied", 219, &[("namespace", ns)]);
    s.ask("put-no-value", 100, &[("namespace", ns), ("key", "k4")]);
    s.ask("put-no-key", 100, &[("namespace", ns), ("value", "v")]);
    s.ask("get-no-namespace", 101, &[("key", "k1")]);
    s.ask("list-no-namespace", 219, &[]);
    s.ask("delete-no-key", 102, &[("namespace", ns)]);
    s.finish()
}

/// The characters JSON writers disagree on: controls, `/`, DEL, C1, non-ASCII, separators.
pub(crate) const ESCAPES: [&str; 18] = [
    "\u{1}", "\u{8}", "\u{c}", "\u{1f}", "/", "<", "'", "\u{7f}", "\u{80}", "\u{9f}", "\u{a0}", "é", "\u{2028}",
    "\u{2029}", "\u{feff}", "😀", "\u{ffff}", "\\",
];

/// Each of [`ESCAPES`] in a KV value (alone in its namespace, so the body's bytes are stable)
/// and in a broker name, whose route is read back plain (an old client) and standard.
pub(super) fn escapes(p: Profile, bv: i32, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("escapes/{}/b{bv}", p.name), p);
    for (i, c) in ESCAPES.iter().enumerate() {
        let ns = format!("{tag}Esc{i}");
        let value = format!("a{c}b");
        s.ask(&format!("kv-put-{i}"), 100, &[("namespace", &ns), ("key", &format!("k{c}")), ("value", &value)]);
        s.ask(&format!("kv-list-{i}"), 219, &[("namespace", &ns)]);
        s.ask(&format!("kv-delete-{i}"), 102, &[("namespace", &ns), ("key", &format!("k{c}"))]);
        let index = u32::try_from(i).unwrap();
        let b = Broker {
            name: format!("{tag}B{i}x{c}y"),
            ..broker(tag, "C", "esc", 15, 10911 + index * 10, 0, 1 + index, bv)
        };
        let topic = format!("{tag}E{i}");
        s.register(
            &format!("register-{i}"),
            &b,
            &broker_topics(&b, &[(topic.clone(), 1, 6, 0)]),
            (1, 1_700_000_000_000),
            &[],
            false,
            &[],
        );
        let old = Seq::req_as(PROFILES[5], 105, &[("topic", &topic)]);
        s.push(&format!("route-{i}/plain"), Action::Call { conn: 0, cmd: old });
        s.ask(&format!("route-{i}/standard"), 105, &[("topic", &topic), ("acceptStandardJsonOnly", "true")]);
        s.close(&format!("close-{i}"), &b);
    }
    s.finish()
}
