//! The GO_AWAY window of a graceful shutdown, as every connection sees it.

/// Set once a graceful shutdown's GO_AWAY window begins; every connection checks it on every
/// request. An atomic load: a `CancellationToken`'s check takes a lock, and one token shared by
/// every connection moved that lock's cache line between the cores on each route query.
#[derive(Clone, Debug, Default)]
pub(crate) struct GoingAway(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl GoingAway {
    /// The window begins (for good).
    pub(crate) fn begin(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Whether it has begun.
    #[inline]
    pub(crate) fn has_begun(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Acquire)
    }
}
