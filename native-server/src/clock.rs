//! The bridge between tokio's clock and the core's [`Instant`] (milliseconds since start).
//!
//! Everything reads tokio's clock, so tests that pause and advance tokio time move the
//! NameServer's time too.

use std::time::Duration;

use nameserver_core::Instant;

/// How far ahead "never" is armed: far enough to never fire, small enough not to overflow.
const FAR_FUTURE: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// `start + wait`, or "never" (a century after `start`) for a longer wait: a wait comes from
/// configuration (idle time, drain time) and must not overflow the clock.
pub(crate) fn after(start: tokio::time::Instant, wait: Duration) -> tokio::time::Instant {
    start + wait.min(FAR_FUTURE)
}

/// Converts between tokio instants and core instants, whose epoch is the moment of creation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    epoch: tokio::time::Instant,
}

impl Clock {
    /// A clock whose epoch is now.
    pub(crate) fn start() -> Self {
        Self { epoch: tokio::time::Instant::now() }
    }

    /// The current time in core terms (never decreases: tokio's clock is monotonic).
    pub(crate) fn now(&self) -> Instant {
        Instant::from_millis(u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX))
    }

    /// The core instant of the tokio instant `at`, rounded up to the millisecond: a timer
    /// armed for `at` plus whole milliseconds fires no earlier than this plus those.
    pub(crate) fn at(&self, at: tokio::time::Instant) -> Instant {
        let nanos = at.saturating_duration_since(self.epoch).as_nanos();
        Instant::from_millis(u64::try_from(nanos.div_ceil(1_000_000)).unwrap_or(u64::MAX))
    }

    /// The tokio instant at which `at` is reached ([`Instant::MAX`]: a century from the
    /// epoch, i.e. never). Core instants are whole milliseconds, so a timer armed here never
    /// fires before [`Self::now`] reaches `at`.
    pub(crate) fn deadline(&self, at: Instant) -> tokio::time::Instant {
        let offset = Duration::from_millis(at.as_millis()).min(FAR_FUTURE);
        self.epoch + offset
    }
}
