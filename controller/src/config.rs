//! The controller's configuration (Java's `ControllerConfig`): the keys that drive this
//! crate, typed, beside every other key as text, for GET/UPDATE_CONTROLLER_CONFIG.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Keys no remote update may change, whatever `configBlackList` says.
pub const FIXED_BLACK_LIST: [&str; 3] = ["configBlackList", "configStorePath", "rocketmqHome"];

/// Java 5.5.0's `ControllerConfig` keys this controller does not read (thread pools, DLedger's
/// file size, the OpenTelemetry exporters), with Java's defaults: GET_CONTROLLER_CONFIG lists
/// them as Java's does.
pub const LISTED_ONLY: [(&str, &str); 14] = [
    ("controllerType", "DLedger"),
    ("controllerThreadPoolNums", "16"),
    ("controllerRequestThreadPoolQueueCapacity", "50000"),
    ("mappedFileSize", "1073741824"),
    ("metricsExporterType", "DISABLE"),
    ("metricsGrpcExporterTarget", ""),
    ("metricsGrpcExporterHeader", ""),
    ("metricGrpcExporterTimeOutInMills", "3000"),
    ("metricGrpcExporterIntervalInMills", "60000"),
    ("metricLoggingExporterIntervalInMills", "10000"),
    ("metricsPromExporterPort", "5557"),
    ("metricsPromExporterHost", ""),
    ("metricsLabel", ""),
    ("metricsInDelta", "false"),
];

/// The typed keys and the rest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControllerConfig {
    /// `scanNotActiveBrokerInterval` (ms): the heartbeat scan's period.
    pub scan_not_active_broker_interval: u64,
    /// `scanInactiveMasterInterval` (ms): the leader's dead-master scan period.
    pub scan_inactive_master_interval: u64,
    /// `electMasterMaxRetryCount`: attempts of a controller-triggered election.
    pub elect_master_max_retry_count: u32,
    /// `enableElectUncleanMaster`: elect outside the sync-state set when it has no one alive.
    pub enable_elect_unclean_master: bool,
    /// `notifyBrokerRoleChanged`: send 1008 after an election.
    pub notify_broker_role_changed: bool,
    /// `processReadEvent` (field `isProcessReadEvent`): reads go through the log too.
    pub process_read_event: bool,
    /// `controllerDLegerGroup`.
    pub group: String,
    /// `controllerDLegerPeers`: `n0-127.0.0.1:9878;n1-…`.
    pub peers: String,
    /// `controllerDLegerSelfId`.
    pub self_id: String,
    /// `configBlackList`: `;`-separated keys remote updates may not change.
    pub config_black_list: String,
    /// Every other key, as the start-up file or an update gave it.
    pub others: BTreeMap<String, String>,
    /// Listed under every other key and never written: [`LISTED_ONLY`]'s defaults.
    pub defaults: BTreeMap<String, String>,
    /// Listed over the start-up file's keys and never written: the server keys Java's
    /// controller lists from its `NettyServerConfig` (`listenPort` its own port), and
    /// `rocketmqHome`. Written, `listenPort` would move a NameServer sharing the file.
    pub server: BTreeMap<String, String>,
}

impl Default for ControllerConfig {
    /// Java's defaults.
    fn default() -> Self {
        Self {
            scan_not_active_broker_interval: 5_000,
            scan_inactive_master_interval: 5_000,
            elect_master_max_retry_count: 3,
            enable_elect_unclean_master: false,
            notify_broker_role_changed: true,
            process_read_event: false,
            group: String::new(),
            peers: String::new(),
            self_id: String::new(),
            config_black_list: String::from("configBlackList;configStorePath"),
            others: BTreeMap::new(),
            defaults: LISTED_ONLY.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            server: BTreeMap::new(),
        }
    }
}

impl ControllerConfig {
    /// Sets one key as Java's `properties2Object` would: a typed key takes the value only if
    /// it parses, and every key is kept as text too.
    pub fn set(&mut self, key: &str, value: &str) {
        let num = || value.trim().parse::<u64>().ok();
        // Java's `Boolean.parseBoolean`: anything but "true" is false.
        let flag = || Some(value.trim().eq_ignore_ascii_case("true"));
        match key {
            "scanNotActiveBrokerInterval" => set_if(&mut self.scan_not_active_broker_interval, num()),
            "scanInactiveMasterInterval" => set_if(&mut self.scan_inactive_master_interval, num()),
            "electMasterMaxRetryCount" => {
                set_if(&mut self.elect_master_max_retry_count, value.trim().parse::<u32>().ok());
            }
            "enableElectUncleanMaster" => set_if(&mut self.enable_elect_unclean_master, flag()),
            "notifyBrokerRoleChanged" => set_if(&mut self.notify_broker_role_changed, flag()),
            "processReadEvent" => set_if(&mut self.process_read_event, flag()),
            "controllerDLegerGroup" => self.group = value.to_string(),
            "controllerDLegerPeers" => self.peers = value.to_string(),
            "controllerDLegerSelfId" => self.self_id = value.to_string(),
            "configBlackList" => self.config_black_list = value.to_string(),
            _ => {}
        }
        self.others.insert(key.to_string(), value.to_string());
    }

    /// Whether a remote update may not change `key`.
    #[must_use]
    pub fn is_black_listed(&self, key: &str) -> bool {
        FIXED_BLACK_LIST.contains(&key) || self.config_black_list.split(';').any(|k| k.trim() == key)
    }

    /// Every key as GET_CONTROLLER_CONFIG lists it: the defaults, the stored text, the server
    /// keys, then the typed fields under Java's field names (`isProcessReadEvent`, quirk Q14).
    #[must_use]
    pub fn to_properties(&self) -> BTreeMap<String, String> {
        let mut all = self.defaults.clone();
        all.extend(self.others.iter().chain(&self.server).map(|(k, v)| (k.clone(), v.clone())));
        all.extend(self.typed());
        all
    }

    /// What UPDATE_CONTROLLER_CONFIG writes: the stored text overlaid by the typed fields.
    #[must_use]
    pub fn to_persisted(&self) -> BTreeMap<String, String> {
        let mut all = self.others.clone();
        all.extend(self.typed());
        all
    }

    fn typed(&self) -> [(String, String); 10] {
        [
            ("scanNotActiveBrokerInterval", self.scan_not_active_broker_interval.to_string()),
            ("scanInactiveMasterInterval", self.scan_inactive_master_interval.to_string()),
            ("electMasterMaxRetryCount", self.elect_master_max_retry_count.to_string()),
            ("enableElectUncleanMaster", self.enable_elect_unclean_master.to_string()),
            ("notifyBrokerRoleChanged", self.notify_broker_role_changed.to_string()),
            ("isProcessReadEvent", self.process_read_event.to_string()),
            ("controllerDLegerGroup", self.group.clone()),
            ("controllerDLegerPeers", self.peers.clone()),
            ("controllerDLegerSelfId", self.self_id.clone()),
            ("configBlackList", self.config_black_list.clone()),
        ]
        .map(|(key, value)| (key.to_string(), value))
    }

    /// The peers of `controllerDLegerPeers`, `(id, address)`, in id order.
    #[must_use]
    pub fn peer_list(&self) -> Vec<(String, String)> {
        let mut peers: BTreeMap<String, String> = BTreeMap::new();
        for peer in self.peers.split(';').filter(|p| !p.trim().is_empty()) {
            if let Some((id, addr)) = peer.trim().split_once('-') {
                peers.insert(id.to_string(), addr.to_string());
            }
        }
        peers.into_iter().collect()
    }
}

fn set_if<T>(field: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *field = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_keys_parse_and_every_key_is_listed() {
        let mut config = ControllerConfig::default();
        config.set("enableElectUncleanMaster", "true");
        config.set("scanInactiveMasterInterval", "soon");
        config.set("processReadEvent", "true");
        assert!(config.enable_elect_unclean_master);
        assert_eq!(config.scan_inactive_master_interval, 5_000);
        let all = config.to_properties();
        assert_eq!(all["scanInactiveMasterInterval"], "5000");
        assert_eq!(all["isProcessReadEvent"], "true");
        assert_eq!((all["controllerType"].as_str(), all["metricsPromExporterPort"].as_str()), ("DLedger", "5557"));
        config.server.insert(String::from("listenPort"), String::from("9878"));
        config.set("listenPort", "9876");
        assert_eq!(config.to_properties()["listenPort"], "9878", "the controller's own port is listed");
        let written = config.to_persisted();
        assert_eq!(written["listenPort"], "9876", "the file's is written");
        assert!(!written.contains_key("controllerType"), "defaults are not written");
        assert!(config.is_black_listed("rocketmqHome") && config.is_black_listed("configStorePath"));
        assert!(!config.is_black_listed("enableElectUncleanMaster"));
        config.set("controllerDLegerPeers", "n1-127.0.0.1:9868;n0-127.0.0.1:9878");
        assert_eq!(config.peer_list()[0], (String::from("n0"), String::from("127.0.0.1:9878")));
    }
}
