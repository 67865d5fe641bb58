//! Waiting on a state nothing announces: the one hang guard, [`PATIENCE`], and the only
//! sleep in the tests' Rust code, [`eventually`]'s poll interval.

use std::future::Future;
use std::time::Duration;

/// How long a test waits for something that should happen at once (real time): a hang
/// guard, never a measure of speed, so generous enough for a loaded 2-core machine. 30 s
/// was not: at load 19 a debug daemon took longer to refuse a zip bomb (h07) and to take
/// 4 MiB KV puts (h23, h24). Only a failing test ever waits this long.
pub const PATIENCE: Duration = Duration::from_secs(120);

/// How often [`eventually`] looks again.
const POLL: Duration = Duration::from_millis(20);

/// Polls `check` until it gives a value, failing the test after [`PATIENCE`]: for a state
/// nothing announces (a file written off the owner, a peer's view refreshed by its own timer).
///
/// # Panics
/// `check` gave nothing within [`PATIENCE`].
pub async fn eventually<T, F: Future<Output = Option<T>>>(what: &str, mut check: impl FnMut() -> F) -> T {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(POLL).await;
    }
}

/// [`eventually`] on a thread of its own (no runtime).
///
/// # Panics
/// `check` gave nothing within [`PATIENCE`].
pub fn eventually_blocking<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(std::time::Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(POLL);
    }
}

/// Fails the test if `future` takes longer than [`PATIENCE`] of real time.
///
/// # Panics
/// It did.
pub async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(PATIENCE, future).await.unwrap_or_else(|_| panic!("timed out: {what}"))
}
