//! `DataVersion`: a broker's topic-config version, compared to detect changes.

use serde::Deserialize;

use crate::json::{JsonWriter, WriteJson};

/// A broker's topic-config data version. Equality covers all three fields (5.x).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DataVersion {
    /// Bumped on every change.
    pub counter: i64,
    /// Set in controller/DLedger modes; 0 otherwise (absent in 4.9.x JSON).
    pub state_version: i64,
    /// Wall-clock milliseconds of the last change, as the broker saw it.
    pub timestamp: i64,
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
}
