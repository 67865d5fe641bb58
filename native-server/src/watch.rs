//! Reloading from files: when a watched file's bytes change (looked at every 500 ms, as Java's
//! `FileWatchService`) or on SIGHUP. The TLS certificate and the ACL file both reload this way;
//! what a reload does, and what it logs, is the caller's.

use std::path::PathBuf;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// Java's `FileWatchService` interval.
const WATCH_EVERY: Duration = Duration::from_millis(500);

/// What started a reload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trigger {
    /// A watched file's bytes changed.
    Changed,
    /// SIGHUP.
    Hangup,
}

/// Watches `files` (whose bytes in use are `seen`, in the same order) and SIGHUP until `stop`,
/// calling `reload` on each change. `reload` returns the files' bytes it used when it
/// succeeded (`None` or an empty list: keep what was read). With no files, only SIGHUP reloads.
pub(crate) async fn watch(
    files: Vec<PathBuf>,
    mut seen: Vec<Vec<u8>>,
    stop: CancellationToken,
    mut reload: impl FnMut(Trigger) -> Option<Vec<Vec<u8>>>,
) {
    let mut hangups = hangups();
    let mut tick = tokio::time::interval(WATCH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let trigger = tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => Trigger::Changed,
            Some(()) = next_hangup(&mut hangups) => Trigger::Hangup,
        };
        if trigger == Trigger::Changed {
            let now: Vec<_> = files.iter().map(|p| std::fs::read(p).unwrap_or_default()).collect();
            if now.is_empty() || now == seen {
                continue;
            }
            // Remember what was seen, good or not: a broken file is reported once per change.
            seen = now;
        }
        if let Some(used) = reload(trigger).filter(|used| !used.is_empty()) {
            seen = used;
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
