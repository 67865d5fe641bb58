//! When a NameServer drops a broker that has gone silent: the idle close of its channel or
//! the first expiry scan that finds its heartbeat too old, whichever comes first. The page's
//! clocks (simulation and live daemon alike) are built from this one rule.

use serde::{Deserialize, Serialize};

use super::NameServer;
use crate::route::BrokerLiveInfo;
use crate::time::Instant;

/// Which of a NameServer's two removal paths gets to a silent broker first (`idle` or
/// `scan` in JSON, as [`Self::name`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum RemovalPath {
    /// Netty's idle close of the broker's channel (`serverChannelMaxIdleTimeSeconds`).
    Idle,
    /// `scanNotActiveBroker` finding its heartbeat expired (also what a view without the
    /// field is read as).
    #[default]
    Scan,
}

impl RemovalPath {
    /// `idle` or `scan`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::Scan => "scan",
        }
    }
}

/// When a broker listed in `brokerLiveTable` is removed if nothing from it arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Removal {
    /// When the idle close of the broker's channel fires (`None`: idle close off, or the
    /// driver does not track the channel).
    pub idle_close_at: Option<Instant>,
    /// The first scan that finds the entry expired.
    pub scan_expire_at: Instant,
    /// The earlier of the two.
    pub at: Instant,
    /// Which one that is (the idle close on a tie: the channel's event removes the entry
    /// before the scan sees it).
    pub by: RemovalPath,
}

impl Removal {
    /// The earlier of an idle close at `idle_close_at` and the scan at `scan_expire_at`.
    #[must_use]
    pub fn first_of(idle_close_at: Option<Instant>, scan_expire_at: Instant) -> Self {
        let (at, by) = match idle_close_at {
            Some(idle) if idle <= scan_expire_at => (idle, RemovalPath::Idle),
            _ => (scan_expire_at, RemovalPath::Scan),
        };
        Self { idle_close_at, scan_expire_at, at, by }
    }
}

impl NameServer {
    /// When `live` is removed if nothing refreshes it: the first scan at or after it expires
    /// (on this NameServer's fixed-rate schedule), or the idle close of its channel at
    /// `idle_close_at` (the driver knows it: [`super::IdleClock::deadline`] of the channel's
    /// clock) if that comes first.
    #[must_use]
    pub fn removal(&self, live: &BrokerLiveInfo, idle_close_at: Option<Instant>) -> Removal {
        Removal::first_of(idle_close_at, self.scan_at_or_after(live.expired_from()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earlier_path_wins_and_a_tie_goes_to_the_idle_close() {
        let at = Instant::from_millis;
        let scan = Removal::first_of(Some(at(130)), at(125));
        assert_eq!((scan.at, scan.by), (at(125), RemovalPath::Scan));
        let idle = Removal::first_of(Some(at(120)), at(125));
        assert_eq!((idle.at, idle.by), (at(120), RemovalPath::Idle));
        let tie = Removal::first_of(Some(at(125)), at(125));
        assert_eq!((tie.at, tie.by), (at(125), RemovalPath::Idle));
        let off = Removal::first_of(None, at(125));
        assert_eq!((off.at, off.by, off.idle_close_at), (at(125), RemovalPath::Scan, None));
    }
}
