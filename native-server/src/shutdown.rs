//! The operating system's request to stop: SIGINT (Ctrl-C) or SIGTERM.
//!
//! [`signals`] installs the handlers at once (so a signal that arrives during start-up is not
//! lost): the first signal is [`crate::run`]'s shutdown trigger, a second one ends a graceful
//! shutdown's GO_AWAY window early ([`crate::ServerConfig::go_away_cut_short`]).

use std::io;

use tokio_util::sync::CancellationToken;

/// Cancelled by the signals as they come.
#[derive(Clone, Debug, Default)]
pub struct Signals {
    /// The first SIGINT or SIGTERM (on non-Unix systems, Ctrl-C).
    pub first: CancellationToken,
    /// A second one.
    pub again: CancellationToken,
}

/// Listens for the signals on a task of their own (within a tokio runtime).
///
/// # Errors
/// A signal handler could not be installed.
pub fn signals() -> io::Result<Signals> {
    let signals = Signals::default();
    let (first, again) = (signals.first.clone(), signals.again.clone());
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        tokio::spawn(async move {
            for round in 0..2 {
                let name = tokio::select! {
                    _ = interrupt.recv() => "SIGINT",
                    _ = terminate.recv() => "SIGTERM",
                };
                if round == 0 {
                    tracing::info!(
                        "{name} received: shutting down (stop accepting, answer what is in flight, flush the KV config)"
                    );
                    first.cancel();
                } else {
                    tracing::info!("{name} received again: a GO_AWAY window ends now");
                    again.cancel();
                }
            }
        });
    }
    #[cfg(not(unix))]
    {
        tokio::spawn(async move {
            for round in 0..2 {
                // No way to hear the signal: run until killed rather than stop at once.
                if tokio::signal::ctrl_c().await.is_err() {
                    return;
                }
                if round == 0 {
                    tracing::info!("Ctrl-C received: shutting down");
                    first.cancel();
                } else {
                    again.cancel();
                }
            }
        });
    }
    Ok(signals)
}
