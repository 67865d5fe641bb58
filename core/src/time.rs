//! Time as the core sees it: milliseconds on a monotonic clock that the driver owns.
//!
//! The core never reads a clock. Drivers pass `now` into every call; the simulation passes
//! virtual time, the daemon passes milliseconds since it started.

use core::fmt;
use core::ops::{Add, Sub};
use core::time::Duration;

/// A point in time, in milliseconds since an epoch chosen by the driver.
///
/// Invariant kept by drivers: the `now` values given to one state machine never decrease.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(u64);

impl Instant {
    /// The driver's epoch.
    pub const ZERO: Self = Self(0);
    /// Later than any real time; used for "never".
    pub const MAX: Self = Self(u64::MAX);

    /// An instant `ms` milliseconds after the epoch.
    #[must_use]
    pub const fn from_millis(ms: u64) -> Self {
        Self(ms)
    }

    /// Milliseconds since the epoch.
    #[must_use]
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// Time elapsed from `earlier` to `self`, zero if `earlier` is later.
    #[must_use]
    pub fn saturating_since(self, earlier: Self) -> Duration {
        Duration::from_millis(self.0.saturating_sub(earlier.0))
    }
}

impl Add<Duration> for Instant {
    type Output = Self;
    fn add(self, rhs: Duration) -> Self {
        let ms = u64::try_from(rhs.as_millis()).unwrap_or(u64::MAX);
        Self(self.0.saturating_add(ms))
    }
}

impl Sub<Duration> for Instant {
    type Output = Self;
    fn sub(self, rhs: Duration) -> Self {
        let ms = u64::try_from(rhs.as_millis()).unwrap_or(u64::MAX);
        Self(self.0.saturating_sub(ms))
    }
}

impl fmt::Display for Instant {
    /// Seconds with millisecond precision, the way the teaching page prints times.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:03}s", self.0 / 1000, self.0 % 1000)
    }
}

/// Milliseconds of a duration, saturating at `u64::MAX`.
#[must_use]
pub fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_saturates() {
        let t = Instant::from_millis(5);
        assert_eq!((t + Duration::from_millis(7)).as_millis(), 12);
        assert_eq!((t - Duration::from_millis(7)).as_millis(), 0);
        assert_eq!(Instant::MAX + Duration::from_secs(1), Instant::MAX);
        assert_eq!(Instant::from_millis(12).saturating_since(t), Duration::from_millis(7));
        assert_eq!(t.saturating_since(Instant::from_millis(12)), Duration::ZERO);
    }

    #[test]
    fn displays_seconds() {
        assert_eq!(alloc::format!("{}", Instant::from_millis(11_002)), "11.002s");
    }
}
