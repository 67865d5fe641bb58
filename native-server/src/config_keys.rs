//! The Java keys the core keeps only as text ([`Config::passthrough`]): the two this daemon
//! acts on (graceful shutdown), and a warning for every other one that asks for something
//! nothing here does, so that a configuration is never silently half-applied. Also Java's
//! NettyClientConfig keys, which `mqnamesrv -p` prints too.

use std::time::Duration;

use nameserver_core::Config;
use nameserver_core::config::ConfigError;

use crate::controller::settings as controller;

/// `enableShutdownGracefully`: when true, a shutdown first serves `shutdownWaitTimeSeconds` more,
/// answering GO_AWAY to newer clients.
pub const ENABLE_SHUTDOWN_GRACEFULLY: &str = "enableShutdownGracefully";
/// `shutdownWaitTimeSeconds`: how long a graceful shutdown keeps serving.
pub const SHUTDOWN_WAIT_TIME_SECONDS: &str = "shutdownWaitTimeSeconds";

/// How long a shutdown keeps serving before it drains, as Java's remoting server sleeps:
/// `shutdownWaitTimeSeconds` when `enableShutdownGracefully` is true, else `None` (the drain
/// starts at once).
///
/// # Errors
/// Either key holds a value of the wrong type.
pub fn go_away_window(config: &Config) -> Result<Option<Duration>, ConfigError> {
    let value = |key: &str| config.passthrough.get(key).map(|v| v.trim().to_string());
    let invalid =
        |key: &str, value: String, expected| ConfigError::InvalidValue { key: key.to_string(), value, expected };
    let graceful = match value(ENABLE_SHUTDOWN_GRACEFULLY) {
        None => false,
        Some(v) if v.eq_ignore_ascii_case("true") => true,
        Some(v) if v.eq_ignore_ascii_case("false") => false,
        Some(v) => return Err(invalid(ENABLE_SHUTDOWN_GRACEFULLY, v, "true or false")),
    };
    let seconds = match value(SHUTDOWN_WAIT_TIME_SECONDS) {
        None => 30,
        Some(v) => v.parse::<u64>().map_err(|_| invalid(SHUTDOWN_WAIT_TIME_SECONDS, v, "a number of seconds"))?,
    };
    Ok(graceful.then(|| Duration::from_secs(seconds)))
}

/// Java's NettyClientConfig keys with their defaults (`-p` prints them after the server's, as
/// `mqnamesrv -p` does). `useTLS` follows `tls.enable`, else whether `tls.server.mode` is
/// enforcing; `clientCallbackExecutorThreads` is the number of processors.
#[must_use]
pub fn netty_client_defaults(tls: &crate::tls::TlsConfig, tls_enable: Option<&str>) -> Vec<(String, String)> {
    let processors = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let use_tls =
        tls_enable.map_or(tls.mode == crate::tls::TlsMode::Enforcing, |v| v.trim().eq_ignore_ascii_case("true"));
    let pairs: [(&str, String); 20] = [
        ("channelNotActiveInterval", "60000".into()),
        ("clientAsyncSemaphoreValue", "65535".into()),
        ("clientCallbackExecutorThreads", processors.to_string()),
        ("clientChannelMaxIdleTimeSeconds", "120".into()),
        ("clientCloseSocketIfTimeout", "true".into()),
        ("clientOnewaySemaphoreValue", "65535".into()),
        ("clientPooledByteBufAllocatorEnable", "false".into()),
        ("clientSocketRcvBufSize", "0".into()),
        ("clientSocketSndBufSize", "0".into()),
        ("clientWorkerThreads", "4".into()),
        ("connectTimeoutMillis", "3000".into()),
        ("disableCallbackExecutor", "false".into()),
        ("disableNettyWorkerGroup", "false".into()),
        ("enableReconnectForGoAway", "true".into()),
        ("isScanAvailableNameSrv", "true".into()),
        ("maxReconnectIntervalTimeSeconds", "60".into()),
        ("socksProxyConfig", "{}".into()),
        ("useTLS", use_tls.to_string()),
        ("writeBufferHighWaterMark", "0".into()),
        ("writeBufferLowWaterMark", "0".into()),
    ];
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// Whether `key` is one of Java's NettyClientConfig keys.
fn is_client_key(key: &str) -> bool {
    netty_client_defaults(&crate::tls::TlsConfig::disabled(), None).iter().any(|(k, _)| k == key)
}

/// Why a key has no effect here.
fn reason(key: &str) -> &'static str {
    const TUNING: &str =
        "a Java thread-pool or Netty tuning knob; this daemon sizes its own (tokio) threads and buffers";
    match key {
        "clusterTest" => "clusterTest route forwarding is not implemented",
        "serverSocketBacklog" => "the listen backlog is fixed at 1024 (Java's default)",
        _ if key.starts_with("tls") || key == "useTLS" => {
            "TLS is set with -D tls.* options or in tls.config.file, as in Java, not in this file"
        }
        _ if is_client_key(key) => {
            "a Java NettyClientConfig knob; this daemon's only client sends NOTIFY_MIN_BROKER_ID_CHANGE with fixed settings"
        }
        _ => TUNING,
    }
}

/// One line per key of `config` that is accepted but not implemented: every Java key without
/// effect here whose value differs from Java's default, and every key Java does not know.
#[must_use]
pub fn unimplemented(config: &Config) -> Vec<String> {
    let defaults = Config::java_defaults("", "").passthrough;
    let controller_on =
        config.passthrough.get(controller::ENABLE_KEY).is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    config
        .passthrough
        .iter()
        .filter(|(key, _)| *key != ENABLE_SHUTDOWN_GRACEFULLY && *key != SHUTDOWN_WAIT_TIME_SECONDS)
        // The embedded controller reads and checks its own keys (`controller::settings`).
        .filter(|(key, _)| {
            *key != controller::ENABLE_KEY && !(controller_on && controller::KEYS.contains(&key.as_str()))
        })
        .filter_map(|(key, value)| match defaults.get(key) {
            None if controller::KEYS.contains(&key.as_str()) => Some(format!(
                "{key}={value} is a key of the embedded controller, read only with {}=true",
                controller::ENABLE_KEY
            )),
            Some(default) if default.eq_ignore_ascii_case(value.trim()) => None,
            Some(_) => Some(format!("{key}={value} is accepted but not implemented: {}", reason(key))),
            None if key.starts_with("tls") || key == "useTLS" || is_client_key(key) => {
                Some(format!("{key}={value} is accepted but not implemented: {}", reason(key)))
            }
            None => Some(format!(
                "{key}={value} is not a NameServer key (misspelt?): kept so GET_NAMESRV_CONFIG shows it, with no effect"
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Config {
        let mut config = Config::java_defaults("/h", "/r");
        for (key, value) in pairs {
            config.set(key, value).unwrap();
        }
        config
    }

    #[test]
    fn the_go_away_window_is_shutdown_wait_time_only_when_graceful() {
        assert_eq!(go_away_window(&config(&[])).unwrap(), None);
        let seven = [(SHUTDOWN_WAIT_TIME_SECONDS, "7")];
        assert_eq!(go_away_window(&config(&seven)).unwrap(), None);
        let graceful = [(ENABLE_SHUTDOWN_GRACEFULLY, "TRUE"), (SHUTDOWN_WAIT_TIME_SECONDS, "7")];
        assert_eq!(go_away_window(&config(&graceful)).unwrap(), Some(Duration::from_secs(7)));
        // Java's default wait (30 s) applies once graceful shutdown is on.
        let default_wait = [(ENABLE_SHUTDOWN_GRACEFULLY, "true")];
        assert_eq!(go_away_window(&config(&default_wait)).unwrap(), Some(Duration::from_secs(30)));
        // `Config::set` refuses a wait that is not a number; one put in by hand is refused here.
        assert!(Config::java_defaults("/h", "/r").set(SHUTDOWN_WAIT_TIME_SECONDS, "soon").is_err());
        let mut bad = config(&[(ENABLE_SHUTDOWN_GRACEFULLY, "true")]);
        bad.passthrough.insert(SHUTDOWN_WAIT_TIME_SECONDS.into(), "soon".into());
        assert!(go_away_window(&bad).unwrap_err().to_string().contains("shutdownWaitTimeSeconds"));
        assert!(go_away_window(&config(&[(ENABLE_SHUTDOWN_GRACEFULLY, "yes")])).is_err());
    }

    #[test]
    fn only_keys_that_ask_for_something_missing_are_reported() {
        assert!(unimplemented(&config(&[])).is_empty(), "Java's defaults ask for nothing");
        let set = [
            ("enableControllerInNamesrv", "false"),
            ("serverWorkerThreads", "8"),
            ("enableShutdownGracefully", "true"),
            ("orderMessageEnable", "true"),
        ];
        assert!(unimplemented(&config(&set)).is_empty(), "{:?}", unimplemented(&config(&set)));
        let warnings = unimplemented(&config(&[
            ("enableControllerInNamesrv", "true"),
            ("tls.server.mode", "enforcing"),
            ("serverWorkerThreads", "32"),
            ("listenPrt", "9877"),
            ("controllerDLegerGroup", "g"),
        ]));
        assert_eq!(warnings.len(), 3, "the controller's keys are its own: {warnings:#?}");
        let off = unimplemented(&config(&[("controllerDLegerGroup", "g")]));
        assert!(off.len() == 1 && off[0].contains("read only with enableControllerInNamesrv=true"), "{off:?}");
        let find = |key: &str| warnings.iter().find(|w| w.starts_with(key)).unwrap_or_else(|| panic!("{key}"));
        assert!(find("tls.server.mode=enforcing").contains("-D tls.*"));
        assert!(find("serverWorkerThreads=32").contains("tokio"));
        assert!(find("listenPrt=9877").contains("misspelt"));
    }
}
