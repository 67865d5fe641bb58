//! The embedded controller on the console: `/api/controller` (each broker group's master,
//! epochs and sync-state set, as the controller's owner last published them) and its
//! `/metrics` series, named as Java's controller names its own (`rocketmq_controller_*`).

use std::fmt;

use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric as _};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

use crate::observe::{BrokerGroupView, ControllerView, Observer};

/// One per-group series' value.
type GroupValue = fn(&BrokerGroupView) -> i64;

/// `/api/controller`'s body: the view, or `{"enabled":false}` when no controller runs.
pub(crate) fn body(observer: &Observer) -> String {
    match observer.controller.load_full() {
        Some(view) => serde_json::to_string(&Enabled { enabled: true, view: &view }).unwrap_or_default(),
        None => String::from(r#"{"enabled":false}"#),
    }
}

#[derive(serde::Serialize)]
struct Enabled<'a> {
    enabled: bool,
    #[serde(flatten)]
    view: &'a ControllerView,
}

/// The controller's series, when it runs; each per-group family at most `max_series` series.
pub(crate) fn encode(enc: &mut DescriptorEncoder<'_>, observer: &Observer, max_series: usize) -> fmt::Result {
    let Some(view) = observer.controller.load_full() else { return Ok(()) };
    let gauge = |enc: &mut DescriptorEncoder<'_>, name: &str, help: &str, value: i64| {
        let metric = ConstGauge::new(value);
        metric.encode(enc.encode_descriptor(name, help, None, MetricType::Gauge)?)
    };
    gauge(
        enc,
        "rocketmq_controller_active_broker_num",
        "Brokers whose heartbeats to this controller have not expired",
        i64::try_from(view.active_brokers).unwrap_or(i64::MAX),
    )?;
    gauge(enc, "rocketmq_controller_role", "1: this controller leads its group", i64::from(view.is_leader))?;
    let mut elections = enc.encode_descriptor(
        "rocketmq_controller_election",
        "Elections committed since start, by result (a failed one still raises the master epoch)",
        None,
        MetricType::Counter,
    )?;
    let counts = view.elections;
    for (result, count) in [
        ("new_master_elected", counts.new_master_elected),
        ("keep_current_master", counts.keep_current_master),
        ("no_master_elected", counts.no_master_elected),
    ] {
        ConstCounter::new(count).encode(elections.encode_family(&[("result", result)])?)?;
    }
    let families: [(&str, &str, GroupValue); 4] = [
        ("rocketmq_controller_master_epoch", "The broker group's master epoch (raised by every election)", |g| {
            i64::from(g.master_epoch)
        }),
        ("rocketmq_controller_sync_state_set_epoch", "The broker group's sync-state set epoch", |g| {
            i64::from(g.sync_state_set_epoch)
        }),
        ("rocketmq_controller_sync_state_set_num", "Replicas in the broker group's sync-state set", |g| {
            i64::try_from(g.sync_state_set.len()).unwrap_or(i64::MAX)
        }),
        ("rocketmq_controller_has_master", "1: the broker group has a master", |g| i64::from(g.master_id.is_some())),
    ];
    for (name, help, value) in families {
        let mut family = enc.encode_descriptor(name, help, None, MetricType::Gauge)?;
        for group in view.broker_groups.iter().take(max_series) {
            let labels = [("cluster", group.cluster.as_deref().unwrap_or("")), ("broker", group.broker_name.as_str())];
            ConstGauge::new(value(group)).encode(family.encode_family(&labels)?)?;
        }
    }
    Ok(())
}
