//! Shared helpers for the interop producer/consumer binaries.

use std::collections::HashMap;
use std::sync::Arc;

use rocketmq_client_rust::ClientConfig;
use rocketmq_client_rust::ClientError;
use rocketmq_client_rust::ClientResult;
use rocketmq_client_rust::ClientRuntime;
use rocketmq_client_rust::ClientRuntimeConfig;
use rocketmq_runtime::RuntimeConfig;
use rocketmq_runtime::RuntimeOwner;

/// `--key value` flags; a bare `--key` gets the value "true".
pub struct Flags {
    map: HashMap<String, String>,
}

impl Flags {
    pub fn from_env(usage: &str) -> Flags {
        let mut map = HashMap::new();
        let mut it = std::env::args().skip(1).peekable();
        while let Some(arg) = it.next() {
            if arg == "-h" || arg == "--help" {
                println!("{usage}");
                std::process::exit(0);
            }
            let Some(key) = arg.strip_prefix("--") else {
                eprintln!("unexpected argument {arg:?}\n{usage}");
                std::process::exit(2);
            };
            let value = match it.peek() {
                Some(v) if !v.starts_with("--") => it.next().unwrap(),
                _ => "true".to_string(),
            };
            map.insert(key.to_string(), value);
        }
        Flags { map }
    }

    pub fn str(&self, key: &str, default: &str) -> String {
        self.map.get(key).cloned().unwrap_or_else(|| default.to_string())
    }

    pub fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    pub fn num(&self, key: &str, default: u64) -> u64 {
        match self.map.get(key) {
            None => default,
            Some(v) => v.parse().unwrap_or_else(|_| {
                eprintln!("--{key} wants a number, got {v:?}");
                std::process::exit(2)
            }),
        }
    }
}

/// Client settings from `--tls` and `--tls-trust PATH`. TLS applies to every
/// connection the client opens, NameServer and broker alike (one remoting
/// client); with PATH the server certificate is checked against that PEM CA,
/// without it it is not checked.
pub fn client_config(flags: &Flags) -> ClientConfig {
    let mut config = ClientConfig::default();
    if flags.has("tls") || flags.has("tls-trust") {
        config.set_use_tls(true);
        match flags.map.get("tls-trust") {
            Some(path) => config.set_tls_client_trust_cert_path(path.clone()),
            None => config.set_tls_client_auth_server(false),
        }
    }
    config
}

/// Owns the runtime pieces the 1.0.0 client insists on (runtime owner,
/// telemetry guard, client runtime).
pub struct Env {
    owner: RuntimeOwner,
    telemetry: rocketmq_observability::TelemetryRuntimeGuard,
    pub client: Arc<ClientRuntime>,
}

impl Env {
    pub fn new(name: &str) -> ClientResult<Env> {
        let owner = RuntimeOwner::plan(RuntimeConfig {
            thread_name: format!("interop-{name}"),
            ..Default::default()
        })
        .map_err(|e| ClientError::internal("plan runtime", e))?
        .build()
        .map_err(|e| ClientError::internal("build runtime", e))?;
        let mut telemetry_cfg = rocketmq_observability::TelemetryBootstrapConfig::default();
        // Keep the client quiet unless RUST_LOG asks for more.
        telemetry_cfg.logging.filter = std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".to_string());
        telemetry_cfg.logging.console.ansi = false;
        let telemetry = rocketmq_observability::install_global(&telemetry_cfg)
            .map_err(|e| ClientError::internal("install telemetry", e))?;
        let client = ClientRuntime::try_new(
            owner.root_context().component("client"),
            ClientRuntimeConfig::default(),
            telemetry.handle(),
        )?;
        Ok(Env { owner, telemetry, client })
    }

    pub async fn shutdown(self) {
        let _ = self.client.shutdown().await;
        let _ = self.owner.shutdown_tasks().await;
        let _ = self.owner.shutdown_background();
        let _ = self.telemetry.shutdown();
    }
}

pub fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}
