//! `/metrics` in the Prometheus text format: the counters of [`crate::observe`], the view,
//! the route snapshot and the peers' reports, read at each scrape.
//!
//! Per-broker and per-cluster series use the label names of rocketmq-exporter (`cluster`,
//! `broker`, `brokerIP`) plus `brokerId`, so that dashboards can join them with the brokers'
//! own series; `process_*` are the standard process series (`process.rs`).

use std::fmt::{self, Write as _};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use nameserver_core::auth::RequestClass;
use nameserver_core::protocol::RequestCode;
use nameserver_core::view::{LiveRow, NsTables};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric as _, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::{Registry, Unit};

use super::Ctx;
use super::peers::PeerBoard;
use crate::observe::metrics::{BOUNDS, REASONS, SLOTS, Totals, response_labels};
use crate::observe::{Deadline, Refused};
use crate::observe::{Observer, wall_ms};

/// The OpenMetrics text format's content type (prometheus-client writes `# EOF` and `_total`).
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The registry's one collector: reads the atomics, the view, the route snapshot and the
/// peers' reports.
#[derive(Debug)]
struct Scrape(Arc<Observer>, Arc<PeerBoard>);

pub(crate) fn registry(observer: Arc<Observer>, peers: Arc<PeerBoard>) -> Registry {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Scrape(observer, peers)));
    registry
}

fn counter(enc: &mut DescriptorEncoder<'_>, name: &str, help: &str, value: u64) -> fmt::Result {
    let metric = ConstCounter::new(value);
    metric.encode(enc.encode_descriptor(name, help, None, metric.metric_type())?)
}

fn gauge(enc: &mut DescriptorEncoder<'_>, name: &str, help: &str, value: i64) -> fmt::Result {
    let metric = ConstGauge::new(value);
    metric.encode(enc.encode_descriptor(name, help, None, metric.metric_type())?)
}

fn as_gauge(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Collector for Scrape {
    fn encode(&self, mut enc: DescriptorEncoder<'_>) -> fmt::Result {
        let observer = &self.0;
        let m = &observer.metrics;
        let view = observer.view.load();
        let routes = observer.routes.load();
        gauge(&mut enc, "nameserver_connections", "Open connections", as_gauge(m.open.load(Relaxed) as usize))?;
        counter(
            &mut enc,
            "nameserver_connections_accepted",
            "Connections accepted by the listener (probes and refused ones included)",
            m.accepted.load(Relaxed),
        )?;

        let codes: Vec<(String, &str, Totals)> = (0..SLOTS)
            .map(|slot| {
                let (code, name) = match RequestCode::KNOWN.get(slot) {
                    Some(known) => (known.raw().to_string(), known.java_name().unwrap_or("UNKNOWN")),
                    None => (String::from("other"), "OTHER"),
                };
                (code, name, m.totals(slot))
            })
            .filter(|(_, _, totals)| totals.count > 0)
            .collect();
        let mut requests = enc.encode_descriptor(
            "nameserver_requests",
            "Requests answered, by request code and the response code of the reply (none: oneway, no reply)",
            None,
            MetricType::Counter,
        )?;
        for (code, name, totals) in &codes {
            for (slot, count) in totals.responses.iter().enumerate().filter(|(_, count)| **count > 0) {
                let (response_code, response) = response_labels(slot);
                let labels = [
                    ("code", code.as_str()),
                    ("request", *name),
                    ("response_code", response_code.as_str()),
                    ("response", response),
                ];
                ConstCounter::new(*count).encode(requests.encode_family(&labels)?)?;
            }
        }
        let mut latency = enc.encode_descriptor(
            "nameserver_request_duration",
            "Time from a request's frame being decoded to its reply being ready, by request code",
            Some(&Unit::Seconds),
            MetricType::Histogram,
        )?;
        for (code, name, totals) in &codes {
            let labels = [("code", code.as_str()), ("request", *name)];
            let mut pairs: Vec<(f64, u64)> = BOUNDS.iter().copied().zip(totals.buckets.iter().copied()).collect();
            pairs.push((f64::INFINITY, totals.buckets[BOUNDS.len()]));
            latency.encode_family(&labels)?.encode_histogram::<NoLabelSet>(
                totals.seconds,
                totals.count,
                &pairs,
                None,
            )?;
        }

        counter(
            &mut enc,
            "nameserver_frame_errors",
            "Connections closed for a malformed frame",
            m.frame_errors.load(Relaxed),
        )?;
        gauge(
            &mut enc,
            "nameserver_brokers",
            "Broker instances in brokerLiveTable",
            as_gauge(view.tables.brokers.len()),
        )?;
        gauge(
            &mut enc,
            "nameserver_clusters",
            "Clusters in clusterAddrTable",
            as_gauge(view.tables.cluster_addr_table.len()),
        )?;
        gauge(&mut enc, "nameserver_topics", "Topics with a route", as_gauge(routes.topics()))?;
        gauge(
            &mut enc,
            "nameserver_serving_routes",
            "1 while route queries are answered, 0 while needWaitForService holds them back",
            i64::from(routes.serving()),
        )?;
        brokers(&mut enc, &view.tables, observer.now().as_millis())?;
        gauge(&mut enc, "nameserver_kv_entries", "KV config entries", as_gauge(view.kv.len()))?;
        gauge(
            &mut enc,
            "nameserver_route_snapshot_version",
            "Version of the route snapshot connections answer from",
            i64::try_from(routes.version()).unwrap_or(i64::MAX),
        )?;
        counter(
            &mut enc,
            "nameserver_broker_registrations",
            "New broker registrations",
            m.registrations.load(Relaxed),
        )?;
        let mut unregs = enc.encode_descriptor(
            "nameserver_broker_unregistrations",
            "Broker instances removed from brokerLiveTable, by reason",
            None,
            MetricType::Counter,
        )?;
        for (reason, value) in REASONS.iter().zip(&m.unregistrations) {
            ConstCounter::new(value.load(Relaxed)).encode(unregs.encode_family(&[("reason", *reason)])?)?;
        }
        counter(&mut enc, "nameserver_broker_expiries", "Brokers whose heartbeat timed out", m.expiries.load(Relaxed))?;
        counter(&mut enc, "nameserver_idle_closes", "Connections closed for being idle", m.idle_closes.load(Relaxed))?;
        counter(
            &mut enc,
            "nameserver_oneway_reads_dropped",
            "Oneway requests that only read (route, topic lists, cluster info, KV and config reads): nobody reads their answer, so the connection drops them",
            m.oneway_reads_dropped.load(Relaxed),
        )?;
        gauge(
            &mut enc,
            "nameserver_owner_queue_requests",
            "Requests waiting for the owner in the connections' queues (at most 64 per connection; past 4,096 in all, or 64 MiB, a connection with requests queued is refused)",
            i64::try_from(m.owner_queue_requests.load(Relaxed)).unwrap_or(i64::MAX),
        )?;
        gauge(
            &mut enc,
            "nameserver_owner_queue_bytes",
            "Bytes of the requests waiting for the owner",
            i64::try_from(m.owner_queue_bytes.load(Relaxed)).unwrap_or(i64::MAX),
        )?;
        let mut busy = enc.encode_descriptor(
            "nameserver_owner_queue_refused",
            "Requests refused for a full owner queue from connections that already had requests queued: two_way (answered SYSTEM_BUSY, as Java's full executor queue), oneway (dropped)",
            None,
            MetricType::Counter,
        )?;
        for (request, value) in [("two_way", &m.owner_queue_busy), ("oneway", &m.owner_queue_dropped)] {
            ConstCounter::new(value.load(Relaxed)).encode(busy.encode_family(&[("request", request)])?)?;
        }
        let mut refused = enc.encode_descriptor(
            "nameserver_connections_refused",
            "Connections closed before being served: per_source (--max-connections-per-source), proxy_unlisted (a PROXY header from a peer --proxy-protocol-from does not list), proxy_missing (none from a listed one)",
            None,
            MetricType::Counter,
        )?;
        for (why, value) in Refused::ALL.iter().zip(&m.refused) {
            ConstCounter::new(value.load(Relaxed)).encode(refused.encode_family(&[("reason", why.label())])?)?;
        }
        let mut requests_refused = enc.encode_descriptor(
            "nameserver_requests_refused",
            "Requests refused NO_PERMISSION (16) before being handled, by reason and request class: auth (--acl-file, --auth, --allow-from: no or a wrong signature, an unknown or non-admin account, a source not listed, a denied class); oneway ones get no reply",
            None,
            MetricType::Counter,
        )?;
        for class in RequestClass::ALL {
            let value = m.auth_refused[class as usize].load(Relaxed);
            let labels = [("reason", "auth"), ("class", class.name())];
            ConstCounter::new(value).encode(requests_refused.encode_family(&labels)?)?;
        }
        let mut deadlines = enc.encode_descriptor(
            "nameserver_deadline_closes",
            "Connections closed by a deadline: handshake (PROXY header or TLS), frame (a frame not complete in time), slow_reader (replies left unread for an idle period)",
            None,
            MetricType::Counter,
        )?;
        for (which, value) in Deadline::ALL.iter().zip(&m.deadline_closes) {
            ConstCounter::new(value.load(Relaxed)).encode(deadlines.encode_family(&[("deadline", which.label())])?)?;
        }
        let mut failures = enc.encode_descriptor(
            "nameserver_file_write_failures",
            "Writes of kvConfig.json (file=kvConfig) or of the -c configuration file (file=config) that failed; the file kept its previous content",
            None,
            MetricType::Counter,
        )?;
        for (file, count) in &observer.write_failures {
            ConstCounter::new(count.load(Relaxed)).encode(failures.encode_family(&[("file", *file)])?)?;
        }
        gauge(
            &mut enc,
            "nameserver_kv_journal_bytes",
            "Bytes in kvConfig.json.journal: the KV changes since kvConfig.json was last written whole",
            i64::try_from(observer.kv_journal.bytes.load(Relaxed)).unwrap_or(i64::MAX),
        )?;
        counter(
            &mut enc,
            "nameserver_kv_file_rewrites",
            "Whole writes of kvConfig.json (the journal outgrew it, a start after a replay, a clean stop, after a failed write)",
            observer.kv_journal.whole_writes.load(Relaxed),
        )?;
        peers(&mut enc, &self.1)?;
        super::controller::encode(&mut enc, observer, MAX_SERIES)?;
        gauge(
            &mut enc,
            "nameserver_http_event_subscribers",
            "Open /api/events streams",
            as_gauge(observer.events.subscribers()),
        )?;
        counter(
            &mut enc,
            "nameserver_http_events_dropped",
            "Events a slow /api/events reader missed",
            m.events_dropped.load(Relaxed),
        )?;
        gauge(
            &mut enc,
            "nameserver_uptime_seconds",
            "Seconds since start",
            i64::try_from(observer.now().as_millis() / 1000).unwrap_or(i64::MAX),
        )?;
        let mut info = enc.encode_descriptor(
            "nameserver_build_info",
            "This binary: version and git commit (value 1)",
            None,
            MetricType::Gauge,
        )?;
        let labels = [("version", crate::version::VERSION), ("commit", crate::version::COMMIT)];
        ConstGauge::new(1).encode(info.encode_family(&labels)?)?;
        super::process::encode(&mut enc)
    }
}

/// Most series of one per-broker or per-cluster family: 20 × the 100-broker benchmark. Names
/// come from any peer of 9876, so without a bound a flood of registrations would make every
/// scrape, and Prometheus, as large as the flood; the rest are counted in
/// `nameserver_metric_series_dropped`.
pub(crate) const MAX_SERIES: usize = 2_000;

/// `brokerLiveTable` in RocketMQ's labels: heartbeat age and timeout per broker instance, and
/// live instances per cluster (0 for a cluster whose brokers are all gone), each family at
/// most [`MAX_SERIES`] series.
fn brokers(enc: &mut DescriptorEncoder<'_>, tables: &NsTables, now_ms: u64) -> fmt::Result {
    #[allow(clippy::cast_precision_loss)]
    let seconds = |ms: u64| ms as f64 / 1000.0;
    let ids: Vec<String> = tables.brokers.iter().map(|b| b.broker_id.to_string()).collect();
    let labels = |b: &LiveRow, id: &'_ str| -> [(&'static str, String); 4] {
        [
            ("cluster", b.cluster.clone()),
            ("broker", b.broker_name.clone()),
            ("brokerIP", b.broker_addr.clone()),
            ("brokerId", id.to_string()),
        ]
    };
    let mut age = enc.encode_descriptor(
        "nameserver_broker_heartbeat_age",
        "Time since the broker's last registration or heartbeat, per broker instance",
        Some(&Unit::Seconds),
        MetricType::Gauge,
    )?;
    for (broker, id) in tables.brokers.iter().zip(&ids).take(MAX_SERIES) {
        let value = seconds(now_ms.saturating_sub(broker.last_update));
        ConstGauge::new(value).encode(age.encode_family(&labels(broker, id))?)?;
    }
    let mut timeout = enc.encode_descriptor(
        "nameserver_broker_heartbeat_timeout",
        "Heartbeat age at which the broker is expired (its heartbeatTimeoutMillis)",
        Some(&Unit::Seconds),
        MetricType::Gauge,
    )?;
    for (broker, id) in tables.brokers.iter().zip(&ids).take(MAX_SERIES) {
        ConstGauge::new(seconds(broker.timeout_ms)).encode(timeout.encode_family(&labels(broker, id))?)?;
    }
    let mut live: std::collections::BTreeMap<&str, i64> =
        tables.cluster_addr_table.keys().map(|cluster| (cluster.as_str(), 0)).collect();
    for broker in &tables.brokers {
        *live.entry(broker.cluster.as_str()).or_default() += 1;
    }
    let mut family = enc.encode_descriptor(
        "nameserver_live_brokers",
        "Broker instances in brokerLiveTable, per cluster",
        None,
        MetricType::Gauge,
    )?;
    let clusters = live.len();
    for (cluster, count) in live.into_iter().take(MAX_SERIES) {
        ConstGauge::new(count).encode(family.encode_family(&[("cluster", cluster)])?)?;
    }
    let mut dropped = enc.encode_descriptor(
        "nameserver_metric_series_dropped",
        "Series left out of a per-broker (broker) or per-cluster (cluster) family past its bound of 2000",
        None,
        MetricType::Gauge,
    )?;
    for (family_name, count) in [("broker", tables.brokers.len()), ("cluster", clusters)] {
        let over = i64::try_from(count.saturating_sub(MAX_SERIES)).unwrap_or(i64::MAX);
        ConstGauge::new(over).encode(dropped.encode_family(&[("family", family_name)])?)?;
    }
    Ok(())
}

/// Per peer (`--http-peers`, this daemon's own console left out): whether its console
/// answers, and, while it does, how many brokers and topics one side has and the other lacks
/// and for how long the two have differed.
fn peers(enc: &mut DescriptorEncoder<'_>, board: &PeerBoard) -> fmt::Result {
    let reports: Vec<_> = board.reports().into_iter().filter(|r| !r.is_self).collect();
    let known: Vec<_> = reports.iter().filter(|r| r.reachable).collect();
    let mut up = enc.encode_descriptor(
        "nameserver_peer_up",
        "1 when the peer's console (--http-peers) answered the last poll, else 0",
        None,
        MetricType::Gauge,
    )?;
    for report in &reports {
        ConstGauge::new(i64::from(report.reachable)).encode(up.encode_family(&[("peer", report.url.as_str())])?)?;
    }
    let mut brokers = enc.encode_descriptor(
        "nameserver_peer_brokers_missing",
        "Brokers (by address) in one brokerLiveTable and not the other: direction=missing_there, here and not at the peer; missing_here, the reverse",
        None,
        MetricType::Gauge,
    )?;
    for report in &known {
        for (direction, count) in
            [("missing_there", report.brokers_only_here.len()), ("missing_here", report.brokers_only_there.len())]
        {
            let labels = [("peer", report.url.as_str()), ("direction", direction)];
            ConstGauge::new(as_gauge(count)).encode(brokers.encode_family(&labels)?)?;
        }
    }
    let mut topics = enc.encode_descriptor(
        "nameserver_peer_topics_missing",
        "Topics with a route on one side and none on the other, by direction as for brokers",
        None,
        MetricType::Gauge,
    )?;
    for report in &known {
        for (direction, count) in
            [("missing_there", report.topics_only_here.count), ("missing_here", report.topics_only_there.count)]
        {
            let labels = [("peer", report.url.as_str()), ("direction", direction)];
            ConstGauge::new(as_gauge(count)).encode(topics.encode_family(&labels)?)?;
        }
    }
    let mut since = enc.encode_descriptor(
        "nameserver_peer_divergence",
        "How long the oldest difference in brokers or topics with the peer has lasted (0: they agree)",
        Some(&Unit::Seconds),
        MetricType::Gauge,
    )?;
    let now = wall_ms();
    for report in &known {
        #[allow(clippy::cast_precision_loss)]
        let seconds = report.divergent_since.map_or(0.0, |since| now.saturating_sub(since) as f64 / 1000.0);
        ConstGauge::new(seconds).encode(since.encode_family(&[("peer", report.url.as_str())])?)?;
    }
    Ok(())
}

/// `GET /metrics`: OpenMetrics when the scraper asks for it, else Prometheus text 0.0.4.
pub(crate) async fn handler(State(ctx): State<Ctx>, headers: HeaderMap) -> Response {
    let openmetrics = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("application/openmetrics-text"));
    let mut body = String::with_capacity(8 * 1024);
    let (encoded, content_type) = if openmetrics {
        (prometheus_client::encoding::text::encode(&mut body, &ctx.registry), OPENMETRICS)
    } else {
        (
            prometheus_client::encoding::prometheus_text::encode(&mut body, &ctx.registry),
            prometheus_client::encoding::prometheus_text::CONTENT_TYPE,
        )
    };
    if encoded.is_err() {
        body.clear();
        let _ = write!(body, "cannot encode the metrics");
        return (axum::http::StatusCode::INTERNAL_SERVER_ERROR, body).into_response();
    }
    ([(header::CONTENT_TYPE, HeaderValue::from_static(content_type))], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nameserver_core::protocol::body::DataVersion;
    use nameserver_core::server::RemovalPath;

    /// Only the broker families, over a view the test builds.
    #[derive(Debug)]
    struct Brokers(NsTables);

    impl Collector for Brokers {
        fn encode(&self, mut enc: DescriptorEncoder<'_>) -> fmt::Result {
            brokers(&mut enc, &self.0, 0)
        }
    }

    #[test]
    fn per_broker_and_per_cluster_families_stop_at_their_bound_and_count_the_rest() {
        let count = MAX_SERIES + 1;
        let tables = NsTables {
            brokers: (0..count)
                .map(|i| LiveRow {
                    cluster: format!("C{i}"),
                    broker_addr: format!("10.0.0.1:{i}"),
                    broker_name: format!("b{i}"),
                    broker_id: 0,
                    ha_server_addr: String::new(),
                    last_update: 0,
                    timeout_ms: 120_000,
                    expires_at: 120_000,
                    data_version: DataVersion { counter: 1, state_version: 0, timestamp: 0 },
                    scan_expire_at: 125_000,
                    idle_close_at: None,
                    removal_at: 125_000,
                    removal_by: RemovalPath::Scan,
                })
                .collect(),
            cluster_addr_table: (0..count).map(|i| (format!("C{i}"), vec![format!("b{i}")])).collect(),
            ..NsTables::default()
        };
        let mut registry = Registry::default();
        registry.register_collector(Box::new(Brokers(tables)));
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        let series = |family: &str| text.lines().filter(|l| l.starts_with(family)).count();
        assert_eq!(series("nameserver_broker_heartbeat_age_seconds{"), 2000);
        assert_eq!(series("nameserver_broker_heartbeat_timeout_seconds{"), 2000);
        assert_eq!(series("nameserver_live_brokers{"), 2000);
        assert!(text.contains("\nnameserver_metric_series_dropped{family=\"broker\"} 1\n"), "{text}");
        assert!(text.contains("\nnameserver_metric_series_dropped{family=\"cluster\"} 1\n"), "{text}");
    }
}
