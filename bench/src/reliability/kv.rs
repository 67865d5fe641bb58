//! kv-put / kv-check: the crash loop

use std::collections::BTreeMap;

use nameserver_core::codec::{self, Limits};
use nameserver_core::json::from_fastjson;
use nameserver_core::protocol::RequestCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::args::KvArgs;
use super::conn::{Conn, request};

const KV_NAMESPACE: &str = "crash";

/// The value of key `i` in round `round`: long enough that a write takes a while, and
/// different in length from round to round, so a torn file cannot pass for a whole one.
fn kv_value(round: u64, i: usize) -> String {
    let pad = 1500 + (round as usize * 37 + i * 11) % 700;
    format!("{round}:{i}:{}", "v".repeat(pad))
}

fn kv_key(i: usize) -> String {
    format!("k{i:04}")
}

/// Sends every put at once and reads replies until the connection ends (the crash loop
/// kills the daemon in the middle); prints how many were answered.
pub(crate) async fn kv_put(args: KvArgs) -> bool {
    let mut conn = match Conn::connect(args.addr).await {
        Ok(conn) => conn,
        Err(error) => {
            eprintln!("kv-put: cannot connect to {}: {error}", args.addr);
            return false;
        }
    };
    let mut burst = Vec::new();
    for i in 0..args.keys {
        let cmd = conn.prepare(request(
            RequestCode::PutKvConfig,
            &[("namespace", KV_NAMESPACE), ("key", &kv_key(i)), ("value", &kv_value(args.round, i))],
        ));
        codec::encode(&cmd, &mut burst).expect("a put encodes");
    }
    if let Err(error) = conn.stream.write_all(&burst).await {
        eprintln!("kv-put: could not send the puts: {error}");
        return false;
    }
    // The crash loop waits for this line before it picks the moment to kill.
    println!("sent {}", args.keys);
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let mut answered = 0;
    loop {
        match codec::decode(&conn.buf, &Limits::DEFAULT) {
            Ok(Some((reply, used))) => {
                conn.buf.drain(..used);
                if reply.code != 0 {
                    eprintln!("kv-put: code {} {:?}", reply.code, reply.remark);
                    return false;
                }
                answered += 1;
                if answered == args.keys {
                    break;
                }
                continue;
            }
            Ok(None) => {}
            Err(error) => {
                eprintln!("kv-put: undecodable reply: {error}");
                return false;
            }
        }
        conn.buf.reserve(8192);
        match conn.stream.read_buf(&mut conn.buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    println!("answered {answered}");
    true
}

/// Reads the namespace back and checks that it is a table some sequence of whole writes
/// produced, no older than what the last check saw; prints the rounds per key, compressed.
pub(crate) async fn kv_check(args: KvArgs) -> bool {
    let fail = |why: String| {
        eprintln!("kv-check: {why}");
        false
    };
    let mut conn = match Conn::connect(args.addr).await {
        Ok(conn) => conn,
        Err(error) => return fail(format!("cannot connect to {}: {error}", args.addr)),
    };
    let reply = match conn.call(request(RequestCode::GetKvlistByNamespace, &[("namespace", KV_NAMESPACE)])).await {
        Ok(reply) => reply,
        Err(error) => return fail(error),
    };
    let table: BTreeMap<String, String> = match reply.code {
        22 => BTreeMap::new(),
        0 => match from_fastjson::<nameserver_core::protocol::body::KvTable>(&reply.body) {
            Ok(kv) => kv.table.into_iter().collect(),
            Err(error) => return fail(format!("the KV list does not parse: {error}")),
        },
        code => return fail(format!("GET_KVLIST_BY_NAMESPACE answered {code} {:?}", reply.remark)),
    };
    // Each key holds a whole value from some round no later than the last one written.
    let mut rounds = Vec::with_capacity(args.keys);
    for i in 0..args.keys {
        match table.get(&kv_key(i)) {
            None => rounds.push(0),
            Some(value) => {
                let Some(round) = value.split(':').next().and_then(|r| r.parse::<u64>().ok()) else {
                    return fail(format!("{}: unreadable value", kv_key(i)));
                };
                if round == 0 || round > args.round || *value != kv_value(round, i) {
                    return fail(format!("{}: value of {} bytes is not round {round}'s", kv_key(i), value.len()));
                }
                rounds.push(round);
            }
        }
    }
    if table.len() != rounds.iter().filter(|r| **r > 0).count() {
        return fail(format!("{} keys, some of them not written by the loop", table.len()));
    }
    // Writes go key by key, round by round, so a saved table reads newest first.
    if let Some(i) = (1..rounds.len()).find(|&i| rounds[i] > rounds[i - 1]) {
        return fail(format!(
            "{} is from round {} but {} only from round {}: not a state any write produced",
            kv_key(i),
            rounds[i],
            kv_key(i - 1),
            rounds[i - 1]
        ));
    }
    if let Some(path) = &args.state {
        let before: Vec<u64> = std::fs::read_to_string(path)
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|r| r.parse().ok())
            .collect();
        if let Some(i) = before.iter().zip(&rounds).position(|(old, new)| new < old) {
            return fail(format!(
                "{} went back from round {} to {}: a confirmed write was lost",
                kv_key(i),
                before[i],
                rounds[i]
            ));
        }
        let text: Vec<String> = rounds.iter().map(u64::to_string).collect();
        if let Err(error) = std::fs::write(path, text.join(" ")) {
            return fail(format!("cannot save the state: {error}"));
        }
    }
    // Rounds per key, run-length encoded: "3x120 2x180" = keys 0-119 from round 3, the rest from round 2.
    let mut runs: Vec<(u64, usize)> = Vec::new();
    for round in rounds {
        match runs.last_mut() {
            Some((r, n)) if *r == round => *n += 1,
            _ => runs.push((round, 1)),
        }
    }
    let summary: Vec<String> = runs.iter().map(|(r, n)| format!("r{r}x{n}")).collect();
    println!("ok {}", summary.join(" "));
    true
}
