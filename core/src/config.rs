//! The NameServer's configuration: NamesrvConfig and NettyServerConfig keys (PROTOCOL.md §12).
//!
//! One [`Config`] holds every key the Java NameServer knows, with Java's defaults. The keys the
//! core acts on are typed fields; the rest are kept as text so GET_NAMESRV_CONFIG shows them.
//! [`Config::update_remotely`] is the UPDATE_NAMESRV_CONFIG policy: every NamesrvConfig and
//! NettyServerConfig key Java accepts, never a key that names a path, a home directory or the
//! list itself (CVE-2023-33246, CVE-2023-37582), and never a key Java does not know.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use core::ops::RangeInclusive;
use core::time::Duration;

use crate::time::millis;

/// Keys refused remotely whatever `configBlackList` says.
pub const FIXED_BLACK_LIST: [&str; 4] = ["configBlackList", "configStorePath", "kvConfigPath", "rocketmqHome"];

/// Keys that take effect as soon as UPDATE_NAMESRV_CONFIG changes them: switches read on every
/// request or scan.
pub const RUNTIME_UPDATABLE: [&str; 11] = [
    "deleteTopicWithBrokerRegistration",
    "enableAllTopicList",
    "enableTopicList",
    "needWaitForService",
    "notifyMinBrokerIdChanged",
    "orderMessageEnable",
    "productEnvName",
    "returnOrderTopicConfigToBroker",
    "scanNotActiveBrokerInterval",
    "supportActingMaster",
    "waitSecondsForService",
];

/// Keys the daemon reads only when it starts: a remote change is kept and persisted, and
/// applies after a restart.
pub const RESTART_ONLY: [&str; 5] = [
    "bindAddress",
    "enableShutdownGracefully",
    "listenPort",
    "serverChannelMaxIdleTimeSeconds",
    "shutdownWaitTimeSeconds",
];

/// Which keys UPDATE_NAMESRV_CONFIG (318) may change, on top of the black list: the daemon's
/// `--remote-config`. A key refused here is refused as if black-listed (16, Java's remark).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RemoteConfig {
    /// No key: the configuration changes only in its file.
    Off,
    /// Keys that take effect at once; a change awaiting a restart ([`RESTART_ONLY`]) would move
    /// or break the daemon unseen at its next start.
    Runtime,
    /// Every key Java accepts (Java's behaviour, and the simulation's).
    #[default]
    All,
}

impl RemoteConfig {
    /// Whether this setting lets a remote update change `key` (the black list aside).
    #[must_use]
    pub fn allows(self, key: &str) -> bool {
        match self {
            Self::Off => false,
            Self::Runtime => !RESTART_ONLY.contains(&key),
            Self::All => true,
        }
    }
}

impl core::str::FromStr for RemoteConfig {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "off" => Ok(Self::Off),
            "runtime" => Ok(Self::Runtime),
            "all" => Ok(Self::All),
            other => Err(alloc::format!("`{other}` is not one of off, runtime, all")),
        }
    }
}

/// Java's behaviour ([`RemoteConfig::All`]) hashes as nothing, so states hash as they did
/// before the setting existed (the simulation's golden hashes).
impl core::hash::Hash for RemoteConfig {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        if *self != Self::All {
            core::mem::discriminant(self).hash(state);
        }
    }
}

/// How a key accepted by UPDATE_NAMESRV_CONFIG takes effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyEffect {
    /// At once ([`RUNTIME_UPDATABLE`]).
    Now,
    /// After a restart ([`RESTART_ONLY`]).
    AfterRestart,
    /// Never here: a Java thread-pool or Netty knob, or a feature not implemented; kept so
    /// GET_NAMESRV_CONFIG shows it.
    NoEffect,
}

/// Java NettyServerConfig keys the core does not act on, with their 5.x defaults.
const NETTY_PASSTHROUGH: [(&str, &str); 15] = [
    ("enableShutdownGracefully", "false"),
    ("serverAsyncSemaphoreValue", "64"),
    ("serverCallbackExecutorThreads", "0"),
    ("serverNettyWorkerGroupEnable", "true"),
    ("serverOnewaySemaphoreValue", "256"),
    ("serverPooledByteBufAllocatorEnable", "true"),
    ("serverSelectorThreads", "3"),
    ("serverSocketBacklog", "1024"),
    ("serverSocketRcvBufSize", "0"),
    ("serverSocketSndBufSize", "0"),
    ("serverWorkerThreads", "8"),
    ("shutdownWaitTimeSeconds", "30"),
    ("useEpollNativeSelector", "false"),
    ("writeBufferHighWaterMark", "0"),
    ("writeBufferLowWaterMark", "0"),
];

/// Java NamesrvConfig keys the core does not act on, with their 5.x defaults.
const NAMESRV_PASSTHROUGH: [(&str, &str); 7] = [
    ("clientRequestThreadPoolNums", "8"),
    ("clientRequestThreadPoolQueueCapacity", "50000"),
    ("clusterTest", "false"),
    ("defaultThreadPoolNums", "16"),
    ("defaultThreadPoolQueueCapacity", "10000"),
    ("enableControllerInNamesrv", "false"),
    ("unRegisterBrokerQueueCapacity", "3000"),
];

/// The largest Java `int`: the type of the seconds keys (`serverChannelMaxIdleTimeSeconds`,
/// `shutdownWaitTimeSeconds`, `waitSecondsForService`) and of every NettyServerConfig and
/// NamesrvConfig number kept as text.
const JAVA_INT: RangeInclusive<i64> = (i32::MIN as i64)..=(i32::MAX as i64);
/// Seconds as a Java `int`, where a negative number means nothing here.
const INT_SECONDS: RangeInclusive<i64> = 0..=(i32::MAX as i64);
/// Milliseconds as a Java `long` that a scheduler accepts as a period.
const LONG_PERIOD: RangeInclusive<i64> = 1..=i64::MAX;

/// The range Java's type allows for a numeric key. Outside it a remote update is refused and a
/// file read at start is clamped ([`Config::set_clamped`]): past it, deadlines overflow.
fn java_range(key: &str) -> Option<RangeInclusive<i64>> {
    match key {
        "serverChannelMaxIdleTimeSeconds" | "shutdownWaitTimeSeconds" | "waitSecondsForService" => Some(INT_SECONDS),
        "scanNotActiveBrokerInterval" => Some(LONG_PERIOD),
        _ => match passthrough_default(key) {
            Some(default) if default.parse::<i64>().is_ok() => Some(JAVA_INT),
            _ => None,
        },
    }
}

/// What a numeric value is, against its key's range.
enum Number {
    In(i64),
    /// An integer outside the range (also one too long for any integer type), with the end
    /// of the range it lies beyond.
    Out(i64),
    NotInteger,
}

fn number_in(value: &str, range: &RangeInclusive<i64>) -> Number {
    let digits = value.strip_prefix(['-', '+']).unwrap_or(value);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Number::NotInteger;
    }
    let below = value.starts_with('-');
    match value.parse::<i64>() {
        Ok(n) if range.contains(&n) => Number::In(n),
        Ok(n) if n < *range.start() => Number::Out(*range.start()),
        Ok(_) => Number::Out(*range.end()),
        Err(_) if below => Number::Out(*range.start()),
        Err(_) => Number::Out(*range.end()),
    }
}

/// Why a configuration value was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// The value does not parse as the key's type or is out of range.
    InvalidValue {
        /// The key.
        key: String,
        /// The offending value.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// An integer outside the range of the key's Java type.
    OutOfRange {
        /// The key.
        key: String,
        /// The offending value.
        value: String,
        /// The smallest value allowed.
        min: i64,
        /// The largest value allowed.
        max: i64,
    },
    /// A remote update named a black-listed key (Java's remark, word for word).
    BlackListed(String),
    /// A remote update named a key that is neither a NamesrvConfig nor a NettyServerConfig key.
    UnknownKey(String),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidValue { key, value, expected } => {
                write!(f, "invalid value `{value}` for {key}: expected {expected}")
            }
            Self::OutOfRange { key, value, min, max } => {
                write!(f, "invalid value `{value}` for {key}: expected an integer from {min} to {max}")
            }
            Self::BlackListed(_) => f.write_str("Can not update config in black list."),
            Self::UnknownKey(key) => {
                write!(f, "Can not update config {key}: not a NamesrvConfig or NettyServerConfig key")
            }
        }
    }
}

impl core::error::Error for ConfigError {}

/// Every setting of one NameServer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// `rocketmqHome`: install directory (black-listed).
    pub rocketmq_home: String,
    /// `kvConfigPath`: where the KV table persists (black-listed).
    pub kv_config_path: String,
    /// `configStorePath`: where config updates persist (black-listed).
    pub config_store_path: String,
    /// `configBlackList`: `;`-separated keys refused remotely, on top of [`FIXED_BLACK_LIST`].
    pub config_black_list: String,
    /// `productEnvName`.
    pub product_env_name: String,
    /// `orderMessageEnable`: add `orderTopicConf` to routes.
    pub order_message_enable: bool,
    /// `returnOrderTopicConfigToBroker`: KVTable body on REGISTER_BROKER replies.
    pub return_order_topic_config_to_broker: bool,
    /// `scanNotActiveBrokerInterval`: period of the expiry scan.
    pub scan_not_active_broker_interval: Duration,
    /// `supportActingMaster`.
    pub support_acting_master: bool,
    /// `enableAllTopicList` (code 206).
    pub enable_all_topic_list: bool,
    /// `enableTopicList` (codes 224, 311–313).
    pub enable_topic_list: bool,
    /// `notifyMinBrokerIdChanged`.
    pub notify_min_broker_id_changed: bool,
    /// `needWaitForService`.
    pub need_wait_for_service: bool,
    /// `waitSecondsForService`.
    pub wait_seconds_for_service: u64,
    /// `deleteTopicWithBrokerRegistration`.
    pub delete_topic_with_broker_registration: bool,
    /// `listenPort` (9876, set by the launcher in Java).
    pub listen_port: u16,
    /// `bindAddress`.
    pub bind_address: String,
    /// `serverChannelMaxIdleTimeSeconds`: idle connections close after this long.
    pub server_channel_max_idle_time_seconds: u64,
    /// Keys kept as text: Java keys without effect here, and unknown keys from the file.
    pub passthrough: BTreeMap<String, String>,
}

impl Config {
    /// Java's 5.x defaults, with paths under `home_dir` (Java: `user.home`) and
    /// `rocketmq_home` as given.
    #[must_use]
    pub fn java_defaults(home_dir: &str, rocketmq_home: &str) -> Self {
        let passthrough = NETTY_PASSTHROUGH
            .iter()
            .chain(NAMESRV_PASSTHROUGH.iter())
            .map(|(k, v)| (String::from(*k), String::from(*v)))
            .collect();
        Self {
            rocketmq_home: String::from(rocketmq_home),
            kv_config_path: alloc::format!("{home_dir}/namesrv/kvConfig.json"),
            config_store_path: alloc::format!("{home_dir}/namesrv/namesrv.properties"),
            config_black_list: String::from("configBlackList;configStorePath;kvConfigPath"),
            product_env_name: String::from("center"),
            order_message_enable: false,
            return_order_topic_config_to_broker: true,
            scan_not_active_broker_interval: Duration::from_millis(5000),
            support_acting_master: false,
            enable_all_topic_list: true,
            enable_topic_list: true,
            notify_min_broker_id_changed: false,
            need_wait_for_service: false,
            wait_seconds_for_service: 45,
            delete_topic_with_broker_registration: false,
            listen_port: 9876,
            bind_address: String::from("0.0.0.0"),
            server_channel_max_idle_time_seconds: 120,
            passthrough,
        }
    }

    /// Sets one key as a properties file would (unknown keys are remembered as text).
    ///
    /// # Errors
    /// A value that does not parse as the key's type, or a number outside the range of its
    /// Java type ([`ConfigError::OutOfRange`]).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let value = value.trim();
        let invalid = |expected| ConfigError::InvalidValue { key: key.to_string(), value: value.to_string(), expected };
        let flag = |v: &str| match v.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(invalid("true or false")),
        };
        // Every number this type acts on has a range (`java_range`); the rest are text.
        let number = |v: &str| -> Result<u64, ConfigError> {
            let range = java_range(key).unwrap_or(0..=i64::MAX);
            match number_in(v, &range) {
                Number::In(n) => u64::try_from(n).map_err(|_| invalid("a non-negative integer")),
                Number::Out(_) => Err(ConfigError::OutOfRange {
                    key: key.to_string(),
                    value: v.to_string(),
                    min: *range.start(),
                    max: *range.end(),
                }),
                Number::NotInteger => Err(invalid("an integer")),
            }
        };
        match key {
            "rocketmqHome" => self.rocketmq_home = value.to_string(),
            "kvConfigPath" => self.kv_config_path = value.to_string(),
            "configStorePath" => self.config_store_path = value.to_string(),
            "configBlackList" => self.config_black_list = value.to_string(),
            "productEnvName" => self.product_env_name = value.to_string(),
            "orderMessageEnable" => self.order_message_enable = flag(value)?,
            "returnOrderTopicConfigToBroker" => self.return_order_topic_config_to_broker = flag(value)?,
            "scanNotActiveBrokerInterval" => {
                self.scan_not_active_broker_interval = Duration::from_millis(number(value)?)
            }
            "supportActingMaster" => self.support_acting_master = flag(value)?,
            "enableAllTopicList" => self.enable_all_topic_list = flag(value)?,
            "enableTopicList" => self.enable_topic_list = flag(value)?,
            "notifyMinBrokerIdChanged" => self.notify_min_broker_id_changed = flag(value)?,
            "needWaitForService" => self.need_wait_for_service = flag(value)?,
            "waitSecondsForService" => self.wait_seconds_for_service = number(value)?,
            "deleteTopicWithBrokerRegistration" => self.delete_topic_with_broker_registration = flag(value)?,
            "listenPort" => self.listen_port = value.parse().map_err(|_| invalid("a port number"))?,
            "bindAddress" => self.bind_address = value.to_string(),
            "serverChannelMaxIdleTimeSeconds" => self.server_channel_max_idle_time_seconds = number(value)?,
            "shutdownWaitTimeSeconds" => {
                number(value)?;
                self.passthrough.insert(key.to_string(), value.to_string());
            }
            other => {
                self.passthrough.insert(other.to_string(), value.to_string());
            }
        }
        Ok(())
    }

    /// [`Self::set`] for a file read at start: a number outside its key's Java range is
    /// clamped into it rather than refused, since refusing to start is the same outage the
    /// range prevents. Returns the value used when it was clamped, for a warning.
    ///
    /// # Errors
    /// As [`Self::set`], except [`ConfigError::OutOfRange`].
    pub fn set_clamped(&mut self, key: &str, value: &str) -> Result<Option<String>, ConfigError> {
        match self.set(key, value) {
            Err(ConfigError::OutOfRange { .. }) => {
                let range = java_range(key).unwrap_or(0..=i64::MAX);
                let Number::Out(end) = number_in(value.trim(), &range) else { unreachable!("set said out of range") };
                let used = end.to_string();
                self.set(key, &used)?;
                Ok(Some(used))
            }
            other => other.map(|()| None),
        }
    }

    /// Every key with its current value, as GET_NAMESRV_CONFIG lists them.
    #[must_use]
    pub fn to_properties(&self) -> BTreeMap<String, String> {
        let mut out = self.passthrough.clone();
        let mut put = |k: &str, v: String| {
            out.insert(String::from(k), v);
        };
        put("rocketmqHome", self.rocketmq_home.clone());
        put("kvConfigPath", self.kv_config_path.clone());
        put("configStorePath", self.config_store_path.clone());
        put("configBlackList", self.config_black_list.clone());
        put("productEnvName", self.product_env_name.clone());
        put("orderMessageEnable", self.order_message_enable.to_string());
        put("returnOrderTopicConfigToBroker", self.return_order_topic_config_to_broker.to_string());
        put("scanNotActiveBrokerInterval", millis(self.scan_not_active_broker_interval).to_string());
        put("supportActingMaster", self.support_acting_master.to_string());
        put("enableAllTopicList", self.enable_all_topic_list.to_string());
        put("enableTopicList", self.enable_topic_list.to_string());
        put("notifyMinBrokerIdChanged", self.notify_min_broker_id_changed.to_string());
        put("needWaitForService", self.need_wait_for_service.to_string());
        put("waitSecondsForService", self.wait_seconds_for_service.to_string());
        put("deleteTopicWithBrokerRegistration", self.delete_topic_with_broker_registration.to_string());
        put("listenPort", self.listen_port.to_string());
        put("bindAddress", self.bind_address.clone());
        put("serverChannelMaxIdleTimeSeconds", self.server_channel_max_idle_time_seconds.to_string());
        out
    }

    /// Whether `key` may never be changed remotely: the fixed list plus `configBlackList`.
    #[must_use]
    pub fn is_black_listed(&self, key: &str) -> bool {
        FIXED_BLACK_LIST.contains(&key) || self.config_black_list.split(';').any(|k| k.trim() == key)
    }

    /// How `key` takes effect when changed remotely; `None` for a key Java does not know.
    #[must_use]
    pub fn key_effect(key: &str) -> Option<KeyEffect> {
        if RUNTIME_UPDATABLE.contains(&key) {
            Some(KeyEffect::Now)
        } else if RESTART_ONLY.contains(&key) {
            Some(KeyEffect::AfterRestart)
        } else if FIXED_BLACK_LIST.contains(&key) || passthrough_default(key).is_some() {
            Some(KeyEffect::NoEffect)
        } else {
            None
        }
    }

    /// Applies an UPDATE_NAMESRV_CONFIG: all keys or none.
    ///
    /// # Errors
    /// A black-listed key or one `remote` does not allow, a key Java does not know, a value that does not parse as the key's
    /// type, or a value holding a line break (it would inject lines into the persisted file).
    pub fn update_remotely(
        &mut self,
        entries: &BTreeMap<String, String>,
        remote: RemoteConfig,
    ) -> Result<(), ConfigError> {
        if let Some(key) = entries.keys().find(|k| self.is_black_listed(k) || !remote.allows(k)) {
            return Err(ConfigError::BlackListed(key.clone()));
        }
        if let Some(key) = entries.keys().find(|k| Self::key_effect(k).is_none()) {
            return Err(ConfigError::UnknownKey(key.clone()));
        }
        let mut next = self.clone();
        for (key, value) in entries {
            let invalid = |expected| ConfigError::InvalidValue { key: key.clone(), value: value.clone(), expected };
            if value.contains(['\n', '\r']) {
                return Err(invalid("a single line"));
            }
            // A key kept as text still has Java's type: its default tells which.
            match passthrough_default(key) {
                Some("true" | "false") if !matches!(value.trim().to_ascii_lowercase().as_str(), "true" | "false") => {
                    return Err(invalid("true or false"));
                }
                Some(default) if default.parse::<i64>().is_ok() => {
                    let range = java_range(key).unwrap_or(JAVA_INT);
                    match number_in(value.trim(), &range) {
                        Number::In(_) => {}
                        Number::Out(_) => {
                            return Err(ConfigError::OutOfRange {
                                key: key.clone(),
                                value: value.clone(),
                                min: *range.start(),
                                max: *range.end(),
                            });
                        }
                        Number::NotInteger => return Err(invalid("an integer")),
                    }
                }
                _ => {}
            }
            next.set(key, value)?;
        }
        *self = next;
        Ok(())
    }

    /// Keys in [`Self::to_properties`] order with their values, for persistence.
    #[must_use]
    pub fn entries(&self) -> Vec<(String, String)> {
        self.to_properties().into_iter().collect()
    }
}

/// Java's default of a key kept as text, if it is one.
fn passthrough_default(key: &str) -> Option<&'static str> {
    NETTY_PASSTHROUGH.iter().chain(NAMESRV_PASSTHROUGH.iter()).find(|(k, _)| *k == key).map(|(_, v)| *v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::java_defaults("/home/rmq", "/opt/rocketmq")
    }

    fn one(key: &str, value: &str) -> BTreeMap<String, String> {
        let mut m = BTreeMap::new();
        m.insert(String::from(key), String::from(value));
        m
    }

    #[test]
    fn defaults_are_javas() {
        let props = config().to_properties();
        assert_eq!(props["kvConfigPath"], "/home/rmq/namesrv/kvConfig.json");
        assert_eq!(props["scanNotActiveBrokerInterval"], "5000");
        assert_eq!(props["listenPort"], "9876");
        assert_eq!(props["serverChannelMaxIdleTimeSeconds"], "120");
        assert_eq!(props["enableAllTopicList"], "true");
        assert_eq!(props["serverWorkerThreads"], "8");
    }

    #[test]
    fn set_parses_types_and_remembers_unknown_keys() {
        let mut c = config();
        c.set("orderMessageEnable", " TRUE ").unwrap();
        assert!(c.order_message_enable);
        c.set("somethingNew", "x").unwrap();
        assert_eq!(c.to_properties()["somethingNew"], "x");
        assert!(c.set("listenPort", "70000").is_err());
        assert!(c.set("enableTopicList", "yes").is_err());
        assert!(c.set("scanNotActiveBrokerInterval", "0").is_err());
    }

    #[test]
    fn remote_config_runtime_refuses_restart_only_keys_and_off_refuses_all() {
        for key in RESTART_ONLY {
            let mut c = config();
            let before = c.clone();
            let value = match key {
                "bindAddress" => "10.0.0.1",
                "enableShutdownGracefully" => "true",
                _ => "1",
            };
            assert_eq!(
                c.update_remotely(&one(key, value), RemoteConfig::Runtime),
                Err(ConfigError::BlackListed(String::from(key)))
            );
            assert_eq!(c, before, "{key}: nothing changed");
            assert!(c.update_remotely(&one(key, value), RemoteConfig::All).is_ok(), "{key} as in Java");
        }
        let mut c = config();
        c.update_remotely(&one("enableAllTopicList", "false"), RemoteConfig::Runtime).unwrap();
        c.update_remotely(&one("clientRequestThreadPoolNums", "16"), RemoteConfig::Runtime).unwrap();
        // One refused key refuses the whole update.
        let mut both = one("enableTopicList", "false");
        both.insert(String::from("listenPort"), String::from("1"));
        assert!(c.update_remotely(&both, RemoteConfig::Runtime).is_err());
        assert!(c.enable_topic_list);
        assert_eq!(
            c.update_remotely(&one("enableTopicList", "false"), RemoteConfig::Off),
            Err(ConfigError::BlackListed(String::from("enableTopicList")))
        );
        assert_eq!("runtime".parse(), Ok(RemoteConfig::Runtime));
        assert!("Runtime".parse::<RemoteConfig>().is_err());
    }

    #[test]
    fn remote_updates_follow_the_allowlist() {
        let mut c = config();
        c.update_remotely(&one("enableAllTopicList", "false"), RemoteConfig::All).unwrap();
        assert!(!c.enable_all_topic_list);
        for key in FIXED_BLACK_LIST {
            assert_eq!(
                c.update_remotely(&one(key, "/tmp/x"), RemoteConfig::All),
                Err(ConfigError::BlackListed(String::from(key)))
            );
        }
        c.update_remotely(&one("listenPort", "9877"), RemoteConfig::All).unwrap();
        assert_eq!(c.listen_port, 9877);
        c.update_remotely(&one("clientRequestThreadPoolNums", "16"), RemoteConfig::All).unwrap();
        assert_eq!(c.to_properties()["clientRequestThreadPoolNums"], "16");
        assert!(matches!(
            c.update_remotely(&one("clientRequestThreadPoolNums", "many"), RemoteConfig::All),
            Err(ConfigError::InvalidValue { .. })
        ));
        assert!(matches!(
            c.update_remotely(&one("useEpollNativeSelector", "yes"), RemoteConfig::All),
            Err(ConfigError::InvalidValue { .. })
        ));
        assert_eq!(
            c.update_remotely(&one("listenPrt", "1"), RemoteConfig::All),
            Err(ConfigError::UnknownKey(String::from("listenPrt")))
        );
        assert!(matches!(
            c.update_remotely(&one("productEnvName", "a\nb"), RemoteConfig::All),
            Err(ConfigError::InvalidValue { .. })
        ));
    }

    #[test]
    fn numbers_keep_to_their_java_types() {
        let mut c = config();
        let max_int = "2147483647";
        for key in ["serverChannelMaxIdleTimeSeconds", "shutdownWaitTimeSeconds", "waitSecondsForService"] {
            for value in ["18446744073709551615", "2147483648", "-1", "99999999999999999999999"] {
                assert!(
                    matches!(
                        c.update_remotely(&one(key, value), RemoteConfig::All),
                        Err(ConfigError::OutOfRange { min: 0, max: 2147483647, .. })
                    ),
                    "{key}={value}"
                );
            }
            c.update_remotely(&one(key, max_int), RemoteConfig::All).unwrap();
            assert_eq!(c.to_properties()[key], max_int);
        }
        let scan = "scanNotActiveBrokerInterval";
        assert!(matches!(c.set(scan, "0"), Err(ConfigError::OutOfRange { min: 1, .. })));
        assert!(matches!(c.set(scan, "9223372036854775808"), Err(ConfigError::OutOfRange { max: i64::MAX, .. })));
        c.set(scan, "9223372036854775807").unwrap();
        // Numbers kept as text are Java ints too.
        assert!(matches!(
            c.update_remotely(&one("serverWorkerThreads", "4294967296"), RemoteConfig::All),
            Err(ConfigError::OutOfRange { .. })
        ));
        assert!(matches!(c.set("waitSecondsForService", "soon"), Err(ConfigError::InvalidValue { .. })));
        let said =
            c.update_remotely(&one("waitSecondsForService", "2147483648"), RemoteConfig::All).unwrap_err().to_string();
        assert_eq!(
            said,
            "invalid value `2147483648` for waitSecondsForService: expected an integer from 0 to 2147483647"
        );
    }

    #[test]
    fn a_file_read_at_start_is_clamped_into_range() {
        let mut c = config();
        assert_eq!(
            c.set_clamped("serverChannelMaxIdleTimeSeconds", "18446744073709551615").unwrap().as_deref(),
            Some("2147483647")
        );
        assert_eq!(c.server_channel_max_idle_time_seconds, 2_147_483_647);
        assert_eq!(c.set_clamped("shutdownWaitTimeSeconds", "-5").unwrap().as_deref(), Some("0"));
        assert_eq!(c.to_properties()["shutdownWaitTimeSeconds"], "0");
        assert_eq!(c.set_clamped("scanNotActiveBrokerInterval", "0").unwrap().as_deref(), Some("1"));
        assert_eq!(c.set_clamped("waitSecondsForService", "30").unwrap(), None);
        assert_eq!(c.wait_seconds_for_service, 30);
        assert!(c.set_clamped("waitSecondsForService", "soon").is_err(), "only numbers are clamped");
    }

    #[test]
    fn remote_updates_are_all_or_nothing() {
        let mut c = config();
        let mut both = one("enableAllTopicList", "false");
        both.insert(String::from("enableTopicList"), String::from("maybe"));
        assert!(c.update_remotely(&both, RemoteConfig::All).is_err());
        assert!(c.enable_all_topic_list, "the valid half must not apply");
    }

    #[test]
    fn configured_black_list_extends_the_fixed_one() {
        let mut c = config();
        c.set("configBlackList", "configBlackList;configStorePath;kvConfigPath;productEnvName").unwrap();
        assert!(matches!(
            c.update_remotely(&one("productEnvName", "x"), RemoteConfig::All),
            Err(ConfigError::BlackListed(_))
        ));
    }
}
