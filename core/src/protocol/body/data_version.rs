//! `DataVersion`: a broker's topic-config version, compared to detect changes.

use serde::{Deserialize, Serialize};

use crate::json::{JsonWriter, WriteJson};

/// A broker's topic-config data version. Equality covers all three fields (5.x).
///
/// `Default` is the all-zero version Java gives a registration without a body. A JSON object
/// reads missing fields from [`Self::java_new`] instead: Java's `new DataVersion()` stamps
/// the wall clock, so a registration whose version lacks a timestamp always counts as
/// changed. The core has no wall clock, so such a version is marked
/// ([`Self::UNSTAMPED`]) and stamped with the NameServer's clock when it is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default = "DataVersion::java_new")]
pub struct DataVersion {
    /// Bumped on every change.
    pub counter: i64,
    /// Set in controller/DLedger modes; 0 otherwise (absent in 4.9.x JSON).
    pub state_version: i64,
    /// Wall-clock milliseconds of the last change, as the broker saw it.
    pub timestamp: i64,
}

impl DataVersion {
    /// The timestamp of a version Java would have stamped "now" (never stored or written).
    pub const UNSTAMPED: i64 = i64::MIN;

    /// Java's `new DataVersion()`: counter and state version 0, timestamp "now".
    #[must_use]
    pub const fn java_new() -> Self {
        Self { counter: 0, state_version: 0, timestamp: Self::UNSTAMPED }
    }

    /// Whether this version came without a timestamp (see [`Self::java_new`]).
    #[must_use]
    pub const fn is_unstamped(&self) -> bool {
        self.timestamp == Self::UNSTAMPED
    }

    /// This version, with `now` (milliseconds on the NameServer's clock) as its timestamp
    /// if it had none.
    #[must_use]
    pub fn stamped(self, now: crate::time::Instant) -> Self {
        if self.is_unstamped() {
            Self { timestamp: i64::try_from(now.as_millis()).unwrap_or(i64::MAX), ..self }
        } else {
            self
        }
    }
}

impl WriteJson for DataVersion {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            o.key("counter").int(self.counter);
            o.key("stateVersion").int(self.state_version);
            o.key("timestamp").int(self.timestamp);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{JsonStyle, from_fastjson};

    #[test]
    fn matches_fastjson_and_reads_4_9_form() {
        let v = DataVersion { counter: 5, state_version: 0, timestamp: 1_700_000_000_000 };
        let text = br#"{"counter":5,"stateVersion":0,"timestamp":1700000000000}"#;
        assert_eq!(v.to_json(JsonStyle::Plain), text);
        assert_eq!(from_fastjson::<DataVersion>(text).unwrap(), v);
        assert_eq!(from_fastjson::<DataVersion>(br#"{"counter":5,"timestamp":1700000000000}"#).unwrap(), v);
    }

    #[test]
    fn a_missing_timestamp_is_javas_now() {
        let v = from_fastjson::<DataVersion>(br#"{"counter":5}"#).unwrap();
        assert!(v.is_unstamped());
        assert_eq!(v.stamped(crate::time::Instant::from_millis(42)).timestamp, 42);
        assert!(!DataVersion::default().is_unstamped(), "an absent body is Java's explicit zero version");
    }
}
