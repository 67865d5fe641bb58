//! Closed-loop load generator for a NameServer: each of --conns TCP
//! connections sends a JSON-header remoting request (default
//! GET_ROUTEINFO_BY_TOPIC, code 105) and waits for its response before
//! sending the next, for --duration-s seconds (after --warmup-s).
//! Prints one `ROUTEBENCH ...` summary line (qps, latency percentiles,
//! response-code counts). Uses raw frames, not the rocketmq client.

use std::collections::BTreeMap;
use std::time::Duration;
use std::time::Instant;

use rmq_interop_client::Flags;
use tokio::io::AsyncReadExt;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

const USAGE: &str = "interop-routebench [--namesrv 127.0.0.1:9876] [--code 105] [--topic TBW102] \
[--conns 8] [--duration-s 10] [--warmup-s 1] [--timeout-ms 3000]";

fn frame(code: i32, opaque: i32, topic: &str) -> Vec<u8> {
    let header = format!(
        "{{\"code\":{code},\"language\":\"JAVA\",\"version\":501,\"opaque\":{opaque},\"flag\":0,\
\"extFields\":{{\"topic\":\"{topic}\"}},\"serializeTypeCurrentRPC\":\"JSON\"}}"
    );
    let h = header.as_bytes();
    let mut out = Vec::with_capacity(8 + h.len());
    out.extend_from_slice(&((4 + h.len()) as u32).to_be_bytes());
    out.extend_from_slice(&(h.len() as u32).to_be_bytes()); // high byte 0 = JSON
    out.extend_from_slice(h);
    out
}

/// Reads one response frame; returns its response code.
async fn read_response(s: &mut TcpStream, buf: &mut Vec<u8>) -> std::io::Result<i32> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len).await?;
    let total = u32::from_be_bytes(len) as usize;
    buf.resize(total, 0);
    s.read_exact(buf).await?;
    let mark = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]);
    let hlen = (mark & 0x00FF_FFFF) as usize;
    let header = &buf[4..4 + hlen.min(total - 4)];
    // cheap extraction of "code":N without a JSON parser
    let text = String::from_utf8_lossy(header);
    let code = text
        .find("\"code\":")
        .and_then(|i| {
            let rest = &text[i + 7..];
            let end = rest.find(|c: char| c != '-' && !c.is_ascii_digit()).unwrap_or(rest.len());
            rest[..end].trim().parse().ok()
        })
        .unwrap_or(-9999);
    Ok(code)
}

struct ConnResult {
    lat_us: Vec<u32>,
    codes: BTreeMap<i32, u64>,
    errors: u64,
}

async fn worker(addr: String, code: i32, topic: String, warmup: Instant, end: Instant, timeout: Duration) -> ConnResult {
    let mut r = ConnResult { lat_us: Vec::new(), codes: BTreeMap::new(), errors: 0 };
    let mut s = match TcpStream::connect(&addr).await {
        Ok(s) => s,
        Err(_) => {
            r.errors += 1;
            return r;
        }
    };
    let _ = s.set_nodelay(true);
    let mut buf = Vec::new();
    let mut opaque = 0i32;
    loop {
        let now = Instant::now();
        if now >= end {
            break;
        }
        opaque = opaque.wrapping_add(1);
        let req = frame(code, opaque, &topic);
        let t = Instant::now();
        let res = tokio::time::timeout(timeout, async {
            s.write_all(&req).await?;
            read_response(&mut s, &mut buf).await
        })
        .await;
        match res {
            Ok(Ok(c)) => {
                if t >= warmup {
                    r.lat_us.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
                    *r.codes.entry(c).or_default() += 1;
                }
            }
            _ => {
                r.errors += 1;
                // reconnect after an error/timeout
                match TcpStream::connect(&addr).await {
                    Ok(n) => {
                        let _ = n.set_nodelay(true);
                        s = n
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
        }
    }
    r
}

#[tokio::main]
async fn main() {
    let f = Flags::from_env(USAGE);
    let addr = f.str("namesrv", "127.0.0.1:9876");
    let code = f.num("code", 105) as i32;
    let topic = f.str("topic", "TBW102");
    let conns = f.num("conns", 8).max(1);
    let duration = Duration::from_secs(f.num("duration-s", 10).max(1));
    let warmup_d = Duration::from_secs(f.num("warmup-s", 1));
    let timeout = Duration::from_millis(f.num("timeout-ms", 3000));

    let start = Instant::now();
    let warmup = start + warmup_d;
    let end = warmup + duration;
    let handles: Vec<_> = (0..conns)
        .map(|_| tokio::spawn(worker(addr.clone(), code, topic.clone(), warmup, end, timeout)))
        .collect();
    let mut lat = Vec::new();
    let mut codes: BTreeMap<i32, u64> = BTreeMap::new();
    let mut errors = 0;
    for h in handles {
        if let Ok(r) = h.await {
            lat.extend(r.lat_us);
            for (k, v) in r.codes {
                *codes.entry(k).or_default() += v;
            }
            errors += r.errors;
        }
    }
    lat.sort_unstable();
    let pct = |p: f64| -> u32 {
        if lat.is_empty() {
            0
        } else {
            lat[((lat.len() as f64 - 1.0) * p).round() as usize]
        }
    };
    let n = lat.len();
    let qps = n as f64 / duration.as_secs_f64();
    let codes_s: Vec<String> = codes.iter().map(|(k, v)| format!("{k}:{v}")).collect();
    println!(
        "ROUTEBENCH addr={addr} code={code} topic={topic} conns={conns} duration_s={} requests={n} qps={qps:.0} \
p50_us={} p90_us={} p99_us={} p999_us={} max_us={} errors={errors} resp_codes={}",
        duration.as_secs(),
        pct(0.50),
        pct(0.90),
        pct(0.99),
        pct(0.999),
        lat.last().copied().unwrap_or(0),
        codes_s.join(",")
    );
    if n == 0 || errors > 0 {
        std::process::exit(1);
    }
}
