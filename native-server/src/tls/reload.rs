//! The certificate in use, and its reloading (`watch.rs`: when a watched file's bytes
//! change or on SIGHUP). A reload that fails is logged and the certificate in use stays;
//! connections already open keep theirs.

use std::path::Path;
use std::sync::Arc;

use arc_swap::ArcSwap;
use tokio_util::sync::CancellationToken;

use super::{Loaded, TlsConfig, TlsMode};
use crate::watch::Trigger;

/// The RocketMQ port's TLS: the mode and, unless disabled, the configuration in use.
#[derive(Debug)]
pub struct TlsPort {
    /// `tls.server.mode`.
    pub mode: TlsMode,
    current: Option<ArcSwap<rustls::ServerConfig>>,
}

impl TlsPort {
    /// Builds the configuration `settings` describe (none when disabled).
    ///
    /// # Errors
    /// As [`TlsConfig::build`].
    pub fn new(settings: &TlsConfig) -> Result<(Self, Option<Loaded>), super::TlsError> {
        if settings.mode == TlsMode::Disabled {
            return Ok((Self { mode: settings.mode, current: None }, None));
        }
        let loaded = settings.build()?;
        let current = Some(ArcSwap::new(Arc::clone(&loaded.config)));
        Ok((Self { mode: settings.mode, current }, Some(loaded)))
    }

    /// The configuration for a new TLS connection, `None` when disabled.
    #[must_use]
    pub fn config(&self) -> Option<Arc<rustls::ServerConfig>> {
        self.current.as_ref().map(ArcSwap::load_full)
    }

    fn replace(&self, next: Arc<rustls::ServerConfig>) {
        if let Some(current) = &self.current {
            current.store(next);
        }
    }
}

/// Watches `settings`' files and SIGHUP until `stop`, swapping in each good reload.
pub(crate) async fn watch(settings: TlsConfig, port: Arc<TlsPort>, loaded: Loaded, stop: CancellationToken) {
    let files = settings.watched_files().into_iter().map(Path::to_path_buf).collect();
    let seen = loaded.contents.into_iter().map(|(_, bytes)| bytes).collect();
    crate::watch::watch(files, seen, stop, |trigger| {
        let why = match trigger {
            Trigger::Hangup => "SIGHUP",
            Trigger::Changed => "the certificate files changed",
        };
        match settings.build() {
            Ok(next) => {
                port.replace(next.config);
                tracing::info!("{why}: reloaded the TLS certificate; new connections use it");
                Some(next.contents.into_iter().map(|(_, bytes)| bytes).collect())
            }
            Err(error) => {
                tracing::error!("{why}: cannot reload the TLS certificate ({error}); keeping the one in use");
                None
            }
        }
    })
    .await;
}
