//! The embedded controller's settings, read from the `-c` file as Java's `NamesrvStartup`
//! reads them (`enableControllerInNamesrv=true`, then Java's `ControllerConfig` keys from the
//! same file), checked before anything listens: a controller asked for but misconfigured is a
//! start-up error naming the key, never a NameServer that starts without it. Java's own traps
//! (a missing group loops on a NullPointerException after a "successful" start; missing peers
//! take the running NameServer down) become that error here.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use nameserver_controller::ControllerConfig;

/// The key that asks for the controller.
pub const ENABLE_KEY: &str = "enableControllerInNamesrv";

/// The keys of Java 5's `ControllerConfig` (DLedger and jRaft), which the embedded controller
/// reads from the NameServer's file; `scanNotActiveBrokerInterval`, `configStorePath`,
/// `configBlackList` and `rocketmqHome` are NameServer keys too, as in Java.
pub const KEYS: [&str; 34] = [
    "controllerType",
    "scanNotActiveBrokerInterval",
    "controllerThreadPoolNums",
    "controllerRequestThreadPoolQueueCapacity",
    "controllerDLegerGroup",
    "controllerDLegerPeers",
    "controllerDLegerSelfId",
    "mappedFileSize",
    "controllerStorePath",
    "electMasterMaxRetryCount",
    "enableElectUncleanMaster",
    "processReadEvent",
    "notifyBrokerRoleChanged",
    "scanInactiveMasterInterval",
    "metricsExporterType",
    "metricsGrpcExporterTarget",
    "metricsGrpcExporterHeader",
    "metricGrpcExporterTimeOutInMills",
    "metricGrpcExporterIntervalInMills",
    "metricLoggingExporterIntervalInMills",
    "metricsPromExporterPort",
    "metricsPromExporterHost",
    "metricsLabel",
    "metricsInDelta",
    "configBlackList",
    "configStorePath",
    "rocketmqHome",
    "jRaftElectionTimeoutMs",
    "jRaftScanWaitTimeoutMs",
    "jRaftSnapshotIntervalSecs",
    "jRaftGroupId",
    "jRaftServerId",
    "jRaftInitConf",
    "jRaftControllerRPCAddr",
];

/// Keys of [`KEYS`] that change nothing here: Java's thread pools, DLedger's file size and
/// the OpenTelemetry exporters (this daemon's metrics are on its console).
fn no_effect(key: &str) -> bool {
    matches!(key, "controllerThreadPoolNums" | "controllerRequestThreadPoolQueueCapacity" | "mappedFileSize")
        || key.starts_with("metric")
}

/// The keys of Java's `NettyServerConfig`: Java's controller gets a copy of the NameServer's
/// (its port replaced by its own), and GET_CONTROLLER_CONFIG lists them.
const SERVER_KEYS: [&str; 18] = [
    "listenPort",
    "bindAddress",
    "serverChannelMaxIdleTimeSeconds",
    "enableShutdownGracefully",
    "serverAsyncSemaphoreValue",
    "serverCallbackExecutorThreads",
    "serverNettyWorkerGroupEnable",
    "serverOnewaySemaphoreValue",
    "serverPooledByteBufAllocatorEnable",
    "serverSelectorThreads",
    "serverSocketBacklog",
    "serverSocketRcvBufSize",
    "serverSocketSndBufSize",
    "serverWorkerThreads",
    "shutdownWaitTimeSeconds",
    "useEpollNativeSelector",
    "writeBufferHighWaterMark",
    "writeBufferLowWaterMark",
];

/// The name of the event log in `controllerStorePath`.
pub const LOG_FILE: &str = "controller-events.log";

/// What the daemon needs to run the controller.
#[derive(Clone, Debug)]
pub struct ControllerSettings {
    /// The controller's keys, typed.
    pub config: ControllerConfig,
    /// `controllerStorePath`: the event log's directory (Java: `~/DLedgerController`).
    pub store_path: PathBuf,
    /// `configStorePath` as the controller's UPDATE_CONTROLLER_CONFIG persists it (Java:
    /// `~/controller/controller.properties`).
    pub config_path: PathBuf,
    /// The port of this controller's own entry in `controllerDLegerPeers`.
    pub port: u16,
    /// Keys accepted with no effect here, for warnings at start.
    pub ignored: Vec<String>,
}

impl ControllerSettings {
    /// Lists the NameServer's server keys and `rocketmqHome` (from `namesrv`, its
    /// GET_NAMESRV_CONFIG listing) beside the controller's, as Java's GET_CONTROLLER_CONFIG
    /// does; `listenPort` is the controller's own.
    pub fn list_server_keys(&mut self, namesrv: &BTreeMap<String, String>) {
        for key in SERVER_KEYS.into_iter().chain(["rocketmqHome"]) {
            if let Some(value) = namesrv.get(key) {
                self.config.server.insert(key.to_string(), value.clone());
            }
        }
        self.config.server.insert(String::from("listenPort"), self.port.to_string());
    }

    /// The event log's path.
    #[must_use]
    pub fn log_path(&self) -> PathBuf {
        self.store_path.join(LOG_FILE)
    }
}

/// A controller setting that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsError {
    /// The key.
    pub key: String,
    /// What is wrong and what to do.
    pub why: String,
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (the embedded controller, {ENABLE_KEY}=true)", self.key, self.why)
    }
}

impl std::error::Error for SettingsError {}

fn error(key: &str, why: impl Into<String>) -> SettingsError {
    SettingsError { key: key.to_string(), why: why.into() }
}

/// The controller's settings from the properties of the `-c` file; `None` when it does not
/// ask for the controller. `home_dir` is Java's `user.home`; `listen_port` the NameServer's.
///
/// # Errors
/// A key the controller needs is missing or does not parse, or names a setup this controller
/// does not run (jRaft, several peers).
pub fn from_properties(
    properties: &BTreeMap<String, String>,
    home_dir: &str,
    listen_port: u16,
) -> Result<Option<ControllerSettings>, SettingsError> {
    let get = |key: &str| properties.get(key).map(|v| v.trim()).filter(|v| !v.is_empty());
    match get(ENABLE_KEY).map(str::to_ascii_lowercase).as_deref() {
        None | Some("false") => return Ok(None),
        Some("true") => {}
        Some(other) => return Err(error(ENABLE_KEY, format!("`{other}` is not true or false"))),
    }
    if let Some(kind) = get("controllerType").filter(|kind| !kind.eq_ignore_ascii_case("DLedger")) {
        return Err(error(
            "controllerType",
            format!(
                "`{kind}` is not served: this controller takes DLedger's keys (controllerDLegerGroup, \
                 controllerDLegerPeers, controllerDLegerSelfId); leave controllerType out or set it to DLedger"
            ),
        ));
    }
    let group = get("controllerDLegerGroup")
        .ok_or_else(|| error("controllerDLegerGroup", "missing: name the controller group (e.g. group1)"))?;
    let peers_text = get("controllerDLegerPeers").ok_or_else(|| {
        error("controllerDLegerPeers", "missing: list the controllers as id-host:port;… (e.g. n0-127.0.0.1:9878)")
    })?;
    let self_id = get("controllerDLegerSelfId").ok_or_else(|| {
        error("controllerDLegerSelfId", "missing: name this controller's entry of controllerDLegerPeers")
    })?;
    let peers = parse_peers(peers_text)?;
    let Some((_, port)) = peers.iter().find(|(id, _)| id == self_id) else {
        let ids: Vec<&str> = peers.iter().map(|(id, _)| id.as_str()).collect();
        return Err(error(
            "controllerDLegerSelfId",
            format!("`{self_id}` is not an id of controllerDLegerPeers ({})", ids.join(", ")),
        ));
    };
    if peers.len() > 1 {
        return Err(error(
            "controllerDLegerPeers",
            format!(
                "{} controllers are listed; this release runs one controller alone (its log is not replicated), and \
                 several would each elect masters on their own: list only this one (`{self_id}-…`)",
                peers.len()
            ),
        ));
    }
    if *port != 0 && *port == listen_port {
        return Err(error(
            "controllerDLegerPeers",
            format!("the port of `{self_id}` ({port}) is the NameServer's listenPort; the controller needs its own"),
        ));
    }
    let mut config = ControllerConfig::default();
    let mut ignored = Vec::new();
    for key in KEYS {
        let Some(value) = properties.get(key) else { continue };
        check_value(key, value.trim())?;
        if no_effect(key) {
            ignored.push(format!("{key}={value} is accepted but has no effect on this controller"));
        }
        config.set(key, value.trim());
    }
    // Java's controller lists every key of the file, its own or not (GET_CONTROLLER_CONFIG).
    for (key, value) in properties.iter().filter(|(key, _)| !KEYS.contains(&key.as_str())) {
        config.others.insert(key.clone(), value.trim().to_string());
    }
    config.set("controllerDLegerGroup", group);
    let store_path =
        get("controllerStorePath").map_or_else(|| PathBuf::from(home_dir).join("DLedgerController"), PathBuf::from);
    let config_path = get("configStorePath")
        .map_or_else(|| PathBuf::from(home_dir).join("controller").join("controller.properties"), PathBuf::from);
    config.set("controllerStorePath", &store_path.display().to_string());
    config.set("configStorePath", &config_path.display().to_string());
    Ok(Some(ControllerSettings { config, store_path, config_path, port: *port, ignored }))
}

/// `id-host:port;…`, each id once, each port a number.
fn parse_peers(text: &str) -> Result<Vec<(String, u16)>, SettingsError> {
    let key = "controllerDLegerPeers";
    let mut peers: Vec<(String, u16)> = Vec::new();
    for entry in text.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let bad = |why: &str| error(key, format!("`{entry}` {why} (entries are id-host:port, e.g. n0-127.0.0.1:9878)"));
        let (id, addr) = entry.split_once('-').ok_or_else(|| bad("has no id"))?;
        let (_, port) = addr.rsplit_once(':').ok_or_else(|| bad("has no port"))?;
        let port: u16 = port.parse().map_err(|_| bad("has no port number"))?;
        if id.is_empty() {
            return Err(bad("has no id"));
        }
        if peers.iter().any(|(seen, _)| seen == id) {
            return Err(bad("repeats an id"));
        }
        peers.push((id.to_string(), port));
    }
    if peers.is_empty() {
        return Err(error(key, "lists no controller"));
    }
    Ok(peers)
}

/// Refuses a value the controller would read as something else: Java ignores a number that
/// does not parse and takes anything but `true` as false.
fn check_value(key: &str, value: &str) -> Result<(), SettingsError> {
    match key {
        "scanNotActiveBrokerInterval" | "scanInactiveMasterInterval" => match value.parse::<u64>() {
            Ok(ms) if ms > 0 => Ok(()),
            _ => Err(error(key, format!("`{value}` is not a period in milliseconds (1 or more)"))),
        },
        "electMasterMaxRetryCount" => match value.parse::<u32>() {
            Ok(n) if n > 0 => Ok(()),
            _ => Err(error(key, format!("`{value}` is not a number of attempts (1 or more)"))),
        },
        "enableElectUncleanMaster" | "notifyBrokerRoleChanged" | "processReadEvent" => {
            if value.eq_ignore_ascii_case("true") || value.eq_ignore_ascii_case("false") {
                Ok(())
            } else {
                Err(error(key, format!("`{value}` is not true or false")))
            }
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect()
    }

    const GOOD: [(&str, &str); 4] = [
        (ENABLE_KEY, "true"),
        ("controllerDLegerGroup", "group1"),
        ("controllerDLegerPeers", "n0-127.0.0.1:9878"),
        ("controllerDLegerSelfId", "n0"),
    ];

    fn with(changes: &[(&str, &str)]) -> Result<Option<ControllerSettings>, SettingsError> {
        let mut all = props(&GOOD);
        for (key, value) in changes {
            all.insert((*key).to_string(), (*value).to_string());
        }
        from_properties(&all, "/home/u", 9876)
    }

    fn key_of(changes: &[(&str, &str)]) -> String {
        with(changes).unwrap_err().key
    }

    #[test]
    fn a_good_file_gives_the_port_paths_and_typed_keys() {
        assert!(from_properties(&props(&[]), "/h", 9876).unwrap().is_none());
        assert!(with(&[(ENABLE_KEY, "FALSE")]).unwrap().is_none());
        let settings = with(&[("enableElectUncleanMaster", "true"), ("mappedFileSize", "1024")]).unwrap().unwrap();
        assert_eq!(settings.port, 9878);
        assert_eq!(settings.store_path, PathBuf::from("/home/u/DLedgerController"));
        assert_eq!(settings.config_path, PathBuf::from("/home/u/controller/controller.properties"));
        assert!(settings.config.enable_elect_unclean_master);
        assert_eq!((settings.config.group.as_str(), settings.config.self_id.as_str()), ("group1", "n0"));
        assert_eq!(settings.ignored.len(), 1, "{:?}", settings.ignored);
        assert_eq!(settings.log_path(), PathBuf::from("/home/u/DLedgerController").join(LOG_FILE));
        let mut listed = with(&[("kvConfigPath", "/k")]).unwrap().unwrap();
        let namesrv = props(&[("listenPort", "9876"), ("serverWorkerThreads", "8"), ("orderMessageEnable", "false")]);
        listed.list_server_keys(&namesrv);
        let all = listed.config.to_properties();
        assert_eq!((all["kvConfigPath"].as_str(), all[ENABLE_KEY].as_str()), ("/k", "true"));
        assert_eq!((all["listenPort"].as_str(), all["serverWorkerThreads"].as_str()), ("9878", "8"));
        assert!(!all.contains_key("orderMessageEnable"), "not a controller or server key");
        let stored = with(&[("controllerStorePath", "/data/ctl")]).unwrap().unwrap();
        assert_eq!(stored.store_path, PathBuf::from("/data/ctl"));
    }

    #[test]
    fn every_misconfiguration_names_its_key() {
        let without = |key: &str| {
            let mut all = props(&GOOD);
            all.remove(key);
            from_properties(&all, "/h", 9876).unwrap_err().key
        };
        for key in ["controllerDLegerGroup", "controllerDLegerPeers", "controllerDLegerSelfId"] {
            assert_eq!(without(key), key);
        }
        assert_eq!(key_of(&[("controllerDLegerGroup", "  ")]), "controllerDLegerGroup");
        assert_eq!(key_of(&[(ENABLE_KEY, "yes")]), ENABLE_KEY);
        assert_eq!(key_of(&[("controllerType", "jRaft")]), "controllerType");
        assert_eq!(key_of(&[("controllerDLegerSelfId", "n1")]), "controllerDLegerSelfId");
        for peers in ["n0", "n0-127.0.0.1", "n0-127.0.0.1:port", "-127.0.0.1:1", ";"] {
            assert_eq!(key_of(&[("controllerDLegerPeers", peers)]), "controllerDLegerPeers", "{peers}");
        }
        let three = "n0-127.0.0.1:9878;n1-127.0.0.1:9868;n2-127.0.0.1:9858";
        let error = with(&[("controllerDLegerPeers", three)]).unwrap_err();
        assert!(error.key == "controllerDLegerPeers" && error.why.contains("3 controllers"), "{error}");
        assert_eq!(key_of(&[("controllerDLegerPeers", "n0-127.0.0.1:9876")]), "controllerDLegerPeers");
        assert_eq!(key_of(&[("scanInactiveMasterInterval", "soon")]), "scanInactiveMasterInterval");
        assert_eq!(key_of(&[("scanNotActiveBrokerInterval", "0")]), "scanNotActiveBrokerInterval");
        assert_eq!(key_of(&[("electMasterMaxRetryCount", "-1")]), "electMasterMaxRetryCount");
        assert_eq!(key_of(&[("enableElectUncleanMaster", "yes")]), "enableElectUncleanMaster");
        let shown = with(&[("controllerDLegerGroup", "")]).unwrap_err().to_string();
        assert!(shown.starts_with("controllerDLegerGroup: missing") && shown.contains(ENABLE_KEY), "{shown}");
    }
}
