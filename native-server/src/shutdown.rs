//! The operating system's request to stop: SIGINT (Ctrl-C) or SIGTERM.
//!
//! [`signals`] installs the handlers at once (so a signal that arrives during start-up is not
//! lost) and returns the future that [`crate::run`] takes as its shutdown trigger.

use std::future::Future;
use std::io;

/// A future that resolves on the first SIGINT or SIGTERM (on non-Unix systems, Ctrl-C).
///
/// # Errors
/// A signal handler could not be installed.
pub fn signals() -> io::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        Ok(async move {
            let name = tokio::select! {
                _ = interrupt.recv() => "SIGINT",
                _ = terminate.recv() => "SIGTERM",
            };
            tracing::info!(
                "{name} received: shutting down (stop accepting, answer what is in flight, flush the KV config)"
            );
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            match tokio::signal::ctrl_c().await {
                Ok(()) => tracing::info!("Ctrl-C received: shutting down"),
                // No way to hear the signal: run until killed rather than stop at once.
                Err(_) => std::future::pending().await,
            }
        })
    }
}
