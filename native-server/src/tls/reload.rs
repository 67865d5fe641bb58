//! The certificate in use, and its reloading: when a watched file's bytes change (looked at
//! every 500 ms, as Java's `FileWatchService`) or on SIGHUP. A reload that fails is logged and
//! the certificate in use stays; connections already open keep theirs.

use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use tokio_util::sync::CancellationToken;

use super::{Loaded, TlsConfig, TlsMode};

/// Java's `FileWatchService` interval.
const WATCH_EVERY: Duration = Duration::from_millis(500);

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
    let mut seen = loaded.contents;
    let mut hangups = hangups();
    let mut tick = tokio::time::interval(WATCH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let forced = tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => false,
            Some(()) = next_hangup(&mut hangups) => true,
        };
        if !forced {
            let now: Vec<_> =
                settings.watched_files().into_iter().map(|p| std::fs::read(p).unwrap_or_default()).collect();
            let before: Vec<_> = seen.iter().map(|(_, bytes)| bytes.clone()).collect();
            if now.is_empty() || now == before {
                continue;
            }
            // Remember what was seen, good or not: a broken file is reported once per change.
            seen = settings.watched_files().into_iter().map(|p| p.to_path_buf()).zip(now).collect();
        }
        let why = if forced { "SIGHUP" } else { "the certificate files changed" };
        match settings.build() {
            Ok(next) => {
                port.replace(next.config);
                if !next.contents.is_empty() {
                    seen = next.contents;
                }
                tracing::info!("{why}: reloaded the TLS certificate; new connections use it");
            }
            Err(error) => tracing::error!("{why}: cannot reload the TLS certificate ({error}); keeping the one in use"),
        }
    }
}

#[cfg(unix)]
type Hangups = Option<tokio::signal::unix::Signal>;
#[cfg(not(unix))]
type Hangups = Option<()>;

#[cfg(unix)]
fn hangups() -> Hangups {
    use tokio::signal::unix::{SignalKind, signal};
    signal(SignalKind::hangup()).map_err(|error| tracing::warn!("cannot listen for SIGHUP: {error}")).ok()
}

#[cfg(not(unix))]
fn hangups() -> Hangups {
    None
}

#[cfg(unix)]
async fn next_hangup(hangups: &mut Hangups) -> Option<()> {
    match hangups {
        Some(signal) => signal.recv().await,
        None => std::future::pending().await,
    }
}

#[cfg(not(unix))]
async fn next_hangup(_hangups: &mut Hangups) -> Option<()> {
    std::future::pending().await
}
