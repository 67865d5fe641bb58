//! TLS on the RocketMQ port, configured as Java's remoting server is (PROTOCOL.md §1.3).
//!
//! Java reads `tls.*` system properties (`-D` on its command line, here `-D` too), then the
//! file named by `tls.config.file` (default `/etc/rocketmq/tls.properties`), whose values win.
//! `tls.server.mode` (`disabled`, `permissive`, `enforcing`; anything else is `permissive`,
//! as in Java) comes from `-D` only. With `tls.test.mode.enable=true` (Java's default) and no
//! certificate configured, the server uses a self-signed certificate made at start, as Java's
//! test mode does. `tls.ciphers` and `tls.protocols` narrow what is served ([`suites`]).
//! Certificates are reloaded when their files change or on SIGHUP ([`reload`]).

mod files;
pub mod reload;
pub mod suites;
mod verifier;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::ServerConfig;
use rustls::server::WebPkiClientVerifier;

pub use files::Loaded;
pub use suites::Protocol;

/// `tls.server.mode`.
pub const MODE: &str = "tls.server.mode";
/// `tls.config.file`.
pub const CONFIG_FILE: &str = "tls.config.file";
/// Java's default `tls.config.file`.
pub const DEFAULT_CONFIG_FILE: &str = "/etc/rocketmq/tls.properties";
/// `tls.test.mode.enable`.
pub const TEST_MODE: &str = "tls.test.mode.enable";
/// `tls.server.need.client.auth`.
pub const NEED_CLIENT_AUTH: &str = "tls.server.need.client.auth";
/// `tls.server.keyPath`.
pub const KEY_PATH: &str = "tls.server.keyPath";
/// `tls.server.keyPassword`.
pub const KEY_PASSWORD: &str = "tls.server.keyPassword";
/// `tls.server.certPath`.
pub const CERT_PATH: &str = "tls.server.certPath";
/// `tls.server.authClient`.
pub const AUTH_CLIENT: &str = "tls.server.authClient";
/// `tls.server.trustCertPath`.
pub const TRUST_CERT_PATH: &str = "tls.server.trustCertPath";
/// `tls.ciphers` (Java 5.3.4+): the cipher suites served, JSSE names, comma-separated.
pub const CIPHERS: &str = "tls.ciphers";
/// `tls.protocols` (Java 5.3.4+): the protocol versions served, `TLSv1.2`, `TLSv1.3`.
pub const PROTOCOLS: &str = "tls.protocols";

/// The `tls.*` keys this server reads; the `tls.client.*` ones are a client's.
pub const SERVER_KEYS: [&str; 11] = [
    MODE,
    CONFIG_FILE,
    TEST_MODE,
    NEED_CLIENT_AUTH,
    KEY_PATH,
    KEY_PASSWORD,
    CERT_PATH,
    AUTH_CLIENT,
    TRUST_CERT_PATH,
    CIPHERS,
    PROTOCOLS,
];

/// `tls.server.mode`: what the first byte of a connection decides (Java's `TlsModeHandler`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlsMode {
    /// No TLS: a connection starting with a TLS handshake is closed.
    Disabled,
    /// TLS when the connection starts with a handshake (0x16), plaintext otherwise.
    Permissive,
    /// TLS only: a plaintext connection is closed.
    Enforcing,
}

impl TlsMode {
    /// Java's `TlsMode.parse`: exact lower-case names, anything else is permissive.
    #[must_use]
    pub fn parse(text: &str) -> Self {
        match text {
            "disabled" => Self::Disabled,
            "enforcing" => Self::Enforcing,
            _ => Self::Permissive,
        }
    }

    /// Java's name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::Permissive => "permissive",
            Self::Enforcing => "enforcing",
        }
    }
}

/// `tls.server.need.client.auth`: whether clients must show a certificate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientAuth {
    /// Never asked for.
    None,
    /// Asked for; a client without one is served.
    Optional,
    /// Required: a client without one fails the handshake.
    Require,
}

impl ClientAuth {
    /// Java's `parseClientAuthMode`: case-insensitive, anything else is none.
    #[must_use]
    pub fn parse(text: &str) -> Self {
        match text.trim().to_ascii_uppercase().as_str() {
            "OPTIONAL" => Self::Optional,
            "REQUIRE" => Self::Require,
            _ => Self::None,
        }
    }

    /// Java's word for it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Optional => "optional",
            Self::Require => "require",
        }
    }
}

/// The TLS settings of the RocketMQ port (and of the HTTP console with `--http-tls`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsConfig {
    /// `tls.server.mode`.
    pub mode: TlsMode,
    /// `tls.test.mode.enable`: a self-signed certificate when none is configured.
    pub test_mode: bool,
    /// `tls.server.certPath`: the certificate chain, PEM.
    pub cert_path: Option<PathBuf>,
    /// `tls.server.keyPath`: the private key, PEM (PKCS#8, PKCS#1 or SEC1; an encrypted
    /// PKCS#8 key with `tls.server.keyPassword`).
    pub key_path: Option<PathBuf>,
    /// `tls.server.keyPassword`.
    pub key_password: Option<String>,
    /// `tls.server.trustCertPath`: CA certificates client certificates are checked against.
    pub trust_cert_path: Option<PathBuf>,
    /// `tls.server.need.client.auth`.
    pub need_client_auth: ClientAuth,
    /// `tls.server.authClient`: check client certificates against `trustCertPath`.
    pub auth_client: bool,
    /// `tls.ciphers`: the suites served, in this order (all rustls's when `None`).
    pub ciphers: Option<Vec<rustls::CipherSuite>>,
    /// `tls.protocols`: the versions served (TLS 1.2 and 1.3 when `None`).
    pub protocols: Option<Vec<Protocol>>,
}

/// Why TLS could not be set up.
#[derive(Debug)]
pub struct TlsError(pub String);

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TlsError {}

impl TlsConfig {
    /// No TLS (connections that start with a handshake are closed).
    #[must_use]
    pub fn disabled() -> Self {
        Self { mode: TlsMode::Disabled, ..Self::java_defaults() }
    }

    /// Java's defaults: permissive, test mode (self-signed), no client certificates.
    #[must_use]
    pub fn java_defaults() -> Self {
        Self {
            mode: TlsMode::Permissive,
            test_mode: true,
            cert_path: None,
            key_path: None,
            key_password: None,
            trust_cert_path: None,
            need_client_auth: ClientAuth::None,
            auth_client: false,
            ciphers: None,
            protocols: None,
        }
    }

    /// The settings from `-D` properties, then from the `tls.config.file` they name (or
    /// Java's default file), whose values win, as in Java's `TlsHelper`.
    ///
    /// # Errors
    /// The file exists but cannot be read or is not properties text, or a cipher suite or
    /// protocol named is not one served here.
    pub fn from_system_properties(system: &BTreeMap<String, String>) -> Result<Self, TlsError> {
        let file = system.get(CONFIG_FILE).map_or(DEFAULT_CONFIG_FILE, String::as_str);
        let mut merged = system.clone();
        match std::fs::read(file) {
            Ok(bytes) => {
                let text = String::from_utf8(bytes)
                    .unwrap_or_else(|error| error.into_bytes().iter().map(|&b| char::from(b)).collect());
                let from_file = nameserver_core::properties::parse(&text)
                    .map_err(|error| TlsError(format!("{CONFIG_FILE} {file}: {error}")))?;
                // Java takes neither the mode nor the file's name from the file.
                merged.extend(from_file.into_iter().filter(|(key, _)| key != MODE && key != CONFIG_FILE));
                tracing::info!("TLS settings read from {file}");
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(TlsError(format!("{CONFIG_FILE} {file}: {error}"))),
        }
        Self::from_properties(&merged)
    }

    /// The settings in `props` (Java's defaults for missing keys).
    ///
    /// # Errors
    /// `tls.ciphers` or `tls.protocols` names something not served here.
    pub fn from_properties(props: &BTreeMap<String, String>) -> Result<Self, TlsError> {
        let get = |key: &str| props.get(key).map(|v| v.trim()).filter(|v| !v.is_empty());
        let path = |key: &str| get(key).map(PathBuf::from);
        let flag = |key: &str, default: bool| get(key).map_or(default, |v| v.eq_ignore_ascii_case("true"));
        let defaults = Self::java_defaults();
        // An empty value is no list, as for the other keys (Java would pass Netty one empty name).
        let list = |key: &str| props.get(key).filter(|v| !v.trim().is_empty());
        Ok(Self {
            mode: props.get(MODE).map_or(defaults.mode, |v| TlsMode::parse(v)),
            test_mode: flag(TEST_MODE, defaults.test_mode),
            cert_path: path(CERT_PATH),
            key_path: path(KEY_PATH),
            key_password: props.get(KEY_PASSWORD).filter(|v| !v.is_empty()).cloned(),
            trust_cert_path: path(TRUST_CERT_PATH),
            need_client_auth: get(NEED_CLIENT_AUTH).map_or(ClientAuth::None, ClientAuth::parse),
            auth_client: flag(AUTH_CLIENT, defaults.auth_client),
            ciphers: list(CIPHERS).map(|v| suites::parse_ciphers(v)).transpose()?,
            protocols: list(PROTOCOLS).map(|v| suites::parse_protocols(v)).transpose()?,
        })
    }

    /// The files whose change reloads the certificates.
    #[must_use]
    pub fn watched_files(&self) -> Vec<&Path> {
        [&self.cert_path, &self.key_path, &self.trust_cert_path].into_iter().flatten().map(PathBuf::as_path).collect()
    }

    /// Builds the rustls configuration: the certificate and key read now (or a fresh
    /// self-signed one in test mode), and the client-certificate policy.
    ///
    /// # Errors
    /// A file that cannot be read or holds no usable certificate or key, a key that does not
    /// match the certificate, no certificate at all outside test mode, or `tls.ciphers` and
    /// `tls.protocols` that leave no suite.
    pub fn build(&self) -> Result<Loaded, TlsError> {
        let mut provider = rustls::crypto::ring::default_provider();
        let (cipher_suites, versions) =
            suites::select(&provider.cipher_suites, self.ciphers.as_deref(), self.protocols.as_deref())?;
        provider.cipher_suites = cipher_suites;
        let provider = Arc::new(provider);
        let (chain, key, contents) = files::certificate(self)?;
        if self.ciphers.is_some() {
            let algorithm = provider
                .key_provider
                .load_private_key(key.clone_key())
                .map_err(|error| TlsError(format!("{KEY_PATH}: {error}")))?
                .algorithm();
            suites::fit_key(&provider.cipher_suites, &versions, algorithm)?;
        }
        let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_protocol_versions(&versions)
            .map_err(|error| TlsError(error.to_string()))?;
        let builder = match self.need_client_auth {
            ClientAuth::None => builder.with_no_client_auth(),
            auth => {
                let mandatory = auth == ClientAuth::Require;
                match (&self.trust_cert_path, self.auth_client) {
                    (Some(path), _) => {
                        let roots = files::roots(path)?;
                        let verifier =
                            WebPkiClientVerifier::builder_with_provider(Arc::new(roots), Arc::clone(&provider));
                        let verifier = if mandatory { verifier } else { verifier.allow_unauthenticated() };
                        builder.with_client_cert_verifier(
                            verifier.build().map_err(|error| TlsError(format!("{TRUST_CERT_PATH}: {error}")))?,
                        )
                    }
                    (None, true) => {
                        return Err(TlsError(format!(
                            "{AUTH_CLIENT}=true needs {TRUST_CERT_PATH}: the CA certificates client certificates are checked against"
                        )));
                    }
                    // Java without authClient: a certificate is asked for but trusted blindly.
                    (None, false) => builder.with_client_cert_verifier(Arc::new(verifier::AnyClientCert::new(
                        mandatory,
                        provider.signature_verification_algorithms,
                    ))),
                }
            }
        };
        let mut config = builder
            .with_single_cert(chain, key)
            .map_err(|error| TlsError(format!("{CERT_PATH} and {KEY_PATH} do not fit together: {error}")))?;
        config.alpn_protocols.clear();
        Ok(Loaded { config: Arc::new(config), contents })
    }
}
