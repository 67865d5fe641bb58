//! [`IdleClock`]: when a silent connection is closed, as Java's NameServer decides it with
//! Netty's `IdleStateHandler(0, 0, serverChannelMaxIdleTimeSeconds)`: the idle time after the
//! last byte read or written, whichever was later. The core never sees bytes, so each driver
//! keeps one clock per connection, touches it on every read and write, and delivers
//! [`super::Input::Idle`] once it has expired.

use core::time::Duration;

use crate::time::Instant;

/// One connection's last read or write. The idle time is an argument, not part of the clock:
/// it is the configuration's (`serverChannelMaxIdleTimeSeconds`), read when the driver asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IdleClock {
    last: Instant,
}

impl IdleClock {
    /// A connection opened (or first active) at `now`.
    #[must_use]
    pub const fn new(now: Instant) -> Self {
        Self { last: now }
    }

    /// A read or a write at `now` (an earlier `now` than the last is taken as the last).
    pub fn touch(&mut self, now: Instant) {
        self.last = self.last.max(now);
    }

    /// The last read or write.
    #[must_use]
    pub const fn last(&self) -> Instant {
        self.last
    }

    /// When the connection will have been silent for `idle`, unless touched before: when to
    /// check [`Self::expired`] again.
    #[must_use]
    pub fn deadline(&self, idle: Duration) -> Instant {
        self.last + idle
    }

    /// Whether the connection has been silent for `idle` at `now`: close it
    /// ([`super::Input::Idle`]).
    #[must_use]
    pub fn expired(&self, now: Instant, idle: Duration) -> bool {
        now >= self.deadline(idle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silent_for_the_idle_time_after_the_last_read_or_write() {
        let at = Instant::from_millis;
        let idle = Duration::from_millis(120);
        let mut clock = IdleClock::new(at(10));
        assert_eq!(clock.deadline(idle), at(130));
        assert!(!clock.expired(at(129), idle));
        clock.touch(at(100));
        clock.touch(at(50));
        assert_eq!(clock.last(), at(100), "never moves back");
        assert!(!clock.expired(at(130), idle), "a touch moves the deadline");
        assert!(clock.expired(at(220), idle));
        assert_eq!(IdleClock::new(at(5)).deadline(Duration::MAX), Instant::MAX, "saturates");
    }
}
