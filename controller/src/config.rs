//! The controller's configuration (Java's `ControllerConfig`): the keys that drive this
//! crate, typed, beside every other key as text, for GET/UPDATE_CONTROLLER_CONFIG.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use nameserver_core::config::RemoteConfig;

/// Keys no remote update may change, whatever `configBlackList` says.
pub const FIXED_BLACK_LIST: [&str; 3] = ["configBlackList", "configStorePath", "rocketmqHome"];

/// Keys this controller reads as it runs (each scan, election or reply): the only ones a remote
/// update may change under `--remote-config runtime`.
pub const RUNTIME_UPDATABLE: [&str; 6] = [
    "scanNotActiveBrokerInterval",
    "scanInactiveMasterInterval",
    "electMasterMaxRetryCount",
    "enableElectUncleanMaster",
    "notifyBrokerRoleChanged",
    "processReadEvent",
];

/// Why UPDATE_CONTROLLER_CONFIG refuses an update (nothing of it is applied).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UpdateRefusal {
    /// A black-listed key, or one `--remote-config` keeps from remote updates (Java's
    /// NO_PERMISSION and remark).
    BlackListed(String),
    /// A value the key's type cannot hold: Java would keep the old value and write the new
    /// text, so the file would say what the controller does not do.
    InvalidValue {
        /// The key.
        key: String,
        /// The value sent.
        value: String,
        /// What it takes.
        expected: &'static str,
    },
}

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
    /// Which keys UPDATE_CONTROLLER_CONFIG may change: the daemon's `--remote-config`. Not a
    /// Java key, never listed or written; Java's behaviour ([`RemoteConfig::All`]) by default.
    pub remote_config: RemoteConfig,
    /// Whether an election may replace a master (a group's first election always takes
    /// place). Not a Java key, never listed or written: false only under the daemon's
    /// test-build switch `--test-no-failover`, with which the failover test must fail.
    pub replace_masters: bool,
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
            remote_config: RemoteConfig::All,
            replace_masters: true,
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

    /// Whether UPDATE_CONTROLLER_CONFIG may apply `entries` under `remote`: with
    /// [`RemoteConfig::All`] every key but the black-listed ones, as Java; with `Runtime` only
    /// [`RUNTIME_UPDATABLE`] keys, each with a value of its type (a peer list, a store path or
    /// `listenPort` would otherwise be persisted by anyone who reaches the port and take
    /// effect at the next start); with `Off` none.
    ///
    /// # Errors
    /// The first key refused, and why.
    pub fn check_update(&self, entries: &BTreeMap<String, String>, remote: RemoteConfig) -> Result<(), UpdateRefusal> {
        if let Some(key) = entries.keys().find(|key| self.is_black_listed(key)) {
            return Err(UpdateRefusal::BlackListed(key.clone()));
        }
        if remote == RemoteConfig::All {
            return Ok(());
        }
        if let Some(key) =
            entries.keys().find(|key| remote == RemoteConfig::Off || !RUNTIME_UPDATABLE.contains(&key.as_str()))
        {
            return Err(UpdateRefusal::BlackListed(key.clone()));
        }
        for (key, value) in entries {
            let text = value.trim();
            let expected = match key.as_str() {
                "electMasterMaxRetryCount" if text.parse::<u32>().is_err() => Some("a whole number up to 4294967295"),
                "scanNotActiveBrokerInterval" | "scanInactiveMasterInterval" if text.parse::<u64>().is_err() => {
                    Some("a whole number of milliseconds")
                }
                "enableElectUncleanMaster" | "notifyBrokerRoleChanged" | "processReadEvent"
                    if !text.eq_ignore_ascii_case("true") && !text.eq_ignore_ascii_case("false") =>
                {
                    Some("true or false")
                }
                _ => None,
            };
            if let Some(expected) = expected {
                return Err(UpdateRefusal::InvalidValue { key: key.clone(), value: value.clone(), expected });
            }
        }
        Ok(())
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
    fn remote_updates_follow_the_remote_config_setting() {
        let config = ControllerConfig::default();
        let one = |k: &str, v: &str| BTreeMap::from([(k.to_string(), v.to_string())]);
        let refused = |k: &str| Err(UpdateRefusal::BlackListed(k.to_string()));
        for key in ["listenPort", "controllerDLegerPeers", "controllerStorePath", "mappedFileSize", "noSuchKey"] {
            assert_eq!(config.check_update(&one(key, "1"), RemoteConfig::Runtime), refused(key), "{key}");
            assert_eq!(config.check_update(&one(key, "1"), RemoteConfig::All), Ok(()), "{key} as in Java");
        }
        for (key, good, bad) in [
            ("scanNotActiveBrokerInterval", "5000", "-1"),
            ("electMasterMaxRetryCount", "3", "4294967296"),
            ("enableElectUncleanMaster", "TRUE", "yes"),
        ] {
            assert_eq!(config.check_update(&one(key, good), RemoteConfig::Runtime), Ok(()), "{key}={good}");
            assert!(
                matches!(
                    config.check_update(&one(key, bad), RemoteConfig::Runtime),
                    Err(UpdateRefusal::InvalidValue { .. })
                ),
                "{key}={bad}"
            );
            assert_eq!(config.check_update(&one(key, good), RemoteConfig::Off), refused(key), "{key}: off");
        }
        for mode in [RemoteConfig::Off, RemoteConfig::Runtime, RemoteConfig::All] {
            assert_eq!(config.check_update(&one("configBlackList", "x"), mode), refused("configBlackList"));
        }
    }

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
