//! `/metrics` is valid Prometheus text (0.0.4) and, when asked for, valid OpenMetrics text,
//! checked line by line by a strict parser below, and its numbers follow what the server did.

use crate::http_support;
use crate::support;

use std::collections::{BTreeMap, HashSet};

use http_support::{ConsoleServer, request};
use nameserver_core::protocol::RequestCode;
use support::{decode, register_broker_frame, route_query};

/// Which exposition format a text claims to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// `text/plain; version=0.0.4`.
    Prometheus,
    /// `application/openmetrics-text; version=1.0.0`.
    OpenMetrics,
}

/// Series (name and sorted labels, as `name{a="1",b="2"}`) → value.
type Samples = BTreeMap<String, f64>;
/// Label names and values, in order.
type Labels = Vec<(String, String)>;

fn is_metric_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

fn is_label_name(name: &str) -> bool {
    let mut chars = name.chars();
    !name.starts_with("__")
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn parse_value(text: &str) -> Result<f64, String> {
    match text {
        "+Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        "NaN" => Ok(f64::NAN),
        _ if text.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c)) => {
            text.parse().map_err(|_| format!("bad value {text:?}"))
        }
        _ => Err(format!("bad value {text:?}")),
    }
}

/// `{a="x",b="y"}` at the start of `text`: the labels and the rest.
fn parse_labels(text: &str) -> Result<(Labels, &str), String> {
    let Some(mut rest) = text.strip_prefix('{') else { return Ok((Vec::new(), text)) };
    let mut labels = Vec::new();
    loop {
        if let Some(after) = rest.strip_prefix('}') {
            return Ok((labels, after));
        }
        let eq = rest.find('=').ok_or("label without =")?;
        let name = &rest[..eq];
        if !is_label_name(name) {
            return Err(format!("bad label name {name:?}"));
        }
        rest = rest[eq + 1..].strip_prefix('"').ok_or("label value not quoted")?;
        let mut value = String::new();
        let mut chars = rest.char_indices();
        let end = loop {
            match chars.next().ok_or("unterminated label value")? {
                (i, '"') => break i,
                (_, '\\') => match chars.next().ok_or("dangling escape")?.1 {
                    '\\' => value.push('\\'),
                    '"' => value.push('"'),
                    'n' => value.push('\n'),
                    other => return Err(format!("bad escape \\{other}")),
                },
                (_, '\n') => return Err(String::from("newline in a label value")),
                (_, c) => value.push(c),
            }
        };
        if labels.iter().any(|(n, _)| n == name) {
            return Err(format!("label {name} twice"));
        }
        labels.push((name.to_string(), value));
        rest = &rest[end + 1..];
        if let Some(after) = rest.strip_prefix(',') {
            rest = after;
        } else if !rest.starts_with('}') {
            return Err(String::from("labels not separated by ,"));
        }
    }
}

fn series_key(name: &str, labels: &[(String, String)]) -> String {
    let mut sorted = labels.to_vec();
    sorted.sort();
    let inner: Vec<String> = sorted.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
    if inner.is_empty() { name.to_string() } else { format!("{name}{{{}}}", inner.join(",")) }
}

/// The sample names a family of `kind` may have.
fn allowed_samples(family: &str, kind: &str, format: Format) -> Vec<String> {
    let suffixed = |suffixes: &[&str]| suffixes.iter().map(|s| format!("{family}{s}")).collect();
    match (kind, format) {
        ("counter", Format::OpenMetrics) => suffixed(&["_total", "_created"]),
        ("histogram", _) => suffixed(&["_bucket", "_sum", "_count", "_created"]),
        ("summary", _) => suffixed(&["", "_sum", "_count", "_created"]),
        _ => vec![family.to_string()],
    }
}

/// Checks `text` strictly against `format` and returns its samples.
fn check_exposition(text: &str, format: Format) -> Result<Samples, String> {
    let body = match format {
        Format::OpenMetrics => text.strip_suffix("# EOF\n").ok_or("no # EOF at the end")?,
        Format::Prometheus => text,
    };
    if !body.is_empty() && !body.ends_with('\n') {
        return Err(String::from("the last line has no newline"));
    }
    let mut samples = Samples::new();
    let mut kinds: BTreeMap<String, String> = BTreeMap::new();
    let mut helped = HashSet::new();
    let mut finished: HashSet<String> = HashSet::new();
    let mut current: Option<String> = None;
    // Histogram series: (family, labels without le) → [(le, cumulative count)].
    let mut buckets: BTreeMap<(String, String), Vec<(f64, f64)>> = BTreeMap::new();
    let mut start_family = |family: &str, current: &mut Option<String>| -> Result<(), String> {
        if current.as_deref() != Some(family) {
            if let Some(previous) = current.take() {
                finished.insert(previous);
            }
            if finished.contains(family) {
                return Err(format!("family {family} is not contiguous"));
            }
            *current = Some(family.to_string());
        }
        Ok(())
    };
    for (n, line) in body.lines().enumerate() {
        let at = |e: String| format!("line {}: {e}: {line:?}", n + 1);
        if let Some(comment) = line.strip_prefix('#') {
            let mut parts = comment.trim_start().splitn(3, ' ');
            let (keyword, name, rest) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next());
            match keyword {
                "HELP" | "TYPE" | "UNIT" => {
                    if !is_metric_name(name) {
                        return Err(at(format!("bad metric name {name:?}")));
                    }
                    start_family(name, &mut current).map_err(at)?;
                }
                _ if format == Format::OpenMetrics => return Err(at(String::from("unknown # line"))),
                _ => continue,
            }
            match keyword {
                "HELP" => {
                    if !helped.insert(name.to_string()) {
                        return Err(at(String::from("second HELP")));
                    }
                    let help = rest.unwrap_or("");
                    let mut chars = help.chars();
                    while let Some(c) = chars.next() {
                        let escape_ok = |e: Option<char>| {
                            matches!(e, Some('\\' | 'n')) || (format == Format::OpenMetrics && e == Some('"'))
                        };
                        if c == '\\' && !escape_ok(chars.next()) {
                            return Err(at(String::from("bad escape in HELP")));
                        }
                    }
                }
                "TYPE" => {
                    let kind = rest.ok_or_else(|| at(String::from("TYPE without a type")))?;
                    let known: &[&str] = match format {
                        Format::Prometheus => &["counter", "gauge", "histogram", "summary", "untyped"],
                        Format::OpenMetrics => &[
                            "counter",
                            "gauge",
                            "histogram",
                            "gaugehistogram",
                            "stateset",
                            "info",
                            "summary",
                            "unknown",
                        ],
                    };
                    if !known.contains(&kind) {
                        return Err(at(format!("unknown type {kind}")));
                    }
                    if kinds.insert(name.to_string(), kind.to_string()).is_some() {
                        return Err(at(String::from("second TYPE")));
                    }
                }
                _ => {
                    if format == Format::Prometheus {
                        return Err(at(String::from("UNIT is OpenMetrics only")));
                    }
                    let unit = rest.unwrap_or("");
                    if !name.ends_with(&format!("_{unit}")) {
                        return Err(at(String::from("the name does not end with the unit")));
                    }
                }
            }
            continue;
        }
        if line.is_empty() {
            return Err(at(String::from("empty line")));
        }
        let name_end = line.find(['{', ' ']).ok_or_else(|| at(String::from("no value")))?;
        let name = &line[..name_end];
        if !is_metric_name(name) {
            return Err(at(format!("bad metric name {name:?}")));
        }
        let (labels, rest) = parse_labels(&line[name_end..]).map_err(at)?;
        let mut fields =
            rest.strip_prefix(' ').ok_or_else(|| at(String::from("no space before the value")))?.split(' ');
        let value = parse_value(fields.next().unwrap_or("")).map_err(at)?;
        if let Some(timestamp) = fields.next() {
            timestamp.parse::<f64>().map_err(|_| at(String::from("bad timestamp")))?;
        }
        if fields.next().is_some() {
            return Err(at(String::from("trailing fields")));
        }
        let family = current.clone().ok_or_else(|| at(String::from("a sample before its TYPE")))?;
        let kind = kinds.get(&family).ok_or_else(|| at(String::from("a sample without a TYPE")))?;
        if !allowed_samples(&family, kind, format).iter().any(|allowed| allowed == name) {
            return Err(at(format!("{name} does not belong to the {kind} {family}")));
        }
        if kind == "counter" && value < 0.0 {
            return Err(at(String::from("negative counter")));
        }
        let le = labels.iter().find(|(k, _)| k == "le").map(|(_, v)| v.clone());
        if name.ends_with("_bucket") && kind == "histogram" {
            let le = le.ok_or_else(|| at(String::from("a bucket without le")))?;
            let bound = parse_value(&le).map_err(at)?;
            let rest: Vec<(String, String)> = labels.iter().filter(|(k, _)| k != "le").cloned().collect();
            buckets.entry((family.clone(), series_key("", &rest))).or_default().push((bound, value));
        }
        if samples.insert(series_key(name, &labels), value).is_some() {
            return Err(at(String::from("duplicate series")));
        }
    }
    for ((family, labels), list) in &buckets {
        let what = format!("histogram {family}{labels}");
        if !list.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1) {
            return Err(format!("{what}: buckets not increasing and cumulative"));
        }
        let last = list.last().unwrap();
        if last.0 != f64::INFINITY {
            return Err(format!("{what}: no +Inf bucket"));
        }
        let count = samples.get(&format!("{family}_count{labels}")).ok_or(format!("{what}: no _count"))?;
        if *count != last.1 {
            return Err(format!("{what}: _count {count} differs from +Inf {}", last.1));
        }
        if !samples.contains_key(&format!("{family}_sum{labels}")) {
            return Err(format!("{what}: no _sum"));
        }
    }
    Ok(samples)
}

#[test]
fn the_checker_rejects_what_it_should() {
    let good = "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"1\"} 2\n";
    assert!(check_exposition(good, Format::Prometheus).is_ok());
    for bad in [
        "a_total 1\n",                                     // no TYPE (required here)
        "# TYPE a counter\na 1",                           // no final newline
        "# TYPE a counter\na{x=\"1\"} 1\na{x=\"1\"} 2\n",  // duplicate series
        "# TYPE a counter\na{x=\"\\q\"} 1\n",              // bad escape
        "# TYPE a counter\na{1x=\"1\"} 1\n",               // bad label name
        "# TYPE a counter\na -1\n",                        // negative counter
        "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na 2\n", // not contiguous
        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n", // not cumulative
        "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n", // no +Inf
        "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 2\n", // count differs
        "# TYPE a counter\na 1 2 3\n",                     // trailing fields
    ] {
        assert!(check_exposition(bad, Format::Prometheus).is_err(), "accepted {bad:?}");
    }
    assert!(check_exposition("# TYPE a counter\na_total 1\n# EOF\n", Format::OpenMetrics).is_ok());
    assert!(check_exposition("# TYPE a counter\na_total 1\n", Format::OpenMetrics).is_err(), "no EOF");
    assert!(check_exposition("# TYPE a counter\na 1\n# EOF\n", Format::OpenMetrics).is_err(), "counter without _total");
}

#[tokio::test]
async fn metrics_are_valid_exposition_text_and_count_what_happened() {
    let server = ConsoleServer::start().await;
    let mut broker = server.client().await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0);
    let mut client = server.client().await;
    for opaque in 0..3 {
        assert_eq!(client.request(&route_query("TBW102", opaque)).await.code, 0);
    }
    let kv = support::request(RequestCode::GetKvConfig, 9, &[("namespace", "n"), ("key", "k")]);
    assert_eq!(client.request(&kv).await.code, 22);
    let mut unknown = nameserver_core::protocol::RemotingCommand::request(RequestCode::Unknown(9999));
    unknown.opaque = 10;
    assert_eq!(client.request(&unknown).await.code, 3);
    // A frame longer than the limit: the connection is closed as a frame error.
    let mut garbage = server.client().await;
    garbage.send(&[0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0]).await;
    assert!(garbage.closed_by_server().await);

    let scrape = |format| async move {
        let accept = match format {
            Format::Prometheus => "text/plain",
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0,text/plain;q=0.5",
        };
        let response = request(server.http, "GET", "/metrics", &[("Accept", accept)], b"").await;
        assert_eq!(response.status, 200);
        let expected = match format {
            Format::Prometheus => "text/plain; version=0.0.4; charset=utf-8",
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
        };
        assert_eq!(response.header("content-type"), Some(expected));
        let text = response.text();
        check_exposition(&text, format).unwrap_or_else(|e| panic!("{format:?}: {e}\n{text}"))
    };
    let mut samples = scrape(Format::Prometheus).await;
    for _ in 0..1000 {
        if samples.get("nameserver_frame_errors_total") == Some(&1.0) {
            break;
        }
        tokio::task::yield_now().await;
        samples = scrape(Format::Prometheus).await;
    }
    let value = |series: &str| *samples.get(series).unwrap_or_else(|| panic!("no {series} in {samples:#?}"));
    assert_eq!(value("nameserver_frame_errors_total"), 1.0);
    assert_eq!(value("nameserver_brokers"), 1.0);
    assert_eq!(value("nameserver_clusters"), 1.0);
    assert_eq!(value("nameserver_topics"), 13.0);
    assert_eq!(value("nameserver_broker_registrations_total"), 1.0);
    assert!(value("nameserver_connections") >= 2.0);
    assert!(value("nameserver_connections_accepted_total") >= 3.0);
    let route = "{code=\"105\",request=\"GET_ROUTEINFO_BY_TOPIC\"}";
    let route_ok = "{code=\"105\",request=\"GET_ROUTEINFO_BY_TOPIC\",response=\"SUCCESS\",response_code=\"0\"}";
    assert_eq!(value(&format!("nameserver_requests_total{route_ok}")), 3.0);
    assert_eq!(value(&format!("nameserver_request_duration_seconds_count{route}")), 3.0);
    assert!(value(&format!("nameserver_request_duration_seconds_sum{route}")) > 0.0);
    let requests = |labels: &str| value(&format!("nameserver_requests_total{{{labels}}}"));
    assert_eq!(requests("code=\"103\",request=\"REGISTER_BROKER\",response=\"SUCCESS\",response_code=\"0\""), 1.0);
    assert_eq!(
        requests("code=\"101\",request=\"GET_KV_CONFIG\",response=\"QUERY_NOT_FOUND\",response_code=\"22\""),
        1.0
    );
    assert_eq!(
        requests("code=\"other\",request=\"OTHER\",response=\"REQUEST_CODE_NOT_SUPPORTED\",response_code=\"3\""),
        1.0
    );
    assert_eq!(value("nameserver_broker_unregistrations_total{reason=\"expired\"}"), 0.0);

    let open = scrape(Format::OpenMetrics).await;
    assert_eq!(open.get("nameserver_brokers"), Some(&1.0));
    assert_eq!(open.get(&format!("nameserver_requests_total{route_ok}")), Some(&3.0));
    server.stop().await.unwrap();
}

/// Scrapes `/metrics` (Prometheus text), checked strictly.
async fn scrape(server: &ConsoleServer) -> Samples {
    let response = request(server.http, "GET", "/metrics", &[], b"").await;
    assert_eq!(response.status, 200);
    let text = response.text();
    check_exposition(&text, Format::Prometheus).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[tokio::test]
async fn route_queries_read_together_are_each_counted_and_measured() {
    let server = ConsoleServer::start().await;
    let mut broker = server.client().await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0);
    let mut client = server.client().await;
    assert_eq!(client.request(&route_query("TBW102", 0)).await.code, 0);
    // Nine queries in one write: the connection reads and answers them together.
    let topics = ["TBW102", "Gone1", "TBW102", "TBW102", "Gone2", "Gone3", "TBW102", "Gone4", "TBW102"];
    let burst: Vec<u8> =
        (1..).zip(topics).flat_map(|(opaque, topic)| support::encode(&route_query(topic, opaque))).collect();
    client.send(&burst).await;
    for (opaque, topic) in (1..).zip(topics) {
        let reply = decode(&client.read_frame().await);
        assert_eq!((reply.opaque, reply.code), (opaque, if topic == "TBW102" { 0 } else { 17 }));
    }
    let samples = scrape(&server).await;
    let value = |series: &str| *samples.get(series).unwrap_or_else(|| panic!("no {series} in {samples:#?}"));
    let labels = |response: &str, code: u8| {
        format!("{{code=\"105\",request=\"GET_ROUTEINFO_BY_TOPIC\",response=\"{response}\",response_code=\"{code}\"}}")
    };
    assert_eq!(value(&format!("nameserver_requests_total{}", labels("SUCCESS", 0))), 6.0);
    assert_eq!(value(&format!("nameserver_requests_total{}", labels("TOPIC_NOT_EXIST", 17))), 4.0);
    let route = "{code=\"105\",request=\"GET_ROUTEINFO_BY_TOPIC\"}";
    assert_eq!(value(&format!("nameserver_request_duration_seconds_count{route}")), 10.0);
    assert!(value(&format!("nameserver_request_duration_seconds_sum{route}")) > 0.0);
}

#[tokio::test]
async fn metrics_speak_rocketmqs_vocabulary() {
    let server = ConsoleServer::start().await;
    let mut broker = server.client().await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0);
    let mut client = server.client().await;
    // One unknown topic through the owner, then twice more from the route snapshot.
    for opaque in 0..3 {
        assert_eq!(client.request(&route_query("NoSuchTopic", opaque)).await.code, 17);
    }
    // A oneway request gets no reply: response "none" (a oneway read is dropped uncounted
    // here, hostile/fairness.rs; a heartbeat is a write).
    let mut oneway = support::request(
        RequestCode::BrokerHeartbeat,
        7,
        &[("clusterName", "DemoCluster"), ("brokerAddr", "127.0.0.1:31911"), ("brokerName", "broker-a")],
    );
    oneway.flag |= 2;
    client.send(&support::encode(&oneway)).await;
    assert_eq!(client.request(&route_query("TBW102", 8)).await.code, 0);
    // A KV put is on disk, in the journal, once answered.
    let put = support::request(RequestCode::PutKvConfig, 9, &[("namespace", "ns"), ("key", "k"), ("value", "v")]);
    assert_eq!(client.request(&put).await.code, 0);

    let mut samples = scrape(&server).await;
    let none =
        "nameserver_requests_total{code=\"904\",request=\"BROKER_HEARTBEAT\",response=\"NONE\",response_code=\"none\"}";
    for _ in 0..1000 {
        if samples.contains_key(none) {
            break;
        }
        tokio::task::yield_now().await;
        samples = scrape(&server).await;
    }
    let value = |series: &str| *samples.get(series).unwrap_or_else(|| panic!("no {series} in {samples:#?}"));
    let missing = "{code=\"105\",request=\"GET_ROUTEINFO_BY_TOPIC\",response=\"TOPIC_NOT_EXIST\",response_code=\"17\"}";
    assert_eq!(value(&format!("nameserver_requests_total{missing}")), 3.0, "owner and snapshot answers both counted");
    assert_eq!(value(none), 1.0);

    // brokerLiveTable with rocketmq-exporter's label names, plus the broker id.
    let broker_labels = "{broker=\"broker-a\",brokerIP=\"127.0.0.1:31911\",brokerId=\"0\",cluster=\"DemoCluster\"}";
    let age = value(&format!("nameserver_broker_heartbeat_age_seconds{broker_labels}"));
    assert!((0.0..5.0).contains(&age), "a broker that just registered: {age}");
    assert_eq!(value(&format!("nameserver_broker_heartbeat_timeout_seconds{broker_labels}")), 120.0);
    assert_eq!(value("nameserver_live_brokers{cluster=\"DemoCluster\"}"), 1.0);
    assert_eq!(value("nameserver_topics"), 13.0);
    assert_eq!(value("nameserver_serving_routes"), 1.0);
    assert_eq!(value("nameserver_file_write_failures_total{file=\"kvConfig\"}"), 0.0);
    assert_eq!(value("nameserver_file_write_failures_total{file=\"config\"}"), 0.0);
    // The header (24), then one record: length and checksum (8), tag (1), three texts with their
    // lengths (4 each).
    assert_eq!(value("nameserver_kv_journal_bytes"), (24 + 8 + 1 + 4 + 2 + 4 + 1 + 4 + 1) as f64);
    assert_eq!(value("nameserver_kv_file_rewrites_total"), 0.0, "kvConfig.json is not written whole for one put");
    let build = format!(
        "nameserver_build_info{{commit={:?},version={:?}}}",
        nameserver::version::COMMIT,
        nameserver::version::VERSION
    );
    assert_eq!(value(&build), 1.0);
    assert!(!nameserver::version::COMMIT.is_empty());
    if cfg!(target_os = "linux") {
        assert!(value("process_open_fds") >= 4.0, "listeners and connections");
        assert!(value("process_max_fds") >= value("process_open_fds"));
        assert!(value("process_resident_memory_bytes") > 1e6);
        assert!(value("process_cpu_seconds_total") >= 0.0);
        assert!(value("process_start_time_seconds") > 1.6e9);
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn failed_file_writes_are_counted() {
    let server = ConsoleServer::start_with(nameserver::http::HttpOptions::default(), |c| {
        // A path under a regular file: every write of kvConfig.json fails.
        let blocker = std::path::Path::new(&c.namesrv.kv_config_path).with_file_name("blocker");
        std::fs::write(&blocker, "a file, not a directory").unwrap();
        c.namesrv.kv_config_path = blocker.join("kvConfig.json").display().to_string();
    })
    .await;
    let mut client = server.client().await;
    let put = support::request(RequestCode::PutKvConfig, 1, &[("namespace", "ns"), ("key", "k"), ("value", "v")]);
    client.request(&put).await;
    let series = "nameserver_file_write_failures_total{file=\"kvConfig\"}";
    let mut samples = scrape(&server).await;
    for _ in 0..1000 {
        if samples.get(series) == Some(&1.0) {
            break;
        }
        tokio::task::yield_now().await;
        samples = scrape(&server).await;
    }
    assert_eq!(samples.get(series), Some(&1.0), "{samples:#?}");
    server.stop().await.expect("a failed write does not fail the stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peer_series_are_valid_exposition_text() {
    use nameserver::http::{HttpOptions, PeerUrl};
    let peer = ConsoleServer::start().await;
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let peers = [peer.http, closed].map(|addr| PeerUrl::parse(&format!("http://{addr}")).unwrap()).to_vec();
    let server = ConsoleServer::start_with(HttpOptions { peers, ..HttpOptions::default() }, |_| {}).await;
    let up = |addr| format!("nameserver_peer_up{{peer=\"http://{addr}\"}}");
    let samples = crate::support::eventually("one peer up, the other down", || async {
        let samples = scrape(&server).await;
        (samples.get(&up(peer.http)) == Some(&1.0) && samples.get(&up(closed)) == Some(&0.0)).then_some(samples)
    })
    .await;
    for family in ["brokers", "topics"] {
        for direction in ["missing_here", "missing_there"] {
            let series =
                format!("nameserver_peer_{family}_missing{{direction=\"{direction}\",peer=\"http://{}\"}}", peer.http);
            assert_eq!(samples.get(&series), Some(&0.0), "{series}");
        }
    }
    let divergence = format!("nameserver_peer_divergence_seconds{{peer=\"http://{}\"}}", peer.http);
    assert_eq!(samples.get(&divergence), Some(&0.0));
    assert!(
        !samples.keys().any(|k| k.starts_with("nameserver_peer_")
            && k.contains(&closed.to_string())
            && !k.starts_with("nameserver_peer_up")),
        "an unreachable peer has only its up series"
    );
    let response =
        request(server.http, "GET", "/metrics", &[("Accept", "application/openmetrics-text; version=1.0.0")], b"")
            .await;
    let open =
        check_exposition(&response.text(), Format::OpenMetrics).unwrap_or_else(|e| panic!("{e}\n{}", response.text()));
    assert_eq!(open.get(&divergence), Some(&0.0));
    server.stop().await.unwrap();
    peer.stop().await.unwrap();
}
