//! The command line, shaped like `mqnamesrv`'s (PROTOCOL.md §12.1), and the configuration it
//! produces: Java's defaults, then the `-c` properties file, then the flags.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use clap::Parser;
use nameserver_core::codec::Limits;
use nameserver_core::config::{ConfigError, RemoteConfig};
use nameserver_core::properties::{self, PropertiesError};
use nameserver_core::{Config, KvConfig};

use crate::ServerConfig;
use crate::acl::{AuthConfig, ClassPolicies, ClassSources};
use crate::http::{HttpOptions, Page, PeerUrl};
use crate::source::SourceList;
use crate::tls::{TlsConfig, TlsError};

/// `nameserver` — the RocketMQ NameServer, a drop-in replacement for `mqnamesrv`.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "nameserver",
    version = crate::version::LONG,
    about = "RocketMQ NameServer: brokers register here, producers, consumers and admin tools get their routes here",
    long_about = "RocketMQ NameServer: brokers register here, producers, consumers and admin tools get their \
                  routes here.\n\nA drop-in replacement for `mqnamesrv` (RocketMQ 4.9.x and 5.x wire protocol). \
                  With no options it listens on 0.0.0.0:9876 and keeps its KV config in \
                  $HOME/namesrv/kvConfig.json, as the Java NameServer does.",
    after_help = "Configuration: Java's defaults, then the -c file (namesrv.properties keys such as listenPort, \
                  kvConfigPath, scanNotActiveBrokerInterval, serverChannelMaxIdleTimeSeconds, \
                  orderMessageEnable), then --listen-port and --bind-address. Keys accepted but not implemented \
                  (enableControllerInNamesrv=true, Java thread-pool sizes, ...) are logged as warnings at start.\n\
                  TLS is configured as Java's: -D tls.* properties, then the tls.config.file they name \
                  (default /etc/rocketmq/tls.properties); tls.server.mode=permissive (the default) serves TLS and \
                  plaintext on the one port. PROXY protocol v1/v2 headers are read only from --proxy-protocol-from. \
                  SIGHUP reloads the certificate (changed files are also picked up within a second).\n\
                  Logs go to stderr, and with --log-dir to Java's three log files too; filter them with --log-level \
                  or RUST_LOG.\n\
                  SIGINT/SIGTERM stop accepting, answer requests in flight (waiting at most 5 s for connections), \
                  flush the KV config and exit 0; with enableShutdownGracefully=true they first keep serving for \
                  shutdownWaitTimeSeconds, answering GO_AWAY to clients newer than 5.3.1, as Java 5.5.0 does.\n\
                  At start the soft open-files limit is raised towards --max-connections (up to the hard limit)."
)]
pub struct Args {
    /// Name server config properties file (namesrv.properties); its path becomes configStorePath
    #[arg(short = 'c', long = "configFile", visible_alias = "config-file", value_name = "FILE")]
    pub config_file: Option<PathBuf>,

    /// Print all config items (key=value, sorted) and exit
    #[arg(short = 'p', long = "printConfigItem", visible_alias = "print-config-item")]
    pub print_config_item: bool,

    /// Name server address list, e.g. '192.168.0.1:9876;192.168.0.2:9876' (accepted for compatibility, ignored)
    #[arg(short = 'n', long = "namesrvAddr", value_name = "ADDRS")]
    pub namesrv_addr: Option<String>,

    /// Port to listen on (listenPort, default 9876); overrides the config file
    #[arg(long = "listen-port", visible_alias = "listenPort", value_name = "PORT")]
    pub listen_port: Option<u16>,

    /// Address to bind (bindAddress, default 0.0.0.0); overrides the config file
    #[arg(long = "bind-address", visible_alias = "bindAddress", value_name = "ADDR")]
    pub bind_address: Option<String>,

    /// On SIGTERM, keep serving for shutdownWaitTimeSeconds first, answering GO_AWAY to clients newer than 5.3.1 as Java 5.5.0 does (enableShutdownGracefully, default false); overrides the config file
    #[arg(long = "enable-shutdown-gracefully", visible_alias = "enableShutdownGracefully", value_name = "BOOL")]
    pub enable_shutdown_gracefully: Option<bool>,

    /// How long a graceful shutdown keeps serving (shutdownWaitTimeSeconds, default 30); overrides the config file
    #[arg(long = "shutdown-wait-time-seconds", visible_alias = "shutdownWaitTimeSeconds", value_name = "SECONDS")]
    pub shutdown_wait_time_seconds: Option<u32>,

    /// Largest frame accepted in bytes, length prefix included (Java: com.rocketmq.remoting.frameMaxLength)
    #[arg(long, value_name = "BYTES", default_value_t = Limits::DEFAULT.max_frame,
          value_parser = parse_frame_limit)]
    pub max_frame_bytes: usize,

    /// Most topics one broker registration may carry; a larger one is refused (SYSTEM_ERROR, saying so) and changes nothing [default: no limit, as in Java]
    #[arg(long, value_name = "N", value_parser = parse_topic_limit)]
    pub max_topics_per_registration: Option<usize>,

    /// Largest size a compressed broker registration may inflate to; a larger one is refused [Java: no limit]
    #[arg(long, value_name = "BYTES", default_value_t = Limits::DEFAULT.max_decompressed,
          value_parser = parse_inflate_limit)]
    pub max_register_body_bytes: usize,

    /// Largest KV value a PUT_KV_CONFIG (or the console's PUT /api/kv) may set; a larger one is refused (INVALID_PARAMETER, saying so) and changes nothing (bytes, or with KiB, MiB, GiB) [Java: no limit]
    #[arg(long, value_name = "BYTES", default_value = "1MiB", value_parser = parse_byte_size)]
    pub max_kv_value_bytes: usize,

    /// Largest the KV table may grow to, counting namespace + key + value as kvConfig.json writes them (a control byte as its 6-byte escape) + 64 bytes per entry; a put beyond it is refused (INVALID_PARAMETER) and changes nothing; a larger table on disk still loads, with a warning (bytes, or with KiB, MiB, GiB) [Java: no limit]
    #[arg(long, value_name = "BYTES", default_value = "16MiB", value_parser = parse_byte_size)]
    pub max_kv_bytes: usize,

    /// Most bytes of built route bodies kept for the next queries (at least 1MiB); past it the least recently asked for are dropped and built again when next asked for (bytes, or with KiB, MiB, GiB)
    #[arg(long, value_name = "BYTES", env = "NAMESERVER_ROUTE_CACHE_BYTES", default_value = "16MiB",
          value_parser = parse_route_cache_size)]
    pub route_cache_bytes: usize,

    /// Most connections served at once; further peers wait in the listen backlog
    #[arg(long, value_name = "N", default_value_t = crate::DEFAULT_MAX_CONNECTIONS,
          value_parser = parse_connection_limit)]
    pub max_connections: usize,

    /// Networks of the load balancers that send HAProxy PROXY headers (v1 or v2), e.g. '10.0.0.0/8,192.168.1.10': connections from them must start with one, and its client address stands for the peer. From anyone else a connection opening with a PROXY header is closed; comma-separated, repeatable [default: none, PROXY headers are refused]
    #[arg(long, value_name = "CIDRS", env = "NAMESERVER_PROXY_PROTOCOL_FROM", help_heading = "Fairness")]
    pub proxy_protocol_from: Vec<SourceList>,

    /// Most connections one source address (behind a listed proxy, the client it names; a proxy's own LOCAL/UNKNOWN health checks count under its address) may hold at once; an IPv6 /64 may hold 4 times that in all (at most --max-connections); more are closed at accept [default: a tenth of --max-connections]
    #[arg(
        long,
        value_name = "N",
        env = "NAMESERVER_MAX_CONNECTIONS_PER_SOURCE",
        value_parser = parse_connection_limit,
        help_heading = "Fairness"
    )]
    pub max_connections_per_source: Option<usize>,

    /// Networks the per-source caps do not apply to, e.g. a NAT gateway or kube-proxy SNAT address that cannot send PROXY headers; matched against the source (the TCP peer, or the client a listed proxy names; a listed proxy's address only for its own health checks); comma-separated, repeatable
    #[arg(long, value_name = "CIDRS", env = "NAMESERVER_PER_SOURCE_EXEMPT", help_heading = "Fairness")]
    pub per_source_exempt: Vec<SourceList>,

    /// Which keys UPDATE_NAMESRV_CONFIG (318, e.g. mqadmin updateNamesrvConfig) may change: off (none), runtime (those that take effect at once; listenPort, bindAddress, serverChannelMaxIdleTimeSeconds, enableShutdownGracefully and shutdownWaitTimeSeconds, read only at start, are refused as if black-listed), all (as in Java); configBlackList applies in every mode. With the embedded controller, UPDATE_CONTROLLER_CONFIG (1009) follows it too: runtime takes only the keys the controller reads as it runs
    #[arg(long, value_name = "MODE", env = "NAMESERVER_REMOTE_CONFIG", default_value = "runtime",
          value_parser = |s: &str| s.parse::<RemoteConfig>())]
    pub remote_config: RemoteConfig,

    /// Accounts whose signed requests are accepted (AccessKey and Signature, as RocketMQ's AclClientRPCHook sends them): a YAML file with the `accounts` list of RocketMQ's plain_acl.yml (accessKey, secretKey, admin; other keys are ignored), reloaded when it changes or on SIGHUP; keep it 0600. With it the classes default to route-read=open, broker=signed, admin-read=signed, admin-write=admin [default: none, nothing is verified, as in Java]
    #[arg(long, value_name = "FILE", env = "NAMESERVER_ACL_FILE", help_heading = "Authentication")]
    pub acl_file: Option<PathBuf>,

    /// What a class of requests requires: CLASS=open|signed|admin|deny, several separated by commas, repeatable. Classes: route-read (105, 106, 901), broker (103, 104, 217, 322, 904), admin-read (101, 206, 219, 224, 304, 311-313, 319), admin-write (100, 102, 205, 216, 318, 327); other codes are not checked. signed and admin need --acl-file; 4.9 brokers never sign: broker=open with --allow-from broker=...
    #[arg(long, value_name = "CLASS=POLICY", env = "NAMESERVER_AUTH", help_heading = "Authentication")]
    pub auth: Vec<ClassPolicies>,

    /// Sources a class also requires, on top of its policy: CLASS=CIDR,CIDR,... (another CLASS= in the list starts that class's), repeatable, e.g. 'broker=10.0.0.0/8,admin-write=10.1.2.3'. Matched against the source the per-source caps use (the TCP peer, or the client a listed proxy names). Works without --acl-file
    #[arg(long, value_name = "CLASS=CIDRS", env = "NAMESERVER_ALLOW_FROM", help_heading = "Authentication")]
    pub allow_from: Vec<ClassSources>,

    /// Test builds only: the handshake deadline and the frame deadline's base in milliseconds instead of 10 s
    #[cfg(feature = "test-hooks")]
    #[arg(long, hide = true, value_name = "MS")]
    pub test_deadline_ms: Option<u64>,

    /// Test builds only: the embedded controller replaces no master (a group's first election
    /// still takes place), so that the failover test can show it fails without elections
    #[cfg(feature = "test-hooks")]
    #[arg(long, hide = true)]
    pub test_no_failover: bool,

    /// Log filter: error, warn, info, debug, trace, or directives like 'nameserver=debug' (default: RUST_LOG, else info)
    #[arg(long, value_name = "FILTER")]
    pub log_level: Option<String>,

    /// Also write Java's log files in DIR, beside stderr: namesrv.log (what stderr gets, in Java's pattern, times in GMT+8), namesrv_traffic.log (each second with traffic: the request and response codes read and written) and namesrv_default.log (each second: a WATERMARK line with the owner's queue), each rolled at 100 MiB into DIR/otherdays/NAME.N.log.gz (5 kept, 10 for the traffic). Without DIR: Java's, $user.home/logs/rocketmqlogs (bin/mqnamesrv passes it so; a later --log-dir wins). A directory that cannot be created or written is one warning, and logs go to stderr only [default: stderr only]
    #[arg(long, value_name = "DIR", env = "NAMESERVER_LOG_DIR", num_args = 0..=1, overrides_with = "log_dir")]
    pub log_dir: Option<Option<PathBuf>>,

    /// Port of the HTTP console: the page, live view, JSON API, /metrics, /healthz, /readyz, /rocketmq/nsaddr (default 8080, 0: any; if the default is taken, the daemon runs without it)
    #[arg(long, value_name = "PORT", help_heading = "HTTP console")]
    pub http_port: Option<u16>,

    /// Address the HTTP console binds; 0.0.0.0 (or ::) serves probes and scrapes from other hosts
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1",
        env = "NAMESERVER_HTTP_BIND",
        help_heading = "HTTP console"
    )]
    pub http_bind: String,

    /// Run without the HTTP console
    #[arg(long, help_heading = "HTTP console")]
    pub no_http: bool,

    /// Directory holding www/ and pkg/ (the page) [default: the page embedded in the binary; a build without it: the source tree it was built from]
    #[arg(long, value_name = "DIR", help_heading = "HTTP console")]
    pub http_root: Option<PathBuf>,

    /// Allow PUT/DELETE /api/kv/{namespace}/{key} with 'Authorization: Bearer TOKEN' (without it nothing is writable)
    #[arg(
        long,
        value_name = "TOKEN",
        env = "NAMESERVER_HTTP_TOKEN",
        hide_env_values = true,
        help_heading = "HTTP console"
    )]
    pub http_token: Option<String>,

    /// Read the console's token from FILE (first line; keep it 0600): unlike --http-token it is not in the process list
    #[arg(
        long,
        value_name = "FILE",
        env = "NAMESERVER_HTTP_TOKEN_FILE",
        conflicts_with = "http_token",
        help_heading = "HTTP console"
    )]
    pub http_token_file: Option<PathBuf>,

    /// What /rocketmq/nsaddr lists, e.g. '192.168.0.1:9876;192.168.0.2:9876' [default: this daemon's address]
    #[arg(long, value_name = "ADDRS", help_heading = "HTTP console")]
    pub http_nsaddr: Option<String>,

    /// Let pages from ORIGIN (e.g. http://127.0.0.1:3000) read the API (CORS); repeatable
    #[arg(long, value_name = "ORIGIN", help_heading = "HTTP console")]
    pub http_allow_origin: Vec<String>,

    /// Other NameServers' consoles to compare this one with, e.g. 'http://ns-1:8080,http://ns-2:8080' (read-only HTTP, every second): /api/peers and the nameserver_peer_* metrics. This daemon's own console may be in the list
    #[arg(
        long,
        value_name = "URLS",
        value_delimiter = ',',
        env = "NAMESERVER_HTTP_PEERS",
        help_heading = "HTTP console"
    )]
    pub http_peers: Vec<PeerUrl>,

    /// Serve the HTTP console over HTTPS with the RocketMQ port's certificate (tls.server.certPath/keyPath, or the test mode's self-signed one)
    #[arg(long, help_heading = "HTTP console")]
    pub http_tls: bool,

    /// Host names the console answers besides IP addresses and localhost, e.g. 'nameserver-0.nameserver-headless,ns.example.com' (others get 421: no web page can read it by DNS rebinding; /rocketmq/nsaddr answers any name)
    #[arg(
        long,
        value_name = "NAMES",
        value_delimiter = ',',
        env = "NAMESERVER_HTTP_ALLOWED_HOSTS",
        help_heading = "HTTP console"
    )]
    pub http_allowed_hosts: Vec<String>,

    /// Console connections served at once; more wait until one closes (each holds a descriptor that port 9876 could use)
    #[arg(long, value_name = "N", default_value_t = crate::http::DEFAULT_MAX_CONNECTIONS, help_heading = "HTTP console")]
    pub http_max_connections: usize,

    /// A Java system property, as in mqnamesrv's JAVA_OPT: the TLS keys tls.server.mode (permissive, enforcing, disabled), tls.config.file, tls.test.mode.enable, tls.server.certPath, tls.server.keyPath, tls.server.keyPassword, tls.server.trustCertPath, tls.server.need.client.auth (none, optional, require), tls.server.authClient, tls.ciphers (JSSE names, e.g. TLS_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256), tls.protocols (TLSv1.2, TLSv1.3); repeatable, e.g. -Dtls.server.mode=enforcing
    #[arg(short = 'D', value_name = "KEY=VALUE", value_parser = parse_property, help_heading = "TLS")]
    pub system_properties: Vec<(String, String)>,

    /// A JVM option from JAVA_OPT or JAVA_OPT_EXT (heap, GC, -server…), or JAVA_HEAP_SIZE=…, HEAP_OPTS=…, MAX_POSSIBLE_HEAP=…, as bin/mqnamesrv passes them on: ignored (memory is bounded by the --max-* options), named in one line at start; repeatable
    #[arg(long = "jvm-option", value_name = "OPTION", allow_hyphen_values = true)]
    pub jvm_options: Vec<String>,
}

/// The `-D` keys read besides the TLS server keys.
pub const OTHER_SYSTEM_KEYS: [&str; 2] = ["tls.enable", "user.home"];

/// A token shorter than this is warned about: 16 random bytes resist online guessing.
pub const MIN_TOKEN_BYTES: usize = 16;

fn parse_property(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => Ok((key.trim().to_string(), value.to_string())),
        _ => Err(format!("`{text}` is not KEY=VALUE")),
    }
}

fn parse_frame_limit(text: &str) -> Result<usize, String> {
    // Java's length prefix is an int: 4 + i32::MAX is the largest frame a peer can announce.
    const LARGEST: usize = 4 + i32::MAX as usize;
    let bytes: usize = text.parse().map_err(|_| format!("`{text}` is not a number of bytes"))?;
    if (1024..=LARGEST).contains(&bytes) { Ok(bytes) } else { Err(format!("must be between 1024 and {LARGEST}")) }
}

/// A size in bytes: a number, optionally followed by `KiB`, `MiB` or `GiB`.
fn parse_byte_size(text: &str) -> Result<usize, String> {
    let trimmed = text.trim();
    let (digits, unit) = match trimmed.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => trimmed.split_at(at),
        None => (trimmed, ""),
    };
    let unit: usize = match unit.trim() {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return Err(format!("`{text}` is not a size: give bytes, or a number with KiB, MiB or GiB")),
    };
    let number: usize = digits.parse().map_err(|_| format!("`{text}` is not a size"))?;
    match number.checked_mul(unit) {
        Some(0) => Err(String::from("must be at least 1 byte")),
        Some(bytes) => Ok(bytes),
        None => Err(format!("`{text}` is too large")),
    }
}

fn parse_route_cache_size(text: &str) -> Result<usize, String> {
    let bytes = parse_byte_size(text)?;
    if bytes >= 1 << 20 { Ok(bytes) } else { Err(String::from("must be at least 1MiB")) }
}

fn parse_topic_limit(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err(String::from("must be at least 1")),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{text}` is not a number")),
    }
}

fn parse_inflate_limit(text: &str) -> Result<usize, String> {
    let bytes: usize = text.parse().map_err(|_| format!("`{text}` is not a number of bytes"))?;
    if bytes >= 1024 { Ok(bytes) } else { Err(String::from("must be at least 1024")) }
}

fn parse_connection_limit(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err(String::from("must be at least 1")),
        Ok(n) => Ok(n.min(tokio::sync::Semaphore::MAX_PERMITS)),
        Err(_) => Err(format!("`{text}` is not a number")),
    }
}

/// Why the configuration could not be built.
#[derive(Debug)]
#[non_exhaustive]
pub enum ArgsError {
    /// The `-c` file could not be read.
    ReadFile {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The `-c` file is not properties text.
    Properties {
        /// The file.
        path: PathBuf,
        /// The parse error.
        source: PropertiesError,
    },
    /// The ACL file cannot be used.
    Acl(crate::acl::AclError),
    /// `--auth` and `--allow-from` do not make a set of rules.
    Auth(String),
    /// The embedded controller is asked for but misconfigured.
    Controller {
        /// The `-c` file.
        path: PathBuf,
        /// The key and what is wrong.
        source: crate::controller::settings::SettingsError,
    },
    /// A value does not fit its key.
    Value {
        /// Where the value came from (the file, or a flag).
        origin: String,
        /// The key, the value and what was expected.
        source: ConfigError,
    },
}

impl fmt::Display for ArgsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ReadFile { path, source } => write!(f, "cannot read the config file {}: {source}", path.display()),
            Self::Properties { path, source } => {
                write!(f, "the config file {} is not a properties file: {source}", path.display())
            }
            Self::Value { origin, source } => write!(f, "{origin}: {source}"),
            Self::Controller { path, source } => write!(f, "{}: {source}", path.display()),
            Self::Acl(error) => error.fmt(f),
            Self::Auth(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for ArgsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::ReadFile { source, .. } => Some(source),
            Self::Properties { source, .. } => Some(source),
            Self::Value { source, .. } => Some(source),
            Self::Controller { source, .. } => Some(source),
            Self::Acl(error) => Some(error),
            Self::Auth(_) => None,
        }
    }
}

impl Args {
    /// The NameServer configuration: Java's defaults (paths under `home_dir`, `rocketmqHome`
    /// as given), every key of the `-c` file, then the flags. As in Java, the `-c` path
    /// becomes `configStorePath`, so runtime updates persist back into that file.
    ///
    /// A number outside its key's Java range (a runtime update may have persisted one) is
    /// clamped into it; each such key is in the warnings returned with the configuration.
    ///
    /// # Errors
    /// The file cannot be read or parsed, or a value does not parse as its key's type.
    pub fn namesrv_config(&self, home_dir: &str, rocketmq_home: &str) -> Result<(Config, Vec<String>), ArgsError> {
        let mut config = Config::java_defaults(home_dir, rocketmq_home);
        let mut warnings = Vec::new();
        if let Some(path) = &self.config_file {
            for (key, value) in read_properties(path)? {
                let clamped = config
                    .set_clamped(&key, &value)
                    .map_err(|source| ArgsError::Value { origin: path.display().to_string(), source })?;
                if let Some(used) = clamped {
                    warnings.push(format!(
                        "{}: {key}={} is outside the range of its Java type; using {used}",
                        path.display(),
                        value.trim()
                    ));
                }
            }
            config.config_store_path = path.display().to_string();
            crate::config_keys::go_away_window(&config)
                .map_err(|source| ArgsError::Value { origin: path.display().to_string(), source })?;
        }
        if let Some(graceful) = self.enable_shutdown_gracefully {
            config
                .set(crate::config_keys::ENABLE_SHUTDOWN_GRACEFULLY, &graceful.to_string())
                .map_err(|source| ArgsError::Value { origin: "--enable-shutdown-gracefully".into(), source })?;
        }
        if let Some(seconds) = self.shutdown_wait_time_seconds {
            config
                .set(crate::config_keys::SHUTDOWN_WAIT_TIME_SECONDS, &seconds.to_string())
                .map_err(|source| ArgsError::Value { origin: "--shutdown-wait-time-seconds".into(), source })?;
        }
        if let Some(port) = self.listen_port {
            config.listen_port = port;
        }
        if let Some(address) = &self.bind_address {
            config
                .set("bindAddress", address)
                .map_err(|source| ArgsError::Value { origin: "--bind-address".into(), source })?;
        }
        Ok((config, warnings))
    }

    /// The embedded controller's settings from the `-c` file (the only way in, as in Java);
    /// `None` when the file does not set `enableControllerInNamesrv=true`.
    ///
    /// # Errors
    /// The file cannot be read, or the controller it asks for is misconfigured (the error
    /// names the key).
    pub fn controller_settings(
        &self,
        namesrv: &Config,
        home_dir: &str,
    ) -> Result<Option<crate::controller::settings::ControllerSettings>, ArgsError> {
        let Some(path) = &self.config_file else { return Ok(None) };
        let properties = read_properties(path)?;
        let mut settings = crate::controller::settings::from_properties(&properties, home_dir, namesrv.listen_port)
            .map_err(|source| ArgsError::Controller { path: path.clone(), source })?;
        if let Some(settings) = settings.as_mut() {
            settings.list_server_keys(&namesrv.to_properties());
            // UPDATE_CONTROLLER_CONFIG follows UPDATE_NAMESRV_CONFIG's --remote-config.
            settings.config.remote_config = self.remote_config;
            #[cfg(feature = "test-hooks")]
            {
                settings.config.replace_masters = !self.test_no_failover;
            }
        }
        Ok(settings)
    }

    /// The TLS settings: Java's defaults, the `-D` properties, then `tls.config.file` (Java's
    /// order: the file wins, except for the mode).
    ///
    /// # Errors
    /// The TLS config file exists but cannot be read or parsed.
    pub fn tls_config(&self) -> Result<TlsConfig, TlsError> {
        let system: BTreeMap<String, String> = self.system_properties.iter().cloned().collect();
        TlsConfig::from_system_properties(&system)
    }

    /// The value of a `-D` key: the last one given, as in Java.
    #[must_use]
    pub fn system_property(&self, key: &str) -> Option<&str> {
        self.system_properties.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// `-D` keys this server does not read, for a warning at start.
    #[must_use]
    pub fn unknown_system_properties(&self) -> Vec<&str> {
        self.system_properties
            .iter()
            .map(|(key, _)| key.as_str())
            .filter(|key| !crate::tls::SERVER_KEYS.contains(key) && !OTHER_SYSTEM_KEYS.contains(key))
            .collect()
    }

    /// Authentication on the RocketMQ port: the rules of `--auth` and `--allow-from`, and the
    /// accounts of `--acl-file` with what to warn about in it.
    ///
    /// # Errors
    /// The rules are contradictory, signed or admin without a file, or the file cannot be used.
    pub fn auth_config(&self) -> Result<(AuthConfig, Vec<String>), ArgsError> {
        let rules =
            crate::acl::rules(self.acl_file.is_some(), &self.auth, &self.allow_from).map_err(ArgsError::Auth)?;
        let Some(path) = &self.acl_file else {
            return Ok((AuthConfig { rules, ..AuthConfig::open() }, Vec::new()));
        };
        let (file, acl_bytes) = crate::acl::load(path).map_err(ArgsError::Acl)?;
        let warnings = file.ignored.iter().map(|w| format!("the ACL file {}: {w}", path.display())).collect();
        Ok((AuthConfig { rules, acl_file: Some(path.clone()), accounts: file.accounts, acl_bytes }, warnings))
    }

    /// The HTTP console's options; `None` with `--no-http`.
    ///
    /// # Errors
    /// The `--http-token-file` cannot be read.
    pub fn http_options(&self) -> Result<Option<HttpOptions>, ArgsError> {
        if self.no_http {
            return Ok(None);
        }
        let token = match &self.http_token_file {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|source| ArgsError::ReadFile { path: path.clone(), source })?;
                Some(text.lines().next().unwrap_or_default().trim().to_string())
            }
            None => self.http_token.clone(),
        };
        Ok(Some(HttpOptions {
            page: self.http_root.clone().map_or_else(Page::builtin, Page::Dir),
            token: token.filter(|token| !token.is_empty()),
            nsaddr: self.http_nsaddr.clone(),
            allow_origins: self.http_allow_origin.clone(),
            peers: self.http_peers.clone(),
            tls: self.http_tls,
            allowed_hosts: self
                .http_allowed_hosts
                .iter()
                .map(|h| h.trim().to_string())
                .filter(|h| !h.is_empty())
                .collect(),
            max_connections: self.http_max_connections.max(1),
            ..HttpOptions::default()
        }))
    }

    /// What to tell the operator about how the console's token was given.
    #[must_use]
    pub fn token_warnings(&self, options: &HttpOptions) -> Vec<String> {
        let mut out = Vec::new();
        let from_environment = std::env::var("NAMESERVER_HTTP_TOKEN").ok();
        if self.http_token.is_some() && self.http_token != from_environment {
            out.push(String::from(
                "--http-token on the command line is visible to every user of this host (ps, /proc/<pid>/cmdline); \
                 use --http-token-file or NAMESERVER_HTTP_TOKEN",
            ));
        }
        if let Some(token) = &options.token {
            if token.len() < MIN_TOKEN_BYTES {
                out.push(format!(
                    "the console's token has {} bytes; {MIN_TOKEN_BYTES} random bytes or more resist guessing (there is no limit on wrong tries)",
                    token.len()
                ));
            }
        }
        out
    }

    /// The server settings for `namesrv` and the loaded KV table, with this command line's
    /// limits.
    #[must_use]
    pub fn server_config(&self, namesrv: Config, kv: KvConfig) -> ServerConfig {
        ServerConfig {
            limits: Limits {
                max_frame: self.max_frame_bytes,
                max_decompressed: self.max_register_body_bytes,
                max_register_topics: self.max_topics_per_registration,
                max_kv_value: self.max_kv_value_bytes,
                max_kv_bytes: self.max_kv_bytes,
            },
            max_connections: self.max_connections,
            proxy_protocol_from: self.proxy_protocol_from.iter().collect(),
            max_connections_per_source: self.max_connections_per_source,
            per_source_exempt: self.per_source_exempt.iter().collect(),
            remote_config: self.remote_config,
            route_cache_bytes: self.route_cache_bytes,
            #[cfg(feature = "test-hooks")]
            io_deadline: self.test_deadline_ms.map_or(crate::DEFAULT_DEADLINE, std::time::Duration::from_millis),
            go_away_window: crate::config_keys::go_away_window(&namesrv).unwrap_or(None),
            ..ServerConfig::new(namesrv, kv)
        }
    }
}

/// Reads a properties file. Java reads them as ISO-8859-1; UTF-8 is accepted too, and a file
/// that is not UTF-8 is read as ISO-8859-1.
fn read_properties(path: &Path) -> Result<std::collections::BTreeMap<String, String>, ArgsError> {
    let bytes = std::fs::read(path).map_err(|source| ArgsError::ReadFile { path: path.to_path_buf(), source })?;
    let text =
        String::from_utf8(bytes).unwrap_or_else(|error| error.into_bytes().iter().map(|&b| char::from(b)).collect());
    properties::parse(&text).map_err(|source| ArgsError::Properties { path: path.to_path_buf(), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cidr_flags_take_lists_repeated_empty_or_with_a_trailing_comma() {
        let args = Args::try_parse_from([
            "nameserver",
            "--proxy-protocol-from",
            "10.0.0.0/8,",
            "--proxy-protocol-from",
            "192.0.2.7",
            "--per-source-exempt",
            "",
        ])
        .unwrap();
        let config = args.server_config(Config::java_defaults("/h", "/r"), KvConfig::default());
        assert_eq!(config.proxy_protocol_from.to_string(), "10.0.0.0/8,192.0.2.7/32");
        assert!(config.per_source_exempt.is_empty());
        let error = Args::try_parse_from(["nameserver", "--per-source-exempt", "10.0.0.0/8,10.0.0.300"]).unwrap_err();
        let error = error.to_string();
        assert!(error.contains("`10.0.0.300` is not an address or CIDR block") && error.contains("e.g."), "{error}");
    }

    #[test]
    fn sizes_are_bytes_or_binary_units() {
        assert_eq!(parse_byte_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_byte_size("4MiB"), Ok(4 << 20));
        assert_eq!(parse_byte_size("64 KiB"), Ok(64 << 10));
        assert_eq!(parse_byte_size("1GiB"), Ok(1 << 30));
        assert!(parse_byte_size("0").is_err());
        assert!(parse_byte_size("4MB").is_err());
        assert!(parse_byte_size("MiB").is_err());
        assert!(parse_byte_size("99999999999999999999GiB").is_err());
    }
}
